// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: netlink handlers of deleted tenants' final records
 * (tenant-final-get, tenant-final-del). The records are kept in final.c.
 *
 * Reading them needs CAP_NET_ADMIN or the monitor group: they describe
 * every tenant. Acknowledging (dropping) them is a change: CAP_NET_ADMIN
 * (GENL_ADMIN_PERM in the ops).
 */
#include <net/genetlink.h>

#include "final.h"
#include "nl_gen.h"
#include "tenant.h"
#include "vgpu.h"

/* Position of a final record dump. */
struct vgpu_final_dump_ctx {
	u64 seq;	/* last record sent */
	bool done;	/* every record was sent */
};

/**
 * vgpu_nl_tenant_final_get_dumpit() - handle tenant-final-get
 * @skb: message to fill
 * @cb: dump state, kept in @cb->ctx
 *
 * One message per record, oldest first. Each part of the dump resumes
 * after the last sequence number sent, so records acknowledged, dropped
 * or added meanwhile never make it repeat or skip a record still kept;
 * a record added during the dump is sent if the dump has not ended.
 *
 * Return: bytes written, 0 at the end, or a negative errno (-EPERM for a
 * caller without CAP_NET_ADMIN outside the monitor group).
 */
int vgpu_nl_tenant_final_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct vgpu_final_dump_ctx *ctx = (void *)cb->ctx;
	u32 portid = NETLINK_CB(cb->skb).portid;
	u32 seq = cb->nlh->nlmsg_seq;
	struct vgpu_final *f;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	if (ctx->done)
		return 0;
	if (!vgpu_may_read_all(cb->skb)) {
		NL_SET_ERR_MSG(cb->extack,
			       "final records need CAP_NET_ADMIN or the monitor group");
		return -EPERM;
	}

	mutex_lock(&vgpu_lock);
	for (; (f = vgpu_final_after(ctx->seq)); ctx->seq = f->seq) {
		err = vgpu_final_fill(skb, f, portid, seq, NLM_F_MULTI,
				      VGPU_CMD_TENANT_FINAL_GET);
		if (err)
			break;
	}
	if (!f)
		ctx->done = true;
	mutex_unlock(&vgpu_lock);

	if (err && !skb->len)
		return err;
	return skb->len;
}

/**
 * vgpu_nl_tenant_final_del_doit() - handle tenant-final-del
 * @skb: request
 * @info: request attributes and extack
 *
 * Drops the records whose sequence number is at most final-seq; records
 * already gone are no error, so a collector may repeat an acknowledgement.
 *
 * Return: 0 or -EINVAL with the extack message set.
 */
int vgpu_nl_tenant_final_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_TENANT_FINAL_SEQ)) {
		NL_SET_ERR_MSG(info->extack, "final-seq is required");
		return -EINVAL;
	}
	mutex_lock(&vgpu_lock);
	vgpu_final_ack(nla_get_u64(info->attrs[VGPU_A_TENANT_FINAL_SEQ]));
	mutex_unlock(&vgpu_lock);
	return 0;
}
