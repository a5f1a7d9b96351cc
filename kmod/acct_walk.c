// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: VRAM accounting, walks through registrations that hold a lock for
 * VGPU_SCAN_BATCH of them at most, then let it go for a moment: under
 * vgpu_acct_lock, the looks of a short charge (acct_scan.c) and the reads
 * that list or sum a tenant's registrations and end the dead ones
 * (tenant-get's usage in usage.c, proc-get in nl_proc.c), and the count
 * of every GPU's users of a registration with gpus-auto (here); under the
 * bucket's own procs_lock, VGPU_IOC_MEMINFO's sum (here), which needs
 * nothing else. Another tenant's charge waiting for vgpu_acct_lock waits
 * behind steps of that size, never behind a whole walk, however many
 * registrations the walker's tenant has, and never behind MEMINFO's sum
 * (issue 33: a read must cost the reader, not everyone).
 *
 * While the lock is let go a walk holds a reference to the entry it goes
 * on from. If that entry's registration ended meanwhile, the walk starts
 * again from the head and skips the entries up to the last one it gave
 * out: both lists are in registration order (serial). The entries skipped
 * count against the batch too. An entry is given out at most once; one
 * that registers during a walk is given out if it comes after the walk's
 * position.
 *
 * MEMINFO, which holds nothing else keeping the bucket, marks it with
 * @walkers: vgpu_acct_bucket_del() waits until none walks it. Above
 * proc.c (it drops references to entries), below acct_scan.c and the
 * readers.
 */
#include <linux/bits.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "acct.h"
#include "proc.h"

/* Walkers of a bucket finished (vgpu_walk_bucket_put()). */
static DECLARE_WAIT_QUEUE_HEAD(vgpu_walk_wq);

static struct vgpu_proc *vgpu_walk_entry(const struct vgpu_walk *w, struct list_head *l)
{
	return w->by_bucket ? list_entry(l, struct vgpu_proc, bnode) :
			      list_entry(l, struct vgpu_proc, node);
}

/**
 * vgpu_walk_start() - start a walk from the head of a list
 * @w: walk, from VGPU_WALK_INIT (its batch and reference are kept)
 * @head: &bucket->procs (entries linked by bnode) or &vgpu_procs (node)
 * @by_bucket: whether @head links the entries by bnode
 * @after: serial after which the walk starts (0: from the first entry)
 *
 * Context: @w->lock held.
 */
void vgpu_walk_start(struct vgpu_walk *w, struct list_head *head, bool by_bucket, u64 after)
{
	w->head = head;
	w->by_bucket = by_bucket;
	w->pos = head->next;
	w->last = after;
	w->skip = after != 0;
}

/**
 * vgpu_walk_unlock() - let the walk's lock go, keeping a reference to an entry
 * @w: walk
 * @pin: entry the walk goes on from, or NULL
 *
 * The reference held before is dropped, unlocked.
 *
 * Context: @w->lock held; released on return.
 */
void vgpu_walk_unlock(struct vgpu_walk *w, struct vgpu_proc *pin)
{
	struct vgpu_proc *old = w->pin;

	if (pin)
		kref_get(&pin->ref);
	w->pin = pin;
	spin_unlock(w->lock);
	vgpu_proc_put(old);
}

/**
 * vgpu_walk_relock() - take the walk's lock again after vgpu_walk_unlock()
 * @w: walk; a new batch starts and @w->paused is set
 *
 * Context: @w->lock not held; held on return.
 */
void vgpu_walk_relock(struct vgpu_walk *w)
{
	spin_lock(w->lock);
	w->left = VGPU_SCAN_BATCH;
	w->paused = true;
}

/**
 * vgpu_walk_next() - the next entry of a walk
 * @w: walk, started
 *
 * Every VGPU_SCAN_BATCH entries (given out or skipped) the lock is let go
 * for a moment (cond_resched()) and @w->paused set: a caller that must
 * not go on once something changed (its own registration ended) looks at
 * it, and clears it.
 *
 * Context: @w->lock held; released and taken again as above.
 * Return: the entry, or NULL at the end. The walk has moved past it: the
 * caller may end its registration.
 */
struct vgpu_proc *vgpu_walk_next(struct vgpu_walk *w)
{
	struct vgpu_proc *q;

	lockdep_assert_held(w->lock);
	while (w->pos != w->head) {
		q = vgpu_walk_entry(w, w->pos);
		if (!w->left) {
			vgpu_walk_unlock(w, q);
			cond_resched();
			vgpu_walk_relock(w);
			/* Each list is left under its lock (bnode: list_del_init). */
			if (w->by_bucket ? !list_empty(&q->bnode) : !!q->df) {
				w->pos = w->by_bucket ? &q->bnode : &q->node;
			} else {	/* it ended meanwhile: from the start again */
				w->pos = w->head->next;
				w->skip = true;
			}
			continue;
		}
		w->left--;
		w->pos = w->pos->next;
		if (w->skip && q->serial <= w->last)
			continue;
		w->skip = false;
		w->last = q->serial;
		return q;
	}
	return NULL;
}

/**
 * vgpu_walk_done() - drop the reference a walk holds
 * @w: walk
 *
 * Context: the walk's lock not held.
 */
void vgpu_walk_done(struct vgpu_walk *w)
{
	vgpu_proc_put(w->pin);
	w->pin = NULL;
}

/**
 * vgpu_walk_bucket_get() - keep a bucket while walking it with the lock let go
 * @b: bucket
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_walk_bucket_get(struct vgpu_bucket *b)
{
	lockdep_assert_held(&vgpu_acct_lock);
	b->walkers++;
}

/**
 * vgpu_walk_bucket_put() - end what vgpu_walk_bucket_get() began
 * @b: bucket
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_walk_bucket_put(struct vgpu_bucket *b)
{
	lockdep_assert_held(&vgpu_acct_lock);
	if (!--b->walkers)
		wake_up_all(&vgpu_walk_wq);
}

/**
 * vgpu_walk_wait_bucket() - wait until nothing walks a bucket
 * @b: bucket none of whose processes is registered, so that a walker
 *	(MEMINFO of one of them) stops at its next pause
 *
 * Context: vgpu_acct_lock held; released while it sleeps.
 */
void vgpu_walk_wait_bucket(struct vgpu_bucket *b)
{
	lockdep_assert_held(&vgpu_acct_lock);
	while (b->walkers) {
		spin_unlock(&vgpu_acct_lock);
		wait_event(vgpu_walk_wq, !READ_ONCE(b->walkers));
		spin_lock(&vgpu_acct_lock);
	}
}

/*
 * Σ used on @gpu of the registrations of @p's bucket, in batches under the
 * bucket's procs_lock; stops with -ESRCH when @p's registration ends
 * meanwhile. Called and returns with vgpu_acct_lock held; lets it go for
 * the sum.
 */
static int vgpu_acct_tenant_used(struct vgpu_proc *p, u32 gpu, u64 *used)
{
	struct vgpu_walk w = VGPU_WALK_INIT;
	struct vgpu_bucket *b = p->bucket;
	struct vgpu_proc *q;
	int err = 0;

	*used = 0;
	w.lock = &b->procs_lock;
	vgpu_walk_bucket_get(b);
	spin_unlock(&vgpu_acct_lock);
	spin_lock(&b->procs_lock);
	vgpu_walk_start(&w, &b->procs, true, 0);
	while ((q = vgpu_walk_next(&w))) {
		if (w.paused && !READ_ONCE(p->df)) {
			err = -ESRCH;
			break;
		}
		w.paused = false;
		*used += vgpu_acct_proc_used(q, gpu);
	}
	spin_unlock(&b->procs_lock);
	vgpu_walk_done(&w);
	spin_lock(&vgpu_acct_lock);
	vgpu_walk_bucket_put(b);
	return err;
}

/**
 * vgpu_acct_meminfo() - VGPU_IOC_MEMINFO: the GPU as the tenant may see it
 * @p: live registered process, allowed on the GPU; the caller holds a
 *	reference
 * @mi: its @gpu names a GPU of the inventory; the rest is filled
 *
 * Tells the caller its own limit and use and, of the other buckets, one
 * bit: whether the GPU is full for it (their charges and reservations
 * leave it nothing beyond its own charges, short of its limit). @room is
 * then what it holds (its tenant's charges; outside every tenant, its own
 * grant), else min(limit, capacity): it moves when others charge only
 * when that bit flips (Documentation/vram.md, "What a tenant learns").
 * A tenant's use is summed over its registrations without vgpu_acct_lock,
 * under the bucket's procs_lock, in batches (vgpu_walk_next()); the rest
 * is read after the sum, under vgpu_acct_lock, at once.
 *
 * Context: vgpu_acct_lock held; let go during a tenant's sum.
 * Return: 0, or -ESRCH, -ENODEV or -EACCES when the process's
 * registration ended, the GPU left the inventory or the process may no
 * longer use it meanwhile.
 */
int vgpu_acct_meminfo(struct vgpu_proc *p, struct vgpu_dev_meminfo *mi)
{
	const struct vgpu_acct_gpu *gpu = &vgpu_acct_gpus[mi->gpu];
	struct vgpu_bucket *b = p->bucket;
	u64 limit, used, held;
	bool gpu_bound;
	int err;

	if (!p->tenant) {
		used = vgpu_acct_proc_used(p, mi->gpu);
		held = p->granted[mi->gpu];
	} else {
		err = vgpu_acct_tenant_used(p, mi->gpu, &used);
		if (err)
			return err;
		if (!p->df)
			return -ESRCH;
		if (!vgpu_acct_gpu_ok(mi->gpu))
			return -ENODEV;
		if (vgpu_acct_denied(p, mi->gpu))
			return -EACCES;
		held = b->usage[mi->gpu].charged;
	}
	limit = min(b->vram_max, gpu->capacity);
	mi->capacity = gpu->capacity;
	mi->limit = b->vram_max;
	mi->tenant_used = used;
	mi->room = limit;
	if (!vgpu_acct_room(b, mi->gpu, 0, &gpu_bound) && gpu_bound)
		mi->room = min(held, limit);
	return 0;
}

/**
 * vgpu_acct_gpu_users() - count the live processes that may use each GPU
 * @users: per GPU index, incremented by the number of live registered
 *	processes whose tenant (and own choice) allows that GPU
 *
 * Every registration on the host, in batches (vgpu_walk_next()): a
 * registration with gpus-auto, which anyone may make, costs others no
 * more than a batch at a time.
 *
 * Context: vgpu_lock held, vgpu_acct_lock not held.
 */
void vgpu_acct_gpu_users(u64 *users)
{
	struct vgpu_walk w = VGPU_WALK_INIT;
	struct vgpu_proc *p;
	u64 mask;
	u32 i;

	spin_lock(&vgpu_acct_lock);
	vgpu_walk_start(&w, &vgpu_procs, false, 0);
	while ((p = vgpu_walk_next(&w))) {
		if (vgpu_proc_dead(p))
			continue;
		mask = p->gpus & p->bucket->gpus;
		for (i = 0; i < VGPU_GPU_MAX; i++)
			if (mask & BIT_ULL(i))
				users[i]++;
	}
	spin_unlock(&vgpu_acct_lock);
	vgpu_walk_done(&w);
}
