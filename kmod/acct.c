// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: VRAM accounting.
 *
 * Every tenant has a bucket (struct vgpu_bucket, in the tenant), and the
 * processes outside every tenant share vgpu_default_bucket. Per bucket and
 * GPU the module keeps @charged, the bytes it has given the bucket's
 * processes: what they hold (@used in their pages) plus their unspent
 * budgets (@avail). Per GPU it keeps @held, the sum over all buckets of
 * max(charged, reservation), where the reservation is the tenant's
 * vram-min on the GPUs it may use. A bucket may be charged up to
 *
 *	min(limit, capacity - (held - max(charged, reservation))) - charged
 *
 * more bytes, in O(1). Everything is under vgpu_acct_lock; see
 * Documentation/vram.md for the model.
 *
 * This file keeps the sums and the processes' grants, and calls nothing
 * above it. Ending a registration uncharges the process (proc.c calls
 * down here), so what may end the registrations of dead processes sits
 * above proc.c: charging (acct_charge.c) and buckets and GPUs coming and
 * going (acct_bucket.c).
 */
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "acct.h"
#include "proc.h"

DEFINE_SPINLOCK(vgpu_acct_lock);

/* The processes outside every tenant: unlimited, no reservation. */
struct vgpu_bucket vgpu_default_bucket = {
	.vram_max = U64_MAX,
	.vram_min = 0,
	.gpus = ~0ULL,
	.procs = LIST_HEAD_INIT(vgpu_default_bucket.procs),
	.procs_lock = __SPIN_LOCK_UNLOCKED(vgpu_default_bucket.procs_lock),
	.node = LIST_HEAD_INIT(vgpu_default_bucket.node),
};

struct vgpu_acct_gpu vgpu_acct_gpus[VGPU_GPU_MAX];

/**
 * vgpu_bucket_init() - initialise a bucket with no limit and nothing charged
 * @b: bucket, zeroed or not
 */
void vgpu_bucket_init(struct vgpu_bucket *b)
{
	memset(b, 0, sizeof(*b));
	b->vram_max = U64_MAX;
	b->gpus = ~0ULL;
	INIT_LIST_HEAD(&b->procs);
	spin_lock_init(&b->procs_lock);
	INIT_LIST_HEAD(&b->node);
	vgpu_sched_bucket_init(&b->sched);
}

/*
 * Adds @bytes held for @dt ns to the integral *@sec + *@ns / 1e9:
 * whole seconds, then the rest through a 128-bit product, its remainder
 * kept in *@ns (below 1e9). Saturates at U64_MAX byte-seconds.
 */
static void vgpu_integral_add(u64 *sec, u64 *ns, u64 bytes, u64 dt)
{
	u64 whole, q, rem;
	u32 part;

	if (!bytes || !dt)
		return;
	whole = div_u64_rem(dt, NSEC_PER_SEC, &part);
	if (check_mul_overflow(bytes, whole, &whole))
		whole = U64_MAX;
	q = mul_u64_u64_div_u64(bytes, part, NSEC_PER_SEC);
	/* The exact remainder, below 1e9: wrapping arithmetic is enough. */
	rem = bytes * part - q * NSEC_PER_SEC;
	*ns += rem;
	if (*ns >= NSEC_PER_SEC) {
		*ns -= NSEC_PER_SEC;
		q++;
	}
	if (check_add_overflow(whole, q, &whole) ||
	    check_add_overflow(*sec, whole, sec))
		*sec = U64_MAX;
}

