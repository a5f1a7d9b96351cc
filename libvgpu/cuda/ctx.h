/* SPDX-License-Identifier: GPL-2.0 */
/* Contexts charged what they take (ctx.c), also for greenctx.c. */
#ifndef VGPU_CTX_H
#define VGPU_CTX_H

#include <stdint.h>

#include "../access/hooks.h"

/* A context creation being measured: its GPU, the device's used bytes
 * before. */
struct libvgpu_ctx_measure {
	int gpu;
	int ok;
	uint64_t before;
	CUdevice dev;
};

/* Before creating a context on dev: 0, or CUDA_ERROR_OUT_OF_MEMORY if the
 * process may not use the GPU at all. */
CUresult libvgpu_ctx_measure_start(struct libvgpu_ctx_measure *m, CUdevice dev);
/* After the context c was created: charge what it took, bound to c; 0,
 * or CUDA_ERROR_OUT_OF_MEMORY when refused (the caller destroys c). */
CUresult libvgpu_ctx_measure_end(struct libvgpu_ctx_measure *m, CUcontext c);
/* The context c is gone: give back its charge and everything bound to
 * it. */
void libvgpu_ctx_gone(CUcontext c);
/* The bodies of the cuDevicePrimaryCtxRetain and _Release_v2 wrappers,
 * for greenctx.c: libvgpu never calls its own exports (nest.h). */
CUresult libvgpu_primary_retain(CUcontext *pctx, CUdevice dev);
CUresult libvgpu_primary_release(CUdevice dev);
/* A forked child forgets the parent's primary contexts (init.c). */
void libvgpu_ctx_reset(void);

#endif
