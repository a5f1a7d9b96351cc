// SPDX-License-Identifier: GPL-2.0
/*
 * engine-client's engine work beyond 1D copies and kernels (engine-client.c
 * documents the commands): pitched, peer, batch and attributed copies, 2D
 * memsets, prefetches and stream memory operations, each checked for what
 * it did, and the documented errors of their bad arguments (engine-more.c:
 * the rest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuload.h"
#include "engine-work.h"
#include "waitfile.h"

/* A stream of device dev's primary context, which is left not current. */
CUresult engine_dev_stream(int dev, CUcontext *ctx, CUstream *s)
{
	CUdevice d;
	CUcontext popped;
	CUresult rc = cu.cuDeviceGet(&d, dev);

	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(ctx, d);
	if (!rc)
		rc = cu.cuCtxPushCurrent(*ctx);
	if (rc)
		return rc;
	rc = cu.cuStreamCreate(s, CU_STREAM_NON_BLOCKING);
	cu.cuCtxPopCurrent(&popped);
	return rc;
}

/* Device 0's context current, and a stream of it. */
static CUresult dev0(CUcontext *c, CUstream *s)
{
	CUresult rc = engine_dev_stream(0, c, s);

	return rc ? rc : cu.cuCtxSetCurrent(*c);
}

static CUresult check_word(CUdeviceptr p, uint32_t want)
{
	uint32_t got = 0;
	CUresult rc = cu.cuMemcpyDtoH(&got, p, sizeof(got));

	return rc ? rc : got == want ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_ADDRESS;
}

CUresult engine_check_word(CUdeviceptr p, uint32_t want)
{
	return check_word(p, want);
}

/* n bytes of managed memory, each byte filled by the host. The set-up of
 * the work passes no gate, so that a closed gate is met by the work
 * itself (a gated memset here stalls a tenant whose work is not gated,
 * and 68-engines could not tell). */
static CUresult host_filled(CUdeviceptr *p, size_t n, int byte)
{
	CUresult rc = cu.cuMemAllocManaged(p, n, CU_MEM_ATTACH_GLOBAL);

	if (!rc)
		memset((void *)(uintptr_t)*p, byte, n);
	return rc;
}

enum { COPY2D, SET2D, COPY3D };

/* 4 rows of bytes/4 (rounded to words) from a pitched source to a
 * pitched destination, pitches one word wider (3D: 2 slices of 2 rows). */
static CUresult copy_rows(CUstream s, CUdeviceptr a, CUdeviceptr b, size_t w, size_t pitch,
			  int how)
{
	CUDA_MEMCPY2D c = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = a, .srcPitch = pitch,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = b, .dstPitch = pitch,
		.WidthInBytes = w, .Height = 4,
	};
	CUDA_MEMCPY3D c3 = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcDevice = a, .srcPitch = pitch,
		.srcHeight = 2,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstDevice = b, .dstPitch = pitch,
		.dstHeight = 2,
		.WidthInBytes = w, .Height = 2, .Depth = 2,
	};

	if (how == SET2D)
		return cu.cuMemsetD2D32Async(b, pitch, 0x5a5a5a5a, w / 4, 4, s);
	return how == COPY3D ? cu.cuMemcpy3DAsync(&c3, s) : cu.cuMemcpy2DAsync(&c, s);
}

static CUresult work_rows(CUstream s, uint64_t bytes, uint64_t count, int how)
{
	size_t w = (size_t)(bytes / 4) & ~(size_t)3, pitch = w + 4;
	CUdeviceptr a = 0, b = 0;
	CUresult rc;

	if (!w)
		return CUDA_ERROR_INVALID_VALUE;
	rc = host_filled(&a, 4 * pitch, 0x5a);
	if (!rc)
		rc = host_filled(&b, 4 * pitch, 0);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = copy_rows(s, a, b, w, pitch, how);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	/* The last row's last word moved; the word past it did not. */
	if (!rc && count)
		rc = check_word(b + 3 * pitch + w - 4, 0x5a5a5a5a);
	if (!rc)
		rc = check_word(b + 3 * pitch + w, 0);
	if (a)
		cu.cuMemFree(a);
	if (b)
		cu.cuMemFree(b);
	return rc;
}

static CUresult copy_batch(CUstream s, CUdeviceptr a, CUdeviceptr b, size_t half)
{
	CUdeviceptr dsts[2] = { b, b + half }, srcs[2] = { a, a + half };
	size_t sizes[2] = { half, half }, idx = 0;
	CUmemcpyAttributes at = { .srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM };

	return cu.cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &at, &idx, 1, s);
}

