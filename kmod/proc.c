// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the registry of GPU processes and the end of their registrations.
 *
 * A process registers over netlink with an open /dev/vgpu (nl_proc.c).
 * Its entry is keyed by the registering socket, (network namespace, port
 * id), and bound to the file. A registration ends, and everything charged
 * to the process is taken back, when the first of these happens:
 *
 * - the socket is released (exit, exec with SOCK_CLOEXEC, kill -9): the
 *   netlink notifier's NETLINK_URELEASE event;
 * - the /dev/vgpu file is closed for the last time;
 * - the process's thread group is found dead (a forked child may keep the
 *   inherited socket open): checked lazily by readers and by charges that
 *   run short.
 *
 * The registry is protected by vgpu_acct_lock. Ended entries are collected
 * on a list and their references dropped after the lock is released.
 */
#include <linux/hashtable.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/netns/hash.h>

#include "acct.h"
#include "proc.h"
#include "tenant.h"
#include "vgpu.h"

/* Every registered process, in registration order (serial). */
LIST_HEAD(vgpu_procs);
/* What happens to processes outside every tenant; under both locks. */
u32 vgpu_default_policy = VGPU_DEFAULT_POLICY_ALLOW;

static DEFINE_HASHTABLE(vgpu_proc_hash, 10);
/* The same entries by process, so that no registration scans them all. */
static DEFINE_HASHTABLE(vgpu_proc_pids, 10);
static unsigned int vgpu_proc_nr;
static u64 vgpu_proc_serial;

static u32 vgpu_proc_key(const struct net *net, u32 portid)
{
	return net_hash_mix(net) ^ portid;
}

/**
 * vgpu_proc_alloc() - allocate an unregistered process entry
 *
 * Return: the entry with one reference (the caller's), or NULL.
 */
struct vgpu_proc *vgpu_proc_alloc(void)
{
	struct vgpu_proc *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	if (!p)
		return NULL;
	kref_init(&p->ref);
	INIT_HLIST_NODE(&p->hnode);
	INIT_HLIST_NODE(&p->pidnode);
	INIT_LIST_HEAD(&p->bnode);
	INIT_LIST_HEAD(&p->node);
	p->gpus = ~0ULL;
	return p;
}

static void vgpu_proc_free(struct kref *ref)
{
	struct vgpu_proc *p = container_of(ref, struct vgpu_proc, ref);

	put_pid(p->pid);
	kfree(p);
}

/**
 * vgpu_proc_put() - drop a reference to a process entry
 * @p: entry, or NULL
 *
 * Context: vgpu_acct_lock not held.
 */
void vgpu_proc_put(struct vgpu_proc *p)
{
	if (p)
		kref_put(&p->ref, vgpu_proc_free);
}

static struct vgpu_proc *vgpu_proc_find(const struct net *net, u32 portid)
{
	struct vgpu_proc *p;

	hash_for_each_possible(vgpu_proc_hash, p, hnode, vgpu_proc_key(net, portid)) {
		if (p->net == net && p->portid == portid)
			return p;
	}
	return NULL;
}

/* The live registrations of process @pid (one chain of the pid hash). */
static unsigned int vgpu_proc_regs_of(struct pid *pid)
{
	unsigned int n = 0;
	struct vgpu_proc *p;

	hash_for_each_possible(vgpu_proc_pids, p, pidnode, (unsigned long)pid)
		n += p->pid == pid;
	return n;
}

/* Empties the GPU slots of a page: nothing is charged to it any more. */
static void vgpu_page_clear(struct vgpu_dev_page *page)
{
	u32 i;

	for (i = 0; i < VGPU_DEV_GPUS; i++) {
		atomic64_set((atomic64_t *)&page->gpu[i].avail, 0);
		WRITE_ONCE(page->gpu[i].used, 0);
	}
}

/**
 * vgpu_proc_link() - register the calling process
 * @p: entry from vgpu_proc_alloc(), not registered
 * @df: the process's open /dev/vgpu
 * @t: the process's tenant, or NULL outside every tenant
 * @net: network namespace of the registering socket
 * @portid: port id of the registering socket
 *
 * The entry is charged to @t's bucket, or to the default bucket. It gets
 * a reference of the registry's; the page is cleared and marked
 * registered; the gate page shows the bucket's compute grants.
 *
 * Context: vgpu_lock held (so that @t stays a tenant).
 * Return: 0, -EBUSY when @df is already registered, -EEXIST when the
 * socket already registered a process, -EMFILE when the process holds
 * VGPU_PROC_REGS_MAX registrations already.
 */
int vgpu_proc_link(struct vgpu_proc *p, struct vgpu_dev_file *df,
		   struct vgpu_tenant *t, struct net *net, u32 portid)
{
	struct vgpu_bucket *b = t ? &t->bucket : &vgpu_default_bucket;
	int err = 0;

