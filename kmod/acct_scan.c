// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: VRAM accounting, the looks of a short charge through the
 * registrations: its bucket's (dead processes reaped, unspent budgets
 * taken back), then, when the GPU is short, every one on the GPU.
 *
 * A refusal must cost the refused tenant, not everyone (issue 33). So a
 * look
 *
 * - holds vgpu_acct_lock for VGPU_SCAN_BATCH registrations at most, then
 *   lets it go for a moment (other charges get in), holding a reference
 *   to the registration it goes on from (struct vgpu_walk, acct_walk.c);
 * - runs once at a time per bucket and GPU, and the GPU-wide look once at
 *   a time per GPU (later charges sleep until it ends, then see what it
 *   did);
 * - is not run again for the bucket on the GPU for VGPU_RECLAIM_PAUSE_NS
 *   after one that could not save its charge, nor, after one that did,
 *   for VGPU_SCAN_SPACING times as long as it took (a bucket's looks take
 *   a tenth of the time at most, whether its charges fit or not):
 *   meanwhile the bucket's charges there are decided on what the module
 *   counts.
 *
 * A bucket with a look under way is not freed: vgpu_acct_bucket_del()
 * waits for it (vgpu_acct_scan_wait_bucket()). Above acct_walk.c and
 * proc.c (it ends registrations), below acct_charge.c and acct_bucket.c.
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "acct.h"
#include "proc.h"

/* Identifies a GPU-wide look in the buckets' scratch (0: none). */
static u64 vgpu_scan_seq;
/* Looks ended (under vgpu_acct_lock); charges waiting for one sleep here. */
static u64 vgpu_scan_ends;
static DECLARE_WAIT_QUEUE_HEAD(vgpu_scan_wq);

/**
 * struct vgpu_scan - one charge's look through registrations
 * @p: the charging process (the caller holds a reference)
 * @index: GPU index
 * @w: the walk (acct_walk.c); its reference is dropped at the next pause
 *	or at the end of the look, with the lock released
 */
struct vgpu_scan {
	struct vgpu_proc *p;
	u32 index;
	struct vgpu_walk w;
};

/* A look ended: the charges waiting for one look again. */
static void vgpu_scan_ended(void)
{
	WRITE_ONCE(vgpu_scan_ends, vgpu_scan_ends + 1);
	if (wq_has_sleeper(&vgpu_scan_wq))
		wake_up_all(&vgpu_scan_wq);
}

/*
 * After the lock was let go: 0, or why the charge cannot go on: its
 * registration ended (-ESRCH), the GPU left the inventory (-ENODEV) or
 * the process (-EACCES).
 */
static int vgpu_scan_check(struct vgpu_scan *s)
{
	if (!s->p->df)
		return -ESRCH;
	if (!vgpu_acct_gpu_ok(s->index))
		return -ENODEV;
	return vgpu_acct_denied(s->p, s->index) ? -EACCES : 0;
}

/*
 * Lets vgpu_acct_lock go until a look ends, dropping the walk's
 * reference. Returns 0, -EINTR on a fatal signal, or vgpu_scan_check()'s.
 */
static int vgpu_scan_sleep(struct vgpu_scan *s)
{
	u64 ends = vgpu_scan_ends;
	int err = 0;

	vgpu_walk_unlock(&s->w, NULL);
	if (wait_event_killable(vgpu_scan_wq, READ_ONCE(vgpu_scan_ends) != ends))
		err = -EINTR;
	vgpu_walk_relock(&s->w);
	s->w.paused = false;
	return err ?: vgpu_scan_check(s);
}

/*
 * The walk's next entry, or NULL at its end or when *@err is set (after
 * a pause). The walk has moved past it: the caller may end its
 * registration.
 */
static struct vgpu_proc *vgpu_scan_next(struct vgpu_scan *s, int *err)
{
	struct vgpu_proc *q = vgpu_walk_next(&s->w);

	if (s->w.paused) {
		s->w.paused = false;
		*err = vgpu_scan_check(s);
		if (*err)
			return NULL;
	}
	return q;
}

