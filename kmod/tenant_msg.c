// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: tenant messages: building one (tenant-get replies, dumps) and
 * notifying the monitor group of a tenant's change; likewise the final
 * record of a deleted tenant (tenant-final-get, tenant-del-ntf).
 *
 * Below the handlers, so that domain code (placement.c) notifies without
 * calling up into nl_tenant.c; dev.c's ioctls notify through it too.
 */
#include <linux/cgroup.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "final.h"
#include "tenant.h"
#include "usage.h"
#include "vgpu.h"

/**
 * vgpu_tenant_msg_size() - room a tenant message needs at most
 * @t: tenant
 *
 * Return: bytes of payload, for genlmsg_new().
 */
size_t vgpu_tenant_msg_size(const struct vgpu_tenant *t)
{
	return nla_total_size(VGPU_NAME_LEN_MAX + 1) +	/* name */
	       nla_total_size(sizeof(u32)) +		/* id */
	       nla_total_size(PATH_MAX) +		/* cgroup */
	       nla_total_size_64bit(sizeof(u64)) +	/* cgroup-id */
	       nla_total_size(0) +			/* cgroup-removed */
	       nla_total_size(0) +			/* ephemeral */
	       nla_total_size_64bit(sizeof(u64)) +	/* created */
	       nla_total_size(sizeof(u32)) +		/* state */
	       2 * nla_total_size_64bit(sizeof(u64)) + /* host-bytes, suspended-ns */
	       nla_total_size(0) +			/* resume-wait */
	       nla_total_size(VGPU_REASON_LEN_MAX + 1) + /* state-reason */
	       vgpu_labels_msg_size(&t->labels) +
	       vgpu_quota_msg_size(&t->quota) +
	       vgpu_place_msg_size(&t->place) +
	       vgpu_usage_msg_size();
}

/* The tenant's suspension attributes (tenant_state.c). */
static int vgpu_tenant_state_put(struct sk_buff *skb, struct vgpu_tenant *t)
{
	u64 parked;

	spin_lock(&vgpu_acct_lock);
	parked = vgpu_acct_parked(&t->bucket);
	spin_unlock(&vgpu_acct_lock);
	if (nla_put_u32(skb, VGPU_A_TENANT_STATE, t->state) ||
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_HOST_BYTES, parked, VGPU_A_TENANT_PAD) ||
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_SUSPENDED_NS, vgpu_tenant_suspended_ns(t, ktime_get_ns()),
			      VGPU_A_TENANT_PAD) ||
	    (t->resume_wait && nla_put_flag(skb, VGPU_A_TENANT_RESUME_WAIT)) ||
	    (t->state_reason[0] &&
	     nla_put_string(skb, VGPU_A_TENANT_STATE_REASON, t->state_reason)))
		return -EMSGSIZE;
	return 0;
}

/**
 * vgpu_tenant_fill() - write one tenant message
 * @skb: message
 * @t: tenant
 * @ns: cgroup namespace the cgroup path is written relative to
 * @portid: netlink port of the reader, 0 for a notification
 * @seq: sequence number of the request
 * @flags: netlink flags (NLM_F_MULTI in dumps)
 * @cmd: VGPU_CMD_TENANT_GET, or a VGPU_CMD_TENANT_*_NTF
 * @cb: the dump in progress, or NULL
 *
 * Context: vgpu_lock held; may sleep (allocates).
 * Return: 0, -ENOMEM, -ENAMETOOLONG or -EMSGSIZE (nothing written).
 */
