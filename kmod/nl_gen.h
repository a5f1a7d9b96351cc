/* SPDX-License-Identifier: GPL-2.0 */
/* Do not edit directly, generated from: */
/*	Documentation/netlink/specs/vgpu.yaml */
/* by tools/vgpu-nlgen */

#ifndef _VGPU_NL_GEN_H
#define _VGPU_NL_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include "../uapi/vgpu.h"

int vgpu_nl_gpu_add_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_gpu_del_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_gpu_get_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_gpu_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int vgpu_nl_tenant_new_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_tenant_del_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_tenant_set_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_tenant_get_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_tenant_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int vgpu_nl_proc_register_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_proc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int vgpu_nl_host_get_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_host_set_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_proc_del_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_tenant_final_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int vgpu_nl_tenant_final_del_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_gpu_set_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_tenant_suspend_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_tenant_resume_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_tenant_settle_doit(struct sk_buff *skb, struct genl_info *info);
int vgpu_nl_proc_set_doit(struct sk_buff *skb, struct genl_info *info);

enum {
	VGPU_NLGRP_MONITOR,
};

/* Quotas: the bits of enum vgpu_quota, all of them. */
#define VGPU_QUOTA_NBITS	12
#define VGPU_QUOTA_ALL	0xfff

/* The tenant attribute of each quota, by bit number. */
extern const u16 vgpu_quota_attrs[VGPU_QUOTA_NBITS];

extern const struct genl_ops vgpu_nl_ops[19];
extern const struct genl_multicast_group vgpu_nl_mcgrps[1];

#endif /* _VGPU_NL_GEN_H */
