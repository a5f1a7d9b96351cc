// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: a tenant's suspension and resume (Documentation/suspend.md).
 *
 * The module keeps the state; the agent (vgpuctl agent) calls NVIDIA's
 * checkpoint API and reports back:
 *
 *   running -tenant-suspend-> suspending -tenant-settle-> suspended
 *                                   (running when nothing was checkpointed)
 *   suspended -tenant-resume-> resuming -tenant-settle-> running
 *
 * Each change is multicast (tenant-change-ntf), which is what the agent
 * follows. While suspending, the agent reports each checkpointed process
 * (proc-set suspended): its charges are parked (acct_park.c). When the
 * suspension settles, the tenant's reservations lapse. A resume charges
 * every parked byte back before the agent restores anything, all or none:
 * without the room it waits (resume_wait), retried every
 * VGPU_RESUME_RETRY_MS until it fits. Everything here runs under vgpu_lock.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "proc.h"
#include "tenant.h"
#include "vgpu.h"

/* How often a resume that waits for room tries again. */
#define VGPU_RESUME_RETRY_MS	20

static void vgpu_resume_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(vgpu_resume_work, vgpu_resume_fn);
static bool vgpu_resume_stopped;

/* Every change of state goes through here. */
static void vgpu_tenant_set_state(struct vgpu_tenant *t, u32 state)
{
	if (state == VGPU_TENANT_STATE_RUNNING)
		t->preempted = false;
	t->state = state;
	vgpu_changed();
	vgpu_tenant_notify(t, VGPU_CMD_TENANT_CHANGE_NTF);
}

/**
 * vgpu_tenant_suspending() - whether any tenant is being suspended
 *
 * Counted from the table, not kept: a tenant deleted while suspending
 * (its processes gone, its cgroup removed) leaves nothing behind.
 *
 * Context: vgpu_lock not held; takes it.
 * Return: true when one is.
 */
bool vgpu_tenant_suspending(void)
{
	struct vgpu_tenant *t;
	unsigned long id = 0;
	bool any = false;

	mutex_lock(&vgpu_lock);
	for (; !any && (t = vgpu_tenant_next(&id)); id++)
		any = t->state == VGPU_TENANT_STATE_SUSPENDING;
	mutex_unlock(&vgpu_lock);
	return any;
}

/* The extack message for a request the tenant's state refuses. */
static int vgpu_tenant_state_refuse(const struct vgpu_tenant *t, struct netlink_ext_ack *extack,
				    int err)
{
	switch (t->state) {
	case VGPU_TENANT_STATE_RUNNING:
		NL_SET_ERR_MSG(extack, "tenant is running, not suspended");
		break;
	case VGPU_TENANT_STATE_SUSPENDING:
		NL_SET_ERR_MSG(extack, "tenant is being suspended");
		break;
	case VGPU_TENANT_STATE_SUSPENDED:
		NL_SET_ERR_MSG(extack, "tenant is already suspended");
		break;
	default:
		NL_SET_ERR_MSG(extack, "tenant is being resumed");
	}
	return err;
}

/**
 * vgpu_tenant_suspend() - tenant-suspend: ask the agent to suspend a tenant
 * @t: tenant
 * @extack: for the refusal's message
 *
 * Context: vgpu_lock held.
 * Asked again while suspending, it stands: 0.
 *
 * Return: 0; -EINVAL without registered processes; -EALREADY when
 * suspended; -EBUSY while resuming.
 */
int vgpu_tenant_suspend(struct vgpu_tenant *t, struct netlink_ext_ack *extack)
{
	unsigned int nprocs;

	lockdep_assert_held(&vgpu_lock);
	if (t->state == VGPU_TENANT_STATE_SUSPENDING)
		return 0;
	if (t->state == VGPU_TENANT_STATE_SUSPENDED)
		return vgpu_tenant_state_refuse(t, extack, -EALREADY);
	if (t->state != VGPU_TENANT_STATE_RUNNING)
		return vgpu_tenant_state_refuse(t, extack, -EBUSY);
	spin_lock(&vgpu_acct_lock);
	nprocs = t->bucket.nprocs;
	spin_unlock(&vgpu_acct_lock);
	if (!nprocs) {
		NL_SET_ERR_MSG(extack, "tenant has no registered processes to suspend");
		return -EINVAL;
	}
	t->state_reason[0] = '\0';
	vgpu_tenant_set_state(t, VGPU_TENANT_STATE_SUSPENDING);
	return 0;
}

