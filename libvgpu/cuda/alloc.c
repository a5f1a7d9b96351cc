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
#include "../policy/account.h"
#include "../state/capture.h"
#include "../policy/poolcharge.h"
#include "../access/hooks.h"
#include "../logic/ptrmap.h"
#include "../policy/register.h"
#include "../access/nest.h"

/*
 * The charge around a context-bound allocation, begun before the driver's
 * call and committed (or aborted) after it. The ABI versions of a function
 * differ only in the widths of the pointer and the sizes (cuMemAlloc's
 * CUdeviceptr_v1 and unsigned int, cuMemAlloc_v2's CUdeviceptr and size_t),
 * so each wrapper makes its own typed call between the two steps and the
 * charging has one body.
 */
struct alloc_call {
	struct vgpu_tx tx;
	CUcontext ctx;
};

static CUresult alloc_begin(struct alloc_call *c, int have_real, uint64_t charge)
{
	if (!have_real)
		return CUDA_ERROR_NOT_INITIALIZED;
	return libvgpu_tx_begin_cur(&c->tx, charge, &c->ctx);
}

/* rc: the driver's answer; p: the pointer it gave, read by the caller only
 * if got (it returned success and dptr was not NULL). */
static CUresult alloc_end(struct alloc_call *c, CUresult rc, int got, uint64_t p)
{
	if (rc || !got) {
		libvgpu_tx_abort(&c->tx);
		return rc;
	}
	libvgpu_tx_commit(&c->tx, VGPU_K_MEM, p, c->ctx);
	return rc;
}

VGPU_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	VGPU_PASS_NESTED(cuMemAlloc_v2, (dptr, bytesize));
	vgpu_pfn_cuMemAlloc_v2 real = REAL(cuMemAlloc_v2);
	struct alloc_call c;
	CUresult rc = alloc_begin(&c, real != NULL, VGPU_ROUND(bytesize, VGPU_PAGE));

	if (rc)
		return rc;
	rc = real(dptr, bytesize);
	return alloc_end(&c, rc, !rc && dptr, !rc && dptr ? (uint64_t)*dptr : 0);
}

VGPU_EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	VGPU_PASS_NESTED(cuMemAlloc, (dptr, bytesize));
	vgpu_pfn_cuMemAlloc real = REAL(cuMemAlloc);
	struct alloc_call c;
	CUresult rc = alloc_begin(&c, real != NULL, VGPU_ROUND(bytesize, VGPU_PAGE));

	if (rc)
		return rc;
	rc = real(dptr, bytesize);
	return alloc_end(&c, rc, !rc && dptr, !rc && dptr ? (uint64_t)*dptr : 0);
}

/* Pitch: estimate first, correct to the real pitch after. */
static uint64_t pitch_estimate(uint64_t width, uint64_t height)
{
	return VGPU_ROUND(VGPU_ROUND(width, 512) * height, VGPU_PAGE);
}

/* alloc_end's for a pitched allocation: got also needs the pitch (pPitch
 * not NULL), and the charge is corrected to pitch times height. */
static CUresult pitch_end(struct alloc_call *c, CUresult rc, int got, uint64_t p,
			  uint64_t pitch, uint64_t height)
{
	if (rc || !got) {
		libvgpu_tx_abort(&c->tx);
		return rc;
	}
	if (libvgpu_tx_adjust(&c->tx, VGPU_ROUND(pitch * height, VGPU_PAGE))) {
		vgpu_pfn_cuMemFree_v2 fr = REAL(cuMemFree_v2);

		if (fr)
			fr(p);
		libvgpu_tx_abort(&c->tx);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	libvgpu_tx_commit(&c->tx, VGPU_K_MEM, p, c->ctx);
	return CUDA_SUCCESS;
}

VGPU_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
					size_t Height, unsigned int ElementSizeBytes)
{
	VGPU_PASS_NESTED(cuMemAllocPitch_v2, (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
	vgpu_pfn_cuMemAllocPitch_v2 real = REAL(cuMemAllocPitch_v2);
	struct alloc_call c;
	CUresult rc = alloc_begin(&c, real != NULL, pitch_estimate(WidthInBytes, Height));
	int got;

	if (rc)
		return rc;
	rc = real(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	got = !rc && dptr && pPitch;
	return pitch_end(&c, rc, got, got ? (uint64_t)*dptr : 0, got ? *pPitch : 0, Height);
}

VGPU_EXPORT CUresult cuMemAllocPitch(CUdeviceptr_v1 *dptr, unsigned int *pPitch,
				     unsigned int WidthInBytes, unsigned int Height,
				     unsigned int ElementSizeBytes)
{
	VGPU_PASS_NESTED(cuMemAllocPitch, (dptr, pPitch, WidthInBytes, Height, ElementSizeBytes));
	vgpu_pfn_cuMemAllocPitch real = REAL(cuMemAllocPitch);
	struct alloc_call c;
	CUresult rc = alloc_begin(&c, real != NULL, pitch_estimate(WidthInBytes, Height));
	int got;

	if (rc)
		return rc;
	rc = real(dptr, pPitch, WidthInBytes, Height, ElementSizeBytes);
	got = !rc && dptr && pPitch;
	return pitch_end(&c, rc, got, got ? (uint64_t)*dptr : 0, got ? *pPitch : 0, Height);
}

VGPU_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	VGPU_PASS_NESTED(cuMemAllocManaged, (dptr, bytesize, flags));
	vgpu_pfn_cuMemAllocManaged real = REAL(cuMemAllocManaged);
	struct alloc_call c;
	CUresult rc = alloc_begin(&c, real != NULL, VGPU_ROUND(bytesize, VGPU_PAGE));

	if (rc)
		return rc;
	rc = real(dptr, bytesize, flags);
	return alloc_end(&c, rc, !rc && dptr, !rc && dptr ? (uint64_t)*dptr : 0);
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
