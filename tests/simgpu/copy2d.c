// SPDX-License-Identifier: GPL-2.0
/*
 * Pitched (2D, 3D) copies and memsets and peer copies (CUDA Driver API,
 * "Memory Management": cuMemcpy2D, cuMemcpy2DUnaligned, cuMemcpy2DAsync,
 * cuMemcpy3D(Async), cuMemcpy3DPeer(Async), cuMemsetD2D8/16/32(Async),
 * cuMemcpyPeer(Async)) in their legacy (v1), _v2 and per-thread default
 * stream forms. Each is one stream operation of Depth slices of Height
 * rows (copy.c moves them) holding the engine for all its bytes.
 * Operands are host, device or unified memory; CUDA arrays are not
 * modelled (CUDA_ERROR_NOT_SUPPORTED).
 */
#include <stdlib.h>

#include "simgpu.h"

/* One side of a pitched copy: height is rows per slice (3D only). */
struct sg_side {
	CUmemorytype type;
	const void *host;
	CUdeviceptr dev;
	size_t x, y, z, pitch, height;
};

/* Start of one side, after checking the extent of its rows and slices. */
static CUresult side(const struct sg_side *sd, size_t width, size_t height, size_t depth,
		     const void **out)
{
	uintptr_t p;

	if (width + sd->x > sd->pitch || width + sd->x < width)
		return CUDA_ERROR_INVALID_VALUE;	/* rows overlap */
	if (depth > 1 && sd->y + height > sd->height)
		return CUDA_ERROR_INVALID_VALUE;	/* slices overlap */
	switch (sd->type) {
	case CU_MEMORYTYPE_HOST:
		p = (uintptr_t)sd->host;
		break;
	case CU_MEMORYTYPE_DEVICE:
	case CU_MEMORYTYPE_UNIFIED:
		p = (uintptr_t)sd->dev;
		break;
	case CU_MEMORYTYPE_ARRAY:
		return CUDA_ERROR_NOT_SUPPORTED;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	p += (sd->z * sd->height + sd->y) * sd->pitch + sd->x;
	*out = (const void *)p;
	if (sd->type == CU_MEMORYTYPE_DEVICE)
		return simgpu_dev_ptr((CUdeviceptr)p,
				      ((depth - 1) * sd->height + height - 1) * sd->pitch + width);
	return CUDA_SUCCESS;
}

/* Width bytes x height rows x depth slices from src to dst, on stream h. */
static CUresult pitched(const struct sg_side *src, const struct sg_side *dst, size_t width,
			size_t height, size_t depth, CUstream h, int ptds, int sync)
{
	const void *s, *d;
	struct sg_op *op;
	CUresult rc;

	if (!width || !height || !depth)
		return CUDA_SUCCESS;
	rc = side(src, width, height, depth, &s);
	if (!rc)
		rc = side(dst, width, height, depth, &d);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_COPY);
	if (op) {
		op->dst = (void *)(uintptr_t)d;
		op->src = s;
		op->n = width;
		op->rows = height;
		op->dpitch = dst->pitch;
		op->spitch = src->pitch;
		op->slices = depth;
		op->dslice = dst->height * dst->pitch;
		op->sslice = src->height * src->pitch;
	}
	return simgpu_copy_issue(h, ptds, sync, op);
}

