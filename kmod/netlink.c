// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the generic netlink family "vgpu".
 *
 * The ops, their policies and the multicast groups are generated from the
 * spec into nl_gen.c; this file only ties them into a family. The handlers
 * live in nl_gpu.c, nl_tenant.c and nl_proc.c; notifications are sent by
 * notify.c.
 */
#include <linux/module.h>
#include <net/genetlink.h>

#include "nl_gen.h"
#include "vgpu.h"

struct genl_family vgpu_nl_family __ro_after_init = {
	.name		= VGPU_FAMILY_NAME,
	.version	= VGPU_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	/* Zero: every command is strictly validated. */
	.resv_start_op	= 0,
	/*
	 * Full genl_ops, not 6.2's split ops (separate doit/dumpit entries):
	 * 6.1 has no split ops, and 6.12 still takes these unchanged.
	 */
	.ops		= vgpu_nl_ops,
	.n_ops		= ARRAY_SIZE(vgpu_nl_ops),
	.mcgrps		= vgpu_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(vgpu_nl_mcgrps),
	.module		= THIS_MODULE,
};

/**
 * vgpu_nl_register() - register the vgpu generic netlink family
 *
 * Return: 0 or a negative errno from genl_register_family().
 */
int __init vgpu_nl_register(void)
{
	return genl_register_family(&vgpu_nl_family);
}

/**
 * vgpu_nl_unregister() - unregister the vgpu generic netlink family
 *
 * On return no handler runs any more and none will start.
 */
void vgpu_nl_unregister(void)
{
	genl_unregister_family(&vgpu_nl_family);
}
