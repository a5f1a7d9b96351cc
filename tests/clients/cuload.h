/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reach libcuda.so.1 the way NVIDIA's runtime does: dlopen, dlsym of only
 * cuInit, cuDriverGetVersion, cuGetProcAddress, cuGetProcAddress_v2 and
 * cuGetExportTable, and every other entry through versioned
 * cuGetProcAddress_v2 look-ups with stream flags.
 */
#ifndef CULOAD_H
#define CULOAD_H

#include <cuda.h>
#include <stdint.h>

#define CU_FN(name) __typeof__(&name) name

struct cu {
	CU_FN(cuInit);
	CU_FN(cuDriverGetVersion);
	CU_FN(cuGetProcAddress);	/* the 12000 form: cuGetProcAddress_v2 */
	CU_FN(cuGetExportTable);
	CU_FN(cuGetErrorName);
	CU_FN(cuDeviceGetCount);
	CU_FN(cuDeviceGet);
	CU_FN(cuDeviceGetName);
	CU_FN(cuDeviceTotalMem);
	CU_FN(cuDevicePrimaryCtxRetain);
	CU_FN(cuDevicePrimaryCtxRelease);
	CU_FN(cuCtxSetCurrent);
	CU_FN(cuCtxPushCurrent);
	CU_FN(cuCtxPopCurrent);
#if CUDA_VERSION >= 13000
	__typeof__(&cuCtxSynchronize_v2) cuCtxSynchronize;	/* 13000 form */
#else
	CU_FN(cuCtxSynchronize);
#endif
	CU_FN(cuMemAlloc);
	CU_FN(cuMemFree);
	CU_FN(cuMemGetInfo);
	CU_FN(cuMemcpyHtoD);
	CU_FN(cuMemcpyDtoH);
	CU_FN(cuMemsetD8);
	CU_FN(cuStreamCreate);
	CU_FN(cuStreamSynchronize);
	CU_FN(cuStreamDestroy);
	CU_FN(cuLibraryLoadData);
	CU_FN(cuLibraryGetKernel);
	CU_FN(cuKernelGetFunction);
	CU_FN(cuLibraryUnload);
	CU_FN(cuLaunchKernel);
	CU_FN(cuMemAddressReserve);
	CU_FN(cuMemAddressFree);
	CU_FN(cuMemCreate);
	CU_FN(cuMemRelease);
	CU_FN(cuMemMap);
	CU_FN(cuMemUnmap);
	CU_FN(cuMemSetAccess);
	CU_FN(cuMemGetAllocationGranularity);
	CU_FN(cuMemRetainAllocationHandle);
	CU_FN(cuMemGetAllocationPropertiesFromHandle);
	CU_FN(cuMemExportToShareableHandle);
	CU_FN(cuMemImportFromShareableHandle);
	CU_FN(cuMemAllocAsync);
	CU_FN(cuMemAllocFromPoolAsync);
	CU_FN(cuMemFreeAsync);
	CU_FN(cuMemPoolCreate);
	CU_FN(cuMemPoolDestroy);
	CU_FN(cuMemPoolTrimTo);
	CU_FN(cuMemPoolGetAttribute);
	CU_FN(cuDeviceGetDefaultMemPool);
	CU_FN(cuGraphCreate);
	CU_FN(cuGraphAddKernelNode);
	CU_FN(cuGraphAddMemAllocNode);
	CU_FN(cuGraphAddMemFreeNode);
	CU_FN(cuGraphInstantiate);
	CU_FN(cuGraphLaunch);
	CU_FN(cuGraphExecDestroy);
	CU_FN(cuGraphDestroy);
	CU_FN(cuMemAllocPitch);
	CU_FN(cuMemAllocManaged);
	CU_FN(cuArrayCreate);
	CU_FN(cuArray3DCreate);
	CU_FN(cuArrayDestroy);
	CU_FN(cuMipmappedArrayCreate);
	CU_FN(cuMipmappedArrayDestroy);
	CU_FN(cuCtxCreate);
	CU_FN(cuCtxDestroy);
	CU_FN(cuDeviceGetUuid);
	CU_FN(cuMemcpyDtoDAsync);
	CU_FN(cuEventCreate);
	CU_FN(cuEventRecord);
	CU_FN(cuStreamWaitEvent);
	CU_FN(cuLaunchHostFunc);
	CU_FN(cuStreamQuery);
	CU_FN(cuMemcpy2DAsync);
	CU_FN(cuMemcpy3DAsync);
	CU_FN(cuMemcpyPeerAsync);
	CU_FN(cuMemcpyBatchAsync);
	CU_FN(cuMemsetD2D32Async);
	CU_FN(cuMemPrefetchAsync);
	CU_FN(cuStreamWriteValue32);
	CU_FN(cuStreamWaitValue32);
	CU_FN(cuStreamBatchMemOp);
	CU_FN(cuMemcpyHtoA);
	CU_FN(cuMemcpyAtoH);
	CU_FN(cuMemcpyDtoA);
	CU_FN(cuMemcpyAtoD);
	CU_FN(cuMemcpyAtoA);
	CU_FN(cuMemcpyHtoAAsync);
	CU_FN(cuMemcpyAtoHAsync);
	CU_FN(cuMemcpy3DBatchAsync);
	CU_FN(cuMemPrefetchBatchAsync);
	CU_FN(cuMemDiscardAndPrefetchBatchAsync);
#if CUDA_VERSION >= 13020
	CU_FN(cuMemcpyWithAttributesAsync);
	CU_FN(cuMemcpy3DWithAttributesAsync);
#endif
#if CUDA_VERSION >= 13050
	CU_FN(cuFabricCpyBatchAsync);
#endif
	CU_FN(cuModuleLoadData);
	CU_FN(cuModuleGetFunction);
	/* deprecated (the Makefile defines CUDA_ENABLE_DEPRECATED) */
	CU_FN(cuFuncSetBlockShape);
	CU_FN(cuParamSetSize);
	CU_FN(cuParamSetv);
	CU_FN(cuLaunch);
	CU_FN(cuLaunchGrid);
	CU_FN(cuLaunchGridAsync);
	CU_FN(cuLaunchCooperativeKernelMultiDevice);
};

extern struct cu cu;
extern void *cu_lib;

/* dlopen the driver and resolve everything; flags: 1 legacy, 2 per-thread
 * default stream. Prints what failed and returns -1. */
int cu_load(unsigned long long flags);
const char *cu_err(CUresult rc);
/* cuGetProcAddress(name, version), default stream flavour, after cu_load:
 * CUDA_ERROR_NOT_FOUND when the driver answers no function. */
CUresult cu_proc(const char *name, int version, void **out);
/* A size with an optional K, M or G suffix (powers of 1024); 0 or -1. */
int cu_size_arg(const char *s, uint64_t *out);

#endif
