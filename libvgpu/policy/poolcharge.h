/* SPDX-License-Identifier: GPL-2.0 */
/* Stream-ordered allocations charged by their pool's reservation
 * (poolcharge.c). */
#ifndef VGPU_POOLCHARGE_H
#define VGPU_POOLCHARGE_H

#include "../access/hooks.h"

/* cuMemAllocAsync (from_pool 0: the current pool of h's device) or
 * cuMemAllocFromPoolAsync through real. */
CUresult libvgpu_pool_alloc(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream h,
			    void *real, int from_pool);
/* Re-read every charged pool's reservation and give back what it shrank
 * (after a synchronisation). */
void libvgpu_pools_sync(void);
/* The same for one pool (after cuMemPoolTrimTo). */
void libvgpu_pool_reread(CUmemoryPool pool);
/* The inventory GPU of pool's location (pools.c notes it at creation):
 * VGPU_GPU_SKIP for a host pool (not VRAM); a pool of unknown location is
 * the stream's. */
int libvgpu_pool_gpu(CUmemoryPool pool, CUstream h);
/* pool was destroyed: its handle is no longer asked. */
void libvgpu_pool_gone(CUmemoryPool pool);
/* A forked child forgets the parent's pool charges (init.c). */
void libvgpu_poolcharge_reset(void);

#endif
