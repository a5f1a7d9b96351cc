/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Final records of deleted tenants, as vgpuctl reads them (final.c): the
 * one place that turns a tenant-final-get reply (or a tenant-del-ntf,
 * which carries the same record) into a struct, for "vgpuctl tenant
 * final" and for metering commands alike (snap.c reads live tenants
 * through it too: one parser of tenant messages).
 *
 *	struct vgpu_nl nl;
 *	vgpuctl_nl_open(&nl);
 *	vgpuctl_final_each(&nl, fn, arg);	// fn(record, arg), oldest first
 *	vgpuctl_final_ack(&nl, last_seq);	// drop what was stored
 *
 * Strings point into the netlink message: valid only during the callback.
 */
#ifndef VGPU_CTL_FINAL_H
#define VGPU_CTL_FINAL_H

#include <stdbool.h>
#include <stdint.h>

#include <netlink/attr.h>

#include "../../uapi/vgpu.h"
#include "../lib/nl.h"

/* One label of a tenant. */
struct vgpuctl_label {
	const char *key;
	const char *value;
};

/*
 * A tenant's usage on one GPU (a VGPU_A_TENANT_USAGE nest): a field the
 * message lacks is 0, and its bit (1 << VGPU_A_USAGE_*) is clear in has.
 */
struct vgpuctl_usage {
	uint32_t has;
	uint32_t gpu;
	uint64_t vram_current;
	uint64_t vram_peak;
	uint64_t vram_budget;
	uint64_t vram_failures;
	uint64_t vram_byte_seconds;
	uint64_t gpu_time_ns;
	uint64_t throttled_ns;
	uint64_t grants;
	uint64_t vram_overdrafts;
	uint64_t vram_reserved_byte_seconds;
	uint64_t vram_scans;
};

/*
 * A deleted tenant as it was, and its usage at deletion (or, from
 * vgpuctl_tenant_read(), a live tenant and its usage now). quota_set has
 * the VGPU_QUOTA_* bits of the quotas that were set (VRAM_MAX, VRAM_MIN,
 * GPUS, WEIGHT, COMPUTE_MAX, PRIORITY, PREEMPTIBLE, VRAM_WAIT); the
 * others' fields are 0.
 */
struct vgpuctl_final {
	uint64_t seq;			/* final-seq */
	const char *name;
	uint32_t id;
	const char *cgroup;		/* seen from the host's cgroup namespace */
	uint64_t cgroup_id;
	bool ephemeral;
	bool has_created;
	uint64_t created;		/* ns since the epoch */
	uint64_t deleted;		/* ns since the epoch */
	uint32_t reason;		/* enum vgpu_del_reason */
	uint32_t quota_set;
	uint64_t vram_max;
	uint64_t vram_min;
	uint64_t gpus;			/* bit mask of GPU indexes */
	uint32_t weight;
	uint32_t compute_max;		/* basis points */
	uint32_t priority;		/* enum vgpu_priority */
	uint32_t preemptible;		/* 0 or 1 */
	uint32_t vram_wait;		/* ms */
	bool has_state;			/* a module with suspension */
	uint32_t state;			/* enum vgpu_tenant_state */
	uint64_t host_bytes;		/* held in host memory while suspended */
	uint64_t suspended_ns;		/* time suspended or resuming, in all */
	unsigned int nlabels;
	struct vgpuctl_label labels[VGPU_LABEL_MAX];
	unsigned int nusage;
	struct vgpuctl_usage usage[VGPU_GPU_MAX];
};

/* Called once per record; return 0 to go on, a negative errno to stop. */
typedef int (*vgpuctl_final_fn)(const struct vgpuctl_final *f, void *arg);

int vgpuctl_usage_read(struct nlattr *nest, struct vgpuctl_usage *u);
int vgpuctl_final_parse(struct nlmsghdr *nlh, struct vgpuctl_final *f);
int vgpuctl_tenant_read(struct nlmsghdr *nlh, struct vgpuctl_final *f);
int vgpuctl_final_each(struct vgpu_nl *nl, vgpuctl_final_fn fn, void *arg);
int vgpuctl_final_ack(struct vgpu_nl *nl, uint64_t seq);

#endif /* VGPU_CTL_FINAL_H */
