// SPDX-License-Identifier: GPL-2.0
/* Do not edit directly, generated from: */
/*	Documentation/netlink/specs/vgpu.yaml */
/* by tools/vgpu-nlgen */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "nl_gen.h"

static struct netlink_range_validation vgpu_a_gpu_vram_range = {
	.min = 1ULL,
	.max = U64_MAX,
};

static struct netlink_range_validation vgpu_a_tenant_vram_wait_range = {
	.min = 0ULL,
	.max = 600000ULL,
};

/* Attributes nested in VGPU_A_TENANT_LABEL */
static const struct nla_policy vgpu_label_nl_policy[VGPU_A_LABEL_VALUE + 1] = {
	[VGPU_A_LABEL_KEY] = { .type = NLA_NUL_STRING, .len = VGPU_LABEL_KEY_LEN_MAX, },
	[VGPU_A_LABEL_VALUE] = { .type = NLA_NUL_STRING, .len = VGPU_LABEL_VALUE_LEN_MAX, },
};

/* VGPU_CMD_GPU_ADD - do */
static const struct nla_policy vgpu_gpu_add_nl_policy[VGPU_A_GPU_NUMA + 1] = {
	[VGPU_A_GPU_INDEX] = NLA_POLICY_MAX(NLA_U32, (VGPU_GPU_MAX - 1)),
	[VGPU_A_GPU_UUID] = { .type = NLA_NUL_STRING, .len = VGPU_UUID_LEN, },
	[VGPU_A_GPU_PCI] = { .type = NLA_NUL_STRING, .len = VGPU_PCI_LEN_MAX, },
	[VGPU_A_GPU_VRAM] = NLA_POLICY_FULL_RANGE(NLA_U64, &vgpu_a_gpu_vram_range),
	[VGPU_A_GPU_NUMA] = NLA_POLICY_RANGE(NLA_S32, (-1), 1023),
};

/* VGPU_CMD_GPU_DEL - do */
static const struct nla_policy vgpu_gpu_del_nl_policy[VGPU_A_GPU_INDEX + 1] = {
	[VGPU_A_GPU_INDEX] = NLA_POLICY_MAX(NLA_U32, (VGPU_GPU_MAX - 1)),
};

/* VGPU_CMD_GPU_GET - do */
static const struct nla_policy vgpu_gpu_get_nl_policy[VGPU_A_GPU_INDEX + 1] = {
	[VGPU_A_GPU_INDEX] = NLA_POLICY_MAX(NLA_U32, (VGPU_GPU_MAX - 1)),
};

/* VGPU_CMD_TENANT_NEW - do */
static const struct nla_policy vgpu_tenant_new_nl_policy[VGPU_A_TENANT_VRAM_WAIT + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_NUL_STRING, .len = VGPU_NAME_LEN_MAX, },
	[VGPU_A_TENANT_CGROUP] = { .type = NLA_NUL_STRING, .len = VGPU_PATH_LEN_MAX, },
	[VGPU_A_TENANT_CGROUP_ID] = { .type = NLA_U64, },
	[VGPU_A_TENANT_VRAM_MAX] = { .type = NLA_U64, },
	[VGPU_A_TENANT_VRAM_MIN] = { .type = NLA_U64, },
	[VGPU_A_TENANT_GPUS] = { .type = NLA_U64, },
	[VGPU_A_TENANT_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, 1, VGPU_WEIGHT_MAX),
	[VGPU_A_TENANT_COMPUTE_MAX] = NLA_POLICY_MAX(NLA_U32, VGPU_BP_MAX),
	[VGPU_A_TENANT_PRIORITY] = NLA_POLICY_MAX(NLA_U32, 2),
	[VGPU_A_TENANT_CPUS] = { .type = NLA_NUL_STRING, .len = VGPU_LIST_LEN_MAX, },
	[VGPU_A_TENANT_MEMS] = { .type = NLA_NUL_STRING, .len = VGPU_LIST_LEN_MAX, },
	[VGPU_A_TENANT_PLACEMENT] = NLA_POLICY_MAX(NLA_U32, 1),
	[VGPU_A_TENANT_EXCLUSIVE] = NLA_POLICY_MAX(NLA_U32, 1),
	[VGPU_A_TENANT_LABEL] = NLA_POLICY_NESTED(vgpu_label_nl_policy),
	[VGPU_A_TENANT_EPHEMERAL] = { .type = NLA_FLAG, },
	[VGPU_A_TENANT_GPUS_AUTO] = NLA_POLICY_RANGE(NLA_U32, 1, VGPU_GPU_MAX),
	[VGPU_A_TENANT_PREEMPTIBLE] = NLA_POLICY_MAX(NLA_U32, 1),
	[VGPU_A_TENANT_VRAM_WAIT] = NLA_POLICY_FULL_RANGE(NLA_U32, &vgpu_a_tenant_vram_wait_range),
};

