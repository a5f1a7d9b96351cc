// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: host-wide facts and who reads everything: the instance id and
 * load time of this module, and the monitor group.
 *
 * The monitor group (module parameter monitor_gid, host-set monitor-gid)
 * lets metering and monitoring daemons read every tenant, process and
 * final record as CAP_NET_ADMIN does, without the power to change
 * anything: every change keeps needing CAP_NET_ADMIN. Membership is the
 * caller's (current's fsgid or supplementary groups), the gid taken in
 * the initial user namespace.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/timekeeping.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>
#include <net/netlink.h>

#include "../uapi/vgpu.h"
#include "vgpu.h"

/* Random per load: tenant ids are unique within one instance only. */
u64 vgpu_instance_id __ro_after_init;
/* When the module was loaded, ns since the epoch. */
u64 vgpu_loaded __ro_after_init;

static unsigned int vgpu_monitor_gid = VGPU_GID_NONE;
module_param_named(monitor_gid, vgpu_monitor_gid, uint, 0644);
MODULE_PARM_DESC(monitor_gid,
		 "Group whose members read every tenant, process and final record (4294967295: none)");

/**
 * vgpu_host_init() - draw the instance id and note the load time
 */
void __init vgpu_host_init(void)
{
	vgpu_instance_id = get_random_u64();
	vgpu_loaded = ktime_get_real_ns();
}

/**
 * vgpu_monitor_gid_get() - the monitor group
 *
 * Return: its gid in the initial user namespace, VGPU_GID_NONE for none.
 */
u32 vgpu_monitor_gid_get(void)
{
	return READ_ONCE(vgpu_monitor_gid);
}

/**
 * vgpu_monitor_gid_set() - change the monitor group (host-set)
 * @gid: gid in the initial user namespace, VGPU_GID_NONE for none
 */
void vgpu_monitor_gid_set(u32 gid)
{
	WRITE_ONCE(vgpu_monitor_gid, gid);
}

/**
 * vgpu_may_read_all() - whether a reader sees every tenant and process
 * @skb: the request
 *
 * Context: the reader's (a request's doit, or a dump).
 * Return: true with CAP_NET_ADMIN in the initial user namespace, or for a
 * member of the monitor group.
 */
bool vgpu_may_read_all(struct sk_buff *skb)
{
	u32 gid = vgpu_monitor_gid_get();
	kgid_t kgid;

	if (netlink_capable(skb, CAP_NET_ADMIN))
		return true;
	if (gid == VGPU_GID_NONE)
		return false;
	kgid = make_kgid(&init_user_ns, gid);
	return gid_valid(kgid) && in_group_p(kgid);
}
