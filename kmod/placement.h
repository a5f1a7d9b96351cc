/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: CPU and NUMA placement of a tenant's processes (place.c: struct
 * vgpu_place; placement.c: the policy; place_proc.c: the pinning).
 * See Documentation/placement.md.
 */
#ifndef _VGPU_PLACEMENT_H
#define _VGPU_PLACEMENT_H

#include <linux/cpumask.h>
#include <linux/nodemask.h>
#include <linux/types.h>

struct cgroup;
struct netlink_ext_ack;
struct nlattr;
struct pid;
struct sk_buff;
struct vgpu_dev_placement;
struct vgpu_gpu;
struct vgpu_proc;
struct vgpu_quota_set;
struct vgpu_tenant;

/**
 * struct vgpu_place - the placement in force for a tenant's processes
 * @cpus_set: @cpus restricts the processes (else every CPU)
 * @mems_set: @mems restricts their memory (else every node)
 * @cpus: the CPUs, meaningful when @cpus_set
 * @mems: the nodes, meaningful when @mems_set
 * @nodes: auto placement: the NUMA nodes of the tenant's GPUs it was
 *	derived from (empty for manual placement)
 *
 * A tenant's is written under vgpu_lock and vgpu_acct_lock together and
 * may be read under either.
 */
struct vgpu_place {
	bool cpus_set;
	bool mems_set;
	cpumask_var_t cpus;
	nodemask_t mems;
	nodemask_t nodes;
};

/**
 * struct vgpu_place_change - a tenant's next placement, prepared
 * @pl: the placement
 * @pids: room for a reference to each process registered to the tenant
 *	(none can register while vgpu_lock is held)
 * @npids: room in @pids
 */
struct vgpu_place_change {
	struct vgpu_place pl;
	struct pid **pids;
	unsigned int npids;
};

/* place.c */
int vgpu_place_init(struct vgpu_place *pl);
void vgpu_place_destroy(struct vgpu_place *pl);
void vgpu_place_change_free(struct vgpu_place_change *c);
void vgpu_place_tenant_free(struct vgpu_tenant *t);
size_t vgpu_place_msg_size(const struct vgpu_place *pl);
int vgpu_place_put(struct sk_buff *skb, const struct vgpu_place *pl, int cpus_type,
		   int mems_type);

/* placement.c */
int vgpu_place_prepare(struct vgpu_tenant *t, const struct vgpu_quota_set *q,
		       struct nlattr **attrs, struct netlink_ext_ack *extack);
int vgpu_place_prepare_gpus(u64 present, const struct vgpu_gpu *added,
			    struct netlink_ext_ack *extack);
void vgpu_place_commit(struct vgpu_tenant *t);
void vgpu_place_commit_gpus(void);
void vgpu_place_abort(void);

/* place_proc.c */
void vgpu_place_pin(struct pid *pid, const struct cpumask *mask, struct cgroup *cgrp);
void vgpu_place_pin_proc(struct vgpu_proc *p);
void vgpu_place_get(const struct vgpu_proc *p, struct vgpu_dev_placement *out);

#endif /* _VGPU_PLACEMENT_H */
