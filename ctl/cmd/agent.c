// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl agent: the daemon that calls NVIDIA's checkpoint API for
 * tenant suspension (Documentation/suspend.md, "The agent"). It joins the
 * monitor group, then looks at every tenant once (one may be suspending
 * or resuming since before it started), then acts on each tenant-change
 * event of a tenant suspending or resuming (ops/agent.c reads it again),
 * until SIGINT or SIGTERM. Events lost (ENOBUFS) or a pass that failed
 * make it look at every tenant again, a second later for a failure.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "../enforce/ckpt.h"
#include "../lib/parse.h"
#include "../obj/tenant_state.h"
#include "../ops/agent.h"
#include "../vgpuctl.h"

/* cuCheckpointProcessLock's timeout unless told, in ms. */
#define AGENT_LOCK_MS_DEFAULT	10000
/* The longest lock-timeout: an hour. */
#define AGENT_LOCK_MS_MAX	3600000
/* The wait before a failed pass is tried again, in ms. */
#define AGENT_RETRY_MS		1000
/* Tenants named by one batch of events. */
#define AGENT_BATCH		64

/**
 * vgpuctl_usage_agent() - usage of the agent
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_agent(FILE *f)
{
	fputs("Usage: vgpuctl agent [lock-timeout MS]\n"
	      "       vgpuctl agent help\n"
	      "Runs until SIGINT or SIGTERM, checkpointing the processes of the tenants\n"
	      "being suspended and restoring those of the tenants being resumed, through\n"
	      "NVIDIA's checkpoint API (libcuda.so.1, driver r570 or later); one line per\n"
	      "action on stderr. Needs root (CAP_NET_ADMIN, and the right to ptrace the\n"
	      "tenants' processes). A process whose lock is not taken within MS\n"
	      "milliseconds (default 10000; 0: no limit) is left running.\n", f);
}

/* The tenants the events of one read name, each once. */
struct batch {
	char names[AGENT_BATCH][VGPU_NAME_LEN_MAX + 1];
	unsigned int n;
	bool overflow;		/* more than fit: look at every tenant */
};

static int event_one(struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];
	struct batch *b = arg;
	const char *name;
	uint32_t state;
	unsigned int i;

	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN || g->cmd != VGPU_CMD_TENANT_CHANGE_NTF ||
	    vgpuctl_tenant_parse(nlh, tb) || !tb[VGPU_A_TENANT_NAME] || !tb[VGPU_A_TENANT_STATE])
		return 0;
	state = nla_get_u32(tb[VGPU_A_TENANT_STATE]);
	if (state != VGPU_TENANT_STATE_SUSPENDING && state != VGPU_TENANT_STATE_RESUMING)
		return 0;
	name = nla_get_string(tb[VGPU_A_TENANT_NAME]);
	for (i = 0; i < b->n; i++)
		if (!strcmp(b->names[i], name))
			return 0;
	if (b->n == AGENT_BATCH) {
		b->overflow = true;
		return 0;
	}
	snprintf(b->names[b->n++], sizeof(b->names[0]), "%s", name);
	return 0;
}

/*
 * A pass's failure, on stderr unless it is the one said last (a module
 * that went away would otherwise fill the journal); whether to try again.
 */
static bool failed(struct vgpuctl_agent *a, const char *name, int err)
{
	static int last;

	if (!err || err == -ECANCELED) {
		if (!err)
			last = 0;
		return false;
	}
	if (err == last)
		return true;
	last = err;
	fprintf(stderr, "agent: %s%s: %s (looking again in %d ms)\n", name ? "tenant " : "",
		name ? name : "looking at every tenant", a->nl.msg[0] ? a->nl.msg : strerror(-err),
		AGENT_RETRY_MS);
	return true;
}

/* The events' batch acted on; whether a pass failed. */
static bool act(struct vgpuctl_agent *a, const struct batch *b)
{
	bool retry = false;
	unsigned int i;

	if (b->overflow)
		return failed(a, NULL, vgpuctl_agent_reconcile(a));
	for (i = 0; i < b->n && !vgpuctl_agent_stopped(a); i++)
		retry |= failed(a, b->names[i], vgpuctl_agent_tenant(a, b->names[i]));
	return retry;
}

