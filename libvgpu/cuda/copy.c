// SPDX-License-Identifier: GPL-2.0
/*
 * Copies and memsets pass the compute gate (gate.h) like kernel launches
 * (launch.c): the cuMemcpy* and cuMemset* families (1D, pitched 2D and 3D,
 * peer, batch), managed memory prefetch and the stream memory operations
 * (cuStreamWriteValue*, cuStreamWaitValue*, cuStreamBatchMemOp), in their
 * legacy (v1), _v2 and per-thread default stream (_ptds, _ptsz) forms, and
 * cuMemcpyWithAttributesAsync (CUDA 13.2), a copy with a batch copy's
 * attributes. A tenant's
 * share of a GPU is its time on the whole device, copy engines included:
 * a tenant that only copies waits at the closed gate like one that only
 * launches kernels, and its copies count in the page's launches, which
 * the module reads to tell a holder at work from an idle one. The cost of
 * a gated copy is a launch's: the same inlined fast path.
 *
 * The GPU of a copy is its stream's (launchgate.h: the current context's
 * for a default stream). Synchronous copies (no stream: the legacy or,
 * for _ptds, the per-thread default stream) also count the thread in the
 * page's bound while the driver copies (synced.h), as a synchronisation
 * does: the process is busy on the GPU though it makes no launch. The
 * wrappers' two shapes are engine.h's; copies with CUDA arrays, 3D batches
 * and batch prefetches are in copyarray.c.
 */
#include "engine.h"

ENGINE_SYNC(cuMemcpyHtoD, (CUdeviceptr_v1 dstDevice, const void *srcHost, unsigned int ByteCount),
       (dstDevice, srcHost, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyDtoH, (void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount),
       (dstHost, srcDevice, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyDtoD, (CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice,
	unsigned int ByteCount),
       (dstDevice, srcDevice, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyHtoD_v2, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount),
       (dstDevice, srcHost, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyDtoH_v2, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount),
       (dstHost, srcDevice, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyDtoD_v2, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount),
       (dstDevice, srcDevice, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyHtoD_v2_ptds, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount),
       (dstDevice, srcHost, ByteCount), ST_PT(NULL))
ENGINE_SYNC(cuMemcpyDtoH_v2_ptds, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount),
       (dstHost, srcDevice, ByteCount), ST_PT(NULL))
ENGINE_SYNC(cuMemcpyDtoD_v2_ptds, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount),
       (dstDevice, srcDevice, ByteCount), ST_PT(NULL))
