// SPDX-License-Identifier: GPL-2.0
/*
 * Pure-logic checks, built with the driver sources under ASan/UBSan:
 * the configuration parser and the cuGetProcAddress table, plus a short
 * in-process driver run. Prints "PASS: simgpu: ..." / "FAIL: simgpu: ...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

static int fails;

/* Handles (functions, events, dead contexts) stay allocated on purpose so
 * that stale handles fail cleanly: leak reports would be noise. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static void check(int ok, const char *what, const char *detail)
{
	if (ok)
		printf("PASS: simgpu: %s\n", what);
	else
		printf("FAIL: simgpu: %s: %s\n", what, detail);
	fails += !ok;
}

static int parse(const char *text, struct sg_config *c, char *err)
{
	simgpu_config_defaults(c, 2);
	err[0] = 0;
	return simgpu_config_parse(c, text, "test", err, 256);
}

static void config_tests(void)
{
	struct sg_config c;
	char err[256];
	uint64_t v;
	unsigned char u[16];

	check(!simgpu_parse_size("16G", &v) && v == 16ULL << 30, "asan: size 16G", "bad");
	check(!simgpu_parse_size("512MiB", &v) && v == 512ULL << 20, "asan: size 512MiB", "bad");
	check(simgpu_parse_size("12X", &v) && simgpu_parse_size("", &v) &&
	      simgpu_parse_size("99999999999999999999G", &v), "asan: bad sizes refused", "accepted");
	check(!parse("# c\n gpus = 3\nvram=8G\ngpu1.uuid = GPU-01234567-89ab-cdef-0123-456789abcdef\n"
		     "gpu1.pci = 0000:81:00.0\ngpu1.numa = 1\ngpu2.sms = 66\nkernel_ns = 5000\n", &c, err) &&
	      c.ngpus == 3 && c.vram == 8ULL << 30 && c.gpu[1].bus == 0x81 &&
	      !strcmp(c.gpu[1].uuid, "GPU-01234567-89ab-cdef-0123-456789abcdef") &&
	      c.gpu[2].sms == 66 && c.kernel_ns == 5000, "asan: config file parsed", err);
	check(parse("gpus = 2\nbogus = 1\n", &c, err) && strstr(err, "unknown key 'bogus'") &&
	      strstr(err, "test:2"), "asan: unknown key named with its line", err);
	check(parse("gpu0.uuid = GPU-xyz\n", &c, err) && strstr(err, "bad uuid"),
	      "asan: bad uuid refused", err);
	check(parse("gpu0.pci = 0000:1:2\n", &c, err) && strstr(err, "bad pci"),
	      "asan: bad pci refused", err);
	check(parse("gpus = 17\n", &c, err) && strstr(err, "gpus"), "asan: too many gpus refused", err);
	check(parse("vram\n", &c, err) && strstr(err, "expected"), "asan: line without = refused", err);
	check(!parse("memory_limits = off\n", &c, err) && !c.memory_limits,
	      "asan: memory_limits = off parsed", err);
	check(parse("memory_limits = maybe\n", &c, err) && strstr(err, "bad memory_limits 'maybe'"),
	      "asan: bad memory_limits value refused", err);
	check(!parse("dmem = on\n", &c, err) && c.dmem, "asan: dmem = on parsed", err);
	check(parse("dmem = yes\n", &c, err) && strstr(err, "bad dmem 'yes'"),
	      "asan: bad dmem value refused", err);
	simgpu_config_defaults(&c, 2);
	check(!simgpu_uuid_parse(c.gpu[0].uuid, u) && !simgpu_uuid_parse(c.gpu[1].uuid, u) &&
	      strcmp(c.gpu[0].uuid, c.gpu[1].uuid) && !strcmp(c.gpu[0].pci, "0000:01:00.0") &&
	      !strcmp(c.gpu[1].pci, "0000:02:00.0") && c.gpu[0].numa == 0 && c.gpu[1].numa == 1,
	      "asan: default uuids, pci ids and numa nodes", c.gpu[0].uuid);
}

struct want {
	const char *name;
	int version;
	int flags;
	void *sym;		/* NULL: must fail */
	int status;
};