/* The bucket's registrations: the dead end, the unspent budgets come back. */
static int vgpu_scan_bucket(struct vgpu_scan *s, struct list_head *dead)
{
	struct vgpu_proc *q;
	int err = 0;

	vgpu_walk_start(&s->w, &s->p->bucket->procs, true, 0);
	while ((q = vgpu_scan_next(s, &err))) {
		if (vgpu_proc_dead(q))
			vgpu_proc_end(q, dead);
		else
			vgpu_acct_reclaim(q, s->index);
	}
	return err;
}

/* What vgpu_acct_reclaim() would take back from @q now. */
static u64 vgpu_acct_unspent(const struct vgpu_proc *q, u32 index)
{
	s64 avail = atomic64_read(vgpu_avail(q, index));

	return avail > 0 ? min_t(u64, avail, q->granted[index]) : 0;
}

/*
 * What taking @q's unspent budget back would add to what its bucket frees
 * for others: each bucket keeps at least its reservation, so it frees
 * min(its unspent budgets, charged - reservation); for a charge of a
 * tenant that is not preemptible (@firm), a preemptible one's reservation
 * does not count. The sum so far is kept in the bucket's scratch, marked
 * with the look's @seq.
 */
static u64 vgpu_scan_spare(struct vgpu_proc *q, u32 index, u64 seq, bool firm)
{
	struct vgpu_bucket *c = q->bucket;
	struct vgpu_usage *u = &c->usage[index];
	u64 reserve = firm && c->soft ? 0 : vgpu_bucket_reserve(c, index), excess, before;

	if (u->spare_seq != seq) {
		u->spare_seq = seq;
		u->spare = 0;
	}
	excess = u->charged > reserve ? u->charged - reserve : 0;
	before = min(u->spare, excess);
	u->spare += vgpu_acct_unspent(q, index);
	return min(u->spare, excess) - before;
}

/*
 * Every registration on the GPU: the dead end; if taking back the unspent
 * budgets of the other buckets would make @bytes fit, they are taken.
 */
static int vgpu_scan_gpu(struct vgpu_scan *s, u64 bytes, struct list_head *dead)
{
	struct vgpu_bucket *b = s->p->bucket;
	bool firm = b != &vgpu_default_bucket && !b->soft;
	u64 seq = ++vgpu_scan_seq, freed = 0;
	struct vgpu_proc *q;
	int err = 0;

	vgpu_walk_start(&s->w, &vgpu_procs, false, 0);
	while ((q = vgpu_scan_next(s, &err))) {
		if (vgpu_proc_dead(q))
			vgpu_proc_end(q, dead);
		else if (q->bucket != b)
			freed += vgpu_scan_spare(q, s->index, seq, firm);
	}
	if (err || bytes > vgpu_acct_room(b, s->index, freed, NULL))
		return err;
	vgpu_walk_start(&s->w, &vgpu_procs, false, 0);
	while ((q = vgpu_scan_next(s, &err))) {
		if (q->bucket != b)
			vgpu_acct_reclaim(q, s->index);
	}
	return err;
}

/*
 * The GPU-wide look, once at a time per GPU: a charge that finds one under
 * way sleeps until it ends, then looks too unless that made room.
 */
static int vgpu_scan_gpu_once(struct vgpu_scan *s, u64 bytes, struct list_head *dead)
{
	struct vgpu_acct_gpu *gpu = &vgpu_acct_gpus[s->index];
	int err = 0;

	while (gpu->scanning) {
		err = vgpu_scan_sleep(s);
		if (err)
			return err;
	}
	if (bytes <= vgpu_acct_room(s->p->bucket, s->index, 0, NULL))
		return 0;
	gpu->scanning = true;
	err = vgpu_scan_gpu(s, bytes, dead);
	gpu->scanning = false;
	vgpu_scan_ended();
	return err;
}

/* The looks, the bucket's scan marked under way (the bucket stays). */
static int vgpu_scan_run(struct vgpu_scan *s, u64 bytes, struct list_head *dead)
{
	struct vgpu_bucket *b = s->p->bucket;
	bool gpu_bound;
	int err;

	err = vgpu_scan_bucket(s, dead);
	if (err || bytes <= vgpu_acct_room(b, s->index, 0, &gpu_bound) || !gpu_bound)
		return err;
	return vgpu_scan_gpu_once(s, bytes, dead);
}

