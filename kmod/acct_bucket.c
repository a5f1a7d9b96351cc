// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: VRAM accounting, buckets and GPUs coming and going: a tenant's
 * bucket added, its limits changed with its quotas, deleted; a GPU added
 * to the accounting or removed. Each also tells the compute schedulers
 * (sched_bucket.c), under vgpu_acct_lock.
 *
 * Above proc.c because deleting a bucket or a GPU first ends the
 * registrations of dead (or, forced, all) processes concerned.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>

#include "acct.h"
#include "proc.h"
#include "quota.h"

/* The tenants' buckets, to follow GPUs coming and going (vgpu_acct_lock). */
static LIST_HEAD(vgpu_acct_buckets);

/* Copies the limits of @q into @b; returns true when they became tighter. */
static bool vgpu_bucket_set_limits(struct vgpu_bucket *b, const struct vgpu_quota_set *q)
{
	u64 vram_max = q->set & VGPU_QUOTA_VRAM_MAX ? q->vram_max : U64_MAX;
	u64 gpus = q->set & VGPU_QUOTA_GPUS ? q->gpus : ~0ULL;
	bool tighter = vram_max < b->vram_max || (b->gpus & ~gpus);
	u32 i;

	for (i = 0; i < VGPU_GPU_MAX; i++)
		vgpu_acct_unhold(b, i);
	b->vram_max = vram_max;
	b->vram_min = q->set & VGPU_QUOTA_VRAM_MIN ? q->vram_min : 0;
	b->gpus = gpus;
	b->soft = vgpu_quota_preemptible(q);
	for (i = 0; i < VGPU_GPU_MAX; i++)
		vgpu_acct_rehold(b, i);
	vgpu_acct_sync_reserved(b, ktime_get_ns());
	return tighter;
}

/* A GPU came or went: every tenant's reservation on it starts or ends. */
static void vgpu_acct_sync_all(u32 index)
{
	u64 now = ktime_get_ns();
	struct vgpu_bucket *b;
	struct vgpu_usage *u;

	list_for_each_entry(b, &vgpu_acct_buckets, node) {
		u = &b->usage[index];
		vgpu_usage_integrate(u, now);
		u->reserved = vgpu_acct_gpus[index].present ? vgpu_bucket_reserve(b, index) : 0;
	}
}

/**
 * vgpu_acct_bucket_add() - start accounting a new tenant's bucket
 * @b: the bucket, from vgpu_bucket_init()
 * @q: the tenant's quotas
 *
 * Context: vgpu_lock held.
 */
void vgpu_acct_bucket_add(struct vgpu_bucket *b, const struct vgpu_quota_set *q)
{
	spin_lock(&vgpu_acct_lock);
	vgpu_bucket_set_limits(b, q);
	list_add_tail(&b->node, &vgpu_acct_buckets);
	vgpu_sched_bucket_add(&b->sched, q);
	spin_unlock(&vgpu_acct_lock);
}

/**
 * vgpu_acct_bucket_set() - follow a change of a tenant's quotas
 * @b: the tenant's bucket
 * @q: its new quotas
 *
 * When the limit went down or a GPU left the gpus mask, every budget of
 * the tenant's processes is taken back at once, so that new allocations
 * are charged against the new limit.
 *
 * Context: vgpu_lock held.
 */
void vgpu_acct_bucket_set(struct vgpu_bucket *b, const struct vgpu_quota_set *q)
{
	spin_lock(&vgpu_acct_lock);
	if (vgpu_bucket_set_limits(b, q))
		vgpu_acct_reclaim_bucket(b);
	vgpu_sched_bucket_set(&b->sched, q);
	spin_unlock(&vgpu_acct_lock);
}

/**
 * vgpu_acct_bucket_del() - stop accounting a tenant's bucket
 * @b: the tenant's bucket
 * @force: end the registrations of its processes first
 *
 * Refused while processes are registered to it (dead ones are reaped
 * first), unless @force. A charge of an ended registration that is still
 * looking through registrations (it lets vgpu_acct_lock go between
 * steps) is waited for: it notices the end at its next step, and the
 * bucket may be freed once it has.
 *
 * Context: vgpu_lock held (no process registers to @b meanwhile).
 * Return: 0, or -EBUSY when processes are still registered.
 */
int vgpu_acct_bucket_del(struct vgpu_bucket *b, bool force)
{
	LIST_HEAD(dead);
	int err = 0;
	u32 i;

	spin_lock(&vgpu_acct_lock);
	if (force)
		vgpu_proc_end_bucket(b, &dead);
	vgpu_proc_reap_bucket(b, &dead);
	if (b->nprocs) {
		err = -EBUSY;
		goto out_unlock;
	}
	vgpu_acct_scan_wait_bucket(b);
	for (i = 0; i < VGPU_GPU_MAX; i++)
		vgpu_acct_unhold(b, i);
	/* The reservations end: integrated up to now, then 0. */
	b->vram_min = 0;
	vgpu_acct_sync_reserved(b, ktime_get_ns());
	list_del_init(&b->node);
	vgpu_sched_bucket_del(&b->sched);
out_unlock:
	spin_unlock(&vgpu_acct_lock);
	vgpu_proc_put_list(&dead);
	return err;
}

/**
 * vgpu_acct_gpu_add() - start accounting a GPU
 * @index: GPU index
 * @vram: its capacity
 *
 * Context: vgpu_lock held.
 */
void vgpu_acct_gpu_add(u32 index, u64 vram)
{
	spin_lock(&vgpu_acct_lock);
	vgpu_acct_gpus[index].capacity = min(vram, VGPU_ACCT_BYTES_MAX);
	vgpu_acct_gpus[index].present = true;
	vgpu_acct_sync_all(index);
	vgpu_sched_gpu_add(index);
	spin_unlock(&vgpu_acct_lock);
}

/**
 * vgpu_acct_gpu_del() - stop accounting a GPU nothing is charged on
 * @index: GPU index
 *
 * Unspent budgets on the GPU are taken back first; what processes hold
 * keeps the GPU, and so do bytes a suspended tenant's processes parked in
 * host memory: their resume charges them back on this GPU and would wait
 * for it forever. Its compute scheduler stops and forgets its state.
 *
 * Context: vgpu_lock held.
 * Return: 0, or -EBUSY when bytes are still charged or parked on the GPU.
 */
int vgpu_acct_gpu_del(u32 index)
{
	struct vgpu_proc *p;
	LIST_HEAD(dead);
	int err = 0;

	spin_lock(&vgpu_acct_lock);
	vgpu_proc_reap_all(&dead);
	list_for_each_entry(p, &vgpu_procs, node) {
		vgpu_acct_reclaim(p, index);
		if (p->parked[index])
			err = -EBUSY;
	}
	if (vgpu_acct_gpus[index].charged)
		err = -EBUSY;
	if (!err) {
		vgpu_acct_gpus[index].present = false;
		vgpu_acct_sync_all(index);
	}
	spin_unlock(&vgpu_acct_lock);
	vgpu_proc_put_list(&dead);
	if (!err)
		vgpu_sched_gpu_del(index);
	return err;
}
