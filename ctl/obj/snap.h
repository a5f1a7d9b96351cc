/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A snapshot of what vgpu.ko reports, for the metering commands (metrics,
 * account): the host (host-get), the GPU inventory (gpu-get dump), every
 * tenant the caller may read with its usage per GPU (tenant-get dump), its
 * processes per GPU (proc-get dump) and, on request, the final records of
 * deleted tenants (tenant-final-get dump). Plain C structures, so that the
 * writers above (prom.c, acct_record.c) and the unit tests need no netlink.
 */
#ifndef VGPU_CTL_SNAP_H
#define VGPU_CTL_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../uapi/vgpu.h"
#include "../lib/nl.h"

struct vgpu_snap_label {
	char key[VGPU_LABEL_KEY_LEN_MAX + 1];
	char value[VGPU_LABEL_VALUE_LEN_MAX + 1];
};

/* A tenant's usage on one GPU: the kernel's counters as of the dump. */
struct vgpu_snap_usage {
	uint32_t gpu;
	uint64_t vram_current, vram_peak, vram_failures, vram_budget;
	uint64_t vram_byte_seconds, vram_reserved_byte_seconds;
	uint64_t gpu_time_ns, throttled_ns, grants, vram_overdrafts, vram_scans;
	uint32_t procs;		/* registered processes using the GPU */
};

/* A tenant (tenant-get) or the final record of a deleted one. */
struct vgpu_snap_tenant {
	char name[VGPU_NAME_LEN_MAX + 1];
	uint32_t id;
	char cgroup[VGPU_PATH_LEN_MAX + 1];
	uint64_t cgroup_id;
	bool has_vram_max, has_vram_min, has_gpus, has_compute_max;
	uint64_t vram_max, vram_min, gpus;
	uint32_t weight, compute_max, priority;
	bool preemptible;	/* false when unset */
	bool has_vram_wait;
	uint32_t vram_wait;	/* ms */
	bool ephemeral, cgroup_removed;
	bool has_created;
	uint64_t created;	/* ns since the epoch */
	bool has_state;		/* a module with suspension */
	uint32_t state;		/* enum vgpu_tenant_state */
	uint64_t host_bytes, suspended_ns;
	size_t nlabels;
	struct vgpu_snap_label labels[VGPU_LABEL_MAX];
	size_t nusage;
	struct vgpu_snap_usage usage[VGPU_GPU_MAX];
	/* Final records only. */
	uint64_t final_seq, deleted;
	uint32_t del_reason;
};

struct vgpu_snap_gpu {
	uint32_t index;
	char uuid[VGPU_UUID_LEN + 1];
	char pci[VGPU_PCI_LEN_MAX + 1];
	uint64_t vram;
	int32_t numa;		/* -1: none */
};

struct vgpu_snap_host {
	bool has_policy, has_procs, has_instance, has_loaded, has_monitor_gid;
	bool has_finals, has_finals_dropped;
	uint32_t policy, procs, monitor_gid, finals;
	uint64_t instance_id, loaded, finals_dropped;
};

struct vgpu_snap {
	struct vgpu_snap_host host;
	struct vgpu_snap_gpu *gpus;
	size_t ngpus;
	struct vgpu_snap_tenant *tenants;
	size_t ntenants;
	struct vgpu_snap_tenant *finals;	/* oldest first */
	size_t nfinals;
	bool finals_supported;	/* false: the module answered EOPNOTSUPP */
	uint64_t realtime;	/* CLOCK_REALTIME at the tenant dump, ns */
};

/* What vgpuctl_snap_take() reads besides the host. */
#define VGPU_SNAP_GPUS		0x1
#define VGPU_SNAP_TENANTS	0x2
#define VGPU_SNAP_PROCS		0x4	/* process counts into the tenants' usage */
#define VGPU_SNAP_FINALS	0x8	/* after the tenants */

int vgpuctl_snap_take(struct vgpu_nl *nl, struct vgpu_snap *s, unsigned int what);
void vgpuctl_snap_free(struct vgpu_snap *s);
const struct vgpu_snap_gpu *vgpuctl_snap_gpu(const struct vgpu_snap *s, uint32_t index);
bool vgpuctl_snap_may_use(const struct vgpu_snap_tenant *t, uint32_t gpu);

#endif /* VGPU_CTL_SNAP_H */
