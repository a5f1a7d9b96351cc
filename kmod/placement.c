// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: CPU and NUMA placement of a tenant's processes (issue #6).
 *
 * The module keeps each tenant's policy (placement manual or auto, and
 * exclusive) and derives from it the placement in force, the effective
 * CPUs and nodes:
 *
 * - manual: the tenant's cpus and mems quotas, each unset meaning every
 *   CPU or node;
 * - auto: the NUMA nodes of the GPUs the tenant may use, their online CPUs
 *   and those of them with memory; auto together with cpus or mems is
 *   refused;
 * - exclusive: no two exclusive tenants share a CPU. A manual one's cpus
 *   must not overlap another's; an auto one takes the CPUs local to its
 *   GPUs that no other exclusive tenant has.
 *
 * A change is derived first (vgpu_place_prepare*(): the next placement of
 * each tenant concerned is kept in its @pending, with room for a reference
 * to each of its registered processes), so that a request that fails
 * changes nothing; vgpu_place_commit*() then puts it in force: it bumps
 * placement_seq in the pages of the tenant's registered processes and pins
 * every thread of each to the effective CPUs. Auto placements are derived
 * again when the GPU inventory changes (vgpu_place_prepare_gpus()); a
 * change that would leave an auto tenant without a node is refused.
 *
 * The pinning itself is in place_proc.c; struct vgpu_place's lifetime and
 * its netlink attributes are in place.c. See Documentation/placement.md.
 */
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/lockdep.h>
#include <linux/nodemask.h>
#include <linux/pid.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/topology.h>
#include <net/netlink.h>

#include "acct.h"
#include "gpu.h"
#include "placement.h"
#include "proc.h"
#include "quota.h"
#include "tenant.h"
#include "vgpu.h"

/* The quotas a placement is derived from. */
#define VGPU_PLACE_INPUTS	(VGPU_QUOTA_GPUS | VGPU_QUOTA_CPUS | VGPU_QUOTA_MEMS | \
				 VGPU_QUOTA_PLACEMENT | VGPU_QUOTA_EXCLUSIVE)

/* Why a placement cannot be derived. */
enum vgpu_place_why {
	VGPU_PLACE_OK,
	VGPU_PLACE_AUTO_LISTS,		/* auto with cpus or mems */
	VGPU_PLACE_NO_NODE,		/* auto, no GPU with a node */
	VGPU_PLACE_EXCL_NO_CPUS,	/* exclusive, manual, no cpus */
	VGPU_PLACE_OVERLAP,		/* exclusive cpus overlap */
	VGPU_PLACE_NO_FREE,		/* exclusive auto, no CPU left */
};

static struct vgpu_place_change *vgpu_place_change_alloc(struct vgpu_tenant *t)
{
	struct vgpu_place_change *c;
	unsigned int n;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return NULL;
	if (vgpu_place_init(&c->pl))
		goto err_free;
	spin_lock(&vgpu_acct_lock);
	n = t->bucket.nprocs;
	spin_unlock(&vgpu_acct_lock);
	if (n) {
		c->pids = kcalloc(n, sizeof(*c->pids), GFP_KERNEL);
		if (!c->pids)
			goto err_destroy;
		c->npids = n;
	}
	return c;

err_destroy:
	vgpu_place_destroy(&c->pl);
err_free:
	kfree(c);
	return NULL;
}

static bool vgpu_place_auto(const struct vgpu_quota_set *q)
{
	return (q->set & VGPU_QUOTA_PLACEMENT) && q->placement == VGPU_PLACEMENT_AUTO;
}

static bool vgpu_place_exclusive(const struct vgpu_quota_set *q)
{
	return (q->set & VGPU_QUOTA_EXCLUSIVE) && q->exclusive;
}

static bool vgpu_place_cpus_equal(const struct vgpu_place *a, const struct vgpu_place *b)
{
	return a->cpus_set == b->cpus_set && (!a->cpus_set || cpumask_equal(a->cpus, b->cpus));
}

static bool vgpu_place_mems_equal(const struct vgpu_place *a, const struct vgpu_place *b)
{
	return a->mems_set == b->mems_set && (!a->mems_set || nodes_equal(a->mems, b->mems));
}

