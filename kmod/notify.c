// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: multicasting notifications to the monitor group of vgpu_nl_family.
 *
 * Apart from netlink.c (the family's registration, used by the handlers
 * and main.c only) so that the units that build notifications below the
 * handlers (tenant_msg.c) call nothing above them.
 */
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "nl_gen.h"
#include "vgpu.h"

/**
 * vgpu_nl_has_listeners() - whether anyone listens to the monitor group
 *
 * Notifications go to the initial network namespace only, since they
 * describe the whole host and the tenant table is not per namespace.
 *
 * Return: true when building a notification is worth it.
 */
bool vgpu_nl_has_listeners(void)
{
	return genl_has_listeners(&vgpu_nl_family, &init_net, VGPU_NLGRP_MONITOR);
}

/**
 * vgpu_nl_notify() - multicast a notification to the monitor group
 * @msg: a complete message built for vgpu_nl_family; consumed
 *
 * Sends in the initial network namespace. A full listener misses the
 * message (it sees ENOBUFS on its socket); nobody waits on userspace.
 */
void vgpu_nl_notify(struct sk_buff *msg)
{
	genlmsg_multicast(&vgpu_nl_family, msg, 0, VGPU_NLGRP_MONITOR, GFP_KERNEL);
}
