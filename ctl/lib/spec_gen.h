/* SPDX-License-Identifier: GPL-2.0 */
/* Do not edit directly, generated from: */
/*	Documentation/netlink/specs/vgpu.yaml */
/* by tools/vgpu-nlgen */

#ifndef _VGPU_CTL_SPEC_GEN_H
#define _VGPU_CTL_SPEC_GEN_H

#include <stdint.h>

#include "../../uapi/vgpu.h"

/* The checks of the attributes (the kernel's policy). */
#define VGPU_CHECK_GPU_INDEX_MAX	(VGPU_GPU_MAX - 1)
#define VGPU_CHECK_GPU_UUID_MAX_LEN	VGPU_UUID_LEN
#define VGPU_CHECK_GPU_PCI_MAX_LEN	VGPU_PCI_LEN_MAX
#define VGPU_CHECK_GPU_VRAM_MIN	1
#define VGPU_CHECK_GPU_NUMA_MIN	(-1)
#define VGPU_CHECK_GPU_NUMA_MAX	1023
#define VGPU_CHECK_GPU_STATE_REASON_MAX_LEN	VGPU_REASON_LEN_MAX
#define VGPU_CHECK_TENANT_NAME_MAX_LEN	VGPU_NAME_LEN_MAX
#define VGPU_CHECK_TENANT_CGROUP_MAX_LEN	VGPU_PATH_LEN_MAX
#define VGPU_CHECK_TENANT_WEIGHT_MIN	1
#define VGPU_CHECK_TENANT_WEIGHT_MAX	VGPU_WEIGHT_MAX
#define VGPU_CHECK_TENANT_COMPUTE_MAX_MAX	VGPU_BP_MAX
#define VGPU_CHECK_TENANT_CPUS_MAX_LEN	VGPU_LIST_LEN_MAX
#define VGPU_CHECK_TENANT_MEMS_MAX_LEN	VGPU_LIST_LEN_MAX
#define VGPU_CHECK_TENANT_EXCLUSIVE_MAX	1
#define VGPU_CHECK_TENANT_GPUS_AUTO_MIN	1
#define VGPU_CHECK_TENANT_GPUS_AUTO_MAX	VGPU_GPU_MAX
#define VGPU_CHECK_TENANT_STATE_REASON_MAX_LEN	VGPU_REASON_LEN_MAX
#define VGPU_CHECK_TENANT_PREEMPTIBLE_MAX	1
#define VGPU_CHECK_TENANT_VRAM_WAIT_MAX	600000
#define VGPU_CHECK_LABEL_KEY_MAX_LEN	VGPU_LABEL_KEY_LEN_MAX
#define VGPU_CHECK_LABEL_VALUE_MAX_LEN	VGPU_LABEL_VALUE_LEN_MAX
#define VGPU_CHECK_PROC_GPUS_AUTO_MIN	1
#define VGPU_CHECK_PROC_GPUS_AUTO_MAX	VGPU_GPU_MAX

/* Names of enum vgpu_del_reason, by value. */
#define VGPU_DEL_REASON_COUNT	2
static const char *const vgpu_del_reason_names[VGPU_DEL_REASON_COUNT] = {
	[VGPU_DEL_REASON_ADMIN] = "admin",
	[VGPU_DEL_REASON_CGROUP_REMOVED] = "cgroup-removed",
};

/* Names of enum vgpu_priority, by value. */
#define VGPU_PRIORITY_COUNT	3
static const char *const vgpu_priority_names[VGPU_PRIORITY_COUNT] = {
	[VGPU_PRIORITY_LOW] = "low",
	[VGPU_PRIORITY_NORMAL] = "normal",
	[VGPU_PRIORITY_HIGH] = "high",
};

