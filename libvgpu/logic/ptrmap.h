/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each live allocation was charged: a concurrent map from (kind, key)
 * (device pointer, VMM handle, array, context) to (gpu, bytes, context).
 * Sharded; each shard's lock is held for a few loads and stores only.
 */
#ifndef VGPU_PTRMAP_H
#define VGPU_PTRMAP_H

#include <stddef.h>
#include <stdint.h>

enum vgpu_kind {
	VGPU_K_NONE,		/* an empty slot */
	VGPU_K_MEM,		/* device pointer: alloc, pitch, managed, pool, graph */
	VGPU_K_VMM,		/* cuMemCreate handle */
	VGPU_K_ARRAY,		/* CUarray */
	VGPU_K_MIPMAP,		/* CUmipmappedArray */
	VGPU_K_CTX,		/* a context's own memory */
	VGPU_K_POOL,		/* a memory pool's GPU (0 bytes: a note, pools.c) */
	VGPU_K_MOD,		/* a module's or library's loaded code and data */
	VGPU_K_LIMIT,		/* a context's growth by cuCtxSetLimit */
};

struct vgpu_alloc {
	uint64_t key;
	uint64_t bytes;
	void *ctx;		/* freed with this context; NULL: outlives it */
	int32_t gpu;
	uint32_t kind;
};

#define VGPU_PTRMAP_SHARDS 64

/* Insert a; when (kind, key) was already there (a stale entry: the driver
 * reused the address), *old gets it and 1 is returned. -1: no memory. */
int libvgpu_ptrmap_put(const struct vgpu_alloc *a, struct vgpu_alloc *old);
/* Remove (kind, key): 1 with *out, or 0 when absent. */
int libvgpu_ptrmap_take(uint32_t kind, uint64_t key, struct vgpu_alloc *out);
/* Is (kind, key) there? */
int libvgpu_ptrmap_get(uint32_t kind, uint64_t key, struct vgpu_alloc *out);
/* Remove every entry of ctx, calling fn on each after its shard is
 * unlocked; returns how many. */
size_t libvgpu_ptrmap_take_ctx(void *ctx, void (*fn)(const struct vgpu_alloc *, void *),
			       void *arg);
/* Forget everything (a forked child; tests). */
void libvgpu_ptrmap_reset(void);
size_t libvgpu_ptrmap_count(void);

#endif
