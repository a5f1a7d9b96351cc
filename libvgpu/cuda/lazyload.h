/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A library's kernel loaded lazily into a context at its first use there
 * (lazyload.c): the launches' test for it, one load on the fast path.
 */
#ifndef VGPU_LAZYLOAD_H
#define VGPU_LAZYLOAD_H

#include <stdint.h>

#include "../access/hooks.h"

#define VGPU_LAZY_SLOTS 4096

/* Per hash slot of a handle: how many kernels hashing there have a known
 * context they were not measured in. */
extern uint32_t libvgpu_lazy_pend[VGPU_LAZY_SLOTS];

static inline unsigned int vgpu_lazy_slot(const void *f)
{
	return (unsigned int)(((uintptr_t)f * 0x9E3779B97F4A7C15ull) >> 52);
}

/* Whether a launch of f must go by the slow path to measure a load. */
static inline int vgpu_lazy_pending(const void *f)
{
	return f && __atomic_load_n(&libvgpu_lazy_pend[vgpu_lazy_slot(f)], __ATOMIC_RELAXED);
}

/* cuLibraryGetKernel gave k of lib (measured in no context yet). */
void libvgpu_lazy_kernel(CUkernel k, CUlibrary lib);
/* A context exists (created or retained) / is gone. */
void libvgpu_lazy_ctx_note(CUcontext c);
void libvgpu_lazy_ctx_gone(CUcontext c);
/* The library goes: forget its kernels. */
void libvgpu_lazy_unload(CUlibrary lib);
/* Before a launch of f whose slot is pending: if f is a library's kernel
 * not yet measured in the current context, load it there
 * (cuKernelGetFunction) and charge the growth to its library.
 * CUDA_SUCCESS, or CUDA_ERROR_OUT_OF_MEMORY (refused: do not launch). */
CUresult libvgpu_lazy_use(const void *f);
/* In a forked child. */
void libvgpu_lazy_reset(void);

#endif
