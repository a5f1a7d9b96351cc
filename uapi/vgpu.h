/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, generated from: */
/*	Documentation/netlink/specs/vgpu.yaml */
/* by tools/vgpu-nlgen */

#ifndef _UAPI_LINUX_VGPU_H
#define _UAPI_LINUX_VGPU_H

#define VGPU_FAMILY_NAME	"vgpu"
#define VGPU_FAMILY_VERSION	1

#define VGPU_GPU_MAX	64
#define VGPU_NAME_LEN_MAX	63
#define VGPU_UUID_LEN	40
#define VGPU_PCI_LEN_MAX	16
#define VGPU_PATH_LEN_MAX	4095
#define VGPU_LIST_LEN_MAX	1023
#define VGPU_WEIGHT_MAX	10000
#define VGPU_WEIGHT_DEFAULT	100
#define VGPU_BP_MAX	10000
#define VGPU_LABEL_MAX	16
#define VGPU_LABEL_KEY_LEN_MAX	63
#define VGPU_LABEL_VALUE_LEN_MAX	255
#define VGPU_FINAL_MAX	1024
#define VGPU_GID_NONE	4294967295
#define VGPU_REASON_LEN_MAX	127

/* Why a tenant was deleted: admin (tenant-del) or cgroup-removed (an ephemeral tenant whose cgroup was removed with no registered process left). */
enum vgpu_del_reason {
	VGPU_DEL_REASON_ADMIN = 0,
	VGPU_DEL_REASON_CGROUP_REMOVED = 1,
};

/* Compute priority class of a tenant. */
enum vgpu_priority {
	VGPU_PRIORITY_LOW = 0,
	VGPU_PRIORITY_NORMAL = 1,
	VGPU_PRIORITY_HIGH = 2,
};

/* What happens to GPU processes outside every tenant. */
enum vgpu_default_policy {
	VGPU_DEFAULT_POLICY_ALLOW = 0,
	VGPU_DEFAULT_POLICY_DENY = 1,
};

/* How a tenant's CPUs and NUMA nodes are chosen: manual (cpus and mems as given) or auto (the CPUs and nodes local to the tenant's GPUs). */
enum vgpu_placement {
	VGPU_PLACEMENT_MANUAL = 0,
	VGPU_PLACEMENT_AUTO = 1,
};

/* Quotas of a tenant, as named in the clear attribute. */
enum vgpu_quota {
	VGPU_QUOTA_VRAM_MAX = 1,
	VGPU_QUOTA_VRAM_MIN = 2,
	VGPU_QUOTA_GPUS = 4,
	VGPU_QUOTA_WEIGHT = 8,
	VGPU_QUOTA_COMPUTE_MAX = 16,
	VGPU_QUOTA_PRIORITY = 32,
	VGPU_QUOTA_CPUS = 64,
	VGPU_QUOTA_MEMS = 128,
	VGPU_QUOTA_PLACEMENT = 256,
	VGPU_QUOTA_EXCLUSIVE = 512,
};

/* How gpus-auto chooses a tenant's GPUs among those with room for its vram-min: binpack (the least free room first, filling GPUs) or spread (the most free room first). See Documentation/gpus.md. */
enum vgpu_gpu_policy {
	VGPU_GPU_POLICY_BINPACK = 0,
	VGPU_GPU_POLICY_SPREAD = 1,
};

/* Health of a GPU: healthy, unhealthy (faulty: gpu probe sets it when NVML reports an error state) or draining (being emptied by the admin). No new tenant is placed on a GPU that is not healthy. */
enum vgpu_gpu_state {
	VGPU_GPU_STATE_HEALTHY = 0,
	VGPU_GPU_STATE_UNHEALTHY = 1,
	VGPU_GPU_STATE_DRAINING = 2,
};

/* Where a tenant stands with suspension (Documentation/suspend.md): running; suspending (asked: the agent is checkpointing its processes); suspended (its checkpointed processes' device memory is in host memory, their charges parked); resuming (their charges are back, the agent restores and unlocks them). */
enum vgpu_tenant_state {
	VGPU_TENANT_STATE_RUNNING = 0,
	VGPU_TENANT_STATE_SUSPENDING = 1,
	VGPU_TENANT_STATE_SUSPENDED = 2,
	VGPU_TENANT_STATE_RESUMING = 3,
};