static void procaddr_tests(void)
{
	const struct want w[] = {
		{ "cuMemAlloc", 3020, 0, (void *)cuMemAlloc_v2, 0 },
		{ "cuMemAlloc", 13000, 2, (void *)cuMemAlloc_v2, 0 },
		{ "cuMemAlloc", 2000, 0, (void *)cuMemAlloc, 0 },
		{ "cuMemcpyHtoD", 3020, 2, (void *)cuMemcpyHtoD_v2_ptds, 0 },
		{ "cuMemcpyHtoD", 3020, 1, (void *)cuMemcpyHtoD_v2, 0 },
		{ "cuLaunchKernel", 7000, 2, (void *)cuLaunchKernel_ptsz, 0 },
		{ "cuLaunchKernel", 4000, 1, (void *)cuLaunchKernel, 0 },
		{ "cuCtxSynchronize", 13000, 0, (void *)cuCtxSynchronize_v2, 0 },
		{ "cuCtxSynchronize", 12090, 0, (void *)cuCtxSynchronize, 0 },
		{ "cuCtxGetDevice", 13000, 0, (void *)cuCtxGetDevice_v2, 0 },
		{ "cuGetProcAddress", 12000, 0, (void *)cuGetProcAddress_v2, 0 },
		{ "cuGetProcAddress", 11030, 0, (void *)cuGetProcAddress, 0 },
		{ "cuGraphInstantiate", 13000, 0, (void *)cuGraphInstantiateWithFlags, 0 },
		{ "cuMemAllocAsync", 11020, 2, (void *)cuMemAllocAsync_ptsz, 0 },
		{ "cuMemAllocAsync", 11010, 0, NULL, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT },
		{ "cuNoSuchThing", 13000, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND },
		{ "", 13000, 0, NULL, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND },
	};
	char what[128], detail[128];

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		CUdriverProcAddressQueryResult st = 99;
		void *fn = (void *)1;
		CUresult rc = cuGetProcAddress_v2(w[i].name, &fn, w[i].version,
						  (cuuint64_t)w[i].flags, &st);

		snprintf(what, sizeof(what), "asan: lookup %s@%d flags %d", w[i].name,
			 w[i].version, w[i].flags);
		snprintf(detail, sizeof(detail), "rc %d status %d fn %p", rc, st, fn);
		if (w[i].sym)
			check(!rc && fn == w[i].sym && st == CU_GET_PROC_ADDRESS_SUCCESS, what, detail);
		else
			check(rc == CUDA_ERROR_NOT_FOUND && !fn && (int)st == w[i].status, what, detail);
	}
}

static void driver_tests(void)
{
	CUcontext c;
	CUdeviceptr p;
	size_t f, t;
	CUstream s;
	CUfunction fn;
	CUmodule m;
	uint64_t ns = 1000000;
	void *params[] = { &ns };
	char buf[64] = "";
	int ok;

	ok = !cuInit(0) && !cuDevicePrimaryCtxRetain(&c, 0) && !cuCtxSetCurrent(c) &&
	     !cuMemAlloc_v2(&p, 3 << 20) && !cuMemGetInfo_v2(&f, &t) && t - f == (3 << 20) &&
	     !cuMemsetD8_v2(p, 0x5a, 3 << 20) && !cuMemcpyDtoH_v2(buf, p + 100, 8) &&
	     buf[7] == 0x5a && !cuStreamCreate(&s, 0) && !cuModuleLoadData(&m, "x") &&
	     !cuModuleGetFunction(&fn, m, "simgpu_spin") &&
	     !cuLaunchKernel_ptsz(fn, 1, 1, 1, 1, 1, 1, 0, s, params, NULL) &&
	     !cuStreamSynchronize(s) && !cuStreamDestroy_v2(s) && !cuMemFree_v2(p) &&
	     cuMemFree_v2(p) == CUDA_ERROR_INVALID_VALUE && !cuDevicePrimaryCtxRelease_v2(0);
	check(ok, "asan: in-process driver run", "a call failed");

	{
		CUDA_ARRAY3D_DESCRIPTOR d = { 0 };
		CUarray arr;
		CUevent e0, e1;
		size_t pitch, f0, f1, f2;
		float ms = 0;
		char detail[160];

		ok = !cuDevicePrimaryCtxRetain(&c, 0) && !cuCtxSetCurrent(c) &&
		     !cuMemGetInfo_v2(&f0, &t) &&
		     !cuMemAllocPitch_v2(&p, &pitch, 1000, 10, 4) && pitch == 1024 &&
		     !cuMemGetInfo_v2(&f1, &t) && f0 - f1 == 12288 && !cuMemFree_v2(p);
		d.Width = 1024;
		d.Height = 1024;
		d.Format = CU_AD_FORMAT_FLOAT;
		d.NumChannels = 4;
		ok = ok && !cuArray3DCreate_v2(&arr, &d) && !cuMemGetInfo_v2(&f2, &t) &&
		     f0 - f2 == 16 << 20 && !cuArrayDestroy(arr);
		ns = 20000000;
		ok = ok && !cuEventCreate(&e0, 0) && !cuEventCreate(&e1, 0) &&
		     !cuEventRecord(e0, NULL) &&
		     !cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL) &&
		     !cuEventRecord(e1, NULL) && !cuEventSynchronize(e1) &&
		     !cuEventElapsedTime_v2(&ms, e0, e1) && ms >= 19.99 && ms < 20.5 &&
		     !cuEventDestroy_v2(e0) && !cuEventDestroy_v2(e1) &&
		     !cuDevicePrimaryCtxRelease_v2(0);
		snprintf(detail, sizeof(detail), "pitch %zu used %zu/%zu elapsed %.2f ms",
			 pitch, f0 - f1, f0 - f2, ms);
		check(ok, "asan: pitch 512-rounded, array size from format, events time the device (20 ms kernel)", detail);
	}
}

