// SPDX-License-Identifier: GPL-2.0
/*
 * Modules, libraries and launches. Any image is accepted and any function
 * name resolves. A function whose name contains "simgpu_spin" keeps the
 * GPU busy for *(uint64_t *)kernelParams[0] nanoseconds; any other kernel
 * for SIMGPU_KERNEL_NS (10 us by default).
 *
 * A module's code and data take SIMGPU_MODULE_VRAM bytes of its context's
 * GPU once loaded (Programming Guide, "Lazy Loading"): with
 * CUDA_MODULE_LOADING=EAGER at cuModuleLoad* / cuLibraryLoad*; otherwise
 * (LAZY, the default since CUDA 12.2 on Linux) "loading a module
 * (cuModuleLoad*() family of functions) will not be loading kernels
 * immediately, instead it will delay loading of a kernel until
 * cuModuleGetFunction() is called": at the first cuModuleGetFunction /
 * cuLibraryGetKernel of the module (its kernels load together here). The
 * charge goes at unload or with the context.
 *
 * A library is context-independent (Driver API reference, "Library
 * Management": cuLibraryLoadData loads it "into all contexts existent at
 * the time of the call and future contexts", cuLibraryGetKernel returns
 * a kernel of the library, cuKernelGetFunction "the handle of the
 * function for the requested kernel and the current context"); lazily,
 * its code goes into a context at the first use of one of its kernels
 * there. So a library is charged once per (library, context), on that
 * context's device: with EAGER at its load (the current context), else at
 * cuKernelGetFunction, at the first launch of one of its kernels (a
 * CUkernel launched as a CUfunction) and at cuModuleGetFunction of its
 * module, in that context; not at cuLibraryGetKernel. Each goes at
 * cuLibraryUnload or with its context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simgpu.h"

static struct CUmod_st *modules;	/* under simgpu_lk */

static int lazy_loading(void)
{
	const char *v = getenv("CUDA_MODULE_LOADING");

	return !v || strcmp(v, "EAGER");
}

#if CUDA_VERSION >= 11070
/* "Query lazy loading mode" (Driver API reference, "Module Management"):
 * what CUDA_MODULE_LOADING chose, as lazy_loading() reads it. */
SG_API CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!mode)
		return CUDA_ERROR_INVALID_VALUE;
	*mode = lazy_loading() ? CU_MODULE_LAZY_LOADING : CU_MODULE_EAGER_LOADING;
	return CUDA_SUCCESS;
}
#endif

/* Load the module's code and data into VRAM, once; a library's into the
 * current context. */
static CUresult mod_charge(struct CUmod_st *m)
{
	CUresult rc = CUDA_SUCCESS;

	if (m->lib)
		return simgpu_lib_charge(m, simgpu_ctx_current());
	pthread_mutex_lock(&m->lk);
	if (!m->ctx)
		m->ctx = simgpu_ctx_current();
	if (!m->charged && simgpu_cfg.module_vram && m->ctx) {
		rc = simgpu_charge(m->ctx->dev, simgpu_cfg.module_vram);
		if (!rc)
			m->charged = simgpu_cfg.module_vram;
	}
	pthread_mutex_unlock(&m->lk);
	return rc;
}

static void mod_uncharge(struct CUmod_st *m)
{
	uint64_t n;

	if (m->lib) {
		simgpu_lib_uncharge(m, NULL);
		return;
	}
	pthread_mutex_lock(&m->lk);
	n = m->charged;
	m->charged = 0;
	pthread_mutex_unlock(&m->lk);
	if (n)
		simgpu_uncharge(m->ctx->dev, n);
}

static void mod_free(struct CUmod_st *m);

static CUresult mod_new(struct CUmod_st **out, struct CUlib_st *lib)
{
	struct CUmod_st *m = calloc(1, sizeof(*m));
	CUresult rc;

	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	m->magic = SG_MOD_MAGIC;
	m->ctx = simgpu_ctx_current();
	m->lazy = lazy_loading();
	m->lib = lib;
	pthread_mutex_init(&m->lk, NULL);
	pthread_mutex_lock(&simgpu_lk);
	m->all = modules;
	modules = m;
	pthread_mutex_unlock(&simgpu_lk);
	rc = m->lazy ? CUDA_SUCCESS : mod_charge(m);
	if (rc) {
		mod_free(m);
		return rc;
	}
	*out = m;
	return CUDA_SUCCESS;
}

