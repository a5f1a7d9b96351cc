// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: a bucket's usage as netlink attributes (the VGPU_A_TENANT_USAGE
 * nests of tenant messages).
 *
 * A bucket's usage on a GPU joins two domains: its VRAM accounting
 * (acct.c, under vgpu_acct_lock) and its compute counters
 * (sched_bucket.c, under vgpu_sched_lock, which vgpu_sched_counters()
 * takes inside vgpu_acct_lock). Both are copied out first, so that nothing is written
 * into the message under a spinlock. Kept apart from acct.c so that the
 * accounting knows nothing of netlink or of the scheduler's counters.
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/netlink.h>

#include "acct.h"
#include "proc.h"
#include "sched.h"
#include "usage.h"

/**
 * vgpu_usage_msg_size() - room vgpu_usage_put() needs at most
 *
 * Return: bytes of attributes.
 */
size_t vgpu_usage_msg_size(void)
{
	return VGPU_GPU_MAX * (nla_total_size(0) + nla_total_size(sizeof(u32)) +
			       11 * nla_total_size_64bit(sizeof(u64)));
}

/**
 * vgpu_usage_snapshot() - copy a bucket's usage out, GPU by GPU
 * @b: bucket
 * @snap: VGPU_GPU_MAX lines, filled from the first
 *
 * One line per GPU on which the bucket has anything charged or ever had,
 * was ever granted or throttled, or holds or held a reservation,
 * integrating byte-seconds and compute time up to now. The bucket's
 * registrations are summed in batches (acct_walk.c), its dead processes
 * ended on the way, so vram-current is exact; the counters are copied
 * after the sum, at once.
 *
 * Context: vgpu_lock held (the bucket stays), vgpu_acct_lock not held.
 * Return: the number of lines filled.
 */
int vgpu_usage_snapshot(struct vgpu_bucket *b, struct vgpu_usage_snap *snap)
{
	u64 now, cur[VGPU_GPU_MAX] = { 0 };
	struct vgpu_walk w = VGPU_WALK_INIT;
	struct vgpu_proc *p;
	LIST_HEAD(dead);
	int n = 0;
	u32 i;

	spin_lock(&vgpu_acct_lock);
	vgpu_walk_start(&w, &b->procs, true, 0);
	while ((p = vgpu_walk_next(&w))) {
		if (vgpu_proc_dead(p)) {
			vgpu_proc_end(p, &dead);
			continue;
		}
		for (i = 0; i < VGPU_GPU_MAX; i++) {
			if (!p->granted[i])
				continue;
			vgpu_acct_check_page(p, i);
			cur[i] += vgpu_acct_proc_used(p, i);
		}
	}
	now = ktime_get_ns();
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		struct vgpu_usage *u = &b->usage[i];
		struct vgpu_sched_counters sc;

		vgpu_sched_counters(&b->sched, i, &sc);
		if (!u->charged && !u->peak && !u->failures && !sc.grants && !sc.throttled_ns &&
		    !u->reserved && !u->res_sec && !u->res_ns)
			continue;
		vgpu_usage_integrate(u, now);
		snap[n] = (struct vgpu_usage_snap) {
			.gpu = i,
			.current_bytes = min(cur[i], u->charged),
			.peak = u->peak,
			.failures = u->failures,
			.overdrafts = u->overdrafts,
			.scans = u->scans,
			.byte_sec = u->byte_sec,
			.res_sec = u->res_sec,
			.sched = sc,
		};
		snap[n].budget = u->charged - snap[n].current_bytes;
		n++;
	}
	spin_unlock(&vgpu_acct_lock);
	vgpu_walk_done(&w);
	vgpu_proc_put_list(&dead);
	return n;
}

/**
 * vgpu_usage_put_snap() - add usage nests from a snapshot to a message
 * @skb: message
 * @snap: lines from vgpu_usage_snapshot()
 * @n: their number
 *
 * Return: 0 or -EMSGSIZE.
 */
int vgpu_usage_put_snap(struct sk_buff *skb, const struct vgpu_usage_snap *snap, int n)
{
	struct nlattr *nest;
	int i;

	for (i = 0; i < n; i++) {
		nest = nla_nest_start(skb, VGPU_A_TENANT_USAGE);
		if (!nest ||
		    nla_put_u32(skb, VGPU_A_USAGE_GPU, snap[i].gpu) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_VRAM_CURRENT, snap[i].current_bytes,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_VRAM_PEAK, snap[i].peak,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_VRAM_FAILURES, snap[i].failures,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_VRAM_BUDGET, snap[i].budget,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_VRAM_BYTE_SECONDS, snap[i].byte_sec,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_GPU_TIME_NS, snap[i].sched.gpu_time_ns,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_THROTTLED_NS, snap[i].sched.throttled_ns,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_GRANTS, snap[i].sched.grants,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_VRAM_OVERDRAFTS, snap[i].overdrafts,
				      VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_VRAM_RESERVED_BYTE_SECONDS,
				      snap[i].res_sec, VGPU_A_USAGE_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_USAGE_VRAM_SCANS, snap[i].scans,
				      VGPU_A_USAGE_PAD))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/**
 * vgpu_usage_put() - add a bucket's usage nests to a message
 * @skb: message
 * @b: bucket
 *
 * The lines of vgpu_usage_snapshot(), as they are now.
 *
 * Context: may sleep (allocates).
 * Return: 0, -ENOMEM or -EMSGSIZE.
 */
int vgpu_usage_put(struct sk_buff *skb, struct vgpu_bucket *b)
{
	struct vgpu_usage_snap *snap;
	int err;

	snap = kmalloc_array(VGPU_GPU_MAX, sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return -ENOMEM;
	err = vgpu_usage_put_snap(skb, snap, vgpu_usage_snapshot(b, snap));
	kfree(snap);
	return err;
}
