/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the final records of deleted tenants (final.c), kept until a
 * collector acknowledges them (tenant-final-del), at most final_max.
 * Everything here is called with vgpu_lock held.
 */
#ifndef _VGPU_FINAL_H
#define _VGPU_FINAL_H

#include <linux/list.h>
#include <linux/types.h>

#include "../uapi/vgpu.h"
#include "label.h"
#include "usage.h"

/**
 * struct vgpu_final - a deleted tenant as it was, and its usage at deletion
 * @node: link in the FIFO, oldest first
 * @seq: final-seq, increasing for the module's life, from 1
 * @id: tenant id
 * @name: tenant name
 * @cgroup: cgroup path seen from the initial cgroup namespace
 * @cgroup_id: cgroup id
 * @labels: the tenant's labels (moved from it)
 * @ephemeral: whether the tenant was ephemeral
 * @created: creation time, ns since the epoch
 * @deleted: deletion time, ns since the epoch
 * @reason: enum vgpu_del_reason
 * @quota_set: the quota bits (enum vgpu_quota) set among those below
 * @vram_max: vram-max
 * @vram_min: vram-min
 * @gpus: gpus mask
 * @weight: weight
 * @compute_max: compute-max, basis points
 * @priority: enum vgpu_priority
 * @nusage: lines in @usage
 * @usage: the usage per GPU, final values
 */
struct vgpu_final {
	struct list_head node;
	u64 seq;
	u32 id;
	char name[VGPU_NAME_LEN_MAX + 1];
	char *cgroup;
	u64 cgroup_id;
	struct vgpu_labels labels;
	bool ephemeral;
	u64 created;
	u64 deleted;
	u32 reason;
	u32 quota_set;
	u64 vram_max;
	u64 vram_min;
	u64 gpus;
	u32 weight;
	u32 compute_max;
	u32 priority;
	int nusage;
	struct vgpu_usage_snap usage[];
};

struct vgpu_final *vgpu_final_alloc(int nusage);
void vgpu_final_free(struct vgpu_final *f);
void vgpu_final_push(struct vgpu_final *f);
struct vgpu_final *vgpu_final_after(u64 seq);
unsigned int vgpu_final_ack(u64 seq);
unsigned int vgpu_final_count(void);
u64 vgpu_final_dropped(void);
void vgpu_final_destroy_all(void);

#endif /* _VGPU_FINAL_H */
