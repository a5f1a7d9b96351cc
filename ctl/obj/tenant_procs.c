// SPDX-License-Identifier: GPL-2.0
/*
 * What tenant suspend, tenant resume and the agent read of one tenant:
 * its suspension state (tenant-get) and its registered processes
 * (proc-get dump, kept where the tenant is the one named), each with the
 * bytes it holds on its GPUs and in host memory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "tenant_state.h"
#include "../lib/spec_policy.h"
#include "../vgpuctl.h"

/* Tries of a process dump interrupted by concurrent changes. */
#define TPROCS_TRIES	5

static int state_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];

	if (vgpuctl_tenant_parse(nlh, tb))
		return -EPROTO;
	vgpuctl_tstate_read(tb, arg);
	return 0;
}

/**
 * vgpuctl_tstate_get() - read a tenant's suspension state (tenant-get)
 * @nl: an open handle (not subscribed)
 * @name: the tenant
 * @s: filled
 *
 * Return: 0, or a negative errno (-ENOENT: no such tenant) with @nl's
 * message set.
 */
int vgpuctl_tstate_get(struct vgpu_nl *nl, const char *name, struct vgpuctl_tstate *s)
{
	memset(s, 0, sizeof(*s));
	return vgpuctl_nl_tenant_get(nl, name, state_one, s);
}

struct procs_dump {
	const char *name;
	struct vgpuctl_tproc *v;
	size_t n, cap;
};

static int proc_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_PROC_MAX + 1], *g[VGPU_A_PROC_GPU_MAX + 1], *a;
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct procs_dump *d = arg;
	struct vgpuctl_tproc p = { 0 };
	size_t i;
	int rem;

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_PROC_MAX, vgpu_proc_nl_policy) < 0 ||
	    !tb[VGPU_A_PROC_PID])
		return -EPROTO;
	if (!tb[VGPU_A_PROC_TENANT] || strcmp(nla_get_string(tb[VGPU_A_PROC_TENANT]), d->name))
		return 0;
	p.pid = nla_get_u32(tb[VGPU_A_PROC_PID]);
	p.suspended = tb[VGPU_A_PROC_SUSPENDED];
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) != VGPU_A_PROC_GPU)
			continue;
		if (nla_parse_nested(g, VGPU_A_PROC_GPU_MAX, a, vgpu_proc_gpu_nl_policy) < 0)
			return -EPROTO;
		if (g[VGPU_A_PROC_GPU_VRAM_USED])
			p.vram += nla_get_u64(g[VGPU_A_PROC_GPU_VRAM_USED]);
		if (g[VGPU_A_PROC_GPU_VRAM_PARKED])
			p.parked += nla_get_u64(g[VGPU_A_PROC_GPU_VRAM_PARKED]);
	}
	for (i = 0; i < d->n; i++) {
		if (d->v[i].pid != p.pid)
			continue;
		/* Another registration of the process: one entry, parked when all are. */
		d->v[i].vram += p.vram;
		d->v[i].parked += p.parked;
		d->v[i].suspended = d->v[i].suspended && p.suspended;
		return 0;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		struct vgpuctl_tproc *v = realloc(d->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	d->v[d->n++] = p;
	return 0;
}

/**
 * vgpuctl_tenant_procs() - the registered processes of one tenant
 * @nl: an open handle (not subscribed)
 * @name: the tenant
 * @out: out: the processes (free()), NULL when none
 * @n: out: how many
 *
 * A process with several registrations is one entry, their bytes summed,
 * suspended when every one is. A dump interrupted by concurrent changes
 * is read again.
 *
 * Return: 0, or a negative errno with @nl's message set.
 */
int vgpuctl_tenant_procs(struct vgpu_nl *nl, const char *name, struct vgpuctl_tproc **out,
			 size_t *n)
{
	struct procs_dump d = { .name = name };
	int err = -EINTR, try;

	for (try = 0; try < TPROCS_TRIES && err == -EINTR; try++) {
		struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_PROC_GET, true);

		d.n = 0;
		if (!msg) {
			err = -ENOMEM;
			break;
		}
		err = vgpuctl_nl_request(nl, msg, proc_one, &d);
	}
	if (err) {
		free(d.v);
		*out = NULL;
		*n = 0;
		return err;
	}
	*out = d.v;
	*n = d.n;
	return 0;
}
