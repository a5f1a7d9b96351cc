// SPDX-License-Identifier: GPL-2.0
/*
 * tenant suspend and tenant resume as one change on the host: the request
 * (tenant-suspend, tenant-resume), then, unless told not to, the wait
 * until the agent has settled it (Documentation/suspend.md, "vgpuctl").
 *
 * The wait follows the monitor group's tenant-change-ntf, joined before
 * the request is sent, on a socket of its own; each event of the tenant,
 * a lost event (ENOBUFS) and a tick of a second make it read the tenant
 * again with tenant-get, which alone decides. The events make the answer
 * immediate without asking the module 50 times a second; the reading
 * again makes it right whatever the events' order, and the tick whatever
 * an event lost or never sent.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/genl.h>

#include "../obj/tenant.h"
#include "../obj/tenant_state.h"
#include "../vgpuctl.h"

/* How often the wait reads the tenant again without an event, in ms. */
#define SUSPEND_TICK_MS	1000

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* Why the module refused, naming the tenant: its extack message, or the errno's meaning. */
static int refused(struct vgpu_nl *nl, const char *verb, const char *name, int err)
{
	struct vgpuctl_tstate s;
	char msg[sizeof(nl->msg)];

	if (nl->msg[0])
		return vgpuctl_error("cannot %s tenant %s: %s", verb, name, nl->msg);
	switch (-err) {
	case ENOENT:
		return vgpuctl_error("cannot %s tenant %s: no such tenant", verb, name);
	case EALREADY:
		return vgpuctl_error("cannot %s tenant %s: already %s", verb, name,
				     strcmp(verb, "suspend") ? "running" : "suspended");
	case EBUSY:
		snprintf(msg, sizeof(msg), "%s", "a suspension or resume is under way");
		if (!vgpuctl_tstate_get(nl, name, &s) && s.has_state)
			snprintf(msg, sizeof(msg), "it is %s", vgpuctl_tstate_name(s.state));
		return vgpuctl_error("cannot %s tenant %s: %s", verb, name, msg);
	case EPERM:
		vgpuctl_nl_perror(nl, err);
		return VGPU_EXIT_ERR;
	default:
		return vgpuctl_error("cannot %s tenant %s: %s", verb, name, strerror(-err));
	}
}

/* Whether an event names the tenant (arg: its name; sets its flag). */
struct ev_arg {
	const char *name;
	bool seen;
};

static int ev_one(struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];
	struct ev_arg *e = arg;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN ||
	    (g->cmd != VGPU_CMD_TENANT_CHANGE_NTF && g->cmd != VGPU_CMD_TENANT_DEL_NTF))
		return 0;
	if (vgpuctl_tenant_parse(nlh, tb) || !tb[VGPU_A_TENANT_NAME])
		return 0;
	if (!strcmp(nla_get_string(tb[VGPU_A_TENANT_NAME]), e->name))
		e->seen = true;
	return 0;
}

/* Whether @s ends the wait of a suspend (@resume false) or a resume. */
static bool settled(bool resume, const struct vgpuctl_tstate *s)
{
	if (resume)
		return s->state == VGPU_TENANT_STATE_RUNNING;
	return s->state == VGPU_TENANT_STATE_SUSPENDED || s->state == VGPU_TENANT_STATE_RUNNING;
}

/* Processes of the tenant the module holds suspended. */
static unsigned int suspended_procs(struct vgpu_nl *nl, const char *name)
{
	struct vgpuctl_tproc *v;
	unsigned int k = 0;
	size_t n, i;

	if (vgpuctl_tenant_procs(nl, name, &v, &n))
		return 0;
	for (i = 0; i < n; i++)
		k += v[i].suspended;
	free(v);
	return k;
}

/* The end: the result line on stdout, or as the error it is. */
static int report(struct vgpu_nl *nl, const char *name, bool resume, uint64_t t0,
		  const struct vgpuctl_tstate *s)
{
	struct vgpuctl_tstate_end e = {
		.name = name, .resume = resume, .elapsed_ns = now_ns() - t0,
	};
	char line[512];

	if (!resume)
		e.procs = suspended_procs(nl, name);
	if (vgpuctl_tstate_result(line, sizeof(line), &e, s))
		return vgpuctl_error("%s", line);
	printf("%s\n", line);
	fflush(stdout);
	return VGPU_EXIT_OK;
}

