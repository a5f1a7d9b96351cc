// SPDX-License-Identifier: GPL-2.0
/*
 * Context memory that grows after the context was measured (ctx.c):
 * modules and libraries loaded into it, and the stack, printf FIFO and
 * malloc heap that cuCtxSetLimit sizes. Each such call is re-measured: the
 * process's own used memory on the context's device (NVML's running
 * processes, as for contexts) just before and just after the real call;
 * the growth is charged to the context's GPU, bound to the context:
 *
 * - cuModuleLoad, cuModuleLoadData(Ex), cuModuleLoadFatBinary,
 *   cuLibraryLoadData, cuLibraryLoadFromFile: the growth (eager loading)
 *   is charged to the module or library; a refusal unloads it again and
 *   fails the call with CUDA_ERROR_OUT_OF_MEMORY;
 * - cuModuleGetFunction, cuLibraryGetKernel: with lazy loading (the
 *   default since CUDA 12.2) a kernel is loaded here, its growth added to
 *   its module's or library's charge; a refusal fails the call with
 *   CUDA_ERROR_OUT_OF_MEMORY (the driver keeps what it loaded, uncharged);
 * - a library's kernel first used in a context (a launch of the CUkernel,
 *   cuKernelGetFunction): measured there, added to the library's charge
 *   (lazyload.c);
 * - cuModuleUnload, cuLibraryUnload give the charge back;
 * - cuCtxSetLimit: a growth is added to the context's limit charge (a
 *   refusal sets the limit back and fails with CUDA_ERROR_OUT_OF_MEMORY),
 *   a shrink gives back, at most what the limits were charged.
 * Everything goes with the context (ctx.c). Two NVML queries per call:
 * these calls are rare (a kernel's handle is asked once). What another
 * thread of the process allocates during the call is counted too (an
 * over-estimate); without NVML per-process figures nothing is charged.
 */
#include <errno.h>

#include "../policy/account.h"
#include "growth.h"
#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "../logic/ptrmap.h"
#include "../policy/register.h"
#include "../access/nest.h"
#include "lazyload.h"

/* ---- modules ---- */

static CUresult mod_loaded(struct libvgpu_growth *g, CUresult rc, CUmodule *m)
{
	vgpu_pfn_cuModuleUnload unload = REAL(cuModuleUnload);

	if (rc || !m)
		return rc;
	if (libvgpu_grow_end(g, VGPU_K_MOD, (uint64_t)(uintptr_t)*m)) {
		libvgpu_log(VGPU_LOG_INFO, "module load refused: over the tenant's vram-max");
		if (unload)
			unload(*m);
		*m = NULL;
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return rc;
}

VGPU_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
	VGPU_PASS_NESTED(cuModuleLoad, (module, fname));
	vgpu_pfn_cuModuleLoad real = REAL(cuModuleLoad);
	struct libvgpu_growth g;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_grow_start(&g);
	return mod_loaded(&g, real(module, fname), module);
}

VGPU_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
	VGPU_PASS_NESTED(cuModuleLoadData, (module, image));
	vgpu_pfn_cuModuleLoadData real = REAL(cuModuleLoadData);
	struct libvgpu_growth g;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_grow_start(&g);
	return mod_loaded(&g, real(module, image), module);
}

VGPU_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image,
					unsigned int numOptions, CUjit_option *options,
					void **optionValues)
{
	VGPU_PASS_NESTED(cuModuleLoadDataEx, (module, image, numOptions, options, optionValues));
	vgpu_pfn_cuModuleLoadDataEx real = REAL(cuModuleLoadDataEx);
	struct libvgpu_growth g;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_grow_start(&g);
	return mod_loaded(&g, real(module, image, numOptions, options, optionValues), module);
}

VGPU_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
	VGPU_PASS_NESTED(cuModuleLoadFatBinary, (module, fatCubin));
	vgpu_pfn_cuModuleLoadFatBinary real = REAL(cuModuleLoadFatBinary);
	struct libvgpu_growth g;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_grow_start(&g);
	return mod_loaded(&g, real(module, fatCubin), module);
}

VGPU_EXPORT CUresult cuModuleUnload(CUmodule hmod)
{
	VGPU_PASS_NESTED(cuModuleUnload, (hmod));
	vgpu_pfn_cuModuleUnload real = REAL(cuModuleUnload);
	struct vgpu_alloc a;
	int taken;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	taken = libvgpu_take(VGPU_K_MOD, (uint64_t)(uintptr_t)hmod, &a);
	rc = real(hmod);
	libvgpu_free_done(taken, &a, rc);
	return rc;
}

