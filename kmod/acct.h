/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: VRAM accounting, kept by the module for every tenant, for the
 * default bucket (processes outside every tenant) and for every GPU
 * (acct.c: the sums and grants; acct_charge.c: charging; acct_scan.c: a
 * short charge's looks through registrations; acct_walk.c: walks through
 * registrations in batches, MEMINFO; acct_bucket.c: buckets and GPUs
 * coming and going; usage.c: the usage attributes).
 *
 * One spinlock, vgpu_acct_lock, protects all of it together with the
 * process registry (proc.c): the accounting state of every bucket and GPU,
 * the limits each bucket copies from its tenant's quotas, the registered
 * processes and their grants, and the host's default policy. Nothing
 * sleeps under it, and nothing holds it for long: whatever goes through
 * registrations a tenant can have many of (a charge's look, tenant-get,
 * proc-get) lets it go every VGPU_SCAN_BATCH of them (struct vgpu_walk);
 * MEMINFO sums its tenant's under the bucket's own @procs_lock instead,
 * likewise in batches. Only admin operations (tenant-set, tenant-del,
 * gpu-del, proc-del) walk under it in one hold.
 * Lock order: vgpu_lock (mutex), then vgpu_acct_lock, then a bucket's
 * procs_lock.
 * See Documentation/vram.md.
 */
#ifndef _VGPU_ACCT_H
#define _VGPU_ACCT_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/spinlock.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "../uapi/vgpu.h"
#include "../uapi/vgpu_dev.h"
#include "policy.h"
#include "sched.h"

struct vgpu_dev_file;
struct vgpu_proc;
struct vgpu_quota_set;

/* The largest capacity the accounting works with (sums never overflow). */
#define VGPU_ACCT_BYTES_MAX	(1ULL << 62)
/*
 * After a charge that a look through registrations could not save, its
 * bucket's charges on the GPU do not look again for this long.
 */
#define VGPU_RECLAIM_PAUSE_NS	(10 * NSEC_PER_MSEC)
/*
 * After a look that saved its charge, the bucket's next one on the GPU
 * waits this many times as long as the look took (at most the pause):
 * a bucket's looks take at most a tenth of the time.
 */
#define VGPU_SCAN_SPACING	9
/* Registrations a walk (a look, a read) goes through per hold of its lock. */
#define VGPU_SCAN_BATCH		8

extern spinlock_t vgpu_acct_lock;

/**
 * struct vgpu_usage - accounting of one bucket on one GPU
 * @charged: bytes given to the bucket's processes (their used + avail),
 *	as the module counts them
 * @peak: most bytes ever charged at once
 * @failures: charges refused for want of quota or VRAM
 * @scans: charges that ran short and looked through the bucket's
 *	registrations (and, the GPU short, every registration on it)
 * @overdrafts: processes found claiming more than granted (their page)
 * @reserved: the bucket's reservation on the GPU while the GPU is
 *	present (vgpu_bucket_reserve()), else 0: what @res_sec integrates
 * @byte_sec: time integral of @charged, in byte-seconds (saturating)
 * @byte_ns: remainder of the integral below one byte-second, byte-ns
 * @res_sec: time integral of @reserved, in byte-seconds (saturating)
 * @res_ns: remainder of that integral below one byte-second, byte-ns
 * @stamp: ktime_get_ns() of the last integration (of both)
 * @scan_after: ktime_get_ns() before which the bucket's charges on the GPU
 *	do not look through registrations (acct_scan.c)
 * @spare: scratch of a GPU-wide look: the bucket's unspent budgets on the
 *	GPU counted so far
 * @spare_seq: the look that @spare belongs to
 * @parked: Σ parked of the bucket's processes on the GPU (acct_park.c):
 *	bytes its checkpointed processes hold in host memory, not charged
 */
struct vgpu_usage {
	u64 charged;
	u64 peak;
	u64 failures;
	u64 scans;
	u64 overdrafts;
	u64 reserved;
	u64 byte_sec;
	u64 byte_ns;
	u64 res_sec;
	u64 res_ns;
	u64 stamp;
	u64 scan_after;
	u64 spare;
	u64 spare_seq;
	u64 parked;
};

