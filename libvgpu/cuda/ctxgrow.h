/* SPDX-License-Identifier: GPL-2.0 */
/* Context memory that grows: modules, libraries, limits (ctxgrow.c). */
#ifndef VGPU_CTXGROW_H
#define VGPU_CTXGROW_H

#include <stdint.h>

#include "../access/hooks.h"

/* What this process holds on CUDA device dev (NVML's running processes;
 * else the whole device's used memory): 0, or -1 when unknown (ctx.c). */
int libvgpu_dev_used(CUdevice dev, uint64_t *used);

#endif
