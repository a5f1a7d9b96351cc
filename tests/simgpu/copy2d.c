// SPDX-License-Identifier: GPL-2.0
/*
 * Pitched (2D) copies and memsets and peer copies (CUDA Driver API,
 * "Memory Management": cuMemcpy2D, cuMemcpy2DUnaligned, cuMemcpy2DAsync,
 * cuMemsetD2D8/16/32(Async), cuMemcpyPeer(Async)) in their legacy (v1),
 * _v2 and per-thread default stream forms. Each is one stream operation of
 * Height rows (copy.c moves them) holding the engine for all its bytes.
 * Operands are host, device or unified memory; CUDA arrays are not
 * modelled (CUDA_ERROR_NOT_SUPPORTED).
 */
#include <stdlib.h>

#include "simgpu.h"

/* Start of one side of a 2D copy, after checking its rows' extent. */
static CUresult side(CUmemorytype type, const void *host, CUdeviceptr dev,
		     size_t x, size_t y, size_t pitch, size_t width, size_t height,
		     const void **out)
{
	uintptr_t p;

	if (width + x > pitch || width + x < width)
		return CUDA_ERROR_INVALID_VALUE;	/* rows overlap */
	switch (type) {
	case CU_MEMORYTYPE_HOST:
		p = (uintptr_t)host;
		break;
	case CU_MEMORYTYPE_DEVICE:
	case CU_MEMORYTYPE_UNIFIED:
		p = (uintptr_t)dev;
		break;
	case CU_MEMORYTYPE_ARRAY:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	p += y * pitch + x;
	*out = (const void *)p;
	if (type == CU_MEMORYTYPE_DEVICE)
		return simgpu_dev_ptr((CUdeviceptr)p, (height - 1) * pitch + width);
	return CUDA_SUCCESS;
}

static CUresult copy2d(const CUDA_MEMCPY2D *c, CUstream h, int ptds, int sync)
{
	const void *src, *dst;
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	if (!c->WidthInBytes || !c->Height)
		return CUDA_SUCCESS;
	rc = side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY,
		  c->srcPitch, c->WidthInBytes, c->Height, &src);
	if (!rc)
		rc = side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes, c->dstY,
			  c->dstPitch, c->WidthInBytes, c->Height, &dst);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_COPY);
	if (op) {
		op->dst = (void *)(uintptr_t)dst;
		op->src = src;
		op->n = c->WidthInBytes;
		op->rows = c->Height;
		op->dpitch = c->dstPitch;
		op->spitch = c->srcPitch;
	}
	return simgpu_copy_issue(h, ptds, sync, op);
}

static CUresult copy2d_v1(const CUDA_MEMCPY2D_v1 *c, CUstream h, int sync)
{
	CUDA_MEMCPY2D w;

	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	w = (CUDA_MEMCPY2D){
		.srcXInBytes = c->srcXInBytes, .srcY = c->srcY,
		.srcMemoryType = c->srcMemoryType, .srcHost = c->srcHost,
		.srcDevice = c->srcDevice, .srcArray = c->srcArray, .srcPitch = c->srcPitch,
		.dstXInBytes = c->dstXInBytes, .dstY = c->dstY,
		.dstMemoryType = c->dstMemoryType, .dstHost = c->dstHost,
		.dstDevice = c->dstDevice, .dstArray = c->dstArray, .dstPitch = c->dstPitch,
		.WidthInBytes = c->WidthInBytes, .Height = c->Height,
	};
	return copy2d(&w, h, 0, sync);
}

SG_API CUresult cuMemcpy2D(const CUDA_MEMCPY2D_v1 *c)
{ return copy2d_v1(c, NULL, 1); }
SG_API CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D_v1 *c)
{ return copy2d_v1(c, NULL, 1); }
SG_API CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D_v1 *c, CUstream h)
{ return copy2d_v1(c, h, 0); }
SG_API CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *c)
{ return copy2d(c, NULL, 0, 1); }
SG_API CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *c)
{ return copy2d(c, NULL, 0, 1); }
SG_API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream h)
{ return copy2d(c, h, 0, 0); }
SG_API CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *c)
{ return copy2d(c, NULL, 1, 1); }
SG_API CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *c)
{ return copy2d(c, NULL, 1, 1); }
SG_API CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *c, CUstream h)
{ return copy2d(c, h, 1, 0); }