ENGINE(cuMemcpyHtoDAsync, (CUdeviceptr_v1 dstDevice, const void *srcHost,
	unsigned int ByteCount, CUstream hStream),
       (dstDevice, srcHost, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyDtoHAsync, (void *dstHost, CUdeviceptr_v1 srcDevice, unsigned int ByteCount,
	CUstream hStream),
       (dstHost, srcDevice, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyDtoDAsync, (CUdeviceptr_v1 dstDevice, CUdeviceptr_v1 srcDevice,
	unsigned int ByteCount, CUstream hStream),
       (dstDevice, srcDevice, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyHtoDAsync_v2, (CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
	CUstream hStream),
       (dstDevice, srcHost, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyDtoHAsync_v2, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
	CUstream hStream),
       (dstHost, srcDevice, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyDtoDAsync_v2, (CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
	CUstream hStream),
       (dstDevice, srcDevice, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyHtoDAsync_v2_ptsz, (CUdeviceptr dstDevice, const void *srcHost,
	size_t ByteCount, CUstream hStream),
       (dstDevice, srcHost, ByteCount, hStream), ST_PT(hStream))
ENGINE(cuMemcpyDtoHAsync_v2_ptsz, (void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
	CUstream hStream),
       (dstHost, srcDevice, ByteCount, hStream), ST_PT(hStream))
ENGINE(cuMemcpyDtoDAsync_v2_ptsz, (CUdeviceptr dstDevice, CUdeviceptr srcDevice,
	size_t ByteCount, CUstream hStream),
       (dstDevice, srcDevice, ByteCount, hStream), ST_PT(hStream))
ENGINE_SYNC(cuMemcpy, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount),
       (dst, src, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpy_ptds, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount),
       (dst, src, ByteCount), ST_PT(NULL))
ENGINE(cuMemcpyAsync, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream),
       (dst, src, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyAsync_ptsz, (CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream),
       (dst, src, ByteCount, hStream), ST_PT(hStream))
ENGINE_SYNC(cuMemsetD8, (CUdeviceptr_v1 dstDevice, unsigned char uc, unsigned int N),
       (dstDevice, uc, N), ST(NULL))
ENGINE_SYNC(cuMemsetD16, (CUdeviceptr_v1 dstDevice, unsigned short us, unsigned int N),
       (dstDevice, us, N), ST(NULL))
ENGINE_SYNC(cuMemsetD32, (CUdeviceptr_v1 dstDevice, unsigned int ui, unsigned int N),
       (dstDevice, ui, N), ST(NULL))
ENGINE_SYNC(cuMemsetD8_v2, (CUdeviceptr dstDevice, unsigned char uc, size_t N),
       (dstDevice, uc, N), ST(NULL))
ENGINE_SYNC(cuMemsetD16_v2, (CUdeviceptr dstDevice, unsigned short us, size_t N),
       (dstDevice, us, N), ST(NULL))
ENGINE_SYNC(cuMemsetD32_v2, (CUdeviceptr dstDevice, unsigned int ui, size_t N),
       (dstDevice, ui, N), ST(NULL))
ENGINE_SYNC(cuMemsetD8_v2_ptds, (CUdeviceptr dstDevice, unsigned char uc, size_t N),
       (dstDevice, uc, N), ST_PT(NULL))
ENGINE_SYNC(cuMemsetD16_v2_ptds, (CUdeviceptr dstDevice, unsigned short us, size_t N),
       (dstDevice, us, N), ST_PT(NULL))
ENGINE_SYNC(cuMemsetD32_v2_ptds, (CUdeviceptr dstDevice, unsigned int ui, size_t N),
       (dstDevice, ui, N), ST_PT(NULL))
ENGINE(cuMemsetD8Async, (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream),
       (dstDevice, uc, N, hStream), ST(hStream))
ENGINE(cuMemsetD16Async, (CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream),
       (dstDevice, us, N, hStream), ST(hStream))
ENGINE(cuMemsetD32Async, (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream),
       (dstDevice, ui, N, hStream), ST(hStream))
ENGINE(cuMemsetD8Async_ptsz, (CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream),
       (dstDevice, uc, N, hStream), ST_PT(hStream))
ENGINE(cuMemsetD16Async_ptsz, (CUdeviceptr dstDevice, unsigned short us, size_t N,
	CUstream hStream),
       (dstDevice, us, N, hStream), ST_PT(hStream))
ENGINE(cuMemsetD32Async_ptsz, (CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream),
       (dstDevice, ui, N, hStream), ST_PT(hStream))

/* Pitched copies and memsets, peer copies, prefetch, stream memory ops */
ENGINE_SYNC(cuMemcpy2D, (const CUDA_MEMCPY2D_v1 *pCopy),
       (pCopy), ST(NULL))
ENGINE_SYNC(cuMemcpy2D_v2, (const CUDA_MEMCPY2D *pCopy),
       (pCopy), ST(NULL))
ENGINE_SYNC(cuMemcpy2D_v2_ptds, (const CUDA_MEMCPY2D *pCopy),
       (pCopy), ST_PT(NULL))
ENGINE_SYNC(cuMemcpy2DUnaligned, (const CUDA_MEMCPY2D_v1 *pCopy),
       (pCopy), ST(NULL))
ENGINE_SYNC(cuMemcpy2DUnaligned_v2, (const CUDA_MEMCPY2D *pCopy),
       (pCopy), ST(NULL))
ENGINE_SYNC(cuMemcpy2DUnaligned_v2_ptds, (const CUDA_MEMCPY2D *pCopy),
       (pCopy), ST_PT(NULL))
ENGINE(cuMemcpy2DAsync, (const CUDA_MEMCPY2D_v1 *pCopy, CUstream hStream),
       (pCopy, hStream), ST(hStream))
ENGINE(cuMemcpy2DAsync_v2, (const CUDA_MEMCPY2D *pCopy, CUstream hStream),
       (pCopy, hStream), ST(hStream))
ENGINE(cuMemcpy2DAsync_v2_ptsz, (const CUDA_MEMCPY2D *pCopy, CUstream hStream),
       (pCopy, hStream), ST_PT(hStream))
ENGINE_SYNC(cuMemcpy3D, (const CUDA_MEMCPY3D_v1 *pCopy),
       (pCopy), ST(NULL))
ENGINE_SYNC(cuMemcpy3D_v2, (const CUDA_MEMCPY3D *pCopy),
       (pCopy), ST(NULL))
ENGINE_SYNC(cuMemcpy3D_v2_ptds, (const CUDA_MEMCPY3D *pCopy),
       (pCopy), ST_PT(NULL))
ENGINE(cuMemcpy3DAsync, (const CUDA_MEMCPY3D_v1 *pCopy, CUstream hStream),
       (pCopy, hStream), ST(hStream))
ENGINE(cuMemcpy3DAsync_v2, (const CUDA_MEMCPY3D *pCopy, CUstream hStream),
       (pCopy, hStream), ST(hStream))
ENGINE(cuMemcpy3DAsync_v2_ptsz, (const CUDA_MEMCPY3D *pCopy, CUstream hStream),
       (pCopy, hStream), ST_PT(hStream))
ENGINE_SYNC(cuMemcpy3DPeer, (const CUDA_MEMCPY3D_PEER *pCopy),
       (pCopy), ST(NULL))
ENGINE_SYNC(cuMemcpy3DPeer_ptds, (const CUDA_MEMCPY3D_PEER *pCopy),
       (pCopy), ST_PT(NULL))
ENGINE(cuMemcpy3DPeerAsync, (const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream),
       (pCopy, hStream), ST(hStream))
ENGINE(cuMemcpy3DPeerAsync_ptsz, (const CUDA_MEMCPY3D_PEER *pCopy, CUstream hStream),
       (pCopy, hStream), ST_PT(hStream))
ENGINE_SYNC(cuMemcpyPeer, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
	CUcontext srcContext, size_t ByteCount),
       (dstDevice, dstContext, srcDevice, srcContext, ByteCount), ST(NULL))
ENGINE_SYNC(cuMemcpyPeer_ptds, (CUdeviceptr dstDevice, CUcontext dstContext,
	CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount),
       (dstDevice, dstContext, srcDevice, srcContext, ByteCount), ST_PT(NULL))
ENGINE(cuMemcpyPeerAsync, (CUdeviceptr dstDevice, CUcontext dstContext, CUdeviceptr srcDevice,
	CUcontext srcContext, size_t ByteCount, CUstream hStream),
       (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream), ST(hStream))
ENGINE(cuMemcpyPeerAsync_ptsz, (CUdeviceptr dstDevice, CUcontext dstContext,
	CUdeviceptr srcDevice, CUcontext srcContext, size_t ByteCount, CUstream hStream),
       (dstDevice, dstContext, srcDevice, srcContext, ByteCount, hStream), ST_PT(hStream))
#if CUDA_VERSION >= 12080
ENGINE(cuMemcpyBatchAsync, (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
	CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, size_t *failIdx,
	CUstream hStream),
       (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, hStream), ST(hStream))
ENGINE(cuMemcpyBatchAsync_ptsz, (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
	CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, size_t *failIdx,
	CUstream hStream),
       (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, failIdx, hStream), ST_PT(hStream))
#endif
#if CUDA_VERSION >= 13000
ENGINE(cuMemcpyBatchAsync_v2, (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
	CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream),
       (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, hStream), ST(hStream))
ENGINE(cuMemcpyBatchAsync_v2_ptsz, (CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
	CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream),
       (dsts, srcs, sizes, count, attrs, attrsIdxs, numAttrs, hStream), ST_PT(hStream))
#endif
#if CUDA_VERSION >= 13020
ENGINE(cuMemcpyWithAttributesAsync, (CUdeviceptr dst, CUdeviceptr src, size_t size,
	CUmemcpyAttributes *attr, CUstream hStream),
       (dst, src, size, attr, hStream), ST(hStream))
ENGINE(cuMemcpyWithAttributesAsync_ptsz, (CUdeviceptr dst, CUdeviceptr src, size_t size,
	CUmemcpyAttributes *attr, CUstream hStream),
       (dst, src, size, attr, hStream), ST_PT(hStream))
#endif
ENGINE_SYNC(cuMemsetD2D8, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned char uc,
	unsigned int Width, unsigned int Height),
       (dstDevice, dstPitch, uc, Width, Height), ST(NULL))
ENGINE_SYNC(cuMemsetD2D8_v2, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
	size_t Width, size_t Height),
       (dstDevice, dstPitch, uc, Width, Height), ST(NULL))
ENGINE_SYNC(cuMemsetD2D8_v2_ptds, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
	size_t Width, size_t Height),
       (dstDevice, dstPitch, uc, Width, Height), ST_PT(NULL))