int vgpu_tenant_fill(struct sk_buff *skb, struct vgpu_tenant *t,
		     struct cgroup_namespace *ns, u32 portid, u32 seq, int flags,
		     u8 cmd, struct netlink_callback *cb)
{
	char *path;
	void *hdr;
	int err;

	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	err = cgroup_path_ns(t->cgrp, path, PATH_MAX, ns);
	if (err < 0)
		goto out_free;
	if (err >= PATH_MAX) {
		err = -ENAMETOOLONG;
		goto out_free;
	}

	err = -EMSGSIZE;
	hdr = genlmsg_put(skb, portid, seq, &vgpu_nl_family, flags, cmd);
	if (!hdr)
		goto out_free;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	if (nla_put_string(skb, VGPU_A_TENANT_NAME, t->name) ||
	    nla_put_u32(skb, VGPU_A_TENANT_ID, t->id) ||
	    nla_put_string(skb, VGPU_A_TENANT_CGROUP, path) ||
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_CGROUP_ID, t->cgroup_id, VGPU_A_TENANT_PAD) ||
	    (vgpu_tenant_cgroup_removed(t) && nla_put_flag(skb, VGPU_A_TENANT_CGROUP_REMOVED)) ||
	    (t->ephemeral && nla_put_flag(skb, VGPU_A_TENANT_EPHEMERAL)) ||
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_CREATED, t->created, VGPU_A_TENANT_PAD) ||
	    vgpu_tenant_state_put(skb, t) ||
	    vgpu_labels_put(skb, &t->labels) ||
	    vgpu_quota_put(skb, &t->quota) ||
	    vgpu_place_put(skb, &t->place, VGPU_A_TENANT_CPUS_EFFECTIVE,
			   VGPU_A_TENANT_MEMS_EFFECTIVE)) {
		genlmsg_cancel(skb, hdr);
		goto out_free;
	}
	err = vgpu_usage_put(skb, &t->bucket);
	if (err) {
		genlmsg_cancel(skb, hdr);
		goto out_free;
	}
	genlmsg_end(skb, hdr);
	err = 0;
out_free:
	kfree(path);
	return err;
}

/**
 * vgpu_tenant_notify() - tell the monitor group about a tenant
 * @t: tenant
 * @cmd: VGPU_CMD_TENANT_*_NTF
 *
 * There is no single reader, so paths are written as seen from the host:
 * relative to the initial cgroup namespace, which is init_task's
 * (init_cgroup_ns itself is not exported to modules).
 *
 * Context: vgpu_lock held.
 */
void vgpu_tenant_notify(struct vgpu_tenant *t, u8 cmd)
{
	struct sk_buff *msg;

	if (!vgpu_nl_has_listeners())
		return;
	msg = genlmsg_new(vgpu_tenant_msg_size(t), GFP_KERNEL);
	if (!msg)
		return;
	if (vgpu_tenant_fill(msg, t, init_task.nsproxy->cgroup_ns, 0, 0, 0, cmd, NULL)) {
		nlmsg_free(msg);
		return;
	}
	vgpu_nl_notify(msg);
}

/**
 * vgpu_tenant_notify_id() - tell the monitor group a tenant changed, by id
 * @id: tenant id; nothing happens if no tenant has it any more
 *
 * Context: process; takes vgpu_lock.
 */
void vgpu_tenant_notify_id(u32 id)
{
	unsigned long found = id;
	struct vgpu_tenant *t;

	mutex_lock(&vgpu_lock);
	t = vgpu_tenant_next(&found);
	if (t && found == id)
		vgpu_tenant_notify(t, VGPU_CMD_TENANT_CHANGE_NTF);
	mutex_unlock(&vgpu_lock);
}

/**
 * vgpu_final_msg_size() - room a final record message needs
 * @f: record
 *
 * Return: bytes of payload, for genlmsg_new().
 */
size_t vgpu_final_msg_size(const struct vgpu_final *f)
{
	return 6 * nla_total_size_64bit(sizeof(u64)) +	/* seq, cgroup-id, times, 2 vram */
	       nla_total_size_64bit(sizeof(u64)) +	/* gpus */
	       6 * nla_total_size(sizeof(u32)) +	/* id, reason, weight, ... */
	       nla_total_size(VGPU_NAME_LEN_MAX + 1) +
	       nla_total_size(strlen(f->cgroup) + 1) +
	       nla_total_size(0) +			/* ephemeral */
	       vgpu_labels_msg_size(&f->labels) +
	       vgpu_usage_msg_size();
}