/**
 * vgpu_usage_integrate() - bring a bucket's byte-seconds on a GPU up to date
 * @u: accounting of the bucket on the GPU
 * @now: ktime_get_ns()
 *
 * Adds @u->charged and @u->reserved over the time since the last call to
 * their integrals, exactly (byte_sec += charged * dt / 1e9, the remainder
 * kept in byte-ns), so that they only grow and a change of either is
 * integrated at its old value up to the change.
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_usage_integrate(struct vgpu_usage *u, u64 now)
{
	u64 dt = now - u->stamp;

	u->stamp = now;
	vgpu_integral_add(&u->byte_sec, &u->byte_ns, u->charged, dt);
	vgpu_integral_add(&u->res_sec, &u->res_ns, u->reserved, dt);
}

/**
 * vgpu_acct_sync_reserved() - follow a change of a bucket's reservations
 * @b: bucket whose vram-min or gpus changed, or a GPU came or went
 * @now: ktime_get_ns()
 *
 * Integrates every GPU's reservation at its old value up to @now, then
 * takes the new one: vgpu_bucket_reserve() on the GPUs present, 0 on the
 * others.
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_acct_sync_reserved(struct vgpu_bucket *b, u64 now)
{
	struct vgpu_usage *u;
	u32 i;

	lockdep_assert_held(&vgpu_acct_lock);
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		u = &b->usage[i];
		vgpu_usage_integrate(u, now);
		u->reserved = vgpu_acct_gpus[i].present ? vgpu_bucket_reserve(b, i) : 0;
	}
}

/**
 * vgpu_acct_unhold() - take a bucket's hold off a GPU's sums
 * @b: bucket
 * @index: GPU index
 *
 * Before a change of what the bucket holds (its charges, reservation,
 * gpus or class); vgpu_acct_rehold() after it puts the new hold back.
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_acct_unhold(const struct vgpu_bucket *b, u32 index)
{
	vgpu_acct_gpus[index].held -= vgpu_bucket_hold(b, index);
	vgpu_acct_gpus[index].held_firm -= vgpu_bucket_hold_firm(b, index);
}

/**
 * vgpu_acct_rehold() - put a bucket's hold back in a GPU's sums
 * @b: bucket
 * @index: GPU index
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_acct_rehold(const struct vgpu_bucket *b, u32 index)
{
	vgpu_acct_gpus[index].held += vgpu_bucket_hold(b, index);
	vgpu_acct_gpus[index].held_firm += vgpu_bucket_hold_firm(b, index);
}

/**
 * vgpu_acct_set_charged() - set what a bucket is charged on a GPU
 * @b: bucket
 * @index: GPU index
 * @charged: bytes
 *
 * Keeps every sum in step (the GPU's @held, @held_firm and @charged, the
 * bucket's peak and byte-seconds).
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_acct_set_charged(struct vgpu_bucket *b, u32 index, u64 charged)
{
	struct vgpu_acct_gpu *gpu = &vgpu_acct_gpus[index];
	struct vgpu_usage *u = &b->usage[index];

	lockdep_assert_held(&vgpu_acct_lock);
	vgpu_usage_integrate(u, ktime_get_ns());
	vgpu_acct_unhold(b, index);
	gpu->charged -= u->charged;
	u->charged = charged;
	vgpu_acct_rehold(b, index);
	gpu->charged += charged;
	if (charged > u->peak)
		u->peak = charged;
}

/**
 * vgpu_acct_uncharge() - take bytes off a bucket's charges on a GPU
 * @b: bucket
 * @index: GPU index
 * @bytes: bytes, at most what is charged
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_acct_uncharge(struct vgpu_bucket *b, u32 index, u64 bytes)
{
	u64 charged = b->usage[index].charged;

	if (WARN_ON_ONCE(bytes > charged))
		bytes = charged;
	if (bytes)
		vgpu_acct_set_charged(b, index, charged - bytes);
}

/**
 * vgpu_acct_gpu_ok() - whether a GPU index may be charged
 * @index: GPU index, any value
 *
 * Context: vgpu_acct_lock held.
 * Return: true when the GPU is in the inventory.
 */
bool vgpu_acct_gpu_ok(u32 index)
{
	return index < VGPU_GPU_MAX && vgpu_acct_gpus[index].present;
}

/**
 * vgpu_avail() - a process's unspent budget on a GPU, in its page
 * @p: live registered process
 * @index: GPU index
 *
 * The page is shared with the process, which moves bytes out of it.
 *
 * Return: the page's @avail, to be used atomically.
 */
atomic64_t *vgpu_avail(const struct vgpu_proc *p, u32 index)
{
	return (atomic64_t *)&p->df->page->gpu[index].avail;
}

