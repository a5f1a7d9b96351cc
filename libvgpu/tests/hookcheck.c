// SPDX-License-Identifier: GPL-2.0
/*
 * Checks libvgpu's interposition from inside a program run with
 * LD_PRELOAD=libvgpu.so against simgpu. Prints "PASS: libvgpu: ..." or
 * "FAIL: libvgpu: ...: detail" lines; exits 1 if anything failed.
 *
 *   hookcheck list      print the hooked symbols, "CU name base" / "NV name base"
 *   hookcheck           run the checks
 *   hookcheck dlsym     only: dlsym on dlopen'ed driver handles gives the wrappers
 *   hookcheck newer V refused|wrapped
 *                       only: cuMemAlloc looked up twice at API version V
 *                       (above the headers', with SIMGPU_PROCADDR_NEWER or
 *                       not) is refused, or is libvgpu's cuMemAlloc_v2
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvml.h>	/* hooks.def's NVML 12.4+ rows are keyed on it */

struct row {
	const char *lib, *name, *base;
};

static const struct row rows[] = {
#define HOOK(lib, sym, base, ret, params) { #lib, #sym, #base },
#include "../hooks.def"
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static int failed;

static void fail(const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: libvgpu: %s: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed = 1;
}

/* The function a distinct entry point of simgpu (SIMGPU_PROCADDR=distinct,
 * tests/simgpu/entry.c) jumps to, decoded from its 16 bytes, or NULL.
 * Called only for answers that dladdr places in no library. */
static void *entry_target(const void *p)
{
	const unsigned char *c = p;
	uint64_t a;
#if defined(__x86_64__)
	static const unsigned char head[] = { 0x49, 0xbb }, tail[] = { 0x41, 0xff, 0xe3 };

	if (memcmp(c, head, sizeof(head)) || memcmp(c + 10, tail, sizeof(tail)))
		return NULL;
	memcpy(&a, c + 2, 8);
#elif defined(__aarch64__)
	static const uint32_t code[] = { 0x58000050, 0xd61f0200 };

	if (memcmp(c, code, sizeof(code)))
		return NULL;
	memcpy(&a, c + 8, 8);
#else
	(void)c;
	return NULL;
#endif
	return (void *)(uintptr_t)a;
}

static int entries_seen;

/* "vgpu" if p lies in libvgpu.so, "cuda"/"nvml" in the drivers, else "?";
 * a distinct entry point of simgpu counts as the function it jumps to. */
static const char *where(const void *p, const char **sname)
{
	Dl_info di;

	*sname = "?";
	if (p && !dladdr(p, &di)) {
		p = entry_target(p);
		entries_seen += p != NULL;
	}
	if (!p || !dladdr(p, &di) || !di.dli_fname)
		return "?";
	if (di.dli_sname)
		*sname = di.dli_sname;
	if (strstr(di.dli_fname, "libvgpu.so"))
		return "vgpu";
	if (strstr(di.dli_fname, "libcuda.so"))
		return "cuda";
	if (strstr(di.dli_fname, "libnvidia-ml.so"))
		return "nvml";
	return "?";
}

static const struct row *hooked(const char *name)
{
	for (size_t i = 0; i < NROWS; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	return NULL;
}

typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t,
			   CUdriverProcAddressQueryResult *);

struct want {
	const char *base;
	int version;
	unsigned long long flags;
	const char *sym;	/* expected symbol */
	const char *in;		/* "vgpu" or "cuda" */
};

/* Versions and flags as NVIDIA's runtime asks (cuda-loading.md). */
static const struct want wants[] = {
	{ "cuMemAlloc", 3020, 0, "cuMemAlloc_v2", "vgpu" },
	{ "cuMemAlloc", 2000, 0, "cuMemAlloc", "vgpu" },
	{ "cuMemAlloc", 3020, 2, "cuMemAlloc_v2", "vgpu" },
	{ "cuMemFree", 3020, 0, "cuMemFree_v2", "vgpu" },
	{ "cuMemAllocPitch", 3020, 0, "cuMemAllocPitch_v2", "vgpu" },
	{ "cuMemAllocManaged", 6000, 0, "cuMemAllocManaged", "vgpu" },
	{ "cuMemAllocAsync", 11020, 0, "cuMemAllocAsync", "vgpu" },
	{ "cuMemAllocAsync", 11020, 2, "cuMemAllocAsync_ptsz", "vgpu" },
	{ "cuMemAllocFromPoolAsync", 11020, 2, "cuMemAllocFromPoolAsync_ptsz", "vgpu" },
	{ "cuMemFreeAsync", 11020, 0, "cuMemFreeAsync", "vgpu" },
	{ "cuMemFreeAsync", 11020, 2, "cuMemFreeAsync_ptsz", "vgpu" },
	{ "cuMemCreate", 10020, 0, "cuMemCreate", "vgpu" },
	{ "cuMemRelease", 10020, 0, "cuMemRelease", "vgpu" },
	{ "cuArrayCreate", 3020, 0, "cuArrayCreate_v2", "vgpu" },
	{ "cuArray3DCreate", 3020, 0, "cuArray3DCreate_v2", "vgpu" },
	{ "cuMipmappedArrayCreate", 5000, 0, "cuMipmappedArrayCreate", "vgpu" },
	{ "cuStreamBeginCapture", 10010, 0, "cuStreamBeginCapture_v2", "vgpu" },
	{ "cuStreamBeginCapture", 10010, 2, "cuStreamBeginCapture_v2_ptsz", "vgpu" },
	{ "cuStreamEndCapture", 10000, 2, "cuStreamEndCapture_ptsz", "vgpu" },
	{ "cuGraphInstantiate", 12000, 0, "cuGraphInstantiateWithFlags", "vgpu" },
	{ "cuGraphInstantiate", 11000, 0, "cuGraphInstantiate_v2", "vgpu" },
	{ "cuGraphLaunch", 10000, 0, "cuGraphLaunch", "vgpu" },
	{ "cuGraphLaunch", 10000, 2, "cuGraphLaunch_ptsz", "vgpu" },
	/* Every submission path passes the compute gate. */
	{ "cuLaunchKernel", 4000, 0, "cuLaunchKernel", "vgpu" },
	{ "cuLaunchKernel", 4000, 2, "cuLaunchKernel_ptsz", "vgpu" },
	{ "cuLaunchKernel", 13000, 2, "cuLaunchKernel_ptsz", "vgpu" },
	{ "cuLaunchKernelEx", 11060, 0, "cuLaunchKernelEx", "vgpu" },
	{ "cuLaunchKernelEx", 12000, 2, "cuLaunchKernelEx_ptsz", "vgpu" },
	{ "cuLaunchCooperativeKernel", 9000, 0, "cuLaunchCooperativeKernel", "vgpu" },
	{ "cuLaunchCooperativeKernel", 9000, 2, "cuLaunchCooperativeKernel_ptsz", "vgpu" },
	/* The current context's GPU is tracked. */
	{ "cuCtxSetCurrent", 4000, 0, "cuCtxSetCurrent", "vgpu" },
	{ "cuCtxPushCurrent", 4000, 0, "cuCtxPushCurrent_v2", "vgpu" },
	{ "cuCtxPushCurrent", 2000, 0, "cuCtxPushCurrent", "vgpu" },
	{ "cuCtxPopCurrent", 4000, 0, "cuCtxPopCurrent_v2", "vgpu" },
	{ "cuCtxPopCurrent", 2000, 0, "cuCtxPopCurrent", "vgpu" },
	{ "cuCtxCreate", 11040, 0, "cuCtxCreate_v3", "vgpu" },
	{ "cuCtxCreate", 3020, 0, "cuCtxCreate_v2", "vgpu" },
	{ "cuCtxDestroy", 4000, 0, "cuCtxDestroy_v2", "vgpu" },
	{ "cuDevicePrimaryCtxRetain", 7000, 0, "cuDevicePrimaryCtxRetain", "vgpu" },
	{ "cuDevicePrimaryCtxRelease", 11000, 0, "cuDevicePrimaryCtxRelease_v2", "vgpu" },
	{ "cuDevicePrimaryCtxReset", 11000, 0, "cuDevicePrimaryCtxReset_v2", "vgpu" },
	{ "cuMemGetInfo", 3020, 0, "cuMemGetInfo_v2", "vgpu" },
	{ "cuDeviceTotalMem", 3020, 0, "cuDeviceTotalMem_v2", "vgpu" },
	{ "cuDeviceTotalMem", 2000, 0, "cuDeviceTotalMem", "vgpu" },
	{ "cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2", "vgpu" },
	{ "cuGetProcAddress", 11030, 0, "cuGetProcAddress", "vgpu" },
	{ "cuInit", 2000, 0, "cuInit", "vgpu" },
	/* Waits for the process's own work are seen (busy, not idle). */
	{ "cuCtxSynchronize", 2000, 0, "cuCtxSynchronize", "vgpu" },
	{ "cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2", "vgpu" },
	{ "cuStreamSynchronize", 2000, 0, "cuStreamSynchronize", "vgpu" },
	{ "cuStreamSynchronize", 7000, 2, "cuStreamSynchronize_ptsz", "vgpu" },
	{ "cuEventSynchronize", 2000, 0, "cuEventSynchronize", "vgpu" },
	/* Copies and memsets pass the gate, in every ABI version. */
	{ "cuMemcpyHtoD", 3020, 2, "cuMemcpyHtoD_v2_ptds", "vgpu" },
	{ "cuMemcpyHtoD", 3020, 0, "cuMemcpyHtoD_v2", "vgpu" },
	{ "cuMemcpyHtoD", 2000, 0, "cuMemcpyHtoD", "vgpu" },
	{ "cuMemcpyAsync", 7000, 2, "cuMemcpyAsync_ptsz", "vgpu" },
	{ "cuMemsetD32Async", 3020, 0, "cuMemsetD32Async", "vgpu" },
	{ "cuMemcpyHtoA", 3020, 2, "cuMemcpyHtoA_v2_ptds", "vgpu" },
	{ "cuMemcpyAtoA", 2000, 0, "cuMemcpyAtoA", "vgpu" },
	{ "cuMemcpyAtoD", 3020, 0, "cuMemcpyAtoD_v2", "vgpu" },
	{ "cuMemcpyAtoHAsync", 3020, 2, "cuMemcpyAtoHAsync_v2_ptsz", "vgpu" },
	{ "cuMemcpy3DBatchAsync", 12080, 0, "cuMemcpy3DBatchAsync", "vgpu" },
	{ "cuMemcpy3DBatchAsync", 12080, 2, "cuMemcpy3DBatchAsync_ptsz", "vgpu" },
	{ "cuMemcpy3DBatchAsync", 13000, 2, "cuMemcpy3DBatchAsync_v2_ptsz", "vgpu" },
	{ "cuMemPrefetchBatchAsync", 13000, 2, "cuMemPrefetchBatchAsync_ptsz", "vgpu" },
	{ "cuMemDiscardAndPrefetchBatchAsync", 13000, 0, "cuMemDiscardAndPrefetchBatchAsync",
	  "vgpu" },
#if CUDA_VERSION >= 13020
	{ "cuMemcpyWithAttributesAsync", 13020, 0, "cuMemcpyWithAttributesAsync", "vgpu" },
	{ "cuMemcpyWithAttributesAsync", 13020, 2, "cuMemcpyWithAttributesAsync_ptsz", "vgpu" },
	{ "cuMemcpy3DWithAttributesAsync", 13020, 2, "cuMemcpy3DWithAttributesAsync_ptsz",
	  "vgpu" },
#endif
#if CUDA_VERSION >= 13050
	{ "cuFabricCpyBatchAsync", 13050, 0, "cuFabricCpyBatchAsync", "vgpu" },
	{ "cuFabricCpyBatchAsync", 13050, 2, "cuFabricCpyBatchAsync_ptsz", "vgpu" },
#endif
	{ "cuStreamDestroy", 4000, 0, "cuStreamDestroy_v2", "vgpu" },
	/* The deprecated launches too; the function state they use is the
	 * driver's own. */
	{ "cuLaunch", 2000, 0, "cuLaunch", "vgpu" },
	{ "cuLaunchGrid", 2000, 0, "cuLaunchGrid", "vgpu" },
	{ "cuLaunchGridAsync", 2000, 2, "cuLaunchGridAsync", "vgpu" },
	{ "cuLaunchCooperativeKernelMultiDevice", 9000, 0, "cuLaunchCooperativeKernelMultiDevice",
	  "vgpu" },
	{ "cuFuncSetBlockShape", 2000, 0, "cuFuncSetBlockShape", "cuda" },
	{ "cuParamSetv", 2000, 0, "cuParamSetv", "cuda" },
	/* Unhooked: the driver's own. */
	{ "cuLaunchHostFunc", 10000, 0, "cuLaunchHostFunc", "cuda" },
	{ "cuLaunchHostFunc", 10000, 2, "cuLaunchHostFunc_ptsz", "cuda" },
	{ "cuStreamQuery", 2000, 0, "cuStreamQuery", "cuda" },
	{ "cuEventQuery", 2000, 0, "cuEventQuery", "cuda" },
	{ "cuMemAllocHost", 3020, 0, "cuMemAllocHost_v2", "cuda" },
	{ "cuGetExportTable", 3000, 0, "cuGetExportTable", "cuda" },
	{ "cuMemSetAccess", 10020, 0, "cuMemSetAccess", "cuda" },
	/* VMM references (vmm.c). */
	{ "cuMemMap", 10020, 0, "cuMemMap", "vgpu" },
	{ "cuMemRetainAllocationHandle", 11000, 0, "cuMemRetainAllocationHandle", "vgpu" },
};

static void check_procaddr(gpa_fn gpa)
{
	int n = 0, bad = 0;

	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++) {
		const struct want *w = &wants[i];
		CUdriverProcAddressQueryResult st;
		const char *sname, *in;
		void *p = NULL;
		CUresult rc = gpa(w->base, &p, w->version, w->flags, &st);

		in = where(p, &sname);
		if (rc || strcmp(in, w->in) || strcmp(sname, w->sym)) {
			fail("cuGetProcAddress", "%s@%d flags %llu gave %s in %s (rc %d), want %s in %s",
			     w->base, w->version, w->flags, sname, in, (int)rc, w->sym, w->in);
			bad++;
		}
		n++;
	}
	if (!bad)
		printf("PASS: libvgpu: cuGetProcAddress_v2 gives wrappers of the right variant "
		       "for hooked names and the driver's own pointers otherwise (%d look-ups)\n", n);
	/* Every hooked base at every flavour: a hooked variant never leaks. */
	bad = 0;
	n = 0;
	for (size_t i = 0; i < NROWS; i++) {
		static const int versions[] = { 2000, 3020, 4000, 7000, 11000, 11040, 12000,
						13000, CUDA_VERSION };

		if (strcmp(rows[i].lib, "CU"))
			continue;
		for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
			for (unsigned long long fl = 0; fl <= 2; fl += 2) {
				const char *sname, *in;
				void *p = NULL;

				if (gpa(rows[i].base, &p, versions[v], fl, NULL) || !p)
					continue;
				in = where(p, &sname);
				n++;
				if (strcmp(in, "vgpu") && hooked(sname)) {
					fail("cuGetProcAddress", "%s@%d flags %llu leaked the real %s",
					     rows[i].base, versions[v], fl, sname);
					bad++;
				} else if (!strcmp(in, "vgpu") && !hooked(sname)) {
					fail("cuGetProcAddress", "%s@%d flags %llu gave wrapper %s",
					     rows[i].base, versions[v], fl, sname);
					bad++;
				}
			}
		}
	}
	if (!bad)
		printf("PASS: libvgpu: no hooked variant leaks through cuGetProcAddress "
		       "(%d look-ups over all hooked names, versions and flags)\n", n);
}

