// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation paths, each charged before the real call and rolled back if
 * it fails:
 *
 * - cuMemAlloc(_v2), cuMemAllocManaged: the size rounded up to a 4 KiB page
 *   (the driver's page; managed memory is charged whole, as if resident);
 * - cuMemAllocPitch(_v2): before the call, WidthInBytes rounded up to 512
 *   times Height (an estimate of the driver's pitch); after it, the charge
 *   is corrected to the returned pitch times Height (more charged, or the
 *   difference given back; if the extra is refused the allocation is
 *   freed and the call fails with CUDA_ERROR_OUT_OF_MEMORY);
 * - cuMemAllocAsync, cuMemAllocFromPoolAsync (and _ptsz): by what the pool
 *   reserves, its growth charged before it is kept (poolcharge.c). The GPU
 *   is the stream's device for cuMemAllocAsync (streamdev.c: no current
 *   context is needed), the pool's location for cuMemAllocFromPoolAsync
 *   (pools.c: a host pool is not charged).
 *
 * Allocations of contexts-bound kinds (cuMemAlloc, pitch, managed) are
 * also released when their context is destroyed (ctx.c); stream-ordered
 * ones outlive contexts, as in the driver.
 */
#include "account.h"
#include "capture.h"
#include "poolcharge.h"
#include "hooks.h"
#include "ptrmap.h"
#include "register.h"
#include "nest.h"

static CUresult alloc_dev(CUresult (*real)(CUdeviceptr *, size_t), CUdeviceptr *dptr,
			  size_t bytesize, uint64_t charge, int ctx_bound)
{
	struct vgpu_tx tx;
	CUcontext ctx;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_tx_begin_cur(&tx, charge, &ctx);
	if (rc)
		return rc;
	rc = real(dptr, bytesize);
	if (rc || !dptr) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	libvgpu_tx_commit(&tx, VGPU_K_MEM, (uint64_t)*dptr, ctx_bound ? ctx : NULL);
	return rc;
}

VGPU_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	VGPU_PASS_NESTED(cuMemAlloc_v2, (dptr, bytesize));
	return alloc_dev(REAL(cuMemAlloc_v2), dptr, bytesize, VGPU_ROUND(bytesize, VGPU_PAGE), 1);
}

VGPU_EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	VGPU_PASS_NESTED(cuMemAlloc, (dptr, bytesize));
	vgpu_pfn_cuMemAlloc real = REAL(cuMemAlloc);
	struct vgpu_tx tx;
	CUcontext ctx;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_tx_begin_cur(&tx, VGPU_ROUND(bytesize, VGPU_PAGE), &ctx);
	if (rc)
		return rc;
	rc = real(dptr, bytesize);
	if (rc || !dptr) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	libvgpu_tx_commit(&tx, VGPU_K_MEM, (uint64_t)*dptr, ctx);
	return rc;
}

/* Pitch: estimate first, correct to the real pitch after. */
static uint64_t pitch_estimate(uint64_t width, uint64_t height)
{
	return VGPU_ROUND(VGPU_ROUND(width, 512) * height, VGPU_PAGE);
}

static CUresult pitch_fix(struct vgpu_tx *tx, uint64_t pitch, uint64_t height,
			  CUdeviceptr p, CUcontext ctx)
{
	if (libvgpu_tx_adjust(tx, VGPU_ROUND(pitch * height, VGPU_PAGE))) {
		vgpu_pfn_cuMemFree_v2 fr = REAL(cuMemFree_v2);

		if (fr)
			fr(p);
		libvgpu_tx_abort(tx);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	libvgpu_tx_commit(tx, VGPU_K_MEM, (uint64_t)p, ctx);
	return CUDA_SUCCESS;
}

VGPU_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
					size_t Height, unsigned int ElementSizeBytes)
{
	VGPU_PASS_NESTED(cuMemAllocPitch_v2, (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
	vgpu_pfn_cuMemAllocPitch_v2 real = REAL(cuMemAllocPitch_v2);
	struct vgpu_tx tx;
	CUcontext ctx;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_tx_begin_cur(&tx, pitch_estimate(WidthInBytes, Height), &ctx);
	if (rc)
		return rc;
	rc = real(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	if (rc || !dptr || !pPitch) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	return pitch_fix(&tx, *pPitch, Height, *dptr, ctx);
}

VGPU_EXPORT CUresult cuMemAllocPitch(CUdeviceptr_v1 *dptr, unsigned int *pPitch,
				     unsigned int WidthInBytes, unsigned int Height,
				     unsigned int ElementSizeBytes)
{
	VGPU_PASS_NESTED(cuMemAllocPitch, (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
	vgpu_pfn_cuMemAllocPitch real = REAL(cuMemAllocPitch);
	struct vgpu_tx tx;
	CUcontext ctx;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_tx_begin_cur(&tx, pitch_estimate(WidthInBytes, Height), &ctx);
	if (rc)
		return rc;
	rc = real(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	if (rc || !dptr || !pPitch) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	return pitch_fix(&tx, *pPitch, Height, *dptr, ctx);
}

VGPU_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	VGPU_PASS_NESTED(cuMemAllocManaged, (dptr, bytesize, flags));
	vgpu_pfn_cuMemAllocManaged real = REAL(cuMemAllocManaged);
	struct vgpu_tx tx;
	CUcontext ctx;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_tx_begin_cur(&tx, VGPU_ROUND(bytesize, VGPU_PAGE), &ctx);
	if (rc)
		return rc;
	rc = real(dptr, bytesize, flags);
	if (rc || !dptr) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	libvgpu_tx_commit(&tx, VGPU_K_MEM, (uint64_t)*dptr, ctx);
	return rc;
}

/*
 * Stream-ordered: charged by the pool's reservation (poolcharge.c), unless
 * the stream captures: then it is an allocation node, charged when its
 * graph is launched (graph.c).
 */
static CUresult alloc_async(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
			    CUstream h, void *real, int from_pool, int ptsz)
{
	if (real && vgpu_capture_live() && libvgpu_capture_stream(vgpu_capture_key(h, ptsz)))
		return from_pool ? ((vgpu_pfn_cuMemAllocFromPoolAsync)real)(dptr, bytesize, pool, h)
				 : ((vgpu_pfn_cuMemAllocAsync)real)(dptr, bytesize, h);
	return libvgpu_pool_alloc(dptr, bytesize, pool, h, real, from_pool);
}
VGPU_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	VGPU_PASS_NESTED(cuMemAllocAsync, (dptr, bytesize, hStream));
	return alloc_async(dptr, bytesize, NULL, hStream, (void *)REAL(cuMemAllocAsync), 0, 0);
}

VGPU_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
	VGPU_PASS_NESTED(cuMemAllocAsync_ptsz, (dptr, bytesize, hStream));
	return alloc_async(dptr, bytesize, NULL, hStream, (void *)REAL(cuMemAllocAsync_ptsz), 0, 1);
}

VGPU_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize,
					     CUmemoryPool pool, CUstream hStream)
{
	VGPU_PASS_NESTED(cuMemAllocFromPoolAsync, (dptr, bytesize, pool, hStream));
	return alloc_async(dptr, bytesize, pool, hStream,
			   (void *)REAL(cuMemAllocFromPoolAsync), 1, 0);
}

VGPU_EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
						  CUmemoryPool pool, CUstream hStream)
{
	VGPU_PASS_NESTED(cuMemAllocFromPoolAsync_ptsz, (dptr, bytesize, pool, hStream));
	return alloc_async(dptr, bytesize, pool, hStream,
			   (void *)REAL(cuMemAllocFromPoolAsync_ptsz), 1, 1);
}