void simgpu_module_release_ctx(struct CUctx_st *ctx)
{
	struct CUmod_st *head;

	/* Modules are never freed and only ever pushed at the head. */
	pthread_mutex_lock(&simgpu_lk);
	head = modules;
	pthread_mutex_unlock(&simgpu_lk);
	for (struct CUmod_st *m = head; m; m = m->all)
		if (m->lib)
			simgpu_lib_uncharge(m, ctx);
	for (;;) {
		struct CUmod_st *m;

		pthread_mutex_lock(&simgpu_lk);
		for (m = modules; m && (m->lib || m->ctx != ctx || !m->charged); m = m->all)
			;
		pthread_mutex_unlock(&simgpu_lk);
		if (!m)
			return;
		mod_uncharge(m);
	}
}

static void mod_free(struct CUmod_st *m)
{
	/* Functions stay allocated: launches may still be queued. */
	mod_uncharge(m);
	m->magic = 0;
	for (struct sg_global *g = m->globals, *n; g; g = n) {
		n = g->next;
		free(g->mem);
		free(g);
	}
	m->globals = NULL;
}

static CUresult mod_load(CUmodule *module, const void *image)
{
	struct CUctx_st *ctx;
	CUresult rc = simgpu_ctx_get(&ctx);

	if (rc)
		return rc;
	if (!module || !image)
		return CUDA_ERROR_INVALID_VALUE;
	return mod_new(module, NULL);
}

SG_API CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
	SG_GATE();
	return mod_load(module, image);
}

SG_API CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
				   CUjit_option *options, void **optionValues)
{
	SG_GATE();
	(void)numOptions; (void)options; (void)optionValues;
	return mod_load(module, image);
}

SG_API CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin)
{
	SG_GATE();
	return mod_load(module, fatCubin);
}

SG_API CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
	SG_GATE();
	if (!fname)
		return CUDA_ERROR_INVALID_VALUE;
	if (access(fname, R_OK))
		return CUDA_ERROR_FILE_NOT_FOUND;
	return mod_load(module, fname);
}

SG_API CUresult cuModuleUnload(CUmodule m)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!m || m->magic != SG_MOD_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	mod_free(m);
	return CUDA_SUCCESS;
}

/* load: the first kernel asked loads the module (lazy loading); not for
 * cuLibraryGetKernel, whose handle belongs to no context. */
static CUresult get_function(struct CUfunc_st **out, struct CUmod_st *m, const char *name,
			     int load)
{
	struct CUfunc_st *f;

	SG_INIT_CHECK();
	if (!m || m->magic != SG_MOD_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!out || !name || !*name)
		return CUDA_ERROR_INVALID_VALUE;
	if (load && mod_charge(m))
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&m->lk);
	for (f = m->funcs; f; f = f->next)
		if (!strcmp(f->name, name))
			break;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (f) {
			f->magic = SG_FUNC_MAGIC;
			f->mod = m;
			snprintf(f->name, sizeof(f->name), "%s", name);
			f->spin = strstr(name, "simgpu_spin") != NULL;
			f->next = m->funcs;
			m->funcs = f;
		}
	}
	pthread_mutex_unlock(&m->lk);
	if (!f)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*out = f;
	return CUDA_SUCCESS;
}

SG_API CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
	SG_GATE();
	return get_function(hfunc, hmod, name, 1);
}

/* simgpu does not read a module's symbol table, so every global has one
 * size: 64 KiB, the constant bank's (CUDA Programming Guide, "Device
 * Memory Accesses": 64 KB of constant memory), so that a runtime's
 * cudaMemcpyToSymbol of a __constant__ array fits (cuBLAS copies more
 * than 256 bytes to its cublas::internal::deviceConstants at start).
 */
#define SG_GLOBAL_BYTES 65536

static CUresult get_global(struct CUmod_st *m, const char *name, void **mem, size_t *bytes)
{
	struct sg_global *g;

	SG_INIT_CHECK();
	if (!m || m->magic != SG_MOD_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!name)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&m->lk);
	for (g = m->globals; g; g = g->next)
		if (!strcmp(g->name, name))
			break;
	if (!g) {
		struct sg_range r = { 0 };

		g = calloc(1, sizeof(*g));
		if (g)
			g->mem = calloc(1, SG_GLOBAL_BYTES);
		if (g && g->mem) {
			snprintf(g->name, sizeof(g->name), "%s", name);
			g->next = m->globals;
			m->globals = g;
			r.base = (uintptr_t)g->mem;
			r.size = r.mapsize = SG_GLOBAL_BYTES;
			r.kind = SG_MEM_GLOBAL;
			r.dev = m->ctx ? m->ctx->dev : 0;
			simgpu_range_add(&r);
		} else if (g) {
			free(g);
			g = NULL;
		}
	}
	pthread_mutex_unlock(&m->lk);
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*mem = g->mem;
	*bytes = SG_GLOBAL_BYTES;
	return CUDA_SUCCESS;
}