/**
 * struct vgpu_bucket - what VRAM is charged to: a tenant, or the default
 *	bucket of the processes outside every tenant
 * @vram_max: the tenant's vram-max, U64_MAX when unset
 * @vram_min: the tenant's vram-min, 0 when unset
 * @gpus: mask of the GPUs the tenant may use, all bits when unset
 * @scanning: mask of the GPUs on which a charge of the bucket is looking
 *	through registrations (acct_scan.c); the bucket is not freed while
 *	any is
 * @walkers: MEMINFO calls summing the bucket's registrations without
 *	vgpu_acct_lock (acct_walk.c); likewise
 * @nprocs: registered processes charged to this bucket
 * @procs: those processes (struct vgpu_proc.bnode)
 * @procs_lock: protects @procs for MEMINFO's sums, which do not take
 *	vgpu_acct_lock; a process joins or leaves @procs under both,
 *	vgpu_acct_lock first, and leaves it before its file is unbound
 * @node: link in the list of tenants' buckets (acct_bucket.c)
 * @lapsed: its reservations lapse while it is suspended (acct_park.c)
 * @soft: its tenant is preemptible: its reservations do not hold against
 *	tenants that are not (@held_firm)
 * @usage: accounting per GPU index
 * @sched: compute scheduling state, under vgpu_sched_lock (sched.h)
 *
 * Everything else is protected by vgpu_acct_lock.
 */
struct vgpu_bucket {
	u64 vram_max;
	u64 vram_min;
	u64 gpus;
	u64 scanning;
	unsigned int walkers;
	unsigned int nprocs;
	bool lapsed;
	bool soft;
	struct list_head procs;
	spinlock_t procs_lock;
	struct list_head node;
	struct vgpu_usage usage[VGPU_GPU_MAX];
	struct vgpu_sched_bucket sched;
};

extern struct vgpu_bucket vgpu_default_bucket;

/*
 * Per GPU index, present or not: @held and @charged are kept for every
 * index, so a GPU added later starts with the reservations of the tenants
 * that may use it; @scanning while a charge looks through every
 * registration on it (acct_scan.c); @wanted: bytes of the charges waiting
 * for preemption to free room on it, which resumes leave free
 * (acct_park.c); @held_firm: @held with the reservations of preemptible
 * tenants left out (their charges kept), which is what a tenant that is
 * not preemptible finds taken (suspend.md, "The admission rule"). Under
 * vgpu_acct_lock.
 */
struct vgpu_acct_gpu {
	bool present;
	bool scanning;
	u64 capacity;
	u64 held;
	u64 held_firm;
	u64 charged;
	u64 wanted;
};

extern struct vgpu_acct_gpu vgpu_acct_gpus[VGPU_GPU_MAX];

/**
 * vgpu_bucket_reserve() - what a bucket reserves on a GPU
 * @b: bucket
 * @index: GPU index
 *
 * Return: its vram-min on the GPUs it may use, else 0 (and 0 while
 * suspended: @lapsed).
 */
static inline u64 vgpu_bucket_reserve(const struct vgpu_bucket *b, u32 index)
{
	return b->gpus & BIT_ULL(index) && !b->lapsed ? b->vram_min : 0;
}

/**
 * vgpu_bucket_hold() - what a bucket keeps from others on a GPU
 * @b: bucket
 * @index: GPU index
 *
 * Return: its charges or its reservation, whichever is more.
 */
static inline u64 vgpu_bucket_hold(const struct vgpu_bucket *b, u32 index)
{
	return max(b->usage[index].charged, vgpu_bucket_reserve(b, index));
}

/**
 * vgpu_bucket_hold_firm() - what a bucket keeps from firm tenants on a GPU
 * @b: bucket
 * @index: GPU index
 *
 * Return: its charges, or its reservation if more and it is not soft.
 */
static inline u64 vgpu_bucket_hold_firm(const struct vgpu_bucket *b, u32 index)
{
	return b->soft ? b->usage[index].charged : vgpu_bucket_hold(b, index);
}