/* VGPU_CMD_TENANT_DEL - do */
static const struct nla_policy vgpu_tenant_del_nl_policy[VGPU_A_TENANT_FORCE + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_NUL_STRING, .len = VGPU_NAME_LEN_MAX, },
	[VGPU_A_TENANT_FORCE] = { .type = NLA_FLAG, },
};

/* VGPU_CMD_TENANT_SET - do */
static const struct nla_policy vgpu_tenant_set_nl_policy[VGPU_A_TENANT_VRAM_WAIT + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_NUL_STRING, .len = VGPU_NAME_LEN_MAX, },
	[VGPU_A_TENANT_VRAM_MAX] = { .type = NLA_U64, },
	[VGPU_A_TENANT_VRAM_MIN] = { .type = NLA_U64, },
	[VGPU_A_TENANT_GPUS] = { .type = NLA_U64, },
	[VGPU_A_TENANT_WEIGHT] = NLA_POLICY_RANGE(NLA_U32, 1, VGPU_WEIGHT_MAX),
	[VGPU_A_TENANT_COMPUTE_MAX] = NLA_POLICY_MAX(NLA_U32, VGPU_BP_MAX),
	[VGPU_A_TENANT_PRIORITY] = NLA_POLICY_MAX(NLA_U32, 2),
	[VGPU_A_TENANT_CPUS] = { .type = NLA_NUL_STRING, .len = VGPU_LIST_LEN_MAX, },
	[VGPU_A_TENANT_MEMS] = { .type = NLA_NUL_STRING, .len = VGPU_LIST_LEN_MAX, },
	[VGPU_A_TENANT_CLEAR] = NLA_POLICY_MASK(NLA_U32, 0xfff),
	[VGPU_A_TENANT_PLACEMENT] = NLA_POLICY_MAX(NLA_U32, 1),
	[VGPU_A_TENANT_EXCLUSIVE] = NLA_POLICY_MAX(NLA_U32, 1),
	[VGPU_A_TENANT_LABEL] = NLA_POLICY_NESTED(vgpu_label_nl_policy),
	[VGPU_A_TENANT_GPUS_AUTO] = NLA_POLICY_RANGE(NLA_U32, 1, VGPU_GPU_MAX),
	[VGPU_A_TENANT_PREEMPTIBLE] = NLA_POLICY_MAX(NLA_U32, 1),
	[VGPU_A_TENANT_VRAM_WAIT] = NLA_POLICY_FULL_RANGE(NLA_U32, &vgpu_a_tenant_vram_wait_range),
};

/* VGPU_CMD_TENANT_GET - do */
static const struct nla_policy vgpu_tenant_get_nl_policy[VGPU_A_TENANT_NAME + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_NUL_STRING, .len = VGPU_NAME_LEN_MAX, },
};

/* VGPU_CMD_PROC_REGISTER - do */
static const struct nla_policy vgpu_proc_register_nl_policy[VGPU_A_PROC_GPUS_AUTO + 1] = {
	[VGPU_A_PROC_FD] = { .type = NLA_U32, },
	[VGPU_A_PROC_GPUS_AUTO] = NLA_POLICY_RANGE(NLA_U32, 1, VGPU_GPU_MAX),
};

