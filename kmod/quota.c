// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the quotas of a tenant.
 *
 * Requests are applied to a scratch copy of a tenant's quotas, the copy is
 * checked against the GPU inventory and the other tenants, and only then
 * copied over the tenant's: a request is applied whole or not at all.
 */
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/nodemask.h>
#include <net/netlink.h>

#include "gpu.h"
#include "quota.h"
#include "vgpu.h"

/**
 * vgpu_quota_init() - prepare empty quotas
 * @q: quotas to initialise
 *
 * Return: 0 or -ENOMEM. On success vgpu_quota_destroy() must follow.
 */
int vgpu_quota_init(struct vgpu_quota_set *q)
{
	q->set = 0;
	q->gpus_auto = 0;
	nodes_clear(q->mems);
	if (!zalloc_cpumask_var(&q->cpus, GFP_KERNEL))
		return -ENOMEM;
	return 0;
}

/**
 * vgpu_quota_destroy() - free what vgpu_quota_init() allocated
 * @q: quotas
 */
void vgpu_quota_destroy(struct vgpu_quota_set *q)
{
	free_cpumask_var(q->cpus);
}

/**
 * vgpu_quota_copy() - copy quotas; cannot fail
 * @dst: initialised quotas, overwritten
 * @src: quotas to copy
 */
void vgpu_quota_copy(struct vgpu_quota_set *dst, const struct vgpu_quota_set *src)
{
	dst->set = src->set;
	dst->vram_max = src->vram_max;
	dst->vram_min = src->vram_min;
	dst->gpus = src->gpus;
	dst->weight = src->weight;
	dst->compute_max = src->compute_max;
	dst->priority = src->priority;
	cpumask_copy(dst->cpus, src->cpus);
	dst->mems = src->mems;
	dst->placement = src->placement;
	dst->exclusive = src->exclusive;
	dst->preemptible = src->preemptible;
	dst->vram_wait = src->vram_wait;
	dst->gpus_auto = src->gpus_auto;
}

/**
 * vgpu_quota_given() - quotas present in a request
 * @attrs: parsed VGPU_A_TENANT_* attributes, at least up to
 *	VGPU_A_TENANT_EXCLUSIVE
 *
 * Return: bits of enum vgpu_quota.
 */
u32 vgpu_quota_given(struct nlattr **attrs)
{
	u32 given = 0;
	int b;

	/* The bit to attribute map is the spec's (nl_gen.c), not a copy. */
	for (b = 0; b < VGPU_QUOTA_NBITS; b++)
		if (attrs[vgpu_quota_attrs[b]])
			given |= BIT(b);
	return given;
}

/*
 * An empty list parses into an empty mask: treat it as garbage. A number
 * past the end of the mask (-ERANGE) is well formed but names a CPU or node
 * that cannot be online.
 */
static int vgpu_parse_cpus(struct cpumask *mask, const struct nlattr *attr,
			   struct netlink_ext_ack *extack)
{
	int err = cpulist_parse(nla_data(attr), mask);

	if (!err && cpumask_empty(mask))
		err = -EINVAL;
	if (err && err != -ERANGE) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "cpus is not a valid CPU list");
		return -EINVAL;
	}
	if (err || !cpumask_subset(mask, cpu_online_mask)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "cpus names a CPU that is not online");
		return -EINVAL;
	}
	return 0;
}

static int vgpu_parse_mems(nodemask_t *mask, const struct nlattr *attr,
			   struct netlink_ext_ack *extack)
{
	int err = nodelist_parse(nla_data(attr), *mask);
	int node;

	if (!err && nodes_empty(*mask))
		err = -EINVAL;
	if (err && err != -ERANGE) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "mems is not a valid node list");
		return -EINVAL;
	}
	if (!err) {
		for_each_node_mask(node, *mask) {
			if (!node_state(node, N_MEMORY)) {
				err = -EINVAL;
				break;
			}
		}
	}
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "mems names a node that is not online");
		return -EINVAL;
	}
	return 0;
}

/**
 * vgpu_quota_apply() - set the quotas a request names
 * @q: scratch quotas, changed even on error
 * @attrs: parsed VGPU_A_TENANT_* attributes, up to
 *	VGPU_A_TENANT_GPUS_AUTO, already checked against the policy
 * @extack: error report
 *
 * Checks what can be checked on each value alone (the CPU and node lists);
 * vgpu_quota_check() checks the result as a whole. gpus-auto is only
 * recorded: vgpu_gpus_choose() turns it into the gpus quota.
 *
 * Return: 0 or -EINVAL with @extack set.
 */
