// SPDX-License-Identifier: GPL-2.0
/*
 * Charging transactions: route an allocation to its inventory GPU (or to
 * the host default), charge it before the real call, then commit it into
 * the allocation map or roll it back. Free paths take the entry before the
 * real free and release it after.
 */
#include <errno.h>

#include "account.h"
#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "placement.h"
#include "../logic/ptrmap.h"
#include "register.h"
#include "../state/state.h"

/*
 * libvgpu_charge() on the process's charger. A charge short of budget asks
 * the module (VGPU_IOC_CHARGE), a system call: a slow path anyway, where
 * the thread also notices a placement change and rebinds its memory
 * policy (placement.c), as the allocation fast path's poll does not.
 */
static int charge(int gpu, uint64_t bytes)
{
	if (libvgpu_charge_short(&libvgpu_proc.charger, gpu, bytes))
		libvgpu_placement_sync();
	return libvgpu_charge(&libvgpu_proc.charger, gpu, bytes);
}

CUresult libvgpu_tx_begin(struct vgpu_tx *tx, int gpu, uint64_t bytes)
{
	const struct vgpu_reg_gpu *g;
	int st = libvgpu_ensure(), rc;

	tx->gpu = -1;
	tx->bytes = 0;
	if (st == VGPU_ST_DENIED)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (st != VGPU_ST_ACTIVE || gpu == VGPU_GPU_SKIP)
		return CUDA_SUCCESS;
	vgpu_placement_poll();
	if (gpu == VGPU_GPU_NONE) {
		if (libvgpu_proc.reg.policy != VGPU_DEFAULT_POLICY_DENY)
			return CUDA_SUCCESS;	/* allow: unaccounted */
		libvgpu_log(VGPU_LOG_INFO, "refused %llu bytes: the GPU is not in the vgpu "
			    "inventory and the host default is deny", (unsigned long long)bytes);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	g = libvgpu_reg_gpu(gpu);
	if (!g || g->denied) {
		libvgpu_log(VGPU_LOG_INFO, "refused %llu bytes on GPU %d: denied to this process",
			    (unsigned long long)bytes, gpu);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (!bytes)
		return CUDA_SUCCESS;	/* routed only */
	rc = charge(gpu, bytes);
	if (rc) {
		libvgpu_log(VGPU_LOG_INFO, "refused %llu bytes on GPU %d: %s",
			    (unsigned long long)bytes, gpu,
			    rc == -ENOMEM ? "over the tenant's vram-max or the GPU's capacity"
					  : "charge failed");
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	tx->gpu = gpu;
	tx->bytes = bytes;
	return CUDA_SUCCESS;
}

CUresult libvgpu_tx_begin_cur(struct vgpu_tx *tx, uint64_t bytes, CUcontext *ctx)
{
	int st = libvgpu_ensure();

	*ctx = NULL;
	if (st != VGPU_ST_ACTIVE) {
		tx->gpu = -1;
		tx->bytes = 0;
		return st == VGPU_ST_DENIED ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
	}
	return libvgpu_tx_begin(tx, libvgpu_cur_gpu(ctx), bytes);
}

int libvgpu_tx_adjust(struct vgpu_tx *tx, uint64_t bytes)
{
	if (tx->gpu < 0 || bytes == tx->bytes)
		return 0;
	if (bytes > tx->bytes) {
		if (charge(tx->gpu, bytes - tx->bytes))
			return -ENOMEM;
	} else {
		libvgpu_charge_cancel(&libvgpu_proc.charger, tx->gpu, tx->bytes - bytes);
	}
	tx->bytes = bytes;
	return 0;
}

void libvgpu_tx_commit(struct vgpu_tx *tx, uint32_t kind, uint64_t key, void *ctx)
{
	struct vgpu_alloc a = { key, tx->bytes, ctx, tx->gpu, kind }, old;

	if (tx->gpu < 0)
		return;
	libvgpu_charge_commit(&libvgpu_proc.charger, tx->gpu, tx->bytes);
	switch (libvgpu_ptrmap_put(&a, &old)) {
	case 1:
		/* The driver reused the key of an allocation freed behind our
		 * back (a path we do not see): that one is gone. */
		libvgpu_release(&old);
		break;
	case -1:
		/* No memory for the map: keep the charge (never under-count);
		 * it is released when the process ends. */
		libvgpu_log(VGPU_LOG_WARN, "out of memory recording an allocation: its "
			    "%llu bytes stay charged until exit", (unsigned long long)a.bytes);
		break;
	default:
		break;
	}
}

void libvgpu_tx_keep(struct vgpu_tx *tx)
{
	if (tx->gpu >= 0)
		libvgpu_charge_commit(&libvgpu_proc.charger, tx->gpu, tx->bytes);
	tx->gpu = -1;
}

void libvgpu_tx_abort(struct vgpu_tx *tx)
{
	if (tx->gpu >= 0)
		libvgpu_charge_cancel(&libvgpu_proc.charger, tx->gpu, tx->bytes);
	tx->gpu = -1;
}

void libvgpu_release(const struct vgpu_alloc *a)
{
	if (a->gpu >= 0 && libvgpu_proc.state == VGPU_ST_ACTIVE)
		libvgpu_uncharge(&libvgpu_proc.charger, a->gpu, a->bytes);
}

void libvgpu_release_cb(const struct vgpu_alloc *a, void *arg)
{
	(void)arg;
	libvgpu_release(a);
}

int libvgpu_take(uint32_t kind, uint64_t key, struct vgpu_alloc *a)
{
	if (__atomic_load_n(&libvgpu_proc.state, __ATOMIC_ACQUIRE) != VGPU_ST_ACTIVE)
		return 0;
	return libvgpu_ptrmap_take(kind, key, a);
}

void libvgpu_put_back(const struct vgpu_alloc *a)
{
	struct vgpu_alloc old;

	if (libvgpu_ptrmap_put(a, &old) == 1)
		libvgpu_release(&old);
}

void libvgpu_free_done(int taken, const struct vgpu_alloc *a, CUresult rc)
{
	if (!taken)
		return;
	if (rc == CUDA_SUCCESS)
		libvgpu_release(a);
	else
		libvgpu_put_back(a);
}
