// SPDX-License-Identifier: GPL-2.0
/*
 * cuGetProcAddress hooks. The real look-up runs first, with the caller's
 * version and flags, so the driver alone decides which ABI variant a name
 * resolves to; if the answer is a hooked variant, the caller gets
 * libvgpu's wrapper of exactly that variant (cuMemAlloc@3020 -> the
 * cuMemAlloc_v2 wrapper, flags 2 -> the _ptsz wrapper,
 * cuGetProcAddress@12000 -> this file's cuGetProcAddress_v2). Other
 * answers, errors and statuses pass through untouched.
 *
 * Which variant an answer is, is known by its address when the driver
 * answers the addresses of its exports, as simgpu does by default. Nothing
 * promises that of NVIDIA's driver, so the first look-up runs a self-check:
 * a few hooked names at their versions must give what dlsym gives for the
 * versioned exports. If one does not, libvgpu says so once and maps every
 * look-up by name, version and flags instead (procmap.c), never letting a
 * hooked function through unwrapped.
 */
#include <pthread.h>

#include "hooks.h"
#include "log.h"
#include "procmap.h"

static int vgpu_procaddr_byname;	/* set once by the self-check */
static pthread_once_t vgpu_procaddr_once = PTHREAD_ONCE_INIT;

/* The driver's own answer, for procmap.c and the self-check. */
static void *vgpu_procaddr_ask(const char *name, int version, unsigned long long flags,
			       void *ctx)
{
	vgpu_pfn_cuGetProcAddress real = REAL(cuGetProcAddress);
	void *fn = NULL;

	(void)ctx;
	if (!real || real(name, &fn, version, flags) != CUDA_SUCCESS)
		return NULL;
	return fn;
}

static const struct {
	const char *name;
	int version;
	unsigned long long flags;
	enum vgpu_hook_id want;
} vgpu_probes[] = {
	{ "cuMemAlloc", 3020, 0, VGPU_HOOK_cuMemAlloc_v2 },
	{ "cuLaunchKernel", 4000, 0, VGPU_HOOK_cuLaunchKernel },
	{ "cuLaunchKernel", 4000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
	  VGPU_HOOK_cuLaunchKernel_ptsz },
	{ "cuMemAllocAsync", 11020, 0, VGPU_HOOK_cuMemAllocAsync },
};

static void vgpu_procaddr_selfcheck(void)
{
	const char *first = NULL;
	void *got = NULL, *exp = NULL;

	for (size_t i = 0; i < sizeof(vgpu_probes) / sizeof(vgpu_probes[0]); i++) {
		const char *name = vgpu_probes[i].name;
		int v = vgpu_probes[i].version, id;
		void *fn = vgpu_procaddr_ask(name, v, vgpu_probes[i].flags, NULL);

		if (!fn)
			continue;	/* an older driver: nothing to compare */
		id = libvgpu_procmap_find(name, v, vgpu_probes[i].flags, fn,
					  vgpu_procaddr_ask, NULL);
		if (id != (int)vgpu_probes[i].want)
			libvgpu_log(VGPU_LOG_ERROR, "cuGetProcAddress: mapping %s@%d by name "
				    "gives %s, not %s (cuda.h, cudaTypedefs.h and hooks.def "
				    "disagree)", name, v, id < 0 ? "nothing" : libvgpu_hooks[id].name,
				    libvgpu_hooks[vgpu_probes[i].want].name);
		/* The export, or the export bound to our wrapper by the dynamic
		 * linker (a driver whose own references are interposable). */
		if (fn != libvgpu_real_get(vgpu_probes[i].want) &&
		    fn != libvgpu_hooks[vgpu_probes[i].want].wrapper && !first) {
			first = libvgpu_hooks[vgpu_probes[i].want].name;
			got = fn;
			exp = libvgpu_real_get(vgpu_probes[i].want);
		}
	}
	if (!first)
		return;
	__atomic_store_n(&vgpu_procaddr_byname, 1, __ATOMIC_RELEASE);
	libvgpu_log(VGPU_LOG_WARN, "cuGetProcAddress answers %p for %s, whose export is at %p: "
		    "the driver's entry points are not its exports; mapping look-ups by name",
		    got, first, exp);
}

/* What the caller gets for the driver's answer fn. */
static void *vgpu_procaddr_wrap(const char *symbol, int version, cuuint64_t flags, void *fn)
{
	int id;

	if (!fn || libvgpu_real_load(VGPU_LIB_CU, 1))
		return fn;
	pthread_once(&vgpu_procaddr_once, vgpu_procaddr_selfcheck);
	if (!__atomic_load_n(&vgpu_procaddr_byname, __ATOMIC_ACQUIRE))
		return libvgpu_hook_wrap(VGPU_LIB_CU, fn);
	id = libvgpu_procmap_find(symbol, version, flags, fn, vgpu_procaddr_ask, NULL);
	if (id < 0 || !libvgpu_hooks[id].wrapper)
		return libvgpu_hook_wrap(VGPU_LIB_CU, fn);
	/* A variant the driver does not export: its wrapper calls this one. */
	if (!libvgpu_real_get(id)) {
		void *none = NULL;

		__atomic_compare_exchange_n(&libvgpu_real[id], &none, fn, 0,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	return libvgpu_hooks[id].wrapper;
}

VGPU_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				      cuuint64_t flags)
{
	vgpu_pfn_cuGetProcAddress real = REAL(cuGetProcAddress);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(symbol, pfn, cudaVersion, flags);
	if (rc == CUDA_SUCCESS && pfn)
		*pfn = vgpu_procaddr_wrap(symbol, cudaVersion, flags, *pfn);
	return rc;
}

#if CUDA_VERSION >= 12000
VGPU_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
					 cuuint64_t flags,
					 CUdriverProcAddressQueryResult *symbolStatus)
{
	vgpu_pfn_cuGetProcAddress_v2 real = REAL(cuGetProcAddress_v2);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(symbol, pfn, cudaVersion, flags, symbolStatus);
	if (rc == CUDA_SUCCESS && pfn)
		*pfn = vgpu_procaddr_wrap(symbol, cudaVersion, flags, *pfn);
	return rc;
}
#endif