/* The CPUs of the exclusive tenants other than @self, pending changes included. */
static void vgpu_place_taken(const struct vgpu_tenant *self, struct cpumask *taken)
{
	const struct vgpu_place *pl;
	struct vgpu_tenant *t;
	unsigned long id;

	cpumask_clear(taken);
	for (id = 0; (t = vgpu_tenant_next(&id)); id++) {
		if (t == self || !vgpu_place_exclusive(&t->quota))
			continue;
		pl = t->pending ? &t->pending->pl : &t->place;
		if (pl->cpus_set)
			cpumask_or(taken, taken, pl->cpus);
	}
}

/*
 * The NUMA nodes of the GPUs a tenant with quotas @q may use, among those
 * in @present; @added stands for its index when not yet in the inventory.
 */
static void vgpu_place_gpu_nodes(const struct vgpu_quota_set *q, u64 present,
				 const struct vgpu_gpu *added, nodemask_t *nodes)
{
	const struct vgpu_gpu *gpu;
	u32 i;

	nodes_clear(*nodes);
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		if (!(present & BIT_ULL(i)) || !vgpu_quota_uses_gpu(q, i))
			continue;
		gpu = added && added->index == i ? added : vgpu_gpu_get(i);
		if (gpu && gpu->numa >= 0 && gpu->numa < MAX_NUMNODES)
			node_set(gpu->numa, *nodes);
	}
}

/*
 * Derives into @pl the placement of a tenant @self with quotas @q, given
 * the GPUs in @present (see vgpu_place_gpu_nodes()) and the other exclusive
 * tenants. @scratch is a CPU mask to work in.
 */
static enum vgpu_place_why vgpu_place_derive(struct vgpu_place *pl,
					     const struct vgpu_quota_set *q,
					     const struct vgpu_tenant *self, u64 present,
					     const struct vgpu_gpu *added,
					     struct cpumask *scratch)
{
	bool exclusive = vgpu_place_exclusive(q);
	int node;

	pl->cpus_set = false;
	pl->mems_set = false;
	cpumask_clear(pl->cpus);
	nodes_clear(pl->mems);
	nodes_clear(pl->nodes);

	if (!vgpu_place_auto(q)) {
		if (exclusive && !(q->set & VGPU_QUOTA_CPUS))
			return VGPU_PLACE_EXCL_NO_CPUS;
		if (q->set & VGPU_QUOTA_CPUS) {
			pl->cpus_set = true;
			cpumask_copy(pl->cpus, q->cpus);
		}
		if (q->set & VGPU_QUOTA_MEMS) {
			pl->mems_set = true;
			pl->mems = q->mems;
		}
		if (exclusive) {
			vgpu_place_taken(self, scratch);
			if (cpumask_intersects(pl->cpus, scratch))
				return VGPU_PLACE_OVERLAP;
		}
		return VGPU_PLACE_OK;
	}

	if (q->set & (VGPU_QUOTA_CPUS | VGPU_QUOTA_MEMS))
		return VGPU_PLACE_AUTO_LISTS;
	vgpu_place_gpu_nodes(q, present, added, &pl->nodes);
	if (nodes_empty(pl->nodes))
		return VGPU_PLACE_NO_NODE;
	for_each_node_mask(node, pl->nodes) {
		cpumask_or(pl->cpus, pl->cpus, cpumask_of_node(node));
		if (node_state(node, N_MEMORY))
			node_set(node, pl->mems);
	}
	cpumask_and(pl->cpus, pl->cpus, cpu_online_mask);
	if (exclusive) {
		vgpu_place_taken(self, scratch);
		cpumask_andnot(pl->cpus, pl->cpus, scratch);
		if (cpumask_empty(pl->cpus))
			return VGPU_PLACE_NO_FREE;
	}
	/* Nodes without CPUs (or memory) restrict nothing of that kind. */
	pl->cpus_set = !cpumask_empty(pl->cpus);
	pl->mems_set = !nodes_empty(pl->mems);
	return VGPU_PLACE_OK;
}