ENGINE(cuMemsetD2D8Async, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
	size_t Width, size_t Height, CUstream hStream),
       (dstDevice, dstPitch, uc, Width, Height, hStream), ST(hStream))
ENGINE(cuMemsetD2D8Async_ptsz, (CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
	size_t Width, size_t Height, CUstream hStream),
       (dstDevice, dstPitch, uc, Width, Height, hStream), ST_PT(hStream))
ENGINE_SYNC(cuMemsetD2D16, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned short us,
	unsigned int Width, unsigned int Height),
       (dstDevice, dstPitch, us, Width, Height), ST(NULL))
ENGINE_SYNC(cuMemsetD2D16_v2, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
	size_t Width, size_t Height),
       (dstDevice, dstPitch, us, Width, Height), ST(NULL))
ENGINE_SYNC(cuMemsetD2D16_v2_ptds, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
	size_t Width, size_t Height),
       (dstDevice, dstPitch, us, Width, Height), ST_PT(NULL))
ENGINE(cuMemsetD2D16Async, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
	size_t Width, size_t Height, CUstream hStream),
       (dstDevice, dstPitch, us, Width, Height, hStream), ST(hStream))
ENGINE(cuMemsetD2D16Async_ptsz, (CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
	size_t Width, size_t Height, CUstream hStream),
       (dstDevice, dstPitch, us, Width, Height, hStream), ST_PT(hStream))
