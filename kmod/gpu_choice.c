// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the automatic choice of a tenant's GPUs (gpus-auto).
 *
 * A tenant that asks for N GPUs gets N healthy GPUs that each have room
 * for its vram-min, the room of a GPU being its VRAM less the vram-min of
 * the other tenants that may use it: a choice never oversubscribes the
 * reservations. Among those, the host's gpu-policy orders the GPUs:
 * binpack takes the least room first (then the most weight placed there),
 * spread the most room first (then the least weight); ties go to the
 * lowest index. GPUs on the tenant's NUMA nodes (its mems, else the nodes
 * of its cpus) are preferred when enough of them fit, and for N >= 2 a set
 * whose GPUs are all NVLinked to each other is preferred to one that is
 * not. The chosen mask becomes the tenant's gpus quota and stays until
 * the admin changes it. A process may also ask for N GPUs when it
 * registers: the same choice among its tenant's GPUs, weighing the
 * processes already on each. See Documentation/gpus.md.
 */
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <net/netlink.h>

#include "acct.h"
#include "gpu.h"
#include "gpu_choice.h"
#include "proc.h"
#include "quota.h"
#include "tenant.h"
#include "vgpu.h"

/* How gpus-auto orders GPUs, enum vgpu_gpu_policy (vgpu_lock). */
static u32 vgpu_gpu_policy = VGPU_GPU_POLICY_BINPACK;

/**
 * struct vgpu_choice - the GPUs one request may get, ordered
 * @n: GPUs asked for
 * @policy: enum vgpu_gpu_policy
 * @ncand: candidates in @order
 * @order: indexes of the candidates (healthy, with room), best first
 * @room: per GPU index: VRAM not reserved by the other tenants
 * @load: per GPU index: sum of the weights of the other tenants using it
 */
struct vgpu_choice {
	u32 n;
	u32 policy;
	u32 ncand;
	u8 order[VGPU_GPU_MAX];
	u64 room[VGPU_GPU_MAX];
	u64 load[VGPU_GPU_MAX];
};

/**
 * vgpu_gpu_policy_get() - the host's gpu-policy
 *
 * Context: vgpu_lock held.
 * Return: enum vgpu_gpu_policy.
 */
u32 vgpu_gpu_policy_get(void)
{
	lockdep_assert_held(&vgpu_lock);
	return vgpu_gpu_policy;
}

/**
 * vgpu_gpu_policy_set() - change the host's gpu-policy (host-set)
 * @policy: enum vgpu_gpu_policy, checked by the netlink policy
 *
 * Applies to the choices that follow; made choices stay.
 *
 * Context: vgpu_lock held.
 */
void vgpu_gpu_policy_set(u32 policy)
{
	lockdep_assert_held(&vgpu_lock);
	vgpu_gpu_policy = policy;
}

/* Whether GPU @a goes before GPU @b under the policy. */
static bool vgpu_choice_before(const struct vgpu_choice *c, u32 a, u32 b)
{
	bool binpack = c->policy == VGPU_GPU_POLICY_BINPACK;

	if (c->room[a] != c->room[b])
		return (c->room[a] < c->room[b]) == binpack;
	if (c->load[a] != c->load[b])
		return (c->load[a] > c->load[b]) == binpack;
	return a < b;
}

/* Fills @c->load from every tenant but @self. */
static void vgpu_choice_loads(struct vgpu_choice *c, const struct vgpu_tenant *self)
{
	struct vgpu_tenant *t;
	unsigned long id = 0;
	struct vgpu_gpu *gpu;
	u32 i;

	for (; (t = vgpu_tenant_next(&id)); id++) {
		if (t == self)
			continue;
		vgpu_for_each_gpu(gpu, i) {
			if (vgpu_quota_uses_gpu(&t->quota, i))
				c->load[i] += vgpu_quota_weight(&t->quota);
		}
	}
}

/*
 * Fills @c with the healthy GPUs of @allowed that have room for @need
 * bytes (what the reservations leave: those of preemptible tenants too
 * when @all), in the policy's order (an insertion sort: at most
 * VGPU_GPU_MAX entries), @c->load being filled already. Returns the number of healthy
 * GPUs of @allowed, with or without room.
 */
