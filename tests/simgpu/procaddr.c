// SPDX-License-Identifier: GPL-2.0
/*
 * cuGetProcAddress: the one table that maps (name, API version, stream
 * flavour) to an entry point, as the real driver does. A name may have
 * several rows; the row with the highest version not above the version
 * asked for wins, and CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM picks
 * its per-thread-stream symbol (_ptsz/_ptds) when it has one. Versions
 * are those of cudaTypedefs.h (PFN_<name>_v<version>).
 *
 * With SIMGPU_PROCADDR=distinct the answers are distinct entry points
 * (entry.c) that jump to the same functions, as a driver's internal entry
 * points would.
 *
 * With SIMGPU_PROCADDR_NEWER=VERSION, simgpu stands for a driver newer
 * than every header: from VERSION on, cuMemAlloc has an ABI variant that
 * no cuda.h names (it behaves as cuMemAlloc_v2; libvgpu must not hand it
 * out as if it knew it).
 *
 * cuGetExportTable, NVIDIA's private tables (used by libcudart), is in
 * exporttab.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

#if CUDA_VERSION >= 13000
/* cuda.h 13 has no prototypes for these two until the internal block. */
CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);
CUresult cuCtxSynchronize_v2(CUcontext ctx);
#endif
#if CUDA_VERSION >= 12080
CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end);
#endif
#if CUDA_VERSION >= 12050
CUresult cuStreamGetCtx_v2_ptsz(CUstream h, CUcontext *pctx, CUgreenCtx *pg);
#endif

/* Defined by capture.c and graphnode.c; cuda.h declares them only
 * through its version macros. */
CUresult cuStreamBeginCapture_v2_ptsz(CUstream h, CUstreamCaptureMode mode);
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id,
					CUgraph *graph, const CUgraphNode **deps,
					const CUgraphEdgeData **edges, size_t *ndeps);
#if CUDA_VERSION >= 12030
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream h, CUgraph g, const CUgraphNode *deps,
					  const CUgraphEdgeData *edges, size_t ndeps,
					  CUstreamCaptureMode mode);
#endif
#if CUDA_VERSION >= 12040
CUresult cuGraphAddNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps,
			   const CUgraphEdgeData *edges, size_t ndeps, CUgraphNodeParams *p);
#endif

#define F(sym) ((void *)&(sym))

struct sg_proc {
	const char *name;
	int version;		/* first API version with this row's ABI */
	void *sym;		/* default (legacy) stream */
	void *ptsym;		/* per-thread default stream, or NULL */
};

