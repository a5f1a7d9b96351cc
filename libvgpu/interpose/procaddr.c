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
 * hooked function through unwrapped: an answer for a hooked name that
 * neither its address nor its name maps to a wrapper is refused
 * (CUDA_ERROR_NOT_FOUND), with a warning once per name. A look-up the
 * driver makes of itself while libvgpu called it gets the driver's own
 * answer (nest.h); the outer look-up maps the end result.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../access/hooks.h"
#include "../access/log.h"
#include "../access/nest.h"
#include "procaddr.h"
#include "../access/procmap.h"

/* The self-check's progress. No thread ever waits for it: one runs it,
 * and look-ups made meanwhile by other threads are mapped by name, which
 * is right for every driver. (A wait here could wait on itself: the
 * driver's cuGetProcAddress may call back into the exported
 * cuGetProcAddress_v2 on the checking thread, nest.h.) */
enum { VGPU_CHECK_NONE, VGPU_CHECK_RUNNING, VGPU_CHECK_DONE };
static int vgpu_procaddr_check;
static pthread_mutex_t vgpu_unmapped_lk = PTHREAD_MUTEX_INITIALIZER;
static int vgpu_procaddr_byname;	/* set once by the self-check */

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

/* Whether look-ups are mapped by address: only once the self-check has
 * found the driver's answers to be its exports. The first caller runs it. */
static int vgpu_procaddr_by_address(void)
{
	int st = __atomic_load_n(&vgpu_procaddr_check, __ATOMIC_ACQUIRE);

	if (st == VGPU_CHECK_NONE &&
	    __atomic_compare_exchange_n(&vgpu_procaddr_check, &st, VGPU_CHECK_RUNNING, 0,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		vgpu_procaddr_selfcheck();
		__atomic_store_n(&vgpu_procaddr_check, VGPU_CHECK_DONE, __ATOMIC_RELEASE);
		st = VGPU_CHECK_DONE;
	}
	return st == VGPU_CHECK_DONE && !__atomic_load_n(&vgpu_procaddr_byname, __ATOMIC_ACQUIRE);
}

/* A hooked name whose answer cannot be mapped to a wrapper: refused, said
 * once per name (the first 64). Handing it back would let the program
 * past libvgpu. Nothing under the lock calls the driver. */
static void *vgpu_procaddr_unmapped(const char *symbol, int version, cuuint64_t flags)
{
	static char *said[64];
	int i, seen = 0;

	pthread_mutex_lock(&vgpu_unmapped_lk);
	for (i = 0; i < 64 && said[i] && !seen; i++)
		seen = !strcmp(said[i], symbol);
	if (!seen && i < 64)
		said[i] = strdup(symbol);
	pthread_mutex_unlock(&vgpu_unmapped_lk);
	if (seen)
		return NULL;
	if (version > CUDA_VERSION)
		libvgpu_log(VGPU_LOG_WARN, "cuGetProcAddress(%s, %d, %#llx): the driver answered "
			    "a variant newer than the CUDA %d headers libvgpu was built with: "
			    "refused with CUDA_ERROR_NOT_FOUND", symbol, version,
			    (unsigned long long)flags, CUDA_VERSION);
	else
		libvgpu_log(VGPU_LOG_WARN, "cuGetProcAddress(%s, %d, %#llx): libvgpu cannot tell "
			    "which of its variants the driver answered (cuda.h, cudaTypedefs.h "
			    "and hooks.def disagree): refused with CUDA_ERROR_NOT_FOUND", symbol,
			    version, (unsigned long long)flags);
	return NULL;
}

/* What the caller gets for the driver's answer fn (NULL: refused). */
static void *vgpu_procaddr_wrap(const char *symbol, int version, cuuint64_t flags, void *fn)
{
	void *w;
	int id;

	if (!fn || libvgpu_real_load(VGPU_LIB_CU, 1) || libvgpu_hook_is_wrapper(fn))
		return fn;
	if (vgpu_procaddr_by_address()) {
		w = libvgpu_hook_wrap(VGPU_LIB_CU, fn);
		if (w != fn)
			return w;
		/* Not the address of a hooked export: by name below, in case
		 * it is a hooked name after all. */
	}
	id = libvgpu_procmap_find(symbol, version, flags, fn, vgpu_procaddr_ask, NULL);
	if (id == VGPU_PROCMAP_UNMAPPED)
		return vgpu_procaddr_unmapped(symbol, version, flags);
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
	VGPU_PASS_NESTED(cuGetProcAddress, (symbol, pfn, cudaVersion, flags));
	vgpu_pfn_cuGetProcAddress real = REAL(cuGetProcAddress);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(symbol, pfn, cudaVersion, flags);
	if (rc == CUDA_SUCCESS && pfn && *pfn) {
		*pfn = vgpu_procaddr_wrap(symbol, cudaVersion, flags, *pfn);
		if (!*pfn)
			rc = CUDA_ERROR_NOT_FOUND;
	}
	return rc;
}

#if CUDA_VERSION >= 12000
VGPU_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
					 cuuint64_t flags,
					 CUdriverProcAddressQueryResult *symbolStatus)
{
	VGPU_PASS_NESTED(cuGetProcAddress_v2, (symbol, pfn, cudaVersion, flags, symbolStatus));
	vgpu_pfn_cuGetProcAddress_v2 real = REAL(cuGetProcAddress_v2);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(symbol, pfn, cudaVersion, flags, symbolStatus);
	if (rc == CUDA_SUCCESS && pfn && *pfn) {
		*pfn = vgpu_procaddr_wrap(symbol, cudaVersion, flags, *pfn);
		if (!*pfn) {
			rc = CUDA_ERROR_NOT_FOUND;
			if (symbolStatus)
				*symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
		}
	}
	return rc;
}
#endif

/* In a forked child (init.c): the lock of the names said; and a
 * self-check the parent's other thread was running will never finish in
 * the child (only the forking thread lives on), so the child's first
 * look-up runs its own. One finished is kept: the driver is the same. */
void libvgpu_procaddr_reset(void)
{
	int running = VGPU_CHECK_RUNNING;

	pthread_mutex_init(&vgpu_unmapped_lk, NULL);
	__atomic_compare_exchange_n(&vgpu_procaddr_check, &running, VGPU_CHECK_NONE, 0,
				    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}
