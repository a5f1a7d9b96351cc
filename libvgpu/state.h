/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process's registration with vgpu.ko and the accounting built on it:
 * state (register.c), device mapping (devmap.c), charging transactions
 * (account.c).
 */
#ifndef VGPU_STATE_H
#define VGPU_STATE_H

#include <pthread.h>
#include <stdint.h>

#include "charge.h"
#include "gate.h"
#include "hooks.h"
#include "netlink.h"
#include "ptrmap.h"
#include "queue.h"

enum vgpu_state {
	VGPU_ST_UNSET,		/* not yet asked (or a forked child) */
	VGPU_ST_ACTIVE,		/* registered: charge and enforce */
	VGPU_ST_PASS,		/* no module: pass everything through */
	VGPU_ST_DENIED,		/* outside every tenant, host default deny */
};

struct vgpu_proc {
	int state;			/* enum vgpu_state, atomic */
	int nlfd, devfd;
	uint16_t family;
	struct vgpu_dev_page *page;
	const struct vgpu_dev_gate *gate;	/* read-only; NULL without one */
	struct vgpu_reg reg;
	int slot[VGPU_GPU_MAX];		/* inventory index -> reg.gpu[], or -1 */
	struct vgpu_charger charger;
	pthread_mutex_t nl_lk;		/* one request at a time on nlfd */
};

extern struct vgpu_proc vgpu_proc;

/* Register on first use; returns enum vgpu_state. Cheap once decided. */
int vgpu_ensure(void);
static inline int vgpu_active(void)
{
	return vgpu_ensure() == VGPU_ST_ACTIVE;
}
/* The registration's entry for inventory GPU gpu, or NULL. */
const struct vgpu_reg_gpu *vgpu_reg_gpu(int gpu);
void vgpu_register_atfork(void);

/* devmap.c: CUDA devices to inventory GPUs, by UUID. */
#define VGPU_GPU_NONE (-1)	/* not in the inventory: the host default applies */
#define VGPU_GPU_SKIP (-2)	/* unknown (no context, bad device): the driver answers */
int vgpu_dev_gpu(CUdevice dev);
int vgpu_cur_gpu(CUcontext *ctx);
int vgpu_uuid_gpu(const char *uuid);
void vgpu_devmap_reset(void);
void vgpu_uuid_str(const CUuuid *u, char out[VGPU_UUID_LEN + 1]);

/* account.c: a charge from before the real allocation to its outcome. */
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
CUresult vgpu_tx_begin(struct vgpu_tx *tx, int gpu, uint64_t bytes);
/* The same on the current context's GPU; *ctx gets the context. */
CUresult vgpu_tx_begin_cur(struct vgpu_tx *tx, uint64_t bytes, CUcontext *ctx);
/* Change the amount before commit: 0, or -ENOMEM (the charge is then
 * unchanged). */
int vgpu_tx_adjust(struct vgpu_tx *tx, uint64_t bytes);
void vgpu_tx_commit(struct vgpu_tx *tx, uint32_t kind, uint64_t key, void *ctx);
void vgpu_tx_abort(struct vgpu_tx *tx);
/* Give back what an entry of the map was charged. */
void vgpu_release(const struct vgpu_alloc *a);
void vgpu_release_cb(const struct vgpu_alloc *a, void *arg);
/* Free paths: take the entry before the real free (so that an address the
 * driver hands out again cannot be confused), then either release it (the
 * free succeeded) or put it back. */
int vgpu_take(uint32_t kind, uint64_t key, struct vgpu_alloc *a);
void vgpu_put_back(const struct vgpu_alloc *a);
void vgpu_free_done(int taken, const struct vgpu_alloc *a, CUresult rc);

/* current.c: the launch's GPU (the current context's), the gate's ops. */
extern struct vgpu_gate vgpu_gate;
/* A context of inventory GPU gpu exists (created, retained, seen); if
 * current, it is now this thread's current context. */
void vgpu_ctx_note(CUcontext c, int gpu, int current);
/* The context is gone: forget it. */
void vgpu_ctx_forget(CUcontext c);
/* Registration: turn the gate on (gate page mapped) or reset it (fork). */
void vgpu_gate_start(struct vgpu_dev_page *page, const struct vgpu_dev_gate *gate);
void vgpu_gate_reset(void);

/* Before a launch on stream (launch.c, graph.c): the gate's fast path,
 * inlined and without a call; the rest (registration on first use, the
 * GPU to find, the closed gate) in vgpu_launch_slow(). After it,
 * vgpu_launch_done() with the driver's answer: the mark, when due
 * (queue.h). */
void vgpu_launch_slow(void *stream);
static inline void vgpu_launch_gate(void *stream)
{
	if (__builtin_expect(!vgpu_gate_pass(&vgpu_gate, stream), 0))
		vgpu_launch_slow(stream);
}
void vgpu_launch_mark(CUresult rc);
/* The GPU of the calling thread's current context (VGPU_GPU_NONE if
 * none in the inventory). current.c */
int vgpu_current_gpu(void);
/* Around a wait for the process's own work (sync.c): begin counts the
 * thread in the page's bound and returns the GPU (-1: none) with its
 * launch count; end uncounts it and, after a successful whole-context
 * synchronisation (whole), raises the page's synced to that count. */
int vgpu_sync_begin(uint64_t *launches);
void vgpu_sync_end(int gpu, uint64_t launches, int whole, CUresult rc);
/* The first launches launches on gpu are complete: raise synced. */
void vgpu_sync_complete(int gpu, uint64_t launches);
static inline CUresult vgpu_launch_done(CUresult rc)
{
	if (__builtin_expect(vgpu_gate_tls.mark != 0, 0))
		vgpu_launch_mark(rc);
	return rc;
}
/* The queue bound's ring: ctx.c tells it of contexts going away. */
extern struct vgpu_queue vgpu_queue;

/* placement.c: the memory policy follows the tenant's NUMA nodes. */
extern uint32_t vgpu_placement_seen;	/* placement_seq of the cached answer */
/* At registration: seq read before proc-register, the reply's mems. */
void vgpu_placement_start(uint32_t seq, const struct vgpu_reg *reg);
/* A slow path: refresh the placement if the page says it changed (one
 * VGPU_IOC_PLACEMENT), then bind this thread if it is not bound to it. */
void vgpu_placement_sync(void);
void vgpu_placement_reset(void);
/* The allocation fast path's check: one load of the page and a compare. */
static inline void vgpu_placement_poll(void)
{
	if (__builtin_expect(__atomic_load_n(&vgpu_proc.page->placement_seq, __ATOMIC_RELAXED) !=
			     __atomic_load_n(&vgpu_placement_seen, __ATOMIC_RELAXED), 0))
		vgpu_placement_sync();
}

#endif