static CUresult work_batch_copy(CUstream s, uint64_t bytes, uint64_t count)
{
	size_t half = (size_t)(bytes / 2) & ~(size_t)3;
	CUdeviceptr a = 0, b = 0;
	CUresult rc = half ? host_filled(&a, 2 * half, 0x5a) : CUDA_ERROR_INVALID_VALUE;

	if (!rc)
		rc = host_filled(&b, 2 * half, 0);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = copy_batch(s, a, b, half);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc && count)
		rc = check_word(b + 2 * half - 4, 0x5a5a5a5a);
	if (a)
		cu.cuMemFree(a);
	if (b)
		cu.cuMemFree(b);
	return rc;
}

#if CUDA_VERSION >= 13020
/* cuMemcpyWithAttributesAsync of bytes, count times. */
static CUresult work_copy_attr(CUstream s, uint64_t bytes, uint64_t count)
{
	size_t n = (size_t)bytes & ~(size_t)3;
	CUmemcpyAttributes at = { .srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM };
	CUdeviceptr a = 0, b = 0;
	CUresult rc = n ? host_filled(&a, n, 0x5a) : CUDA_ERROR_INVALID_VALUE;

	if (!rc)
		rc = host_filled(&b, n, 0);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = cu.cuMemcpyWithAttributesAsync(b, a, n, &at, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc && count)
		rc = check_word(b + n - 4, 0x5a5a5a5a);
	if (a)
		cu.cuMemFree(a);
	if (b)
		cu.cuMemFree(b);
	return rc;
}
#endif

#if CUDA_VERSION >= 13050
/* A fabric copy of size bytes between two pointers. */
static CUDA_FABRIC_COPY_BATCH_OP fabric_op(CUdeviceptr dst, CUdeviceptr src, size_t size)
{
	return (CUDA_FABRIC_COPY_BATCH_OP){
		.src = { .type = CU_FABRIC_COPY_OPERAND_TYPE_POINTER, .op.ptr.ptr = src },
		.dst = { .type = CU_FABRIC_COPY_OPERAND_TYPE_POINTER, .op.ptr.ptr = dst },
		.size = size,
	};
}

/* cuFabricCpyBatchAsync of two halves of bytes between pointers. */
static CUresult work_fabric(CUstream s, uint64_t bytes, uint64_t count)
{
	size_t half = (size_t)(bytes / 2) & ~(size_t)3;
	CUDA_FABRIC_COPY_BATCH_OP ops[2];
	CUdeviceptr a = 0, b = 0;
	CUresult rc = half ? host_filled(&a, 2 * half, 0x5a) : CUDA_ERROR_INVALID_VALUE;

	if (!rc)
		rc = host_filled(&b, 2 * half, 0);
	ops[0] = fabric_op(b, a, half);
	ops[1] = fabric_op(b + half, a + half, half);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = cu.cuFabricCpyBatchAsync(2, ops, 0, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc && count)
		rc = check_word(b + half - 4, 0x5a5a5a5a);
	if (!rc && count)
		rc = check_word(b + 2 * half - 4, 0x5a5a5a5a);
	if (a)
		cu.cuMemFree(a);
	if (b)
		cu.cuMemFree(b);
	return rc;
}
#endif

static CUresult work_peer(CUstream s, CUcontext c0, uint64_t bytes, uint64_t count)
{
	CUdeviceptr a = 0, b = 0;
	CUcontext c1;
	CUstream s1;
	CUresult rc = engine_dev_stream(1, &c1, &s1);

	if (!rc)
		rc = cu.cuCtxSetCurrent(c1);
	if (!rc)
		rc = cu.cuMemAlloc(&b, bytes);
	if (!rc)
		rc = cu.cuCtxSetCurrent(c0);
	if (!rc)
		rc = host_filled(&a, bytes, 0x5a);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = cu.cuMemcpyPeerAsync(b, c1, a, c0, bytes, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc && count && bytes >= 4)
		rc = check_word(b + bytes - 4, 0x5a5a5a5a);
	if (a)
		cu.cuMemFree(a);
	if (b)
		cu.cuMemFree(b);
	return rc;
}