/* The runtime's way in: dlsym on dlopen'ed handles gives every wrapper. */
static void check_dlsym_rows(void *cu, void *nv)
{
	int bad = 0, n = 0;

	for (size_t i = 0; i < NROWS; i++) {
		void *h = strcmp(rows[i].lib, "CU") ? nv : cu;
		const char *sname, *in = where(dlsym(h, rows[i].name), &sname);

		n++;
		if (strcmp(in, "vgpu") || strcmp(sname, rows[i].name)) {
			fail("dlsym", "%s on the %s handle gave %s in %s", rows[i].name,
			     rows[i].lib, sname, in);
			bad++;
		}
	}
	if (!bad)
		printf("PASS: libvgpu: dlsym on dlopen'ed libcuda/libnvidia-ml handles gives "
		       "the wrapper of each of the %d hooked names\n", n);
}

/* Unhooked names pass through; RTLD_DEFAULT finds the wrappers. */
static void check_passthrough(void *cu, void *nv)
{
	const char *s1, *s2, *s3;
	const char *i1 = where(dlsym(cu, "cuLaunchHostFunc"), &s1);
	const char *i2 = where(dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"), &s2);
	const char *i3 = where(dlsym(nv, "nvmlDeviceGetName"), &s3);
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *vm = libc ? dlvsym(libc, "malloc", "GLIBC_2.2.5") : NULL;

	if (strcmp(i1, "cuda") || strcmp(i2, "vgpu") || strcmp(i3, "nvml") || !vm)
		fail("dlsym", "cuLaunchHostFunc in %s, RTLD_DEFAULT cuMemAlloc_v2 in %s, "
		     "nvmlDeviceGetName in %s, dlvsym malloc %p", i1, i2, i3, vm);
	else
		printf("PASS: libvgpu: dlsym and dlvsym pass unhooked names through and "
		       "answer RTLD_DEFAULT with wrappers\n");
}

/* The gate's entry points, explicitly: both flavours, both ways. */
static void check_launch_entries(void *cu, gpa_fn gpa)
{
	static const char *const launches[] = {
		"cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel",
		"cuGraphLaunch",
	};
	char want[64];
	int lbad = 0, ln = 0;

	for (size_t i = 0; i < sizeof(launches) / sizeof(launches[0]); i++) {
		for (int fl = 0; fl <= 2; fl += 2) {
			const char *s1, *s2, *i1, *i2;
			void *p = NULL;

			snprintf(want, sizeof(want), "%s%s", launches[i], fl ? "_ptsz" : "");
			gpa(launches[i], &p, 13000, (cuuint64_t)fl, NULL);
			i1 = where(p, &s1);
			i2 = where(dlsym(cu, want), &s2);
			ln += 2;
			if (strcmp(i1, "vgpu") || strcmp(s1, want) || strcmp(i2, "vgpu") ||
			    strcmp(s2, want)) {
				fail("launch entry points", "%s flags %d: cuGetProcAddress "
				     "gave %s in %s, dlsym %s in %s", launches[i], fl, s1, i1,
				     s2, i2);
				lbad++;
			}
		}
	}
	if (!lbad)
		printf("PASS: libvgpu: the launch entry points resolve to the gate's "
		       "wrappers through cuGetProcAddress@13000 (flags 0 and 2 -> _ptsz) "
		       "and dlsym (%d look-ups)\n", ln);
}

/* cuGetExportTable is not hooked: the driver's answer passes through
 * (simgpu refuses an unknown table id with CUDA_ERROR_INVALID_VALUE). */
static void check_export_table(void *cu)
{
	CUresult (*get)(const void **, const CUuuid *) =
		(CUresult (*)(const void **, const CUuuid *))dlsym(cu, "cuGetExportTable");
	const char *s, *in = where((void *)get, &s);
	const void *table = (const void *)1;
	CUuuid id = { { 1, 2, 3 } };
	CUresult rc = get ? get(&table, &id) : CUDA_ERROR_NOT_FOUND;

	if (strcmp(in, "cuda") || rc != CUDA_ERROR_INVALID_VALUE || table)
		fail("cuGetExportTable", "in %s, rc %d, table %p", in, (int)rc, table);
	else
		printf("PASS: libvgpu: cuGetExportTable is the driver's own and its "
		       "answer passes through\n");
}

/* Were the driver's answers what SIMGPU_PROCADDR asked for? */
static void check_entry_mode(void)
{
	const char *mode = getenv("SIMGPU_PROCADDR");
	int distinct = mode && !strcmp(mode, "distinct");

	if (distinct != (entries_seen > 0))
		fail("entry points", "SIMGPU_PROCADDR=%s but %d answers were distinct "
		     "entry points", mode ? mode : "", entries_seen);
	else
		printf("PASS: libvgpu: the driver answered %s (%d distinct entry points "
		       "seen)\n", distinct ? "distinct entry points, not its exports" :
		       "its exports", entries_seen);
}

/* cuMemAlloc at a version newer than the headers: refused when the driver
 * answers a variant they do not know, wrapped when it answers theirs. */
static void check_newer(gpa_fn gpa, int version, const char *expect)
{
	CUdriverProcAddressQueryResult st;
	const char *s, *in;
	void *fn;

	for (int i = 0; i < 2; i++) {
		CUresult rc;

		fn = NULL;
		rc = gpa("cuMemAlloc", &fn, version, 0, &st);
		in = where(fn, &s);
		if (!strcmp(expect, "refused") ? rc == CUDA_ERROR_NOT_FOUND && !fn :
		    !rc && !strcmp(in, "vgpu") && !strcmp(s, "cuMemAlloc_v2"))
			printf("PASS: libvgpu: cuMemAlloc@%d %s (look-up %d)\n", version,
			       !strcmp(expect, "refused") ? "refused with CUDA_ERROR_NOT_FOUND" :
			       "is libvgpu's cuMemAlloc_v2", i + 1);
		else
			fail("newer version", "cuMemAlloc@%d: status %d, %s in %s, want %s",
			     version, (int)rc, s, in, expect);
	}
	fn = NULL;
	if (gpa("cuMemAlloc", &fn, 3020, 0, &st) || strcmp(where(fn, &s), "vgpu"))
		fail("newer version", "cuMemAlloc@3020 is then %s", s);
	else
		printf("PASS: libvgpu: cuMemAlloc@3020 is still libvgpu's %s\n", s);
}

int main(int argc, char **argv)
{
	const char *s, *in;
	void *cu, *nv;
	gpa_fn gpa;

	if (argc > 1 && !strcmp(argv[1], "list")) {
		for (size_t i = 0; i < NROWS; i++)
			printf("%s %s %s\n", rows[i].lib, rows[i].name, rows[i].base);
		return 0;
	}
	cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	nv = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu || !nv) {
		fail("hookcheck", "dlopen: %s", dlerror());
		return 1;
	}
	check_dlsym_rows(cu, nv);
	/* "dlsym": that check alone, which holds for any driver (the others
	 * expect simgpu's answers); tests/realgpu/run's dlsym step. */
	if (argc > 1 && !strcmp(argv[1], "dlsym"))
		return failed;
	check_passthrough(cu, nv);
	gpa = (gpa_fn)dlsym(cu, "cuGetProcAddress_v2");
	in = where((void *)gpa, &s);
	if (strcmp(in, "vgpu")) {
		fail("dlsym", "cuGetProcAddress_v2 is %s in %s", s, in);
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "newer")) {
		check_newer(gpa, atoi(argv[2]), argv[3]);
		return failed;
	}
	check_procaddr(gpa);
	check_launch_entries(cu, gpa);
	check_export_table(cu);
	check_entry_mode();
	return failed;
}