/**
 * vgpu_acct_reclaim() - take a process's unspent budget on a GPU back
 * @p: live registered process
 * @index: GPU index
 *
 * Exchanges the page's @avail with 0; what it held, bounded by what the
 * module gave, comes off the process's grant and its bucket's charges.
 *
 * Context: vgpu_acct_lock held.
 * Return: bytes taken back.
 */
u64 vgpu_acct_reclaim(struct vgpu_proc *p, u32 index)
{
	s64 avail;
	u64 take;

	if (!p->granted[index])
		return 0;
	avail = atomic64_xchg(vgpu_avail(p, index), 0);
	take = avail > 0 ? min_t(u64, avail, p->granted[index]) : 0;
	p->granted[index] -= take;
	vgpu_acct_uncharge(p->bucket, index, take);
	return take;
}

/**
 * vgpu_acct_reclaim_bucket() - take back every budget of a bucket's processes
 * @b: bucket
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_acct_reclaim_bucket(struct vgpu_bucket *b)
{
	struct vgpu_proc *p;
	u32 i;

	lockdep_assert_held(&vgpu_acct_lock);
	list_for_each_entry(p, &b->procs, bnode) {
		for (i = 0; i < VGPU_GPU_MAX; i++)
			vgpu_acct_reclaim(p, i);
	}
}

/* Where frozen processes' charges wait (acct_park.c); woken by every thaw and end. */
DECLARE_WAIT_QUEUE_HEAD(vgpu_park_wq);

/**
 * vgpu_acct_thaw() - let a process's charges go on
 * @p: registered process
 *
 * Its parked bytes, if any are left (the resume did not charge them
 * back), stay parked.
 */
void vgpu_acct_thaw(struct vgpu_proc *p)
{
	lockdep_assert_held(&vgpu_acct_lock);
	if (!p->frozen)
		return;
	WRITE_ONCE(p->frozen, false);
	wake_up_all(&vgpu_park_wq);
}

/**
 * vgpu_acct_park_end() - a registration with parked bytes ends
 * @p: the process whose registration ends (vgpu_proc_end())
 *
 * Its host copy goes with it: its parked bytes leave its bucket's sum,
 * and a charge of its waiting for the thaw wakes to find it ended.
 */
void vgpu_acct_park_end(struct vgpu_proc *p)
{
	u32 i;

	lockdep_assert_held(&vgpu_acct_lock);
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		p->bucket->usage[i].parked -= p->parked[i];
		p->parked[i] = 0;
	}
	vgpu_acct_thaw(p);
}

/**
 * vgpu_acct_proc_used() - what a process holds on a GPU
 * @p: live registered process
 * @index: GPU index
 *
 * Context: vgpu_acct_lock held, or the lock of the list of its bucket's
 * processes, @p on it (MEMINFO: its grant may then move meanwhile).
 * Return: @used from its page, never more than the module gave it.
 */
u64 vgpu_acct_proc_used(const struct vgpu_proc *p, u32 index)
{
	return min_t(u64, READ_ONCE(p->df->page->gpu[index].used), READ_ONCE(p->granted[index]));
}

/**
 * vgpu_acct_check_page() - notice a page that claims more than was granted
 * @p: live registered process
 * @index: GPU index
 *
 * libvgpu only moves bytes between the page's @avail and @used, so their
 * sum never exceeds what the module granted; more means the process wrote
 * its page. A move in flight can make one look see more, so @used is read
 * before and after @avail (a move shows as a change) and an overdraft is
 * reported only when a second look, at a later call, sees one too: then
 * it is counted in the bucket's usage (once per process and GPU) and
 * logged. What the process spends beyond its grant stays uncharged: the
 * module cannot take back memory the driver gave. A process with parked
 * bytes on the GPU (acct_park.c) is not looked at.
 *
 * Context: vgpu_acct_lock held.
 * Return: true when newly reported.
 */
