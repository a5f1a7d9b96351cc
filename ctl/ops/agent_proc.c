// SPDX-License-Identifier: GPL-2.0
/*
 * One process of a suspending or resuming tenant, as the agent moves it
 * (Documentation/suspend.md, "The agent"): each step starts from what the
 * driver says of the process (cuCheckpointProcessGetState) and from the
 * module's suspended flag, so that an agent killed at any point and
 * started again carries on from where the process stands. Then the
 * process is reported to the module (proc-set). One line per action on
 * stderr.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/genl.h>

#include "agent.h"
#include "../enforce/ckpt.h"
#include "../enforce/memroom.h"
#include "../obj/tenant_state.h"
#include "../vgpuctl.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Whether @pid is still there (EPERM: there, another user's). */
static bool alive(uint32_t pid)
{
	return !kill((pid_t)pid, 0) || errno == EPERM;
}

static int __attribute__((format(printf, 2, 3)))
fail(struct vgpuctl_agent_tenant *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	return -1;
}

/* proc-set PID [suspended]: 0, or a negative errno (-ESRCH: no registration). */
static int proc_set(struct vgpuctl_agent *a, uint32_t pid, bool suspended)
{
	struct nl_msg *msg = vgpuctl_nl_msg(&a->nl, VGPU_CMD_PROC_SET, false);

	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, VGPU_A_PROC_PID, pid) < 0 ||
	    (suspended && nla_put_flag(msg, VGPU_A_PROC_SUSPENDED) < 0)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vgpuctl_nl_request(&a->nl, msg, NULL, NULL);
}

/* The module's refusal of a proc-set, for t->why. */
static int set_failed(struct vgpuctl_agent *a, struct vgpuctl_agent_tenant *t, int err)
{
	return fail(t, "proc-set: %s", a->nl.msg[0] ? a->nl.msg : strerror(-err));
}

/* Room in the tenant's cgroup for @bytes of host copy; -1 with t->why when not. */
static int room_for(struct vgpuctl_agent *a, struct vgpuctl_agent_tenant *t, uint64_t bytes)
{
	char need[32], have[32], err[256];
	uint64_t room;
	bool unlimited;

	if (vgpuctl_memroom_read(a->cgroot, t->cgroup, &room, &unlimited, err, sizeof(err)))
		return fail(t, "host memory: %s", err);
	if (unlimited || room >= bytes)
		return 0;
	vgpuctl_tstate_bytes(bytes, need, sizeof(need));
	vgpuctl_tstate_bytes(room, have, sizeof(have));
	return fail(t, "host memory: needs %s, cgroup has %s free", need, have);
}

/* Lock if @lock, then checkpoint; unlocks again on failure. */
static int checkpoint(struct vgpuctl_agent *a, struct vgpuctl_agent_tenant *t, int pid,
		      bool lock)
{
	int rc;

	if (lock) {
		rc = vgpuctl_ckpt_lock(pid, a->lock_ms);
		if (rc == VGPUCTL_CKPT_TIMEOUT)
			return fail(t, "lock timed out after %u ms", a->lock_ms);
		if (rc)
			return fail(t, "cuCheckpointProcessLock: %s", vgpuctl_ckpt_strerror(rc));
	}
	rc = vgpuctl_ckpt_checkpoint(pid);
	if (!rc)
		return 0;
	vgpuctl_ckpt_unlock(pid);
	if (rc == VGPUCTL_CKPT_NOT_SUPPORTED)
		return fail(t, "cannot be checkpointed (%s: UVM or IPC memory?)",
			    vgpuctl_ckpt_strerror(rc));
	return fail(t, "cuCheckpointProcessCheckpoint: %s", vgpuctl_ckpt_strerror(rc));
}

/* The driver's state of @p, and the plan of the phase from there; -1 with t->why. */
static int plan_of(struct vgpuctl_agent_tenant *t, const struct vgpuctl_tproc *p, bool resume,
		   unsigned int *plan)
{
	int state, rc = vgpuctl_ckpt_get_state((int)p->pid, &state);

	*plan = 0;
	if (rc) {
		/* Gone; or, resuming, one the module does not hold (no CUDA in it). */
		if (!alive(p->pid) || (resume && !p->suspended))
			return 0;
		return fail(t, "cuCheckpointProcessGetState: %s", vgpuctl_ckpt_strerror(rc));
	}
	*plan = vgpuctl_ckpt_plan(resume, state, p->suspended);
	if (*plan & VGPUCTL_STEP_REFUSE)
		return fail(t, "the driver has it %s", vgpuctl_ckpt_state_name(state));
	return 0;
}