	if (!p->pid)
		p->pid = get_pid(task_tgid(current));
	p->net = net;
	p->portid = portid;
	p->tenant = t;
	p->bucket = b;

	spin_lock(&vgpu_acct_lock);
	if (df->proc) {
		err = -EBUSY;
		goto out_unlock;
	}
	if (vgpu_proc_find(net, portid)) {
		err = -EEXIST;
		goto out_unlock;
	}
	if (vgpu_proc_regs_of(p->pid) >= VGPU_PROC_REGS_MAX) {
		err = -EMFILE;
		goto out_unlock;
	}
	vgpu_page_clear(df->page);
	WRITE_ONCE(df->page->registered, 1);
	kref_get(&p->ref);
	p->serial = ++vgpu_proc_serial;
	p->df = df;
	df->proc = p;
	hash_add(vgpu_proc_hash, &p->hnode, vgpu_proc_key(net, portid));
	hash_add(vgpu_proc_pids, &p->pidnode, (unsigned long)p->pid);
	list_add_tail(&p->node, &vgpu_procs);
	spin_lock(&b->procs_lock);
	list_add_tail(&p->bnode, &b->procs);
	spin_unlock(&b->procs_lock);
	b->nprocs++;
	vgpu_proc_nr++;
	vgpu_sched_proc_link(&p->sched, &b->sched, df->page, df->gate);
out_unlock:
	spin_unlock(&vgpu_acct_lock);
	return err;
}

/**
 * vgpu_proc_end() - end a registration
 * @p: entry, registered or not
 * @dead: list that receives the entry with the registry's reference, for
 *	vgpu_proc_put_list() once the lock is released
 *
 * The process leaves the compute schedulers (its waits end, a holder left
 * without processes gives its GPUs up). Every byte granted to the process
 * is taken off its bucket, so are its parked bytes (a charge waiting
 * for its thaw wakes), the page's slots are cleared and its
 * @registered flag reset, and the entry leaves the registry. The end of
 * an ephemeral tenant's registration runs the look for ephemeral tenants
 * to delete (tenant_del.c) at once. Nothing happens to an entry that is
 * not registered.
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_proc_end(struct vgpu_proc *p, struct list_head *dead)
{
	struct vgpu_dev_page *page;
	u32 i;

	lockdep_assert_held(&vgpu_acct_lock);
	if (!p->df)
		return;
	vgpu_sched_proc_end(&p->sched);
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		if (p->granted[i])
			vgpu_acct_check_page(p, i);	/* a last look */
		vgpu_acct_uncharge(p->bucket, i, p->granted[i]);
		p->granted[i] = 0;
	}
	vgpu_acct_park_end(p);
	page = p->df->page;
	vgpu_page_clear(page);
	WRITE_ONCE(page->registered, 0);
	/* Off the bucket's list first: MEMINFO reads its entries' pages. */
	spin_lock(&p->bucket->procs_lock);
	list_del_init(&p->bnode);
	spin_unlock(&p->bucket->procs_lock);
	p->df->proc = NULL;
	WRITE_ONCE(p->df, NULL);
	hash_del(&p->hnode);
	hash_del(&p->pidnode);
	p->bucket->nprocs--;
	vgpu_proc_nr--;
	list_move(&p->node, dead);
	/* It may have been the last that kept an ephemeral tenant. */
	if (p->tenant && p->tenant->ephemeral)
		mod_delayed_work(system_wq, &vgpu_ephemeral_work, 0);
}

/**
 * vgpu_proc_end_bucket() - end the registrations of a bucket's processes
 * @b: bucket
 * @dead: as for vgpu_proc_end()
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_proc_end_bucket(struct vgpu_bucket *b, struct list_head *dead)
{
	struct vgpu_proc *p, *n;

	list_for_each_entry_safe(p, n, &b->procs, bnode)
		vgpu_proc_end(p, dead);
}

/**
 * vgpu_proc_end_pid() - end every registration of a process (admin's proc-del)
 * @pid: the process
 *
 * Context: vgpu_acct_lock not held.
 * Return: how many registrations ended.
 */
unsigned int vgpu_proc_end_pid(struct pid *pid)
{
	unsigned int ended = 0;
	struct hlist_node *n;
	struct vgpu_proc *p;
	LIST_HEAD(dead);

	spin_lock(&vgpu_acct_lock);
	hash_for_each_possible_safe(vgpu_proc_pids, p, n, pidnode, (unsigned long)pid) {
		if (p->pid != pid)
			continue;
		vgpu_proc_end(p, &dead);
		ended++;
	}
	spin_unlock(&vgpu_acct_lock);
	vgpu_proc_put_list(&dead);
	return ended;
}

/**
 * vgpu_proc_of_pid() - the live registrations of a process
 * @pid: the process
 * @regs: out: its registrations (no reference taken)
 * @max: room in @regs
 *
 * Context: vgpu_acct_lock held; @regs are valid while it is.
 * Return: how many were put in @regs.
 */