static const struct sg_proc table[] = {
	{ "cuArray3DCreate", 2000, F(cuArray3DCreate), NULL },
	{ "cuArray3DCreate", 3020, F(cuArray3DCreate_v2), NULL },
	{ "cuArray3DGetDescriptor", 3020, F(cuArray3DGetDescriptor_v2), NULL },
	{ "cuArrayCreate", 2000, F(cuArrayCreate), NULL },
	{ "cuArrayCreate", 3020, F(cuArrayCreate_v2), NULL },
	{ "cuArrayDestroy", 2000, F(cuArrayDestroy), NULL },
	{ "cuArrayGetDescriptor", 3020, F(cuArrayGetDescriptor_v2), NULL },
#if CUDA_VERSION >= 12080	/* ckptapi.c */
	{ "cuCheckpointProcessCheckpoint", 12080, F(cuCheckpointProcessCheckpoint), NULL },
	{ "cuCheckpointProcessGetRestoreThreadId", 12080, F(cuCheckpointProcessGetRestoreThreadId), NULL },
	{ "cuCheckpointProcessGetState", 12080, F(cuCheckpointProcessGetState), NULL },
	{ "cuCheckpointProcessLock", 12080, F(cuCheckpointProcessLock), NULL },
	{ "cuCheckpointProcessRestore", 12080, F(cuCheckpointProcessRestore), NULL },
	{ "cuCheckpointProcessUnlock", 12080, F(cuCheckpointProcessUnlock), NULL },
#endif
#if CUDA_VERSION >= 13040
	{ "cuCheckpointOperationComplete", 13040, F(cuCheckpointOperationComplete), NULL },
#endif
	{ "cuCtxCreate", 2000, F(cuCtxCreate), NULL },
	{ "cuCtxCreate", 3020, F(cuCtxCreate_v2), NULL },
	{ "cuCtxCreate", 11040, F(cuCtxCreate_v3), NULL },
#if CUDA_VERSION >= 12050
	{ "cuCtxCreate", 12050, F(cuCtxCreate_v4), NULL },
#endif
	{ "cuCtxDestroy", 2000, F(cuCtxDestroy), NULL },
	{ "cuCtxDestroy", 4000, F(cuCtxDestroy_v2), NULL },
	{ "cuCtxGetApiVersion", 3020, F(cuCtxGetApiVersion), NULL },
#if CUDA_VERSION >= 12050	/* greenctx.c */
	{ "cuCtxFromGreenCtx", 12040, F(cuCtxFromGreenCtx), NULL },
	{ "cuCtxGetDevResource", 12040, F(cuCtxGetDevResource), NULL },
	{ "cuDevResourceGenerateDesc", 12040, F(cuDevResourceGenerateDesc), NULL },
	{ "cuDevSmResourceSplitByCount", 12040, F(cuDevSmResourceSplitByCount), NULL },
	{ "cuDeviceGetDevResource", 12040, F(cuDeviceGetDevResource), NULL },
	{ "cuGreenCtxCreate", 12040, F(cuGreenCtxCreate), NULL },
	{ "cuGreenCtxDestroy", 12040, F(cuGreenCtxDestroy), NULL },
	{ "cuGreenCtxGetDevResource", 12040, F(cuGreenCtxGetDevResource), NULL },
	{ "cuGreenCtxStreamCreate", 12050, F(cuGreenCtxStreamCreate), NULL },
#endif
	{ "cuCtxGetCacheConfig", 3020, F(cuCtxGetCacheConfig), NULL },
	{ "cuCtxGetCurrent", 4000, F(cuCtxGetCurrent), NULL },
	{ "cuCtxGetDevice", 2000, F(cuCtxGetDevice), NULL },
#if CUDA_VERSION >= 13000
	{ "cuCtxGetDevice", 13000, F(cuCtxGetDevice_v2), NULL },
#endif
	{ "cuCtxGetFlags", 7000, F(cuCtxGetFlags), NULL },
#if CUDA_VERSION >= 12000
	{ "cuCtxGetId", 12000, F(cuCtxGetId), NULL },
#endif
	{ "cuCtxGetLimit", 3010, F(cuCtxGetLimit), NULL },
	{ "cuCtxGetStreamPriorityRange", 5050, F(cuCtxGetStreamPriorityRange), NULL },
	{ "cuCtxPopCurrent", 2000, F(cuCtxPopCurrent), NULL },
	{ "cuCtxPopCurrent", 4000, F(cuCtxPopCurrent_v2), NULL },
	{ "cuCtxPushCurrent", 2000, F(cuCtxPushCurrent), NULL },
	{ "cuCtxPushCurrent", 4000, F(cuCtxPushCurrent_v2), NULL },
	{ "cuCtxSetCacheConfig", 3020, F(cuCtxSetCacheConfig), NULL },
	{ "cuCtxSetCurrent", 4000, F(cuCtxSetCurrent), NULL },
	{ "cuCtxSetLimit", 3010, F(cuCtxSetLimit), NULL },
	{ "cuCtxSynchronize", 2000, F(cuCtxSynchronize), NULL },
#if CUDA_VERSION >= 13000
	{ "cuCtxSynchronize", 13000, F(cuCtxSynchronize_v2), NULL },
#endif
	{ "cuDeviceCanAccessPeer", 4000, F(cuDeviceCanAccessPeer), NULL },
	{ "cuDeviceComputeCapability", 2000, F(cuDeviceComputeCapability), NULL },
	{ "cuDeviceGet", 2000, F(cuDeviceGet), NULL },
	{ "cuDeviceGetAttribute", 2000, F(cuDeviceGetAttribute), NULL },
	{ "cuDeviceGetByPCIBusId", 4010, F(cuDeviceGetByPCIBusId), NULL },
	{ "cuDeviceGetCount", 2000, F(cuDeviceGetCount), NULL },
	{ "cuDeviceGetDefaultMemPool", 11020, F(cuDeviceGetDefaultMemPool), NULL },
	{ "cuDeviceGetGraphMemAttribute", 11040, F(cuDeviceGetGraphMemAttribute), NULL },
	{ "cuDeviceGetMemPool", 11020, F(cuDeviceGetMemPool), NULL },
	{ "cuDeviceGetName", 2000, F(cuDeviceGetName), NULL },
	{ "cuDeviceGetP2PAttribute", 8000, F(cuDeviceGetP2PAttribute), NULL },
	{ "cuDeviceGetPCIBusId", 4010, F(cuDeviceGetPCIBusId), NULL },
	{ "cuDeviceGetUuid", 9020, F(cuDeviceGetUuid), NULL },
	{ "cuDeviceGetUuid", 11040, F(cuDeviceGetUuid_v2), NULL },
	{ "cuDeviceGraphMemTrim", 11040, F(cuDeviceGraphMemTrim), NULL },
	{ "cuDevicePrimaryCtxGetState", 7000, F(cuDevicePrimaryCtxGetState), NULL },
	{ "cuDevicePrimaryCtxRelease", 7000, F(cuDevicePrimaryCtxRelease), NULL },
	{ "cuDevicePrimaryCtxRelease", 11000, F(cuDevicePrimaryCtxRelease_v2), NULL },
	{ "cuDevicePrimaryCtxReset", 7000, F(cuDevicePrimaryCtxReset), NULL },
	{ "cuDevicePrimaryCtxReset", 11000, F(cuDevicePrimaryCtxReset_v2), NULL },
	{ "cuDevicePrimaryCtxRetain", 7000, F(cuDevicePrimaryCtxRetain), NULL },
	{ "cuDevicePrimaryCtxSetFlags", 7000, F(cuDevicePrimaryCtxSetFlags), NULL },
	{ "cuDevicePrimaryCtxSetFlags", 11000, F(cuDevicePrimaryCtxSetFlags_v2), NULL },
	{ "cuDeviceSetGraphMemAttribute", 11040, F(cuDeviceSetGraphMemAttribute), NULL },
	{ "cuDeviceSetMemPool", 11020, F(cuDeviceSetMemPool), NULL },
	{ "cuDeviceTotalMem", 2000, F(cuDeviceTotalMem), NULL },
	{ "cuDeviceTotalMem", 3020, F(cuDeviceTotalMem_v2), NULL },
	{ "cuDriverGetVersion", 2020, F(cuDriverGetVersion), NULL },
	{ "cuEventCreate", 2000, F(cuEventCreate), NULL },
	{ "cuEventDestroy", 2000, F(cuEventDestroy), NULL },
	{ "cuEventDestroy", 4000, F(cuEventDestroy_v2), NULL },
	{ "cuEventElapsedTime", 2000, F(cuEventElapsedTime), NULL },
#if CUDA_VERSION >= 12080
	{ "cuEventElapsedTime", 12080, F(cuEventElapsedTime_v2), NULL },
#endif
	{ "cuEventQuery", 2000, F(cuEventQuery), NULL },
	{ "cuEventRecord", 2000, F(cuEventRecord), F(cuEventRecord_ptsz) },
	{ "cuEventRecordWithFlags", 11010, F(cuEventRecordWithFlags), F(cuEventRecordWithFlags_ptsz) },
	{ "cuEventSynchronize", 2000, F(cuEventSynchronize), NULL },
	{ "cuFuncGetAttribute", 2020, F(cuFuncGetAttribute), NULL },
	{ "cuFuncSetAttribute", 9000, F(cuFuncSetAttribute), NULL },
	{ "cuGetErrorName", 6000, F(cuGetErrorName), NULL },
	{ "cuGetErrorString", 6000, F(cuGetErrorString), NULL },
	{ "cuGetExportTable", 3000, F(cuGetExportTable), NULL },
	{ "cuGetProcAddress", 11030, F(cuGetProcAddress), NULL },
#if CUDA_VERSION >= 12000
	{ "cuGetProcAddress", 12000, F(cuGetProcAddress_v2), NULL },
#endif
	{ "cuGraphAddChildGraphNode", 10000, F(cuGraphAddChildGraphNode), NULL },
	{ "cuGraphAddEmptyNode", 10000, F(cuGraphAddEmptyNode), NULL },
	{ "cuGraphAddHostNode", 10000, F(cuGraphAddHostNode), NULL },
	{ "cuGraphAddKernelNode", 10000, F(cuGraphAddKernelNode), NULL },
#if CUDA_VERSION >= 12000
	{ "cuGraphAddKernelNode", 12000, F(cuGraphAddKernelNode_v2), NULL },
#endif
#if CUDA_VERSION >= 12040
	{ "cuGraphAddNode", 12020, F(cuGraphAddNode), NULL },
	{ "cuGraphAddNode", 12030, F(cuGraphAddNode_v2), NULL },
#endif
	{ "cuGraphAddMemAllocNode", 11040, F(cuGraphAddMemAllocNode), NULL },
	{ "cuGraphAddMemFreeNode", 11040, F(cuGraphAddMemFreeNode), NULL },
	{ "cuGraphAddMemsetNode", 10000, F(cuGraphAddMemsetNode), NULL },
	{ "cuGraphChildGraphNodeGetGraph", 10000, F(cuGraphChildGraphNodeGetGraph), NULL },
	{ "cuGraphCreate", 10000, F(cuGraphCreate), NULL },
	{ "cuGraphDestroy", 10000, F(cuGraphDestroy), NULL },
	{ "cuGraphExecDestroy", 10000, F(cuGraphExecDestroy), NULL },
	{ "cuGraphGetNodes", 10000, F(cuGraphGetNodes), NULL },
	{ "cuGraphInstantiate", 10000, F(cuGraphInstantiate), NULL },
	{ "cuGraphInstantiate", 11000, F(cuGraphInstantiate_v2), NULL },
	{ "cuGraphInstantiate", 12000, F(cuGraphInstantiateWithFlags), NULL },
	{ "cuGraphInstantiateWithFlags", 11040, F(cuGraphInstantiateWithFlags), NULL },
#if CUDA_VERSION >= 12000
	{ "cuGraphInstantiateWithParams", 12000, F(cuGraphInstantiateWithParams), F(cuGraphInstantiateWithParams_ptsz) },
#endif
	{ "cuGraphLaunch", 10000, F(cuGraphLaunch), F(cuGraphLaunch_ptsz) },
	{ "cuGraphMemAllocNodeGetParams", 11040, F(cuGraphMemAllocNodeGetParams), NULL },
	{ "cuGraphMemFreeNodeGetParams", 11040, F(cuGraphMemFreeNodeGetParams), NULL },
	{ "cuGraphUpload", 11010, F(cuGraphUpload), F(cuGraphUpload_ptsz) },
	{ "cuGraphNodeGetType", 10000, F(cuGraphNodeGetType), NULL },
	{ "cuInit", 2000, F(cuInit), NULL },
#if CUDA_VERSION >= 12000
#if CUDA_VERSION >= 11070
	{ "cuModuleGetLoadingMode", 11070, F(cuModuleGetLoadingMode), NULL },
#endif
	{ "cuOccupancyAvailableDynamicSMemPerBlock", 10020, F(cuOccupancyAvailableDynamicSMemPerBlock), NULL },
	{ "cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, F(cuOccupancyMaxActiveBlocksPerMultiprocessor), NULL },
	{ "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000,
	  F(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags), NULL },
#if CUDA_VERSION >= 11070
	{ "cuOccupancyMaxActiveClusters", 11070, F(cuOccupancyMaxActiveClusters), NULL },
	{ "cuOccupancyMaxPotentialClusterSize", 11070, F(cuOccupancyMaxPotentialClusterSize), NULL },
#endif
	{ "cuOccupancyMaxPotentialBlockSize", 6050, F(cuOccupancyMaxPotentialBlockSize), NULL },
	{ "cuOccupancyMaxPotentialBlockSizeWithFlags", 7000, F(cuOccupancyMaxPotentialBlockSizeWithFlags), NULL },
	{ "cuKernelGetAttribute", 12000, F(cuKernelGetAttribute), NULL },
	{ "cuKernelGetFunction", 12000, F(cuKernelGetFunction), NULL },
	{ "cuKernelSetAttribute", 12000, F(cuKernelSetAttribute), NULL },
	{ "cuKernelSetCacheConfig", 12000, F(cuKernelSetCacheConfig), NULL },
	{ "cuGraphKernelNodeGetParams", 12000, F(cuGraphKernelNodeGetParams_v2), NULL },
	{ "cuGraphExecKernelNodeSetParams", 12000, F(cuGraphExecKernelNodeSetParams_v2), NULL },
#endif
#if CUDA_VERSION >= 12050
	{ "cuKernelGetLibrary", 12050, F(cuKernelGetLibrary), NULL },
#endif
	/* What cuBLASLt dlsyms from libcuda.so.1 besides (issue 28). */
	{ "cuGraphKernelNodeGetParams", 10000, F(cuGraphKernelNodeGetParams), NULL },
	{ "cuGraphExecKernelNodeSetParams", 10010, F(cuGraphExecKernelNodeSetParams), NULL },
	{ "cuFuncSetCacheConfig", 3000, F(cuFuncSetCacheConfig), NULL },
	{ "cuPointerGetAttribute", 4000, F(cuPointerGetAttribute), NULL },
	{ "cuPointerGetAttributes", 7000, F(cuPointerGetAttributes), NULL },
	{ "cuCtxEnablePeerAccess", 4000, F(cuCtxEnablePeerAccess), NULL },
	{ "cuCtxDisablePeerAccess", 4000, F(cuCtxDisablePeerAccess), NULL },
	{ "cuLinkCreate", 5050, F(cuLinkCreate), NULL },
	{ "cuLinkCreate", 6050, F(cuLinkCreate_v2), NULL },
	{ "cuLinkAddData", 5050, F(cuLinkAddData), NULL },
	{ "cuLinkAddData", 6050, F(cuLinkAddData_v2), NULL },
	{ "cuLinkAddFile", 5050, F(cuLinkAddFile), NULL },
	{ "cuLinkAddFile", 6050, F(cuLinkAddFile_v2), NULL },
	{ "cuLinkComplete", 5050, F(cuLinkComplete), NULL },
	{ "cuLinkDestroy", 5050, F(cuLinkDestroy), NULL },
	{ "cuLaunch", 2000, F(cuLaunch), NULL },
	{ "cuLaunchGrid", 2000, F(cuLaunchGrid), NULL },
	{ "cuLaunchGridAsync", 2000, F(cuLaunchGridAsync), NULL },
	{ "cuLaunchCooperativeKernelMultiDevice", 9000, F(cuLaunchCooperativeKernelMultiDevice), NULL },
	{ "cuFuncSetBlockShape", 2000, F(cuFuncSetBlockShape), NULL },
	{ "cuFuncSetSharedSize", 2000, F(cuFuncSetSharedSize), NULL },
	{ "cuParamSetSize", 2000, F(cuParamSetSize), NULL },
	{ "cuParamSeti", 2000, F(cuParamSeti), NULL },
	{ "cuParamSetf", 2000, F(cuParamSetf), NULL },
	{ "cuParamSetv", 2000, F(cuParamSetv), NULL },
	{ "cuLaunchCooperativeKernel", 9000, F(cuLaunchCooperativeKernel), F(cuLaunchCooperativeKernel_ptsz) },
	{ "cuLaunchHostFunc", 10000, F(cuLaunchHostFunc), F(cuLaunchHostFunc_ptsz) },
	{ "cuLaunchKernel", 4000, F(cuLaunchKernel), F(cuLaunchKernel_ptsz) },
	{ "cuLaunchKernelEx", 11060, F(cuLaunchKernelEx), F(cuLaunchKernelEx_ptsz) },
#if CUDA_VERSION >= 12000
	{ "cuLibraryGetGlobal", 12000, F(cuLibraryGetGlobal), NULL },
#endif
#if CUDA_VERSION >= 12000
	{ "cuLibraryGetKernel", 12000, F(cuLibraryGetKernel), NULL },
#endif
#if CUDA_VERSION >= 12000
	{ "cuLibraryGetModule", 12000, F(cuLibraryGetModule), NULL },
#endif
#if CUDA_VERSION >= 12000
	{ "cuLibraryLoadData", 12000, F(cuLibraryLoadData), NULL },
#endif
#if CUDA_VERSION >= 12000
	{ "cuLibraryLoadFromFile", 12000, F(cuLibraryLoadFromFile), NULL },
#endif
#if CUDA_VERSION >= 12000
	{ "cuLibraryUnload", 12000, F(cuLibraryUnload), NULL },
#endif
#if CUDA_VERSION >= 12090	/* logs.c */
	{ "cuLogsCurrent", 12090, F(cuLogsCurrent), NULL },
	{ "cuLogsDumpToFile", 12090, F(cuLogsDumpToFile), NULL },
	{ "cuLogsDumpToMemory", 12090, F(cuLogsDumpToMemory), NULL },
	{ "cuLogsRegisterCallback", 12090, F(cuLogsRegisterCallback), NULL },
	{ "cuLogsUnregisterCallback", 12090, F(cuLogsUnregisterCallback), NULL },
#endif
	{ "cuMemAddressFree", 10020, F(cuMemAddressFree), NULL },
	{ "cuMemAddressReserve", 10020, F(cuMemAddressReserve), NULL },
	{ "cuMemAlloc", 2000, F(cuMemAlloc), NULL },
	{ "cuMemAlloc", 3020, F(cuMemAlloc_v2), NULL },
	{ "cuMemAllocAsync", 11020, F(cuMemAllocAsync), F(cuMemAllocAsync_ptsz) },
	{ "cuMemAllocFromPoolAsync", 11020, F(cuMemAllocFromPoolAsync), F(cuMemAllocFromPoolAsync_ptsz) },
	{ "cuMemAllocHost", 2000, F(cuMemAllocHost), NULL },
	{ "cuMemAllocHost", 3020, F(cuMemAllocHost_v2), NULL },
	{ "cuMemAllocManaged", 6000, F(cuMemAllocManaged), NULL },
	{ "cuMemAllocPitch", 2000, F(cuMemAllocPitch), NULL },
	{ "cuMemAllocPitch", 3020, F(cuMemAllocPitch_v2), NULL },
	{ "cuMemCreate", 10020, F(cuMemCreate), NULL },
	{ "cuMemExportToShareableHandle", 10020, F(cuMemExportToShareableHandle), NULL },
	{ "cuMemFree", 2000, F(cuMemFree), NULL },
	{ "cuMemFree", 3020, F(cuMemFree_v2), NULL },
	{ "cuMemFreeAsync", 11020, F(cuMemFreeAsync), F(cuMemFreeAsync_ptsz) },
	{ "cuMemFreeHost", 2000, F(cuMemFreeHost), NULL },
	{ "cuMemGetAccess", 10020, F(cuMemGetAccess), NULL },
	{ "cuMemGetAddressRange", 2000, F(cuMemGetAddressRange), NULL },
	{ "cuMemGetAddressRange", 3020, F(cuMemGetAddressRange_v2), NULL },
	{ "cuMemGetAllocationGranularity", 10020, F(cuMemGetAllocationGranularity), NULL },
	{ "cuMemGetAllocationPropertiesFromHandle", 10020, F(cuMemGetAllocationPropertiesFromHandle), NULL },
	{ "cuMemGetInfo", 2000, F(cuMemGetInfo), NULL },
	{ "cuMemGetInfo", 3020, F(cuMemGetInfo_v2), NULL },
	{ "cuMemHostAlloc", 2020, F(cuMemHostAlloc), NULL },
	{ "cuMemHostGetDevicePointer", 2020, F(cuMemHostGetDevicePointer), NULL },
	{ "cuMemHostGetDevicePointer", 3020, F(cuMemHostGetDevicePointer_v2), NULL },
	{ "cuMemHostRegister", 4000, F(cuMemHostRegister), NULL },
	{ "cuMemHostRegister", 6050, F(cuMemHostRegister_v2), NULL },
	{ "cuMemHostUnregister", 4000, F(cuMemHostUnregister), NULL },
	{ "cuMemImportFromShareableHandle", 10020, F(cuMemImportFromShareableHandle), NULL },
	{ "cuMemMap", 10020, F(cuMemMap), NULL },
#if CUDA_VERSION >= 13000
	{ "cuMemGetDefaultMemPool", 13000, F(cuMemGetDefaultMemPool), NULL },
	{ "cuMemGetMemPool", 13000, F(cuMemGetMemPool), NULL },
#endif
	{ "cuMemPoolCreate", 11020, F(cuMemPoolCreate), NULL },
	{ "cuMemPoolDestroy", 11020, F(cuMemPoolDestroy), NULL },
	{ "cuMemPoolGetAccess", 11020, F(cuMemPoolGetAccess), NULL },
	{ "cuMemPoolGetAttribute", 11020, F(cuMemPoolGetAttribute), NULL },
	{ "cuMemPoolSetAccess", 11020, F(cuMemPoolSetAccess), NULL },
	{ "cuMemPoolSetAttribute", 11020, F(cuMemPoolSetAttribute), NULL },
	{ "cuMemPoolTrimTo", 11020, F(cuMemPoolTrimTo), NULL },
	{ "cuMemPrefetchAsync", 8000, F(cuMemPrefetchAsync), F(cuMemPrefetchAsync_ptsz) },
	{ "cuMemPrefetchAsync", 12020, F(cuMemPrefetchAsync_v2), F(cuMemPrefetchAsync_v2_ptsz) },
	{ "cuMemRelease", 10020, F(cuMemRelease), NULL },
	{ "cuMemRetainAllocationHandle", 11000, F(cuMemRetainAllocationHandle), NULL },
	{ "cuMemSetAccess", 10020, F(cuMemSetAccess), NULL },
	{ "cuMemUnmap", 10020, F(cuMemUnmap), NULL },
	{ "cuMemcpy2D", 2000, F(cuMemcpy2D), NULL },
	{ "cuMemcpy2D", 3020, F(cuMemcpy2D_v2), F(cuMemcpy2D_v2_ptds) },
	{ "cuMemcpy2DAsync", 2000, F(cuMemcpy2DAsync), NULL },
	{ "cuMemcpy2DAsync", 3020, F(cuMemcpy2DAsync_v2), F(cuMemcpy2DAsync_v2_ptsz) },
	{ "cuMemcpy2DUnaligned", 2000, F(cuMemcpy2DUnaligned), NULL },
	{ "cuMemcpy2DUnaligned", 3020, F(cuMemcpy2DUnaligned_v2), F(cuMemcpy2DUnaligned_v2_ptds) },
	{ "cuMemcpy", 4000, F(cuMemcpy), F(cuMemcpy_ptds) },
	{ "cuMemcpy3D", 2000, F(cuMemcpy3D), NULL },
	{ "cuMemcpy3D", 3020, F(cuMemcpy3D_v2), F(cuMemcpy3D_v2_ptds) },
	{ "cuMemcpy3DAsync", 2000, F(cuMemcpy3DAsync), NULL },
	{ "cuMemcpy3DAsync", 3020, F(cuMemcpy3DAsync_v2), F(cuMemcpy3DAsync_v2_ptsz) },
	{ "cuMemcpy3DPeer", 4000, F(cuMemcpy3DPeer), F(cuMemcpy3DPeer_ptds) },
	{ "cuMemcpy3DPeerAsync", 4000, F(cuMemcpy3DPeerAsync), F(cuMemcpy3DPeerAsync_ptsz) },
	{ "cuMemcpyAsync", 4000, F(cuMemcpyAsync), F(cuMemcpyAsync_ptsz) },
	{ "cuMemcpyBatchAsync", 12080, F(cuMemcpyBatchAsync), F(cuMemcpyBatchAsync_ptsz) },
	{ "cuMemcpyBatchAsync", 13000, F(cuMemcpyBatchAsync_v2), F(cuMemcpyBatchAsync_v2_ptsz) },
	{ "cuMemcpyAtoA", 2000, F(cuMemcpyAtoA), NULL },
	{ "cuMemcpyAtoA", 3020, F(cuMemcpyAtoA_v2), F(cuMemcpyAtoA_v2_ptds) },
	{ "cuMemcpyAtoD", 2000, F(cuMemcpyAtoD), NULL },
	{ "cuMemcpyAtoD", 3020, F(cuMemcpyAtoD_v2), F(cuMemcpyAtoD_v2_ptds) },
	{ "cuMemcpyAtoH", 2000, F(cuMemcpyAtoH), NULL },
	{ "cuMemcpyAtoH", 3020, F(cuMemcpyAtoH_v2), F(cuMemcpyAtoH_v2_ptds) },
	{ "cuMemcpyDtoA", 2000, F(cuMemcpyDtoA), NULL },
	{ "cuMemcpyDtoA", 3020, F(cuMemcpyDtoA_v2), F(cuMemcpyDtoA_v2_ptds) },
	{ "cuMemcpyHtoA", 2000, F(cuMemcpyHtoA), NULL },
	{ "cuMemcpyHtoA", 3020, F(cuMemcpyHtoA_v2), F(cuMemcpyHtoA_v2_ptds) },
	{ "cuMemcpyAtoHAsync", 2000, F(cuMemcpyAtoHAsync), NULL },
	{ "cuMemcpyAtoHAsync", 3020, F(cuMemcpyAtoHAsync_v2), F(cuMemcpyAtoHAsync_v2_ptsz) },
	{ "cuMemcpyHtoAAsync", 2000, F(cuMemcpyHtoAAsync), NULL },
	{ "cuMemcpyHtoAAsync", 3020, F(cuMemcpyHtoAAsync_v2), F(cuMemcpyHtoAAsync_v2_ptsz) },
	{ "cuMemcpy3DBatchAsync", 12080, F(cuMemcpy3DBatchAsync), F(cuMemcpy3DBatchAsync_ptsz) },
	{ "cuMemcpy3DBatchAsync", 13000, F(cuMemcpy3DBatchAsync_v2), F(cuMemcpy3DBatchAsync_v2_ptsz) },
	{ "cuMemPrefetchBatchAsync", 13000, F(cuMemPrefetchBatchAsync), F(cuMemPrefetchBatchAsync_ptsz) },
	{ "cuMemDiscardAndPrefetchBatchAsync", 13000, F(cuMemDiscardAndPrefetchBatchAsync),
	  F(cuMemDiscardAndPrefetchBatchAsync_ptsz) },
#if CUDA_VERSION >= 13020	/* copyattr.c */
	{ "cuMemcpyWithAttributesAsync", 13020, F(cuMemcpyWithAttributesAsync),
	  F(cuMemcpyWithAttributesAsync_ptsz) },
	{ "cuMemcpy3DWithAttributesAsync", 13020, F(cuMemcpy3DWithAttributesAsync),
	  F(cuMemcpy3DWithAttributesAsync_ptsz) },
#endif
#if CUDA_VERSION >= 13050
	{ "cuFabricCpyBatchAsync", 13050, F(cuFabricCpyBatchAsync), F(cuFabricCpyBatchAsync_ptsz) },
#endif
	{ "cuMemcpyDtoD", 2000, F(cuMemcpyDtoD), NULL },
	{ "cuMemcpyDtoD", 3020, F(cuMemcpyDtoD_v2), F(cuMemcpyDtoD_v2_ptds) },
	{ "cuMemcpyDtoDAsync", 3000, F(cuMemcpyDtoDAsync), NULL },
	{ "cuMemcpyDtoDAsync", 3020, F(cuMemcpyDtoDAsync_v2), F(cuMemcpyDtoDAsync_v2_ptsz) },
	{ "cuMemcpyDtoH", 2000, F(cuMemcpyDtoH), NULL },
	{ "cuMemcpyDtoH", 3020, F(cuMemcpyDtoH_v2), F(cuMemcpyDtoH_v2_ptds) },
	{ "cuMemcpyDtoHAsync", 2000, F(cuMemcpyDtoHAsync), NULL },
	{ "cuMemcpyDtoHAsync", 3020, F(cuMemcpyDtoHAsync_v2), F(cuMemcpyDtoHAsync_v2_ptsz) },
	{ "cuMemcpyHtoD", 2000, F(cuMemcpyHtoD), NULL },
	{ "cuMemcpyHtoD", 3020, F(cuMemcpyHtoD_v2), F(cuMemcpyHtoD_v2_ptds) },
	{ "cuMemcpyHtoDAsync", 2000, F(cuMemcpyHtoDAsync), NULL },
	{ "cuMemcpyHtoDAsync", 3020, F(cuMemcpyHtoDAsync_v2), F(cuMemcpyHtoDAsync_v2_ptsz) },
	{ "cuMemcpyPeer", 4000, F(cuMemcpyPeer), F(cuMemcpyPeer_ptds) },
	{ "cuMemcpyPeerAsync", 4000, F(cuMemcpyPeerAsync), F(cuMemcpyPeerAsync_ptsz) },
	{ "cuMemsetD2D16", 2000, F(cuMemsetD2D16), NULL },
	{ "cuMemsetD2D16", 3020, F(cuMemsetD2D16_v2), F(cuMemsetD2D16_v2_ptds) },
	{ "cuMemsetD2D16Async", 3020, F(cuMemsetD2D16Async), F(cuMemsetD2D16Async_ptsz) },
	{ "cuMemsetD2D32", 2000, F(cuMemsetD2D32), NULL },
	{ "cuMemsetD2D32", 3020, F(cuMemsetD2D32_v2), F(cuMemsetD2D32_v2_ptds) },
	{ "cuMemsetD2D32Async", 3020, F(cuMemsetD2D32Async), F(cuMemsetD2D32Async_ptsz) },
	{ "cuMemsetD2D8", 2000, F(cuMemsetD2D8), NULL },
	{ "cuMemsetD2D8", 3020, F(cuMemsetD2D8_v2), F(cuMemsetD2D8_v2_ptds) },
	{ "cuMemsetD2D8Async", 3020, F(cuMemsetD2D8Async), F(cuMemsetD2D8Async_ptsz) },
	{ "cuMemsetD16", 2000, F(cuMemsetD16), NULL },
	{ "cuMemsetD16", 3020, F(cuMemsetD16_v2), F(cuMemsetD16_v2_ptds) },
	{ "cuMemsetD16Async", 3020, F(cuMemsetD16Async), F(cuMemsetD16Async_ptsz) },
	{ "cuMemsetD32", 2000, F(cuMemsetD32), NULL },
	{ "cuMemsetD32", 3020, F(cuMemsetD32_v2), F(cuMemsetD32_v2_ptds) },
	{ "cuMemsetD32Async", 3020, F(cuMemsetD32Async), F(cuMemsetD32Async_ptsz) },
	{ "cuMemsetD8", 2000, F(cuMemsetD8), NULL },
	{ "cuMemsetD8", 3020, F(cuMemsetD8_v2), F(cuMemsetD8_v2_ptds) },
	{ "cuMemsetD8Async", 3020, F(cuMemsetD8Async), F(cuMemsetD8Async_ptsz) },
	{ "cuMipmappedArrayCreate", 5000, F(cuMipmappedArrayCreate), NULL },
	{ "cuMipmappedArrayDestroy", 5000, F(cuMipmappedArrayDestroy), NULL },
	{ "cuModuleGetFunction", 2000, F(cuModuleGetFunction), NULL },
	{ "cuModuleGetGlobal", 2000, F(cuModuleGetGlobal), NULL },
	{ "cuModuleGetGlobal", 3020, F(cuModuleGetGlobal_v2), NULL },
	{ "cuModuleLoad", 2000, F(cuModuleLoad), NULL },
	{ "cuModuleLoadData", 2000, F(cuModuleLoadData), NULL },
	{ "cuModuleLoadDataEx", 2010, F(cuModuleLoadDataEx), NULL },
	{ "cuModuleLoadFatBinary", 2000, F(cuModuleLoadFatBinary), NULL },
	{ "cuModuleUnload", 2000, F(cuModuleUnload), NULL },
#if CUDA_VERSION >= 12010	/* multicast.c */
	{ "cuMulticastAddDevice", 12010, F(cuMulticastAddDevice), NULL },
	{ "cuMulticastBindAddr", 12010, F(cuMulticastBindAddr), NULL },
	{ "cuMulticastBindMem", 12010, F(cuMulticastBindMem), NULL },
	{ "cuMulticastCreate", 12010, F(cuMulticastCreate), NULL },
	{ "cuMulticastGetGranularity", 12010, F(cuMulticastGetGranularity), NULL },
	{ "cuMulticastUnbind", 12010, F(cuMulticastUnbind), NULL },
#endif
#if CUDA_VERSION >= 13010
	{ "cuMulticastBindAddr", 13010, F(cuMulticastBindAddr_v2), NULL },
	{ "cuMulticastBindMem", 13010, F(cuMulticastBindMem_v2), NULL },
#endif
	{ "cuStreamBatchMemOp", 8000, F(cuStreamBatchMemOp), F(cuStreamBatchMemOp_ptsz) },
	{ "cuStreamBatchMemOp", 11070, F(cuStreamBatchMemOp_v2), F(cuStreamBatchMemOp_v2_ptsz) },
	{ "cuStreamBeginCapture", 10000, F(cuStreamBeginCapture), F(cuStreamBeginCapture_ptsz) },
	{ "cuStreamBeginCapture", 10010, F(cuStreamBeginCapture_v2), F(cuStreamBeginCapture_v2_ptsz) },
#if CUDA_VERSION >= 12030
	{ "cuStreamBeginCaptureToGraph", 12030, F(cuStreamBeginCaptureToGraph), F(cuStreamBeginCaptureToGraph_ptsz) },
#endif
	{ "cuStreamCreate", 2000, F(cuStreamCreate), NULL },
	{ "cuStreamCreateWithPriority", 5050, F(cuStreamCreateWithPriority), NULL },
	{ "cuStreamDestroy", 2000, F(cuStreamDestroy), NULL },
	{ "cuStreamDestroy", 4000, F(cuStreamDestroy_v2), NULL },
	{ "cuStreamEndCapture", 10000, F(cuStreamEndCapture), F(cuStreamEndCapture_ptsz) },
	{ "cuStreamGetCaptureInfo", 10010, F(cuStreamGetCaptureInfo), NULL },
	{ "cuStreamGetCaptureInfo", 11030, F(cuStreamGetCaptureInfo_v2), NULL },
	{ "cuStreamGetCaptureInfo", 12030, F(cuStreamGetCaptureInfo_v3), F(cuStreamGetCaptureInfo_v3_ptsz) },
	{ "cuStreamGetCtx", 9020, F(cuStreamGetCtx), F(cuStreamGetCtx_ptsz) },
#if CUDA_VERSION >= 12050
	{ "cuStreamGetCtx", 12050, F(cuStreamGetCtx_v2), F(cuStreamGetCtx_v2_ptsz) },
#endif
#if CUDA_VERSION >= 12080
	{ "cuStreamGetDevice", 12080, F(cuStreamGetDevice), F(cuStreamGetDevice_ptsz) },
#endif
	{ "cuStreamGetFlags", 5050, F(cuStreamGetFlags), F(cuStreamGetFlags_ptsz) },
#if CUDA_VERSION >= 12000
	{ "cuStreamGetId", 12000, F(cuStreamGetId), F(cuStreamGetId_ptsz) },
#endif
	{ "cuStreamGetPriority", 5050, F(cuStreamGetPriority), F(cuStreamGetPriority_ptsz) },
	{ "cuStreamIsCapturing", 10000, F(cuStreamIsCapturing), F(cuStreamIsCapturing_ptsz) },
	{ "cuStreamQuery", 2000, F(cuStreamQuery), F(cuStreamQuery_ptsz) },
	{ "cuStreamSynchronize", 2000, F(cuStreamSynchronize), F(cuStreamSynchronize_ptsz) },
	{ "cuStreamWaitEvent", 3020, F(cuStreamWaitEvent), F(cuStreamWaitEvent_ptsz) },
	{ "cuStreamWaitValue32", 8000, F(cuStreamWaitValue32), F(cuStreamWaitValue32_ptsz) },
	{ "cuStreamWaitValue32", 11070, F(cuStreamWaitValue32_v2), F(cuStreamWaitValue32_v2_ptsz) },
	{ "cuStreamWaitValue64", 9000, F(cuStreamWaitValue64), F(cuStreamWaitValue64_ptsz) },
	{ "cuStreamWaitValue64", 11070, F(cuStreamWaitValue64_v2), F(cuStreamWaitValue64_v2_ptsz) },
	{ "cuStreamWriteValue32", 8000, F(cuStreamWriteValue32), F(cuStreamWriteValue32_ptsz) },
	{ "cuStreamWriteValue32", 11070, F(cuStreamWriteValue32_v2), F(cuStreamWriteValue32_v2_ptsz) },
	{ "cuStreamWriteValue64", 9000, F(cuStreamWriteValue64), F(cuStreamWriteValue64_ptsz) },
	{ "cuStreamWriteValue64", 11070, F(cuStreamWriteValue64_v2), F(cuStreamWriteValue64_v2_ptsz) },
	{ "cuThreadExchangeStreamCaptureMode", 10010, F(cuThreadExchangeStreamCaptureMode), NULL },
};

#define NROWS (sizeof(table) / sizeof(table[0]))

/* Returns the row, or NULL with *status saying why. */
static const struct sg_proc *lookup(const char *name, int version, int *status)
{
	const struct sg_proc *best = NULL;
	int known = 0;

	for (size_t i = 0; i < NROWS; i++) {
		if (strcmp(table[i].name, name))
			continue;
		known = 1;
		if (table[i].version <= version &&
		    (!best || table[i].version > best->version))
			best = &table[i];
	}
	*status = best ? 0 : known ? 2 : 1;
	return best;
}

static void *entry_fns[2 * NROWS];
static pthread_once_t entry_once = PTHREAD_ONCE_INIT;

/* Every function the table answers, once each, for entry.c. */
static void entry_init(void)
{
	size_t n = 0;

	for (size_t i = 0; i < NROWS; i++) {
		void *f[2] = { table[i].sym, table[i].ptsym };

		for (int k = 0; k < 2; k++) {
			size_t j = 0;

			while (f[k] && j < n && entry_fns[j] != f[k])
				j++;
			if (f[k] && j == n)
				entry_fns[n++] = f[k];
		}
	}
	sg_entry_build(entry_fns, n);
}

/* SIMGPU_TRACE_PROCADDR: "miss" logs each look-up answered
 * CUDA_ERROR_NOT_FOUND, "1" every look-up, on stderr ("trap" logs the
 * misses too and answers them with stubs that name themselves when
 * called, procmiss.c) (a test's tool: what
 * a program asks the driver for, and what simgpu lacks). */
static void trace(const char *symbol, int version, cuuint64_t flags, int status)
{
	const char *v = getenv("SIMGPU_TRACE_PROCADDR");

	if (!v || !*v || !strcmp(v, "0") || (status == 0 && strcmp(v, "1")))
		return;
	fprintf(stderr, "simgpu: cuGetProcAddress %s@%d flags %llu: %s\n", symbol, version,
		(unsigned long long)flags,
		status == 0 ? "found" : status == 2 ? "version not sufficient" : "not found");
}

static int sg_trace_trap(void)
{
	const char *v = getenv("SIMGPU_TRACE_PROCADDR");

	return v && !strcmp(v, "trap");
}

/* SIMGPU_PROCADDR_NEWER: the version from which cuMemAlloc is a newer
 * variant, or 0. Above every row's version, or said on stderr and unused. */
static int sg_newer_version(void)
{
	static int v = -1;
	const char *e;
	char *end;
	long n;

	if (__atomic_load_n(&v, __ATOMIC_RELAXED) >= 0)
		return v;
	e = getenv("SIMGPU_PROCADDR_NEWER");
	n = 0;
	if (e && *e) {
		n = strtol(e, &end, 10);
		if (*end || n <= CUDA_VERSION || n > 1000000) {
			fprintf(stderr, "simgpu: SIMGPU_PROCADDR_NEWER=\"%s\" is not an API "
				"version above this simgpu's %d; unused\n", e, CUDA_VERSION);
			n = 0;
		}
	}
	__atomic_store_n(&v, (int)n, __ATOMIC_RELAXED);
	return (int)n;
}

static CUresult get_proc(const char *symbol, void **pfn, int version,
			 cuuint64_t flags, int *status)
{
	const struct sg_proc *p;
	int newer;

	*status = 1;
	if (!symbol || !pfn)
		return CUDA_ERROR_INVALID_VALUE;
	*pfn = NULL;
	if (flags & ~(cuuint64_t)(CU_GET_PROC_ADDRESS_LEGACY_STREAM |
				  CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM))
		return CUDA_ERROR_INVALID_VALUE;
	newer = sg_newer_version();
	if (newer && version >= newer && !strcmp(symbol, "cuMemAlloc")) {
		*status = 0;
		trace(symbol, version, flags, 0);
		*pfn = (void *)simgpu_mem_alloc_newer;
		return CUDA_SUCCESS;
	}
	p = lookup(symbol, version, status);
	trace(symbol, version, flags, *status);
	if (!p && sg_trace_trap() && (*pfn = simgpu_procaddr_miss_stub(symbol)))
		return CUDA_SUCCESS;
	if (!p)
		return CUDA_ERROR_NOT_FOUND;
	pthread_once(&entry_once, entry_init);
	if ((flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && p->ptsym)
		*pfn = sg_entry_point(p->ptsym);
	else
		*pfn = sg_entry_point(p->sym);
	return CUDA_SUCCESS;
}

SG_API CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
	SG_GATE();
	int status;

#if CUDA_VERSION >= 12000
	if (simgpu_selfcall())
		return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
#endif
	return get_proc(symbol, pfn, cudaVersion, flags, &status);
}

#if CUDA_VERSION >= 12000
SG_API CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
				    cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
	SG_GATE();
	int status;
	CUresult rc = get_proc(symbol, pfn, cudaVersion, flags, &status);

	if (symbolStatus)
		*symbolStatus = status == 0 ? CU_GET_PROC_ADDRESS_SUCCESS :
				status == 2 ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT :
					      CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return rc;
}
#endif