SG_API CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
	SG_GATE();
	void *mem;
	size_t n;
	CUresult rc = get_global(hmod, name, &mem, &n);

	if (rc)
		return rc;
	if (dptr)
		*dptr = (CUdeviceptr)(uintptr_t)mem;
	if (bytes)
		*bytes = n;
	return CUDA_SUCCESS;
}

#if CUDA_VERSION >= 12000
/* ---- libraries (context-independent modules) ---- */

static CUresult lib_load(CUlibrary *library, const void *code)
{
	struct CUlib_st *l;
	CUresult rc;

	SG_INIT_CHECK();
	if (!library || !code)
		return CUDA_ERROR_INVALID_VALUE;
	l = calloc(1, sizeof(*l));
	if (!l)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = mod_new(&l->mod, l);
	if (rc) {
		free(l);
		return rc;
	}
	l->magic = SG_LIB_MAGIC;
	*library = l;
	return CUDA_SUCCESS;
}

SG_API CUresult cuLibraryLoadData(CUlibrary *library, const void *code,
				  CUjit_option *jitOptions, void **jitOptionsValues, unsigned int numJitOptions,
				  CUlibraryOption *libraryOptions, void **libraryOptionValues,
				  unsigned int numLibraryOptions)
{
	SG_GATE();
	(void)jitOptions; (void)jitOptionsValues; (void)numJitOptions;
	(void)libraryOptions; (void)libraryOptionValues; (void)numLibraryOptions;
	return lib_load(library, code);
}

SG_API CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName,
				      CUjit_option *jitOptions, void **jitOptionsValues, unsigned int numJitOptions,
				      CUlibraryOption *libraryOptions, void **libraryOptionValues,
				      unsigned int numLibraryOptions)
{
	SG_GATE();
	(void)jitOptions; (void)jitOptionsValues; (void)numJitOptions;
	(void)libraryOptions; (void)libraryOptionValues; (void)numLibraryOptions;
	if (!fileName)
		return CUDA_ERROR_INVALID_VALUE;
	if (access(fileName, R_OK))
		return CUDA_ERROR_FILE_NOT_FOUND;
	return lib_load(library, fileName);
}

SG_API CUresult cuLibraryUnload(CUlibrary library)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!library || library->magic != SG_LIB_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	library->magic = 0;
	mod_free(library->mod);
	return CUDA_SUCCESS;
}

SG_API CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name)
{
	SG_GATE();
	struct CUfunc_st *f;
	CUresult rc;

	SG_INIT_CHECK();
	if (!library || library->magic != SG_LIB_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = get_function(&f, library->mod, name, 0);
	if (!rc) {
		if (!pKernel)
			return CUDA_ERROR_INVALID_VALUE;
		/* As with the real driver, a CUkernel may be launched as a
		 * CUfunction: here they are the same object. */
		*pKernel = (CUkernel)(void *)f;
	}
	return rc;
}

SG_API CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!library || library->magic != SG_LIB_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!pMod)
		return CUDA_ERROR_INVALID_VALUE;
	*pMod = library->mod;
	return CUDA_SUCCESS;
}

SG_API CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!library || library->magic != SG_LIB_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	return cuModuleGetGlobal_v2(dptr, bytes, library->mod, name);
}

SG_API CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	SG_GATE();
	struct CUfunc_st *f = (struct CUfunc_st *)(void *)kernel;

	SG_INIT_CHECK();
	if (!f || f->magic != SG_FUNC_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!pFunc)
		return CUDA_ERROR_INVALID_VALUE;
	/* "Returns a handle to the function for the requested kernel and
	 * the current context": the library's code loads into it here. */
	if (f->mod && f->mod->magic == SG_MOD_MAGIC && mod_charge(f->mod))
		return CUDA_ERROR_OUT_OF_MEMORY;
	*pFunc = f;
	return CUDA_SUCCESS;
}

#endif

