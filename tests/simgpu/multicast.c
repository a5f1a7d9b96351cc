// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast objects (CUDA 12.1, cuda.h's CUDA_MULTICAST group), which
 * simgpu's GPUs do not support: CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED
 * (132) is 0, and the Driver API reference says multicast objects need it
 * ("Support for multicast on a specific device can be queried using the
 * device attribute CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED") and lists
 * CUDA_ERROR_NOT_SUPPORTED among each function's answers. The entry points
 * exist because every 12.1+ driver has them: PyTorch resolves them at start
 * (cudaGetDriverEntryPointByVersion) and a failed look-up leaves the
 * runtime's last error set (Documentation/simgpu.md, "PyTorch on simgpu").
 */
#include "simgpu.h"

#if CUDA_VERSION >= 12010

static CUresult no_multicast(void)
{
	SG_INIT_CHECK();
	return CUDA_ERROR_NOT_SUPPORTED;
}

SG_API CUresult cuMulticastCreate(CUmemGenericAllocationHandle *mcHandle, const CUmulticastObjectProp *prop)
{
	SG_GATE();
	if (!mcHandle || !prop)
		return CUDA_ERROR_INVALID_VALUE;
	return no_multicast();
}

SG_API CUresult cuMulticastAddDevice(CUmemGenericAllocationHandle mcHandle, CUdevice dev)
{
	SG_GATE();
	(void)mcHandle; (void)dev;
	return no_multicast();
}

SG_API CUresult cuMulticastBindMem(CUmemGenericAllocationHandle mcHandle, size_t mcOffset,
				   CUmemGenericAllocationHandle memHandle, size_t memOffset,
				   size_t size, unsigned long long flags)
{
	SG_GATE();
	(void)mcHandle; (void)mcOffset; (void)memHandle; (void)memOffset; (void)size; (void)flags;
	return no_multicast();
}

SG_API CUresult cuMulticastBindAddr(CUmemGenericAllocationHandle mcHandle, size_t mcOffset,
				    CUdeviceptr memptr, size_t size, unsigned long long flags)
{
	SG_GATE();
	(void)mcHandle; (void)mcOffset; (void)memptr; (void)size; (void)flags;
	return no_multicast();
}

#if CUDA_VERSION >= 13010
SG_API CUresult cuMulticastBindMem_v2(CUmemGenericAllocationHandle mcHandle, CUdevice dev, size_t mcOffset,
				      CUmemGenericAllocationHandle memHandle, size_t memOffset,
				      size_t size, unsigned long long flags)
{
	SG_GATE();
	(void)mcHandle; (void)dev; (void)mcOffset; (void)memHandle; (void)memOffset; (void)size; (void)flags;
	return no_multicast();
}

SG_API CUresult cuMulticastBindAddr_v2(CUmemGenericAllocationHandle mcHandle, CUdevice dev, size_t mcOffset,
				       CUdeviceptr memptr, size_t size, unsigned long long flags)
{
	SG_GATE();
	(void)mcHandle; (void)dev; (void)mcOffset; (void)memptr; (void)size; (void)flags;
	return no_multicast();
}
#endif

SG_API CUresult cuMulticastUnbind(CUmemGenericAllocationHandle mcHandle, CUdevice dev,
				  size_t mcOffset, size_t size)
{
	SG_GATE();
	(void)mcHandle; (void)dev; (void)mcOffset; (void)size;
	return no_multicast();
}

SG_API CUresult cuMulticastGetGranularity(size_t *granularity, const CUmulticastObjectProp *prop,
					  CUmulticastGranularity_flags option)
{
	SG_GATE();
	(void)option;
	if (!granularity || !prop)
		return CUDA_ERROR_INVALID_VALUE;
	return no_multicast();
}
#endif