/* The quotas a final record keeps, those that were set. */
static int vgpu_final_put_quotas(struct sk_buff *skb, const struct vgpu_final *f)
{
	u32 set = f->quota_set;

	if (((set & VGPU_QUOTA_VRAM_MAX) &&
	     nla_put_u64_64bit(skb, VGPU_A_TENANT_VRAM_MAX, f->vram_max, VGPU_A_TENANT_PAD)) ||
	    ((set & VGPU_QUOTA_VRAM_MIN) &&
	     nla_put_u64_64bit(skb, VGPU_A_TENANT_VRAM_MIN, f->vram_min, VGPU_A_TENANT_PAD)) ||
	    ((set & VGPU_QUOTA_GPUS) &&
	     nla_put_u64_64bit(skb, VGPU_A_TENANT_GPUS, f->gpus, VGPU_A_TENANT_PAD)) ||
	    ((set & VGPU_QUOTA_WEIGHT) && nla_put_u32(skb, VGPU_A_TENANT_WEIGHT, f->weight)) ||
	    ((set & VGPU_QUOTA_COMPUTE_MAX) &&
	     nla_put_u32(skb, VGPU_A_TENANT_COMPUTE_MAX, f->compute_max)) ||
	    ((set & VGPU_QUOTA_PRIORITY) && nla_put_u32(skb, VGPU_A_TENANT_PRIORITY, f->priority)))
		return -EMSGSIZE;
	return 0;
}

/**
 * vgpu_final_fill() - write one final record message
 * @skb: message
 * @f: record
 * @portid: netlink port of the reader, 0 for a notification
 * @seq: sequence number of the request
 * @flags: netlink flags (NLM_F_MULTI in dumps)
 * @cmd: VGPU_CMD_TENANT_FINAL_GET or VGPU_CMD_TENANT_DEL_NTF
 *
 * Return: 0 or -EMSGSIZE (nothing written).
 */
int vgpu_final_fill(struct sk_buff *skb, const struct vgpu_final *f, u32 portid, u32 seq,
		    int flags, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &vgpu_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, VGPU_A_TENANT_FINAL_SEQ, f->seq, VGPU_A_TENANT_PAD) ||
	    nla_put_string(skb, VGPU_A_TENANT_NAME, f->name) ||
	    nla_put_u32(skb, VGPU_A_TENANT_ID, f->id) ||
	    nla_put_string(skb, VGPU_A_TENANT_CGROUP, f->cgroup) ||
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_CGROUP_ID, f->cgroup_id, VGPU_A_TENANT_PAD) ||
	    vgpu_labels_put(skb, &f->labels) ||
	    (f->ephemeral && nla_put_flag(skb, VGPU_A_TENANT_EPHEMERAL)) ||
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_CREATED, f->created, VGPU_A_TENANT_PAD) ||
	    nla_put_u64_64bit(skb, VGPU_A_TENANT_DELETED, f->deleted, VGPU_A_TENANT_PAD) ||
	    nla_put_u32(skb, VGPU_A_TENANT_DEL_REASON, f->reason) ||
	    vgpu_final_put_quotas(skb, f) ||
	    vgpu_usage_put_snap(skb, f->usage, f->nusage)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/**
 * vgpu_final_notify() - tell the monitor group a tenant was deleted
 * @f: its final record
 *
 * Context: vgpu_lock held.
 */
void vgpu_final_notify(const struct vgpu_final *f)
{
	struct sk_buff *msg;

	if (!vgpu_nl_has_listeners())
		return;
	msg = genlmsg_new(vgpu_final_msg_size(f), GFP_KERNEL);
	if (!msg)
		return;
	if (vgpu_final_fill(msg, f, 0, 0, 0, VGPU_CMD_TENANT_DEL_NTF)) {
		nlmsg_free(msg);
		return;
	}
	vgpu_nl_notify(msg);
}
