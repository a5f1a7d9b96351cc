// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual memory management: cuMemCreate charges its size (already a
 * multiple of the allocation granularity) to the GPU of prop->location
 * before the real call; cuMemRelease gives it back. Reserving, mapping,
 * unmapping and setting access take no memory and are not hooked.
 * Physical allocations are not bound to a context. Memory located on the
 * host (not a device) is not charged.
 */
#include "account.h"
#include "devmap.h"
#include "hooks.h"
#include "ptrmap.h"
#include "register.h"

VGPU_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
				 const CUmemAllocationProp *prop, unsigned long long flags)
{
	vgpu_pfn_cuMemCreate real = REAL(cuMemCreate);
	struct vgpu_tx tx;
	int gpu = VGPU_GPU_SKIP;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (prop && prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE && vgpu_active())
		gpu = libvgpu_dev_gpu(prop->location.id);
	rc = libvgpu_tx_begin(&tx, gpu, VGPU_ROUND(size, VGPU_PAGE));
	if (rc)
		return rc;
	rc = real(handle, size, prop, flags);
	if (rc || !handle) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	libvgpu_tx_commit(&tx, VGPU_K_VMM, (uint64_t)*handle, NULL);
	return rc;
}

VGPU_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	vgpu_pfn_cuMemRelease real = REAL(cuMemRelease);
	struct vgpu_alloc a;
	int taken;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	taken = libvgpu_take(VGPU_K_VMM, (uint64_t)handle, &a);
	rc = real(handle);
	libvgpu_free_done(taken, &a, rc);
	return rc;
}
