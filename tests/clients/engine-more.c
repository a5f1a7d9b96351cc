// SPDX-License-Identifier: GPL-2.0
/*
 * engine-client's work beyond engine-work.c (engine-client.c documents the
 * commands): copies with CUDA arrays, batches of 3D copies and 3D copies
 * with attributes, batch prefetches and the deprecated launches, each
 * checked for what it did, and the documented errors of their bad
 * arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuload.h"
#include "engine-work.h"

static const char image[] = "simgpu test image: any bytes will do";

static int expect(const char *what, CUresult got, CUresult want)
{
	if (got == want)
		return 0;
	printf("%s: %s, not %s\n", what, cu_err(got), cu_err(want));
	return 1;
}

/* A 1D array of n bytes of format f (n / element size elements). */
static CUresult array_new(CUarray *a, size_t n, CUarray_format f)
{
	CUDA_ARRAY_DESCRIPTOR d = {
		.Width = n / (f == CU_AD_FORMAT_UNSIGNED_INT32 ? 4 : 1), .Height = 0,
		.Format = f, .NumChannels = 1,
	};

	return cu.cuArrayCreate(a, &d);
}

/* Two buffers of n bytes of managed memory, filled by the host: *a with
 * 0x5a, *b with 0. The set-up passes no gate, so that a closed gate is
 * met by the work itself (a gated memset here would stall a tenant whose
 * work is not gated, and 68-engines could not tell). */
static CUresult two_bufs(CUdeviceptr *a, CUdeviceptr *b, size_t n)
{
	CUresult rc = cu.cuMemAllocManaged(a, n, CU_MEM_ATTACH_GLOBAL);

	if (!rc)
		rc = cu.cuMemAllocManaged(b, n, CU_MEM_ATTACH_GLOBAL);
	if (!rc) {
		memset((void *)(uintptr_t)*a, 0x5a, n);
		memset((void *)(uintptr_t)*b, 0, n);
	}
	return rc;
}

/* cuMemcpyHtoAAsync and cuMemcpyAtoHAsync in turn, host buffers. */
static CUresult work_array(CUstream s, size_t n, uint64_t count)
{
	unsigned char *h1 = malloc(n), *h2 = calloc(1, n);
	CUarray a = NULL;
	CUresult rc = h1 && h2 ? array_new(&a, n, CU_AD_FORMAT_UNSIGNED_INT32)
			       : CUDA_ERROR_OUT_OF_MEMORY;

	if (h1)
		memset(h1, 0x5a, n);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = i & 1 ? cu.cuMemcpyAtoHAsync(h2, a, 0, n, s)
			   : cu.cuMemcpyHtoAAsync(a, 0, h1, n, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc && count >= 2 && (h2[n - 1] != 0x5a || h2[0] != 0x5a))
		rc = CUDA_ERROR_ILLEGAL_ADDRESS;
	if (a)
		cu.cuArrayDestroy(a);
	free(h1);
	free(h2);
	return rc;
}

/* The synchronous forms in turn: DtoA, AtoA, AtoD, HtoA, AtoH. */
static CUresult array_step(uint64_t i, CUarray a1, CUarray a2, CUdeviceptr d1, CUdeviceptr d2,
			   unsigned char *h, size_t n)
{
	switch (i % 5) {
	case 0: return cu.cuMemcpyDtoA(a1, 0, d1, n);
	case 1: return cu.cuMemcpyAtoA(a2, 0, a1, 0, n);
	case 2: return cu.cuMemcpyAtoD(d2, a2, 0, n);
	case 3: return cu.cuMemcpyAtoH(h, a2, 0, n);
	default: return cu.cuMemcpyHtoA(a1, 0, h, n);
	}
}

