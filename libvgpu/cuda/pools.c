// SPDX-License-Identifier: GPL-2.0
/*
 * Where a memory pool's memory is, for cuMemAllocFromPoolAsync. The
 * driver has no query for a pool's location (cuMemPoolGetAttribute reports
 * sizes and policies only), so it is noted when libvgpu sees the pool
 * made: cuMemPoolCreate's props, and the device (or, CUDA 13, location)
 * named to cuDeviceGetDefaultMemPool, cuDeviceGetMemPool,
 * cuMemGetDefaultMemPool and cuMemGetMemPool. The note lives in the
 * allocation map as a VGPU_K_POOL entry of 0 bytes whose gpu is the
 * inventory GPU, or VGPU_GPU_SKIP for host memory (HOST, HOST_NUMA,
 * HOST_NUMA_CURRENT: not VRAM, not charged). A pool of another location
 * type (NONE: managed) or not seen made (imported from another process)
 * is charged on the allocating stream's device. What a pool is charged
 * (its reservation) is poolcharge.c's; cuMemPoolTrimTo and cuMemPoolDestroy
 * tell it when the reservation shrinks.
 */
#include "../policy/account.h"
#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../policy/poolcharge.h"
#include "../logic/ptrmap.h"
#include "../policy/register.h"
#include "../access/nest.h"

static void note(CUmemoryPool pool, const CUmemLocation *loc)
{
	struct vgpu_alloc a = { (uint64_t)(uintptr_t)pool, 0, NULL, VGPU_GPU_SKIP, VGPU_K_POOL };
	struct vgpu_alloc old;

	if (!pool || !vgpu_active())
		return;
	switch (loc->type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		a.gpu = libvgpu_dev_gpu(loc->id);
		break;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		break;
	default:
		return;	/* the stream's device */
	}
	libvgpu_ptrmap_put(&a, &old);	/* 0 bytes: a stale note needs no release */
}

VGPU_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
	VGPU_PASS_NESTED(cuMemPoolCreate, (pool, props));
	vgpu_pfn_cuMemPoolCreate real = REAL(cuMemPoolCreate);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(pool, props);
	if (rc == CUDA_SUCCESS && pool && props)
		note(*pool, &props->location);
	return rc;
}

/*
 * The pool's unused memory goes with it: trimmed first (as the destruction
 * would), so that what is given back can be read; what stays reserved for
 * allocations not yet freed stays charged until the process ends
 * (poolcharge.c).
 */
VGPU_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
	VGPU_PASS_NESTED(cuMemPoolDestroy, (pool));
	vgpu_pfn_cuMemPoolDestroy real = REAL(cuMemPoolDestroy);
	vgpu_pfn_cuMemPoolTrimTo trim = REAL(cuMemPoolTrimTo);
	struct vgpu_alloc a;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (trim && pool && trim(pool, 0) == CUDA_SUCCESS)
		libvgpu_pool_reread(pool);
	rc = real(pool);
	/* Allocations still out keep the GPU they were charged on. */
	if (rc == CUDA_SUCCESS) {
		libvgpu_ptrmap_take(VGPU_K_POOL, (uint64_t)(uintptr_t)pool, &a);
		libvgpu_pool_gone(pool);
	}
	return rc;
}

/* What the trim released is given back. */
VGPU_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	VGPU_PASS_NESTED(cuMemPoolTrimTo, (pool, minBytesToKeep));
	vgpu_pfn_cuMemPoolTrimTo real = REAL(cuMemPoolTrimTo);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(pool, minBytesToKeep);
	if (rc == CUDA_SUCCESS)
		libvgpu_pool_reread(pool);
	return rc;
}

static CUresult dev_pool(CUresult (*real)(CUmemoryPool *, CUdevice), CUmemoryPool *pool,
			 CUdevice dev)
{
	CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = dev };
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(pool, dev);
	if (rc == CUDA_SUCCESS && pool)
		note(*pool, &loc);
	return rc;
}

VGPU_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
	VGPU_PASS_NESTED(cuDeviceGetDefaultMemPool, (pool, dev));
	return dev_pool(REAL(cuDeviceGetDefaultMemPool), pool, dev);
}

VGPU_EXPORT CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
	VGPU_PASS_NESTED(cuDeviceGetMemPool, (pool, dev));
	return dev_pool(REAL(cuDeviceGetMemPool), pool, dev);
}

#if CUDA_VERSION >= 13000
static CUresult loc_pool(vgpu_pfn_cuMemGetMemPool real, CUmemoryPool *pool,
			 CUmemLocation *loc, CUmemAllocationType type)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(pool, loc, type);
	if (rc == CUDA_SUCCESS && pool && loc && type == CU_MEM_ALLOCATION_TYPE_PINNED)
		note(*pool, loc);
	return rc;
}

VGPU_EXPORT CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc,
					    CUmemAllocationType type)
{
	VGPU_PASS_NESTED(cuMemGetDefaultMemPool, (pool, loc, type));
	return loc_pool(REAL(cuMemGetDefaultMemPool), pool, loc, type);
}

VGPU_EXPORT CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc,
				     CUmemAllocationType type)
{
	VGPU_PASS_NESTED(cuMemGetMemPool, (pool, loc, type));
	return loc_pool(REAL(cuMemGetMemPool), pool, loc, type);
}
#endif
