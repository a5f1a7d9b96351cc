// SPDX-License-Identifier: GPL-2.0
/*
 * More engine work through the compute gate, exactly as copy.c's copies
 * (engine.h): copies to and from CUDA arrays (cuMemcpyHtoA, cuMemcpyAtoH,
 * cuMemcpyDtoA, cuMemcpyAtoD, cuMemcpyAtoA: legacy, _v2, _v2_ptds;
 * cuMemcpyHtoAAsync, cuMemcpyAtoHAsync: legacy, _v2, _v2_ptsz), batches
 * of 3D copies (cuMemcpy3DBatchAsync: 12080 with failIdx and 13000, each
 * with _ptsz), batch prefetches (cuMemPrefetchBatchAsync,
 * cuMemDiscardAndPrefetchBatchAsync and their _ptsz forms), one 3D copy
 * with attributes (cuMemcpy3DWithAttributesAsync, 13020) and batches of
 * fabric copies (cuFabricCpyBatchAsync, 13050), each with _ptsz. A fabric
 * copy is gated on its stream's GPU, as every copy is, whatever its far
 * end (the reference requires an operand local to that GPU or the host).
 *
 * A synchronous array copy runs on the current context's GPU (its legacy
 * or, for _ptds, per-thread default stream), like copy.c's synchronous
 * copies; an array belongs to a context, but the driver copies in the
 * calling thread's. cuMemDiscardBatchAsync is not gated: it moves no
 * data (Documentation/simgpu.md says why).
 */
#include "engine.h"

ENGINE_SYNC(cuMemcpyHtoA, (CUarray dstArray, unsigned int dstOffset, const void *srcHost,
	unsigned int ByteCount),
       (dstArray, dstOffset, srcHost, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyAtoH, (void *dstHost, CUarray srcArray, unsigned int srcOffset,
	unsigned int ByteCount),
       (dstHost, srcArray, srcOffset, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyDtoA, (CUarray dstArray, unsigned int dstOffset, CUdeviceptr_v1 srcDevice,
	unsigned int ByteCount),
       (dstArray, dstOffset, srcDevice, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyAtoD, (CUdeviceptr_v1 dstDevice, CUarray srcArray, unsigned int srcOffset,
	unsigned int ByteCount),
       (dstDevice, srcArray, srcOffset, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyAtoA, (CUarray dstArray, unsigned int dstOffset, CUarray srcArray,
	unsigned int srcOffset, unsigned int ByteCount),
       (dstArray, dstOffset, srcArray, srcOffset, ByteCount), ST(NULL))

#define ARRAY_SYNC(sfx, st)							\
ENGINE_SYNC(cuMemcpyHtoA##sfx, (CUarray dstArray, size_t dstOffset, const void *srcHost,	\
	size_t ByteCount),							\
       (dstArray, dstOffset, srcHost, ByteCount), st(NULL))			\
ENGINE_SYNC(cuMemcpyAtoH##sfx, (void *dstHost, CUarray srcArray, size_t srcOffset,	\
	size_t ByteCount),							\
       (dstHost, srcArray, srcOffset, ByteCount), st(NULL))			\
ENGINE_SYNC(cuMemcpyDtoA##sfx, (CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,	\
	size_t ByteCount),							\
       (dstArray, dstOffset, srcDevice, ByteCount), st(NULL))			\
ENGINE_SYNC(cuMemcpyAtoD##sfx, (CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,	\
	size_t ByteCount),							\
       (dstDevice, srcArray, srcOffset, ByteCount), st(NULL))			\
ENGINE_SYNC(cuMemcpyAtoA##sfx, (CUarray dstArray, size_t dstOffset, CUarray srcArray,	\
	size_t srcOffset, size_t ByteCount),					\
       (dstArray, dstOffset, srcArray, srcOffset, ByteCount), st(NULL))

ARRAY_SYNC(_v2, ST)
ARRAY_SYNC(_v2_ptds, ST_PT)