static CUresult work_prefetch(CUstream s, uint64_t bytes, uint64_t count)
{
	CUmemLocation dev0 = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	CUdeviceptr m = 0;
	CUresult rc = cu.cuMemAllocManaged(&m, bytes, CU_MEM_ATTACH_GLOBAL);

	for (uint64_t i = 0; i < count && !rc; i++)
		rc = cu.cuMemPrefetchAsync(m, bytes, dev0, 0, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (m)
		cu.cuMemFree(m);
	return rc;
}

/* The word is set up (its memset passed the gate): "[set up]", then the
 * test's go when it asks for one (ENGINE_GO, waitfile.h). */
static void set_up(void)
{
	fprintf(stderr, "[set up]\n");
	client_pause(getenv("ENGINE_GO"));
}

/* A call has returned: the test counts those made while the gate is
 * closed (none, when the calls are gated). */
static void issued(uint64_t i)
{
	fprintf(stderr, "[issued %llu]\n", (unsigned long long)i);
}

static CUresult work_write(CUstream s, uint64_t count)
{
	CUdeviceptr w = 0;
	CUresult rc = cu.cuMemAlloc(&w, 4);

	if (!rc)
		rc = cu.cuMemsetD8(w, 0, 4);
	if (!rc)
		set_up();
	for (uint64_t i = 1; i <= count && !rc; i++) {
		rc = cu.cuStreamWriteValue32(s, w, (cuuint32_t)i, 0);
		issued(i);
	}
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc)
		rc = check_word(w, (uint32_t)count);
	if (w)
		cu.cuMemFree(w);
	return rc;
}

static CUresult work_batch(CUstream s, uint64_t count)
{
	CUstreamBatchMemOpParams ops[3];
	CUdeviceptr w = 0;
	CUresult rc = cu.cuMemAlloc(&w, 16);

	if (!rc)
		rc = cu.cuMemsetD8(w, 0, 16);
	if (!rc)
		set_up();
	for (uint64_t i = 1; i <= count && !rc; i++) {
		memset(ops, 0, sizeof(ops));
		ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
		ops[0].writeValue.address = w;
		ops[0].writeValue.value = (cuuint32_t)i;
		ops[1].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
		ops[2].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
		ops[2].writeValue.address = w + 8;
		ops[2].writeValue.value64 = i << 32 | i;
		rc = cu.cuStreamBatchMemOp(s, 3, ops, 0);
		issued(i);
	}
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc)
		rc = check_word(w, (uint32_t)count);
	if (!rc)	/* the 64-bit word's high half */
		rc = check_word(w + 12, (uint32_t)count);
	if (w)
		cu.cuMemFree(w);
	return rc;
}

CUresult engine_work(const char *kind, uint64_t bytes, uint64_t count)
{
	CUcontext c;
	CUstream s;
	CUresult rc = dev0(&c, &s);

	if (rc)
		return rc;
	fprintf(stderr, "[started]\n");	/* set up: the work comes next */
	if (!strcmp(kind, "2d"))
		return work_rows(s, bytes, count, COPY2D);
	if (!strcmp(kind, "3d"))
		return work_rows(s, bytes, count, COPY3D);
	if (!strcmp(kind, "memset2d"))
		return work_rows(s, bytes, count, SET2D);
	if (!strcmp(kind, "peer"))
		return work_peer(s, c, bytes, count);
	if (!strcmp(kind, "prefetch"))
		return work_prefetch(s, bytes, count);
	if (!strcmp(kind, "writevalue"))
		return work_write(s, count);
	if (!strcmp(kind, "batch"))
		return work_batch_copy(s, bytes, count);
	if (!strcmp(kind, "batchmemop"))
		return work_batch(s, count);
#if CUDA_VERSION >= 13020
	if (!strcmp(kind, "copyattr"))
		return work_copy_attr(s, bytes, count);
#endif
#if CUDA_VERSION >= 13050
	if (!strcmp(kind, "fabric"))
		return work_fabric(s, bytes, count);
#endif
	return engine_more(kind, c, s, bytes, count);
}

/* The stream must not pass its wait before the host sets the word. */
CUresult engine_waitvalue(uint64_t ns, uint64_t count)
{
	struct timespec nap = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	CUdeviceptr w = 0;
	CUcontext c;
	CUstream s, s2;
	CUresult rc = dev0(&c, &s);

	if (!rc)
		rc = cu.cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING);
	if (!rc)
		rc = cu.cuMemAlloc(&w, 8);
	if (!rc)
		rc = cu.cuMemsetD8(w, 0, 8);
	if (!rc)
		rc = cu.cuStreamWaitValue32(s, w, 1, CU_STREAM_WAIT_VALUE_GEQ);
	if (!rc)
		rc = cu.cuStreamWriteValue32(s, w + 4, (cuuint32_t)count, 0);
	nanosleep(&nap, NULL);
	if (!rc && cu.cuStreamQuery(s) != CUDA_ERROR_NOT_READY)
		rc = CUDA_ERROR_ILLEGAL_STATE;	/* the wait did not hold */
	if (!rc)
		rc = check_word(w + 4, 0);
	if (!rc)	/* release it from another stream */
		rc = cu.cuStreamWriteValue32(s2, w, 1, 0);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc)
		rc = check_word(w + 4, (uint32_t)count);
	if (w)
		cu.cuMemFree(w);
	return rc;
}

