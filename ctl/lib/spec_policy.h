/* SPDX-License-Identifier: GPL-2.0 */
/* Do not edit directly, generated from: */
/*	Documentation/netlink/specs/vgpu.yaml */
/* by tools/vgpu-nlgen */

#ifndef _VGPU_CTL_SPEC_POLICY_H
#define _VGPU_CTL_SPEC_POLICY_H

#include <netlink/attr.h>

#include "../../uapi/vgpu.h"

/* libnl's parse policy of the gpu attributes. */
static const struct nla_policy vgpu_gpu_nl_policy[VGPU_A_GPU_MAX + 1] = {
	[VGPU_A_GPU_INDEX] = { .type = NLA_U32 },
	[VGPU_A_GPU_UUID] = { .type = NLA_STRING },
	[VGPU_A_GPU_PCI] = { .type = NLA_STRING },
	[VGPU_A_GPU_VRAM] = { .type = NLA_U64 },
	[VGPU_A_GPU_NUMA] = { .type = NLA_S32 },
	[VGPU_A_GPU_NVLINK] = { .type = NLA_U64 },
	[VGPU_A_GPU_STATE] = { .type = NLA_U32 },
	[VGPU_A_GPU_STATE_REASON] = { .type = NLA_STRING },
};

/* libnl's parse policy of the tenant attributes. */
static const struct nla_policy vgpu_tenant_nl_policy[VGPU_A_TENANT_MAX + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_STRING },
	[VGPU_A_TENANT_ID] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CGROUP] = { .type = NLA_STRING },
	[VGPU_A_TENANT_CGROUP_ID] = { .type = NLA_U64 },
	[VGPU_A_TENANT_VRAM_MAX] = { .type = NLA_U64 },
	[VGPU_A_TENANT_VRAM_MIN] = { .type = NLA_U64 },
	[VGPU_A_TENANT_GPUS] = { .type = NLA_U64 },
	[VGPU_A_TENANT_WEIGHT] = { .type = NLA_U32 },
	[VGPU_A_TENANT_COMPUTE_MAX] = { .type = NLA_U32 },
	[VGPU_A_TENANT_PRIORITY] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CPUS] = { .type = NLA_STRING },
	[VGPU_A_TENANT_MEMS] = { .type = NLA_STRING },
	[VGPU_A_TENANT_CLEAR] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CGROUP_REMOVED] = { .type = NLA_FLAG },
	[VGPU_A_TENANT_USAGE] = { .type = NLA_NESTED },
	[VGPU_A_TENANT_PLACEMENT] = { .type = NLA_U32 },
	[VGPU_A_TENANT_EXCLUSIVE] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CPUS_EFFECTIVE] = { .type = NLA_STRING },
	[VGPU_A_TENANT_MEMS_EFFECTIVE] = { .type = NLA_STRING },
	[VGPU_A_TENANT_FORCE] = { .type = NLA_FLAG },
	[VGPU_A_TENANT_LABEL] = { .type = NLA_NESTED },
	[VGPU_A_TENANT_EPHEMERAL] = { .type = NLA_FLAG },
	[VGPU_A_TENANT_CREATED] = { .type = NLA_U64 },
	[VGPU_A_TENANT_DELETED] = { .type = NLA_U64 },
	[VGPU_A_TENANT_DEL_REASON] = { .type = NLA_U32 },
	[VGPU_A_TENANT_FINAL_SEQ] = { .type = NLA_U64 },
	[VGPU_A_TENANT_GPUS_AUTO] = { .type = NLA_U32 },
	[VGPU_A_TENANT_STATE] = { .type = NLA_U32 },
	[VGPU_A_TENANT_HOST_BYTES] = { .type = NLA_U64 },
	[VGPU_A_TENANT_SUSPENDED_NS] = { .type = NLA_U64 },
	[VGPU_A_TENANT_RESUME_WAIT] = { .type = NLA_FLAG },
	[VGPU_A_TENANT_STATE_REASON] = { .type = NLA_STRING },
	[VGPU_A_TENANT_PREEMPTIBLE] = { .type = NLA_U32 },
	[VGPU_A_TENANT_VRAM_WAIT] = { .type = NLA_U32 },
};