/* cuMemsetD2D*: Width elements in each of Height rows dstPitch apart. */
static CUresult set2d(CUdeviceptr dst, size_t pitch, uint32_t val, int elsize,
		      size_t width, size_t height, CUstream h, int ptds, int sync)
{
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	if (!width || !height)
		return CUDA_SUCCESS;
	if ((uintptr_t)dst % (size_t)elsize || width * (size_t)elsize > pitch)
		return CUDA_ERROR_INVALID_VALUE;
	rc = simgpu_dev_ptr(dst, (height - 1) * pitch + width * (size_t)elsize);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_SET);
	if (op) {
		op->dst = (void *)(uintptr_t)dst;
		op->val = val;
		op->elsize = elsize;
		op->n = width;
		op->rows = height;
		op->dpitch = pitch;
	}
	return simgpu_copy_issue(h, ptds, sync, op);
}

#define SYNC_SETS2D(sfx, ptds, dptr_t, size_t_)				\
SG_API CUresult cuMemsetD2D8##sfx(dptr_t d, size_t_ p, unsigned char v, size_t_ w, size_t_ ht) \
{ return set2d(d, p, v, 1, w, ht, NULL, ptds, 1); }			\
SG_API CUresult cuMemsetD2D16##sfx(dptr_t d, size_t_ p, unsigned short v, size_t_ w, size_t_ ht) \
{ return set2d(d, p, v, 2, w, ht, NULL, ptds, 1); }			\
SG_API CUresult cuMemsetD2D32##sfx(dptr_t d, size_t_ p, unsigned int v, size_t_ w, size_t_ ht) \
{ return set2d(d, p, v, 4, w, ht, NULL, ptds, 1); }

SYNC_SETS2D(, 0, CUdeviceptr_v1, unsigned int)
SYNC_SETS2D(_v2, 0, CUdeviceptr, size_t)
SYNC_SETS2D(_v2_ptds, 1, CUdeviceptr, size_t)

#define ASYNC_SETS2D(sfx, ptds)						\
SG_API CUresult cuMemsetD2D8Async##sfx(CUdeviceptr d, size_t p, unsigned char v, size_t w, \
				       size_t ht, CUstream h)		\
{ return set2d(d, p, v, 1, w, ht, h, ptds, 0); }			\
SG_API CUresult cuMemsetD2D16Async##sfx(CUdeviceptr d, size_t p, unsigned short v, size_t w, \
					size_t ht, CUstream h)		\
{ return set2d(d, p, v, 2, w, ht, h, ptds, 0); }			\
SG_API CUresult cuMemsetD2D32Async##sfx(CUdeviceptr d, size_t p, unsigned int v, size_t w, \
					size_t ht, CUstream h)		\
{ return set2d(d, p, v, 4, w, ht, h, ptds, 0); }

ASYNC_SETS2D(, 0)
ASYNC_SETS2D(_ptsz, 1)

/*
 * Peer copies: both contexts must be valid; the bytes move in the calling
 * context's stream (simgpu's GPUs share one host memory, so a peer copy
 * is a device-to-device copy).
 */
static CUresult peer(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
		     size_t n, CUstream h, int ptds, int sync)
{
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	if (!simgpu_ctx_valid(dctx) || !simgpu_ctx_valid(sctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!n)
		return CUDA_SUCCESS;
	rc = simgpu_dev_ptr(dst, n);
	if (!rc)
		rc = simgpu_dev_ptr(src, n);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_COPY);
	if (op) {
		op->dst = (void *)(uintptr_t)dst;
		op->src = (const void *)(uintptr_t)src;
		op->n = n;
	}
	return simgpu_copy_issue(h, ptds, sync, op);
}

SG_API CUresult cuMemcpyPeer(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc, size_t n)
{ return peer(d, dc, s, sc, n, NULL, 0, 1); }
SG_API CUresult cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
				  size_t n)
{ return peer(d, dc, s, sc, n, NULL, 1, 1); }
SG_API CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
				  size_t n, CUstream h)
{ return peer(d, dc, s, sc, n, h, 0, 0); }
SG_API CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s,
				       CUcontext sc, size_t n, CUstream h)
{ return peer(d, dc, s, sc, n, h, 1, 0); }
