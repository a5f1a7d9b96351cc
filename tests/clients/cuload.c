// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's way into libcuda.so.1 (see cuload.h). The versions are
 * the API versions NVIDIA's CUDA 13 runtime asks for (cudaTypedefs.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuload.h"

struct cu cu;
void *cu_lib;

const char *cu_err(CUresult rc)
{
	static __thread char buf[32];
	const char *s = NULL;

	if (cu.cuGetErrorName && !cu.cuGetErrorName(rc, &s) && s)
		return s;
	snprintf(buf, sizeof(buf), "CUresult(%d)", (int)rc);
	return buf;
}

int cu_size_arg(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	default: break;
	}
	if (*end)
		return -1;
	*out = v;
	return 0;
}

/* The driver's CUDA version (cuDriverGetVersion needs no cuInit). */
static int cu_driver_version;

static int get(const char *name, int version, unsigned long long flags, void **out)
{
	CUdriverProcAddressQueryResult st;
	CUresult rc = cu.cuGetProcAddress(name, out, version, flags, &st);

	/* An entry point newer than the driver (headers of 13.5, NVIDIA's
	 * driver 580 of 13.0) stays NULL: only the commands that need it
	 * fail, as a runtime tolerates names it is not given. */
	if ((rc || !*out) && cu_driver_version && version > cu_driver_version) {
		*out = NULL;
		return 0;
	}
	if (rc || !*out) {
		fprintf(stderr, "cuGetProcAddress(%s, %d, %llu): %d status %d\n",
			name, version, flags, (int)rc, (int)st);
		return -1;
	}
	return 0;
}

