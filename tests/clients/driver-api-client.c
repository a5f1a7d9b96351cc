// SPDX-License-Identifier: GPL-2.0
/*
 * driver-api-client: the driver functions cuBLASLt takes from libcuda.so.1
 * itself, each against what the CUDA Driver API reference (the same text
 * is in cuda.h) documents: pointer attributes ("Unified Addressing"), peer
 * access ("Peer Context Memory Access"), the JIT linker ("Module
 * Management") and kernel node parameters ("Graph Management").
 *
 *   driver-api-client DIR
 *
 * DIR is a writable directory (cuLinkAddFile's input). Needs GPUs 0 and 1
 * able to access each other and GPU 2 not able to reach GPU 0
 * (tests/host/driverapi.sh's configuration). One line per documented
 * behaviour, "ok WHAT" or "bad WHAT: DETAIL", then "done OK BAD".
 * Reached like NVIDIA's runtime does (cuload.c). Exit 0 when nothing was
 * bad, 1 otherwise.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuload.h"
#include "spin-ptx.h"

#define X(name) __typeof__(&name) name
static struct {
	X(cuMemAllocHost);
	X(cuMemFreeHost);
	X(cuPointerGetAttribute);
	X(cuPointerGetAttributes);
	X(cuDeviceCanAccessPeer);
	X(cuCtxEnablePeerAccess);
	X(cuCtxDisablePeerAccess);
	X(cuLinkCreate);
	X(cuLinkAddData);
	X(cuLinkAddFile);
	X(cuLinkComplete);
	X(cuLinkDestroy);
	X(cuGraphKernelNodeGetParams);
	X(cuGraphExecKernelNodeSetParams);
} dx;
#undef X

static int nok, nbad;

/* One documented behaviour: cond true is "ok". */
static void expect(int cond, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void expect(int cond, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (cond) {
		printf("ok %s\n", what);
		nok++;
	} else {
		printf("bad %s: ", what);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		nbad++;
	}
	fflush(stdout);
}

/* A call that must return want. */
static void expect_rc(CUresult rc, CUresult want, const char *what)
{
	expect(rc == want, what, "%s, documented %s", cu_err(rc), cu_err(want));
}

static int get(const char *name, int version, void **out)
{
	CUresult rc = cu_proc(name, version, out);

	if (rc) {
		printf("bad lookup %s: %s\n", name, cu_err(rc));
		return -1;
	}
	return 0;
}

#define GET(name, ver) get(#name, ver, (void **)&dx.name)

static int load(void)
{
	return GET(cuMemAllocHost, 3020) | GET(cuMemFreeHost, 2000) |
	       GET(cuPointerGetAttribute, 4000) | GET(cuPointerGetAttributes, 7000) |
	       GET(cuDeviceCanAccessPeer, 4000) | GET(cuCtxEnablePeerAccess, 4000) |
	       GET(cuCtxDisablePeerAccess, 4000) | GET(cuLinkCreate, 6050) |
	       GET(cuLinkAddData, 6050) | GET(cuLinkAddFile, 6050) | GET(cuLinkComplete, 5050) |
	       GET(cuLinkDestroy, 5050) | GET(cuGraphKernelNodeGetParams, 12000) |
	       GET(cuGraphExecKernelNodeSetParams, 12000);
}

/* No current context: cuCtxCreate pushed each context, and
 * cuCtxSetCurrent(NULL) pops only the top of the stack. */
static void no_ctx(void)
{
	CUcontext c;

	for (int i = 0; i < 16 && !cu.cuCtxPopCurrent(&c) && c; i++)
		;
}

/* ---- pointer attributes ("Unified Addressing") ---- */

/* The attributes of device memory of ctx on device dev, at p + off. */
static void ptr_device(CUcontext ctx, int dev, CUdeviceptr p, size_t size, const char *what)
{
	char w[128];
	unsigned int type = 0;
	int ord = -9;
	CUcontext c = NULL;
	CUdeviceptr start = 0, dp = 0;
	size_t rsize = 0;
	bool managed = true;
	void *hp = NULL;
	CUdeviceptr q = p + size / 2;

	snprintf(w, sizeof(w), "%s: MEMORY_TYPE is CU_MEMORYTYPE_DEVICE", what);
	expect(!dx.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, q) &&
	       type == CU_MEMORYTYPE_DEVICE, w, "type %u", type);
	snprintf(w, sizeof(w), "%s: DEVICE_ORDINAL is the allocating device", what);
	expect(!dx.cuPointerGetAttribute(&ord, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, q) && ord == dev,
	       w, "ordinal %d, want %d", ord, dev);
	snprintf(w, sizeof(w), "%s: CONTEXT is the allocating context", what);
	expect(!dx.cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, q) && c == ctx, w,
	       "context %p, want %p", (void *)c, (void *)ctx);
	snprintf(w, sizeof(w), "%s: RANGE_START_ADDR and RANGE_SIZE are the allocation's", what);
	expect(!dx.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, q) &&
	       !dx.cuPointerGetAttribute(&rsize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, q) &&
	       start == p && rsize == size, w, "start %#llx size %zu, want %#llx %zu",
	       (unsigned long long)start, rsize, (unsigned long long)p, size);
	snprintf(w, sizeof(w), "%s: IS_MANAGED false", what);
	expect(!dx.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, q) && !managed,
	       w, "managed %d", managed);
	snprintf(w, sizeof(w), "%s: DEVICE_POINTER is ptr itself", what);
	expect(!dx.cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, q) && dp == q,
	       w, "%#llx, want %#llx", (unsigned long long)dp, (unsigned long long)q);
	snprintf(w, sizeof(w), "%s: HOST_POINTER CUDA_ERROR_INVALID_VALUE (no host address)", what);
	expect_rc(dx.cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, q),
		  CUDA_ERROR_INVALID_VALUE, w);
}