SG_API CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (simgpu_func_check(hfunc))
		return CUDA_ERROR_INVALID_HANDLE;
	if (!pi)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *pi = 1024; break;
	case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = 16; break;
	case CU_FUNC_ATTRIBUTE_PTX_VERSION: *pi = 90; break;
	case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *pi = 90; break;
	default: *pi = 0; break;
	}
	return CUDA_SUCCESS;
}

SG_API CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
	SG_GATE();
	(void)attrib; (void)value;
	SG_INIT_CHECK();
	return simgpu_func_check(hfunc) ? CUDA_ERROR_INVALID_HANDLE : CUDA_SUCCESS;
}

/* ---- launches ---- */

CUresult simgpu_func_check(CUfunction f)
{
	return f && f->magic == SG_FUNC_MAGIC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

uint64_t simgpu_kernel_ns(struct CUfunc_st *f, void **params, void **extra)
{
	uint64_t ns = 0;

	if (!f->spin)
		return simgpu_cfg.kernel_ns;
	if (params && params[0]) {
		memcpy(&ns, params[0], sizeof(ns));
		return ns;
	}
	/* CU_LAUNCH_PARAM_BUFFER_POINTER: the first 8 bytes of the buffer. */
	for (int i = 0; extra && extra[i] != CU_LAUNCH_PARAM_END && i < 16; i += 2)
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER && extra[i + 1])
			memcpy(&ns, extra[i + 1], sizeof(ns));
	return ns;
}

CUresult simgpu_launch(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
		       unsigned int bx, unsigned int by, unsigned int bz,
		       CUstream h, void **params, void **extra, int ptds)
{
	struct CUstream_st *s;
	struct sg_op *op;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	if (simgpu_func_check(f))
		return CUDA_ERROR_INVALID_HANDLE;
	/* A library's kernel first used in this context loads its code. */
	if (f->mod && f->mod->lib && f->mod->magic == SG_MOD_MAGIC &&
	    simgpu_lib_charge(f->mod, s->ctx))
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (!gx || !gy || !gz || !bx || !by || !bz ||
	    (uint64_t)bx * by * bz > 1024 || gy > 65535 || gz > 65535)
		return CUDA_ERROR_INVALID_VALUE;
	op = simgpu_op_new(SG_OP_KERNEL);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->ns = simgpu_kernel_ns(f, params, extra);
	op->kp = (struct sg_kparams){ .func = f, .grid = { gx, gy, gz }, .block = { bx, by, bz },
				      .params = params, .extra = extra, .ctx = s->ctx };
	return simgpu_stream_submit(s, op);
}

SG_API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
			       unsigned int bx, unsigned int by, unsigned int bz,
			       unsigned int shmem, CUstream h, void **params, void **extra)
{
	SG_GATE();
	(void)shmem;
	return simgpu_launch(f, gx, gy, gz, bx, by, bz, h, params, extra, 0);
}

SG_API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
				    unsigned int bx, unsigned int by, unsigned int bz,
				    unsigned int shmem, CUstream h, void **params, void **extra)
{
	SG_GATE();
	(void)shmem;
	return simgpu_launch(f, gx, gy, gz, bx, by, bz, h, params, extra, 1);
}

SG_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy,
					  unsigned int gz, unsigned int bx, unsigned int by,
					  unsigned int bz, unsigned int shmem, CUstream h,
					  void **params)
{
	SG_GATE();
	(void)shmem;
	return simgpu_launch(f, gx, gy, gz, bx, by, bz, h, params, NULL, 0);
}

SG_API CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
					       unsigned int gz, unsigned int bx, unsigned int by,
					       unsigned int bz, unsigned int shmem, CUstream h,
					       void **params)
{
	SG_GATE();
	(void)shmem;
	return simgpu_launch(f, gx, gy, gz, bx, by, bz, h, params, NULL, 1);
}

static CUresult launch_ex(const CUlaunchConfig *c, CUfunction f, void **params,
			  void **extra, int ptds)
{
	SG_INIT_CHECK();
	if (!c)
		return CUDA_ERROR_INVALID_VALUE;
	return simgpu_launch(f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX,
		      c->blockDimY, c->blockDimZ, c->hStream, params, extra, ptds);
}

SG_API CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
	SG_GATE();
	return launch_ex(config, f, params, extra, 0);
}

SG_API CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
	SG_GATE();
	return launch_ex(config, f, params, extra, 1);
}
