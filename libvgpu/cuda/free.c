// SPDX-License-Identifier: GPL-2.0
/*
 * Free paths of device memory (cuMemAlloc, pitch, managed, stream-ordered
 * and graph allocations share one key space: the device pointer). The
 * entry is taken from the map before the real free, so that an address
 * the driver hands out again at once is never confused with the freed
 * one; the charge is given back once the free succeeded, or the entry put
 * back if it failed. cuMemFreeAsync gives the charge back when it is
 * queued, not when the stream reaches it.
 */
#include "../policy/account.h"
#include "../state/capture.h"
#include "../access/hooks.h"
#include "../logic/ptrmap.h"
#include "../access/nest.h"

static CUresult free_ptr(CUresult (*real)(CUdeviceptr), CUdeviceptr p)
{
	struct vgpu_alloc a;
	int taken;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	taken = p ? libvgpu_take(VGPU_K_MEM, (uint64_t)p, &a) : 0;
	rc = real(p);
	libvgpu_free_done(taken, &a, rc);
	return rc;
}

VGPU_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	VGPU_PASS_NESTED(cuMemFree_v2, (dptr));
	return free_ptr(REAL(cuMemFree_v2), dptr);
}

VGPU_EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
	VGPU_PASS_NESTED(cuMemFree, (dptr));
	vgpu_pfn_cuMemFree real = REAL(cuMemFree);
	struct vgpu_alloc a;
	int taken;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	taken = dptr ? libvgpu_take(VGPU_K_MEM, (uint64_t)dptr, &a) : 0;
	rc = real(dptr);
	libvgpu_free_done(taken, &a, rc);
	return rc;
}

static CUresult free_async(CUdeviceptr dptr, CUstream h, vgpu_pfn_cuMemFreeAsync real)
{
	struct vgpu_alloc a;
	int taken;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	/* Captured: a free node, which gives the charge back when its graph
	 * is launched (graph.c). */
	if (vgpu_capture_live() &&
	    libvgpu_capture_stream(vgpu_capture_key(h, real == REAL(cuMemFreeAsync_ptsz))))
		return real(dptr, h);
	taken = dptr ? libvgpu_take(VGPU_K_MEM, (uint64_t)dptr, &a) : 0;
	rc = real(dptr, h);
	libvgpu_free_done(taken, &a, rc);
	return rc;
}

VGPU_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
	VGPU_PASS_NESTED(cuMemFreeAsync, (dptr, hStream));
	return free_async(dptr, hStream, REAL(cuMemFreeAsync));
}

VGPU_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
	VGPU_PASS_NESTED(cuMemFreeAsync_ptsz, (dptr, hStream));
	return free_async(dptr, hStream, REAL(cuMemFreeAsync_ptsz));
}