/* Tries to charge a suspended tenant's parked bytes back; resuming if so. */
static bool vgpu_tenant_try_resume(struct vgpu_tenant *t)
{
	bool done;

	spin_lock(&vgpu_acct_lock);
	done = vgpu_acct_unpark_bucket(&t->bucket);
	spin_unlock(&vgpu_acct_lock);
	if (!done)
		return false;
	t->resume_wait = false;
	vgpu_tenant_set_state(t, VGPU_TENANT_STATE_RESUMING);
	return true;
}

/* Retries the resumes that wait for room; again later while any is left. */
static void vgpu_resume_fn(struct work_struct *work)
{
	bool waiting = false;
	struct vgpu_tenant *t;
	unsigned long id = 0;

	mutex_lock(&vgpu_lock);
	if (vgpu_resume_stopped)
		goto out_unlock;
	for (; (t = vgpu_tenant_next(&id)); id++) {
		if (t->resume_wait && !vgpu_tenant_try_resume(t))
			waiting = true;
	}
	if (waiting)
		mod_delayed_work(system_wq, &vgpu_resume_work,
				 msecs_to_jiffies(VGPU_RESUME_RETRY_MS));
out_unlock:
	mutex_unlock(&vgpu_lock);
}

/* The tenant's resume waits for room: vgpu_resume_fn() tries it again. */
static void vgpu_tenant_resume_later(struct vgpu_tenant *t)
{
	t->resume_wait = true;
	if (!vgpu_resume_stopped)
		mod_delayed_work(system_wq, &vgpu_resume_work,
				 msecs_to_jiffies(VGPU_RESUME_RETRY_MS));
}

/**
 * vgpu_tenant_resume() - tenant-resume: charge back, then ask the agent
 * @t: tenant
 * @extack: for the refusal's message
 *
 * Without the room for its parked bytes now, the tenant waits
 * (resume_wait, announced) and vgpu_resume_fn() tries again. Asked again
 * while it waits or resumes, it stands: 0.
 *
 * Context: vgpu_lock held.
 * Return: 0 (resuming, or waiting for room); -EINVAL when running;
 * -EBUSY while suspending.
 */
int vgpu_tenant_resume(struct vgpu_tenant *t, struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&vgpu_lock);
	if (t->state == VGPU_TENANT_STATE_RUNNING)
		return vgpu_tenant_state_refuse(t, extack, -EINVAL);
	if (t->state == VGPU_TENANT_STATE_RESUMING)
		return 0;
	if (t->state != VGPU_TENANT_STATE_SUSPENDED)
		return vgpu_tenant_state_refuse(t, extack, -EBUSY);
	if (t->resume_wait || vgpu_tenant_try_resume(t))
		return 0;
	vgpu_tenant_resume_later(t);
	vgpu_changed();
	vgpu_tenant_notify(t, VGPU_CMD_TENANT_CHANGE_NTF);
	return 0;
}

/* Whether any process of the tenant is checkpointed (parked or frozen). */
static bool vgpu_tenant_any_parked(struct vgpu_tenant *t)
{
	struct vgpu_proc *p;
	bool any;

	spin_lock(&vgpu_acct_lock);
	any = vgpu_acct_parked(&t->bucket) > 0;
	list_for_each_entry(p, &t->bucket.procs, bnode)
		any = any || p->frozen;
	spin_unlock(&vgpu_acct_lock);
	return any;
}

/**
 * vgpu_tenant_settle() - tenant-settle: the agent ends a suspension or resume
 * @t: tenant
 * @from: the state the agent ends: suspending or resuming
 * @reason: what the agent says about it ("" for nothing)
 * @extack: for the refusal's message
 *
 * Suspending becomes suspended, its reservations lapsing, or running when
 * no process was checkpointed; resuming becomes running, every process
 * thawed.
 *
 * Context: vgpu_lock held.
 * Return: 0; -EINVAL for another @from; -EALREADY when the tenant is not
 * in @from (a late or repeated settle: nothing changes).
 */
