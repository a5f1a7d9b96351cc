// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the compute schedulers' decisions (policy.h), the numbers of
 * sched.c's policy: compute-max budgets refilled by period with their
 * debt, virtual time, which of two waiters is the better pick, when a
 * holder must give the GPU up, and where a waiter that joins re-enters.
 * Pure: sched.c hands the numbers over under vgpu_sched_lock.
 */
#ifdef __KERNEL__
#include <linux/math64.h>
#include <linux/minmax.h>
#endif

#include "policy.h"

/**
 * vgpu_pol_refill() - bring a capped bucket's budget to a period
 * @budget: ns left in period @epoch (negative: debt); updated
 * @epoch: the period @budget belongs to; updated
 * @now_epoch: the period now
 * @period: period_us, ns
 * @compute_max: the cap, basis points
 *
 * Debt (an overrun past the budget) is repaid by the periods that passed:
 * each brings one budget, and what is left is at most one.
 */
void vgpu_pol_refill(s64 *budget, u64 *epoch, u64 now_epoch, u64 period, u32 compute_max)
{
	s64 quota = div_u64(period * compute_max, 10000);
	u64 k = now_epoch > *epoch ? now_epoch - *epoch : 1;

	if (*epoch == now_epoch)
		return;
	*epoch = now_epoch;
	if (*budget >= 0 || !quota || k > div64_u64(-*budget, quota) + 1)
		*budget = quota;
	else
		*budget = min_t(s64, *budget + (s64)k * quota, quota);
}

/**
 * vgpu_pol_spend() - charge holding time to a capped bucket's budgets
 * @budget: as vgpu_pol_refill(); updated
 * @epoch: as vgpu_pol_refill(); updated
 * @from: start of the held interval, ns
 * @now: its end, ns
 * @period: period_us, ns
 * @compute_max: the cap, basis points
 *
 * Each period's share of the interval goes to that period's budget.
 */
void vgpu_pol_spend(s64 *budget, u64 *epoch, u64 from, u64 now, u64 period, u32 compute_max)
{
	u64 e, end;

	while (from < now) {
		e = div64_u64(from, period);
		end = min(now, (e + 1) * period);
		vgpu_pol_refill(budget, epoch, e, period, compute_max);
		*budget -= end - from;
		from = end;
	}
}

/**
 * vgpu_pol_vtime_add() - a bucket's virtual time after holding a GPU
 * @vtime: before
 * @held_ns: ns held
 * @weight: the bucket's weight, 1 to VGPU_WEIGHT_MAX
 *
 * Return: @vtime + @held_ns x VGPU_WEIGHT_DEFAULT / @weight (wrapping:
 * virtual times are compared by their signed difference).
 */
u64 vgpu_pol_vtime_add(u64 vtime, u64 held_ns, u32 weight)
{
	return vtime + div_u64(held_ns * VGPU_WEIGHT_DEFAULT, weight);
}

/**
 * vgpu_pol_better() - whether a waiter is a better pick than the best so far
 * @priority: the waiter's class
 * @vtime: its virtual time
 * @best_priority: the best's class
 * @best_vtime: the best's virtual time
 *
 * Return: true for a higher class, or the same class and a smaller
 * virtual time (a tie keeps the one found first: the longest waiting).
 */
bool vgpu_pol_better(u32 priority, u64 vtime, u32 best_priority, u64 best_vtime)
{
	return priority > best_priority ||
	       (priority == best_priority && (s64)(vtime - best_vtime) < 0);
}

/**
 * vgpu_pol_must_revoke() - whether a GPU's holder must give it up now
 * @h: the holder and the best other waiter
 *
 * It must when it has no process left, may no longer use the GPU or has
 * no budget; when a higher class waits (preemption); when it is idle (no
 * waiter, no launch for idle_us) and another waits, or it is capped (its
 * budget is kept); at the end of its slice when a waiter of its class has
 * a smaller virtual time.
 *
 * Return: true to revoke.
 */
bool vgpu_pol_must_revoke(const struct vgpu_pol_holder *h)
{
	bool idle;

	if (!h->nprocs || !h->eligible)
		return true;
	if (h->best && h->best_priority > h->priority)
		return true;
	idle = !h->waiters && h->now - h->last_active >= h->idle_ns;
	if (idle && (h->best || h->capped))
		return true;
	return h->now >= h->slice_end && h->best && h->best_priority == h->priority &&
	       (s64)(h->best_vtime - h->vtime) < 0;
}

/**
 * vgpu_pol_rejoin() - a waiter's virtual time when it joins the active list
 * @vtime: its virtual time
 * @min_vtime: the smallest of its class among the active
 * @slice_ns: slice_us, ns
 * @weight: its weight
 *
 * Idleness earns no burst (no less than @min_vtime), and history from
 * before it costs at most one slice: otherwise a tenant that ran alone for
 * a while would starve behind newcomers.
 *
 * Return: the virtual time to re-enter with.
 */
u64 vgpu_pol_rejoin(u64 vtime, u64 min_vtime, u64 slice_ns, u32 weight)
{
	u64 cap = min_vtime + div_u64(slice_ns * VGPU_WEIGHT_DEFAULT, weight);

	if ((s64)(min_vtime - vtime) > 0)
		return min_vtime;
	if ((s64)(vtime - cap) > 0)
		return cap;
	return vtime;
}
