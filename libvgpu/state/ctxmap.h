/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The context map (ctxmap.c): which inventory GPU a context belongs to,
 * and the GPU of each thread's current context, for the compute gate.
 */
#ifndef VGPU_CTXMAP_H
#define VGPU_CTXMAP_H

#include "../access/hooks.h"

/* A context of inventory GPU gpu exists (created, retained, seen); if
 * current, it is now this thread's current context. */
void libvgpu_ctx_note(CUcontext c, int gpu, int current);
/* The context is gone: forget it. */
void libvgpu_ctx_forget(CUcontext c);
/* The calling thread's current context is now c (NULL: none). */
void libvgpu_ctx_became_current(CUcontext c);
/* The current context changed in a way not known (a pop that cannot be
 * followed): the thread asks the driver at its next launch. */
void libvgpu_ctx_unknown(void);
/* The GPU of the calling thread's current context, from the thread's
 * cache or the driver (VGPU_GPU_NONE if none in the inventory). */
int libvgpu_ctx_gpu(void);
/* The same, without even the thread's cache while the process has used
 * one GPU only. */
int libvgpu_current_gpu(void);
/* Up to max known contexts of inventory GPU gpu into out; their count
 * (the gate's drain synchronises them). */
int libvgpu_gpu_ctxs(int gpu, CUcontext *out, int max);
/* Streams may have changed hands (one destroyed): every thread asks
 * again for the GPU of a stream it launches on. */
void libvgpu_ctxmap_stale(void);
/* fork (the child is single-threaded) or a failed registration. */
void libvgpu_ctxmap_reset(void);

#endif