/* BUFFER_ID: "unique within the process ... Subsequent allocations do not
 * reuse IDs from previous freed allocations." */
static void ptr_buffer_ids(void)
{
	CUdeviceptr a = 0, b = 0, c = 0;
	unsigned long long ia = 0, ib = 1, ic = 2, ia2 = 3;

	cu.cuMemAlloc(&a, 4096);
	cu.cuMemAlloc(&b, 4096);
	dx.cuPointerGetAttribute(&ia, CU_POINTER_ATTRIBUTE_BUFFER_ID, a);
	dx.cuPointerGetAttribute(&ia2, CU_POINTER_ATTRIBUTE_BUFFER_ID, a + 100);
	dx.cuPointerGetAttribute(&ib, CU_POINTER_ATTRIBUTE_BUFFER_ID, b);
	cu.cuMemFree(a);
	cu.cuMemAlloc(&c, 4096);
	dx.cuPointerGetAttribute(&ic, CU_POINTER_ATTRIBUTE_BUFFER_ID, c);
	expect(ia == ia2 && ia != ib && ic != ia && ic != ib, "BUFFER_ID: one per allocation, "
	       "never reused after a free", "ids %llu (%llu inside) %llu, after free %llu",
	       ia, ia2, ib, ic);
	cu.cuMemFree(b);
	cu.cuMemFree(c);
}

static void ptr_host_managed(void)
{
	void *h = NULL, *hp = NULL;
	CUdeviceptr m = 0;
	unsigned int type = 0;
	bool managed = false;

	if (dx.cuMemAllocHost(&h, 65536) || cu.cuMemAllocManaged(&m, 65536, CU_MEM_ATTACH_GLOBAL)) {
		expect(0, "host and managed memory allocated", "allocation failed");
		return;
	}
	expect(!dx.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
					 (CUdeviceptr)h + 8) && type == CU_MEMORYTYPE_HOST,
	       "cuMemAllocHost memory: MEMORY_TYPE is CU_MEMORYTYPE_HOST", "type %u", type);
	expect(!dx.cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER,
					 (CUdeviceptr)h + 8) && hp == (char *)h + 8,
	       "cuMemAllocHost memory: HOST_POINTER is ptr itself", "%p", hp);
	expect(!dx.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m) && managed,
	       "cuMemAllocManaged memory: IS_MANAGED true", "managed %d", managed);
	dx.cuMemFreeHost(h);
	cu.cuMemFree(m);
}

/* A VMM mapping: "the address of the mappable address range ptr
 * references (e.g. from cuMemAddressReserve)". */
