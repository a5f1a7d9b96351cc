/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: a bucket's usage as netlink attributes (usage.c).
 */
#ifndef _VGPU_USAGE_H
#define _VGPU_USAGE_H

#include <linux/types.h>

#include "sched.h"

struct sk_buff;
struct vgpu_bucket;

/**
 * struct vgpu_usage_snap - one GPU's line of a bucket's usage, copied out
 *	under the locks (the VGPU_A_USAGE_* attributes)
 * @gpu: GPU index
 * @current_bytes: vram-current
 * @peak: vram-peak
 * @failures: vram-failures
 * @overdrafts: vram-overdrafts
 * @scans: vram-scans
 * @budget: vram-budget
 * @byte_sec: vram-byte-seconds
 * @res_sec: vram-reserved-byte-seconds
 * @sched: gpu-time-ns, throttled-ns, grants
 */
struct vgpu_usage_snap {
	u32 gpu;
	u64 current_bytes;
	u64 peak;
	u64 failures;
	u64 overdrafts;
	u64 scans;
	u64 budget;
	u64 byte_sec;
	u64 res_sec;
	struct vgpu_sched_counters sched;
};

size_t vgpu_usage_msg_size(void);
int vgpu_usage_snapshot(struct vgpu_bucket *b, struct vgpu_usage_snap *snap);
int vgpu_usage_put_snap(struct sk_buff *skb, const struct vgpu_usage_snap *snap, int n);
int vgpu_usage_put(struct sk_buff *skb, struct vgpu_bucket *b);

#endif /* _VGPU_USAGE_H */