enum {
	VGPU_A_GPU_INDEX = 1,
	VGPU_A_GPU_UUID = 2,
	VGPU_A_GPU_PCI = 3,
	VGPU_A_GPU_VRAM = 4,
	VGPU_A_GPU_NUMA = 5,
	VGPU_A_GPU_PAD = 6,
	VGPU_A_GPU_NVLINK = 7,
	VGPU_A_GPU_STATE = 8,
	VGPU_A_GPU_STATE_REASON = 9,

	__VGPU_A_GPU_MAX,
	VGPU_A_GPU_MAX = (__VGPU_A_GPU_MAX - 1)
};

enum {
	VGPU_A_TENANT_NAME = 1,
	VGPU_A_TENANT_ID = 2,
	VGPU_A_TENANT_CGROUP = 3,
	VGPU_A_TENANT_CGROUP_ID = 4,
	VGPU_A_TENANT_VRAM_MAX = 5,
	VGPU_A_TENANT_VRAM_MIN = 6,
	VGPU_A_TENANT_GPUS = 7,
	VGPU_A_TENANT_WEIGHT = 8,
	VGPU_A_TENANT_COMPUTE_MAX = 9,
	VGPU_A_TENANT_PRIORITY = 10,
	VGPU_A_TENANT_CPUS = 11,
	VGPU_A_TENANT_MEMS = 12,
	VGPU_A_TENANT_CLEAR = 13,
	VGPU_A_TENANT_CGROUP_REMOVED = 14,
	VGPU_A_TENANT_PAD = 15,
	VGPU_A_TENANT_USAGE = 16,
	VGPU_A_TENANT_PLACEMENT = 17,
	VGPU_A_TENANT_EXCLUSIVE = 18,
	VGPU_A_TENANT_CPUS_EFFECTIVE = 19,
	VGPU_A_TENANT_MEMS_EFFECTIVE = 20,
	VGPU_A_TENANT_FORCE = 21,
	VGPU_A_TENANT_LABEL = 22,
	VGPU_A_TENANT_EPHEMERAL = 23,
	VGPU_A_TENANT_CREATED = 24,
	VGPU_A_TENANT_DELETED = 25,
	VGPU_A_TENANT_DEL_REASON = 26,
	VGPU_A_TENANT_FINAL_SEQ = 27,
	VGPU_A_TENANT_GPUS_AUTO = 28,
	VGPU_A_TENANT_STATE = 29,
	VGPU_A_TENANT_HOST_BYTES = 30,
	VGPU_A_TENANT_SUSPENDED_NS = 31,
	VGPU_A_TENANT_RESUME_WAIT = 32,
	VGPU_A_TENANT_STATE_REASON = 33,

	__VGPU_A_TENANT_MAX,
	VGPU_A_TENANT_MAX = (__VGPU_A_TENANT_MAX - 1)
};

enum {
	VGPU_A_LABEL_KEY = 1,
	VGPU_A_LABEL_VALUE = 2,

	__VGPU_A_LABEL_MAX,
	VGPU_A_LABEL_MAX = (__VGPU_A_LABEL_MAX - 1)
};

enum {
	VGPU_A_USAGE_GPU = 1,
	VGPU_A_USAGE_VRAM_CURRENT = 2,
	VGPU_A_USAGE_VRAM_PEAK = 3,
	VGPU_A_USAGE_VRAM_FAILURES = 4,
	VGPU_A_USAGE_VRAM_BUDGET = 5,
	VGPU_A_USAGE_VRAM_BYTE_SECONDS = 6,
	VGPU_A_USAGE_PAD = 7,
	VGPU_A_USAGE_GPU_TIME_NS = 8,
	VGPU_A_USAGE_THROTTLED_NS = 9,
	VGPU_A_USAGE_GRANTS = 10,
	VGPU_A_USAGE_VRAM_OVERDRAFTS = 11,
	VGPU_A_USAGE_VRAM_RESERVED_BYTE_SECONDS = 12,
	VGPU_A_USAGE_VRAM_SCANS = 13,

