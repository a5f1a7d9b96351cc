/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink plumbing shared by vgpuctl and tests/tools/vgpu-nlsend:
 * the libnl socket, family and group resolution, extended-ACK error
 * capture, request/dump helpers and multicast reception.
 */
#ifndef VGPU_CTL_NL_H
#define VGPU_CTL_NL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/netlink.h>
#include <netlink/genl/genl.h>

/* Room for any request: a 4095-byte cgroup path plus two 1023-byte lists. */
#define VGPU_NL_MSG_SIZE	32768

struct vgpu_nl {
	struct nl_sock *sk;
	int family;
	int error;		/* positive errno of the last failure, 0 if none */
	char msg[256];		/* extack message of the last failure, or "" */
};

/*
 * Called for each reply message (a do's reply, every part of a dump, every
 * multicast event). Return 0 to go on, or a negative errno to stop.
 */
typedef int (*vgpu_nl_reply_fn)(struct nlmsghdr *nlh, void *arg);

int vgpuctl_nl_open(struct vgpu_nl *nl);
void vgpuctl_nl_close(struct vgpu_nl *nl);
struct nl_msg *vgpuctl_nl_msg(const struct vgpu_nl *nl, uint8_t cmd, bool dump);
int vgpuctl_nl_request(struct vgpu_nl *nl, struct nl_msg *msg,
		       vgpu_nl_reply_fn fn, void *arg);
int vgpuctl_nl_tenant_get(struct vgpu_nl *nl, const char *name, vgpu_nl_reply_fn fn, void *arg);
int vgpuctl_nl_subscribe(struct vgpu_nl *nl, const char *group);
int vgpuctl_nl_fd(const struct vgpu_nl *nl);
int vgpuctl_nl_recv_events(struct vgpu_nl *nl, vgpu_nl_reply_fn fn, void *arg);
void vgpuctl_nl_perror(const struct vgpu_nl *nl, int err);
void vgpuctl_nl_clear_error(struct vgpu_nl *nl);

#endif /* VGPU_CTL_NL_H */