int vgpu_quota_apply(struct vgpu_quota_set *q, struct nlattr **attrs,
		     struct netlink_ext_ack *extack)
{
	int err;

	if (attrs[VGPU_A_TENANT_VRAM_MAX])
		q->vram_max = nla_get_u64(attrs[VGPU_A_TENANT_VRAM_MAX]);
	if (attrs[VGPU_A_TENANT_VRAM_MIN])
		q->vram_min = nla_get_u64(attrs[VGPU_A_TENANT_VRAM_MIN]);
	if (attrs[VGPU_A_TENANT_GPUS] && attrs[VGPU_A_TENANT_GPUS_AUTO]) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[VGPU_A_TENANT_GPUS_AUTO],
				    "give gpus or gpus-auto, not both");
		return -EINVAL;
	}
	/* A named list replaces an earlier choice; gpu_choice.c fills gpus. */
	if (attrs[VGPU_A_TENANT_GPUS]) {
		q->gpus = nla_get_u64(attrs[VGPU_A_TENANT_GPUS]);
		q->gpus_auto = 0;
	}
	if (attrs[VGPU_A_TENANT_GPUS_AUTO])
		q->gpus_auto = nla_get_u32(attrs[VGPU_A_TENANT_GPUS_AUTO]);
	if (attrs[VGPU_A_TENANT_WEIGHT])
		q->weight = nla_get_u32(attrs[VGPU_A_TENANT_WEIGHT]);
	if (attrs[VGPU_A_TENANT_COMPUTE_MAX])
		q->compute_max = nla_get_u32(attrs[VGPU_A_TENANT_COMPUTE_MAX]);
	if (attrs[VGPU_A_TENANT_PRIORITY])
		q->priority = nla_get_u32(attrs[VGPU_A_TENANT_PRIORITY]);
	if (attrs[VGPU_A_TENANT_PLACEMENT])
		q->placement = nla_get_u32(attrs[VGPU_A_TENANT_PLACEMENT]);
	if (attrs[VGPU_A_TENANT_EXCLUSIVE])
		q->exclusive = nla_get_u32(attrs[VGPU_A_TENANT_EXCLUSIVE]);
	if (attrs[VGPU_A_TENANT_PREEMPTIBLE])
		q->preemptible = nla_get_u32(attrs[VGPU_A_TENANT_PREEMPTIBLE]);
	if (attrs[VGPU_A_TENANT_VRAM_WAIT])
		q->vram_wait = nla_get_u32(attrs[VGPU_A_TENANT_VRAM_WAIT]);
	if (attrs[VGPU_A_TENANT_CPUS]) {
		err = vgpu_parse_cpus(q->cpus, attrs[VGPU_A_TENANT_CPUS], extack);
		if (err)
			return err;
	}
	if (attrs[VGPU_A_TENANT_MEMS]) {
		err = vgpu_parse_mems(&q->mems, attrs[VGPU_A_TENANT_MEMS], extack);
		if (err)
			return err;
	}
	q->set |= vgpu_quota_given(attrs);
	return 0;
}

/**
 * vgpu_quota_check() - check quotas against themselves and the inventory
 * @q: the quotas a tenant would have
 * @attrs: the request's attributes, to point errors at
 * @extack: error report
 *
 * vram-min must not exceed vram-max, and gpus must name at least one GPU
 * and only existing ones. What involves the other tenants (the sum of
 * vram-min on each GPU) is checked by vgpu_tenant_check_quota(), next to
 * the tenant table, which calls this first.
 *
 * Context: vgpu_lock held.
 * Return: 0, -EINVAL or -ENOENT with @extack set.
 */
int vgpu_quota_check(const struct vgpu_quota_set *q, struct nlattr **attrs,
		     struct netlink_ext_ack *extack)
{
	struct nlattr *min_attr = attrs[VGPU_A_TENANT_VRAM_MIN];

	lockdep_assert_held(&vgpu_lock);

	if ((q->set & VGPU_QUOTA_VRAM_MIN) && (q->set & VGPU_QUOTA_VRAM_MAX) &&
	    q->vram_min > q->vram_max) {
		NL_SET_ERR_MSG_ATTR(extack, min_attr ?: attrs[VGPU_A_TENANT_VRAM_MAX],
				    "vram-min is above vram-max");
		return -EINVAL;
	}