static CUresult copy2d(const CUDA_MEMCPY2D *c, CUstream h, int ptds, int sync)
{
	struct sg_side src, dst;

	SG_INIT_CHECK();
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	src = (struct sg_side){ c->srcMemoryType, c->srcHost, c->srcDevice,
				c->srcXInBytes, c->srcY, 0, c->srcPitch, 0 };
	dst = (struct sg_side){ c->dstMemoryType, c->dstHost, c->dstDevice,
				c->dstXInBytes, c->dstY, 0, c->dstPitch, 0 };
	return pitched(&src, &dst, c->WidthInBytes, c->Height, 1, h, ptds, sync);
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
{ SG_GATE(); return copy2d_v1(c, NULL, 1); }
SG_API CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D_v1 *c)
{ SG_GATE(); return copy2d_v1(c, NULL, 1); }
SG_API CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D_v1 *c, CUstream h)
{ SG_GATE(); return copy2d_v1(c, h, 0); }
SG_API CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *c)
{ SG_GATE(); return copy2d(c, NULL, 0, 1); }
SG_API CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *c)
{ SG_GATE(); return copy2d(c, NULL, 0, 1); }
SG_API CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *c, CUstream h)
{ SG_GATE(); return copy2d(c, h, 0, 0); }
SG_API CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *c)
{ SG_GATE(); return copy2d(c, NULL, 1, 1); }
SG_API CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *c)
{ SG_GATE(); return copy2d(c, NULL, 1, 1); }
SG_API CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *c, CUstream h)
{ SG_GATE(); return copy2d(c, h, 1, 0); }

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
{ SG_GATE(); return set2d(d, p, v, 1, w, ht, NULL, ptds, 1); }			\
SG_API CUresult cuMemsetD2D16##sfx(dptr_t d, size_t_ p, unsigned short v, size_t_ w, size_t_ ht) \
{ SG_GATE(); return set2d(d, p, v, 2, w, ht, NULL, ptds, 1); }			\
SG_API CUresult cuMemsetD2D32##sfx(dptr_t d, size_t_ p, unsigned int v, size_t_ w, size_t_ ht) \
{ SG_GATE(); return set2d(d, p, v, 4, w, ht, NULL, ptds, 1); }

SYNC_SETS2D(, 0, CUdeviceptr_v1, unsigned int)
SYNC_SETS2D(_v2, 0, CUdeviceptr, size_t)
SYNC_SETS2D(_v2_ptds, 1, CUdeviceptr, size_t)

#define ASYNC_SETS2D(sfx, ptds)						\
SG_API CUresult cuMemsetD2D8Async##sfx(CUdeviceptr d, size_t p, unsigned char v, size_t w, \
				       size_t ht, CUstream h)		\
{ SG_GATE(); return set2d(d, p, v, 1, w, ht, h, ptds, 0); }			\
SG_API CUresult cuMemsetD2D16Async##sfx(CUdeviceptr d, size_t p, unsigned short v, size_t w, \
					size_t ht, CUstream h)		\
{ SG_GATE(); return set2d(d, p, v, 2, w, ht, h, ptds, 0); }			\
SG_API CUresult cuMemsetD2D32Async##sfx(CUdeviceptr d, size_t p, unsigned int v, size_t w, \
					size_t ht, CUstream h)		\
{ SG_GATE(); return set2d(d, p, v, 4, w, ht, h, ptds, 0); }

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
{ SG_GATE(); return peer(d, dc, s, sc, n, NULL, 0, 1); }
SG_API CUresult cuMemcpyPeer_ptds(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
				  size_t n)
{ SG_GATE(); return peer(d, dc, s, sc, n, NULL, 1, 1); }
SG_API CUresult cuMemcpyPeerAsync(CUdeviceptr d, CUcontext dc, CUdeviceptr s, CUcontext sc,
				  size_t n, CUstream h)
{ SG_GATE(); return peer(d, dc, s, sc, n, h, 0, 0); }
SG_API CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr d, CUcontext dc, CUdeviceptr s,
				       CUcontext sc, size_t n, CUstream h)
{ SG_GATE(); return peer(d, dc, s, sc, n, h, 1, 0); }

/* 3D copies, all as CUDA_MEMCPY3D_PEER (peer: both contexts checked). */
static CUresult copy3d(const CUDA_MEMCPY3D_PEER *c, int peer, CUstream h, int ptds, int sync)
{
	struct sg_side src, dst;

	SG_INIT_CHECK();
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	if (peer && (!simgpu_ctx_valid(c->srcContext) || !simgpu_ctx_valid(c->dstContext)))
		return CUDA_ERROR_INVALID_CONTEXT;
	src = (struct sg_side){ c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes,
				c->srcY, c->srcZ, c->srcPitch, c->srcHeight };
	dst = (struct sg_side){ c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes,
				c->dstY, c->dstZ, c->dstPitch, c->dstHeight };
	return pitched(&src, &dst, c->WidthInBytes, c->Height, c->Depth, h, ptds, sync);
}

