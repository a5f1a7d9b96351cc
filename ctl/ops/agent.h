/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's work (agent.c: a tenant's phase; agent_proc.c: one process
 * of it), below "vgpuctl agent" (cmd/agent.c), which follows the events.
 * Documentation/suspend.md, "The agent".
 */
#ifndef VGPU_CTL_AGENT_H
#define VGPU_CTL_AGENT_H

#include <stdbool.h>
#include <stddef.h>

#include "../lib/nl.h"

struct vgpuctl_tproc;

struct vgpuctl_agent {
	struct vgpu_nl nl;		/* requests: tenant-get, proc-get, proc-set, settle */
	unsigned int lock_ms;		/* cuCheckpointProcessLock's timeout; 0: none */
	char cgroot[4096];		/* where cgroup2 is mounted */
	int sfd;			/* SIGINT/SIGTERM, looked at between processes */
};

/* A tenant in the agent's hands: what the per-process steps need of it. */
struct vgpuctl_agent_tenant {
	const char *name;
	const char *cgroup;		/* as the module names it */
	char why[256];			/* out: why the process failed */
};

int vgpuctl_agent_tenant(struct vgpuctl_agent *a, const char *name);
int vgpuctl_agent_reconcile(struct vgpuctl_agent *a);
bool vgpuctl_agent_stopped(const struct vgpuctl_agent *a);

/* agent_proc.c: 1 done, 0 nothing to do (gone, already), -1 failed (t->why). */
int vgpuctl_agent_suspend_proc(struct vgpuctl_agent *a, struct vgpuctl_agent_tenant *t,
			       const struct vgpuctl_tproc *p);
int vgpuctl_agent_resume_proc(struct vgpuctl_agent *a, struct vgpuctl_agent_tenant *t,
			      const struct vgpuctl_tproc *p);

#endif
