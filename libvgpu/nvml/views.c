// SPDX-License-Identifier: GPL-2.0
/*
 * What a tenant sees of a GPU's memory (cuMemGetInfo, cuDeviceTotalMem;
 * NVML in nvml.c). VGPU_IOC_MEMINFO gives the GPU's capacity, the
 * tenant's limit, what all its processes hold and its room (its limit, or
 * what it holds once the GPU is full for it); the view is total =
 * min(limit, capacity), used = the tenant's usage, free = min(total,
 * room) - used, never negative: nothing of the other tenants' use but
 * whether the GPU is full (Documentation/vram.md, "What a tenant
 * learns"). Unlimited tenants too: the driver's figures would show the
 * others' use. A process outside vgpu (no module, not registered) or
 * outside every tenant sees the driver's own figures.
 */
#include <errno.h>
#include <sys/ioctl.h>

#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../policy/register.h"
#include "../state/state.h"
#include "views.h"
#include "../access/nest.h"

int libvgpu_view(int gpu, struct vgpu_view *v)
{
	struct vgpu_dev_meminfo mi = { .gpu = (uint32_t)gpu };

	if (gpu < 0 || !vgpu_active())
		return 0;
	if (!libvgpu_proc.reg.in_tenant || ioctl(libvgpu_proc.devfd, VGPU_IOC_MEMINFO, &mi) < 0)
		return 0;
	vgpu_view_compute(&mi, v);
	return 1;
}

static unsigned int clamp32(uint64_t v)
{
	return v > 0xffffffffULL ? 0xffffffffU : (unsigned int)v;
}

VGPU_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
	VGPU_PASS_NESTED(cuMemGetInfo_v2, (free, total));
	vgpu_pfn_cuMemGetInfo_v2 real = REAL(cuMemGetInfo_v2);
	struct vgpu_view v;
	CUcontext ctx;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(free, total);
	if (rc == CUDA_SUCCESS && free && total && libvgpu_view(libvgpu_cur_gpu(&ctx), &v)) {
		*free = v.free;
		*total = v.total;
	}
	return rc;
}

VGPU_EXPORT CUresult cuMemGetInfo(unsigned int *free, unsigned int *total)
{
	VGPU_PASS_NESTED(cuMemGetInfo, (free, total));
	vgpu_pfn_cuMemGetInfo real = REAL(cuMemGetInfo);
	struct vgpu_view v;
	CUcontext ctx;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(free, total);
	if (rc == CUDA_SUCCESS && free && total && libvgpu_view(libvgpu_cur_gpu(&ctx), &v)) {
		*free = clamp32(v.free);
		*total = clamp32(v.total);
	}
	return rc;
}

VGPU_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	VGPU_PASS_NESTED(cuDeviceTotalMem_v2, (bytes, dev));
	vgpu_pfn_cuDeviceTotalMem_v2 real = REAL(cuDeviceTotalMem_v2);
	struct vgpu_view v;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(bytes, dev);
	if (rc == CUDA_SUCCESS && bytes && vgpu_active() && libvgpu_view(libvgpu_dev_gpu(dev), &v))
		*bytes = v.total;
	return rc;
}

VGPU_EXPORT CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
	VGPU_PASS_NESTED(cuDeviceTotalMem, (bytes, dev));
	vgpu_pfn_cuDeviceTotalMem real = REAL(cuDeviceTotalMem);
	struct vgpu_view v;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(bytes, dev);
	if (rc == CUDA_SUCCESS && bytes && vgpu_active() && libvgpu_view(libvgpu_dev_gpu(dev), &v))
		*bytes = clamp32(v.total);
	return rc;
}
