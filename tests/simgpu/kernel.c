// SPDX-License-Identifier: GPL-2.0
/*
 * Per-device kernel attributes: cuKernelGetAttribute, cuKernelSetAttribute
 * and cuKernelSetCacheConfig (CUDA Driver API reference, "Library
 * Management"; CUDA 12.0). NVIDIA's runtime implements
 * cudaFuncSetAttribute and cudaFuncGetAttributes with them on a CUkernel
 * (its kernels come from cuLibraryLoadData); without them the runtime
 * answers cudaErrorCallRequiresNewerDriver, which is what made cuBLASLt's
 * cublasLtCtxInit fail (Documentation/simgpu.md, "PyTorch on simgpu").
 *
 * A CUkernel is simgpu's CUfunction (module.c). Its settable attributes
 * are kept once for every device: simgpu's GPUs are alike, so a value
 * valid on one is valid on all. The read-only attributes are those
 * cuFuncGetAttribute answers.
 */
#include "simgpu.h"

/* CU_FUNC_CACHE_PREFER_NONE .. CU_FUNC_CACHE_PREFER_EQUAL, the values
 * cuFuncSetCacheConfig and cuKernelSetCacheConfig take. */
static int sg_cache_config_ok(CUfunc_cache config)
{
	return (int)config >= CU_FUNC_CACHE_PREFER_NONE && config <= CU_FUNC_CACHE_PREFER_EQUAL;
}

/* "Sets the preferred cache configuration for a device function" (Driver
 * API reference, "Execution Control"): only a preference, checked and
 * kept nowhere, as simgpu has no L1 to split. cuBLASLt dlsyms it. */
SG_API CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (simgpu_func_check(hfunc))
		return CUDA_ERROR_INVALID_HANDLE;
	return sg_cache_config_ok(config) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

#if CUDA_VERSION >= 12000

/* The defaults of the settable attributes: dynamic shared memory up to
 * the device's per-block size without opting in (CU_DEVICE_ATTRIBUTE_
 * MAX_SHARED_MEMORY_PER_BLOCK, 48 KiB, less the kernel's static shared
 * memory, 0 here) and no carveout preference
 * (CU_SHAREDMEM_CARVEOUT_DEFAULT). */
static int sg_kattr_default(CUfunction_attribute a)
{
	switch (a) {
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: return 49152;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: return CU_SHAREDMEM_CARVEOUT_DEFAULT;
	default: return 0;
	}
}

/* Whether VAL may be set on attribute A (CUDA_SUCCESS), as the reference
 * lists them; the rest are read-only (CUDA_ERROR_INVALID_VALUE). */
static CUresult sg_kattr_valid(CUfunction_attribute a, int val, CUdevice dev)
{
	int optin = 0;

	switch (a) {
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
		/* "The sum of this value and the function attribute
		 * CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES cannot exceed the device
		 * attribute CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"
		 * (static shared memory is 0 here). */
		cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, dev);
		return val >= 0 && val <= optin ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
		/* a percentage, or CU_SHAREDMEM_CARVEOUT_DEFAULT (-1) */
		return val >= -1 && val <= 100 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
	case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
		/* "The validity of the cluster dimensions is checked at
		 * launch time": here only a negative size is refused. */
		return val >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
		return val == 0 || val == 1 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
	case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
		return val >= CU_CLUSTER_SCHEDULING_POLICY_DEFAULT &&
		       val <= CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING ?
		       CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
#if CUDA_VERSION >= 13050
	case CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE:
		return val >= CU_SHARED_MEMORY_MODE_DEFAULT &&
		       val <= CU_SHARED_MEMORY_MODE_PREFER_OVERSIZED_SHARED_MEMORY ?
		       CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
#endif
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult sg_kernel_check(CUkernel kernel, CUdevice dev, struct CUfunc_st **f)
{
	CUresult rc;

	SG_INIT_CHECK();
	*f = (struct CUfunc_st *)(void *)kernel;
	if (simgpu_func_check(*f))
		return CUDA_ERROR_INVALID_HANDLE;
	rc = simgpu_check_dev(dev);
	return rc;
}

SG_API CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev)
{
	SG_GATE();
	struct CUfunc_st *f;
	CUresult rc = sg_kernel_check(kernel, dev, &f);

	if (rc)
		return rc;
	if (!pi || (int)attrib < 0 || attrib >= CU_FUNC_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	if (sg_kattr_valid(attrib, sg_kattr_default(attrib), dev))
		return cuFuncGetAttribute(pi, attrib, f);	/* read-only */
	pthread_mutex_lock(&f->mod->lk);
	*pi = f->kset & (1u << attrib) ? f->kattr[attrib] : sg_kattr_default(attrib);
	pthread_mutex_unlock(&f->mod->lk);
	return CUDA_SUCCESS;
}

SG_API CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev)
{
	SG_GATE();
	struct CUfunc_st *f;
	CUresult rc = sg_kernel_check(kernel, dev, &f);

	if (rc)
		return rc;
	if ((int)attrib < 0 || attrib >= CU_FUNC_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	rc = sg_kattr_valid(attrib, val, dev);
	if (rc)
		return rc;
	pthread_mutex_lock(&f->mod->lk);
	f->kattr[attrib] = val;
	f->kset |= 1u << attrib;
	pthread_mutex_unlock(&f->mod->lk);
	return CUDA_SUCCESS;
}

/* "This is only a preference": checked, and kept nowhere (simgpu has no
 * L1 to split). */
SG_API CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev)
{
	SG_GATE();
	struct CUfunc_st *f;
	CUresult rc = sg_kernel_check(kernel, dev, &f);

	if (rc)
		return rc;
	return sg_cache_config_ok(config) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

#if CUDA_VERSION >= 12050
/* "Returns a library handle" (Driver API reference, "Library
 * Management", CUDA 12.5): the library a CUkernel came from. A
 * CUfunction of a module loaded by cuModuleLoad* is no CUkernel. */
SG_API CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel)
{
	SG_GATE();
	struct CUfunc_st *f = (struct CUfunc_st *)(void *)kernel;

	SG_INIT_CHECK();
	if (simgpu_func_check(f) || !f->mod || !f->mod->lib)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!pLib)
		return CUDA_ERROR_INVALID_VALUE;
	*pLib = f->mod->lib;
	return CUDA_SUCCESS;
}
#endif

#endif
