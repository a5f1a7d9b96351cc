/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: which GPUs a tenant gets when it asks for a number of them
 * (gpus-auto, or a process at registration), by the host's gpu-policy, and the GPUs' NVLink peers and
 * health that the choice weighs. See Documentation/gpus.md.
 * Everything here is called with vgpu_lock held.
 */
#ifndef _VGPU_GPU_CHOICE_H
#define _VGPU_GPU_CHOICE_H

#include <linux/types.h>

struct netlink_ext_ack;
struct nlattr;
struct vgpu_gpu;
struct vgpu_quota_set;
struct vgpu_tenant;

u32 vgpu_gpu_policy_get(void);
void vgpu_gpu_policy_set(u32 policy);
int vgpu_gpus_prepare(struct vgpu_quota_set *q, const struct vgpu_tenant *self,
		      struct nlattr **attrs, struct netlink_ext_ack *extack);
int vgpu_gpus_choose_proc(const struct vgpu_tenant *t, u32 n, u64 *gpus,
			  struct nlattr *attr, struct netlink_ext_ack *extack);
void vgpu_gpu_set_nvlink(struct vgpu_gpu *gpu, u64 peers);

#endif /* _VGPU_GPU_CHOICE_H */
