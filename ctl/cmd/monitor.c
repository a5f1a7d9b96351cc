// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl monitor: print the events of the vgpu "monitor" multicast group
 * until SIGINT or SIGTERM.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "../lib/print.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_usage_monitor() - usage of the monitor object
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_monitor(FILE *f)
{
	fputs("Usage: vgpuctl monitor\n"
	      "       vgpuctl monitor help\n"
	      "Prints gpu-add, gpu-del, gpu-change (NVLink peers or health state),\n"
	      "tenant-new, tenant-change and tenant-del events until interrupted. Needs CAP_NET_ADMIN where the kernel requires it.\n", f);
}

struct event_kind {
	uint8_t cmd;
	const char *name;
	bool tenant;
};

static const struct event_kind event_kinds[] = {
	{ VGPU_CMD_GPU_ADD_NTF, "gpu-add", false },
	{ VGPU_CMD_GPU_DEL_NTF, "gpu-del", false },
	{ VGPU_CMD_GPU_CHANGE_NTF, "gpu-change", false },
	{ VGPU_CMD_TENANT_NEW_NTF, "tenant-new", true },
	{ VGPU_CMD_TENANT_CHANGE_NTF, "tenant-change", true },
	{ VGPU_CMD_TENANT_DEL_NTF, "tenant-del", true },
};

static int print_event(struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *gtb[VGPU_A_GPU_MAX + 1];
	struct nlattr *ttb[VGPU_A_TENANT_MAX + 1];
	const struct event_kind *k = NULL;
	size_t i;

	(void)arg;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return 0;
	for (i = 0; i < sizeof(event_kinds) / sizeof(event_kinds[0]); i++)
		if (event_kinds[i].cmd == g->cmd)
			k = &event_kinds[i];
	if (!k)
		return 0;	/* an event this vgpuctl does not know */
	if (k->tenant ? vgpuctl_tenant_parse(nlh, ttb) : vgpuctl_gpu_parse(nlh, gtb))
		return 0;	/* malformed: skip it rather than stop */
	vgpuctl_print_event_open(k->name, k->tenant ? "tenant" : "gpu");
	if (k->tenant)
		vgpuctl_tenant_print(nlh, ttb, false);
	else
		vgpuctl_gpu_print(gtb);
	vgpuctl_print_event_close();
	if (ferror(stdout))
		return -EPIPE;
	return 0;
}

/* Wait for events or a signal; returns the exit status. */
static int event_loop(struct vgpu_nl *nl, int sfd)
{
	struct pollfd pfd[2] = {
		{ .fd = vgpuctl_nl_fd(nl), .events = POLLIN },
		{ .fd = sfd, .events = POLLIN },
	};
	int err;

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return vgpuctl_error("poll: %s", strerror(errno));
		}
		if (pfd[1].revents)
			return VGPU_EXIT_OK;	/* SIGINT or SIGTERM */
		if (!pfd[0].revents)
			continue;
		err = vgpuctl_nl_recv_events(nl, print_event, NULL);
		if (err == -ENOBUFS) {
			fprintf(stderr, "Warning: the kernel dropped events (receive buffer full).\n");
			continue;
		}
		if (err == -EPIPE)
			return VGPU_EXIT_ERR;	/* stdout went away */
		if (err) {
			vgpuctl_nl_perror(nl, err);
			return VGPU_EXIT_ERR;
		}
	}
}

/**
 * vgpuctl_cmd_monitor() - "vgpuctl monitor"
 * @argc: arguments after "monitor"
 * @argv: none, or "help"
 *
 * Return: the exit status (0 after SIGINT/SIGTERM).
 */
int vgpuctl_cmd_monitor(int argc, char **argv)
{
	struct vgpu_nl nl;
	int ret, err, sfd;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_monitor(stdout);
		return VGPU_EXIT_OK;
	}
	if (argc > 0)
		return vgpuctl_usage_error("unexpected argument \"%s\" for monitor", argv[0]);

	ret = vgpuctl_stop_signals(&sfd);
	if (ret)
		return ret;

	ret = vgpuctl_open(&nl);
	if (ret) {
		close(sfd);
		return ret;
	}
	err = vgpuctl_nl_subscribe(&nl, VGPU_MCGRP_MONITOR);
	if (err == -EPERM || err == -EACCES) {
		ret = vgpuctl_error("listening to vgpu events needs CAP_NET_ADMIN (run it as root)");
	} else if (err) {
		vgpuctl_nl_perror(&nl, err);
		ret = VGPU_EXIT_ERR;
	} else {
		ret = event_loop(&nl, sfd);
	}
	vgpuctl_nl_close(&nl);
	close(sfd);
	return ret;
}
