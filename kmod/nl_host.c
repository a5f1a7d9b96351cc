// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: netlink handlers of the host-wide settings (host-get, host-set).
 */
#include <linux/capability.h>
#include <net/genetlink.h>

#include "acct.h"
#include "final.h"
#include "gpu_choice.h"
#include "nl_gen.h"
#include "proc.h"
#include "vgpu.h"

static size_t vgpu_host_msg_size(void)
{
	return 5 * nla_total_size(sizeof(u32)) +	/* 2 policies, procs, gid, finals */
	       3 * nla_total_size_64bit(sizeof(u64));		/* id, loaded, dropped */
}

/**
 * vgpu_nl_host_get_doit() - handle host-get: host-wide settings
 * @skb: request
 * @info: request attributes and extack
 *
 * Readable by everyone; the host-wide process count and the final record
 * counts only with CAP_NET_ADMIN or in the monitor group (they tell of
 * other tenants).
 *
 * Return: 0 or a negative errno.
 */
int vgpu_nl_host_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool all = vgpu_may_read_all(skb);
	u32 policy, procs, finals, gpu_policy;
	struct sk_buff *msg;
	u64 dropped;
	void *hdr;

	msg = genlmsg_new(vgpu_host_msg_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&vgpu_lock);
	finals = vgpu_final_count();
	dropped = vgpu_final_dropped();
	gpu_policy = vgpu_gpu_policy_get();
	spin_lock(&vgpu_acct_lock);
	policy = vgpu_default_policy;
	procs = vgpu_proc_count();
	spin_unlock(&vgpu_acct_lock);
	mutex_unlock(&vgpu_lock);

	hdr = genlmsg_put(msg, info->snd_portid, info->snd_seq, &vgpu_nl_family, 0,
			  VGPU_CMD_HOST_GET);
	if (!hdr ||
	    nla_put_u32(msg, VGPU_A_HOST_DEFAULT_POLICY, policy) ||
	    (all && nla_put_u32(msg, VGPU_A_HOST_PROCS, procs)) ||
	    nla_put_u64_64bit(msg, VGPU_A_HOST_INSTANCE_ID, vgpu_instance_id, VGPU_A_HOST_PAD) ||
	    nla_put_u64_64bit(msg, VGPU_A_HOST_LOADED, vgpu_loaded, VGPU_A_HOST_PAD) ||
	    nla_put_u32(msg, VGPU_A_HOST_MONITOR_GID, vgpu_monitor_gid_get()) ||
	    (all && nla_put_u32(msg, VGPU_A_HOST_FINALS, finals)) ||
	    (all && nla_put_u64_64bit(msg, VGPU_A_HOST_FINALS_DROPPED, dropped,
				      VGPU_A_HOST_PAD)) ||
	    nla_put_u32(msg, VGPU_A_HOST_GPU_POLICY, gpu_policy)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/**
 * vgpu_nl_host_set_doit() - handle host-set: change host-wide settings
 * @skb: request
 * @info: request attributes and extack
 *
 * Switching the default policy to deny takes back the budgets of the
 * processes outside every tenant; what they hold stays charged until
 * freed, and their new charges fail with EACCES. A new monitor group
 * applies to the requests that follow, a new gpu-policy to the gpus-auto
 * choices that follow.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_host_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *policy_attr = info->attrs[VGPU_A_HOST_DEFAULT_POLICY];
	struct nlattr *gid_attr = info->attrs[VGPU_A_HOST_MONITOR_GID];
	struct nlattr *gpu_attr = info->attrs[VGPU_A_HOST_GPU_POLICY];
	u32 policy;

	if (!policy_attr && !gid_attr && !gpu_attr) {
		NL_SET_ERR_MSG(info->extack,
			       "default-policy, monitor-gid or gpu-policy is required");
		return -EINVAL;
	}
	if (gid_attr)
		vgpu_monitor_gid_set(nla_get_u32(gid_attr));
	if (gpu_attr) {
		mutex_lock(&vgpu_lock);
		vgpu_gpu_policy_set(nla_get_u32(gpu_attr));
		mutex_unlock(&vgpu_lock);
	}
	if (!policy_attr)
		return 0;
	policy = nla_get_u32(policy_attr);

	mutex_lock(&vgpu_lock);
	spin_lock(&vgpu_acct_lock);
	vgpu_default_policy = policy;
	if (policy == VGPU_DEFAULT_POLICY_DENY)
		vgpu_acct_reclaim_bucket(&vgpu_default_bucket);
	spin_unlock(&vgpu_acct_lock);
	mutex_unlock(&vgpu_lock);
	return 0;
}
