/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the module's pure decisions, with no kernel state and no kernel
 * header beyond integer types and arithmetic helpers, so that the same
 * files are compiled into vgpu.ko and into host unit tests
 * (tests/unit/test_kpolicy.c, with tests/unit/kshim/ standing for the
 * kernel's headers; OpenZFS's libzpool is the model: the same code, run in
 * userspace). Values in, values out; the callers (acct.c, acct_charge.c,
 * sched.c) read their structures and locks and hand the numbers over.
 *
 *   policy_vram.c   how much a bucket may still be charged on a GPU, the
 *                   budget given with a charge, when a short charge looks
 *                   further
 *   policy_sched.c  compute-max budgets and their debt, the pick between
 *                   two waiters, when a holder must give the GPU up, when
 *                   to look again, where a waiter re-enters
 *
 * Both are the lowest layer of vgpu.h's table: they call nothing.
 */
#ifndef _VGPU_POLICY_H
#define _VGPU_POLICY_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include "kshim.h"
#endif

#include "../uapi/vgpu.h"	/* VGPU_WEIGHT_DEFAULT */

/* Budgets: a fraction of the room left, in steps, at most a ceiling. */
#define VGPU_BUDGET_SHIFT	3
#define VGPU_BUDGET_STEP	(2ULL << 20)
#define VGPU_BUDGET_MAX		(256ULL << 20)

/**
 * struct vgpu_pol_vram - a bucket's VRAM on one GPU, as the accounting sees it
 * @vram_max: the bucket's limit (U64_MAX: none)
 * @capacity: the GPU's capacity
 * @held: what every bucket holds on the GPU (charges and reservations)
 * @hold: what this bucket holds of @held
 * @charged: what this bucket is charged
 */
struct vgpu_pol_vram {
	u64 vram_max;
	u64 capacity;
	u64 held;
	u64 hold;
	u64 charged;
};

u64 vgpu_pol_limit(const struct vgpu_pol_vram *v);
u64 vgpu_pol_room(const struct vgpu_pol_vram *v, u64 freed, bool *gpu_bound);
u64 vgpu_pol_budget(u64 room);
bool vgpu_pol_look(u64 bytes, u64 room, u64 limit);
bool vgpu_pol_fits_back(const struct vgpu_pol_vram *v, u64 parked, u64 reserve, u64 keep_free);

/**
 * struct vgpu_pol_holder - what the decision to revoke a GPU looks at
 * @now: ktime_get_ns()
 * @nprocs: the holder's registered processes
 * @eligible: the holder may use the GPU and has compute-max budget left
 * @capped: the holder has a compute-max
 * @priority: the holder's class
 * @vtime: the holder's virtual time on the GPU
 * @waiters: the holder's threads waiting for the GPU
 * @last_active: when the holder was last seen launching
 * @idle_ns: idle_us, ns
 * @slice_end: end of the holder's slice
 * @best: another bucket waits and may be granted (the pick)
 * @best_priority: its class
 * @best_vtime: its virtual time
 */
struct vgpu_pol_holder {
	u64 now;
	unsigned int nprocs;
	bool eligible;
	bool capped;
	u32 priority;
	u64 vtime;
	u32 waiters;
	u64 last_active;
	u64 idle_ns;
	u64 slice_end;
	bool best;
	u32 best_priority;
	u64 best_vtime;
};

void vgpu_pol_refill(s64 *budget, u64 *epoch, u64 now_epoch, u64 period, u32 compute_max);
void vgpu_pol_spend(s64 *budget, u64 *epoch, u64 from, u64 now, u64 period, u32 compute_max);
u64 vgpu_pol_vtime_add(u64 vtime, u64 held_ns, u32 weight);
bool vgpu_pol_better(u32 priority, u64 vtime, u32 best_priority, u64 best_vtime);
bool vgpu_pol_must_revoke(const struct vgpu_pol_holder *h);
u64 vgpu_pol_rejoin(u64 vtime, u64 min_vtime, u64 slice_ns, u32 weight);

#endif /* _VGPU_POLICY_H */
