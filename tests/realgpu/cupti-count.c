// SPDX-License-Identifier: GPL-2.0
/*
 * cupti-count LIBCUPTI N NS...: the driver calls a program makes while it
 * launches N kernels of NS ns each (simgpu_spin, tests/clients/spin-ptx.h),
 * counted with CUPTI's driver-API callbacks (cuptiSubscribe, then
 * cuptiEnableDomain(CUPTI_CB_DOMAIN_DRIVER_API): every API enter, by
 * callback id). Run bare and under libvgpu, the difference is what libvgpu
 * adds (tests/realgpu/run's cost-calls step).
 *
 * The driver is reached as vram-bench reaches it (dlopen libcuda.so.1,
 * then cuGetProcAddress_v2), and CUPTI is dlopen'ed from LIBCUPTI, so
 * that this program links neither: cupti.h (NVIDIA's nvidia-cuda-cupti
 * wheel, tools/nvidia.lock) gives the types only. Only the launch loops
 * are counted (after 10 warm-up launches and a synchronisation), one
 * window per NS:
 *
 *   cupti version V                     (cuptiGetVersion)
 *   count ns NS launches N calls TOTAL
 *   call ns NS cbid ID name NAME count C   (one per callback id seen)
 *
 * Exit status: 0 counted; 2 usage; 3 the driver failed (cuInit, the
 * kernel, a launch); 4 LIBCUPTI cannot be loaded or lacks a function; 5
 * CUPTI refused to subscribe or enable the domain (its error named).
 */
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../clients/spin-ptx.h"

#define CC_CBIDS 4096

typedef CUresult (*cc_getproc_t)(const char *, void **, int, cuuint64_t,
				 CUdriverProcAddressQueryResult *);

static struct {
	CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
	CUptiResult (*unsubscribe)(CUpti_SubscriberHandle);
	CUptiResult (*result_string)(CUptiResult, const char **);
	CUptiResult (*callback_name)(CUpti_CallbackDomain, uint32_t, const char **);	/* may be NULL */
	CUptiResult (*version)(uint32_t *);	/* may be NULL */
} cc_cupti;

static struct {
	CUresult (*init)(unsigned int);
	CUresult (*devget)(CUdevice *, int);
	CUresult (*retain)(CUcontext *, CUdevice);
	CUresult (*setcur)(CUcontext);
	CUresult (*libload)(CUlibrary *, const void *, CUjit_option *, void **, unsigned int,
			    CUlibraryOption *, void **, unsigned int);
	CUresult (*getkernel)(CUkernel *, CUlibrary, const char *);
	CUresult (*launch)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
			   unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
	CUresult (*ctxsync)(void);
} cc_cu;

static uint64_t cc_counts[CC_CBIDS];
static uint64_t cc_other;	/* callback ids past the table */
static int cc_counting;

static void CUPTIAPI cc_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	const CUpti_CallbackData *d = data;

	(void)userdata;
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API || d->callbackSite != CUPTI_API_ENTER ||
	    !__atomic_load_n(&cc_counting, __ATOMIC_RELAXED))
		return;
	__atomic_add_fetch(cbid < CC_CBIDS ? &cc_counts[cbid] : &cc_other, 1, __ATOMIC_RELAXED);
}

static int cc_load_cupti(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "cupti-count: cannot load %s: %s\n", path, dlerror());
		return -1;
	}
	*(void **)&cc_cupti.subscribe = dlsym(h, "cuptiSubscribe");
	*(void **)&cc_cupti.enable_domain = dlsym(h, "cuptiEnableDomain");
	*(void **)&cc_cupti.unsubscribe = dlsym(h, "cuptiUnsubscribe");
	*(void **)&cc_cupti.result_string = dlsym(h, "cuptiGetResultString");
	*(void **)&cc_cupti.callback_name = dlsym(h, "cuptiGetCallbackName");
	*(void **)&cc_cupti.version = dlsym(h, "cuptiGetVersion");
	if (!cc_cupti.subscribe || !cc_cupti.enable_domain || !cc_cupti.unsubscribe ||
	    !cc_cupti.result_string) {
		fprintf(stderr, "cupti-count: %s lacks cuptiSubscribe, cuptiEnableDomain, "
			"cuptiUnsubscribe or cuptiGetResultString\n", path);
		return -1;
	}
	return 0;
}

static const char *cc_cupti_err(CUptiResult r)
{
	static char buf[160];
	const char *s = NULL;

	if (cc_cupti.result_string(r, &s) || !s)
		s = "no text for it";
	snprintf(buf, sizeof(buf), "CUptiResult %d (%s)", (int)r, s);
	return buf;
}

