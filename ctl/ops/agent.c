// SPDX-License-Identifier: GPL-2.0
/*
 * The agent's work on a tenant (Documentation/suspend.md, "The agent"):
 * a suspending tenant's processes checkpointed and parked, a resuming
 * tenant's restored and unparked (agent_proc.c, one process each), then
 * the phase ended with tenant-settle, carrying why the processes that
 * failed did. What to do is read from the module each time (tenant-get,
 * proc-get), never remembered, so that a restarted agent picks up where
 * things stand, and a stale event finds nothing to do.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "agent.h"
#include "../obj/tenant_state.h"
#include "../vgpuctl.h"

/* What the agent reads of a tenant. */
struct tenant_info {
	char name[VGPU_NAME_LEN_MAX + 1];
	char cgroup[VGPU_PATH_LEN_MAX + 1];
	bool has_state;
	uint32_t state;
};

/* The tenants a dump found in a phase the agent acts on. */
struct tenant_list {
	char (*names)[VGPU_NAME_LEN_MAX + 1];
	size_t n, cap;
};

static bool in_phase(const struct tenant_info *t)
{
	return t->has_state && (t->state == VGPU_TENANT_STATE_SUSPENDING ||
				t->state == VGPU_TENANT_STATE_RESUMING);
}

static int info_parse(struct nlmsghdr *nlh, struct tenant_info *t)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];

	memset(t, 0, sizeof(*t));
	if (vgpuctl_tenant_parse(nlh, tb) || !tb[VGPU_A_TENANT_NAME])
		return -EPROTO;
	snprintf(t->name, sizeof(t->name), "%s", nla_get_string(tb[VGPU_A_TENANT_NAME]));
	if (tb[VGPU_A_TENANT_CGROUP])
		snprintf(t->cgroup, sizeof(t->cgroup), "%s", nla_get_string(tb[VGPU_A_TENANT_CGROUP]));
	t->has_state = tb[VGPU_A_TENANT_STATE];
	if (t->has_state)
		t->state = nla_get_u32(tb[VGPU_A_TENANT_STATE]);
	return 0;
}

static int info_one(struct nlmsghdr *nlh, void *arg)
{
	return info_parse(nlh, arg);
}

static int list_one(struct nlmsghdr *nlh, void *arg)
{
	struct tenant_list *l = arg;
	struct tenant_info t;

	if (info_parse(nlh, &t))
		return -EPROTO;
	if (!in_phase(&t))
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		void *v = realloc(l->names, cap * sizeof(*l->names));

		if (!v)
			return -ENOMEM;
		l->names = v;
		l->cap = cap;
	}
	memcpy(l->names[l->n++], t.name, sizeof(t.name));
	return 0;
}

/**
 * vgpuctl_agent_stopped() - whether SIGINT or SIGTERM has come
 * @a: the agent
 *
 * Return: true when the agent should stop before its next process.
 */
bool vgpuctl_agent_stopped(const struct vgpuctl_agent *a)
{
	struct pollfd p = { .fd = a->sfd, .events = POLLIN };

	return a->sfd >= 0 && poll(&p, 1, 0) > 0;
}

/* tenant-settle NAME state=@state state-reason=@reason; EALREADY is no error. */
static int settle(struct vgpuctl_agent *a, const char *name, uint32_t state, const char *reason)
{
	struct nl_msg *msg = vgpuctl_nl_msg(&a->nl, VGPU_CMD_TENANT_SETTLE, false);
	int err;

	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, VGPU_A_TENANT_NAME, name) < 0 ||
	    nla_put_u32(msg, VGPU_A_TENANT_STATE, state) < 0 ||
	    nla_put_string(msg, VGPU_A_TENANT_STATE_REASON, reason) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	err = vgpuctl_nl_request(&a->nl, msg, NULL, NULL);
	return err == -EALREADY ? 0 : err;
}