static CUresult work_array_sync(size_t n, uint64_t count)
{
	unsigned char *h = malloc(n);
	CUarray a1 = NULL, a2 = NULL;
	CUdeviceptr d1 = 0, d2 = 0;
	CUresult rc = h ? two_bufs(&d1, &d2, n) : CUDA_ERROR_OUT_OF_MEMORY;

	if (!rc)
		rc = array_new(&a1, n, CU_AD_FORMAT_UNSIGNED_INT32);
	if (!rc)
		rc = array_new(&a2, n, CU_AD_FORMAT_UNSIGNED_INT32);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = array_step(i, a1, a2, d1, d2, h, n);
	/* the device's bytes went through both arrays and back */
	if (!rc && count >= 3)
		rc = engine_check_word(d2 + n - 4, 0x5a5a5a5a);
	if (a1)
		cu.cuArrayDestroy(a1);
	if (a2)
		cu.cuArrayDestroy(a2);
	cu.cuMemFree(d1);
	cu.cuMemFree(d2);
	free(h);
	return rc;
}

static CUmemcpy3DOperand ptr_op(CUdeviceptr p)
{
	return (CUmemcpy3DOperand){ .type = CU_MEMCPY_OPERAND_TYPE_POINTER, .op.ptr.ptr = p };
}

static CUmemcpy3DOperand arr_op(CUarray a, size_t x)
{
	return (CUmemcpy3DOperand){ .type = CU_MEMCPY_OPERAND_TYPE_ARRAY,
				    .op.array = { .array = a, .offset = { x, 0, 0 } } };
}

/* A batch of two: device -> array (half/4 words) and device -> device
 * (4 rows of half/4 bytes). */
static void batch_ops(CUDA_MEMCPY3D_BATCH_OP *ops, CUarray a, CUdeviceptr d1, CUdeviceptr d2,
		      size_t half)
{
	memset(ops, 0, 2 * sizeof(*ops));
	ops[0].src = ptr_op(d1);
	ops[0].dst = arr_op(a, 0);
	ops[0].extent = (CUextent3D){ half / 4, 1, 1 };
	ops[1].src = ptr_op(d1 + half);
	ops[1].dst = ptr_op(d2 + half);
	ops[1].extent = (CUextent3D){ half / 4, 4, 1 };
	ops[0].srcAccessOrder = ops[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
}

/* The two ops as one batch, or (one) each alone with
 * cuMemcpy3DWithAttributesAsync. */
static CUresult copy3d(CUstream s, CUDA_MEMCPY3D_BATCH_OP *ops, int one)
{
#if CUDA_VERSION >= 13020
	if (one) {
		CUresult rc = cu.cuMemcpy3DWithAttributesAsync(&ops[0], 0, s);

		return rc ? rc : cu.cuMemcpy3DWithAttributesAsync(&ops[1], 0, s);
	}
#endif
	(void)one;
	return cu.cuMemcpy3DBatchAsync(2, ops, 0, s);
}

static CUresult work_batch3d(CUstream s, size_t n, uint64_t count, int one)
{
	size_t half = n / 2 & ~(size_t)15;
	CUDA_MEMCPY3D_BATCH_OP ops[2];
	CUdeviceptr d1 = 0, d2 = 0;
	CUarray a = NULL;
	CUresult rc = half ? two_bufs(&d1, &d2, 2 * half) : CUDA_ERROR_INVALID_VALUE;

	if (!rc)
		rc = array_new(&a, half, CU_AD_FORMAT_UNSIGNED_INT32);
	batch_ops(ops, a, d1, d2, half);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = copy3d(s, ops, one);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc)	/* the array's half back (whatever count: same set-up) */
		rc = cu.cuMemcpyAtoD(d2, a, 0, half);
	if (!rc && count)
		rc = engine_check_word(d2 + half - 4, 0x5a5a5a5a);
	if (!rc && count)
		rc = engine_check_word(d2 + 2 * half - 4, 0x5a5a5a5a);
	if (a)
		cu.cuArrayDestroy(a);
	cu.cuMemFree(d1);
	cu.cuMemFree(d2);
	return rc;
}

