/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: declarations shared by the files of vgpu.ko.
 *
 * One mutex, vgpu_lock, protects the GPU inventory and the tenant table.
 * Every change to either bumps vgpu_generation, which dumps use to flag
 * themselves inconsistent (NLM_F_DUMP_INTR) when the data moved under them.
 *
 * Lock order: vgpu_lock is taken before the cgroup core's locks
 * (cgroup_path_ns() and the cgroup look-ups run under it) and never inside
 * them, and before vgpu_acct_lock (acct.h), the spinlock of the VRAM
 * accounting and the process registry, which is never held across a
 * sleep, itself taken before vgpu_sched_lock (sched.h) and before a
 * bucket's procs_lock (acct.h; the two are never held together).
 *
 * Layering: a file calls only files on its own line's right or on lower
 * lines; nothing calls up. Top to bottom:
 *
 *   main.c                     module init and exit
 *   nl_gen.c netlink.c         the family (generated ops, registration)
 *   nl_gpu.c nl_tenant.c nl_proc.c nl_host.c nl_final.c dev.c dev_opens.c
 *   selftest.c                 handlers: netlink requests, /dev/vgpu
 *   placement.c gpu_choice.c   placement policy over every tenant; the
 *                              GPUs gpus-auto chooses, NVLink, health
 *   preempt.c                  suspending lower tenants for a charge that
 *                              found no room (preemption by memory)
 *   tenant_state.c tenant_del.c  suspension and resume (the agent's
 *                              reports); deleting a tenant (admin,
 *                              ephemeral), its final record
 *   tenant_msg.c               tenant and final record messages,
 *                              notifications
 *   tenant.c usage.c final.c   the tenant table; usage attributes; the
 *                              final records of deleted tenants
 *   acct_charge.c acct_park.c acct_bucket.c  charging; suspended
 *                              processes' parked bytes; buckets and GPUs
 *                              come and go
 *   acct_scan.c                a short charge's looks through registrations
 *   acct_walk.c                walks through registrations in batches;
 *                              MEMINFO; the GPUs' users (gpus-auto)
 *   proc.c                     the process registry, ends registrations
 *   acct.c                     VRAM sums and grants
 *   sched_proc.c sched_bucket.c  processes' waits; buckets, GPUs, counters
 *   sched.c                    the compute schedulers' decisions
 *   place_proc.c place.c       pinning; struct vgpu_place, its attributes
 *   quota.c label.c            a tenant's quotas and labels
 *   gpu.c notify.c host.c      the GPU inventory; multicasting; instance
 *                              id, monitor group (who reads everything)
 *   parse.c                    names, UUIDs, PCI bus ids
 *   policy_vram.c policy_sched.c  the pure decisions (policy.h): VRAM room
 *                              and budgets, compute budgets, picks and
 *                              revocation; compiled into host unit tests
 *                              too, they include no kernel state
 *
 * Data may be read across layers (struct fields, vgpu_procs, the default
 * bucket); the objects above their users are vgpu_nl_family (netlink.c),
 * which tenant_msg.c and notify.c name as the family of their messages
 * without calling into netlink.c, and vgpu_ephemeral_work (tenant_del.c),
 * which proc.c queues when an ephemeral tenant's registration ends. Domain code that must tell userspace
 * calls down to tenant_msg.c, never up into nl_tenant.c.
 */
#ifndef _VGPU_VGPU_H
#define _VGPU_VGPU_H

#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/types.h>

struct delayed_work;
struct genl_family;
struct sk_buff;

extern struct mutex vgpu_lock;
extern unsigned int vgpu_generation;

/**
 * vgpu_changed() - record a change to the GPU inventory or the tenant table
 *
 * Bumps the generation counter that dumps keep in cb->seq, skipping 0,
 * which would disable the netlink core's consistency check.
 *
 * Context: vgpu_lock held.
 */
static inline void vgpu_changed(void)
{
	lockdep_assert_held(&vgpu_lock);
	if (!++vgpu_generation)
		vgpu_generation = 1;
}

/* netlink.c */
extern struct genl_family vgpu_nl_family;
int vgpu_nl_register(void);
void vgpu_nl_unregister(void);

/* tenant_del.c: run at once when an ephemeral tenant's registration ends. */
extern struct delayed_work vgpu_ephemeral_work;

/* host.c */
extern u64 vgpu_instance_id;
extern u64 vgpu_loaded;
void vgpu_host_init(void);
u32 vgpu_monitor_gid_get(void);
void vgpu_monitor_gid_set(u32 gid);
bool vgpu_may_read_all(struct sk_buff *skb);

/* notify.c */
bool vgpu_nl_has_listeners(void);
void vgpu_nl_notify(struct sk_buff *msg);

/* selftest.c */
int vgpu_selftest(void);

#endif /* _VGPU_VGPU_H */