/* "pid P: why" added to @buf ("; " between), cut with "..." at the attribute's limit. */
static void add_reason(char *buf, size_t len, uint32_t pid, const char *why)
{
	size_t n = strlen(buf);
	int w;

	if (n + 4 >= len)
		return;
	w = snprintf(buf + n, len - n, "%spid %u: %s", n ? "; " : "", pid, why);
	if (w < 0 || (size_t)w >= len - n)
		memcpy(buf + len - 4, "...", 4);
}

/* Each process of the tenant through its step, then tenant-settle. */
static int phase(struct vgpuctl_agent *a, const struct tenant_info *ti)
{
	bool resume = ti->state == VGPU_TENANT_STATE_RESUMING;
	struct vgpuctl_agent_tenant t = { .name = ti->name, .cgroup = ti->cgroup };
	char reason[VGPU_REASON_LEN_MAX + 1] = "";
	unsigned int done = 0, failed = 0;
	struct vgpuctl_tproc *v;
	size_t n, i;
	int err, r;

	err = vgpuctl_tenant_procs(&a->nl, ti->name, &v, &n);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		if (vgpuctl_agent_stopped(a)) {
			free(v);
			return -ECANCELED;	/* left as it stands: the next agent goes on */
		}
		t.why[0] = '\0';
		r = resume ? vgpuctl_agent_resume_proc(a, &t, &v[i])
			   : vgpuctl_agent_suspend_proc(a, &t, &v[i]);
		if (r > 0) {
			done++;
		} else if (r < 0) {
			failed++;
			fprintf(stderr, "agent: tenant %s: pid %u not %s: %s\n", ti->name, v[i].pid,
				resume ? "restored" : "checkpointed", t.why);
			add_reason(reason, sizeof(reason), v[i].pid, t.why);
		}
	}
	free(v);
	err = settle(a, ti->name, ti->state, reason);
	if (err)
		return err;
	fprintf(stderr, "agent: tenant %s: %s settled: %u %s, %u failed\n", ti->name,
		resume ? "resume" : "suspension", done, resume ? "restored" : "checkpointed",
		failed);
	return 0;
}

/**
 * vgpuctl_agent_tenant() - act on one tenant if it is suspending or resuming
 * @a: the agent
 * @name: the tenant, as an event named it
 *
 * The tenant is read again: an event that is stale, or of a tenant gone
 * since, finds nothing to do.
 *
 * Return: 0, or a negative errno (-ECANCELED: stopped halfway) after which
 * the tenant should be looked at again.
 */
int vgpuctl_agent_tenant(struct vgpuctl_agent *a, const char *name)
{
	struct tenant_info t;
	int err;

	memset(&t, 0, sizeof(t));
	err = vgpuctl_nl_tenant_get(&a->nl, name, info_one, &t);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	return in_phase(&t) ? phase(a, &t) : 0;
}

/**
 * vgpuctl_agent_reconcile() - act on every tenant suspending or resuming
 * @a: the agent
 *
 * At the start, and whenever events may have been lost.
 *
 * Return: 0, or the first negative errno (the others are still tried).
 */
int vgpuctl_agent_reconcile(struct vgpuctl_agent *a)
{
	struct tenant_list l = { 0 };
	int err = -EINTR, first = 0, try;
	size_t i;

	for (try = 0; try < 5 && err == -EINTR; try++) {
		struct nl_msg *msg = vgpuctl_nl_msg(&a->nl, VGPU_CMD_TENANT_GET, true);

		l.n = 0;
		if (!msg) {
			err = -ENOMEM;
			break;
		}
		err = vgpuctl_nl_request(&a->nl, msg, list_one, &l);
	}
	for (i = 0; !err && i < l.n; i++) {
		int e = vgpuctl_agent_tenant(a, l.names[i]);

		if (e && !first)
			first = e;
		if (e == -ECANCELED)
			break;
	}
	free(l.names);
	return err ? err : first;
}
