// SPDX-License-Identifier: GPL-2.0
/*
 * The legacy (pre-3.2, "v1") ABI: 32-bit device pointers and sizes. These
 * are the unversioned exports of the real library (cuMemAlloc, ...), which
 * cuGetProcAddress hands out for versions below 3020. Legacy allocations
 * are placed below 4 GiB (MAP_32BIT) so their addresses fit.
 */
#include "simgpu.h"

#define FITS(x) ((uint64_t)(x) <= 0xffffffffULL)

SG_API CUresult cuDeviceTotalMem(unsigned int *bytes, CUdevice dev)
{
	SG_GATE();
	size_t b;
	CUresult rc = cuDeviceTotalMem_v2(&b, dev);

	if (!rc && bytes)
		*bytes = FITS(b) ? (unsigned int)b : 0xffffffffU;
	return rc;
}

SG_API CUresult cuMemGetInfo(unsigned int *free_, unsigned int *total)
{
	SG_GATE();
	size_t f, t;
	CUresult rc = cuMemGetInfo_v2(&f, &t);

	if (rc)
		return rc;
	if (!free_ || !total)
		return CUDA_ERROR_INVALID_VALUE;
	*free_ = FITS(f) ? (unsigned int)f : 0xffffffffU;
	*total = FITS(t) ? (unsigned int)t : 0xffffffffU;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
	SG_GATE();
	CUdeviceptr p;
	CUresult rc;

	if (!dptr)
		return CUDA_ERROR_INVALID_VALUE;
	rc = simgpu_mem_alloc(&p, bytesize, SG_MEM_DEVICE, 1);
	if (!rc)
		*dptr = (CUdeviceptr_v1)p;
	return rc;
}

SG_API CUresult cuMemAllocPitch(CUdeviceptr_v1 *dptr, unsigned int *pPitch, unsigned int WidthInBytes,
				unsigned int Height, unsigned int ElementSizeBytes)
{
	SG_GATE();
	CUdeviceptr p;
	unsigned int pitch;
	CUresult rc;

	if (!dptr || !pPitch || !WidthInBytes || !Height ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
		return CUDA_ERROR_INVALID_VALUE;
	pitch = (unsigned int)SG_ROUND((uint64_t)WidthInBytes, 512);
	rc = simgpu_mem_alloc(&p, (size_t)pitch * Height, SG_MEM_DEVICE, 1);
	if (!rc) {
		*dptr = (CUdeviceptr_v1)p;
		*pPitch = pitch;
	}
	return rc;
}

SG_API CUresult cuMemFree(CUdeviceptr_v1 dptr)
{
	SG_GATE();
	return simgpu_mem_free((CUdeviceptr)dptr);
}

SG_API CUresult cuMemAllocHost(void **pp, unsigned int bytesize)
{
	SG_GATE();
	return cuMemHostAlloc(pp, bytesize, 0);
}

SG_API CUresult cuMemGetAddressRange(CUdeviceptr_v1 *pbase, unsigned int *psize, CUdeviceptr_v1 dptr)
{
	SG_GATE();
	CUdeviceptr b;
	size_t s;
	CUresult rc = cuMemGetAddressRange_v2(&b, &s, (CUdeviceptr)dptr);

	if (rc)
		return rc;
	if (pbase)
		*pbase = (CUdeviceptr_v1)b;
	if (psize)
		*psize = (unsigned int)s;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemHostGetDevicePointer(CUdeviceptr_v1 *pdptr, void *p, unsigned int Flags)
{
	SG_GATE();
	CUdeviceptr d;
	CUresult rc;

	if (!pdptr)
		return CUDA_ERROR_INVALID_VALUE;
	rc = cuMemHostGetDevicePointer_v2(&d, p, Flags);
	if (!rc && !FITS(d))
		return CUDA_ERROR_INVALID_VALUE;
	if (!rc)
		*pdptr = (CUdeviceptr_v1)d;
	return rc;
}

SG_API CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags)
{
	SG_GATE();
	return cuMemHostRegister_v2(p, bytesize, Flags);
}

SG_API CUresult cuModuleGetGlobal(CUdeviceptr_v1 *dptr, unsigned int *bytes, CUmodule hmod, const char *name)
{
	SG_GATE();
	CUdeviceptr d;
	size_t n;
	CUresult rc = cuModuleGetGlobal_v2(&d, &n, hmod, name);

	if (rc)
		return rc;
	if (dptr)
		*dptr = (CUdeviceptr_v1)d;	/* truncates, as the old ABI did */
	if (bytes)
		*bytes = (unsigned int)n;
	return CUDA_SUCCESS;
}