/* Names of enum vgpu_default_policy, by value. */
#define VGPU_DEFAULT_POLICY_COUNT	2
static const char *const vgpu_default_policy_names[VGPU_DEFAULT_POLICY_COUNT] = {
	[VGPU_DEFAULT_POLICY_ALLOW] = "allow",
	[VGPU_DEFAULT_POLICY_DENY] = "deny",
};

/* Names of enum vgpu_placement, by value. */
#define VGPU_PLACEMENT_COUNT	2
static const char *const vgpu_placement_names[VGPU_PLACEMENT_COUNT] = {
	[VGPU_PLACEMENT_MANUAL] = "manual",
	[VGPU_PLACEMENT_AUTO] = "auto",
};

/* Names of enum vgpu_gpu_policy, by value. */
#define VGPU_GPU_POLICY_COUNT	2
static const char *const vgpu_gpu_policy_names[VGPU_GPU_POLICY_COUNT] = {
	[VGPU_GPU_POLICY_BINPACK] = "binpack",
	[VGPU_GPU_POLICY_SPREAD] = "spread",
};

/* Names of enum vgpu_gpu_state, by value. */
#define VGPU_GPU_STATE_COUNT	3
static const char *const vgpu_gpu_state_names[VGPU_GPU_STATE_COUNT] = {
	[VGPU_GPU_STATE_HEALTHY] = "healthy",
	[VGPU_GPU_STATE_UNHEALTHY] = "unhealthy",
	[VGPU_GPU_STATE_DRAINING] = "draining",
};

/* Names of enum vgpu_tenant_state, by value. */
#define VGPU_TENANT_STATE_COUNT	4
static const char *const vgpu_tenant_state_names[VGPU_TENANT_STATE_COUNT] = {
	[VGPU_TENANT_STATE_RUNNING] = "running",
	[VGPU_TENANT_STATE_SUSPENDING] = "suspending",
	[VGPU_TENANT_STATE_SUSPENDED] = "suspended",
	[VGPU_TENANT_STATE_RESUMING] = "resuming",
};

/* Quotas: the bits of enum vgpu_quota, all of them. */
#define VGPU_QUOTA_NBITS	12
#define VGPU_QUOTA_ALL	0xfff

/* Each quota: its name, its bit and the tenant attribute of that name. */
struct vgpu_spec_quota {
	const char *name;
	uint32_t bit;
	int attr;
};

static const struct vgpu_spec_quota vgpu_spec_quotas[VGPU_QUOTA_NBITS] = {
	{ "vram-max", VGPU_QUOTA_VRAM_MAX, VGPU_A_TENANT_VRAM_MAX },
	{ "vram-min", VGPU_QUOTA_VRAM_MIN, VGPU_A_TENANT_VRAM_MIN },
	{ "gpus", VGPU_QUOTA_GPUS, VGPU_A_TENANT_GPUS },
	{ "weight", VGPU_QUOTA_WEIGHT, VGPU_A_TENANT_WEIGHT },
	{ "compute-max", VGPU_QUOTA_COMPUTE_MAX, VGPU_A_TENANT_COMPUTE_MAX },
	{ "priority", VGPU_QUOTA_PRIORITY, VGPU_A_TENANT_PRIORITY },
	{ "cpus", VGPU_QUOTA_CPUS, VGPU_A_TENANT_CPUS },
	{ "mems", VGPU_QUOTA_MEMS, VGPU_A_TENANT_MEMS },
	{ "placement", VGPU_QUOTA_PLACEMENT, VGPU_A_TENANT_PLACEMENT },
	{ "exclusive", VGPU_QUOTA_EXCLUSIVE, VGPU_A_TENANT_EXCLUSIVE },
	{ "preemptible", VGPU_QUOTA_PREEMPTIBLE, VGPU_A_TENANT_PREEMPTIBLE },
	{ "vram-wait", VGPU_QUOTA_VRAM_WAIT, VGPU_A_TENANT_VRAM_WAIT },
};

#endif /* _VGPU_CTL_SPEC_GEN_H */