bool vgpu_acct_check_page(struct vgpu_proc *p, u32 index)
{
	struct vgpu_dev_gpu *slot = &p->df->page->gpu[index];
	u64 bit = BIT_ULL(index), used, claim;
	s64 avail;

	/* A parked process's page keeps what it held: no overdraft. */
	if ((p->overdrawn & bit) || p->parked[index])
		return false;
	used = READ_ONCE(slot->used);
	avail = atomic64_read(vgpu_avail(p, index));
	if (READ_ONCE(slot->used) != used ||
	    check_add_overflow(used, (u64)max_t(s64, avail, 0), &claim) ||
	    claim <= p->granted[index]) {
		p->suspect &= ~bit;
		return false;
	}
	if (!(p->suspect & bit)) {
		p->suspect |= bit;
		return false;
	}
	p->overdrawn |= bit;
	p->bucket->usage[index].overdrafts++;
	pr_warn_ratelimited("vgpu: process %d claims %llu bytes on GPU %u in its page, %llu granted: it wrote the page\n",
			    pid_nr(p->pid), claim, index, p->granted[index]);
	return true;
}

/**
 * vgpu_acct_vram() - a bucket's VRAM on a GPU, for the policy (policy.h)
 * @b: bucket
 * @index: GPU index
 * @v: out
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_acct_vram(const struct vgpu_bucket *b, u32 index, struct vgpu_pol_vram *v)
{
	const struct vgpu_acct_gpu *gpu = &vgpu_acct_gpus[index];

	v->vram_max = b->vram_max;
	v->capacity = gpu->capacity;
	/* A firm tenant does not count what soft ones reserve (suspend.md). */
	v->held = b != &vgpu_default_bucket && !b->soft ? gpu->held_firm : gpu->held;
	v->hold = vgpu_bucket_hold(b, index);
	v->charged = b->usage[index].charged;
}

/**
 * vgpu_acct_room() - how many more bytes a bucket may be charged on a GPU
 * @b: bucket
 * @index: GPU index
 * @freed: bytes others would hold less (0: as things are)
 * @gpu_bound: out, or NULL: whether the GPU (others' charges and
 *	reservations) rather than the bucket's own limit is what bounds it
 *
 * Context: vgpu_acct_lock held.
 * Return: bytes (vgpu_pol_room()).
 */
u64 vgpu_acct_room(const struct vgpu_bucket *b, u32 index, u64 freed, bool *gpu_bound)
{
	struct vgpu_pol_vram v;

	vgpu_acct_vram(b, index, &v);
	return vgpu_pol_room(&v, freed, gpu_bound);
}

/**
 * vgpu_acct_denied() - whether a process may not use a GPU
 * @p: registered process
 * @index: GPU index in the inventory
 *
 * Context: vgpu_acct_lock held.
 * Return: true outside the tenant's gpus mask or the GPUs chosen for the
 * process at registration, or outside every tenant under the deny default
 * policy.
 */
bool vgpu_acct_denied(const struct vgpu_proc *p, u32 index)
{
	if (!(p->gpus & BIT_ULL(index)))
		return true;
	if (!p->tenant)
		return vgpu_default_policy == VGPU_DEFAULT_POLICY_DENY;
	return !(p->bucket->gpus & BIT_ULL(index));
}

/**
 * vgpu_acct_release() - VGPU_IOC_RELEASE: take unspent budget back
 * @p: live registered process
 * @index: GPU index
 * @bytes: most bytes to take
 *
 * Takes min(@bytes, avail) off the page's @avail with a compare-and-swap
 * loop (never below 0) and off the process's grant and bucket.
 *
 * Context: vgpu_acct_lock held.
 * Return: bytes taken back.
 */
u64 vgpu_acct_release(struct vgpu_proc *p, u32 index, u64 bytes)
{
	atomic64_t *avail = vgpu_avail(p, index);
	s64 old = atomic64_read(avail);
	u64 take;

	do {
		take = old > 0 ? min_t(u64, old, bytes) : 0;
		if (!take)
			return 0;
	} while (!atomic64_try_cmpxchg(avail, &old, old - take));

	take = min(take, p->granted[index]);
	p->granted[index] -= take;
	vgpu_acct_uncharge(p->bucket, index, take);
	return take;
}