/* libnl's parse policy of the label attributes. */
static const struct nla_policy vgpu_label_nl_policy[VGPU_A_LABEL_MAX + 1] = {
	[VGPU_A_LABEL_KEY] = { .type = NLA_STRING },
	[VGPU_A_LABEL_VALUE] = { .type = NLA_STRING },
};

/* libnl's parse policy of the usage attributes. */
static const struct nla_policy vgpu_usage_nl_policy[VGPU_A_USAGE_MAX + 1] = {
	[VGPU_A_USAGE_GPU] = { .type = NLA_U32 },
	[VGPU_A_USAGE_VRAM_CURRENT] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_PEAK] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_FAILURES] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_BUDGET] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_BYTE_SECONDS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_GPU_TIME_NS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_THROTTLED_NS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_GRANTS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_OVERDRAFTS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_RESERVED_BYTE_SECONDS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_SCANS] = { .type = NLA_U64 },
};

/* libnl's parse policy of the proc attributes. */
static const struct nla_policy vgpu_proc_nl_policy[VGPU_A_PROC_MAX + 1] = {
	[VGPU_A_PROC_PID] = { .type = NLA_U32 },
	[VGPU_A_PROC_TENANT] = { .type = NLA_STRING },
	[VGPU_A_PROC_TENANT_ID] = { .type = NLA_U32 },
	[VGPU_A_PROC_FD] = { .type = NLA_U32 },
	[VGPU_A_PROC_DEFAULT_POLICY] = { .type = NLA_U32 },
	[VGPU_A_PROC_GPU] = { .type = NLA_NESTED },
	[VGPU_A_PROC_MEMS] = { .type = NLA_STRING },
	[VGPU_A_PROC_CPUS] = { .type = NLA_STRING },
	[VGPU_A_PROC_HOST_PID] = { .type = NLA_U32 },
	[VGPU_A_PROC_GPUS_AUTO] = { .type = NLA_U32 },
	[VGPU_A_PROC_GPUS] = { .type = NLA_U64 },
	[VGPU_A_PROC_SUSPENDED] = { .type = NLA_FLAG },
};

/* libnl's parse policy of the proc-gpu attributes. */
static const struct nla_policy vgpu_proc_gpu_nl_policy[VGPU_A_PROC_GPU_MAX + 1] = {
	[VGPU_A_PROC_GPU_INDEX] = { .type = NLA_U32 },
	[VGPU_A_PROC_GPU_UUID] = { .type = NLA_STRING },
	[VGPU_A_PROC_GPU_VRAM] = { .type = NLA_U64 },
	[VGPU_A_PROC_GPU_VRAM_MAX] = { .type = NLA_U64 },
	[VGPU_A_PROC_GPU_DENIED] = { .type = NLA_FLAG },
	[VGPU_A_PROC_GPU_VRAM_USED] = { .type = NLA_U64 },
	[VGPU_A_PROC_GPU_VRAM_BUDGET] = { .type = NLA_U64 },
	[VGPU_A_PROC_GPU_VRAM_PARKED] = { .type = NLA_U64 },
};

/* libnl's parse policy of the host attributes. */
static const struct nla_policy vgpu_host_nl_policy[VGPU_A_HOST_MAX + 1] = {
	[VGPU_A_HOST_DEFAULT_POLICY] = { .type = NLA_U32 },
	[VGPU_A_HOST_PROCS] = { .type = NLA_U32 },
	[VGPU_A_HOST_INSTANCE_ID] = { .type = NLA_U64 },
	[VGPU_A_HOST_LOADED] = { .type = NLA_U64 },
	[VGPU_A_HOST_MONITOR_GID] = { .type = NLA_U32 },
	[VGPU_A_HOST_FINALS] = { .type = NLA_U32 },
	[VGPU_A_HOST_FINALS_DROPPED] = { .type = NLA_U64 },
	[VGPU_A_HOST_GPU_POLICY] = { .type = NLA_U32 },
};

#endif /* _VGPU_CTL_SPEC_POLICY_H */