static u32 vgpu_choice_fill(struct vgpu_choice *c, const struct vgpu_tenant *self,
			    u64 allowed, u64 need, bool all)
{
	struct vgpu_gpu *gpu;
	u32 i, k, healthy = 0;
	u64 reserved;

	vgpu_for_each_gpu(gpu, i) {
		if (gpu->state != VGPU_GPU_STATE_HEALTHY || !(allowed & BIT_ULL(i)))
			continue;
		healthy++;
		reserved = vgpu_tenant_reserved(i, self, all);
		c->room[i] = reserved < gpu->vram ? gpu->vram - reserved : 0;
		if (c->room[i] < need)
			continue;
		for (k = c->ncand; k > 0 && vgpu_choice_before(c, i, c->order[k - 1]); k--)
			c->order[k] = c->order[k - 1];
		c->order[k] = i;
		c->ncand++;
	}
	return healthy;
}

/*
 * The first @c->n candidates of @pool in order, after trying for a set
 * NVLinked all to all: from each candidate in turn, add the next ones in
 * order that are linked to every GPU taken. Returns the mask, 0 when
 * @pool has too few.
 */
static u64 vgpu_choice_pick(const struct vgpu_choice *c, u64 pool)
{
	u32 s, k, i, got;
	u64 set;

	if (hweight64(pool) < c->n)
		return 0;
	for (s = 0; c->n >= 2 && s < c->ncand; s++) {
		if (!(pool & BIT_ULL(c->order[s])))
			continue;
		set = BIT_ULL(c->order[s]);
		for (k = 0, got = 1; k < c->ncand && got < c->n; k++) {
			i = c->order[k];
			if ((pool & ~set & BIT_ULL(i)) &&
			    (vgpu_gpu_get(i)->nvlink & set) == set) {
				set |= BIT_ULL(i);
				got++;
			}
		}
		if (got == c->n)
			return set;
	}
	set = 0;
	for (k = 0, got = 0; k < c->ncand && got < c->n; k++) {
		if (pool & BIT_ULL(c->order[k])) {
			set |= BIT_ULL(c->order[k]);
			got++;
		}
	}
	return set;
}

/* The tenant's NUMA nodes: its mems, else the nodes of its cpus. */
static void vgpu_choice_nodes(const struct vgpu_quota_set *q, nodemask_t *nodes)
{
	int cpu;

	nodes_clear(*nodes);
	if (q->set & VGPU_QUOTA_MEMS) {
		*nodes = q->mems;
		return;
	}
	if (q->set & VGPU_QUOTA_CPUS)
		for_each_cpu(cpu, q->cpus)
			node_set(cpu_to_node(cpu), *nodes);
}

/*
 * Orders the healthy GPUs of @allowed with room for @q's vram-min (@c->n,
 * @c->policy and @c->load set) and picks @c->n of them, those on @q's
 * NUMA nodes first. Returns 0 with *@set, -ENOSPC with @extack set, or
 * -ENODEV when fewer than @c->n are healthy and allowed (the caller says).
 */
static int vgpu_choice_make(struct vgpu_choice *c, const struct vgpu_quota_set *q,
			    const struct vgpu_tenant *self, u64 allowed, u64 *set,
			    struct nlattr *attr, struct netlink_ext_ack *extack)
{
	/*
	 * A tenant whose reservation is a promise needs a GPU that can keep
	 * it; a preemptible one may go anywhere, ordered by what all the
	 * reservations leave.
	 */
	bool soft = vgpu_quota_preemptible(q);
	u64 need = q->set & VGPU_QUOTA_VRAM_MIN && !soft ? q->vram_min : 0;
	u64 all = 0, local = 0;
	struct vgpu_gpu *gpu;
	nodemask_t nodes;
	u32 k;

	*set = 0;
	if (vgpu_choice_fill(c, self, allowed, need, soft) < c->n)
		return -ENODEV;
	vgpu_choice_nodes(q, &nodes);
	for (k = 0; k < c->ncand; k++) {
		gpu = vgpu_gpu_get(c->order[k]);
		all |= BIT_ULL(gpu->index);
		if (gpu->numa >= 0 && node_isset(gpu->numa, nodes))
			local |= BIT_ULL(gpu->index);
	}
	if (local)
		*set = vgpu_choice_pick(c, local);
	if (!*set)
		*set = vgpu_choice_pick(c, all);
	if (!*set) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "gpus-auto: too few healthy GPUs have room for the tenant's vram-min");
		return -ENOSPC;
	}
	return 0;
}

/* Chooses q->gpus_auto GPUs into q->gpus; 0 or -ENOSPC/-ENOMEM. */
static int vgpu_gpus_choose(struct vgpu_quota_set *q, const struct vgpu_tenant *self,
			    struct nlattr *attr, struct netlink_ext_ack *extack)
{
	struct vgpu_choice *c;
	u64 set;
	int err;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->n = q->gpus_auto;
	c->policy = vgpu_gpu_policy;
	vgpu_choice_loads(c, self);
	err = vgpu_choice_make(c, q, self, ~0ULL, &set, attr, extack);
	if (err == -ENODEV) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "gpus-auto asks for more GPUs than the inventory has healthy");
		err = -ENOSPC;
	} else if (!err) {
		q->gpus = set;
		q->set |= VGPU_QUOTA_GPUS;
	}
	kfree(c);
	return err;
}