ENGINE_SYNC(cuMemsetD2D32, (CUdeviceptr_v1 dstDevice, unsigned int dstPitch, unsigned int ui,
	unsigned int Width, unsigned int Height),
       (dstDevice, dstPitch, ui, Width, Height), ST(NULL))
ENGINE_SYNC(cuMemsetD2D32_v2, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
	size_t Width, size_t Height),
       (dstDevice, dstPitch, ui, Width, Height), ST(NULL))
ENGINE_SYNC(cuMemsetD2D32_v2_ptds, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
	size_t Width, size_t Height),
       (dstDevice, dstPitch, ui, Width, Height), ST_PT(NULL))
ENGINE(cuMemsetD2D32Async, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
	size_t Width, size_t Height, CUstream hStream),
       (dstDevice, dstPitch, ui, Width, Height, hStream), ST(hStream))
ENGINE(cuMemsetD2D32Async_ptsz, (CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
	size_t Width, size_t Height, CUstream hStream),
       (dstDevice, dstPitch, ui, Width, Height, hStream), ST_PT(hStream))
ENGINE(cuMemPrefetchAsync, (CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
	CUstream hStream),
       (devPtr, count, dstDevice, hStream), ST(hStream))
ENGINE(cuMemPrefetchAsync_ptsz, (CUdeviceptr devPtr, size_t count, CUdevice dstDevice,
	CUstream hStream),
       (devPtr, count, dstDevice, hStream), ST_PT(hStream))