static int cc_load_cuda(void)
{
	CUdriverProcAddressQueryResult st;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	cc_getproc_t gp;

	if (!h) {
		fprintf(stderr, "cupti-count: cannot load libcuda.so.1: %s\n", dlerror());
		return -1;
	}
	gp = (cc_getproc_t)dlsym(h, "cuGetProcAddress_v2");
	*(void **)&cc_cu.init = dlsym(h, "cuInit");
	if (!gp || !cc_cu.init ||
	    gp("cuDeviceGet", (void **)&cc_cu.devget, 2000, 0, &st) ||
	    gp("cuDevicePrimaryCtxRetain", (void **)&cc_cu.retain, 7000, 0, &st) ||
	    gp("cuCtxSetCurrent", (void **)&cc_cu.setcur, 4000, 0, &st) ||
	    gp("cuLibraryLoadData", (void **)&cc_cu.libload, 12000, 0, &st) ||
	    gp("cuLibraryGetKernel", (void **)&cc_cu.getkernel, 12000, 0, &st) ||
	    gp("cuLaunchKernel", (void **)&cc_cu.launch, 4000, 0, &st) ||
	    gp("cuCtxSynchronize", (void **)&cc_cu.ctxsync, 2000, 0, &st)) {
		fprintf(stderr, "cupti-count: libcuda.so.1 lacks an entry point it needs\n");
		return -1;
	}
	return 0;
}

/* N launches of an ns-long kernel, counted; 0 or -1 (said). */
static int cc_window(CUfunction f, size_t n, uint64_t ns)
{
	void *params[] = { &ns };
	const char *name;
	uint64_t total = 0;
	CUresult r = CUDA_SUCCESS;

	for (int i = 0; i < 10 && !r; i++)	/* warm up: the first launches load it */
		r = cc_cu.launch(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL);
	if (r || (r = cc_cu.ctxsync())) {
		fprintf(stderr, "cupti-count: warm-up launches of %llu ns: CUresult %d\n",
			(unsigned long long)ns, (int)r);
		return -1;
	}
	memset(cc_counts, 0, sizeof(cc_counts));
	cc_other = 0;
	__atomic_store_n(&cc_counting, 1, __ATOMIC_SEQ_CST);
	for (size_t i = 0; i < n && !r; i++)
		r = cc_cu.launch(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL);
	__atomic_store_n(&cc_counting, 0, __ATOMIC_SEQ_CST);
	if (r || (r = cc_cu.ctxsync())) {
		fprintf(stderr, "cupti-count: launches of %llu ns: CUresult %d\n", (unsigned long long)ns,
			(int)r);
		return -1;
	}
	for (int i = 0; i < CC_CBIDS; i++)
		total += cc_counts[i];
	printf("count ns %llu launches %zu calls %llu\n", (unsigned long long)ns, n,
	       (unsigned long long)(total + cc_other));
	for (int i = 0; i < CC_CBIDS; i++) {
		if (!cc_counts[i])
			continue;
		name = NULL;
		if (!cc_cupti.callback_name ||
		    cc_cupti.callback_name(CUPTI_CB_DOMAIN_DRIVER_API, (uint32_t)i, &name) || !name)
			name = "?";
		printf("call ns %llu cbid %d name %s count %llu\n", (unsigned long long)ns, i, name,
		       (unsigned long long)cc_counts[i]);
	}
	if (cc_other)
		printf("call ns %llu cbid %d+ name ? count %llu\n", (unsigned long long)ns, CC_CBIDS,
		       (unsigned long long)cc_other);
	return 0;
}

/* The context and the kernel. */
static int cc_kernel(CUfunction *f)
{
	CUdevice dev;
	CUcontext ctx;
	CUlibrary lib;
	CUkernel k;
	CUresult r;

	if ((r = cc_cu.init(0)) || (r = cc_cu.devget(&dev, 0)) || (r = cc_cu.retain(&ctx, dev)) ||
	    (r = cc_cu.setcur(ctx)) ||
	    (r = cc_cu.libload(&lib, cu_spin_ptx, NULL, NULL, 0, NULL, NULL, 0)) ||
	    (r = cc_cu.getkernel(&k, lib, "simgpu_spin"))) {
		fprintf(stderr, "cupti-count: the driver's set-up (cuInit to cuLibraryGetKernel): "
			"CUresult %d\n", (int)r);
		return -1;
	}
	*f = (CUfunction)(void *)k;	/* the runtime launches CUkernels so */
	return 0;
}

int main(int argc, char **argv)
{
	CUpti_SubscriberHandle sub;
	CUptiResult cr;
	CUfunction f;
	uint32_t v = 0;
	char *end;
	size_t n;

	n = argc >= 4 ? strtoul(argv[2], &end, 10) : 0;
	if (argc < 4 || *end || !n || n > 10000000) {
		fprintf(stderr, "usage: cupti-count LIBCUPTI N NS... (N launches from 1 to 10000000 "
			"of each NS-ns kernel)\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		strtoull(argv[i], &end, 10);
		if (!*argv[i] || *end) {
			fprintf(stderr, "cupti-count: NS must be a number of nanoseconds, not '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (cc_load_cupti(argv[1]))
		return 4;
	if (cc_load_cuda() || cc_kernel(&f))
		return 3;
	if (cc_cupti.version && !cc_cupti.version(&v))
		printf("cupti version %u\n", v);
	if ((cr = cc_cupti.subscribe(&sub, cc_callback, NULL)) ||
	    (cr = cc_cupti.enable_domain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API))) {
		fprintf(stderr, "cupti-count: CUPTI refused (cuptiSubscribe or cuptiEnableDomain): %s\n",
			cc_cupti_err(cr));
		return 5;
	}
	for (int i = 3; i < argc; i++)
		if (cc_window(f, n, strtoull(argv[i], NULL, 10)))
			return 3;
	cc_cupti.unsubscribe(sub);
	return 0;
}