/* The errno and message of a tenant-new or tenant-set that cannot be placed. */
static int vgpu_place_report(enum vgpu_place_why why, struct nlattr **attrs,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *placement = attrs[VGPU_A_TENANT_PLACEMENT];
	struct nlattr *exclusive = attrs[VGPU_A_TENANT_EXCLUSIVE];

	switch (why) {
	case VGPU_PLACE_AUTO_LISTS:
		NL_SET_ERR_MSG_ATTR(extack, placement ?: attrs[VGPU_A_TENANT_CPUS] ?:
				    attrs[VGPU_A_TENANT_MEMS],
				    "placement auto replaces cpus and mems");
		return -EINVAL;
	case VGPU_PLACE_NO_NODE:
		NL_SET_ERR_MSG_ATTR(extack, attrs[VGPU_A_TENANT_GPUS] ?: placement,
				    "auto placement needs GPUs with a NUMA node");
		return -EINVAL;
	case VGPU_PLACE_EXCL_NO_CPUS:
		NL_SET_ERR_MSG_ATTR(extack, exclusive ?: placement,
				    "exclusive placement needs cpus or placement auto");
		return -EINVAL;
	case VGPU_PLACE_OVERLAP:
		NL_SET_ERR_MSG_ATTR(extack, attrs[VGPU_A_TENANT_CPUS] ?: exclusive,
				    "cpus overlap another tenant's exclusive placement");
		return -EBUSY;
	case VGPU_PLACE_NO_FREE:
		NL_SET_ERR_MSG_ATTR(extack, exclusive ?: placement ?: attrs[VGPU_A_TENANT_GPUS],
				    "no free CPUs near the tenant's GPUs for an exclusive placement");
		return -ENOSPC;
	default:
		return 0;
	}
}

/**
 * vgpu_place_prepare() - derive the placement a tenant would have
 * @t: the tenant, in the table or about to be inserted (id 0), without a
 *	pending change
 * @q: the quotas it would have
 * @attrs: the request's attributes: what it sets or clears, and where to
 *	point errors
 * @extack: error report
 *
 * On success the placement is kept in @t until vgpu_place_commit() puts it
 * in force (or vgpu_place_abort(), or freeing @t, drops it). A request to
 * a tenant in the table that sets and clears none of the quotas placement
 * depends on keeps the placement as it is (an exclusive auto tenant does
 * not take CPUs freed since, say, on a vram-max change).
 *
 * Context: vgpu_lock held.
 * Return: 0, -EINVAL, -EBUSY or -ENOSPC with @extack set, or -ENOMEM.
 */
int vgpu_place_prepare(struct vgpu_tenant *t, const struct vgpu_quota_set *q,
		       struct nlattr **attrs, struct netlink_ext_ack *extack)
{
	struct nlattr *clear = attrs[VGPU_A_TENANT_CLEAR];
	u32 touched = vgpu_quota_given(attrs) | (clear ? nla_get_u32(clear) : 0);
	struct vgpu_place_change *c;
	enum vgpu_place_why why;
	cpumask_var_t scratch;

	lockdep_assert_held(&vgpu_lock);
	if (WARN_ON(t->pending))
		return -EINVAL;
	if (t->id && !(touched & VGPU_PLACE_INPUTS))
		return 0;
	if (!alloc_cpumask_var(&scratch, GFP_KERNEL))
		return -ENOMEM;
	c = vgpu_place_change_alloc(t);
	if (!c) {
		free_cpumask_var(scratch);
		return -ENOMEM;
	}
	why = vgpu_place_derive(&c->pl, q, t, vgpu_gpu_present(), NULL, scratch);
	free_cpumask_var(scratch);
	if (why) {
		vgpu_place_change_free(c);
		return vgpu_place_report(why, attrs, extack);
	}
	t->pending = c;
	return 0;
}

/**
 * vgpu_place_prepare_gpus() - derive auto placements for a new inventory
 * @present: the GPUs the inventory would have
 * @added: the GPU being added, not yet in the inventory, or NULL
 * @extack: error report
 *
 * Every tenant with auto placement whose GPUs' nodes would change gets its
 * next placement derived, in id order, each seeing the exclusive CPUs the
 * others have or are about to have. On error nothing is kept.
 *
 * Context: vgpu_lock held.
 * Return: 0, -EBUSY when a tenant would be left without a node, -ENOSPC
 * when an exclusive one would be left without a free CPU, with @extack
 * set, or -ENOMEM.
 */
int vgpu_place_prepare_gpus(u64 present, const struct vgpu_gpu *added,
			    struct netlink_ext_ack *extack)
{
	struct vgpu_place_change *c;
	enum vgpu_place_why why = VGPU_PLACE_OK;
	struct vgpu_tenant *t;
	cpumask_var_t scratch;
	unsigned long id;
	nodemask_t nodes;
	int err = 0;

	lockdep_assert_held(&vgpu_lock);
	if (!alloc_cpumask_var(&scratch, GFP_KERNEL))
		return -ENOMEM;
	for (id = 0; (t = vgpu_tenant_next(&id)); id++) {
		if (!vgpu_place_auto(&t->quota))
			continue;
		vgpu_place_gpu_nodes(&t->quota, present, added, &nodes);
		if (nodes_equal(nodes, t->place.nodes))
			continue;
		c = vgpu_place_change_alloc(t);
		if (!c) {
			err = -ENOMEM;
			break;
		}
		why = vgpu_place_derive(&c->pl, &t->quota, t, present, added, scratch);
		if (why) {
			vgpu_place_change_free(c);
			break;
		}
		t->pending = c;
	}
	free_cpumask_var(scratch);

