/* SPDX-License-Identifier: GPL-2.0 */
/* A charge from before the real allocation to its outcome (account.c). */
#ifndef VGPU_ACCOUNT_H
#define VGPU_ACCOUNT_H

#include <stdint.h>

#include "../access/hooks.h"
#include "../logic/ptrmap.h"

#define VGPU_PAGE 4096ULL
#define VGPU_CHUNK (2ULL << 20)
#define VGPU_ROUND(x, a) (((uint64_t)(x) + (a) - 1) / (a) * (a))

struct vgpu_tx {
	int gpu;		/* < 0: not accounted */
	uint64_t bytes;
};

/* Route an allocation of bytes on gpu and charge it: CUDA_SUCCESS or
 * CUDA_ERROR_OUT_OF_MEMORY (refused, a denied GPU, or outside the
 * inventory under the deny default). */
CUresult libvgpu_tx_begin(struct vgpu_tx *tx, int gpu, uint64_t bytes);
/* The same on the current context's GPU; *ctx gets the context. */
CUresult libvgpu_tx_begin_cur(struct vgpu_tx *tx, uint64_t bytes, CUcontext *ctx);
/* Change the amount before commit: 0, or -ENOMEM (the charge is then
 * unchanged). */
int libvgpu_tx_adjust(struct vgpu_tx *tx, uint64_t bytes);
void libvgpu_tx_commit(struct vgpu_tx *tx, uint32_t kind, uint64_t key, void *ctx);
void libvgpu_tx_abort(struct vgpu_tx *tx);
/* Commit without an entry in the map: the charge belongs to something the
 * caller keeps (a pool's reservation, poolcharge.c). */
void libvgpu_tx_keep(struct vgpu_tx *tx);
/* Give back what an entry of the map was charged. */
void libvgpu_release(const struct vgpu_alloc *a);
void libvgpu_release_cb(const struct vgpu_alloc *a, void *arg);
/* Free paths: take the entry before the real free (so that an address the
 * driver hands out again cannot be confused), then either release it (the
 * free succeeded) or put it back. */
int libvgpu_take(uint32_t kind, uint64_t key, struct vgpu_alloc *a);
void libvgpu_put_back(const struct vgpu_alloc *a);
void libvgpu_free_done(int taken, const struct vgpu_alloc *a, CUresult rc);

#endif
