// SPDX-License-Identifier: GPL-2.0
/*
 * The GPU's messages as vgpuctl sends and reads them: a gpu-get reply or
 * gpu event parsed with the spec's policy, a gpu-set, and the words of
 * gpu add. Below the commands that use them (gpu.c, probe.c, monitor.c,
 * the backstop's reader, apply's gpu lines), so that none of those calls
 * another's command file.
 */
#include <errno.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "../lib/parse.h"
#include "../lib/spec_policy.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_gpu_add_parse() - the words of gpu add after "add"
 * @g: filled in
 * @argc: number of words
 * @argv: INDEX, then KEY VALUE pairs (gpu add here, a gpu line in apply.c)
 *
 * Return: 0, or VGPU_EXIT_USAGE after an error line.
 */
int vgpuctl_gpu_add_parse(struct vgpuctl_gpu_add *g, int argc, char **argv)
{
	const char *key, *val;
	bool has_vram = false, has_numa = false;

	memset(g, 0, sizeof(*g));
	g->numa = -1;
	if (argc < 1)
		return vgpuctl_usage_error("missing INDEX for gpu add");
	if (vgpuctl_parse_index(argv[0], &g->index))
		return vgpuctl_usage_error("invalid INDEX \"%s\" for gpu add (0-63)", argv[0]);
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		key = argv[0];
		if (strcmp(key, "vram") && strcmp(key, "uuid") &&
		    strcmp(key, "pci") && strcmp(key, "numa"))
			return vgpuctl_usage_error("unknown key \"%s\" for gpu add", key);
		if (argc < 2)
			return vgpuctl_usage_error("missing value for %s", key);
		val = argv[1];
		if (!strcmp(key, "vram")) {
			if (has_vram)
				return vgpuctl_usage_error("duplicate key \"%s\" for gpu add", key);
			if (vgpuctl_parse_size(val, &g->vram))
				return vgpuctl_usage_error("invalid SIZE \"%s\" for vram", val);
			has_vram = true;
		} else if (!strcmp(key, "uuid")) {
			if (g->uuid)
				return vgpuctl_usage_error("duplicate key \"%s\" for gpu add", key);
			if (vgpuctl_parse_uuid(val))
				return vgpuctl_usage_error("invalid UUID \"%s\" for uuid", val);
			g->uuid = val;
		} else if (!strcmp(key, "pci")) {
			if (g->pci)
				return vgpuctl_usage_error("duplicate key \"%s\" for gpu add", key);
			if (vgpuctl_parse_busid(val))
				return vgpuctl_usage_error("invalid BUSID \"%s\" for pci", val);
			g->pci = val;
		} else {
			if (has_numa)
				return vgpuctl_usage_error("duplicate key \"%s\" for gpu add", key);
			if (vgpuctl_parse_numa(val, &g->numa))
				return vgpuctl_usage_error("invalid NODE \"%s\" for numa (-1 to 1023)", val);
			g->has_numa = has_numa = true;
		}
	}
	if (!has_vram)
		return vgpuctl_usage_error("vram is required");
	return 0;
}

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