/* Wait until the tenant is settled, or @wait_ns has passed. */
static int wait_settled(struct vgpu_nl *nl, struct vgpu_nl *ev, const char *name, bool resume,
			uint64_t t0, uint64_t wait_ns)
{
	struct pollfd pfd = { .fd = vgpuctl_nl_fd(ev), .events = POLLIN };
	struct ev_arg ea = { .name = name };
	bool told_wait = false, reread = true;
	struct vgpuctl_tstate s = { 0 };
	int err;

	for (;;) {
		uint64_t now = now_ns(), left;

		if (reread) {
			err = vgpuctl_tstate_get(nl, name, &s);
			if (err == -ENOENT)
				return vgpuctl_error("tenant %s was deleted while %s", name,
						     resume ? "resuming" : "suspending");
			if (err) {
				vgpuctl_nl_perror(nl, err);
				return VGPU_EXIT_ERR;
			}
			if (!s.has_state)
				return vgpuctl_error("the vgpu module does not report tenant %s's state", name);
			if (settled(resume, &s))
				return report(nl, name, resume, t0, &s);
			if (resume && s.resume_wait && !told_wait) {
				printf("tenant %s: waiting for room on its GPUs\n", name);
				fflush(stdout);
				told_wait = true;
			}
			reread = false;
		}
		now = now_ns();
		if (now - t0 >= wait_ns)
			return vgpuctl_error("tenant %s is still %s%s after %.1f s", name,
					     vgpuctl_tstate_name(s.state),
					     s.resume_wait ? " (waiting for room)" : "",
					     (double)(now - t0) / 1e9);
		left = (wait_ns - (now - t0)) / 1000000 + 1;
		if (poll(&pfd, 1, left < SUSPEND_TICK_MS ? (int)left : SUSPEND_TICK_MS) <= 0) {
			reread = true;	/* the tick, or EINTR */
			continue;
		}
		ea.seen = false;
		err = vgpuctl_nl_recv_events(ev, ev_one, &ea);
		if (err && err != -ENOBUFS) {
			vgpuctl_nl_perror(ev, err);
			return VGPU_EXIT_ERR;
		}
		reread = ea.seen || err == -ENOBUFS;
	}
}

/**
 * vgpuctl_tenant_suspend() - tenant suspend or tenant resume, and the wait
 * @name: the tenant
 * @resume: tenant-resume, else tenant-suspend
 * @wait_ns: how long to wait for the agent to settle it; 0: not at all
 *
 * Return: the exit status (1 when refused, when the tenant ends elsewhere
 * than asked, or on the wait's timeout).
 */
int vgpuctl_tenant_suspend(const char *name, bool resume, uint64_t wait_ns)
{
	const char *verb = resume ? "resume" : "suspend";
	struct vgpu_nl nl, ev;
	struct nl_msg *msg;
	uint64_t t0;
	int ret, err;

	ret = vgpuctl_need_admin();
	if (ret)
		return ret;
	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	if (wait_ns) {
		ret = vgpuctl_open(&ev);
		if (ret) {
			vgpuctl_nl_close(&nl);
			return ret;
		}
		err = vgpuctl_nl_subscribe(&ev, VGPU_MCGRP_MONITOR);
		if (err) {
			vgpuctl_nl_perror(&ev, err);
			ret = VGPU_EXIT_ERR;
			goto out;
		}
	}
	t0 = now_ns();
	msg = vgpuctl_nl_msg(&nl, resume ? VGPU_CMD_TENANT_RESUME : VGPU_CMD_TENANT_SUSPEND, false);
	if (!msg) {
		ret = vgpuctl_error("%s", strerror(ENOMEM));
		goto out;
	}
	if (nla_put_string(msg, VGPU_A_TENANT_NAME, name) < 0) {
		ret = vgpuctl_put_failed(msg);
		goto out;
	}
	err = vgpuctl_nl_request(&nl, msg, NULL, NULL);
	if (err)
		ret = refused(&nl, verb, name, err);
	else if (wait_ns)
		ret = wait_settled(&nl, &ev, name, resume, t0, wait_ns);
out:
	if (wait_ns)
		vgpuctl_nl_close(&ev);
	vgpuctl_nl_close(&nl);
	return ret;
}