CUresult cu_proc(const char *name, int version, void **out)
{
	CUdriverProcAddressQueryResult st;
	CUresult rc = cu.cuGetProcAddress(name, out, version, CU_GET_PROC_ADDRESS_DEFAULT, &st);

	return rc ? rc : *out ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

#define SYM(field, name) (cu.field = (__typeof__(cu.field))dlsym(cu_lib, name))
/* #name is not macro-expanded: the base name, as the runtime asks. */
#define GET(name, ver) (get(#name, ver, flags, (void **)&cu.name) ? -1 : 0)

#define GET_OPT(name, ver)							\
	do {									\
		CUdriverProcAddressQueryResult st_;				\
		if (cu.cuGetProcAddress(#name, (void **)&cu.name, ver, flags, &st_) ||	\
		    !cu.name) {							\
			cu.name = NULL;						\
			fprintf(stderr, "note: the driver has no " #name "\n");	\
		}								\
	} while (0)

int cu_load(unsigned long long flags)
{
	int bad = 0;

	cu_lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cu_lib) {
		fprintf(stderr, "dlopen libcuda.so.1: %s\n", dlerror());
		return -1;
	}
	SYM(cuInit, "cuInit");
	SYM(cuDriverGetVersion, "cuDriverGetVersion");
	SYM(cuGetProcAddress, "cuGetProcAddress_v2");
	SYM(cuGetExportTable, "cuGetExportTable");
	if (!cu.cuInit || !cu.cuDriverGetVersion || !cu.cuGetProcAddress ||
	    !cu.cuGetExportTable || !dlsym(cu_lib, "cuGetProcAddress")) {
		fprintf(stderr, "libcuda.so.1 lacks a bootstrap symbol\n");
		return -1;
	}
	if (cu.cuDriverGetVersion(&cu_driver_version))
		cu_driver_version = 0;
	bad |= GET(cuGetErrorName, 6000);
	bad |= GET(cuDeviceGetCount, 2000);
	bad |= GET(cuDeviceGet, 2000);
	bad |= GET(cuDeviceGetName, 2000);
	bad |= GET(cuDeviceTotalMem, 3020);
	bad |= GET(cuDevicePrimaryCtxRetain, 7000);
	bad |= GET(cuDevicePrimaryCtxRelease, 11000);
	bad |= GET(cuCtxSetCurrent, 4000);
	bad |= GET(cuCtxPushCurrent, 4000);
	bad |= GET(cuCtxPopCurrent, 4000);
#if CUDA_VERSION >= 13000
	bad |= GET(cuCtxSynchronize, 13000);
#else
	bad |= GET(cuCtxSynchronize, 2000);
#endif
	bad |= GET(cuMemAlloc, 3020);
	bad |= GET(cuMemFree, 3020);
	bad |= GET(cuMemGetInfo, 3020);
	bad |= GET(cuMemcpyHtoD, 3020);
	bad |= GET(cuMemcpyDtoH, 3020);
	bad |= GET(cuMemsetD8, 3020);
	bad |= GET(cuStreamCreate, 2000);
	bad |= GET(cuStreamSynchronize, 2000);
	bad |= GET(cuStreamDestroy, 4000);
	bad |= GET(cuLibraryLoadData, 12000);
	bad |= GET(cuLibraryGetKernel, 12000);
	bad |= GET(cuKernelGetFunction, 12000);
	bad |= GET(cuLibraryUnload, 12000);
	bad |= GET(cuLaunchKernel, 4000);
	bad |= GET(cuMemAddressReserve, 10020);
	bad |= GET(cuMemAddressFree, 10020);
	bad |= GET(cuMemCreate, 10020);
	bad |= GET(cuMemRelease, 10020);
	bad |= GET(cuMemMap, 10020);
	bad |= GET(cuMemUnmap, 10020);
	bad |= GET(cuMemSetAccess, 10020);
	bad |= GET(cuMemGetAllocationGranularity, 10020);
	bad |= GET(cuMemRetainAllocationHandle, 11000);
	bad |= GET(cuMemGetAllocationPropertiesFromHandle, 10020);
	bad |= GET(cuMemExportToShareableHandle, 10020);
	bad |= GET(cuMemImportFromShareableHandle, 10020);
	bad |= GET(cuMemAllocAsync, 11020);
	bad |= GET(cuMemAllocFromPoolAsync, 11020);
	bad |= GET(cuMemFreeAsync, 11020);
	bad |= GET(cuMemPoolCreate, 11020);
	bad |= GET(cuMemPoolDestroy, 11020);
	bad |= GET(cuMemPoolTrimTo, 11020);
	bad |= GET(cuMemPoolGetAttribute, 11020);
	bad |= GET(cuDeviceGetDefaultMemPool, 11020);
	bad |= GET(cuGraphCreate, 10000);
	bad |= GET(cuGraphAddKernelNode, 12000);
	bad |= GET(cuGraphAddMemAllocNode, 11040);
	bad |= GET(cuGraphAddMemFreeNode, 11040);
	bad |= GET(cuGraphInstantiate, 12000);
	bad |= GET(cuGraphLaunch, 10000);
	bad |= GET(cuGraphExecDestroy, 10000);
	bad |= GET(cuGraphDestroy, 10000);
	bad |= GET(cuMemAllocPitch, 3020);
	bad |= GET(cuMemAllocManaged, 6000);
	bad |= GET(cuArrayCreate, 3020);
	bad |= GET(cuArray3DCreate, 3020);
	bad |= GET(cuArrayDestroy, 2000);
	bad |= GET(cuMipmappedArrayCreate, 5000);
	bad |= GET(cuMipmappedArrayDestroy, 5000);
#if CUDA_VERSION >= 12050
	bad |= GET(cuCtxCreate, 12050);
#else
	bad |= GET(cuCtxCreate, 3020);
#endif
	bad |= GET(cuCtxDestroy, 4000);
	bad |= GET(cuDeviceGetUuid, 11040);
	bad |= GET(cuMemcpyDtoDAsync, 3020);
	bad |= GET(cuEventCreate, 2000);
	bad |= GET(cuEventRecord, 2000);
	bad |= GET(cuStreamWaitEvent, 3020);
	bad |= GET(cuLaunchHostFunc, 10000);
	bad |= GET(cuStreamQuery, 2000);
	bad |= GET(cuMemcpy2DAsync, 3020);
	bad |= GET(cuMemcpy3DAsync, 3020);
	bad |= GET(cuMemcpyPeerAsync, 4000);
	bad |= GET(cuMemcpyBatchAsync, 13000);
	bad |= GET(cuMemsetD2D32Async, 3020);
	bad |= GET(cuMemPrefetchAsync, 12020);
	bad |= GET(cuStreamWriteValue32, 11070);
	bad |= GET(cuStreamWaitValue32, 11070);
	bad |= GET(cuStreamBatchMemOp, 11070);
	bad |= GET(cuMemcpyHtoA, 3020);
	bad |= GET(cuMemcpyAtoH, 3020);
	bad |= GET(cuMemcpyDtoA, 3020);
	bad |= GET(cuMemcpyAtoD, 3020);
	bad |= GET(cuMemcpyAtoA, 3020);
	bad |= GET(cuMemcpyHtoAAsync, 3020);
	bad |= GET(cuMemcpyAtoHAsync, 3020);
	bad |= GET(cuMemcpy3DBatchAsync, 13000);
	bad |= GET(cuMemPrefetchBatchAsync, 13000);
	bad |= GET(cuMemDiscardAndPrefetchBatchAsync, 13000);
#if CUDA_VERSION >= 13020
	bad |= GET(cuMemcpyWithAttributesAsync, 13020);
	bad |= GET(cuMemcpy3DWithAttributesAsync, 13020);
#endif
#if CUDA_VERSION >= 13050
	bad |= GET(cuFabricCpyBatchAsync, 13050);
#endif
	bad |= GET(cuModuleLoadData, 2000);
	bad |= GET(cuModuleGetFunction, 2000);
	/* Deprecated: a driver that no longer gives them leaves them NULL
	 * (said once); only engine-client's legacy words use them. */
	GET_OPT(cuFuncSetBlockShape, 2000);
	GET_OPT(cuParamSetSize, 2000);
	GET_OPT(cuParamSetv, 2000);
	GET_OPT(cuLaunch, 2000);
	GET_OPT(cuLaunchGrid, 2000);
	GET_OPT(cuLaunchGridAsync, 2000);
	GET_OPT(cuLaunchCooperativeKernelMultiDevice, 9000);
	return bad ? -1 : 0;
}
