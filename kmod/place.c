// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: struct vgpu_place, a placement in force or prepared: its lifetime
 * and its netlink attributes.
 *
 * Apart from the placement policy (placement.c), which walks the tenant
 * table and notifies, so that the tenant table (which embeds a placement)
 * and tenant messages (which carry one) can use it from below.
 */
#include <linux/cpumask.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <net/netlink.h>

#include "placement.h"
#include "quota.h"
#include "tenant.h"

/**
 * vgpu_place_init() - prepare an unrestricted placement
 * @pl: placement
 *
 * Return: 0 or -ENOMEM. On success vgpu_place_destroy() must follow.
 */
int vgpu_place_init(struct vgpu_place *pl)
{
	pl->cpus_set = false;
	pl->mems_set = false;
	nodes_clear(pl->mems);
	nodes_clear(pl->nodes);
	return zalloc_cpumask_var(&pl->cpus, GFP_KERNEL) ? 0 : -ENOMEM;
}

/**
 * vgpu_place_destroy() - free what vgpu_place_init() allocated
 * @pl: placement
 */
void vgpu_place_destroy(struct vgpu_place *pl)
{
	free_cpumask_var(pl->cpus);
}

/**
 * vgpu_place_change_free() - free a prepared change
 * @c: change, or NULL
 */
void vgpu_place_change_free(struct vgpu_place_change *c)
{
	if (!c)
		return;
	vgpu_place_destroy(&c->pl);
	kfree(c->pids);
	kfree(c);
}

/**
 * vgpu_place_tenant_free() - free a tenant's placement and pending change
 * @t: tenant being freed
 */
void vgpu_place_tenant_free(struct vgpu_tenant *t)
{
	vgpu_place_change_free(t->pending);
	t->pending = NULL;
	vgpu_place_destroy(&t->place);
}

/* Room for a CPU or node list of @nbits bits: at most 4 characters a bit. */
static size_t vgpu_place_list_max(unsigned int nbits)
{
	return nla_total_size(4 * nbits + 8);
}

/**
 * vgpu_place_msg_size() - room vgpu_place_put() needs
 * @pl: placement, or NULL for the most any placement needs
 *
 * Return: bytes of attributes.
 */
size_t vgpu_place_msg_size(const struct vgpu_place *pl)
{
	size_t size = 0;

	if (!pl)
		return vgpu_place_list_max(nr_cpu_ids) + vgpu_place_list_max(nr_node_ids);
	if (pl->cpus_set)
		size += nla_total_size(vgpu_list_len(cpumask_pr_args(pl->cpus)));
	if (pl->mems_set)
		size += nla_total_size(vgpu_list_len(nodemask_pr_args(&pl->mems)));
	return size;
}

/**
 * vgpu_place_put() - add the effective CPUs and nodes to a message
 * @skb: message
 * @pl: placement
 * @cpus_type: attribute type of the CPU list
 * @mems_type: attribute type of the node list
 *
 * Each list ("0-3,8") is left out when unrestricted.
 *
 * Return: 0 or -EMSGSIZE.
 */
int vgpu_place_put(struct sk_buff *skb, const struct vgpu_place *pl, int cpus_type,
		   int mems_type)
{
	if (pl->cpus_set &&
	    vgpu_put_list(skb, cpus_type, cpumask_pr_args(pl->cpus)))
		return -EMSGSIZE;
	if (pl->mems_set &&
	    vgpu_put_list(skb, mems_type, nodemask_pr_args(&pl->mems)))
		return -EMSGSIZE;
	return 0;
}
