/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: compute time-slicing, one scheduler per GPU (sched.c: decisions;
 * sched_bucket.c: buckets, GPUs, counters; sched_proc.c: processes).
 *
 * Tenants, and the default bucket of the processes outside every tenant,
 * hold exclusive grants of a GPU in turn. A grant is published in the
 * read-only gate page of each of the holder's processes; a process without
 * one drains its queued work and sleeps in VGPU_IOC_WAIT. See
 * Documentation/compute.md for the algorithm.
 *
 * Locking: vgpu_sched_lock, a spinlock taken with bottom halves disabled
 * (the schedulers' hrtimers run in softirq context and take it), protects
 * every scheduler, every struct vgpu_sched_bucket and struct
 * vgpu_sched_proc. Lock order: vgpu_lock, vgpu_acct_lock, vgpu_sched_lock.
 * The timers take only vgpu_sched_lock.
 */
#ifndef _VGPU_SCHED_H
#define _VGPU_SCHED_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/types.h>

#include "../uapi/vgpu.h"
#include "../uapi/vgpu_dev.h"
#include "policy.h"

struct vgpu_quota_set;

extern spinlock_t vgpu_sched_lock;

/**
 * struct vgpu_sched_ent - a bucket's scheduling state on one GPU
 * @node: link in the GPU's active list (while it waits or holds)
 * @vtime: virtual time, ns of holding x 100 / weight
 * @budget: compute-max budget left in period @epoch, ns (negative: debt)
 * @epoch: the period @budget belongs to
 * @gpu_time_ns: holding time charged
 * @throttled_ns: time with a waiting process and no grant
 * @grants: grants received
 * @drain_ns: drain times the library reported (recorded only)
 * @throttled_since: start of the current throttled interval, 0 if none
 * @waiters: processes' threads sleeping in VGPU_IOC_WAIT for the GPU
 */
struct vgpu_sched_ent {
	struct list_head node;
	u64 vtime;
	s64 budget;
	u64 epoch;
	u64 gpu_time_ns;
	u64 throttled_ns;
	u64 grants;
	u64 drain_ns;
	u64 throttled_since;
	u32 waiters;
};

/**
 * struct vgpu_sched_bucket - what the schedulers know of a bucket
 * @node: link in the list of every bucket
 * @procs: its registered processes (struct vgpu_sched_proc.node)
 * @nprocs: their number
 * @weight: the tenant's weight, 1-10000
 * @priority: enum vgpu_priority
 * @capped: the tenant has a compute-max
 * @compute_max: the compute-max, basis points
 * @gpus: the GPUs it may use
 * @ent: per GPU index
 */
struct vgpu_sched_bucket {
	struct list_head node;
	struct list_head procs;
	unsigned int nprocs;
	u32 weight;
	u32 priority;
	bool capped;
	u32 compute_max;
	u64 gpus;
	struct vgpu_sched_ent ent[VGPU_GPU_MAX];
};

/**
 * struct vgpu_sched_proc - what the schedulers know of a registered process
 * @node: link in its bucket's @procs
 * @bucket: that bucket, NULL when not linked
 * @page: the process's accounting page (its @launches counters)
 * @gate: its gate page
 * @draining: GPUs on which the module waits for the process to drain
 * @waiting: per GPU, its threads sleeping in VGPU_IOC_WAIT (u32: a process
 *	has fewer threads than PID_MAX_LIMIT, so the count cannot wrap; see
 *	vgpu_sched_proc_link())
 * @seen: per GPU, @launches at the last look
 * @moved: per GPU, when @launches was last seen moving (or the process
 *	last left VGPU_IOC_WAIT), ktime_get_ns()
 */
struct vgpu_sched_proc {
	struct list_head node;
	struct vgpu_sched_bucket *bucket;
	struct vgpu_dev_page *page;
	struct vgpu_dev_gate *gate;
	u64 draining;
	u32 waiting[VGPU_GPU_MAX];
	u64 seen[VGPU_GPU_MAX];
	u64 moved[VGPU_GPU_MAX];
};

/**
 * struct vgpu_sched_counters - a bucket's compute counters on one GPU
 * @gpu_time_ns: holding time charged
 * @throttled_ns: time with demand and no grant
 * @grants: grants received
 */
struct vgpu_sched_counters {
	u64 gpu_time_ns;
	u64 throttled_ns;
	u64 grants;
};

/**
 * struct vgpu_sched - the scheduler of one GPU (internal to sched*.c)
 * @timer: decision timer (softirq)
 * @wq: threads sleeping in VGPU_IOC_WAIT for the GPU
 * @active: entities that wait or hold (struct vgpu_sched_ent.node)
 * @holder: the bucket holding the grant (or draining it), NULL if none
 * @present: the GPU is in the inventory
 * @draining: @holder's grant was revoked; waiting for its processes to drain
 * @started: a process of @holder resumed or launched since the grant
 * @drainers: processes still to drain
 * @grant_start: when @holder was granted
 * @charged_to: up to when @holder has been charged
 * @slice_end: end of the current slice
 * @last_active: last time @holder's processes were seen launching
 * @drain_end: when a drain stops waiting (drain_timeout_us)
 * @kick: bumped when waiters must look again (quotas changed, GPU gone)
 */
struct vgpu_sched {
	struct hrtimer timer;
	struct wait_queue_head wq;
	struct list_head active;
	struct vgpu_sched_bucket *holder;
	bool present;
	bool draining;
	bool started;
	u32 drainers;
	u64 grant_start;
	u64 charged_to;
	u64 slice_end;
	u64 last_active;
	u64 drain_end;
	u32 kick;
};

extern struct vgpu_sched vgpu_scheds[VGPU_GPU_MAX];

/* sched.c */
void vgpu_sched_update(struct vgpu_sched *s, u64 now);
void vgpu_sched_ent_sync(struct vgpu_sched *s, struct vgpu_sched_bucket *sb, u64 now);
bool vgpu_sched_granted(const struct vgpu_sched *s, const struct vgpu_sched_bucket *sb);
void vgpu_sched_resumed(struct vgpu_sched *s, u64 now);
void vgpu_sched_charge(struct vgpu_sched *s, u64 now);
void vgpu_sched_handover(struct vgpu_sched *s, u64 now);
enum hrtimer_restart vgpu_sched_timer(struct hrtimer *timer);

/* sched_bucket.c */
void vgpu_sched_bucket_init(struct vgpu_sched_bucket *sb);
void vgpu_sched_bucket_add(struct vgpu_sched_bucket *sb, const struct vgpu_quota_set *q);
void vgpu_sched_bucket_set(struct vgpu_sched_bucket *sb, const struct vgpu_quota_set *q);
void vgpu_sched_bucket_del(struct vgpu_sched_bucket *sb);
void vgpu_sched_gpu_add(u32 index);
void vgpu_sched_gpu_del(u32 index);
void vgpu_sched_counters(struct vgpu_sched_bucket *sb, u32 index,
			 struct vgpu_sched_counters *c);
void vgpu_sched_init(struct vgpu_sched_bucket *def);
void vgpu_sched_exit(void);

/* sched_proc.c */
void vgpu_sched_proc_link(struct vgpu_sched_proc *sp, struct vgpu_sched_bucket *sb,
			  struct vgpu_dev_page *page, struct vgpu_dev_gate *gate);
void vgpu_sched_proc_end(struct vgpu_sched_proc *sp);
int vgpu_sched_wait(struct vgpu_sched_proc *sp, u32 index, u64 drain_ns, u64 *waited_ns);

#endif /* _VGPU_SCHED_H */