/* VGPU_CMD_HOST_SET - do */
static const struct nla_policy vgpu_host_set_nl_policy[VGPU_A_HOST_GPU_POLICY + 1] = {
	[VGPU_A_HOST_DEFAULT_POLICY] = NLA_POLICY_MAX(NLA_U32, 1),
	[VGPU_A_HOST_MONITOR_GID] = { .type = NLA_U32, },
	[VGPU_A_HOST_GPU_POLICY] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* VGPU_CMD_PROC_DEL - do */
static const struct nla_policy vgpu_proc_del_nl_policy[VGPU_A_PROC_PID + 1] = {
	[VGPU_A_PROC_PID] = { .type = NLA_U32, },
};

/* VGPU_CMD_TENANT_FINAL_DEL - do */
static const struct nla_policy vgpu_tenant_final_del_nl_policy[VGPU_A_TENANT_FINAL_SEQ + 1] = {
	[VGPU_A_TENANT_FINAL_SEQ] = { .type = NLA_U64, },
};

/* VGPU_CMD_GPU_SET - do */
static const struct nla_policy vgpu_gpu_set_nl_policy[VGPU_A_GPU_STATE_REASON + 1] = {
	[VGPU_A_GPU_INDEX] = NLA_POLICY_MAX(NLA_U32, (VGPU_GPU_MAX - 1)),
	[VGPU_A_GPU_NVLINK] = { .type = NLA_U64, },
	[VGPU_A_GPU_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[VGPU_A_GPU_STATE_REASON] = { .type = NLA_NUL_STRING, .len = VGPU_REASON_LEN_MAX, },
};

/* VGPU_CMD_TENANT_SUSPEND - do */
static const struct nla_policy vgpu_tenant_suspend_nl_policy[VGPU_A_TENANT_NAME + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_NUL_STRING, .len = VGPU_NAME_LEN_MAX, },
};

/* VGPU_CMD_TENANT_RESUME - do */
static const struct nla_policy vgpu_tenant_resume_nl_policy[VGPU_A_TENANT_NAME + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_NUL_STRING, .len = VGPU_NAME_LEN_MAX, },
};

/* VGPU_CMD_TENANT_SETTLE - do */
static const struct nla_policy vgpu_tenant_settle_nl_policy[VGPU_A_TENANT_STATE_REASON + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_NUL_STRING, .len = VGPU_NAME_LEN_MAX, },
	[VGPU_A_TENANT_STATE] = NLA_POLICY_MAX(NLA_U32, 3),
	[VGPU_A_TENANT_STATE_REASON] = { .type = NLA_NUL_STRING, .len = VGPU_REASON_LEN_MAX, },
};

/* VGPU_CMD_PROC_SET - do */
static const struct nla_policy vgpu_proc_set_nl_policy[VGPU_A_PROC_SUSPENDED + 1] = {
	[VGPU_A_PROC_PID] = { .type = NLA_U32, },
	[VGPU_A_PROC_SUSPENDED] = { .type = NLA_FLAG, },
};

/* The tenant attribute of each quota, by bit number. */
const u16 vgpu_quota_attrs[VGPU_QUOTA_NBITS] = {
	[0] = VGPU_A_TENANT_VRAM_MAX,
	[1] = VGPU_A_TENANT_VRAM_MIN,
	[2] = VGPU_A_TENANT_GPUS,
	[3] = VGPU_A_TENANT_WEIGHT,
	[4] = VGPU_A_TENANT_COMPUTE_MAX,
	[5] = VGPU_A_TENANT_PRIORITY,
	[6] = VGPU_A_TENANT_CPUS,
	[7] = VGPU_A_TENANT_MEMS,
	[8] = VGPU_A_TENANT_PLACEMENT,
	[9] = VGPU_A_TENANT_EXCLUSIVE,
	[10] = VGPU_A_TENANT_PREEMPTIBLE,
	[11] = VGPU_A_TENANT_VRAM_WAIT,
};

