// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the VRAM accounting's decisions (policy.h): how much more a bucket
 * may be charged on a GPU, the budget a charge comes with, and when a
 * charge that does not fit looks further (its own unspent budget, then the
 * registrations). Pure: acct.c and acct_charge.c hand the numbers over
 * under vgpu_acct_lock.
 */
#ifdef __KERNEL__
#include <linux/math.h>
#include <linux/minmax.h>
#endif

#include "policy.h"

/**
 * vgpu_pol_limit() - the most a bucket may be charged on a GPU
 * @v: the bucket's VRAM on the GPU
 *
 * Return: its vram-max, or the GPU's capacity if smaller.
 */
u64 vgpu_pol_limit(const struct vgpu_pol_vram *v)
{
	return min(v->vram_max, v->capacity);
}

/* What the other buckets leave of the GPU: its capacity less their holds. */
static u64 vgpu_pol_left(const struct vgpu_pol_vram *v)
{
	u64 others = v->held - v->hold;

	return v->capacity > others ? v->capacity - others : 0;
}

/**
 * vgpu_pol_room() - how many more bytes a bucket may be charged on a GPU
 * @v: the bucket's VRAM on the GPU
 * @freed: bytes others would hold less (0: as things are)
 * @gpu_bound: out, or NULL: whether the GPU (others' charges and
 *	reservations) rather than the bucket's own limit is what bounds it
 *
 * What others leave of the GPU is its capacity less their holds; the
 * bucket may grow up to that or its limit, whichever is smaller.
 *
 * Return: bytes, 0 when the bucket is at or past its bound.
 */
u64 vgpu_pol_room(const struct vgpu_pol_vram *v, u64 freed, bool *gpu_bound)
{
	u64 left = vgpu_pol_left(v);
	u64 limit = vgpu_pol_limit(v);
	u64 free = min(left + freed, v->capacity);
	u64 top = min(limit, free);

	if (gpu_bound)
		*gpu_bound = free < limit;
	return top > v->charged ? top - v->charged : 0;
}

/**
 * vgpu_pol_budget() - the budget to give with a charge
 * @room: what the bucket has left after the charge
 *
 * Return: bytes, a fraction of @room in steps; none near the limit.
 */
u64 vgpu_pol_budget(u64 room)
{
	return round_down(min(room >> VGPU_BUDGET_SHIFT, VGPU_BUDGET_MAX), VGPU_BUDGET_STEP);
}

/**
 * vgpu_pol_look() - whether a charge that does not fit looks further
 * @bytes: the charge
 * @room: vgpu_pol_room() now
 * @limit: vgpu_pol_limit()
 *
 * A charge above the bucket's limit can never fit and is refused at once;
 * one that fits needs no look.
 *
 * Return: true when budgets taken back could make @bytes fit.
 */
bool vgpu_pol_look(u64 bytes, u64 room, u64 limit)
{
	return bytes > room && bytes <= limit;
}

/**
 * vgpu_pol_fits_back() - whether a suspended bucket's parked bytes fit again
 * @v: the bucket's VRAM on the GPU while suspended (its reservation lapsed)
 * @parked: bytes to charge back
 * @reserve: its reservation (vram-min) on the GPU, to hold again
 * @keep_free: bytes the resume must leave free (charges waiting for the
 *	room a preemption frees)
 *
 * Its charges with @parked must fit under its limit and what the others
 * leave of the GPU less @keep_free, and so must its reservation: a resume
 * never takes what others hold or wait for, nor promises what it cannot
 * give.
 *
 * Return: true when both fit.
 */
bool vgpu_pol_fits_back(const struct vgpu_pol_vram *v, u64 parked, u64 reserve, u64 keep_free)
{
	u64 left = vgpu_pol_left(v);

	left = left > keep_free ? left - keep_free : 0;
	return v->charged + parked <= min(vgpu_pol_limit(v), left) && reserve <= left;
}
