// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: compute time-slicing, the decisions of the per-GPU schedulers.
 *
 * Each GPU is held by one bucket (a tenant, or the default bucket) at a
 * time. Among the buckets with demand (a process waiting in VGPU_IOC_WAIT
 * for the GPU, or the holder still launching) and compute-max budget, the
 * highest priority class wins, then the smallest virtual time (weighted
 * fair queueing: vtime += held ns x 100 / weight). The holder keeps the
 * GPU for slices of slice_us, renewed while no other bucket of its class
 * or higher is a better pick; a higher class preempts it at once; it gives
 * the GPU up when it made no launch for idle_us while others wait; its
 * compute-max budget (refilled every period_us) bounds its holding time.
 * A revoked holder is charged until its processes that launched lately
 * have drained (come back to VGPU_IOC_WAIT or ended), or drain_timeout_us.
 *
 * Every decision is vgpu_sched_run(), under vgpu_sched_lock, from process
 * context (waits, registrations, quota changes) or from the GPU's hrtimer
 * (softirq), which is re-armed for the next deadline. See
 * Documentation/compute.md.
 *
 * The buckets and GPUs the schedulers know (their coming and going, quota
 * changes) and the counters are in sched_bucket.c; processes' waits in
 * sched_proc.c.
 */
#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "sched.h"

static unsigned int slice_us = 10000;
module_param(slice_us, uint, 0644);
MODULE_PARM_DESC(slice_us, "Length of a compute slice, us (default 10000, at least 100)");

static unsigned int idle_us = 2000;
module_param(idle_us, uint, 0644);
MODULE_PARM_DESC(idle_us, "A holder without launches for this long gives the GPU up when others wait, us (default 2000, at least 100)");

static unsigned int period_us = 100000;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "Period of the compute-max budgets, us (default 100000, at least 1000)");

static unsigned int drain_timeout_us = 100000;
module_param(drain_timeout_us, uint, 0644);
MODULE_PARM_DESC(drain_timeout_us, "Longest wait for a revoked holder to drain, us (default 100000)");

DEFINE_SPINLOCK(vgpu_sched_lock);
struct vgpu_sched vgpu_scheds[VGPU_GPU_MAX];

static u64 vgpu_param_ns(const unsigned int *us, unsigned int min)
{
	return (u64)max(READ_ONCE(*us), min) * NSEC_PER_USEC;
}

static u64 vgpu_slice_ns(void)
{
	return vgpu_param_ns(&slice_us, 100);
}

static u64 vgpu_idle_ns(void)
{
	return vgpu_param_ns(&idle_us, 100);
}

static u64 vgpu_period_ns(void)
{
	return vgpu_param_ns(&period_us, 1000);
}

/* How often a holder is looked at while its idleness matters. */
static u64 vgpu_tick_ns(void)
{
	return clamp_t(u64, vgpu_idle_ns() / 2, 50 * NSEC_PER_USEC, NSEC_PER_MSEC);
}

static u32 vgpu_sched_index(const struct vgpu_sched *s)
{
	return s - vgpu_scheds;
}

static struct vgpu_sched_ent *vgpu_sched_ent(const struct vgpu_sched *s,
					     struct vgpu_sched_bucket *sb)
{
	return &sb->ent[vgpu_sched_index(s)];
}

static struct vgpu_sched_bucket *vgpu_sched_owner(struct vgpu_sched_ent *e, u32 index)
{
	return container_of(e - index, struct vgpu_sched_bucket, ent[0]);
}

/**
 * vgpu_sched_granted() - whether a bucket holds a GPU now
 * @s: the GPU's scheduler
 * @sb: bucket
 *
 * Context: vgpu_sched_lock held.
 * Return: true when @sb holds the grant and it is not being revoked.
 */
bool vgpu_sched_granted(const struct vgpu_sched *s, const struct vgpu_sched_bucket *sb)
{
	return s->present && s->holder == sb && !s->draining;
}

/* Budget left now, S64_MAX when uncapped. */
static s64 vgpu_sched_budget(struct vgpu_sched_bucket *sb, struct vgpu_sched_ent *e, u64 now)
{
	u64 period = vgpu_period_ns();

	if (!sb->capped)
		return S64_MAX;
	vgpu_pol_refill(&e->budget, &e->epoch, div64_u64(now, period), period, sb->compute_max);
	return e->budget;
}

static bool vgpu_sched_eligible(struct vgpu_sched *s, struct vgpu_sched_bucket *sb, u64 now)
{
	return (sb->gpus & BIT_ULL(vgpu_sched_index(s))) &&
	       vgpu_sched_budget(sb, vgpu_sched_ent(s, sb), now) > 0;
}