VGPU_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	VGPU_PASS_NESTED(cuModuleGetFunction, (hfunc, hmod, name));
	vgpu_pfn_cuModuleGetFunction real = REAL(cuModuleGetFunction);
	struct libvgpu_growth g;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_grow_start(&g);
	rc = real(hfunc, hmod, name);
	if (!rc && libvgpu_grow_end(&g, VGPU_K_MOD, (uint64_t)(uintptr_t)hmod)) {
		libvgpu_log(VGPU_LOG_INFO, "loading kernel %s refused: over the tenant's vram-max",
			    name);
		rc = CUDA_ERROR_OUT_OF_MEMORY;
	}
	return rc;
}

/* ---- libraries ---- */

#if CUDA_VERSION >= 12000
static CUresult lib_loaded(struct libvgpu_growth *g, CUresult rc, CUlibrary *l)
{
	vgpu_pfn_cuLibraryUnload unload = REAL(cuLibraryUnload);

	if (rc || !l)
		return rc;
	if (libvgpu_grow_end(g, VGPU_K_MOD, (uint64_t)(uintptr_t)*l)) {
		libvgpu_log(VGPU_LOG_INFO, "library load refused: over the tenant's vram-max");
		if (unload)
			unload(*l);
		*l = NULL;
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return rc;
}

VGPU_EXPORT CUresult cuLibraryLoadData(CUlibrary *library, const void *code,
				       CUjit_option *jitOptions, void **jitOptionsValues,
				       unsigned int numJitOptions, CUlibraryOption *libraryOptions,
				       void **libraryOptionValues, unsigned int numLibraryOptions)
{
	VGPU_PASS_NESTED(cuLibraryLoadData, (library, code, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions));
	vgpu_pfn_cuLibraryLoadData real = REAL(cuLibraryLoadData);
	struct libvgpu_growth g;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_grow_start(&g);
	return lib_loaded(&g, real(library, code, jitOptions, jitOptionsValues, numJitOptions,
				   libraryOptions, libraryOptionValues, numLibraryOptions),
			  library);
}

VGPU_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
					   CUjit_option *jitOptions, void **jitOptionsValues,
					   unsigned int numJitOptions,
					   CUlibraryOption *libraryOptions,
					   void **libraryOptionValues,
					   unsigned int numLibraryOptions)
{
	VGPU_PASS_NESTED(cuLibraryLoadFromFile, (library, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions, libraryOptionValues, numLibraryOptions));
	vgpu_pfn_cuLibraryLoadFromFile real = REAL(cuLibraryLoadFromFile);
	struct libvgpu_growth g;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_grow_start(&g);
	return lib_loaded(&g, real(library, fileName, jitOptions, jitOptionsValues, numJitOptions,
				   libraryOptions, libraryOptionValues, numLibraryOptions),
			  library);
}

VGPU_EXPORT CUresult cuLibraryUnload(CUlibrary library)
{
	VGPU_PASS_NESTED(cuLibraryUnload, (library));
	vgpu_pfn_cuLibraryUnload real = REAL(cuLibraryUnload);
	struct vgpu_alloc a;
	int taken;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	taken = libvgpu_take(VGPU_K_MOD, (uint64_t)(uintptr_t)library, &a);
	libvgpu_lazy_unload(library);
	rc = real(library);
	libvgpu_free_done(taken, &a, rc);
	return rc;
}

VGPU_EXPORT CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
	VGPU_PASS_NESTED(cuLibraryGetKernel, (pKernel, library, name));
	vgpu_pfn_cuLibraryGetKernel real = REAL(cuLibraryGetKernel);
	struct libvgpu_growth g;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_grow_start(&g);
	rc = real(pKernel, library, name);
	if (!rc && libvgpu_grow_end(&g, VGPU_K_MOD, (uint64_t)(uintptr_t)library)) {
		libvgpu_log(VGPU_LOG_INFO, "loading kernel %s refused: over the tenant's vram-max",
			    name);
		rc = CUDA_ERROR_OUT_OF_MEMORY;
	}
	/* A kernel handle belongs to no context: its code loads at its
	 * first use in each (lazyload.c). */
	if (!rc && pKernel && vgpu_active())
		libvgpu_lazy_kernel(*pKernel, library);
	return rc;
}
#endif

/* ---- limits ---- */

VGPU_EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
	VGPU_PASS_NESTED(cuCtxSetLimit, (limit, value));
	vgpu_pfn_cuCtxSetLimit real = REAL(cuCtxSetLimit);
	vgpu_pfn_cuCtxGetLimit get = REAL(cuCtxGetLimit);
	struct libvgpu_growth g;
	size_t old = 0;
	int have_old;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	have_old = get && get(&old, limit) == CUDA_SUCCESS;
	libvgpu_grow_start(&g);
	rc = real(limit, value);
	if (!rc && libvgpu_grow_end(&g, VGPU_K_LIMIT, (uint64_t)(uintptr_t)g.ctx)) {
		libvgpu_log(VGPU_LOG_INFO, "limit %d of %zu bytes refused: over the tenant's "
			    "vram-max", (int)limit, value);
		if (have_old)
			real(limit, old);
		rc = CUDA_ERROR_OUT_OF_MEMORY;
	}
	return rc;
}
