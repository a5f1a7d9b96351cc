/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the registry of GPU processes (proc.c) and the state of an open
 * /dev/vgpu file (dev.c).
 *
 * Registrations, grants and the binding between a file and its process are
 * protected by vgpu_acct_lock (acct.h); a bucket's list of processes also
 * by its procs_lock, for MEMINFO.
 */
#ifndef _VGPU_PROC_H
#define _VGPU_PROC_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/types.h>

#include "../uapi/vgpu.h"
#include "../uapi/vgpu_dev.h"
#include "sched.h"

struct file_operations;
struct net;
struct pid;
struct vgpu_bucket;
struct vgpu_tenant;

/**
 * struct vgpu_dev_file - an open /dev/vgpu
 * @page: the shared page, allocated at open, freed at the last close
 * @gate: the read-only gate page (compute grants), likewise
 * @proc: the live registration bound to this file, or NULL
 * @opener: the process that opened it (counted in dev_opens.c)
 */
struct vgpu_dev_file {
	struct vgpu_dev_page *page;
	struct vgpu_dev_gate *gate;
	struct vgpu_proc *proc;
	struct pid *opener;
};

/**
 * struct vgpu_proc - a registered GPU process
 * @ref: references: the registry's while registered, and its creator's
 * @pid: the process (thread group leader's struct pid)
 * @net: network namespace of the registering socket (key, no reference:
 *	the entry goes before the socket does)
 * @portid: netlink port id of the registering socket (key)
 * @serial: registration number, increasing; the order of proc-get dumps
 * @df: the /dev/vgpu file whose page is the process's; NULL once the
 *	registration has ended
 * @tenant: tenant at registration, NULL outside every tenant
 * @bucket: what the process is charged to: @tenant's bucket or
 *	vgpu_default_bucket
 * @hnode: link in the (net, portid) hash
 * @pidnode: link in the hash by @pid (a process's registrations)
 * @bnode: link in @bucket->procs
 * @node: link in the list of every registered process
 * @granted: per GPU index, bytes the module has given the process and
 *	charged to @bucket (its used + avail as far as the module knows)
 * @suspect: GPUs on which the last look at the page found an overdraft
 * @overdrawn: GPUs on which an overdraft was seen twice and reported
 * @sched: compute scheduling state (vgpu_sched_lock)
 * @gpus: GPUs chosen for the process at registration (gpus-auto), ~0 when
 *	it asked for none; constant once registered
 * @parked: per GPU index, bytes of a checkpointed process's device memory
 *	held in host memory: its grant, taken off its bucket (acct_park.c)
 * @frozen: the agent reported the process checkpointed: its charges wait
 *	until it reports it running (vgpu_park_wq)
 */
struct vgpu_proc {
	struct kref ref;
	struct pid *pid;
	struct net *net;
	u32 portid;
	u64 serial;
	struct vgpu_dev_file *df;
	struct vgpu_tenant *tenant;
	struct vgpu_bucket *bucket;
	struct hlist_node hnode;
	struct hlist_node pidnode;
	struct list_head bnode;
	struct list_head node;
	u64 granted[VGPU_GPU_MAX];
	u64 suspect;
	u64 overdrawn;
	struct vgpu_sched_proc sched;
	u64 gpus;
	u64 parked[VGPU_GPU_MAX];
	bool frozen;
};

extern const struct file_operations vgpu_dev_fops;
extern u32 vgpu_default_policy;
extern struct list_head vgpu_procs;

/* proc.c */
struct vgpu_proc *vgpu_proc_alloc(void);
void vgpu_proc_put(struct vgpu_proc *p);
int vgpu_proc_link(struct vgpu_proc *p, struct vgpu_dev_file *df,
		   struct vgpu_tenant *t, struct net *net, u32 portid);
void vgpu_proc_end(struct vgpu_proc *p, struct list_head *dead);
void vgpu_proc_end_bucket(struct vgpu_bucket *b, struct list_head *dead);
unsigned int vgpu_proc_end_pid(struct pid *pid);
unsigned int vgpu_proc_of_pid(struct pid *pid, struct vgpu_proc **regs, unsigned int max);
void vgpu_proc_unregister(struct vgpu_proc *p);
void vgpu_proc_put_list(struct list_head *dead);
bool vgpu_proc_dead(const struct vgpu_proc *p);
void vgpu_proc_reap_bucket(struct vgpu_bucket *b, struct list_head *dead);
void vgpu_proc_reap_all(struct list_head *dead);
unsigned int vgpu_proc_count(void);
int vgpu_proc_init(void);
void vgpu_proc_exit(void);

/* Registrations one process may hold at once (each a socket and a file). */
#define VGPU_PROC_REGS_MAX	16

/* dev.c */
int vgpu_dev_init(void);
void vgpu_dev_exit(void);

/* dev_opens.c: /dev/vgpu files one process may have open at once. */
#define VGPU_DEV_OPENS_MAX	64
struct pid *vgpu_dev_opens_get(void);
void vgpu_dev_opens_put(struct pid *pid);

#endif /* _VGPU_PROC_H */