	/* A tenant that may use no GPU is spelt vram-max 0, not an empty mask. */
	if ((q->set & VGPU_QUOTA_GPUS) && !q->gpus) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[VGPU_A_TENANT_GPUS],
				    "gpus names no GPU");
		return -EINVAL;
	}

	if ((q->set & VGPU_QUOTA_GPUS) && (q->gpus & ~vgpu_gpu_present())) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[VGPU_A_TENANT_GPUS],
				    "gpus names an unknown GPU");
		return -ENOENT;
	}
	return 0;
}

/**
 * vgpu_list_len() - length of a bitmap as a list string ("0-3,8")
 * @nbits: bits in @bits
 * @bits: bitmap
 *
 * Return: bytes of the string, its terminating NUL included.
 */
size_t vgpu_list_len(int nbits, const unsigned long *bits)
{
	return snprintf(NULL, 0, "%*pbl", nbits, bits) + 1;
}

/**
 * vgpu_put_list() - add a bitmap to a message as a list string ("0-3,8")
 * @skb: message
 * @type: attribute type
 * @nbits: bits in @bits
 * @bits: bitmap
 *
 * Return: 0 or -EMSGSIZE.
 */
int vgpu_put_list(struct sk_buff *skb, int type, int nbits, const unsigned long *bits)
{
	size_t len = vgpu_list_len(nbits, bits);
	struct nlattr *attr;

	attr = nla_reserve(skb, type, len);
	if (!attr)
		return -EMSGSIZE;
	snprintf(nla_data(attr), len, "%*pbl", nbits, bits);
	return 0;
}

/**
 * vgpu_quota_msg_size() - room vgpu_quota_put() needs
 * @q: quotas
 *
 * Return: bytes of attributes.
 */
size_t vgpu_quota_msg_size(const struct vgpu_quota_set *q)
{
	size_t size = 3 * nla_total_size_64bit(sizeof(u64)) + 8 * nla_total_size(sizeof(u32));

	if (q->set & VGPU_QUOTA_CPUS)
		size += nla_total_size(vgpu_list_len(cpumask_pr_args(q->cpus)));
	if (q->set & VGPU_QUOTA_MEMS)
		size += nla_total_size(vgpu_list_len(nodemask_pr_args(&q->mems)));
	return size;
}

/**
 * vgpu_quota_put() - add the set quotas to a message
 * @skb: message
 * @q: quotas
 *
 * Unset quotas are left out; gpus-auto is added when the module chose the
 * gpus. CPU and node lists are written in list form ("0-3,8").
 *
 * Return: 0 or -EMSGSIZE.
 */
int vgpu_quota_put(struct sk_buff *skb, const struct vgpu_quota_set *q)
{
	if ((q->set & VGPU_QUOTA_VRAM_MAX) &&
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_VRAM_MAX, q->vram_max, VGPU_A_TENANT_PAD))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_VRAM_MIN) &&
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_VRAM_MIN, q->vram_min, VGPU_A_TENANT_PAD))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_GPUS) &&
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_GPUS, q->gpus, VGPU_A_TENANT_PAD))
		return -EMSGSIZE;
	if (q->gpus_auto && nla_put_u32(skb, VGPU_A_TENANT_GPUS_AUTO, q->gpus_auto))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_WEIGHT) &&
	    nla_put_u32(skb, VGPU_A_TENANT_WEIGHT, q->weight))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_COMPUTE_MAX) &&
	    nla_put_u32(skb, VGPU_A_TENANT_COMPUTE_MAX, q->compute_max))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_PRIORITY) &&
	    nla_put_u32(skb, VGPU_A_TENANT_PRIORITY, q->priority))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_PLACEMENT) &&
	    nla_put_u32(skb, VGPU_A_TENANT_PLACEMENT, q->placement))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_EXCLUSIVE) &&
	    nla_put_u32(skb, VGPU_A_TENANT_EXCLUSIVE, q->exclusive))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_PREEMPTIBLE) &&
	    nla_put_u32(skb, VGPU_A_TENANT_PREEMPTIBLE, q->preemptible))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_VRAM_WAIT) &&
	    nla_put_u32(skb, VGPU_A_TENANT_VRAM_WAIT, q->vram_wait))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_CPUS) &&
	    vgpu_put_list(skb, VGPU_A_TENANT_CPUS, cpumask_pr_args(q->cpus)))
		return -EMSGSIZE;
	if ((q->set & VGPU_QUOTA_MEMS) &&
	    vgpu_put_list(skb, VGPU_A_TENANT_MEMS, nodemask_pr_args(&q->mems)))
		return -EMSGSIZE;
	return 0;
}
