// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: VRAM accounting, VGPU_IOC_CHARGE: charging a process and, when its
 * bucket or the GPU runs short, taking unspent budgets back.
 *
 * Above proc.c because a charge that runs short first ends the
 * registrations of dead processes (vgpu_proc_reap_*()), which uncharges
 * them through acct.c. Under vgpu_acct_lock, as acct.c.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>

#include "acct.h"
#include "proc.h"

/* What vgpu_acct_reclaim() would take back from @p now. */
static u64 vgpu_acct_unspent(const struct vgpu_proc *p, u32 index)
{
	s64 avail = atomic64_read(vgpu_avail(p, index));

	return avail > 0 ? min_t(u64, avail, p->granted[index]) : 0;
}

/*
 * What taking back every unspent budget of the buckets other than @b on
 * GPU @index would free of it: each bucket keeps at least its reservation.
 */
static u64 vgpu_acct_others_spare(const struct vgpu_bucket *b, u32 index)
{
	struct vgpu_bucket *c;
	struct vgpu_proc *q;
	u64 freed = 0, keep;

	list_for_each_entry(q, &vgpu_procs, node)
		q->bucket->spare = 0;
	list_for_each_entry(q, &vgpu_procs, node)
		q->bucket->spare += vgpu_acct_unspent(q, index);
	list_for_each_entry(q, &vgpu_procs, node) {
		c = q->bucket;
		if (c == b || !c->spare)
			continue;
		keep = c->usage[index].charged - min(c->spare, c->usage[index].charged);
		keep = max(keep, vgpu_bucket_reserve(c, index));
		freed += vgpu_bucket_hold(c, index) - keep;
		c->spare = 0;	/* counted once */
	}
	return freed;
}

/**
 * vgpu_acct_charge() - VGPU_IOC_CHARGE: give a process at least @bytes
 * @p: live registered process, allowed on the GPU
 * @index: GPU index in the inventory
 * @bytes: bytes the process needs now
 * @keep: out: the budget sized for the process now
 * @dead: list collecting the processes found dead (put after unlocking)
 *
 * When the bucket is short, the unspent budgets of its processes on the
 * GPU are taken back (the caller's included); when the GPU itself is
 * short, those of every process on it, if that makes @bytes fit. Then
 * either @bytes and a budget are added to the page's @avail and charged,
 * or nothing is.
 *
 * Context: vgpu_acct_lock held.
 * Return: 0, or -ENOMEM (counted as a failure).
 */
int vgpu_acct_charge(struct vgpu_proc *p, u32 index, u64 bytes, u64 *keep,
		     struct list_head *dead)
{
	struct vgpu_bucket *b = p->bucket;
	struct vgpu_proc *q;
	u64 room, grant;
	bool gpu_bound;

	room = vgpu_acct_room(b, index, 0, &gpu_bound);
	if (bytes > room) {
		b->usage[index].scans++;
		vgpu_proc_reap_bucket(b, dead);
		list_for_each_entry(q, &b->procs, bnode)
			vgpu_acct_reclaim(q, index);
		room = vgpu_acct_room(b, index, 0, &gpu_bound);
	}
	/*
	 * Others' budgets are taken only when that makes the charge fit, and
	 * a process whose charge still failed (they spent meanwhile) may not
	 * do it again for VGPU_RECLAIM_PAUSE_NS: a tenant cannot empty the
	 * others' budgets, nor hold the lock scanning them, by asking for
	 * what cannot be had.
	 */
	if (bytes > room && gpu_bound && ktime_get_ns() >= p->reclaim_after) {
		vgpu_proc_reap_all(dead);
		if (bytes <= vgpu_acct_room(b, index, vgpu_acct_others_spare(b, index), NULL)) {
			list_for_each_entry(q, &vgpu_procs, node)
				vgpu_acct_reclaim(q, index);
			room = vgpu_acct_room(b, index, 0, NULL);
		}
		if (bytes > room)
			p->reclaim_after = ktime_get_ns() + VGPU_RECLAIM_PAUSE_NS;
	}
	if (bytes > room) {
		b->usage[index].failures++;
		return -ENOMEM;
	}

	*keep = vgpu_acct_budget(room - bytes);
	grant = bytes + *keep;
	atomic64_add(grant, vgpu_avail(p, index));
	p->granted[index] += grant;
	vgpu_acct_set_charged(b, index, b->usage[index].charged + grant);
	return 0;
}
