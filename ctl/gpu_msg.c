// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU's messages as vgpuctl sends and reads them: a gpu-get reply or
 * gpu event parsed with the spec's policy, and a gpu-set. Below the
 * commands that use them (gpu.c, probe.c, monitor.c, the backstop's
 * reader), so that none of those calls another's command file.
 */
#include <errno.h>

#include <netlink/genl/genl.h>

#include "spec_policy.h"
#include "vgpuctl.h"

/**
 * vgpuctl_gpu_parse() - the attributes of a gpu-get reply or gpu event
 * @nlh: the message
 * @tb: VGPU_A_GPU_MAX + 1 slots
 *
 * Return: 0, or a negative errno when malformed.
 */
int vgpuctl_gpu_parse(struct nlmsghdr *nlh, struct nlattr **tb)
{
	return genlmsg_parse(nlh, 0, tb, VGPU_A_GPU_MAX, vgpu_gpu_nl_policy) < 0 ? -EPROTO : 0;
}

/**
 * vgpuctl_gpu_set_send() - gpu-set of one GPU (gpu set, gpu probe)
 * @nl: open connection
 * @index: GPU index
 * @nvlink: peers, or NULL to leave them
 * @state: enum vgpu_gpu_state, or NULL to leave it
 * @reason: state-reason, or NULL
 *
 * Return: the exit status.
 */
int vgpuctl_gpu_set_send(struct vgpu_nl *nl, uint32_t index, const uint64_t *nvlink,
			 const uint32_t *state, const char *reason)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_GPU_SET, false);

	if (msg && (nla_put_u32(msg, VGPU_A_GPU_INDEX, index) < 0 ||
		    (nvlink && nla_put_u64(msg, VGPU_A_GPU_NVLINK, *nvlink) < 0) ||
		    (state && nla_put_u32(msg, VGPU_A_GPU_STATE, *state) < 0) ||
		    (reason && nla_put_string(msg, VGPU_A_GPU_STATE_REASON, reason) < 0)))
		return vgpuctl_put_failed(msg);
	return vgpuctl_send(nl, msg, NULL, NULL);
}