	if (why == VGPU_PLACE_NO_NODE) {
		NL_SET_ERR_MSG(extack,
			       "a tenant with auto placement would have no GPU with a NUMA node");
		err = -EBUSY;
	} else if (why == VGPU_PLACE_NO_FREE) {
		NL_SET_ERR_MSG(extack,
			       "no free CPUs near a tenant's GPUs for its exclusive placement");
		err = -ENOSPC;
	} else if (why) {
		err = -EINVAL;
	}
	if (err)
		vgpu_place_abort();
	return err;
}

/**
 * vgpu_place_abort() - drop every prepared change
 *
 * Context: vgpu_lock held.
 */
void vgpu_place_abort(void)
{
	struct vgpu_tenant *t;
	unsigned long id;

	lockdep_assert_held(&vgpu_lock);
	for (id = 0; (t = vgpu_tenant_next(&id)); id++) {
		vgpu_place_change_free(t->pending);
		t->pending = NULL;
	}
}

/* The CPUs a tenant's processes are pinned to: every CPU when unrestricted. */
static const struct cpumask *vgpu_place_pin_mask(const struct vgpu_place *pl)
{
	return pl->cpus_set ? pl->cpus : cpu_possible_mask;
}

/*
 * Puts a tenant's prepared change in force. Returns whether its effective
 * placement changed.
 */
static bool vgpu_place_apply(struct vgpu_tenant *t)
{
	struct vgpu_place_change *c = t->pending;
	struct vgpu_dev_page *page;
	bool cpus_changed, changed;
	unsigned int n = 0, i;
	struct vgpu_proc *p;

	if (!c)
		return false;
	t->pending = NULL;
	cpus_changed = !vgpu_place_cpus_equal(&t->place, &c->pl);
	changed = cpus_changed || !vgpu_place_mems_equal(&t->place, &c->pl);

	spin_lock(&vgpu_acct_lock);
	t->place.cpus_set = c->pl.cpus_set;
	t->place.mems_set = c->pl.mems_set;
	cpumask_copy(t->place.cpus, c->pl.cpus);
	t->place.mems = c->pl.mems;
	t->place.nodes = c->pl.nodes;
	if (changed) {
		list_for_each_entry(p, &t->bucket.procs, bnode) {
			page = p->df->page;
			WRITE_ONCE(page->placement_seq, READ_ONCE(page->placement_seq) + 1);
			if (cpus_changed && n < c->npids)
				c->pids[n++] = get_pid(p->pid);
		}
	}
	spin_unlock(&vgpu_acct_lock);

	for (i = 0; i < n; i++) {
		vgpu_place_pin(c->pids[i], vgpu_place_pin_mask(&t->place), t->cgrp);
		put_pid(c->pids[i]);
	}
	vgpu_place_change_free(c);
	return changed;
}

/**
 * vgpu_place_commit() - put a tenant's prepared placement in force
 * @t: tenant in the table, after vgpu_place_prepare() succeeded
 *
 * When the effective placement changed, the tenant's registered processes
 * see placement_seq move, and when its CPUs changed, every thread of
 * theirs is pinned to them (to every possible CPU when no longer
 * restricted). The caller sends the tenant's notification.
 *
 * Context: vgpu_lock held; may sleep.
 */
void vgpu_place_commit(struct vgpu_tenant *t)
{
	lockdep_assert_held(&vgpu_lock);
	vgpu_place_apply(t);
}

/**
 * vgpu_place_commit_gpus() - put the changes of vgpu_place_prepare_gpus()
 *	in force
 *
 * As vgpu_place_commit() for every tenant with a prepared change; those
 * whose placement changed are notified (tenant-change-ntf).
 *
 * Context: vgpu_lock held, the inventory changed; may sleep.
 */
void vgpu_place_commit_gpus(void)
{
	struct vgpu_tenant *t;
	unsigned long id;

	lockdep_assert_held(&vgpu_lock);
	for (id = 0; (t = vgpu_tenant_next(&id)); id++) {
		if (vgpu_place_apply(t))
			vgpu_tenant_notify(t, VGPU_CMD_TENANT_CHANGE_NTF);
	}
}