/**
 * vgpu_sched_charge() - charge the holder of a GPU up to now
 * @s: the GPU's scheduler, with a holder
 * @now: ktime_get_ns()
 *
 * Charges the holder from @s->charged_to to @now.
 *
 * Context: vgpu_sched_lock held.
 */
void vgpu_sched_charge(struct vgpu_sched *s, u64 now)
{
	struct vgpu_sched_bucket *sb = s->holder;
	struct vgpu_sched_ent *e = vgpu_sched_ent(s, sb);
	u64 from = s->charged_to;

	if (now <= from)
		return;
	s->charged_to = now;
	/*
	 * The holder's clock starts when one of its processes resumes from
	 * its wait or launches: the time the scheduler takes to wake it is
	 * not its own. A holder that shows no sign for idle_us pays anyway.
	 */
	if (!s->started) {
		if (now - s->grant_start < vgpu_idle_ns())
			return;
		s->started = true;
	}
	e->gpu_time_ns += now - from;
	e->vtime = vgpu_pol_vtime_add(e->vtime, now - from, sb->weight);
	if (sb->capped)
		vgpu_pol_spend(&e->budget, &e->epoch, from, now, vgpu_period_ns(),
			       sb->compute_max);
}

/**
 * vgpu_sched_resumed() - a process of the holder came back from its wait
 * @s: the GPU's scheduler
 * @now: ktime_get_ns()
 *
 * The holder is charged from now on (see vgpu_sched_charge()).
 *
 * Context: vgpu_sched_lock held.
 */
void vgpu_sched_resumed(struct vgpu_sched *s, u64 now)
{
	if (!s->holder || s->started)
		return;
	vgpu_sched_charge(s, now);
	s->started = true;
}

/*
 * Notes which of the holder's processes launched since the last look; one
 * waiting for its own queued work (bound) is not idle either.
 */
static void vgpu_sched_sample(struct vgpu_sched *s, u64 now)
{
	u32 g = vgpu_sched_index(s);
	struct vgpu_sched_proc *sp;
	u64 n;

	list_for_each_entry(sp, &s->holder->procs, node) {
		if (READ_ONCE(sp->page->gpu[g].bound))
			s->last_active = now;
		n = READ_ONCE(sp->page->gpu[g].launches);
		if (n == sp->seen[g])
			continue;
		sp->seen[g] = n;
		sp->moved[g] = now;
		s->last_active = now;
		s->started = true;
	}
}

/* Opens or closes the gate of every process of @sb on the GPU. */
static void vgpu_sched_gate(struct vgpu_sched *s, struct vgpu_sched_bucket *sb, bool open)
{
	u32 g = vgpu_sched_index(s);
	struct vgpu_sched_proc *sp;

	list_for_each_entry(sp, &sb->procs, node) {
		if (open) {
			WRITE_ONCE(sp->gate->gpu[g].seq, sp->gate->gpu[g].seq + 1);
			smp_wmb();	/* seq before granted */
		}
		WRITE_ONCE(sp->gate->gpu[g].granted, open);
	}
}

/**
 * vgpu_sched_ent_sync() - follow a change of a bucket's waiters or of the holder
 * @s: the GPU's scheduler
 * @sb: bucket
 * @now: ktime_get_ns()
 *
 * Keeps @sb in the active list while it waits or holds (a bucket that
 * joins re-enters at the smallest virtual time of its class, so idleness
 * earns no burst) and its throttled time running while it waits without
 * holding.
 *
 * Context: vgpu_sched_lock held.
 */
void vgpu_sched_ent_sync(struct vgpu_sched *s, struct vgpu_sched_bucket *sb, u64 now)
{
	struct vgpu_sched_ent *e = vgpu_sched_ent(s, sb), *o;
	bool want = s->present && (e->waiters || s->holder == sb);
	bool throttled = want && e->waiters && s->holder != sb;
	u32 g = vgpu_sched_index(s);
	bool any = false;
	u64 min_vt = 0;

	if (want && list_empty(&e->node)) {
		list_for_each_entry(o, &s->active, node) {
			if (vgpu_sched_owner(o, g)->priority != sb->priority)
				continue;
			if (!any || (s64)(o->vtime - min_vt) < 0)
				min_vt = o->vtime;
			any = true;
		}
		if (any)
			e->vtime = vgpu_pol_rejoin(e->vtime, min_vt, vgpu_slice_ns(), sb->weight);
		list_add_tail(&e->node, &s->active);
	} else if (!want && !list_empty(&e->node)) {
		list_del_init(&e->node);
	}

	if (throttled && !e->throttled_since) {
		e->throttled_since = now ?: 1;
	} else if (!throttled && e->throttled_since) {
		e->throttled_ns += now - e->throttled_since;
		e->throttled_since = 0;
	}
}

