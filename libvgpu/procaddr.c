// SPDX-License-Identifier: GPL-2.0
/*
 * cuGetProcAddress hooks. The real look-up runs first, with the caller's
 * version and flags, so the driver alone decides which ABI variant a name
 * resolves to; if the answer is the real address of a hooked variant, the
 * caller gets libvgpu's wrapper of exactly that variant (cuMemAlloc@3020
 * -> the cuMemAlloc_v2 wrapper, flags 2 -> the _ptsz wrapper,
 * cuGetProcAddress@12000 -> this file's cuGetProcAddress_v2). Other
 * answers, errors and statuses pass through untouched.
 */
#include "hooks.h"

VGPU_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
				      cuuint64_t flags)
{
	vgpu_pfn_cuGetProcAddress real = REAL(cuGetProcAddress);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(symbol, pfn, cudaVersion, flags);
	if (rc == CUDA_SUCCESS && pfn)
		*pfn = libvgpu_hook_wrap(VGPU_LIB_CU, *pfn);
	return rc;
}

#if CUDA_VERSION >= 12000
VGPU_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
					 cuuint64_t flags,
					 CUdriverProcAddressQueryResult *symbolStatus)
{
	vgpu_pfn_cuGetProcAddress_v2 real = REAL(cuGetProcAddress_v2);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(symbol, pfn, cudaVersion, flags, symbolStatus);
	if (rc == CUDA_SUCCESS && pfn)
		*pfn = libvgpu_hook_wrap(VGPU_LIB_CU, *pfn);
	return rc;
}
#endif
