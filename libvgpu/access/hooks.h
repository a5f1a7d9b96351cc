/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations generated from hooks.def: the exported wrappers, the types
 * of the real functions, REAL() to reach them. See hooks.def.
 */
#ifndef VGPU_HOOKS_H
#define VGPU_HOOKS_H

/* As NVIDIA builds its driver: no macro renames a versioned name, and the
 * legacy and per-thread-stream prototypes are declared. */
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
#include <nvml.h>

#if !defined(CUDA_VERSION) || CUDA_VERSION < 11080
#error "libvgpu needs cuda.h from CUDA 11.8 or later"
#endif

#if CUDA_VERSION >= 13000
/* cuda.h 13 declares these only in its internal block; make sure. */
CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);
#endif

#define VGPU_EXPORT __attribute__((visibility("default")))

enum vgpu_lib { VGPU_LIB_CU, VGPU_LIB_NV, VGPU_LIB_COUNT };

enum vgpu_hook_id {
#define HOOK(lib, sym, base, ret, params) VGPU_HOOK_##sym,
#define NEED(lib, sym, ret, params) VGPU_HOOK_##sym,
#include "../hooks.def"
	VGPU_HOOK_COUNT
};

#define HOOK(lib, sym, base, ret, params) \
	typedef ret (*vgpu_pfn_##sym) params; VGPU_EXPORT ret sym params;
#define NEED(lib, sym, ret, params) typedef ret (*vgpu_pfn_##sym) params;
#include "../hooks.def"

struct vgpu_hook {
	const char *name;	/* exported, versioned symbol */
	const char *base;	/* name asked of cuGetProcAddress; NULL: NEED row */
	int lib;		/* enum vgpu_lib */
	void *wrapper;		/* libvgpu's definition; NULL: NEED row */
};

extern const struct vgpu_hook libvgpu_hooks[VGPU_HOOK_COUNT];
extern void *libvgpu_real[VGPU_HOOK_COUNT];
extern const char *const libvgpu_lib_names[VGPU_LIB_COUNT];

/* Resolve lib's real functions (dlopen RTLD_NOLOAD first, then load it
 * unless noload); 0 once they are, -1 when the library is absent. */
int libvgpu_real_load(int lib, int noload);
void *libvgpu_real_get(int id);
/* A forked child re-initialises the loading lock (init.c). */
void libvgpu_hooks_reset(void);
#define REAL(sym) ((vgpu_pfn_##sym)libvgpu_real_get(VGPU_HOOK_##sym))
/* The same without a call once resolved (launch paths). */
static inline void *vgpu_real_hot(int id)
{
	void *fn = __atomic_load_n(&libvgpu_real[id], __ATOMIC_RELAXED);

	return fn ? fn : libvgpu_real_get(id);
}

/* The wrapper of the hooked symbol whose real address is fn, or fn. */
void *libvgpu_hook_wrap(int lib, void *fn);
/* Index of the HOOK row exporting name, or -1. */
int libvgpu_hook_find(const char *name);
/* Is p the address of one of libvgpu's wrappers? */
int libvgpu_hook_is_wrapper(const void *p);

#endif
