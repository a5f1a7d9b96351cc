// SPDX-License-Identifier: GPL-2.0
/*
 * Every launch entry point through libvgpu, as the runtime reaches them
 * (cuGetProcAddress_v2 on a dlopen'ed libcuda.so.1, flags 0 and 2), with
 * contexts made current by cuCtxSetCurrent and cuCtxPushCurrent: each
 * wrapper must pass its launch on to simgpu. Prints one line per entry
 * point, "NAME flags F in WHERE: rc", then "launched N" (kernels simgpu
 * should have run for this process) and "pid P"; exit status 1 if a
 * launch failed.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>

typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t,
			   CUdriverProcAddressQueryResult *);
static gpa_fn gpa;

static void *get(const char *name, int version, unsigned long long flags)
{
	void *p = NULL;

	if (gpa(name, &p, version, flags, NULL))
		return NULL;
	return p;
}

static const char *where(const void *p)
{
	Dl_info di;

	if (!p || !dladdr(p, &di) || !di.dli_fname)
		return "?";
	return strstr(di.dli_fname, "libvgpu.so") ? "libvgpu" : "driver";
}

int main(void)
{
	void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	static const char image[] = "simgpu test image: any bytes will do";
	CUresult (*init)(unsigned int), (*dev_get)(CUdevice *, int);
	CUresult (*retain)(CUcontext *, CUdevice), (*setcur)(CUcontext);
	CUresult (*push)(CUcontext), (*pop)(CUcontext *), (*sync)(CUcontext);
	CUresult (*libload)(CUlibrary *, const void *, CUjit_option *, void **, unsigned int,
			    CUlibraryOption *, void **, unsigned int);
	CUresult (*getk)(CUkernel *, CUlibrary, const char *);
	CUresult (*lk[2])(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
			  unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
	CUresult (*lkex[2])(const CUlaunchConfig *, CUfunction, void **, void **);
	CUresult (*coop[2])(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
			    unsigned int, unsigned int, unsigned int, CUstream, void **);
	uint64_t ns = 10000;
	void *params[] = { &ns };
	CUlaunchConfig cfg = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32,
			       .blockDimY = 1, .blockDimZ = 1 };
	CUcontext ctx = NULL, popped = NULL;
	CUdevice dev;
	CUlibrary lib;
	CUkernel k;
	CUfunction f;
	int launched = 0, bad = 0;

	if (!cu || !(gpa = (gpa_fn)dlsym(cu, "cuGetProcAddress_v2"))) {
		printf("FAIL: no libcuda.so.1 / cuGetProcAddress_v2\n");
		return 1;
	}
	init = get("cuInit", 2000, 0);
	dev_get = get("cuDeviceGet", 2000, 0);
	retain = get("cuDevicePrimaryCtxRetain", 7000, 0);
	setcur = get("cuCtxSetCurrent", 4000, 0);
	push = get("cuCtxPushCurrent", 4000, 0);
	pop = get("cuCtxPopCurrent", 4000, 0);
	sync = get("cuCtxSynchronize", 13000, 0);
	libload = get("cuLibraryLoadData", 12000, 0);
	getk = get("cuLibraryGetKernel", 12000, 0);
	for (int fl = 0; fl < 2; fl++) {
		lk[fl] = get("cuLaunchKernel", 4000, fl * 2);
		lkex[fl] = get("cuLaunchKernelEx", 11060, fl * 2);
		coop[fl] = get("cuLaunchCooperativeKernel", 9000, fl * 2);
	}
	if (!init || !dev_get || !retain || !setcur || !push || !pop || !sync || !libload ||
	    !getk || init(0) || dev_get(&dev, 0) || retain(&ctx, dev) || setcur(ctx) ||
	    libload(&lib, image, NULL, NULL, 0, NULL, NULL, 0) ||
	    getk(&k, lib, "simgpu_spin")) {
		printf("FAIL: set-up\n");
		return 1;
	}
	f = (CUfunction)(void *)k;
	for (int fl = 0; fl < 2; fl++) {
		CUresult rc[3];

		/* Through cuCtxSetCurrent, then a pushed context. */
		rc[0] = lk[fl] ? lk[fl](f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL) : 999;
		if (push(ctx))
			bad = 1;
		rc[1] = lkex[fl] ? lkex[fl](&cfg, f, params, NULL) : 999;
		if (pop(&popped) || popped != ctx)
			bad = 1;
		rc[2] = coop[fl] ? coop[fl](f, 1, 1, 1, 32, 1, 1, 0, NULL, params) : 999;
		printf("cuLaunchKernel flags %d in %s: %d\n", fl * 2, where((void *)lk[fl]), rc[0]);
		printf("cuLaunchKernelEx flags %d in %s: %d\n", fl * 2, where((void *)lkex[fl]),
		       rc[1]);
		printf("cuLaunchCooperativeKernel flags %d in %s: %d\n", fl * 2,
		       where((void *)coop[fl]), rc[2]);
		for (int i = 0; i < 3; i++) {
			launched += rc[i] == CUDA_SUCCESS;
			bad |= rc[i] != CUDA_SUCCESS;
		}
	}
	if (sync(NULL))
		bad = 1;
	printf("launched %d\npid %d\n", launched, (int)getpid());
	return bad;
}