/*
 * The best bucket other than the holder that waits and may be granted:
 * highest class, then smallest virtual time, then the longest in the list.
 */
static struct vgpu_sched_bucket *vgpu_sched_pick(struct vgpu_sched *s, u64 now)
{
	struct vgpu_sched_bucket *best = NULL, *sb;
	struct vgpu_sched_ent *e, *be = NULL;
	u32 g = vgpu_sched_index(s);

	list_for_each_entry(e, &s->active, node) {
		sb = vgpu_sched_owner(e, g);
		/* Waiters are threads of its processes: none without them. */
		if (sb == s->holder || !e->waiters || !sb->nprocs ||
		    !vgpu_sched_eligible(s, sb, now))
			continue;
		if (!best || vgpu_pol_better(sb->priority, e->vtime, best->priority, be->vtime)) {
			best = sb;
			be = e;
		}
	}
	return best;
}

static void vgpu_sched_grant(struct vgpu_sched *s, struct vgpu_sched_bucket *sb, u64 now)
{
	u32 g = vgpu_sched_index(s);
	struct vgpu_sched_proc *sp;

	/* Launches from now on are the grant's. */
	list_for_each_entry(sp, &sb->procs, node)
		sp->seen[g] = READ_ONCE(sp->page->gpu[g].launches);
	s->holder = sb;
	s->draining = false;
	s->drainers = 0;
	s->grant_start = now;
	s->charged_to = now;
	s->started = false;
	s->last_active = now;
	s->slice_end = now + vgpu_slice_ns();
	vgpu_sched_ent(s, sb)->grants++;
	vgpu_sched_ent_sync(s, sb, now);
	vgpu_sched_gate(s, sb, true);
	wake_up_all(&s->wq);
}

/*
 * Whether a process says all its launches on GPU @g are complete (it
 * synchronised with its whole context since its last launch).
 */
static bool vgpu_sched_proc_synced(const struct vgpu_sched_proc *sp, u32 g)
{
	return READ_ONCE(sp->page->gpu[g].synced) >= READ_ONCE(sp->page->gpu[g].launches);
}

/*
 * Closes the holder's gates and counts the processes to wait for: those
 * that launched during the grant (or left a wait for it), do not wait and
 * have not synchronised with all their work since. One that stopped
 * launching may still be synchronising with its queued work, which is the
 * holder's to pay for: it is waited for too.
 */
static void vgpu_sched_revoke(struct vgpu_sched *s, u64 now)
{
	u32 g = vgpu_sched_index(s);
	struct vgpu_sched_proc *sp;

	vgpu_sched_gate(s, s->holder, false);
	s->draining = true;
	s->drain_end = now + vgpu_param_ns(&drain_timeout_us, 0);
	s->drainers = 0;
	list_for_each_entry(sp, &s->holder->procs, node) {
		if (sp->waiting[g] || sp->moved[g] < s->grant_start ||
		    vgpu_sched_proc_synced(sp, g))
			continue;
		sp->draining |= BIT_ULL(g);
		s->drainers++;
	}
}

/* Drainers that have synchronised with all their work meanwhile are done. */
static void vgpu_sched_drain_check(struct vgpu_sched *s)
{
	u32 g = vgpu_sched_index(s);
	struct vgpu_sched_proc *sp;

	list_for_each_entry(sp, &s->holder->procs, node) {
		if (!(sp->draining & BIT_ULL(g)) || !vgpu_sched_proc_synced(sp, g))
			continue;
		sp->draining &= ~BIT_ULL(g);
		s->drainers--;
	}
}

/**
 * vgpu_sched_handover() - end the holder's turn on a GPU
 * @s: the GPU's scheduler, with a holder
 * @now: ktime_get_ns(); the caller charged the holder up to it
 *
 * Context: vgpu_sched_lock held.
 */
void vgpu_sched_handover(struct vgpu_sched *s, u64 now)
{
	struct vgpu_sched_bucket *sb = s->holder;
	u32 g = vgpu_sched_index(s);
	struct vgpu_sched_proc *sp;

	if (!s->draining)
		vgpu_sched_gate(s, sb, false);
	list_for_each_entry(sp, &sb->procs, node)
		sp->draining &= ~BIT_ULL(g);
	s->holder = NULL;
	s->draining = false;
	s->drainers = 0;
	vgpu_sched_ent_sync(s, sb, now);
}

