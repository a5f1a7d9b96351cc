// SPDX-License-Identifier: GPL-2.0
/*
 * engine-client: work on a GPU's engines other than kernels launched on
 * the current context's default stream, for the compute gate's tests
 * (tests/vm/suites/68-engines.sh, 82-engines-share.sh). Loads libcuda.so.1
 * as NVIDIA's runtime does (cuload.c). One command, its result on one
 * line ("CMD ok" or "CMD CUDA_ERROR_..."); exit 0 on success, 1 on a
 * failure, 2 on a usage error, 3 when cuInit failed.
 *
 *   xstream NS COUNT DEV   COUNT simgpu_spin kernels of NS ns launched as
 *                          CUkernels on a stream of device DEV with no
 *                          context current, then synchronise
 *   copy BYTES COUNT       COUNT device-to-device copies of BYTES on a
 *                          stream of device 0, then synchronise
 *   work KIND BYTES COUNT  COUNT operations of KIND on a stream of device
 *                          0 ("[started]" on stderr once it has that
 *                          stream), then synchronise and check what they
 *                          did:
 *                          2d (cuMemcpy2DAsync of 4 rows of BYTES/4 bytes),
 *                          3d (cuMemcpy3DAsync of 2 slices of 2 such rows),
 *                          batch (cuMemcpyBatchAsync: 2 copies of BYTES/2),
 *                          peer (cuMemcpyPeerAsync of BYTES from device
 *                          0's memory to device 1's), memset2d
 *                          (cuMemsetD2D32Async of 4 rows), prefetch
 *                          (cuMemPrefetchAsync of BYTES managed memory to
 *                          device 0), writevalue (cuStreamWriteValue32;
 *                          BYTES unused), batchmemop (cuStreamBatchMemOp:
 *                          a 32-bit write, a barrier, a 64-bit write)
 *   waitvalue NS COUNT     a stream waits (cuStreamWaitValue32) for a word
 *                          the host sets after NS ns, then writes COUNT
 *                          into another word; fails if the write came
 *                          before the wait was released
 *   errors 0 0             bad arguments to those calls get the errors the
 *                          Driver API reference names; prints each
 *                          mismatch
 *   pingpong NS COUNT      one thread, devices 0 and 1: per round, device
 *                          0's stream waits for device 1's last event,
 *                          runs a host function that waits until the
 *                          thread has launched the round's kernel on
 *                          device 1, then an NS kernel; device 1's stream
 *                          runs an NS kernel and records its event. The
 *                          thread makes device 0's work runnable only
 *                          after it launched on device 1: a library that
 *                          waits for device 0's work first never ends
 *                          (a host function waiting 60 s fails the run).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuload.h"

static const char image[] = "simgpu test image: any bytes will do";

/* The round device 1 has been launched for (pingpong). */
static unsigned long long launched_b;
static int hostfn_late;

static CUresult spin_kernel(CUkernel *k)
{
	CUlibrary lib;
	CUresult rc = cu.cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);

	return rc ? rc : cu.cuLibraryGetKernel(k, lib, "simgpu_spin");
}