/**
 * vgpuctl_agent_suspend_proc() - checkpoint one process and park it
 * @a: the agent
 * @t: its tenant (why, on failure)
 * @p: the process, as proc-get reported it
 *
 * The steps of vgpuctl_ckpt_plan(): running: the room in the cgroup's
 * memory, lock, checkpoint; locked: room, checkpoint; checkpointed:
 * nothing more; then proc-set PID suspended. A failure leaves it running
 * (unlocked).
 *
 * Return: 1 parked, 0 nothing to do (already parked, gone), -1 failed.
 */
int vgpuctl_agent_suspend_proc(struct vgpuctl_agent *a, struct vgpuctl_agent_tenant *t,
			       const struct vgpuctl_tproc *p)
{
	int pid = (int)p->pid, err;
	double t0 = now_s();
	unsigned int plan;
	char size[32];

	if (p->suspended)
		return 0;	/* parked already: the plan is nothing */
	if (plan_of(t, p, false, &plan))
		return -1;
	if (!plan)
		return 0;
	if ((plan & VGPUCTL_STEP_ROOM) && room_for(a, t, p->vram)) {
		if (!(plan & VGPUCTL_STEP_LOCK))	/* found locked: let it run */
			vgpuctl_ckpt_unlock(pid);
		return -1;
	}
	if ((plan & VGPUCTL_STEP_CHECKPOINT) &&
	    checkpoint(a, t, pid, plan & VGPUCTL_STEP_LOCK))
		return -1;
	err = proc_set(a, p->pid, true);
	if (err == -ESRCH && !alive(p->pid))
		return 0;
	if (err) {
		/* Not parked: it runs again rather than stay stopped unknown to the module. */
		if (!vgpuctl_ckpt_restore(pid))
			vgpuctl_ckpt_unlock(pid);
		return set_failed(a, t, err);
	}
	vgpuctl_tstate_bytes(p->vram, size, sizeof(size));
	fprintf(stderr, "agent: tenant %s: pid %u checkpointed (%s, %.1f s)\n", t->name, p->pid,
		size, now_s() - t0);
	return 1;
}

/**
 * vgpuctl_agent_resume_proc() - restore one process and unpark it
 * @a: the agent
 * @t: its tenant (why, on failure)
 * @p: the process, as proc-get reported it
 *
 * The steps of vgpuctl_ckpt_plan(): checkpointed: restore, unlock;
 * locked: unlock; running: nothing; then, if the module holds it
 * suspended, proc-set PID. Every process of the tenant comes here, parked
 * or not: one locked or checkpointed by an agent killed before its
 * proc-set is let go too.
 *
 * Return: 1 restored, 0 nothing to do (running, gone), -1 failed.
 */
int vgpuctl_agent_resume_proc(struct vgpuctl_agent *a, struct vgpuctl_agent_tenant *t,
			      const struct vgpuctl_tproc *p)
{
	int pid = (int)p->pid, rc, err;
	double t0 = now_s();
	unsigned int plan;
	char size[32];

	if (plan_of(t, p, true, &plan))
		return -1;
	if (!plan)
		return 0;
	if (plan & VGPUCTL_STEP_RESTORE) {
		rc = vgpuctl_ckpt_restore(pid);
		if (rc)
			return fail(t, "cuCheckpointProcessRestore: %s", vgpuctl_ckpt_strerror(rc));
	}
	if (plan & VGPUCTL_STEP_UNLOCK) {
		rc = vgpuctl_ckpt_unlock(pid);
		if (rc)
			return fail(t, "cuCheckpointProcessUnlock: %s", vgpuctl_ckpt_strerror(rc));
	}
	if (plan & VGPUCTL_STEP_UNPARK) {
		err = proc_set(a, p->pid, false);
		if (err && !(err == -ESRCH && !alive(p->pid)))
			return set_failed(a, t, err);
	}
	/* The module charged the parked bytes back before the restore: its vram now. */
	vgpuctl_tstate_bytes(p->parked ? p->parked : p->vram, size, sizeof(size));
	fprintf(stderr, "agent: tenant %s: pid %u %s (%s, %.1f s)\n", t->name, p->pid,
		plan & VGPUCTL_STEP_RESTORE ? "restored" :
		plan & VGPUCTL_STEP_UNLOCK ? "unlocked" : "unparked", size, now_s() - t0);
	return 1;
}
