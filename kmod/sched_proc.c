// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: compute time-slicing, the processes' side: registration and its
 * end, and VGPU_IOC_WAIT.
 *
 * A registered process is linked to its bucket's scheduling state; its
 * gate page shows the bucket's grants. A thread without a grant sleeps in
 * VGPU_IOC_WAIT (counted as its bucket's demand) until the gate opens. A
 * process whose registration ends stops counting as a waiter or drainer
 * at once, and a holder left without processes gives its GPUs up at once.
 * Everything runs under vgpu_sched_lock (sched.h).
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/threads.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#include "sched.h"

/**
 * vgpu_sched_proc_link() - link a newly registered process to its bucket
 * @sp: the process's state, not linked
 * @sb: its bucket's state
 * @page: its accounting page
 * @gate: its gate page
 *
 * The gate shows the bucket's grants from now on: a process that
 * registers while its tenant holds a GPU is granted at once.
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_sched_proc_link(struct vgpu_sched_proc *sp, struct vgpu_sched_bucket *sb,
			  struct vgpu_dev_page *page, struct vgpu_dev_gate *gate)
{
	u32 g;

	/*
	 * A wrapped count would leave phantom waiters on the tenant when the
	 * registration ends: each thread waits at most once, and there are
	 * fewer threads (in all, so a bucket's @waiters too) than pids.
	 */
	BUILD_BUG_ON(PID_MAX_LIMIT > type_max(typeof(sp->waiting[0])));
	BUILD_BUG_ON(PID_MAX_LIMIT > type_max(typeof(sb->ent[0].waiters)));
	spin_lock_bh(&vgpu_sched_lock);
	sp->page = page;
	sp->gate = gate;
	sp->draining = 0;
	memset(sp->waiting, 0, sizeof(sp->waiting));
	memset(sp->moved, 0, sizeof(sp->moved));
	for (g = 0; g < VGPU_GPU_MAX; g++) {
		sp->seen[g] = READ_ONCE(page->gpu[g].launches);
		if (vgpu_sched_granted(&vgpu_scheds[g], sb)) {
			WRITE_ONCE(gate->gpu[g].seq, gate->gpu[g].seq + 1);
			smp_wmb();	/* seq before granted */
			WRITE_ONCE(gate->gpu[g].granted, 1);
		} else {
			WRITE_ONCE(gate->gpu[g].granted, 0);
		}
	}
	list_add_tail(&sp->node, &sb->procs);
	sb->nprocs++;
	WRITE_ONCE(sp->bucket, sb);
	spin_unlock_bh(&vgpu_sched_lock);
}

/**
 * vgpu_sched_proc_end() - unlink a process whose registration ends
 * @sp: the process's state, linked or not
 *
 * Its waits end (with ESRCH), it no longer counts as a waiter or a
 * drainer, its gates close, and every GPU it had a part in takes a
 * decision: a holder without processes left is replaced at once.
 *
 * Context: vgpu_acct_lock held.
 */
void vgpu_sched_proc_end(struct vgpu_sched_proc *sp)
{
	struct vgpu_sched_bucket *sb = sp->bucket;
	u64 now = ktime_get_ns();
	struct vgpu_sched *s;
	bool touched;
	u32 g;

	if (!sb)
		return;
	spin_lock_bh(&vgpu_sched_lock);
	list_del_init(&sp->node);
	sb->nprocs--;
	WRITE_ONCE(sp->bucket, NULL);
	for (g = 0; g < VGPU_GPU_MAX; g++) {
		s = &vgpu_scheds[g];
		touched = s->holder == sb;
		if (sp->waiting[g]) {
			sb->ent[g].waiters -= sp->waiting[g];
			sp->waiting[g] = 0;
			wake_up_all(&s->wq);
			touched = true;
		}
		if (sp->draining & BIT_ULL(g)) {
			s->drainers--;
			touched = true;
		}
		WRITE_ONCE(sp->gate->gpu[g].granted, 0);
		if (touched) {
			vgpu_sched_ent_sync(s, sb, now);
			vgpu_sched_update(s, now);
		}
	}
	sp->draining = 0;
	spin_unlock_bh(&vgpu_sched_lock);
}