/* Follow the events until a stop signal; returns the exit status. */
static int agent_loop(struct vgpuctl_agent *a, struct vgpu_nl *ev)
{
	struct pollfd pfd[2] = {
		{ .fd = vgpuctl_nl_fd(ev), .events = POLLIN },
		{ .fd = a->sfd, .events = POLLIN },
	};
	bool retry = failed(a, NULL, vgpuctl_agent_reconcile(a));
	static struct batch b;
	int err, n;

	for (;;) {
		n = poll(pfd, 2, retry ? AGENT_RETRY_MS : -1);
		if (n < 0 && errno != EINTR)
			return vgpuctl_error("poll: %s", strerror(errno));
		if (pfd[1].revents || vgpuctl_agent_stopped(a))
			return VGPU_EXIT_OK;
		if (n <= 0) {
			retry = failed(a, NULL, vgpuctl_agent_reconcile(a));
			continue;
		}
		memset(&b, 0, sizeof(b));
		err = vgpuctl_nl_recv_events(ev, event_one, &b);
		if (err == -ENOBUFS) {
			fprintf(stderr, "agent: events lost (receive buffer full): looking at every tenant\n");
			b.overflow = true;
		} else if (err) {
			vgpuctl_nl_perror(ev, err);
			return VGPU_EXIT_ERR;
		}
		retry = act(a, &b) || (retry && failed(a, NULL, vgpuctl_agent_reconcile(a)));
	}
}

static int agent_args(int argc, char **argv, unsigned int *lock_ms)
{
	uint32_t v;

	*lock_ms = AGENT_LOCK_MS_DEFAULT;
	if (argc > 0 && strcmp(argv[0], "lock-timeout"))
		return vgpuctl_usage_error("unexpected argument \"%s\" for agent", argv[0]);
	if (argc == 1)
		return vgpuctl_usage_error("missing MS after \"lock-timeout\" for agent");
	if (argc > 1) {
		if (vgpuctl_parse_u32(argv[1], 0, AGENT_LOCK_MS_MAX, &v))
			return vgpuctl_usage_error("invalid lock-timeout \"%s\" for agent: want milliseconds, 0 to %u",
						   argv[1], AGENT_LOCK_MS_MAX);
		*lock_ms = v;
	}
	if (argc > 2)
		return vgpuctl_usage_error("unexpected argument \"%s\" for agent", argv[2]);
	return 0;
}

/**
 * vgpuctl_cmd_agent() - "vgpuctl agent [lock-timeout MS]"
 * @argc: arguments after "agent"
 * @argv: the arguments
 *
 * Return: the exit status (0 after SIGINT/SIGTERM).
 */
int vgpuctl_cmd_agent(int argc, char **argv)
{
	static struct vgpuctl_agent a;
	struct vgpu_nl ev;
	char why[512];
	int ret, err;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_agent(stdout);
		return VGPU_EXIT_OK;
	}
	ret = agent_args(argc, argv, &a.lock_ms);
	if (!ret)
		ret = vgpuctl_need_admin();
	if (ret)
		return ret;
	if (vgpuctl_ckpt_open(why, sizeof(why)))
		return vgpuctl_error("agent: %s", why);
	if (vgpuctl_cgroup_mount("/proc/self/mounts", a.cgroot, sizeof(a.cgroot)) < 0)
		return vgpuctl_error("agent: no cgroup2 file system is mounted");
	ret = vgpuctl_stop_signals(&a.sfd);
	if (ret)
		return ret;
	ret = vgpuctl_open(&ev);
	if (ret)
		goto out_sfd;
	err = vgpuctl_nl_subscribe(&ev, VGPU_MCGRP_MONITOR);
	if (err) {
		vgpuctl_nl_perror(&ev, err);
		ret = VGPU_EXIT_ERR;
		goto out_ev;
	}
	ret = vgpuctl_open(&a.nl);
	if (ret)
		goto out_ev;
	fprintf(stderr, "agent: started (lock-timeout %u ms)\n", a.lock_ms);
	ret = agent_loop(&a, &ev);
	fprintf(stderr, "agent: stopped\n");
	vgpuctl_nl_close(&a.nl);
out_ev:
	vgpuctl_nl_close(&ev);
out_sfd:
	close(a.sfd);
	return ret;
}