/**
 * vgpu_gpus_choose_proc() - choose the GPUs of a registering process
 * @t: the process's tenant
 * @n: GPUs asked for
 * @gpus: the chosen mask
 * @attr: the request's gpus-auto, to point errors at
 * @extack: error report
 *
 * Chooses @n of the healthy GPUs the tenant may use, as for gpus-auto,
 * except that the weight placed on a GPU is the number of live processes
 * that may use it (so spread puts a tenant's processes apart, binpack
 * together). The tenant's vram-min is already reserved on each of its
 * GPUs: the choice reserves nothing more and oversubscribes nothing.
 *
 * Context: vgpu_lock held.
 * Return: 0, -ENOSPC or -ENOMEM with @extack set.
 */
int vgpu_gpus_choose_proc(const struct vgpu_tenant *t, u32 n, u64 *gpus,
			  struct nlattr *attr, struct netlink_ext_ack *extack)
{
	struct vgpu_choice *c;
	int err;

	lockdep_assert_held(&vgpu_lock);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->n = n;
	c->policy = vgpu_gpu_policy;
	vgpu_acct_gpu_users(c->load);
	err = vgpu_choice_make(c, &t->quota, t,
			       t->quota.set & VGPU_QUOTA_GPUS ? t->quota.gpus : ~0ULL,
			       gpus, attr, extack);
	if (err == -ENODEV) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "gpus-auto asks for more GPUs than the tenant has healthy and allowed");
		err = -ENOSPC;
	}
	kfree(c);
	return err;
}

/**
 * vgpu_gpus_prepare() - choose or check the GPUs of a tenant's new quotas
 * @q: the quotas the tenant would have, after vgpu_quota_apply()
 * @self: the tenant being changed, NULL for a new one
 * @attrs: the request's attributes
 * @extack: error report
 *
 * With gpus-auto in the request, chooses the GPUs into @q's gpus quota.
 * With gpus, refuses a list that adds a GPU that is not healthy (GPUs the
 * tenant could already use may stay). vgpu_tenant_check_quota() then
 * checks the reservations as for any gpus quota.
 *
 * Context: vgpu_lock held.
 * Return: 0, -EBUSY, -ENOSPC or -ENOMEM with @extack set.
 */
int vgpu_gpus_prepare(struct vgpu_quota_set *q, const struct vgpu_tenant *self,
		      struct nlattr **attrs, struct netlink_ext_ack *extack)
{
	struct nlattr *auto_attr = attrs[VGPU_A_TENANT_GPUS_AUTO];
	struct vgpu_gpu *gpu;
	u64 had = 0;
	u32 i;

	lockdep_assert_held(&vgpu_lock);
	if (auto_attr)
		return vgpu_gpus_choose(q, self, auto_attr, extack);
	if (!attrs[VGPU_A_TENANT_GPUS])
		return 0;
	if (self)
		had = self->quota.set & VGPU_QUOTA_GPUS ? self->quota.gpus : vgpu_gpu_present();
	vgpu_for_each_gpu(gpu, i) {
		if ((q->gpus & ~had & BIT_ULL(i)) && gpu->state != VGPU_GPU_STATE_HEALTHY) {
			NL_SET_ERR_MSG_ATTR(extack, attrs[VGPU_A_TENANT_GPUS],
					    "gpus names a GPU that is not healthy (gpu show says why)");
			return -EBUSY;
		}
	}
	return 0;
}

/**
 * vgpu_gpu_set_nvlink() - set a GPU's NVLink peers, keeping links symmetric
 * @gpu: GPU of the inventory
 * @peers: mask of present GPU indexes, without @gpu's own
 *
 * Every GPU in @peers gains a link to @gpu, every other loses it.
 *
 * Context: vgpu_lock held.
 */
void vgpu_gpu_set_nvlink(struct vgpu_gpu *gpu, u64 peers)
{
	struct vgpu_gpu *peer;
	u32 i;

	lockdep_assert_held(&vgpu_lock);
	gpu->nvlink = peers;
	vgpu_for_each_gpu(peer, i) {
		if (peers & BIT_ULL(i))
			peer->nvlink |= BIT_ULL(gpu->index);
		else
			peer->nvlink &= ~BIT_ULL(gpu->index);
	}
}