/* Whether a sleeping waiter must look again (read without the lock). */
static bool vgpu_sched_wait_over(struct vgpu_sched *s, struct vgpu_sched_proc *sp, u32 g,
				 u32 kick)
{
	return !READ_ONCE(sp->bucket) || READ_ONCE(sp->gate->gpu[g].granted) ||
	       READ_ONCE(s->kick) != kick;
}

/*
 * Why a wait ends, in this order: the registration ended, the GPU is gone
 * or denied, the grant came. 1: none of those.
 */
static int vgpu_sched_wait_check(struct vgpu_sched *s, struct vgpu_sched_proc *sp, u32 g)
{
	struct vgpu_sched_bucket *sb = sp->bucket;

	if (!sb)
		return -ESRCH;
	if (!s->present)
		return -ENODEV;
	if (!(sb->gpus & BIT_ULL(g)))
		return -EACCES;
	return vgpu_sched_granted(s, sb) ? 0 : 1;
}

/**
 * vgpu_sched_wait() - VGPU_IOC_WAIT: sleep until the process's bucket holds a GPU
 * @sp: the calling process's state
 * @g: GPU index, in the inventory when the caller checked
 * @drain_ns: what the library spent draining before the call (recorded)
 * @waited_ns: out: how long the call took
 *
 * A process the module waits for to drain has drained once it calls
 * this. The call returns at once when the bucket holds the GPU; otherwise
 * the bucket has demand until the call returns.
 *
 * Context: process, may sleep; no lock held.
 * Return: 0 once granted, -EINTR on a signal, -ESRCH when the registration
 * ended, -ENODEV when the GPU left the inventory, -EACCES when the tenant
 * may not use it.
 */
int vgpu_sched_wait(struct vgpu_sched_proc *sp, u32 g, u64 drain_ns, u64 *waited_ns)
{
	struct vgpu_sched *s = &vgpu_scheds[g];
	u64 start = ktime_get_ns(), now = start;
	struct vgpu_sched_bucket *sb;
	int err, sig;
	u32 kick;

	spin_lock_bh(&vgpu_sched_lock);
	err = vgpu_sched_wait_check(s, sp, g);
	if (err < 0)
		goto out_unlock;
	sb = sp->bucket;
	sb->ent[g].drain_ns += drain_ns;
	if (sp->draining & BIT_ULL(g)) {
		sp->draining &= ~BIT_ULL(g);
		s->drainers--;
	}
	if (!err) {
		sp->moved[g] = now;
		s->last_active = now;
		vgpu_sched_resumed(s, now);
		goto out_unlock;
	}

	sp->waiting[g]++;
	sb->ent[g].waiters++;
	vgpu_sched_ent_sync(s, sb, now);
	vgpu_sched_update(s, now);
	for (;;) {
		err = vgpu_sched_wait_check(s, sp, g);
		if (err <= 0)
			break;
		kick = s->kick;
		spin_unlock_bh(&vgpu_sched_lock);
		sig = wait_event_interruptible(s->wq, vgpu_sched_wait_over(s, sp, g, kick));
		spin_lock_bh(&vgpu_sched_lock);
		err = vgpu_sched_wait_check(s, sp, g);
		if (err <= 0)
			break;
		if (sig) {
			err = -EINTR;
			break;
		}
		/*
		 * The GPU left the inventory and came back while this thread
		 * slept: its bucket's demand went with it and must be shown
		 * again, or no decision would ever grant it.
		 */
		if (list_empty(&sb->ent[g].node)) {
			now = ktime_get_ns();
			vgpu_sched_ent_sync(s, sb, now);
			vgpu_sched_update(s, now);
		}
	}
	if (err == -ESRCH)	/* vgpu_sched_proc_end() dropped the wait */
		goto out_unlock;
	now = ktime_get_ns();
	sp->waiting[g]--;
	sb->ent[g].waiters--;
	sp->moved[g] = now;
	if (s->holder == sb) {
		s->last_active = now;
		vgpu_sched_resumed(s, now);
	}
	vgpu_sched_ent_sync(s, sb, now);
	vgpu_sched_update(s, now);
out_unlock:
	spin_unlock_bh(&vgpu_sched_lock);
	*waited_ns = ktime_get_ns() - start;
	return err;
}