static int expect(const char *what, CUresult got, CUresult want)
{
	if (got == want)
		return 0;
	printf("%s: %s, not %s\n", what, cu_err(got), cu_err(want));
	return 1;
}

#if CUDA_VERSION >= 13050
/* Fabric copies: the whole batch is refused, nothing of it done. */
static int errors_fabric(CUstream s, CUdeviceptr d)
{
	static const uint32_t seven = 7;
	CUDA_FABRIC_COPY_BATCH_OP ops[2];
	int n = 0;

	ops[0] = fabric_op(d + 252, (CUdeviceptr)(uintptr_t)&seven, 4);
	ops[1] = fabric_op(d + 64, d + 128, 64);
	n += expect("fabric copy of no ops", cu.cuFabricCpyBatchAsync(0, ops, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("fabric copy of no list", cu.cuFabricCpyBatchAsync(2, NULL, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("fabric copy with flags", cu.cuFabricCpyBatchAsync(2, ops, 1, s),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("fabric copy on the legacy stream", cu.cuFabricCpyBatchAsync(2, ops, 0, NULL),
		    CUDA_ERROR_INVALID_VALUE);
	ops[1].flags = 1;
	n += expect("fabric copy with an op's flags", cu.cuFabricCpyBatchAsync(2, ops, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	ops[1].flags = 0;
	ops[1].size = 1 << 26;
	n += expect("fabric copy past the allocation", cu.cuFabricCpyBatchAsync(2, ops, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	ops[1].size = 64;
	ops[1].dst.type = CU_FABRIC_COPY_OPERAND_TYPE_LOGICAL_ENDPOINT;
	n += expect("fabric copy to a logical endpoint (simgpu has no fabric)",
		    cu.cuFabricCpyBatchAsync(2, ops, 0, s), CUDA_ERROR_NOT_SUPPORTED);
	cu.cuStreamSynchronize(s);
	n += expect("a refused fabric batch copies nothing", check_word(d + 252, 7),
		    CUDA_ERROR_ILLEGAL_ADDRESS);
	ops[1].dst.type = CU_FABRIC_COPY_OPERAND_TYPE_POINTER;
	n += expect("fabric copy between pointers", cu.cuFabricCpyBatchAsync(2, ops, 0, s),
		    CUDA_SUCCESS);
	cu.cuStreamSynchronize(s);
	n += expect("fabric copy between pointers copies", check_word(d + 252, 7),
		    CUDA_SUCCESS);
	return n;
}
#endif

CUresult engine_errors(void)
{
	CUmemLocation bad = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 99 };
	CUmemLocation dev = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = 0 };
	CUDA_MEMCPY2D c = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcPitch = 64,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstPitch = 64,
		.WidthInBytes = 64, .Height = 4,
	};
	CUDA_MEMCPY3D c3 = {
		.srcMemoryType = CU_MEMORYTYPE_DEVICE, .srcPitch = 64, .srcHeight = 2,
		.dstMemoryType = CU_MEMORYTYPE_DEVICE, .dstPitch = 64, .dstHeight = 2,
		.WidthInBytes = 64, .Height = 2, .Depth = 2,
	};
	CUdeviceptr d = 0;
	CUcontext ctx;
	CUstream s;
	CUresult rc = dev0(&ctx, &s);
	int n = 0;

	if (!rc)
		rc = cu.cuMemAlloc(&d, 256);
	if (rc)
		return rc;
	c.srcDevice = c.dstDevice = d;
	n += expect("2D copy in bounds", cu.cuMemcpy2DAsync(&c, s), CUDA_SUCCESS);
	c.WidthInBytes = 65;
	n += expect("2D copy wider than its pitch", cu.cuMemcpy2DAsync(&c, s),
		    CUDA_ERROR_INVALID_VALUE);
	c.WidthInBytes = 64;
	c.Height = 1 << 20;	/* 64 MiB: past its mapping too */
	n += expect("2D copy past the allocation", cu.cuMemcpy2DAsync(&c, s),
		    CUDA_ERROR_INVALID_VALUE);
	c.Height = 4;
	c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
	n += expect("2D copy from a CUDA array (not simulated)", cu.cuMemcpy2DAsync(&c, s),
		    CUDA_ERROR_NOT_SUPPORTED);
	c3.srcDevice = c3.dstDevice = d;
	n += expect("3D copy in bounds", cu.cuMemcpy3DAsync(&c3, s), CUDA_SUCCESS);
	c3.srcY = 1;
	n += expect("3D copy with rows past a slice", cu.cuMemcpy3DAsync(&c3, s),
		    CUDA_ERROR_INVALID_VALUE);
	c3.srcY = 0;
	c3.reserved0 = &c3;
	n += expect("3D copy with reserved0 set", cu.cuMemcpy3DAsync(&c3, s),
		    CUDA_ERROR_INVALID_VALUE);
	{
		CUdeviceptr dsts[1] = { d }, srcs[1] = { d + 128 };
		size_t sizes[1] = { 64 }, idx = 1;
		CUmemcpyAttributes at = { .srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM };

		n += expect("batch copy whose first attribute index is not 0",
			    cu.cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &at, &idx, 1, s),
			    CUDA_ERROR_INVALID_VALUE);
		idx = 0;
		n += expect("batch copy on the legacy stream",
			    cu.cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &at, &idx, 1, NULL),
			    CUDA_ERROR_INVALID_VALUE);
		sizes[0] = 1 << 26;
		n += expect("batch copy past the allocation",
			    cu.cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &at, &idx, 1, s),
			    CUDA_ERROR_INVALID_VALUE);
		sizes[0] = 64;
		n += expect("batch copy in bounds",
			    cu.cuMemcpyBatchAsync(dsts, srcs, sizes, 1, &at, &idx, 1, s),
			    CUDA_SUCCESS);
	}
	n += expect("2D copy of NULL", cu.cuMemcpy2DAsync(NULL, s), CUDA_ERROR_INVALID_VALUE);
	n += expect("2D memset wider than its pitch",
		    cu.cuMemsetD2D32Async(d, 64, 0, 17, 4, s), CUDA_ERROR_INVALID_VALUE);
	n += expect("2D memset misaligned", cu.cuMemsetD2D32Async(d + 2, 64, 0, 4, 2, s),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("peer copy with no source context",
		    cu.cuMemcpyPeerAsync(d, ctx, d + 128, NULL, 64, s), CUDA_ERROR_INVALID_CONTEXT);
	n += expect("prefetch of non-managed memory", cu.cuMemPrefetchAsync(d, 64, dev, 0, s),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("prefetch to no device", cu.cuMemPrefetchAsync(d, 64, bad, 0, s),
		    CUDA_ERROR_INVALID_DEVICE);
	n += expect("write value misaligned", cu.cuStreamWriteValue32(s, d + 2, 1, 0),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("write value with unknown flags", cu.cuStreamWriteValue32(s, d, 1, 0x10),
		    CUDA_ERROR_INVALID_VALUE);
	n += expect("wait value with unknown flags", cu.cuStreamWaitValue32(s, d, 1, 0x10),
		    CUDA_ERROR_INVALID_VALUE);
	{
		CUstreamBatchMemOpParams op[2] = { 0 };

		op[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
		op[0].writeValue.address = d + 64;
		op[0].writeValue.value = 7;
		op[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
		op[1].writeValue.address = d + 2;
		n += expect("batch with a misaligned write", cu.cuStreamBatchMemOp(s, 2, op, 0),
			    CUDA_ERROR_INVALID_VALUE);
		op[1].writeValue.operation = 99;
		n += expect("batch with an unknown operation",
			    cu.cuStreamBatchMemOp(s, 2, op, 0), CUDA_ERROR_INVALID_VALUE);
		n += expect("batch with flags", cu.cuStreamBatchMemOp(s, 1, op, 1),
			    CUDA_ERROR_INVALID_VALUE);
	}
#if CUDA_VERSION >= 13050
	n += errors_fabric(s, d);
#endif
	rc = cu.cuStreamSynchronize(s);
	if (!rc)	/* the bad batches queued nothing, their good write either */
		n += expect("a bad batch writes nothing", check_word(d + 64, 7),
			    CUDA_ERROR_ILLEGAL_ADDRESS);
	cu.cuMemFree(d);
	if (!rc)
		n += engine_errors_more(ctx, s);
	return rc ? rc : n ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