/**
 * vgpu_acct_scan() - look through registrations for room for a charge
 * @p: the charging process, live, registered, allowed on the GPU; the
 *	caller holds a reference
 * @index: GPU index
 * @bytes: bytes the charge needs, more than its bucket's room now
 * @dead: list collecting the processes found dead (put after unlocking)
 *
 * Sleeps until a look of the bucket on the GPU under way ends. Then, unless that
 * made room, or the bucket's last look on the GPU ended less than
 * VGPU_RECLAIM_PAUSE_NS ago and could not save its charge, or less than
 * VGPU_SCAN_SPACING times its length ago, looks (counted in the bucket's
 * scans): the bucket's dead processes are ended and its unspent
 * budgets on the GPU taken back; if the GPU rather than the bucket's limit
 * is what bounds it, the dead processes on the GPU are ended and, if
 * taking back the other buckets' unspent budgets would make @bytes fit
 * (each keeping its reservation), they are taken back.
 *
 * Context: vgpu_acct_lock held; released and taken again, every
 * VGPU_SCAN_BATCH registrations at most, and while it sleeps.
 * Return: 0 (the caller sees the room there is now), or -ESRCH, -ENODEV
 * or -EACCES when the process's registration ended, the GPU left the
 * inventory or the process may no longer use it meanwhile, -EINTR on a
 * fatal signal while it slept.
 */
int vgpu_acct_scan(struct vgpu_proc *p, u32 index, u64 bytes, struct list_head *dead)
{
	struct vgpu_scan s = { .p = p, .index = index, .w = VGPU_WALK_INIT };
	struct vgpu_bucket *b = p->bucket;
	struct vgpu_usage *u = &b->usage[index];
	u64 start, end, pause;
	int err = 0;

	lockdep_assert_held(&vgpu_acct_lock);
	while (b->scanning & BIT_ULL(index)) {
		err = vgpu_scan_sleep(&s);
		if (err)
			return err;
	}
	if (bytes <= vgpu_acct_room(b, index, 0, NULL) || ktime_get_ns() < u->scan_after)
		return 0;
	u->scans++;
	WRITE_ONCE(b->scanning, b->scanning | BIT_ULL(index));
	start = ktime_get_ns();
	err = vgpu_scan_run(&s, bytes, dead);
	if (s.w.pin) {
		vgpu_walk_unlock(&s.w, NULL);
		vgpu_walk_relock(&s.w);
		err = err ?: vgpu_scan_check(&s);
	}
	end = ktime_get_ns();
	pause = min((end - start) * VGPU_SCAN_SPACING, VGPU_RECLAIM_PAUSE_NS);
	if (bytes > vgpu_acct_room(b, index, 0, NULL))
		pause = VGPU_RECLAIM_PAUSE_NS;
	if (!err)
		u->scan_after = end + pause;
	WRITE_ONCE(b->scanning, b->scanning & ~BIT_ULL(index));
	vgpu_scan_ended();
	return err;
}

/**
 * vgpu_acct_scan_wait_bucket() - wait until no charge of a bucket looks
 *	and no MEMINFO walks it
 * @b: bucket none of whose processes is registered
 *
 * A charge whose registration ended while it looked through the
 * registrations notices it at its next step; its bucket may be freed once
 * it has.
 *
 * Context: vgpu_lock held (no process registers to @b), vgpu_acct_lock
 * held; released while it sleeps.
 */
void vgpu_acct_scan_wait_bucket(struct vgpu_bucket *b)
{
	lockdep_assert_held(&vgpu_acct_lock);
	while (b->scanning || b->walkers) {
		spin_unlock(&vgpu_acct_lock);
		wait_event(vgpu_scan_wq, !READ_ONCE(b->scanning));
		spin_lock(&vgpu_acct_lock);
		vgpu_walk_wait_bucket(b);
	}
}
