// SPDX-License-Identifier: GPL-2.0
/*
 * One tenant mutation as vgpuctl makes it: the request to vgpu.ko, then
 * what follows on the host (the cgroup's CPUs and nodes, placement.c; the
 * backstop's limits, backstop.c). The commands that change tenants call
 * it (tenant.c, tenant_replace.c, apply.c): it sits below them all.
 */
#include <stdlib.h>

#include <netlink/genl/genl.h>

#include "../enforce/backstop.h"
#include "../obj/tenant.h"
#include "../vgpuctl.h"

/*
 * Send a tenant mutation built from @name, @cgroup (or NULL) and @c, then,
 * when @c names what decides its CPUs and nodes, write them to its cgroup
 * (placement.c), and set what the backstop holds (backstop.c).
 */
int vgpuctl_tenant_send(uint8_t cmd, const char *name, const char *cgroup,
			const struct tenant_conf *c, bool force)
{
	struct vgpuctl_placement_before *before = NULL;
	struct vgpuctl_bs_del *del = NULL;
	struct vgpu_nl nl;
	struct nl_msg *msg;
	int ret;

	ret = vgpuctl_need_admin();
	if (ret)
		return ret;
	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	if (cmd == VGPU_CMD_TENANT_SET)
		ret = vgpuctl_placement_prepare(&nl, name, c->seen, &before);
	else if (cmd == VGPU_CMD_TENANT_DEL)
		del = vgpuctl_backstop_prepare_del(&nl, name);	/* NULL: unread */
	if (ret) {
		vgpuctl_nl_close(&nl);
		return ret;
	}
	msg = vgpuctl_nl_msg(&nl, cmd, false);
	if (msg && (nla_put_string(msg, VGPU_A_TENANT_NAME, name) < 0 ||
		    (cgroup && nla_put_string(msg, VGPU_A_TENANT_CGROUP, cgroup) < 0) ||
		    (c && vgpuctl_tenant_conf_put(msg, c) < 0) ||
		    (force && nla_put_flag(msg, VGPU_A_TENANT_FORCE) < 0))) {
		vgpuctl_nl_close(&nl);
		vgpuctl_backstop_del_free(del);
		free(before);
		return vgpuctl_put_failed(msg);
	}
	ret = vgpuctl_send(&nl, msg, NULL, NULL);
	if (!ret && c)
		ret = vgpuctl_placement_sync(&nl, name, cmd == VGPU_CMD_TENANT_NEW, c->seen, before);
	if (!ret)
		ret = vgpuctl_backstop_after(&nl, cmd, name, c ? c->seen : 0, del);
	vgpuctl_nl_close(&nl);
	vgpuctl_backstop_del_free(del);
	free(before);
	return ret;
}
