// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: netlink handlers of deleted tenants' final records
 * (tenant-final-get, tenant-final-del).
 *
 * Placeholders until the final records are kept: both say so.
 */
#include "nl_gen.h"

/**
 * vgpu_nl_tenant_final_get_dumpit() - handle tenant-final-get
 * @skb: reply buffer
 * @cb: dump state
 *
 * Return: -EOPNOTSUPP (not implemented yet).
 */
int vgpu_nl_tenant_final_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return -EOPNOTSUPP;
}

/**
 * vgpu_nl_tenant_final_del_doit() - handle tenant-final-del
 * @skb: request
 * @info: request attributes
 *
 * Return: -EOPNOTSUPP (not implemented yet).
 */
int vgpu_nl_tenant_final_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	return -EOPNOTSUPP;
}
