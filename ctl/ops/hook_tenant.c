// SPDX-License-Identifier: GPL-2.0
/*
 * The tenant of an OCI hook (see hook.h): made ephemeral with its labels
 * and quotas by the replace operation (tenant_replace.c), which a pod's
 * later containers join; dropped at poststop when it is a plain
 * container's and nothing holds it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "hook.h"
#include "../lib/parse.h"
#include "../obj/tenant.h"
#include "../vgpuctl.h"

/* What tenant-get tells of an existing tenant. */
struct found {
	char cgroup[VGPU_PATH_LEN_MAX + 1];
	bool removed;
};

static int get_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];
	struct found *f = arg;

	if (vgpuctl_tenant_parse(nlh, tb))
		return -EPROTO;
	if (tb[VGPU_A_TENANT_CGROUP])
		snprintf(f->cgroup, sizeof(f->cgroup), "%s", nla_get_string(tb[VGPU_A_TENANT_CGROUP]));
	f->removed = tb[VGPU_A_TENANT_CGROUP_REMOVED];
	return 0;
}

/* tenant-get @name: 0 with @f filled, or a negative errno (-ENOENT). */
static int tenant_get(struct vgpu_nl *nl, const char *name, struct found *f)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_TENANT_GET, false);

	memset(f, 0, sizeof(*f));
	if (!msg || nla_put_string(msg, VGPU_A_TENANT_NAME, name) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return vgpuctl_nl_request(nl, msg, get_one, f);
}

/* tenant-del @name, without force: 0 or a negative errno (-EBUSY, -ENOENT). */
static int tenant_del(struct vgpu_nl *nl, const char *name)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_TENANT_DEL, false);

	if (!msg || nla_put_string(msg, VGPU_A_TENANT_NAME, name) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return vgpuctl_nl_request(nl, msg, NULL, NULL);
}

/*
 * An earlier container's or pod's tenant of the same name whose cgroup is
 * gone (a restarted container within the module's one-second look) would
 * make tenant replace refuse ("exists on another cgroup"): delete it first,
 * unless processes of it are still registered.
 */
static int drop_stale(const char *name)
{
	struct vgpu_nl nl;
	struct found f;
	int ret, err;

	ret = vgpuctl_need_admin();
	if (!ret)
		ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	err = tenant_get(&nl, name, &f);
	if (!err && f.removed)
		err = tenant_del(&nl, name);
	if (err == -EBUSY)
		ret = vgpuctl_error("tenant %s of an earlier container (cgroup %s, removed) still has registered processes",
				    name, f.cgroup);
	else if (err && err != -ENOENT) {
		vgpuctl_nl_perror(&nl, err);
		ret = VGPU_EXIT_ERR;
	}
	vgpuctl_nl_close(&nl);
	return ret;
}

/**
 * vgpuctl_hook_tenant_make() - make a container's or pod's tenant, or join it
 * @t: the tenant; its conf, the quotas hook.c parsed, gets the labels and
 *     ephemeral here
 *
 * What "vgpuctl tenant replace NAME cgroup DIR QUOTAS... label K=V...
 * ephemeral" does, without the words (tenant_replace.c): the tenant is
 * added, or, made already on the same cgroup by a pod's earlier container
 * (or an earlier run of this hook), set to these quotas and labels; a
 * stale one of the same name whose cgroup is gone is deleted first. It is
 * ephemeral: the module deletes it once its cgroup is removed and none of
 * its processes is registered.
 *
 * Return: the exit status, after an error line on failure.
 */
int vgpuctl_hook_tenant_make(const struct vgpuctl_hook_tenant *t)
{
	char mnt[VGPU_PATH_LEN_MAX + 1], dir[2 * (VGPU_PATH_LEN_MAX + 1)];
	char label[VGPU_LABEL_KEY_LEN_MAX + VGPU_LABEL_VALUE_LEN_MAX + 2];
	int i, ret;

	ret = drop_stale(t->name);
	if (ret)
		return ret;
	if (vgpuctl_cgroup_mount("/proc/self/mounts", mnt, sizeof(mnt)) < 0)
		return vgpuctl_error("cannot find the cgroup2 mount point");
	snprintf(dir, sizeof(dir), "%s%s", strcmp(mnt, "/") ? mnt : "", t->cgroup);
	/* As "label KEY=VALUE" words: checked as tenant replace checks them. */
	for (i = 0; i < t->nlabels; i++) {
		snprintf(label, sizeof(label), "%s=%s", t->label_key[i], t->label_value[i]);
		ret = vgpuctl_tenant_conf_label(t->conf, label);
		if (ret)
			return ret;
	}
	t->conf->ephemeral = true;
	return vgpuctl_tenant_replace(t->name, dir, t->conf);
}

/**
 * vgpuctl_hook_tenant_drop() - delete a stopped plain container's tenant
 * @name: the tenant the create-runtime hook named
 * @cgroup: the container's cgroup, or NULL when it is not known
 *
 * Deleted only when it is the container's (on @cgroup, or on a removed
 * cgroup) and none of its processes is still registered; otherwise the
 * module deletes it itself once both are gone (it is ephemeral).
 *
 * Return: the exit status, after an error line on failure.
 */
int vgpuctl_hook_tenant_drop(const char *name, const char *cgroup)
{
	struct vgpu_nl nl;
	struct found f;
	int ret, err;

	ret = vgpuctl_need_admin();
	if (ret)
		return ret;
	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	err = tenant_get(&nl, name, &f);
	if (!err && (f.removed || (cgroup && !strcmp(f.cgroup, cgroup))))
		err = tenant_del(&nl, name);
	if (err && err != -ENOENT && err != -EBUSY) {
		vgpuctl_nl_perror(&nl, err);
		ret = VGPU_EXIT_ERR;
	}
	vgpuctl_nl_close(&nl);
	return ret;
}