	__VGPU_A_USAGE_MAX,
	VGPU_A_USAGE_MAX = (__VGPU_A_USAGE_MAX - 1)
};

enum {
	VGPU_A_PROC_PID = 1,
	VGPU_A_PROC_TENANT = 2,
	VGPU_A_PROC_TENANT_ID = 3,
	VGPU_A_PROC_FD = 4,
	VGPU_A_PROC_DEFAULT_POLICY = 5,
	VGPU_A_PROC_GPU = 6,
	VGPU_A_PROC_PAD = 7,
	VGPU_A_PROC_MEMS = 8,
	VGPU_A_PROC_CPUS = 9,
	VGPU_A_PROC_HOST_PID = 10,
	VGPU_A_PROC_GPUS_AUTO = 11,
	VGPU_A_PROC_GPUS = 12,
	VGPU_A_PROC_SUSPENDED = 13,

	__VGPU_A_PROC_MAX,
	VGPU_A_PROC_MAX = (__VGPU_A_PROC_MAX - 1)
};

enum {
	VGPU_A_PROC_GPU_INDEX = 1,
	VGPU_A_PROC_GPU_UUID = 2,
	VGPU_A_PROC_GPU_VRAM = 3,
	VGPU_A_PROC_GPU_VRAM_MAX = 4,
	VGPU_A_PROC_GPU_DENIED = 5,
	VGPU_A_PROC_GPU_VRAM_USED = 6,
	VGPU_A_PROC_GPU_VRAM_BUDGET = 7,
	VGPU_A_PROC_GPU_VRAM_PARKED = 8,
	VGPU_A_PROC_GPU_PAD = 9,

	__VGPU_A_PROC_GPU_MAX,
	VGPU_A_PROC_GPU_MAX = (__VGPU_A_PROC_GPU_MAX - 1)
};

enum {
	VGPU_A_HOST_DEFAULT_POLICY = 1,
	VGPU_A_HOST_PROCS = 2,
	VGPU_A_HOST_PAD = 3,
	VGPU_A_HOST_INSTANCE_ID = 4,
	VGPU_A_HOST_LOADED = 5,
	VGPU_A_HOST_MONITOR_GID = 6,
	VGPU_A_HOST_FINALS = 7,
	VGPU_A_HOST_FINALS_DROPPED = 8,
	VGPU_A_HOST_GPU_POLICY = 9,

	__VGPU_A_HOST_MAX,
	VGPU_A_HOST_MAX = (__VGPU_A_HOST_MAX - 1)
};

enum {
	VGPU_CMD_GPU_ADD = 1,
	VGPU_CMD_GPU_DEL = 2,
	VGPU_CMD_GPU_GET = 3,
	VGPU_CMD_TENANT_NEW = 4,
	VGPU_CMD_TENANT_DEL = 5,
	VGPU_CMD_TENANT_SET = 6,
	VGPU_CMD_TENANT_GET = 7,
	VGPU_CMD_GPU_ADD_NTF = 8,
	VGPU_CMD_GPU_DEL_NTF = 9,
	VGPU_CMD_TENANT_NEW_NTF = 10,
	VGPU_CMD_TENANT_DEL_NTF = 11,
	VGPU_CMD_TENANT_CHANGE_NTF = 12,
	VGPU_CMD_PROC_REGISTER = 13,
	VGPU_CMD_PROC_GET = 14,
	VGPU_CMD_HOST_GET = 15,
	VGPU_CMD_HOST_SET = 16,
	VGPU_CMD_PROC_DEL = 17,
	VGPU_CMD_TENANT_FINAL_GET = 18,
	VGPU_CMD_TENANT_FINAL_DEL = 19,
	VGPU_CMD_GPU_SET = 20,
	VGPU_CMD_GPU_CHANGE_NTF = 21,
	VGPU_CMD_TENANT_SUSPEND = 22,
	VGPU_CMD_TENANT_RESUME = 23,
	VGPU_CMD_TENANT_SETTLE = 24,
	VGPU_CMD_PROC_SET = 25,

	__VGPU_CMD_MAX,
	VGPU_CMD_MAX = (__VGPU_CMD_MAX - 1)
};

#define VGPU_MCGRP_MONITOR	"monitor"

#endif /* _UAPI_LINUX_VGPU_H */