/* Ops table for vgpu */
const struct genl_ops vgpu_nl_ops[19] = {
	{
		.cmd		= VGPU_CMD_GPU_ADD,
		.doit		= vgpu_nl_gpu_add_doit,
		.policy		= vgpu_gpu_add_nl_policy,
		.maxattr	= VGPU_A_GPU_NUMA,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_GPU_DEL,
		.doit		= vgpu_nl_gpu_del_doit,
		.policy		= vgpu_gpu_del_nl_policy,
		.maxattr	= VGPU_A_GPU_INDEX,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_GPU_GET,
		.doit		= vgpu_nl_gpu_get_doit,
		.dumpit		= vgpu_nl_gpu_get_dumpit,
		.policy		= vgpu_gpu_get_nl_policy,
		.maxattr	= VGPU_A_GPU_INDEX,
	},
	{
		.cmd		= VGPU_CMD_TENANT_NEW,
		.doit		= vgpu_nl_tenant_new_doit,
		.policy		= vgpu_tenant_new_nl_policy,
		.maxattr	= VGPU_A_TENANT_VRAM_WAIT,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_TENANT_DEL,
		.doit		= vgpu_nl_tenant_del_doit,
		.policy		= vgpu_tenant_del_nl_policy,
		.maxattr	= VGPU_A_TENANT_FORCE,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_TENANT_SET,
		.doit		= vgpu_nl_tenant_set_doit,
		.policy		= vgpu_tenant_set_nl_policy,
		.maxattr	= VGPU_A_TENANT_VRAM_WAIT,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_TENANT_GET,
		.doit		= vgpu_nl_tenant_get_doit,
		.dumpit		= vgpu_nl_tenant_get_dumpit,
		.policy		= vgpu_tenant_get_nl_policy,
		.maxattr	= VGPU_A_TENANT_NAME,
	},
	{
		.cmd		= VGPU_CMD_PROC_REGISTER,
		.doit		= vgpu_nl_proc_register_doit,
		.policy		= vgpu_proc_register_nl_policy,
		.maxattr	= VGPU_A_PROC_GPUS_AUTO,
	},
	{
		.cmd		= VGPU_CMD_PROC_GET,
		.dumpit		= vgpu_nl_proc_get_dumpit,
	},
	{
		.cmd		= VGPU_CMD_HOST_GET,
		.doit		= vgpu_nl_host_get_doit,
	},
	{
		.cmd		= VGPU_CMD_HOST_SET,
		.doit		= vgpu_nl_host_set_doit,
		.policy		= vgpu_host_set_nl_policy,
		.maxattr	= VGPU_A_HOST_GPU_POLICY,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_PROC_DEL,
		.doit		= vgpu_nl_proc_del_doit,
		.policy		= vgpu_proc_del_nl_policy,
		.maxattr	= VGPU_A_PROC_PID,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_TENANT_FINAL_GET,
		.dumpit		= vgpu_nl_tenant_final_get_dumpit,
	},
	{
		.cmd		= VGPU_CMD_TENANT_FINAL_DEL,
		.doit		= vgpu_nl_tenant_final_del_doit,
		.policy		= vgpu_tenant_final_del_nl_policy,
		.maxattr	= VGPU_A_TENANT_FINAL_SEQ,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_GPU_SET,
		.doit		= vgpu_nl_gpu_set_doit,
		.policy		= vgpu_gpu_set_nl_policy,
		.maxattr	= VGPU_A_GPU_STATE_REASON,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_TENANT_SUSPEND,
		.doit		= vgpu_nl_tenant_suspend_doit,
		.policy		= vgpu_tenant_suspend_nl_policy,
		.maxattr	= VGPU_A_TENANT_NAME,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_TENANT_RESUME,
		.doit		= vgpu_nl_tenant_resume_doit,
		.policy		= vgpu_tenant_resume_nl_policy,
		.maxattr	= VGPU_A_TENANT_NAME,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_TENANT_SETTLE,
		.doit		= vgpu_nl_tenant_settle_doit,
		.policy		= vgpu_tenant_settle_nl_policy,
		.maxattr	= VGPU_A_TENANT_STATE_REASON,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= VGPU_CMD_PROC_SET,
		.doit		= vgpu_nl_proc_set_doit,
		.policy		= vgpu_proc_set_nl_policy,
		.maxattr	= VGPU_A_PROC_SUSPENDED,
		.flags		= GENL_ADMIN_PERM,
	},
};

/*
 * Events carry every tenant's configuration, so listening needs the same
 * privilege as changing it. GENL_MCAST_CAP_NET_ADMIN is a 6.1 stable
 * backport (Debian's 6.1.192 has it, 6.1.0 does not).
 */
const struct genl_multicast_group vgpu_nl_mcgrps[1] = {
	[VGPU_NLGRP_MONITOR] = {
		.name = VGPU_MCGRP_MONITOR,
#ifdef GENL_MCAST_CAP_NET_ADMIN
		.flags = GENL_MCAST_CAP_NET_ADMIN,
#endif
	},
};
