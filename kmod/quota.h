/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the quotas of a tenant.
 */
#ifndef _VGPU_QUOTA_H
#define _VGPU_QUOTA_H

#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/nodemask.h>
#include <linux/types.h>

#include "../uapi/vgpu.h"
#include "nl_gen.h"

struct netlink_ext_ack;
struct nlattr;
struct sk_buff;

/* VGPU_QUOTA_ALL and vgpu_quota_attrs[] come from the spec (nl_gen.h). */

/**
 * struct vgpu_quota_set - the quotas of a tenant
 * @set: which quotas are set, bits of enum vgpu_quota; unset fields are
 *	meaningless
 * @vram_max: most VRAM the tenant may hold on each GPU, bytes
 * @vram_min: VRAM reserved for the tenant on each GPU it may use, bytes
 * @gpus: mask of the GPU indexes the tenant may use (unset: all)
 * @weight: relative compute weight (unset: VGPU_WEIGHT_DEFAULT)
 * @compute_max: most compute time of a GPU, basis points
 * @priority: enum vgpu_priority (unset: VGPU_PRIORITY_NORMAL)
 * @cpus: CPUs of the tenant's processes, all online when set
 * @mems: memory nodes of the tenant's processes, all with memory when set
 * @placement: enum vgpu_placement (unset: VGPU_PLACEMENT_MANUAL)
 * @exclusive: 1 when the tenant's CPUs are shared with no other exclusive
 *	tenant (unset: 0); see placement.c
 * @preemptible: 1 when the tenant may be suspended to free VRAM for a
 *	tenant of higher priority (unset: 0; preempt.c)
 * @vram_wait: ms a charge that finds no room may wait for preemption
 *	(unset: 0, none)
 * @gpus_auto: number of GPUs the module chose for @gpus by the host's
 *	gpu-policy (gpu_choice.c), 0 when @gpus was named or is unset; not
 *	a quota bit of its own: it says where the gpus quota came from
 */
struct vgpu_quota_set {
	u32 set;
	u64 vram_max;
	u64 vram_min;
	u64 gpus;
	u32 weight;
	u32 compute_max;
	u32 priority;
	cpumask_var_t cpus;
	nodemask_t mems;
	u32 placement;
	u32 exclusive;
	u32 preemptible;
	u32 vram_wait;
	u32 gpus_auto;
};

int vgpu_quota_init(struct vgpu_quota_set *q);
void vgpu_quota_destroy(struct vgpu_quota_set *q);
void vgpu_quota_copy(struct vgpu_quota_set *dst, const struct vgpu_quota_set *src);
u32 vgpu_quota_given(struct nlattr **attrs);
int vgpu_quota_apply(struct vgpu_quota_set *q, struct nlattr **attrs,
		     struct netlink_ext_ack *extack);
int vgpu_quota_check(const struct vgpu_quota_set *q, struct nlattr **attrs,
		     struct netlink_ext_ack *extack);
size_t vgpu_quota_msg_size(const struct vgpu_quota_set *q);
int vgpu_quota_put(struct sk_buff *skb, const struct vgpu_quota_set *q);
size_t vgpu_list_len(int nbits, const unsigned long *bits);
int vgpu_put_list(struct sk_buff *skb, int type, int nbits, const unsigned long *bits);

/**
 * vgpu_quota_uses_gpu() - whether a tenant with these quotas may use a GPU
 * @q: quotas
 * @index: GPU index
 *
 * Return: true when the gpus quota is unset or names @index.
 */
static inline bool vgpu_quota_uses_gpu(const struct vgpu_quota_set *q, u32 index)
{
	return !(q->set & VGPU_QUOTA_GPUS) || (q->gpus & BIT_ULL(index));
}

/**
 * vgpu_quota_weight() - effective compute weight
 * @q: quotas
 *
 * Return: the weight, VGPU_WEIGHT_DEFAULT when unset.
 */
static inline u32 vgpu_quota_weight(const struct vgpu_quota_set *q)
{
	return q->set & VGPU_QUOTA_WEIGHT ? q->weight : VGPU_WEIGHT_DEFAULT;
}

/**
 * vgpu_quota_preemptible() - whether a tenant may be preempted
 * @q: quotas
 *
 * Return: true when preemptible is set to 1.
 */
static inline bool vgpu_quota_preemptible(const struct vgpu_quota_set *q)
{
	return (q->set & VGPU_QUOTA_PREEMPTIBLE) && q->preemptible;
}

/**
 * vgpu_quota_vram_wait() - how long a charge may wait for preemption
 * @q: quotas
 *
 * Return: ms, 0 when unset.
 */
static inline u32 vgpu_quota_vram_wait(const struct vgpu_quota_set *q)
{
	return q->set & VGPU_QUOTA_VRAM_WAIT ? q->vram_wait : 0;
}

/**
 * vgpu_quota_priority() - effective priority class
 * @q: quotas
 *
 * Return: enum vgpu_priority, VGPU_PRIORITY_NORMAL when unset.
 */
static inline u32 vgpu_quota_priority(const struct vgpu_quota_set *q)
{
	return q->set & VGPU_QUOTA_PRIORITY ? q->priority : VGPU_PRIORITY_NORMAL;
}

#endif /* _VGPU_QUOTA_H */
