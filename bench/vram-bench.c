// SPDX-License-Identifier: GPL-2.0
/*
 * vram-bench: latency of cuMemAlloc + cuMemFree pairs, as a program that
 * loads the driver like NVIDIA's runtime sees it (dlopen + cuGetProcAddress).
 * Run it bare and under libvgpu in the same boot and compare.
 *
 *   vram-bench pairs N SIZE     N alloc+free pairs: median, p99 in ns
 *   vram-bench vmmpairs N SIZE  N cuMemCreate + cuMemMap + cuMemUnmap +
 *                               cuMemRelease rounds (one reservation)
 *   vram-bench launches N NS    N launches of an NS-ns kernel (simgpu_spin,
 *                               tests/clients/spin-ptx.h: simgpu's or PTX on
 *                               NVIDIA's driver), each cuLaunchKernel call
 *                               timed: median, p90 in ns
 *   vram-bench init             time of cuInit (registration happens there)
 *   vram-bench hold MS          cuInit, then sleep MS (for mass start-up)
 *   vram-bench now              CLOCK_MONOTONIC in ns (for shell timing)
 *   vram-bench spawn N PROG...  run PROG N times (fork, exec, wait): mean ns
 */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../tests/clients/spin-ptx.h"

typedef CUresult (*getproc_t)(const char *, void **, int, cuuint64_t,
			      CUdriverProcAddressQueryResult *);