#if CUDA_VERSION >= 12020
ENGINE(cuMemPrefetchAsync_v2, (CUdeviceptr devPtr, size_t count, CUmemLocation location,
	unsigned int flags, CUstream hStream),
       (devPtr, count, location, flags, hStream), ST(hStream))
ENGINE(cuMemPrefetchAsync_v2_ptsz, (CUdeviceptr devPtr, size_t count, CUmemLocation location,
	unsigned int flags, CUstream hStream),
       (devPtr, count, location, flags, hStream), ST_PT(hStream))
#endif
ENGINE(cuStreamWriteValue32, (CUstream stream, CUdeviceptr addr, cuuint32_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST(stream))
ENGINE(cuStreamWriteValue32_ptsz, (CUstream stream, CUdeviceptr addr, cuuint32_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST_PT(stream))
#if CUDA_VERSION >= 11070
ENGINE(cuStreamWriteValue32_v2, (CUstream stream, CUdeviceptr addr, cuuint32_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST(stream))
ENGINE(cuStreamWriteValue32_v2_ptsz, (CUstream stream, CUdeviceptr addr, cuuint32_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST_PT(stream))
#endif
ENGINE(cuStreamWriteValue64, (CUstream stream, CUdeviceptr addr, cuuint64_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST(stream))
ENGINE(cuStreamWriteValue64_ptsz, (CUstream stream, CUdeviceptr addr, cuuint64_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST_PT(stream))
#if CUDA_VERSION >= 11070
ENGINE(cuStreamWriteValue64_v2, (CUstream stream, CUdeviceptr addr, cuuint64_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST(stream))
ENGINE(cuStreamWriteValue64_v2_ptsz, (CUstream stream, CUdeviceptr addr, cuuint64_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST_PT(stream))
#endif
ENGINE(cuStreamWaitValue32, (CUstream stream, CUdeviceptr addr, cuuint32_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST(stream))
ENGINE(cuStreamWaitValue32_ptsz, (CUstream stream, CUdeviceptr addr, cuuint32_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST_PT(stream))
#if CUDA_VERSION >= 11070
ENGINE(cuStreamWaitValue32_v2, (CUstream stream, CUdeviceptr addr, cuuint32_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST(stream))
ENGINE(cuStreamWaitValue32_v2_ptsz, (CUstream stream, CUdeviceptr addr, cuuint32_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST_PT(stream))
#endif
ENGINE(cuStreamWaitValue64, (CUstream stream, CUdeviceptr addr, cuuint64_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST(stream))
ENGINE(cuStreamWaitValue64_ptsz, (CUstream stream, CUdeviceptr addr, cuuint64_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST_PT(stream))
#if CUDA_VERSION >= 11070
ENGINE(cuStreamWaitValue64_v2, (CUstream stream, CUdeviceptr addr, cuuint64_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST(stream))
ENGINE(cuStreamWaitValue64_v2_ptsz, (CUstream stream, CUdeviceptr addr, cuuint64_t value,
	unsigned int flags),
       (stream, addr, value, flags), ST_PT(stream))
#endif
ENGINE(cuStreamBatchMemOp, (CUstream stream, unsigned int count,
	CUstreamBatchMemOpParams *paramArray, unsigned int flags),
       (stream, count, paramArray, flags), ST(stream))
ENGINE(cuStreamBatchMemOp_ptsz, (CUstream stream, unsigned int count,
	CUstreamBatchMemOpParams *paramArray, unsigned int flags),
       (stream, count, paramArray, flags), ST_PT(stream))
ENGINE(cuStreamBatchMemOp_v2, (CUstream stream, unsigned int count,
	CUstreamBatchMemOpParams *paramArray, unsigned int flags),
       (stream, count, paramArray, flags), ST(stream))
ENGINE(cuStreamBatchMemOp_v2_ptsz, (CUstream stream, unsigned int count,
	CUstreamBatchMemOpParams *paramArray, unsigned int flags),
       (stream, count, paramArray, flags), ST_PT(stream))
