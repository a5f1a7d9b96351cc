// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: compute time-slicing, the buckets and GPUs the schedulers know:
 * buckets added, changed and deleted with their tenants' quotas, GPUs
 * added and removed with the inventory, the schedulers' set-up and
 * tear-down, and each bucket's counters.
 *
 * The decisions are in sched.c; this file only keeps their inputs in step
 * and asks for a decision (vgpu_sched_update()) when an input changed.
 * Everything is under vgpu_sched_lock (see sched.h).
 */
#include <linux/bug.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "compat.h"
#include "quota.h"
#include "sched.h"

/* Every bucket (tenants and the default one), for a GPU's removal. */
static LIST_HEAD(vgpu_sched_buckets);

/**
 * vgpu_sched_bucket_init() - initialise a bucket's scheduling state
 * @sb: state, zeroed
 *
 * Weight 100, normal priority, no compute-max, every GPU.
 */
void vgpu_sched_bucket_init(struct vgpu_sched_bucket *sb)
{
	u32 i;

	INIT_LIST_HEAD(&sb->node);
	INIT_LIST_HEAD(&sb->procs);
	sb->weight = VGPU_WEIGHT_DEFAULT;
	sb->priority = VGPU_PRIORITY_NORMAL;
	sb->gpus = ~0ULL;
	for (i = 0; i < VGPU_GPU_MAX; i++)
		INIT_LIST_HEAD(&sb->ent[i].node);
}

/* Copies the quotas the schedulers use; returns true when the cap changed. */
static bool vgpu_sched_copy(struct vgpu_sched_bucket *sb, const struct vgpu_quota_set *q)
{
	bool capped = q->set & VGPU_QUOTA_COMPUTE_MAX;
	bool changed = capped != sb->capped || (capped && q->compute_max != sb->compute_max);

	sb->weight = max(vgpu_quota_weight(q), 1U);
	sb->priority = vgpu_quota_priority(q);
	sb->capped = capped;
	sb->compute_max = capped ? q->compute_max : 0;
	sb->gpus = q->set & VGPU_QUOTA_GPUS ? q->gpus : ~0ULL;
	return changed;
}

/**
 * vgpu_sched_bucket_add() - start scheduling a new tenant's bucket
 * @sb: state from vgpu_sched_bucket_init()
 * @q: the tenant's quotas
 */
void vgpu_sched_bucket_add(struct vgpu_sched_bucket *sb, const struct vgpu_quota_set *q)
{
	spin_lock_bh(&vgpu_sched_lock);
	vgpu_sched_copy(sb, q);
	list_add_tail(&sb->node, &vgpu_sched_buckets);
	spin_unlock_bh(&vgpu_sched_lock);
}

/**
 * vgpu_sched_bucket_set() - follow a change of a tenant's quotas
 * @sb: the tenant's state
 * @q: its new quotas
 *
 * Weight, priority, compute-max and gpus take effect at once: every GPU
 * takes a decision, and its waiters look again (a GPU taken out of gpus
 * ends their waits with EACCES). A new compute-max starts with a full
 * budget.
 */
void vgpu_sched_bucket_set(struct vgpu_sched_bucket *sb, const struct vgpu_quota_set *q)
{
	u64 now = ktime_get_ns();
	struct vgpu_sched *s;
	u32 i;

	spin_lock_bh(&vgpu_sched_lock);
	if (vgpu_sched_copy(sb, q)) {
		for (i = 0; i < VGPU_GPU_MAX; i++) {
			if (vgpu_scheds[i].holder == sb)
				vgpu_sched_charge(&vgpu_scheds[i], now);
			sb->ent[i].budget = 0;
			sb->ent[i].epoch = U64_MAX;
		}
	}
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		s = &vgpu_scheds[i];
		if (!s->present)
			continue;
		vgpu_sched_update(s, now);
		s->kick++;
		wake_up_all(&s->wq);
	}
	spin_unlock_bh(&vgpu_sched_lock);
}

/**
 * vgpu_sched_bucket_del() - stop scheduling a tenant's bucket
 * @sb: the tenant's state; it has no registered process
 */