static CUresult (*p_init)(unsigned int);
static CUresult (*p_alloc)(CUdeviceptr *, size_t);
static CUresult (*p_free)(CUdeviceptr);
static CUresult (*p_devget)(CUdevice *, int);
static CUresult (*p_retain)(CUcontext *, CUdevice);
static CUresult (*p_setcur)(CUcontext);
static CUresult (*p_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
static CUresult (*p_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
			    unsigned long long);
static CUresult (*p_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
			 unsigned long long);
static CUresult (*p_unmap)(CUdeviceptr, size_t);
static CUresult (*p_release)(CUmemGenericAllocationHandle);
static CUresult (*p_libload)(CUlibrary *, const void *, CUjit_option *, void **, unsigned int,
			     CUlibraryOption *, void **, unsigned int);
static CUresult (*p_getkernel)(CUkernel *, CUlibrary, const char *);
static CUresult (*p_libunload)(CUlibrary);
static CUresult (*p_launch)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
			    unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
static CUresult (*p_ctxsync)(void);

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int load(void)
{
	CUdriverProcAddressQueryResult st;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	getproc_t gp;

	if (!h)
		return -1;
	gp = (getproc_t)dlsym(h, "cuGetProcAddress_v2");
	p_init = (CUresult (*)(unsigned int))dlsym(h, "cuInit");
	if (!gp || !p_init)
		return -1;
	if (gp("cuMemAlloc", (void **)&p_alloc, 3020, 0, &st) ||
	    gp("cuMemFree", (void **)&p_free, 3020, 0, &st) ||
	    gp("cuDeviceGet", (void **)&p_devget, 2000, 0, &st) ||
	    gp("cuDevicePrimaryCtxRetain", (void **)&p_retain, 7000, 0, &st) ||
	    gp("cuCtxSetCurrent", (void **)&p_setcur, 4000, 0, &st) ||
	    gp("cuMemAddressReserve", (void **)&p_reserve, 10020, 0, &st) ||
	    gp("cuMemCreate", (void **)&p_create, 10020, 0, &st) ||
	    gp("cuMemMap", (void **)&p_map, 10020, 0, &st) ||
	    gp("cuMemUnmap", (void **)&p_unmap, 10020, 0, &st) ||
	    gp("cuMemRelease", (void **)&p_release, 10020, 0, &st) ||
	    gp("cuLibraryLoadData", (void **)&p_libload, 12000, 0, &st) ||
	    gp("cuLibraryGetKernel", (void **)&p_getkernel, 12000, 0, &st) ||
	    gp("cuLibraryUnload", (void **)&p_libunload, 12000, 0, &st) ||
	    gp("cuLaunchKernel", (void **)&p_launch, 4000, 0, &st) ||
	    gp("cuCtxSynchronize", (void **)&p_ctxsync, 2000, 0, &st))
		return -1;
	return 0;
}

/* One alloc+free pair, or one create+map+unmap+release round at va. */
static int pair(int vmm, size_t size, CUdevice dev, CUdeviceptr va)
{
	CUmemAllocationProp prop = { 0 };
	CUmemGenericAllocationHandle h;
	CUdeviceptr p;

	if (!vmm)
		return p_alloc(&p, size) || p_free(p);
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	if (p_create(&h, size, &prop, 0))
		return 1;
	if (p_map(va, size, 0, h, 0)) {
		p_release(h);
		return 1;
	}
	return p_unmap(va, size) || p_release(h);
}

static int timed(int vmm, size_t n, size_t size, CUdevice dev)
{
	uint64_t *lat = calloc(n ? n : 1, sizeof(*lat)), t0;
	CUdeviceptr va = 0;

	if (!lat || !n || (vmm && p_reserve(&va, size, 0, 0, 0)))
		return 1;
	for (size_t i = 0; i < n / 10 + 1; i++)	/* warm up */
		if (pair(vmm, size, dev, va))
			return 1;
	for (size_t i = 0; i < n; i++) {
		t0 = now_ns();
		if (pair(vmm, size, dev, va))
			return 1;
		lat[i] = now_ns() - t0;
	}
	qsort(lat, n, sizeof(*lat), cmp);
	printf("%s %zu size %zu median_ns %llu p99_ns %llu\n", vmm ? "vmmpairs" : "pairs", n,
	       size, (unsigned long long)lat[n / 2], (unsigned long long)lat[n * 99 / 100]);
	free(lat);
	return 0;
}

/* n launches of an ns-long kernel, each call timed (the launch's cost to
 * the caller, not the kernel's: the queue absorbs them). */
static int launches(size_t n, uint64_t ns)
{
	uint64_t *lat = calloc(n ? n : 1, sizeof(*lat)), t0;
	void *params[] = { &ns };
	CUlibrary lib;
	CUkernel k;
	CUfunction f;

	if (!lat || !n || p_libload(&lib, cu_spin_ptx, NULL, NULL, 0, NULL, NULL, 0) ||
	    p_getkernel(&k, lib, "simgpu_spin"))
		return 1;
	f = (CUfunction)(void *)k;	/* the runtime launches CUkernels so */
	for (int i = 0; i < 10; i++)	/* warm up: the first launches load it */
		if (p_launch(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL))
			return 1;
	if (p_ctxsync())
		return 1;
	for (size_t i = 0; i < n; i++) {
		t0 = now_ns();
		if (p_launch(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL))
			return 1;
		lat[i] = now_ns() - t0;
	}
	if (p_ctxsync() || p_libunload(lib))
		return 1;
	qsort(lat, n, sizeof(*lat), cmp);
	printf("launches %zu ns %llu median_ns %llu p90_ns %llu\n", n, (unsigned long long)ns,
	       (unsigned long long)lat[n / 2], (unsigned long long)lat[n * 9 / 10]);
	free(lat);
	return 0;
}

int main(int argc, char **argv)
{
	CUdevice dev;
	CUcontext ctx;
	uint64_t t0, t1;

	if (argc == 2 && !strcmp(argv[1], "now")) {
		printf("%llu\n", (unsigned long long)now_ns());
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "spawn")) {
		int n = atoi(argv[2]);

		t0 = now_ns();
		for (int i = 0; i < n; i++) {
			pid_t pid = fork();
			int st;

			if (pid == 0) {
				execv(argv[3], argv + 3);
				_exit(127);
			}
			if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
				return 1;
		}
		printf("spawn_ns %llu\n", (unsigned long long)((now_ns() - t0) / (uint64_t)(n > 0 ? n : 1)));
		return 0;
	}
	if (argc < 2 || load()) {
		fprintf(stderr, "usage: vram-bench pairs|vmmpairs N SIZE | launches N NS | init | hold MS\n");
		return 2;
	}
	t0 = now_ns();
	if (p_init(0)) {
		printf("cuInit failed\n");
		return 1;
	}
	t1 = now_ns();
	if (!strcmp(argv[1], "init")) {
		printf("init_ns %llu\n", (unsigned long long)(t1 - t0));
		return 0;
	}
	if (!strcmp(argv[1], "hold") && argc == 3) {
		struct timespec ts = { atoi(argv[2]) / 1000, (atoi(argv[2]) % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		return 0;
	}
	if ((strcmp(argv[1], "pairs") && strcmp(argv[1], "vmmpairs") &&
	     strcmp(argv[1], "launches")) || argc != 4)
		return 2;
	if (p_devget(&dev, 0) || p_retain(&ctx, dev) || p_setcur(ctx))
		return 1;
	if (!strcmp(argv[1], "launches"))
		return launches(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0));
	return timed(argv[1][0] == 'v', strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0),
		     dev);
}
