// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: VRAM accounting of suspended processes (Documentation/suspend.md).
 *
 * When the agent reports a process checkpointed, its device memory is in
 * host memory and the GPU has it back: the module takes back its unspent
 * budgets and moves what it was granted to @parked, off its bucket's
 * charges, and the process is @frozen: a charge it makes waits on
 * vgpu_park_wq until the agent reports it running again. A resume charges
 * a bucket's parked bytes back all or none (vgpu_acct_unpark_bucket()),
 * before anything is restored. While a tenant is suspended its
 * reservations (vram-min) lapse, so that what it held is free for others.
 * Under vgpu_acct_lock, as acct.c, unless said otherwise.
 */
#include <linux/bits.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "acct.h"
#include "proc.h"

/*
 * Where charges waiting for preemption wait (preempt.c): woken, with
 * vgpu_room_seq moved on, when a suspension parks charges or settles.
 */
DECLARE_WAIT_QUEUE_HEAD(vgpu_room_wq);
atomic_t vgpu_room_seq = ATOMIC_INIT(0);

/**
 * vgpu_acct_room_changed() - wake the charges waiting for preemption
 *
 * Context: any; vgpu_acct_lock may be held.
 */
void vgpu_acct_room_changed(void)
{
	atomic_inc(&vgpu_room_seq);
	wake_up_all(&vgpu_room_wq);
}

/**
 * vgpu_acct_park() - park a checkpointed process's charges
 * @p: live registered process
 *
 * Its budgets come back first (its page's @avail, 0 after), then what it
 * holds leaves its bucket's charges for @parked, on every GPU. Its page's
 * @used stays: the process cannot free what is in host memory, and its
 * grant is the same again after a resume.
 */
void vgpu_acct_park(struct vgpu_proc *p)
{
	struct vgpu_bucket *b = p->bucket;
	u64 bytes;
	u32 i;

	lockdep_assert_held(&vgpu_acct_lock);
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		vgpu_acct_reclaim(p, i);
		bytes = p->granted[i];
		if (!bytes)
			continue;
		p->granted[i] = 0;
		vgpu_acct_uncharge(b, i, bytes);
		p->parked[i] += bytes;
		b->usage[i].parked += bytes;
	}
	WRITE_ONCE(p->frozen, true);
	vgpu_acct_room_changed();
}

/**
 * vgpu_acct_parked() - bytes a bucket's processes hold in host memory
 * @b: bucket
 *
 * Return: Σ over GPUs of its parked bytes.
 */
u64 vgpu_acct_parked(const struct vgpu_bucket *b)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < VGPU_GPU_MAX; i++)
		sum += b->usage[i].parked;
	return sum;
}

/**
 * vgpu_acct_lapse() - let a bucket's reservations lapse, or hold them again
 * @b: bucket
 * @lapsed: true while its tenant is suspended
 */
void vgpu_acct_lapse(struct vgpu_bucket *b, bool lapsed)
{
	u32 i;

	lockdep_assert_held(&vgpu_acct_lock);
	if (b->lapsed == lapsed)
		return;
	for (i = 0; i < VGPU_GPU_MAX; i++)
		vgpu_acct_unhold(b, i);
	b->lapsed = lapsed;
	for (i = 0; i < VGPU_GPU_MAX; i++)
		vgpu_acct_rehold(b, i);
	vgpu_acct_sync_reserved(b, ktime_get_ns());
}

/* Whether every GPU has room for the bucket's parked bytes and reservation. */
static bool vgpu_acct_fits_back(const struct vgpu_bucket *b)
{
	struct vgpu_pol_vram v;
	u64 reserve;
	u32 i;

	for (i = 0; i < VGPU_GPU_MAX; i++) {
		if (!b->usage[i].parked && !(b->gpus & BIT_ULL(i) && b->vram_min))
			continue;
		if (!vgpu_acct_gpus[i].present) {
			if (b->usage[i].parked)
				return false;
			continue;
		}
		vgpu_acct_vram(b, i, &v);
		reserve = b->gpus & BIT_ULL(i) ? b->vram_min : 0;
		if (!vgpu_pol_fits_back(&v, b->usage[i].parked, reserve,
					vgpu_acct_gpus[i].wanted))
			return false;
	}
	return true;
}

/**
 * vgpu_acct_unpark_bucket() - charge a suspended bucket's parked bytes back
 * @b: bucket, lapsed
 *
 * All or none: when every GPU has room for its parked bytes and its
 * reservation, each process's parked bytes become its grant again and
 * the bucket's reservations hold again. Its processes stay frozen until
 * the agent reports them running.
 *
 * Return: true when charged back, false (nothing changed) without room.
 */
bool vgpu_acct_unpark_bucket(struct vgpu_bucket *b)
{
	struct vgpu_proc *p;
	u32 i;

	lockdep_assert_held(&vgpu_acct_lock);
	if (!vgpu_acct_fits_back(b))
		return false;
	list_for_each_entry(p, &b->procs, bnode) {
		for (i = 0; i < VGPU_GPU_MAX; i++) {
			if (!p->parked[i])
				continue;
			p->granted[i] += p->parked[i];
			vgpu_acct_set_charged(b, i, b->usage[i].charged + p->parked[i]);
			b->usage[i].parked -= p->parked[i];
			p->parked[i] = 0;
		}
	}
	vgpu_acct_lapse(b, false);
	return true;
}

/**
 * vgpu_acct_thaw_bucket() - let every process of a bucket run on
 * @b: bucket
 */
void vgpu_acct_thaw_bucket(struct vgpu_bucket *b)
{
	struct vgpu_proc *p;

	lockdep_assert_held(&vgpu_acct_lock);
	list_for_each_entry(p, &b->procs, bnode)
		vgpu_acct_thaw(p);
}

/**
 * vgpu_acct_wait_thaw() - a frozen process's charge waits for the thaw
 * @p: registered process; the caller holds a reference
 *
 * Context: vgpu_acct_lock held; let go while it sleeps and taken again.
 * Return: 0 once @p is not frozen (or its registration ended: the caller
 * checks again), -EINTR on a signal.
 */
int vgpu_acct_wait_thaw(struct vgpu_proc *p)
{
	int err;

	lockdep_assert_held(&vgpu_acct_lock);
	if (!p->frozen)
		return 0;
	spin_unlock(&vgpu_acct_lock);
	err = wait_event_interruptible(vgpu_park_wq,
				       !READ_ONCE(p->frozen) || !READ_ONCE(p->df));
	spin_lock(&vgpu_acct_lock);
	return err ? -EINTR : 0;
}