static bool vgpu_sched_must_revoke(struct vgpu_sched *s, u64 now)
{
	struct vgpu_sched_bucket *sb = s->holder, *best;
	struct vgpu_sched_ent *e = vgpu_sched_ent(s, sb);
	struct vgpu_pol_holder h = {
		.now = now,
		.nprocs = sb->nprocs,
		.capped = sb->capped,
		.priority = sb->priority,
		.vtime = e->vtime,
		.waiters = e->waiters,
		.last_active = s->last_active,
		.idle_ns = vgpu_idle_ns(),
		.slice_end = s->slice_end,
	};

	h.eligible = sb->nprocs && vgpu_sched_eligible(s, sb, now);
	best = h.eligible ? vgpu_sched_pick(s, now) : NULL;
	if (best) {
		h.best = true;
		h.best_priority = best->priority;
		h.best_vtime = vgpu_sched_ent(s, best)->vtime;
	}
	return vgpu_pol_must_revoke(&h);
}

/* When the scheduler must look again, U64_MAX for never. */
static u64 vgpu_sched_next(struct vgpu_sched *s, u64 now)
{
	struct vgpu_sched_bucket *sb = s->holder;
	struct vgpu_sched_ent *e;
	u64 next, period;

	if (!sb) {
		if (list_empty(&s->active))
			return U64_MAX;
		/* Waiters are all out of budget: look again at the refill. */
		period = vgpu_period_ns();
		return (div64_u64(now, period) + 1) * period;
	}
	if (s->draining)	/* a drainer may report itself synchronised */
		return min(s->drain_end, now + vgpu_tick_ns());
	e = vgpu_sched_ent(s, sb);
	next = s->slice_end;
	if (sb->capped)
		next = min_t(u64, next, now + max_t(s64, e->budget, 0));
	if (sb->capped || !list_is_singular(&s->active) ||
	    now - s->last_active < vgpu_idle_ns())
		next = min(next, now + vgpu_tick_ns());
	return next;
}

/* One decision; returns when to look again (U64_MAX: never). */
static u64 vgpu_sched_run(struct vgpu_sched *s, u64 now)
{
	struct vgpu_sched_bucket *best;

	if (!s->present)
		return U64_MAX;
	if (s->holder) {
		vgpu_sched_sample(s, now);
		vgpu_sched_charge(s, now);
		if (!s->draining) {
			if (vgpu_sched_must_revoke(s, now))
				vgpu_sched_revoke(s, now);
			else if (now >= s->slice_end)
				s->slice_end = now + vgpu_slice_ns();
		}
		if (s->draining)
			vgpu_sched_drain_check(s);
		if (s->draining &&
		    (!s->drainers || !s->holder->nprocs || now >= s->drain_end))
			vgpu_sched_handover(s, now);
	}
	if (!s->holder) {
		best = vgpu_sched_pick(s, now);
		if (best)
			vgpu_sched_grant(s, best, now);
	}
	return vgpu_sched_next(s, now);
}

/**
 * vgpu_sched_update() - take a decision on a GPU and arm its timer
 * @s: the GPU's scheduler
 * @now: ktime_get_ns()
 *
 * Context: vgpu_sched_lock held (any context).
 */
void vgpu_sched_update(struct vgpu_sched *s, u64 now)
{
	u64 next = vgpu_sched_run(s, now);

	if (next == U64_MAX)
		return;
	next = max(next, now + 10 * NSEC_PER_USEC);
	hrtimer_start(&s->timer, ns_to_ktime(next), HRTIMER_MODE_ABS_SOFT);
}

/**
 * vgpu_sched_timer() - a GPU's decision timer (struct vgpu_sched.timer)
 * @timer: the timer
 *
 * The timer re-arms itself through vgpu_sched_update() (hrtimer_start() in
 * the callback is allowed: the core does not enqueue it again).
 *
 * Context: softirq; takes vgpu_sched_lock.
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart vgpu_sched_timer(struct hrtimer *timer)
{
	struct vgpu_sched *s = container_of(timer, struct vgpu_sched, timer);

	spin_lock(&vgpu_sched_lock);
	vgpu_sched_update(s, ktime_get_ns());
	spin_unlock(&vgpu_sched_lock);
	return HRTIMER_NORESTART;
}