static void ptr_vmm(void)
{
	CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED,
				     .location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 } };
	CUmemGenericAllocationHandle hd;
	CUdeviceptr va = 0, start = 0;
	size_t g = 0, rsize = 0;

	if (cu.cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) ||
	    cu.cuMemAddressReserve(&va, 4 * g, 0, 0, 0) || cu.cuMemCreate(&hd, g, &prop, 0) ||
	    cu.cuMemMap(va + g, g, 0, hd, 0)) {
		expect(0, "VMM range reserved and mapped", "failed");
		return;
	}
	expect(!dx.cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, va + g) &&
	       !dx.cuPointerGetAttribute(&rsize, CU_POINTER_ATTRIBUTE_RANGE_SIZE, va + g) &&
	       start == va && rsize == 4 * g,
	       "VMM mapping: RANGE_START_ADDR and RANGE_SIZE are the reserved range's",
	       "start %#llx size %zu, reserved %#llx %zu", (unsigned long long)start, rsize,
	       (unsigned long long)va, 4 * g);
	cu.cuMemUnmap(va + g, g);
	cu.cuMemRelease(hd);
	cu.cuMemAddressFree(va, 4 * g);
}

/* cuPointerGetAttributes on what is no CUDA pointer: "the attributes are
 * assigned default NULL values and CUDA_SUCCESS is returned." */
static void ptr_unknown(void)
{
	int local = 0;
	CUdeviceptr p = (CUdeviceptr)&local;
	unsigned int type = 7;
	CUcontext c = (CUcontext)&local;
	size_t rsize = 7;
	CUdeviceptr start = 7;
	bool managed = true;
	CUpointer_attribute at[] = { CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
				     CU_POINTER_ATTRIBUTE_RANGE_SIZE,
				     CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
				     CU_POINTER_ATTRIBUTE_IS_MANAGED };
	void *d[] = { &type, &c, &rsize, &start, &managed };
	CUresult rc;

	expect_rc(dx.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p),
		  CUDA_ERROR_INVALID_VALUE, "cuPointerGetAttribute: an unknown pointer");
	rc = dx.cuPointerGetAttributes(5, at, d, p);
	expect(!rc && !type && !c && !rsize && !start && !managed,
	       "cuPointerGetAttributes: an unknown pointer is CUDA_SUCCESS, NULL values",
	       "%s type %u context %p size %zu start %#llx managed %d", cu_err(rc), type,
	       (void *)c, rsize, (unsigned long long)start, managed);
}

static void ptr_errors(CUcontext ctx, CUdeviceptr p)
{
	unsigned int v;
	CUdeviceptr dp;
	CUpointer_attribute a = CU_POINTER_ATTRIBUTE_MEMORY_TYPE;
	void *d[] = { &v };

	expect_rc(dx.cuPointerGetAttribute(&v, (CUpointer_attribute)9999, p),
		  CUDA_ERROR_INVALID_VALUE, "cuPointerGetAttribute: an unknown attribute");
	expect_rc(dx.cuPointerGetAttribute(NULL, a, p), CUDA_ERROR_INVALID_VALUE,
		  "cuPointerGetAttribute: data NULL");
	expect_rc(dx.cuPointerGetAttributes(1, NULL, d, p), CUDA_ERROR_INVALID_VALUE,
		  "cuPointerGetAttributes: attributes NULL");
	no_ctx();
	/* "If there is no current CUcontext then CUDA_ERROR_INVALID_CONTEXT" */
	expect_rc(dx.cuPointerGetAttribute(&dp, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p),
		  CUDA_ERROR_INVALID_CONTEXT, "DEVICE_POINTER without a current context");
	cu.cuCtxSetCurrent(ctx);
}

static void pointer_checks(CUcontext c0, CUcontext c1)
{
	CUdeviceptr p0 = 0, p1 = 0;

	cu.cuCtxSetCurrent(c0);
	cu.cuMemAlloc(&p0, 1 << 20);
	cu.cuCtxSetCurrent(c1);
	cu.cuMemAlloc(&p1, 3 << 16);
	cu.cuCtxSetCurrent(c0);
	ptr_device(c0, 0, p0, 1 << 20, "cuMemAlloc on GPU 0");
	ptr_device(c1, 1, p1, 3 << 16, "cuMemAlloc on GPU 1");
	ptr_buffer_ids();
	ptr_host_managed();
	ptr_vmm();
	ptr_unknown();
	ptr_errors(c0, p0);
	cu.cuMemFree(p0);
	cu.cuCtxSetCurrent(c1);
	cu.cuMemFree(p1);
	cu.cuCtxSetCurrent(c0);
}