/* Two halves of n bytes of managed memory, to device 0 and to the host. */
static CUresult work_prefetch_batch(CUstream s, size_t n, uint64_t count, int discard)
{
	CUmemLocation locs[2] = { { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 },
				  { .type = CU_MEM_LOCATION_TYPE_HOST } };
	size_t half = n / 2, sizes[2] = { half, half }, idx[2] = { 0, 1 };
	CUdeviceptr m = 0, p[2];
	CUresult rc = half ? cu.cuMemAllocManaged(&m, 2 * half, CU_MEM_ATTACH_GLOBAL)
			   : CUDA_ERROR_INVALID_VALUE;

	p[0] = m;
	p[1] = m + half;
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = discard ? cu.cuMemDiscardAndPrefetchBatchAsync(p, sizes, 2, locs, idx, 2, 0, s)
			     : cu.cuMemPrefetchBatchAsync(p, sizes, 2, locs, idx, 2, 0, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (m)
		cu.cuMemFree(m);
	return rc;
}

/* A module's simgpu_spin as a legacy launch's function: a 32-thread
 * block, its one parameter ns. */
static CUresult legacy_fn(CUfunction *f, uint64_t ns)
{
	CUmodule mod;
	CUresult rc = cu.cuModuleLoadData(&mod, image);

	if (!rc)
		rc = cu.cuModuleGetFunction(f, mod, "simgpu_spin");
	if (!rc)
		rc = cu.cuFuncSetBlockShape(*f, 32, 1, 1);
	if (!rc)
		rc = cu.cuParamSetSize(*f, sizeof(ns));
	return rc ? rc : cu.cuParamSetv(*f, 0, &ns, sizeof(ns));
}

static CUresult work_legacy(CUstream s, const char *kind, uint64_t ns, uint64_t count)
{
	CUfunction f;
	CUresult rc = legacy_fn(&f, ns);

	for (uint64_t i = 0; i < count && !rc; i++) {
		if (!strcmp(kind, "launch"))
			rc = cu.cuLaunch(f);
		else if (!strcmp(kind, "launchgrid"))
			rc = cu.cuLaunchGrid(f, 1, 1);
		else
			rc = cu.cuLaunchGridAsync(f, 1, 1, s);
	}
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	return rc ? rc : cu.cuStreamSynchronize(NULL);
}

/* COUNT launches of an NS simgpu_spin on devices 0 (s) and 1. */
static CUresult work_multi(CUstream s, uint64_t ns, uint64_t count)
{
	CUDA_LAUNCH_PARAMS l[2];
	void *params[] = { &ns };
	CUcontext c1;
	CUstream s1;
	CUlibrary lib;
	CUkernel k;
	CUresult rc = engine_dev_stream(1, &c1, &s1);

	if (!rc)
		rc = cu.cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
	if (!rc)
		rc = cu.cuLibraryGetKernel(&k, lib, "simgpu_spin");
	for (int i = 0; i < 2; i++)
		l[i] = (CUDA_LAUNCH_PARAMS){ .function = (CUfunction)(void *)k, .gridDimX = 1,
					     .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32,
					     .blockDimY = 1, .blockDimZ = 1,
					     .hStream = i ? s1 : s, .kernelParams = params };
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = cu.cuLaunchCooperativeKernelMultiDevice(l, 2, 0);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	return rc ? rc : cu.cuStreamSynchronize(s1);
}

CUresult engine_more(const char *kind, CUcontext c, CUstream s, uint64_t bytes, uint64_t count)
{
	size_t n = (size_t)bytes & ~(size_t)3;

	(void)c;
	if (!strcmp(kind, "array"))
		return n ? work_array(s, n, count) : CUDA_ERROR_INVALID_VALUE;
	if (!strcmp(kind, "arraysync"))
		return n ? work_array_sync(n, count) : CUDA_ERROR_INVALID_VALUE;
	if (!strcmp(kind, "batch3d"))
		return work_batch3d(s, n, count, 0);
#if CUDA_VERSION >= 13020
	if (!strcmp(kind, "copy3dattr"))
		return work_batch3d(s, n, count, 1);
#endif
	if (!strcmp(kind, "prefetchbatch") || !strcmp(kind, "discardprefetch"))
		return work_prefetch_batch(s, n, count, kind[0] == 'd');
	if (!strcmp(kind, "launch") || !strcmp(kind, "launchgrid") ||
	    !strcmp(kind, "launchgridasync"))
		return work_legacy(s, kind, bytes, count);
	if (!strcmp(kind, "multidevice"))
		return work_multi(s, bytes, count);
	fprintf(stderr, "engine-client: work %s: not 2d, 3d, peer, memset2d, prefetch, "
		"writevalue, batch, batchmemop, array, arraysync, batch3d, prefetchbatch, "
		"discardprefetch, copyattr, copy3dattr, fabric, launch, launchgrid, "
		"launchgridasync or multidevice\n", kind);
	exit(2);
}

/* Array copies: ranges, element sizes, handles. */
static int errors_array(CUdeviceptr d)
{
	unsigned char h[64] = { 0 };
	CUarray a = NULL, b = NULL;
	int n = 0;

	if (array_new(&a, 64, CU_AD_FORMAT_UNSIGNED_INT32) ||
	    array_new(&b, 64, CU_AD_FORMAT_UNSIGNED_INT8))
		return expect("array create", CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS);
	n += expect("host to array in bounds", cu.cuMemcpyHtoA(a, 0, h, 64), CUDA_SUCCESS);
	n += expect("host to array past its end", cu.cuMemcpyHtoA(a, 60, h, 8),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("array to host past its end", cu.cuMemcpyAtoH(h, a, 64, 4),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("array to device of part of an element", cu.cuMemcpyAtoD(d, a, 0, 6),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("array to misaligned device memory", cu.cuMemcpyAtoD(d + 2, a, 0, 8),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("array to array of another element size", cu.cuMemcpyAtoA(b, 0, a, 0, 16),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("device to no array", cu.cuMemcpyDtoA(NULL, 0, d, 16),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("host to array, asynchronous, past its end",
		    cu.cuMemcpyHtoAAsync(a, 0, h, 68, NULL), CUDA_ERROR_INVALID_VALUE);
	cu.cuArrayDestroy(a);
	cu.cuArrayDestroy(b);
	return n;
}

/* 3D batches: the whole batch is refused, nothing of it done. */
static int errors_batch3d(CUstream s, CUdeviceptr d)
{
	CUDA_MEMCPY3D_BATCH_OP ops[2];
	CUarray a = NULL, b = NULL;
	int n = 0;

	if (array_new(&a, 64, CU_AD_FORMAT_UNSIGNED_INT32) ||
	    array_new(&b, 64, CU_AD_FORMAT_UNSIGNED_INT8))
		return expect("array create", CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS);
	batch_ops(ops, a, d, d + 128, 64);
	n += expect("3D batch in bounds", cu.cuMemcpy3DBatchAsync(2, ops, 0, s), CUDA_SUCCESS);
	n += expect("3D batch with flags", cu.cuMemcpy3DBatchAsync(2, ops, 1, s),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("3D batch on the legacy stream", cu.cuMemcpy3DBatchAsync(2, ops, 0, NULL),
		    CUDA_ERROR_INVALID_VALUE);
	ops[1].extent.depth = 0;
	n += expect("3D batch with a zero extent", cu.cuMemcpy3DBatchAsync(2, ops, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	ops[1].extent.depth = 1;
	ops[1].src.op.ptr.rowLength = 8;	/* rows of 16 bytes */
	n += expect("3D batch with rows shorter than the extent",
		    cu.cuMemcpy3DBatchAsync(2, ops, 0, s), CUDA_ERROR_INVALID_VALUE);
	ops[1].src.op.ptr.rowLength = 0;
	ops[0].dst.op.array.offset.x = 1;	/* 16 words from word 1 of 16 */
	n += expect("3D batch past an array's end", cu.cuMemcpy3DBatchAsync(2, ops, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	ops[0].dst.op.array.offset.x = 0;
	ops[0].src = arr_op(b, 0);
	n += expect("3D batch between arrays of other element sizes",
		    cu.cuMemcpy3DBatchAsync(2, ops, 0, s), CUDA_ERROR_INVALID_VALUE);
	ops[0].src = ptr_op(d);
	ops[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
	n += expect("3D batch with no source access order",
		    cu.cuMemcpy3DBatchAsync(2, ops, 0, s), CUDA_ERROR_INVALID_VALUE);
	cu.cuStreamSynchronize(s);
	cu.cuArrayDestroy(a);
	cu.cuArrayDestroy(b);
	return n;
}

#if CUDA_VERSION >= 13020
/* A copy and a 3D copy with attributes: the attribute, flags and op. */
static int errors_attr(CUstream s, CUdeviceptr d)
{
	CUmemcpyAttributes at = { .srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM };
	CUDA_MEMCPY3D_BATCH_OP ops[2];
	int n = 0;

	n += expect("copy with attributes", cu.cuMemcpyWithAttributesAsync(d, d + 128, 64, &at, s),
		    CUDA_SUCCESS);
	n += expect("copy with no attributes",
		    cu.cuMemcpyWithAttributesAsync(d, d + 128, 64, NULL, s), CUDA_ERROR_INVALID_VALUE);
	at.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
	n += expect("copy with attributes of no source access order",
		    cu.cuMemcpyWithAttributesAsync(d, d + 128, 64, &at, s), CUDA_ERROR_INVALID_VALUE);
	batch_ops(ops, NULL, d, d + 128, 64);
	n += expect("3D copy with attributes", cu.cuMemcpy3DWithAttributesAsync(&ops[1], 0, s),
		    CUDA_SUCCESS);
	n += expect("3D copy with attributes and flags",
		    cu.cuMemcpy3DWithAttributesAsync(&ops[1], 1, s), CUDA_ERROR_INVALID_VALUE);
	n += expect("3D copy with attributes of no op", cu.cuMemcpy3DWithAttributesAsync(NULL, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	ops[1].extent.height = 0;
	n += expect("3D copy with attributes of a zero extent",
		    cu.cuMemcpy3DWithAttributesAsync(&ops[1], 0, s), CUDA_ERROR_INVALID_VALUE);
	ops[1].extent.height = 4;
	ops[1].srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_INVALID;
	n += expect("3D copy with attributes of no source access order",
		    cu.cuMemcpy3DWithAttributesAsync(&ops[1], 0, s), CUDA_ERROR_INVALID_VALUE);
	return n;
}
#endif

static int errors_prefetch(CUstream s, CUdeviceptr d)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	CUdeviceptr m = 0, p[1];
	size_t size = 64, idx = 0;
	int n = 0;

	if (cu.cuMemAllocManaged(&m, 64, CU_MEM_ATTACH_GLOBAL))
		return expect("managed alloc", CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS);
	p[0] = m;
	n += expect("batch prefetch of managed memory",
		    cu.cuMemPrefetchBatchAsync(p, &size, 1, &loc, &idx, 1, 0, s), CUDA_SUCCESS);
	n += expect("batch prefetch on the legacy stream",
		    cu.cuMemPrefetchBatchAsync(p, &size, 1, &loc, &idx, 1, 0, NULL),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("batch prefetch with flags",
		    cu.cuMemPrefetchBatchAsync(p, &size, 1, &loc, &idx, 1, 1, s),
		    CUDA_ERROR_INVALID_VALUE);
	idx = 1;
	n += expect("batch prefetch whose first location index is not 0",
		    cu.cuMemPrefetchBatchAsync(p, &size, 1, &loc, &idx, 1, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	idx = 0;
	loc.id = 99;
	n += expect("batch prefetch to no device",
		    cu.cuMemDiscardAndPrefetchBatchAsync(p, &size, 1, &loc, &idx, 1, 0, s),
		    CUDA_ERROR_INVALID_DEVICE);
	loc.id = 0;
	p[0] = d;
	n += expect("discard and prefetch of non-managed memory",
		    cu.cuMemDiscardAndPrefetchBatchAsync(p, &size, 1, &loc, &idx, 1, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	cu.cuStreamSynchronize(s);
	cu.cuMemFree(m);
	return n;
}

static int errors_legacy(void)
{
	uint64_t ns = 1000;
	CUmodule mod;
	CUfunction f, g;
	int n = 0;

	if (cu.cuModuleLoadData(&mod, image) || cu.cuModuleGetFunction(&f, mod, "simgpu_spin") ||
	    cu.cuModuleGetFunction(&g, mod, "simgpu_other"))
		return expect("module load", CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS);
	n += expect("cuLaunch before cuFuncSetBlockShape", cu.cuLaunch(g),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("block shape of no threads", cu.cuFuncSetBlockShape(f, 0, 1, 1),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("block shape of 2048 threads", cu.cuFuncSetBlockShape(f, 64, 32, 1),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("block shape of no function", cu.cuFuncSetBlockShape(NULL, 32, 1, 1),
		    CUDA_ERROR_INVALID_HANDLE);
	n += expect("block shape of 32 threads", cu.cuFuncSetBlockShape(f, 32, 1, 1),
		    CUDA_SUCCESS);
	n += expect("parameters past the parameter space", cu.cuParamSetv(f, 4090, &ns, 8),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("parameters set", cu.cuParamSetv(f, 0, &ns, 8), CUDA_SUCCESS);
	n += expect("cuLaunchGrid of no blocks", cu.cuLaunchGrid(f, 0, 1),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("cuLaunch of no function", cu.cuLaunch(NULL), CUDA_ERROR_INVALID_VALUE);
	n += expect("cuLaunch", cu.cuLaunch(f), CUDA_SUCCESS);
	return n;
}

static int errors_multi(CUstream s)
{
	CUDA_LAUNCH_PARAMS l[2];
	uint64_t ns = 1000;
	void *params[] = { &ns };
	CUlibrary lib;
	CUkernel k;
	CUcontext c1;
	CUstream s1;
	int n = 0;

	if (engine_dev_stream(1, &c1, &s1) ||
	    cu.cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0) ||
	    cu.cuLibraryGetKernel(&k, lib, "simgpu_spin"))
		return expect("set-up", CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS);
	for (int i = 0; i < 2; i++)
		l[i] = (CUDA_LAUNCH_PARAMS){ .function = (CUfunction)(void *)k, .gridDimX = 1,
					     .gridDimY = 1, .gridDimZ = 1, .blockDimX = 32,
					     .blockDimY = 1, .blockDimZ = 1,
					     .hStream = i ? s1 : s, .kernelParams = params };
	n += expect("multi-device launch", cu.cuLaunchCooperativeKernelMultiDevice(l, 2, 0),
		    CUDA_SUCCESS);
	n += expect("multi-device launch on no device",
		    cu.cuLaunchCooperativeKernelMultiDevice(l, 0, 0), CUDA_ERROR_INVALID_VALUE);
	n += expect("multi-device launch with unknown flags",
		    cu.cuLaunchCooperativeKernelMultiDevice(l, 2, 4), CUDA_ERROR_INVALID_VALUE);
	l[1].gridDimX = 2;
	n += expect("multi-device launch of unlike grids",
		    cu.cuLaunchCooperativeKernelMultiDevice(l, 2, 0), CUDA_ERROR_INVALID_VALUE);
	l[1].gridDimX = 1;
	l[1].hStream = s;
	n += expect("multi-device launch twice on one device",
		    cu.cuLaunchCooperativeKernelMultiDevice(l, 2, 0), CUDA_ERROR_INVALID_VALUE);
	l[1].hStream = NULL;
	n += expect("multi-device launch on a NULL stream",
		    cu.cuLaunchCooperativeKernelMultiDevice(l, 2, 0), CUDA_ERROR_INVALID_VALUE);
	l[1].function = NULL;
	l[1].hStream = s1;
	n += expect("multi-device launch of no function",
		    cu.cuLaunchCooperativeKernelMultiDevice(l, 2, 0), CUDA_ERROR_INVALID_HANDLE);
	cu.cuStreamSynchronize(s1);
	return n;
}

int engine_errors_more(CUcontext c, CUstream s)
{
	CUdeviceptr d = 0;
	int n;

	(void)c;
	if (cu.cuMemAlloc(&d, 256))
		return expect("alloc", CUDA_ERROR_OUT_OF_MEMORY, CUDA_SUCCESS);
	n = errors_array(d) + errors_batch3d(s, d) + errors_prefetch(s, d) + errors_legacy() +
	    errors_multi(s);
#if CUDA_VERSION >= 13020
	n += errors_attr(s, d);
#endif
	cu.cuStreamSynchronize(s);
	cu.cuCtxSynchronize(NULL);
	cu.cuMemFree(d);
	return n;
}