/* acct.c */
void vgpu_bucket_init(struct vgpu_bucket *b);
void vgpu_acct_unhold(const struct vgpu_bucket *b, u32 index);
void vgpu_acct_rehold(const struct vgpu_bucket *b, u32 index);
void vgpu_usage_integrate(struct vgpu_usage *u, u64 now);
void vgpu_acct_sync_reserved(struct vgpu_bucket *b, u64 now);
void vgpu_acct_set_charged(struct vgpu_bucket *b, u32 index, u64 charged);
atomic64_t *vgpu_avail(const struct vgpu_proc *p, u32 index);
u64 vgpu_acct_room(const struct vgpu_bucket *b, u32 index, u64 freed, bool *gpu_bound);
void vgpu_acct_vram(const struct vgpu_bucket *b, u32 index, struct vgpu_pol_vram *v);
bool vgpu_acct_gpu_ok(u32 index);
void vgpu_acct_uncharge(struct vgpu_bucket *b, u32 index, u64 bytes);
u64 vgpu_acct_reclaim(struct vgpu_proc *p, u32 index);
void vgpu_acct_reclaim_bucket(struct vgpu_bucket *b);
u64 vgpu_acct_proc_used(const struct vgpu_proc *p, u32 index);
bool vgpu_acct_check_page(struct vgpu_proc *p, u32 index);
bool vgpu_acct_denied(const struct vgpu_proc *p, u32 index);
u64 vgpu_acct_release(struct vgpu_proc *p, u32 index, u64 bytes);
extern struct wait_queue_head vgpu_park_wq;
void vgpu_acct_thaw(struct vgpu_proc *p);
void vgpu_acct_park_end(struct vgpu_proc *p);

/**
 * struct vgpu_walk - a walk through registrations in batches (acct_walk.c)
 * @lock: the lock held while walking and let go between batches:
 *	vgpu_acct_lock, or a bucket's @procs_lock (MEMINFO)
 * @head: the list walked: &bucket->procs (by bnode) or &vgpu_procs (node)
 * @by_bucket: whether @head links the entries by bnode
 * @pos: the link of the next entry, @head at the end
 * @last: serial of the last entry given out (the lists are in serial order)
 * @skip: skip the entries up to @last (the walk started again from @head,
 *	or started after a serial)
 * @left: entries before the next pause
 * @paused: the lock was let go since the caller last cleared it
 * @pin: referenced entry the walk goes on from after a pause, or NULL
 */
struct vgpu_walk {
	spinlock_t *lock;
	struct list_head *head;
	bool by_bucket;
	struct list_head *pos;
	u64 last;
	bool skip;
	unsigned int left;
	bool paused;
	struct vgpu_proc *pin;
};

#define VGPU_WALK_INIT	{ .lock = &vgpu_acct_lock, .left = VGPU_SCAN_BATCH }

/* acct_walk.c */
void vgpu_walk_start(struct vgpu_walk *w, struct list_head *head, bool by_bucket, u64 after);
struct vgpu_proc *vgpu_walk_next(struct vgpu_walk *w);
void vgpu_walk_unlock(struct vgpu_walk *w, struct vgpu_proc *pin);
void vgpu_walk_relock(struct vgpu_walk *w);
void vgpu_walk_done(struct vgpu_walk *w);
void vgpu_walk_bucket_get(struct vgpu_bucket *b);
void vgpu_walk_bucket_put(struct vgpu_bucket *b);
void vgpu_walk_wait_bucket(struct vgpu_bucket *b);
int vgpu_acct_meminfo(struct vgpu_proc *p, struct vgpu_dev_meminfo *mi);
void vgpu_acct_gpu_users(u64 *users);

/* acct_scan.c */
int vgpu_acct_scan(struct vgpu_proc *p, u32 index, u64 bytes, struct list_head *dead);
void vgpu_acct_scan_wait_bucket(struct vgpu_bucket *b);

/* acct_charge.c */
int vgpu_acct_charge(struct vgpu_proc *p, u32 index, u64 bytes, u64 *keep,
		     struct list_head *dead);

/* acct_park.c */
struct pid;
extern struct wait_queue_head vgpu_room_wq;
extern atomic_t vgpu_room_seq;
void vgpu_acct_room_changed(void);
void vgpu_acct_park(struct vgpu_proc *p);
u64 vgpu_acct_parked(const struct vgpu_bucket *b);
void vgpu_acct_lapse(struct vgpu_bucket *b, bool lapsed);
bool vgpu_acct_unpark_bucket(struct vgpu_bucket *b);
void vgpu_acct_thaw_bucket(struct vgpu_bucket *b);
int vgpu_acct_wait_thaw(struct vgpu_proc *p);

/* acct_bucket.c */
void vgpu_acct_bucket_add(struct vgpu_bucket *b, const struct vgpu_quota_set *q);
void vgpu_acct_bucket_set(struct vgpu_bucket *b, const struct vgpu_quota_set *q);
int vgpu_acct_bucket_del(struct vgpu_bucket *b, bool force);
void vgpu_acct_gpu_add(u32 index, u64 vram);
int vgpu_acct_gpu_del(u32 index);

#endif /* _VGPU_ACCT_H */