static CUresult launch(CUkernel k, uint64_t ns, CUstream s)
{
	void *params[] = { &ns };

	return cu.cuLaunchKernel((CUfunction)(void *)k, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}

/* A stream of device dev's primary context, which is left not current. */
static CUresult dev_stream(int dev, CUcontext *ctx, CUstream *s)
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

static CUresult cmd_xstream(uint64_t ns, uint64_t count, int dev)
{
	CUcontext c;
	CUstream s;
	CUkernel k;
	CUresult rc = cu.cuCtxSetCurrent(NULL);

	if (!rc)
		rc = dev_stream(dev, &c, &s);
	if (!rc)
		rc = spin_kernel(&k);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = launch(k, ns, s);
	return rc ? rc : cu.cuStreamSynchronize(s);
}

static CUresult cmd_copy(uint64_t bytes, uint64_t count)
{
	CUdeviceptr a = 0, b = 0;
	CUcontext c;
	CUstream s;
	CUresult rc = dev_stream(0, &c, &s);

	if (!rc)
		rc = cu.cuCtxSetCurrent(c);
	if (!rc)
		rc = cu.cuMemAlloc(&a, bytes);
	if (!rc)
		rc = cu.cuMemAlloc(&b, bytes);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = cu.cuMemcpyDtoDAsync(i & 1 ? a : b, i & 1 ? b : a, bytes, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (a)
		cu.cuMemFree(a);
	if (b)
		cu.cuMemFree(b);
	return rc;
}

/* Device 0's context current, and a stream of it. */
static CUresult dev0(CUcontext *c, CUstream *s)
{
	CUresult rc = dev_stream(0, c, s);

	return rc ? rc : cu.cuCtxSetCurrent(*c);
}

static CUresult check_word(CUdeviceptr p, uint32_t want)
{
	uint32_t got = 0;
	CUresult rc = cu.cuMemcpyDtoH(&got, p, sizeof(got));

	return rc ? rc : got == want ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_ADDRESS;
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
	rc = cu.cuMemAlloc(&a, 4 * pitch);
	if (!rc)
		rc = cu.cuMemAlloc(&b, 4 * pitch);
	if (!rc)
		rc = cu.cuMemsetD8(a, 0x5a, 4 * pitch);
	if (!rc)
		rc = cu.cuMemsetD8(b, 0, 4 * pitch);
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
	CUresult rc = half ? cu.cuMemAlloc(&a, 2 * half) : CUDA_ERROR_INVALID_VALUE;

	if (!rc)
		rc = cu.cuMemAlloc(&b, 2 * half);
	if (!rc)
		rc = cu.cuMemsetD8(a, 0x5a, 2 * half);
	if (!rc)
		rc = cu.cuMemsetD8(b, 0, 2 * half);
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

static CUresult work_peer(CUstream s, CUcontext c0, uint64_t bytes, uint64_t count)
{
	CUdeviceptr a = 0, b = 0;
	CUcontext c1;
	CUstream s1;
	CUresult rc = dev_stream(1, &c1, &s1);

	if (!rc)
		rc = cu.cuCtxSetCurrent(c1);
	if (!rc)
		rc = cu.cuMemAlloc(&b, bytes);
	if (!rc)
		rc = cu.cuCtxSetCurrent(c0);
	if (!rc)
		rc = cu.cuMemAlloc(&a, bytes);
	if (!rc)
		rc = cu.cuMemsetD8(a, 0x5a, bytes);
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

static CUresult work_write(CUstream s, uint64_t count)
{
	CUdeviceptr w = 0;
	CUresult rc = cu.cuMemAlloc(&w, 4);

	if (!rc)
		rc = cu.cuMemsetD8(w, 0, 4);
	for (uint64_t i = 1; i <= count && !rc; i++)
		rc = cu.cuStreamWriteValue32(s, w, (cuuint32_t)i, 0);
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

static CUresult cmd_work(const char *kind, uint64_t bytes, uint64_t count)
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
	fprintf(stderr, "engine-client: work %s: not 2d, 3d, peer, memset2d, prefetch or "
		"writevalue, batch, batchmemop\n", kind);
	exit(2);
}

/* The stream must not pass its wait before the host sets the word. */
static CUresult cmd_waitvalue(uint64_t ns, uint64_t count)
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

static CUresult cmd_errors(void)
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
	rc = cu.cuStreamSynchronize(s);
	if (!rc)	/* the bad batches queued nothing, their good write either */
		n += expect("a bad batch writes nothing", check_word(d + 64, 7),
			    CUDA_ERROR_ILLEGAL_ADDRESS);
	cu.cuMemFree(d);
	return rc ? rc : n ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

/* On device 0's stream: wait until round (arg) is launched on device 1. */
static void CUDA_CB wait_round(void *arg)
{
	unsigned long long round = (unsigned long long)(uintptr_t)arg;
	struct timespec nap = { 0, 200000 };

	for (int i = 0; i < 300000; i++) {	/* 60 s */
		if (__atomic_load_n(&launched_b, __ATOMIC_ACQUIRE) >= round)
			return;
		nanosleep(&nap, NULL);
	}
	__atomic_store_n(&hostfn_late, 1, __ATOMIC_RELAXED);
}

static CUresult cmd_pingpong(uint64_t ns, uint64_t count)
{
	CUcontext ca, cb;
	CUstream sa, sb;
	CUevent eb = NULL;
	CUkernel k;
	CUresult rc = dev_stream(0, &ca, &sa);

	if (!rc)
		rc = dev_stream(1, &cb, &sb);
	if (!rc)
		rc = spin_kernel(&k);
	if (!rc && !(rc = cu.cuCtxSetCurrent(cb)))
		rc = cu.cuEventCreate(&eb, CU_EVENT_DISABLE_TIMING);
	for (uint64_t i = 1; i <= count && !rc; i++) {
		rc = cu.cuCtxSetCurrent(ca);
		if (!rc && i > 1)
			rc = cu.cuStreamWaitEvent(sa, eb, 0);
		if (!rc)
			rc = cu.cuLaunchHostFunc(sa, wait_round, (void *)(uintptr_t)i);
		if (!rc)
			rc = launch(k, ns, sa);
		if (!rc)
			rc = cu.cuCtxSetCurrent(cb);
		if (!rc)
			rc = launch(k, ns, sb);
		if (!rc)
			rc = cu.cuEventRecord(eb, sb);
		__atomic_store_n(&launched_b, i, __ATOMIC_RELEASE);
	}
	if (!rc)
		rc = cu.cuStreamSynchronize(sa);
	if (!rc)
		rc = cu.cuStreamSynchronize(sb);
	if (!rc && __atomic_load_n(&hostfn_late, __ATOMIC_RELAXED))
		rc = CUDA_ERROR_LAUNCH_TIMEOUT;
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: engine-client xstream NS COUNT DEV | copy BYTES COUNT | "
		"pingpong NS COUNT | work KIND BYTES COUNT | waitvalue NS COUNT | errors 0 0\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t a, b, d = 0;
	CUresult rc;

	int work = argc > 1 && !strcmp(argv[1], "work");

	/* work KIND BYTES COUNT: the numbers one further on */
	if (argc < 4 + work || cu_size_arg(argv[2 + work], &a) ||
	    cu_size_arg(argv[3 + work], &b) || (!work && argc > 4 && cu_size_arg(argv[4], &d)))
		usage();
	if (cu_load(CU_GET_PROC_ADDRESS_LEGACY_STREAM))
		return 3;
	rc = cu.cuInit(0);
	if (rc) {
		printf("init %s\n", cu_err(rc));
		return 3;
	}
	if (!strcmp(argv[1], "xstream") && argc == 5)
		rc = cmd_xstream(a, b, (int)d);
	else if (!strcmp(argv[1], "copy") && argc == 4)
		rc = cmd_copy(a, b);
	else if (work && argc == 5)
		rc = cmd_work(argv[2], a, b);
	else if (!strcmp(argv[1], "errors") && argc == 4)
		rc = cmd_errors();
	else if (!strcmp(argv[1], "waitvalue") && argc == 4)
		rc = cmd_waitvalue(a, b);
	else if (!strcmp(argv[1], "pingpong") && argc == 4)
		rc = cmd_pingpong(a, b);
	else
		usage();
	printf("%s%s%s %s\n", argv[1], work ? " " : "", work ? argv[2] : "",
	       rc ? cu_err(rc) : "ok");
	return rc ? 1 : 0;
}
