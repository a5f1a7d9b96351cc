// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: preemption by memory (Documentation/suspend.md, "Preemption").
 *
 * A charge that finds no room on a GPU, because of what the other tenants
 * hold rather than its own limit, may wait (its tenant's vram-wait) while
 * preemptible tenants of lower priority that hold VRAM on that GPU are
 * suspended (tenant_state.c; the agent does the work). Which: the lowest
 * priority first, then the most VRAM held on the GPU (the fewest
 * suspensions for the room), then the oldest tenant; only as many as the
 * room needs, and none when all of them together could not make the
 * charge fit, counting first what the suspensions under way will free (a
 * charge that a signal interrupted comes back and asks for no more). The
 * charge's bytes are @wanted on the GPU meanwhile, so that
 * no resume takes the room it waits for. The suspended tenants resume by
 * themselves once their VRAM fits again.
 */
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "preempt.h"
#include "proc.h"
#include "tenant.h"
#include "vgpu.h"

/* Most tenants one charge suspends. */
#define VGPU_PREEMPT_MAX	16

/*
 * What suspending @v frees for a charge of @t on @gpu: its charges, and
 * its reservation too (it lapses) if @t counts it (@t is preemptible
 * itself: acct.c's held_firm).
 */
static u64 vgpu_preempt_frees(const struct vgpu_tenant *v, const struct vgpu_tenant *t, u32 gpu)
{
	return t->bucket.soft ? vgpu_bucket_hold(&v->bucket, gpu) : v->bucket.usage[gpu].charged;
}

/* Whether @v may be suspended for a charge of @t on @gpu. */
static bool vgpu_preempt_candidate(const struct vgpu_tenant *v, const struct vgpu_tenant *t,
				   u32 gpu)
{
	return v != t && vgpu_quota_preemptible(&v->quota) &&
	       v->state == VGPU_TENANT_STATE_RUNNING && v->bucket.nprocs &&
	       vgpu_quota_priority(&v->quota) < vgpu_quota_priority(&t->quota) &&
	       vgpu_preempt_frees(v, t, gpu);
}

/* Whether @a goes before @b: lower priority, then more held, then older. */
static bool vgpu_preempt_before(const struct vgpu_tenant *a, const struct vgpu_tenant *b,
				u32 gpu)
{
	u32 pa = vgpu_quota_priority(&a->quota), pb = vgpu_quota_priority(&b->quota);
	u64 ca = a->bucket.usage[gpu].charged, cb = b->bucket.usage[gpu].charged;

	if (pa != pb)
		return pa < pb;
	if (ca != cb)
		return ca > cb;
	return a->id < b->id;
}

/*
 * What the suspensions under way will free for @t on @gpu: a charge that
 * comes back (a signal ended its wait, and libvgpu tries again) or
 * another waiting one counts them before it asks for more.
 */
static u64 vgpu_preempt_pending(const struct vgpu_tenant *t, u32 gpu)
{
	struct vgpu_tenant *v;
	unsigned long id;
	u64 freed = 0;

	for (id = 0; (v = vgpu_tenant_next(&id)); id++) {
		if (v != t && v->state == VGPU_TENANT_STATE_SUSPENDING)
			freed += vgpu_preempt_frees(v, t, gpu);
	}
	return freed;
}

/*
 * Picks the tenants to suspend for @need bytes on @gpu, best first, into
 * @out, counting what the suspensions under way free first. Returns
 * whether @need is covered (possibly with none picked).
 */
static bool vgpu_preempt_pick(const struct vgpu_tenant *t, u32 gpu, u64 need,
			      struct vgpu_tenant **out, unsigned int *nout)
{
	u64 freed = vgpu_preempt_pending(t, gpu);
	struct vgpu_tenant *v, *best;
	unsigned int n = 0, i;
	unsigned long id;

	lockdep_assert_held(&vgpu_lock);
	lockdep_assert_held(&vgpu_acct_lock);
	while (freed < need && n < VGPU_PREEMPT_MAX) {
		best = NULL;
		for (id = 0; (v = vgpu_tenant_next(&id)); id++) {
			if (!vgpu_preempt_candidate(v, t, gpu))
				continue;
			for (i = 0; i < n && out[i] != v; i++)
				;
			if (i == n && (!best || vgpu_preempt_before(v, best, gpu)))
				best = v;
		}
		if (!best)
			break;
		out[n++] = best;
		freed += vgpu_preempt_frees(best, t, gpu);
	}
	*nout = freed >= need ? n : 0;
	return freed >= need;
}

/**
 * vgpu_preempt_start() - suspend lower tenants for a charge that found no room
 * @p: the charging process (a reference held), its charge refused
 * @gpu: GPU index
 * @bytes: the charge
 * @pre: out: the wait, for vgpu_preempt_wait() and vgpu_preempt_end()
 *
 * Context: no lock held; takes vgpu_lock.
 * Return: 0 when the suspensions asked now or already under way free
 * enough (the charge may wait), -ENOMEM when the charge cannot wait: its
 * tenant has no vram-wait, its limit rather than the GPU bounds it, or
 * suspending every candidate would not free enough.
 */
int vgpu_preempt_start(struct vgpu_proc *p, u32 gpu, u64 bytes, struct vgpu_preempt *pre)
{
	struct vgpu_tenant *victims[VGPU_PREEMPT_MAX];
	bool gpu_bound, covered = false;
	struct vgpu_tenant *t;
	unsigned int n = 0, i;
	u32 wait_ms;
	u64 room;

	mutex_lock(&vgpu_lock);
	t = p->tenant;
	wait_ms = t && p->df ? vgpu_quota_vram_wait(&t->quota) : 0;
	if (!wait_ms || t->state != VGPU_TENANT_STATE_RUNNING)
		goto out_unlock;
	spin_lock(&vgpu_acct_lock);
	room = vgpu_acct_room(&t->bucket, gpu, 0, &gpu_bound);
	if (gpu_bound && bytes > room)
		covered = vgpu_preempt_pick(t, gpu, bytes - room, victims, &n);
	if (covered)
		vgpu_acct_gpus[gpu].wanted += bytes;
	spin_unlock(&vgpu_acct_lock);
	for (i = 0; i < n; i++) {
		victims[i]->preempted = true;
		vgpu_tenant_suspend(victims[i], NULL);
	}
out_unlock:
	mutex_unlock(&vgpu_lock);
	if (!covered)
		return -ENOMEM;
	pre->gpu = gpu;
	pre->bytes = bytes;
	pre->deadline = jiffies + msecs_to_jiffies(wait_ms);
	return 0;
}

/**
 * vgpu_preempt_wait() - wait until the room may have changed
 * @pre: the wait
 * @seq: vgpu_room_seq read before the charge last failed
 *
 * Context: no lock held; sleeps.
 * Return: 0 to try the charge again, -ENOMEM once the deadline passed or
 * no tenant is being suspended any more (nothing more will come),
 * -EINTR on a signal.
 */
int vgpu_preempt_wait(struct vgpu_preempt *pre, int seq)
{
	long left;

	if (time_after_eq(jiffies, pre->deadline) ||
	    (atomic_read(&vgpu_room_seq) == seq && !vgpu_tenant_suspending()))
		return -ENOMEM;
	left = wait_event_interruptible_timeout(vgpu_room_wq,
						atomic_read(&vgpu_room_seq) != seq,
						pre->deadline - jiffies);
	if (left < 0)
		return -EINTR;
	return 0;
}

/**
 * vgpu_preempt_end() - the charge stops waiting: its bytes are not wanted
 * @pre: the wait
 *
 * Context: no lock held.
 */
void vgpu_preempt_end(struct vgpu_preempt *pre)
{
	spin_lock(&vgpu_acct_lock);
	vgpu_acct_gpus[pre->gpu].wanted -= pre->bytes;
	spin_unlock(&vgpu_acct_lock);
}