/* ---- peer access ("Peer Context Memory Access") ---- */

static void peer_can(void)
{
	int a = -1, b = -1, self = -1, far = -1;

	expect(!dx.cuDeviceCanAccessPeer(&a, 0, 1) && !dx.cuDeviceCanAccessPeer(&b, 1, 0) &&
	       a == 1 && b == 1, "cuDeviceCanAccessPeer: GPUs 0 and 1 below one switch, 1",
	       "%d %d", a, b);
	expect(!dx.cuDeviceCanAccessPeer(&far, 0, 2) && far == 0,
	       "cuDeviceCanAccessPeer: GPU 2 on another host bridge, 0", "%d", far);
	expect(!dx.cuDeviceCanAccessPeer(&self, 0, 0) && self == 0,
	       "cuDeviceCanAccessPeer: a device with itself, 0", "%d", self);
	expect_rc(dx.cuDeviceCanAccessPeer(&a, 0, 99), CUDA_ERROR_INVALID_DEVICE,
		  "cuDeviceCanAccessPeer: an invalid device");
}

static void peer_checks(CUcontext c0, CUcontext c1, CUcontext c2)
{
	CUcontext dead = NULL;

	peer_can();
	cu.cuCtxSetCurrent(c0);
	expect_rc(dx.cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS, "cuCtxEnablePeerAccess");
	expect_rc(dx.cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
		  "cuCtxEnablePeerAccess twice");
	expect_rc(dx.cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE,
		  "cuCtxEnablePeerAccess: Flags not 0");
	expect_rc(dx.cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_INVALID_CONTEXT,
		  "cuCtxEnablePeerAccess: the current context is peerContext");
	expect_rc(dx.cuCtxEnablePeerAccess(c2, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED,
		  "cuCtxEnablePeerAccess: a device cuDeviceCanAccessPeer says cannot");
	/* "access granted by this call is unidirectional" */
	cu.cuCtxSetCurrent(c1);
	expect_rc(dx.cuCtxDisablePeerAccess(c0), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  "cuCtxDisablePeerAccess: access is one way, the other not enabled");
	cu.cuCtxSetCurrent(c0);
	expect_rc(dx.cuCtxDisablePeerAccess(c1), CUDA_SUCCESS, "cuCtxDisablePeerAccess");
	expect_rc(dx.cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED,
		  "cuCtxDisablePeerAccess twice");
	expect_rc(dx.cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS,
		  "cuCtxEnablePeerAccess again after a disable");
	dx.cuCtxDisablePeerAccess(c1);
	cu.cuCtxCreate(&dead, NULL, 0, 1);
	cu.cuCtxDestroy(dead);
	cu.cuCtxSetCurrent(c0);
	expect_rc(dx.cuCtxEnablePeerAccess(dead, 0), CUDA_ERROR_INVALID_CONTEXT,
		  "cuCtxEnablePeerAccess: a destroyed peerContext");
	expect_rc(dx.cuCtxDisablePeerAccess(dead), CUDA_ERROR_INVALID_CONTEXT,
		  "cuCtxDisablePeerAccess: a destroyed peerContext");
	no_ctx();
	expect_rc(dx.cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_INVALID_CONTEXT,
		  "cuCtxEnablePeerAccess: no current context");
	expect_rc(dx.cuCtxDisablePeerAccess(c1), CUDA_ERROR_INVALID_CONTEXT,
		  "cuCtxDisablePeerAccess: no current context");
	cu.cuCtxSetCurrent(c0);
}

/* ---- the JIT linker ("Module Management") ---- */

static void link_file(const char *dir)
{
	char path[512];
	CUlinkState st = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/spin.ptx", dir);
	f = fopen(path, "w");
	if (!f || fputs(cu_spin_ptx, f) < 0 || fclose(f)) {
		expect(0, "cuLinkAddFile's input written", "%s", path);
		return;
	}
	dx.cuLinkCreate(0, NULL, NULL, &st);
	expect_rc(dx.cuLinkAddFile(st, CU_JIT_INPUT_PTX, path, 0, NULL, NULL), CUDA_SUCCESS,
		  "cuLinkAddFile: a PTX file");
	snprintf(path, sizeof(path), "%s/missing.ptx", dir);
	expect_rc(dx.cuLinkAddFile(st, CU_JIT_INPUT_PTX, path, 0, NULL, NULL),
		  CUDA_ERROR_FILE_NOT_FOUND, "cuLinkAddFile: a missing file");
	dx.cuLinkDestroy(st);
}

static void link_checks(const char *dir)
{
	CUlinkState st = NULL;
	void *img = NULL;
	size_t n = 0;
	CUmodule mod = NULL;
	CUfunction f = NULL;
	char ptx[sizeof(cu_spin_ptx)];
	CUjit_option wall = CU_JIT_WALL_TIME;
	void *wv = NULL;

	memcpy(ptx, cu_spin_ptx, sizeof(ptx));
	expect_rc(dx.cuLinkCreate(0, NULL, NULL, &st), CUDA_SUCCESS, "cuLinkCreate");
	expect_rc(dx.cuLinkAddData(st, CU_JIT_INPUT_PTX, ptx, sizeof(ptx), "spin", 0, NULL, NULL),
		  CUDA_SUCCESS, "cuLinkAddData: NUL-terminated PTX");
	expect_rc(dx.cuLinkAddData(st, CU_JIT_INPUT_PTX, ptx, sizeof(ptx) - 1, "spin", 0, NULL,
				   NULL), CUDA_ERROR_INVALID_PTX,
		  "cuLinkAddData: PTX not NUL-terminated");
	/* "does not accept any of CU_JIT_WALL_TIME, CU_JIT_INFO_LOG_BUFFER, ..." */
	expect_rc(dx.cuLinkAddData(st, CU_JIT_INPUT_PTX, ptx, sizeof(ptx), "spin", 1, &wall, &wv),
		  CUDA_ERROR_INVALID_VALUE, "cuLinkAddData: an output option (CU_JIT_WALL_TIME)");
	memset(ptx, 'x', sizeof(ptx) - 1);	/* "no reference is retained" */
	expect_rc(dx.cuLinkAddData(NULL, CU_JIT_INPUT_PTX, ptx, sizeof(ptx), "x", 0, NULL, NULL),
		  CUDA_ERROR_INVALID_HANDLE, "cuLinkAddData: a NULL state");
	expect(!dx.cuLinkComplete(st, &img, &n) && img && n > 0,
	       "cuLinkComplete: an image and its size", "image %p size %zu", img, n);
	expect(img && !cu.cuModuleLoadData(&mod, img) &&
	       !cu.cuModuleGetFunction(&f, mod, "simgpu_spin"),
	       "cuModuleLoadData takes cuLinkComplete's image", "not loaded");
	expect_rc(dx.cuLinkComplete(NULL, &img, &n), CUDA_ERROR_INVALID_HANDLE,
		  "cuLinkComplete: a NULL state");
	expect_rc(dx.cuLinkDestroy(st), CUDA_SUCCESS, "cuLinkDestroy");
	expect_rc(dx.cuLinkDestroy(NULL), CUDA_ERROR_INVALID_HANDLE, "cuLinkDestroy: a NULL state");
	link_file(dir);
}

/* ---- kernel node parameters ("Graph Management") ---- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The exec's new values make its next launch: a kernel of 1 ms set to
 * 300 ms runs 300 ms; the node keeps what it had. */
static void graph_checks(CUfunction f, CUfunction f_other_ctx)
{
	unsigned long long ns = 1000000, ns2 = 300000000;
	void *args[] = { &ns }, *args2[] = { &ns2 };
	CUDA_KERNEL_NODE_PARAMS kp = { .func = f, .gridDimX = 2, .gridDimY = 3, .gridDimZ = 1,
				       .blockDimX = 32, .blockDimY = 1, .blockDimZ = 1,
				       .sharedMemBytes = 256, .kernelParams = args };
	CUDA_KERNEL_NODE_PARAMS got, kp2;
	CUgraph g = NULL;
	CUgraphNode n = NULL;
	CUgraphExec e = NULL;
	CUstream s = NULL;
	double t0, ms;

	if (cu.cuGraphCreate(&g, 0) || cu.cuGraphAddKernelNode(&n, g, NULL, 0, &kp) ||
	    cu.cuGraphInstantiate(&e, g, 0) || cu.cuStreamCreate(&s, 0)) {
		expect(0, "a graph of one kernel node", "not built");
		return;
	}
	memset(&got, 0xff, sizeof(got));
	expect(!dx.cuGraphKernelNodeGetParams(n, &got) && got.func == f && got.gridDimX == 2 &&
	       got.gridDimY == 3 && got.blockDimX == 32 && got.sharedMemBytes == 256 &&
	       got.kernelParams && !got.extra,
	       "cuGraphKernelNodeGetParams: the node's function, grid, block, shared memory",
	       "func %p grid %u,%u block %u shmem %u", (void *)got.func, got.gridDimX,
	       got.gridDimY, got.blockDimX, got.sharedMemBytes);
	expect_rc(dx.cuGraphKernelNodeGetParams(n, NULL), CUDA_ERROR_INVALID_VALUE,
		  "cuGraphKernelNodeGetParams: nodeParams NULL");
	kp2 = kp;
	kp2.gridDimX = 5;
	kp2.kernelParams = args2;
	expect_rc(dx.cuGraphExecKernelNodeSetParams(e, n, &kp2), CUDA_SUCCESS,
		  "cuGraphExecKernelNodeSetParams");
	dx.cuGraphKernelNodeGetParams(n, &got);
	expect(got.gridDimX == 2 && got.kernelParams == args,
	       "cuGraphExecKernelNodeSetParams: hNode is not modified", "grid %u", got.gridDimX);
	t0 = now_ms();
	cu.cuGraphLaunch(e, s);
	cu.cuStreamSynchronize(s);
	ms = now_ms() - t0;
	expect(ms >= 290, "cuGraphExecKernelNodeSetParams: the next launch runs the new parameters",
	       "launch took %.0f ms, the new kernel 300 ms", ms);
	kp2.func = f_other_ctx;
	expect_rc(dx.cuGraphExecKernelNodeSetParams(e, n, &kp2), CUDA_ERROR_INVALID_VALUE,
		  "cuGraphExecKernelNodeSetParams: a function of another context");
	expect_rc(dx.cuGraphExecKernelNodeSetParams(e, n, NULL), CUDA_ERROR_INVALID_VALUE,
		  "cuGraphExecKernelNodeSetParams: nodeParams NULL");
	cu.cuStreamDestroy(s);
	cu.cuGraphExecDestroy(e);
	cu.cuGraphDestroy(g);
}

static CUfunction spin_fn(CUcontext c)
{
	CUmodule m = NULL;
	CUfunction f = NULL;

	cu.cuCtxSetCurrent(c);
	if (cu.cuModuleLoadData(&m, cu_spin_ptx) || cu.cuModuleGetFunction(&f, m, "simgpu_spin"))
		return NULL;
	return f;
}

int main(int argc, char **argv)
{
	CUcontext c0 = NULL, c1 = NULL, c2 = NULL;
	CUfunction f0, f1;

	if (argc != 2) {
		fprintf(stderr, "usage: driver-api-client DIR\n");
		return 2;
	}
	if (cu_load(0) || load() || cu.cuInit(0) || cu.cuCtxCreate(&c0, NULL, 0, 0) ||
	    cu.cuCtxCreate(&c1, NULL, 0, 1) || cu.cuCtxCreate(&c2, NULL, 0, 2)) {
		printf("bad set-up: three contexts on GPUs 0, 1 and 2\n");
		return 1;
	}
	pointer_checks(c0, c1);
	peer_checks(c0, c1, c2);
	link_checks(argv[1]);
	f1 = spin_fn(c1);
	f0 = spin_fn(c0);
	if (!f0 || !f1)
		expect(0, "simgpu_spin loaded in two contexts", "not loaded");
	else
		graph_checks(f0, f1);
	printf("done %d %d\n", nok, nbad);
	return nbad != 0;
}
