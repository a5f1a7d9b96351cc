// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the placement of registered processes: pinning their threads to
 * their tenant's CPUs, and answering VGPU_IOC_PLACEMENT.
 *
 * Pinning uses set_cpus_allowed_ptr(), the one affinity call exported to
 * modules (6.1 and 6.12). Unlike sched_setaffinity(2) it checks neither
 * permissions (the policy is the admin's, and a process registers of its
 * own will; security_task_setscheduler() is not exported) nor the task's
 * cpuset (cpuset_cpus_allowed() is not exported, nor any way to read a
 * cpuset). So only threads in the tenant's own cgroup are pinned: its
 * cpuset is the one vgpuctl writes from the same effective CPUs. A thread
 * in a cgroup below it is confined by the cpusets, the tenant's (the
 * same CPUs) and its own, which may be narrower (a container's, set by
 * the kubelet's CPU manager, say): pinning it could only take it out of
 * its own. See Documentation/placement.md.
 */
#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "acct.h"
#include "placement.h"
#include "proc.h"
#include "tenant.h"
#include "vgpu.h"

/* Rounds of pinning a process; later rounds catch threads created meanwhile. */
#define VGPU_PIN_ROUNDS		3

/**
 * vgpu_place_pin() - pin every thread of a process that is in its tenant's cgroup
 * @pid: the process (its thread group's pid)
 * @mask: the CPUs
 * @cgrp: the tenant's cgroup
 *
 * Pins every thread of the process whose cgroup is @cgrp to @mask, as far
 * as the process lives: references to its threads are taken under RCU,
 * the pinning (which may sleep) done after. Threads already there, those
 * in a cgroup below @cgrp (their cpusets confine them) and those that
 * refuse affinity changes (PF_NO_SETAFFINITY) are left alone. A thread
 * created by one not yet pinned inherits the old mask, hence the further
 * rounds.
 */
void vgpu_place_pin(struct pid *pid, const struct cpumask *mask, struct cgroup *cgrp)
{
	struct task_struct **tasks, *leader, *task;
	unsigned int round, room, n, i;

	for (round = 0; round < VGPU_PIN_ROUNDS; round++) {
		rcu_read_lock();
		leader = pid_task(pid, PIDTYPE_TGID);
		room = leader ? get_nr_threads(leader) + 2 : 0;
		rcu_read_unlock();
		if (!room)
			return;
		/* Any thread count: kvmalloc falls back to vmalloc, no WARN. */
		tasks = kvmalloc_array(room, sizeof(*tasks), GFP_KERNEL_ACCOUNT);
		if (!tasks)
			return;

		n = 0;
		rcu_read_lock();
		leader = pid_task(pid, PIDTYPE_TGID);
		if (leader) {
			for_each_thread(leader, task) {
				if (n == room)
					break;
				if ((READ_ONCE(task->flags) & PF_NO_SETAFFINITY) ||
				    task_dfl_cgroup(task) != cgrp ||
				    cpumask_equal(&task->cpus_mask, mask))
					continue;
				get_task_struct(task);
				tasks[n++] = task;
			}
		}
		rcu_read_unlock();

		for (i = 0; i < n; i++) {
			set_cpus_allowed_ptr(tasks[i], mask);
			put_task_struct(tasks[i]);
		}
		kvfree(tasks);
		if (!n)
			return;
	}
}

/**
 * vgpu_place_pin_proc() - pin a process that just registered
 * @p: the registered process
 *
 * Every thread of the process is pinned to its tenant's CPUs, if they are
 * restricted; an unrestricted placement leaves its affinity alone.
 *
 * Context: vgpu_lock held (no placement changes meanwhile); may sleep.
 */
void vgpu_place_pin_proc(struct vgpu_proc *p)
{
	lockdep_assert_held(&vgpu_lock);
	if (p->tenant && p->tenant->place.cpus_set)
		vgpu_place_pin(p->pid, p->tenant->place.cpus, p->tenant->cgrp);
}

/**
 * vgpu_place_get() - answer VGPU_IOC_PLACEMENT
 * @p: the caller's registration
 * @out: the answer: its page's placement_seq and its tenant's nodes
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_place_get(const struct vgpu_proc *p, struct vgpu_dev_placement *out)
{
	const struct vgpu_place *pl = p->tenant ? &p->tenant->place : NULL;
	int node;

	lockdep_assert_held(&vgpu_acct_lock);
	memset(out, 0, sizeof(*out));
	out->seq = READ_ONCE(p->df->page->placement_seq);
	if (!pl || !pl->mems_set)
		return;
	out->flags = 1;		/* bit 0: mems restricts */
	for_each_node_mask(node, pl->mems) {
		if (node < 64 * ARRAY_SIZE(out->mems))
			out->mems[node / 64] |= 1ULL << (node % 64);
	}
}