static CUresult copy3d_v2(const CUDA_MEMCPY3D *c, CUstream h, int ptds, int sync)
{
	CUDA_MEMCPY3D_PEER w;

	if (!c || c->reserved0 || c->reserved1)
		return CUDA_ERROR_INVALID_VALUE;	/* reserved: must be NULL */
	w = (CUDA_MEMCPY3D_PEER){
		.srcXInBytes = c->srcXInBytes, .srcY = c->srcY, .srcZ = c->srcZ,
		.srcMemoryType = c->srcMemoryType, .srcHost = c->srcHost,
		.srcDevice = c->srcDevice, .srcArray = c->srcArray,
		.srcPitch = c->srcPitch, .srcHeight = c->srcHeight,
		.dstXInBytes = c->dstXInBytes, .dstY = c->dstY, .dstZ = c->dstZ,
		.dstMemoryType = c->dstMemoryType, .dstHost = c->dstHost,
		.dstDevice = c->dstDevice, .dstArray = c->dstArray,
		.dstPitch = c->dstPitch, .dstHeight = c->dstHeight,
		.WidthInBytes = c->WidthInBytes, .Height = c->Height, .Depth = c->Depth,
	};
	return copy3d(&w, 0, h, ptds, sync);
}

static CUresult copy3d_v1(const CUDA_MEMCPY3D_v1 *c, CUstream h, int sync)
{
	CUDA_MEMCPY3D w;

	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	w = (CUDA_MEMCPY3D){
		.srcXInBytes = c->srcXInBytes, .srcY = c->srcY, .srcZ = c->srcZ,
		.srcMemoryType = c->srcMemoryType, .srcHost = c->srcHost,
		.srcDevice = c->srcDevice, .srcArray = c->srcArray,
		.reserved0 = c->reserved0, .srcPitch = c->srcPitch, .srcHeight = c->srcHeight,
		.dstXInBytes = c->dstXInBytes, .dstY = c->dstY, .dstZ = c->dstZ,
		.dstMemoryType = c->dstMemoryType, .dstHost = c->dstHost,
		.dstDevice = c->dstDevice, .dstArray = c->dstArray,
		.reserved1 = c->reserved1, .dstPitch = c->dstPitch, .dstHeight = c->dstHeight,
		.WidthInBytes = c->WidthInBytes, .Height = c->Height, .Depth = c->Depth,
	};
	return copy3d_v2(&w, h, 0, sync);
}

SG_API CUresult cuMemcpy3D(const CUDA_MEMCPY3D_v1 *c)
{ SG_GATE(); return copy3d_v1(c, NULL, 1); }
SG_API CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D_v1 *c, CUstream h)
{ SG_GATE(); return copy3d_v1(c, h, 0); }
SG_API CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *c)
{ SG_GATE(); return copy3d_v2(c, NULL, 0, 1); }
SG_API CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *c, CUstream h)
{ SG_GATE(); return copy3d_v2(c, h, 0, 0); }
SG_API CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *c)
{ SG_GATE(); return copy3d_v2(c, NULL, 1, 1); }
SG_API CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *c, CUstream h)
{ SG_GATE(); return copy3d_v2(c, h, 1, 0); }
SG_API CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *c)
{ SG_GATE(); return copy3d(c, 1, NULL, 0, 1); }
SG_API CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *c)
{ SG_GATE(); return copy3d(c, 1, NULL, 1, 1); }
SG_API CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *c, CUstream h)
{ SG_GATE(); return copy3d(c, 1, h, 0, 0); }
SG_API CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *c, CUstream h)
{ SG_GATE(); return copy3d(c, 1, h, 1, 0); }