/* alloc BYTES on the current context: its result. */
static CUresult alloc_free(size_t bytes)
{
	CUdeviceptr p;
	CUresult rc = cuMemAlloc_v2(&p, bytes);

	if (!rc)
		cuMemFree_v2(p);
	return rc;
}

/* Per-cgroup hard limits (memlimit.c), set directly in the shared table:
 * this process is in the host's cgroup v2 root, "/". */
static void memlimit_tests(void)
{
	char path[SG_CGROUP_LEN], detail[128];
	CUcontext c;
	CUresult r1, r2, r3;
	uint64_t soft, hard;
	int ok;

	check(!simgpu_limit_path("/sys/fs/cgroup", path, sizeof(path)) && !strcmp(path, "/") &&
	      !simgpu_limit_path("/sys/fs/cgroup//", path, sizeof(path)) && !strcmp(path, "/"),
	      "asan: the cgroup2 mount is cgroup /", path);
	check(simgpu_limit_path("/sys/fs/cgroupx", path, sizeof(path)) &&
	      simgpu_limit_path("/tmp", path, sizeof(path)) &&
	      simgpu_limit_path("/sys/fs/cgroup/no-such-cgroup", path, sizeof(path)) &&
	      simgpu_limit_path(NULL, path, sizeof(path)),
	      "asan: paths outside /sys/fs/cgroup or missing are refused", path);
	ok = !cuDevicePrimaryCtxRetain(&c, 0) && !cuCtxSetCurrent(c);
	simgpu_state_lock();
	simgpu_limit_set("/", 0, 1 << 20, 4 << 20);
	simgpu_limit_set("/elsewhere", 0, 0, 0);
	simgpu_state_unlock();
	r1 = alloc_free(4 << 20);
	r2 = alloc_free((4 << 20) + 4096);
	r3 = alloc_free(8 << 20);
	snprintf(detail, sizeof(detail), "4M: %d, 4M+4K: %d, 8M: %d", r1, r2, r3);
	check(ok && !r1 && r2 == CUDA_ERROR_OUT_OF_MEMORY && r3 == CUDA_ERROR_OUT_OF_MEMORY,
	      "asan: the hard limit of the cgroup holds (4M fits, 4M+4K does not)", detail);
	check(!cuCtxSetCurrent(NULL) && !cuDevicePrimaryCtxRetain(&c, 1) && !cuCtxSetCurrent(c) &&
	      !alloc_free(8 << 20) && !cuDevicePrimaryCtxRelease_v2(1),
	      "asan: a limit on GPU 0 leaves GPU 1 alone", "8M refused on GPU 1");
	simgpu_state_lock();
	simgpu_limit_get("/", 0, &soft, &hard);
	ok = soft == 1 << 20 && hard == 4 << 20;
	simgpu_limit_set("/", 0, 0, SG_NO_LIMIT);
	simgpu_limit_get("/", 0, &soft, &hard);
	ok = ok && !soft && hard == SG_NO_LIMIT;
	simgpu_state_unlock();
	check(ok, "asan: limits read back, and cleared", "wrong values");
	ok = !cuDevicePrimaryCtxRetain(&c, 0) && !cuCtxSetCurrent(c) && !alloc_free(8 << 20);
	simgpu_state_lock();
	simgpu_limit_set("/elsewhere", 0, 0, SG_NO_LIMIT);
	simgpu_state_unlock();
	check(ok && !cuDevicePrimaryCtxRelease_v2(0) && !cuDevicePrimaryCtxRelease_v2(0),
	      "asan: cleared, and a limit on another cgroup does not hold this one", "8M refused");
}

int simgpu_topo_tests(void);	/* test_topo.c */
int simgpu_exporttab_tests(void);	/* test_exporttab.c */

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	config_tests();
	procaddr_tests();
	driver_tests();
	memlimit_tests();
	fails += simgpu_exporttab_tests();
	fails += simgpu_topo_tests();	/* last: it loads NVML with a 4-GPU topology */
	return fails ? 1 : 0;
}