unsigned int vgpu_proc_of_pid(struct pid *pid, struct vgpu_proc **regs, unsigned int max)
{
	unsigned int n = 0;
	struct vgpu_proc *p;

	lockdep_assert_held(&vgpu_acct_lock);
	hash_for_each_possible(vgpu_proc_pids, p, pidnode, (unsigned long)pid) {
		if (p->pid == pid && p->df && !vgpu_proc_dead(p) && n < max)
			regs[n++] = p;
	}
	return n;
}

/**
 * vgpu_proc_put_list() - drop the references vgpu_proc_end() collected
 * @dead: list of ended entries; emptied
 *
 * Context: vgpu_acct_lock not held.
 */
void vgpu_proc_put_list(struct list_head *dead)
{
	struct vgpu_proc *p, *n;

	list_for_each_entry_safe(p, n, dead, node) {
		list_del_init(&p->node);
		vgpu_proc_put(p);
	}
}

/**
 * vgpu_proc_unregister() - end a registration, if still live
 * @p: entry
 *
 * Context: vgpu_acct_lock not held.
 */
void vgpu_proc_unregister(struct vgpu_proc *p)
{
	LIST_HEAD(dead);

	spin_lock(&vgpu_acct_lock);
	vgpu_proc_end(p, &dead);
	spin_unlock(&vgpu_acct_lock);
	vgpu_proc_put_list(&dead);
}

/**
 * vgpu_proc_dead() - whether a registered process's thread group is gone
 * @p: entry
 *
 * True when no task is attached to the process's pid any more, or when
 * what is left is a zombie leader with no other thread.
 *
 * Return: true when the registration should end.
 */
bool vgpu_proc_dead(const struct vgpu_proc *p)
{
	struct task_struct *task;
	bool dead;

	rcu_read_lock();
	task = pid_task(p->pid, PIDTYPE_TGID);
	dead = !task || (READ_ONCE(task->exit_state) && thread_group_empty(task));
	rcu_read_unlock();
	return dead;
}

/**
 * vgpu_proc_reap_bucket() - end the registrations of a bucket's dead processes
 * @b: bucket
 * @dead: list collecting the ended entries
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_proc_reap_bucket(struct vgpu_bucket *b, struct list_head *dead)
{
	struct vgpu_proc *p, *n;

	list_for_each_entry_safe(p, n, &b->procs, bnode) {
		if (vgpu_proc_dead(p))
			vgpu_proc_end(p, dead);
	}
}

/**
 * vgpu_proc_reap_all() - end the registrations of every dead process
 * @dead: list collecting the ended entries
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_proc_reap_all(struct list_head *dead)
{
	struct vgpu_proc *p, *n;

	list_for_each_entry_safe(p, n, &vgpu_procs, node) {
		if (vgpu_proc_dead(p))
			vgpu_proc_end(p, dead);
	}
}

/**
 * vgpu_proc_count() - number of registered processes
 *
 * Context: vgpu_acct_lock held.
 * Return: the number of live registrations (dead ones not yet reaped
 * included).
 */
unsigned int vgpu_proc_count(void)
{
	lockdep_assert_held(&vgpu_acct_lock);
	return vgpu_proc_nr;
}

/*
 * A netlink socket is going away: if it registered a process, end the
 * registration. Runs in the releasing task's context (blocking chain) for
 * every netlink protocol and socket; the look-up is a hash probe.
 * 6.8's per-socket family state (sock_priv_size, sock_priv_destroy) would
 * call us for our own sockets only, but 6.1 lacks it; this notifier works
 * alike on every supported kernel (the VM suites check kill -9 on each).
 */
static int vgpu_proc_netlink_event(struct notifier_block *nb, unsigned long event,
				   void *ptr)
{
	struct netlink_notify *n = ptr;
	struct vgpu_proc *p;
	LIST_HEAD(dead);

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	spin_lock(&vgpu_acct_lock);
	p = vgpu_proc_find(n->net, n->portid);
	if (p)
		vgpu_proc_end(p, &dead);
	spin_unlock(&vgpu_acct_lock);
	vgpu_proc_put_list(&dead);
	return NOTIFY_DONE;
}

static struct notifier_block vgpu_proc_notifier = {
	.notifier_call = vgpu_proc_netlink_event,
};

/**
 * vgpu_proc_init() - start watching netlink sockets go away
 *
 * Return: 0 or a negative errno.
 */
int __init vgpu_proc_init(void)
{
	return netlink_register_notifier(&vgpu_proc_notifier);
}

/**
 * vgpu_proc_exit() - stop watching netlink sockets
 *
 * Called at module exit, when no /dev/vgpu file is open, hence no process
 * registered. On return no notifier call runs any more.
 */
void vgpu_proc_exit(void)
{
	netlink_unregister_notifier(&vgpu_proc_notifier);
	WARN_ON(!list_empty(&vgpu_procs));
}
