/* SPDX-License-Identifier: GPL-2.0 */
/* The process's use of a device, and its growth across a call (growth.c). */
#ifndef VGPU_GROWTH_H
#define VGPU_GROWTH_H

#include <stdint.h>

#include "../access/hooks.h"

/* What this process holds on CUDA device dev (NVML's running processes;
 * else the whole device's used memory): 0, or -1 when unknown. */
int libvgpu_dev_used(CUdevice dev, uint64_t *used);
/* In a forked child: the lock anew. */
void libvgpu_growth_reset(void);

/* A growth of the process's use on the current context's device,
 * measured around a driver call (ctxgrow.c). */
struct libvgpu_growth {
	int gpu;		/* < 0: not measured */
	CUdevice dev;
	CUcontext ctx;
	uint64_t before;
};
void libvgpu_grow_start(struct libvgpu_growth *g);
/* Charge the growth to (kind, key), bound to the context: 0, or -ENOMEM
 * (refused, nothing charged). */
int libvgpu_grow_end(struct libvgpu_growth *g, uint32_t kind, uint64_t key);

#endif
