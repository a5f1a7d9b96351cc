/* SPDX-License-Identifier: GPL-2.0 */
/* Graph memory charged by each device's graph reserve (graphmem.c). */
#ifndef VGPU_GRAPHMEM_H
#define VGPU_GRAPHMEM_H

#include <stdint.h>

#include "../access/hooks.h"

/* Devices whose graph reserve is followed (CUdevice below this). */
#define VGPU_GRAPHMEM_DEVS 64

/* Whether the driver tells the reserve (cuDeviceGetGraphMemAttribute). */
int libvgpu_graphmem_ready(void);
/* Before a launch or upload that allocates need bytes on dev: charge
 * what the reserve may grow (CUDA_ERROR_OUT_OF_MEMORY: refused). */
CUresult libvgpu_graphmem_ahead(CUdevice dev, uint64_t need);
/* Re-read dev's reserve: the charge follows it (after a launch, upload
 * or trim). */
void libvgpu_graphmem_reread(CUdevice dev);
/* The same for every device followed (after a synchronisation). */
void libvgpu_graphmem_sync(void);
/* A forked child forgets the parent's graph reserves (init.c). */
void libvgpu_graphmem_reset(void);

#endif