ENGINE(cuMemcpyHtoAAsync, (CUarray dstArray, unsigned int dstOffset, const void *srcHost,
	unsigned int ByteCount, CUstream hStream),
       (dstArray, dstOffset, srcHost, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyAtoHAsync, (void *dstHost, CUarray srcArray, unsigned int srcOffset,
	unsigned int ByteCount, CUstream hStream),
       (dstHost, srcArray, srcOffset, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyHtoAAsync_v2, (CUarray dstArray, size_t dstOffset, const void *srcHost,
	size_t ByteCount, CUstream hStream),
       (dstArray, dstOffset, srcHost, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyAtoHAsync_v2, (void *dstHost, CUarray srcArray, size_t srcOffset,
	size_t ByteCount, CUstream hStream),
       (dstHost, srcArray, srcOffset, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyHtoAAsync_v2_ptsz, (CUarray dstArray, size_t dstOffset, const void *srcHost,
	size_t ByteCount, CUstream hStream),
       (dstArray, dstOffset, srcHost, ByteCount, hStream), ST_PT(hStream))
ENGINE(cuMemcpyAtoHAsync_v2_ptsz, (void *dstHost, CUarray srcArray, size_t srcOffset,
	size_t ByteCount, CUstream hStream),
       (dstHost, srcArray, srcOffset, ByteCount, hStream), ST_PT(hStream))

#if CUDA_VERSION >= 12080
ENGINE(cuMemcpy3DBatchAsync, (size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, size_t *failIdx,
	unsigned long long flags, CUstream hStream),
       (numOps, opList, failIdx, flags, hStream), ST(hStream))
ENGINE(cuMemcpy3DBatchAsync_ptsz, (size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,
	size_t *failIdx, unsigned long long flags, CUstream hStream),
       (numOps, opList, failIdx, flags, hStream), ST_PT(hStream))
#endif
#if CUDA_VERSION >= 13000
ENGINE(cuMemcpy3DBatchAsync_v2, (size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,
	unsigned long long flags, CUstream hStream),
       (numOps, opList, flags, hStream), ST(hStream))
ENGINE(cuMemcpy3DBatchAsync_v2_ptsz, (size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList,
	unsigned long long flags, CUstream hStream),
       (numOps, opList, flags, hStream), ST_PT(hStream))

#define PREFETCH_PARAMS								\
	(CUdeviceptr *dptrs, size_t *sizes, size_t count, CUmemLocation *prefetchLocs,	\
	 size_t *prefetchLocIdxs, size_t numPrefetchLocs, unsigned long long flags,	\
	 CUstream hStream)
#define PREFETCH_ARGS								\
	(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags, hStream)

ENGINE(cuMemPrefetchBatchAsync, PREFETCH_PARAMS, PREFETCH_ARGS, ST(hStream))
ENGINE(cuMemPrefetchBatchAsync_ptsz, PREFETCH_PARAMS, PREFETCH_ARGS, ST_PT(hStream))
ENGINE(cuMemDiscardAndPrefetchBatchAsync, PREFETCH_PARAMS, PREFETCH_ARGS, ST(hStream))
ENGINE(cuMemDiscardAndPrefetchBatchAsync_ptsz, PREFETCH_PARAMS, PREFETCH_ARGS, ST_PT(hStream))
#endif
#if CUDA_VERSION >= 13020
ENGINE(cuMemcpy3DWithAttributesAsync, (CUDA_MEMCPY3D_BATCH_OP *op, unsigned long long flags,
	CUstream hStream),
       (op, flags, hStream), ST(hStream))
ENGINE(cuMemcpy3DWithAttributesAsync_ptsz, (CUDA_MEMCPY3D_BATCH_OP *op,
	unsigned long long flags, CUstream hStream),
       (op, flags, hStream), ST_PT(hStream))
#endif
#if CUDA_VERSION >= 13050
ENGINE(cuFabricCpyBatchAsync, (size_t numOps, CUDA_FABRIC_COPY_BATCH_OP *opList,
	unsigned long long flags, CUstream hStream),
       (numOps, opList, flags, hStream), ST(hStream))
ENGINE(cuFabricCpyBatchAsync_ptsz, (size_t numOps, CUDA_FABRIC_COPY_BATCH_OP *opList,
	unsigned long long flags, CUstream hStream),
       (numOps, opList, flags, hStream), ST_PT(hStream))
#endif