void vgpu_sched_bucket_del(struct vgpu_sched_bucket *sb)
{
	u64 now = ktime_get_ns();
	struct vgpu_sched *s;
	u32 i;

	spin_lock_bh(&vgpu_sched_lock);
	WARN_ON_ONCE(sb->nprocs);
	/* Out of the competition first, so no GPU can pick it again. */
	list_del_init(&sb->node);
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		s = &vgpu_scheds[i];
		sb->ent[i].waiters = 0;
		list_del_init(&sb->ent[i].node);
		if (s->holder == sb) {
			vgpu_sched_charge(s, now);
			vgpu_sched_handover(s, now);
			vgpu_sched_update(s, now);
		}
		WARN_ON_ONCE(s->holder == sb || !list_empty(&sb->ent[i].node));
	}
	spin_unlock_bh(&vgpu_sched_lock);
}

/**
 * vgpu_sched_gpu_add() - start scheduling a GPU
 * @index: GPU index
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_sched_gpu_add(u32 index)
{
	struct vgpu_sched *s = &vgpu_scheds[index];

	spin_lock_bh(&vgpu_sched_lock);
	s->present = true;
	s->holder = NULL;
	s->draining = false;
	s->drainers = 0;
	spin_unlock_bh(&vgpu_sched_lock);
}

/**
 * vgpu_sched_gpu_del() - stop scheduling a GPU and forget its state
 * @index: GPU index
 *
 * The holder's gates close, every bucket's state and counters on the GPU
 * are dropped, and its waiters wake up (their waits end with ENODEV).
 *
 * Context: may sleep (waits for the timer); vgpu_acct_lock not held.
 */
void vgpu_sched_gpu_del(u32 index)
{
	struct vgpu_sched *s = &vgpu_scheds[index];
	struct vgpu_sched_bucket *sb;
	struct vgpu_sched_ent *e;
	u32 waiters;

	spin_lock_bh(&vgpu_sched_lock);
	if (s->holder)
		vgpu_sched_handover(s, ktime_get_ns());
	s->present = false;
	list_for_each_entry(sb, &vgpu_sched_buckets, node) {
		e = &sb->ent[index];
		list_del_init(&e->node);
		waiters = e->waiters;	/* theirs to drop as they leave */
		memset(e, 0, sizeof(*e));
		INIT_LIST_HEAD(&e->node);
		e->waiters = waiters;
	}
	s->kick++;
	wake_up_all(&s->wq);
	spin_unlock_bh(&vgpu_sched_lock);
	hrtimer_cancel(&s->timer);
}

/**
 * vgpu_sched_counters() - a bucket's compute counters on a GPU, up to now
 * @sb: bucket
 * @index: GPU index
 * @c: out
 */
void vgpu_sched_counters(struct vgpu_sched_bucket *sb, u32 index,
			 struct vgpu_sched_counters *c)
{
	struct vgpu_sched *s = &vgpu_scheds[index];
	struct vgpu_sched_ent *e = &sb->ent[index];
	u64 now = ktime_get_ns();

	spin_lock_bh(&vgpu_sched_lock);
	if (s->present && s->holder == sb)
		vgpu_sched_charge(s, now);
	c->gpu_time_ns = e->gpu_time_ns;
	c->throttled_ns = e->throttled_ns;
	if (e->throttled_since)
		c->throttled_ns += now - e->throttled_since;
	c->grants = e->grants;
	spin_unlock_bh(&vgpu_sched_lock);
}

/**
 * vgpu_sched_init() - set the schedulers up
 * @def: the default bucket's state
 */
void __init vgpu_sched_init(struct vgpu_sched_bucket *def)
{
	struct vgpu_sched *s;
	u32 i;

	for (i = 0; i < VGPU_GPU_MAX; i++) {
		s = &vgpu_scheds[i];
		vgpu_hrtimer_setup(&s->timer, vgpu_sched_timer, CLOCK_MONOTONIC,
				   HRTIMER_MODE_ABS_SOFT);
		init_waitqueue_head(&s->wq);
		INIT_LIST_HEAD(&s->active);
	}
	vgpu_sched_bucket_init(def);
	list_add_tail(&def->node, &vgpu_sched_buckets);
}

/**
 * vgpu_sched_exit() - stop every scheduler
 *
 * Called at module exit, when no process is registered and no netlink
 * handler runs: no timer is armed again once the GPUs are marked absent.
 */
void vgpu_sched_exit(void)
{
	u32 i;

	spin_lock_bh(&vgpu_sched_lock);
	for (i = 0; i < VGPU_GPU_MAX; i++)
		vgpu_scheds[i].present = false;
	INIT_LIST_HEAD(&vgpu_sched_buckets);
	spin_unlock_bh(&vgpu_sched_lock);
	for (i = 0; i < VGPU_GPU_MAX; i++)
		hrtimer_cancel(&vgpu_scheds[i].timer);
}