int vgpu_tenant_settle(struct vgpu_tenant *t, u32 from, const char *reason,
		       struct netlink_ext_ack *extack)
{
	u64 now = ktime_get_ns();

	lockdep_assert_held(&vgpu_lock);
	if (from != VGPU_TENANT_STATE_SUSPENDING && from != VGPU_TENANT_STATE_RESUMING) {
		NL_SET_ERR_MSG(extack, "state must be suspending or resuming");
		return -EINVAL;
	}
	if (t->state != from) {
		NL_SET_ERR_MSG(extack, "tenant is not in that state: a late or repeated settle changes nothing");
		return -EALREADY;
	}
	strscpy(t->state_reason, reason ? reason : "", sizeof(t->state_reason));
	if (from == VGPU_TENANT_STATE_SUSPENDING && vgpu_tenant_any_parked(t)) {
		t->susp_since = now;
		spin_lock(&vgpu_acct_lock);
		vgpu_acct_lapse(&t->bucket, true);
		spin_unlock(&vgpu_acct_lock);
		/* Preempted: it comes back by itself once it fits. */
		if (t->preempted)
			vgpu_tenant_resume_later(t);
		vgpu_tenant_set_state(t, VGPU_TENANT_STATE_SUSPENDED);
	} else if (from == VGPU_TENANT_STATE_SUSPENDING) {
		vgpu_tenant_set_state(t, VGPU_TENANT_STATE_RUNNING);
	} else {
		t->susp_ns += now - t->susp_since;
		spin_lock(&vgpu_acct_lock);
		vgpu_acct_thaw_bucket(&t->bucket);
		spin_unlock(&vgpu_acct_lock);
		vgpu_tenant_set_state(t, VGPU_TENANT_STATE_RUNNING);
	}
	/* A charge waiting for this suspension looks again. */
	vgpu_acct_room_changed();
	return 0;
}

/**
 * vgpu_tenant_proc_set() - proc-set: the agent reports a process
 * @pid: the process
 * @suspended: checkpointed (park its charges), or running again (thaw)
 * @extack: for the refusal's message
 *
 * Every registration of the process must belong to a tenant being
 * suspended (@suspended) or resumed (not @suspended); then each is parked
 * or thawed.
 *
 * Context: vgpu_lock held.
 * Return: 0; -ESRCH when the process has no live registration; -EINVAL
 * when a registration's tenant is not in that state.
 */
int vgpu_tenant_proc_set(struct pid *pid, bool suspended, struct netlink_ext_ack *extack)
{
	struct vgpu_proc *regs[VGPU_PROC_REGS_MAX];
	u32 want = suspended ? VGPU_TENANT_STATE_SUSPENDING : VGPU_TENANT_STATE_RESUMING;
	unsigned int n, i;
	int err = 0;

	lockdep_assert_held(&vgpu_lock);
	spin_lock(&vgpu_acct_lock);
	n = vgpu_proc_of_pid(pid, regs, ARRAY_SIZE(regs));
	if (!n) {
		NL_SET_ERR_MSG(extack, "no registered process has this pid");
		err = -ESRCH;
		goto out_unlock;
	}
	for (i = 0; i < n; i++) {
		if (!regs[i]->tenant || regs[i]->tenant->state != want) {
			if (suspended)
				NL_SET_ERR_MSG(extack, "the process's tenant is not being suspended");
			else
				NL_SET_ERR_MSG(extack, "the process's tenant is not being resumed");
			err = -EINVAL;
			goto out_unlock;
		}
	}
	for (i = 0; i < n; i++) {
		if (suspended)
			vgpu_acct_park(regs[i]);
		else
			vgpu_acct_thaw(regs[i]);
	}
out_unlock:
	spin_unlock(&vgpu_acct_lock);
	return err;
}

/**
 * vgpu_tenant_state_stop() - stop retrying resumes (module exit)
 *
 * Context: vgpu_lock not held.
 */
void vgpu_tenant_state_stop(void)
{
	mutex_lock(&vgpu_lock);
	vgpu_resume_stopped = true;
	mutex_unlock(&vgpu_lock);
	cancel_delayed_work_sync(&vgpu_resume_work);
}
