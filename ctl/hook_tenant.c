// SPDX-License-Identifier: GPL-2.0
/*
 * The tenant of an OCI hook (see hook.h): made ephemeral with its labels
 * and quotas, or joined when a pod's earlier container made it; dropped
 * at poststop when it is a plain container's and nothing holds it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "hook.h"
#include "vgpuctl.h"

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

static int put_labels(struct nl_msg *msg, const struct vgpuctl_hook_tenant *t)
{
	int i;

	for (i = 0; i < t->nlabels; i++) {
		struct nlattr *nest = nla_nest_start(msg, VGPU_A_TENANT_LABEL | NLA_F_NESTED);

		if (!nest || nla_put_string(msg, VGPU_A_LABEL_KEY, t->label_key[i]) < 0 ||
		    nla_put_string(msg, VGPU_A_LABEL_VALUE, t->label_value[i]) < 0)
			return -1;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* tenant-new: 0 or a negative errno, with @nl's error message set. */
static int tenant_new(struct vgpu_nl *nl, const struct vgpuctl_hook_tenant *t)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_TENANT_NEW, false);

	if (!msg || nla_put_string(msg, VGPU_A_TENANT_NAME, t->name) < 0 ||
	    nla_put_string(msg, VGPU_A_TENANT_CGROUP, t->cgroup) < 0 ||
	    vgpuctl_quotas_put(msg, t->quotas) < 0 || put_labels(msg, t) < 0 ||
	    nla_put_flag(msg, VGPU_A_TENANT_EPHEMERAL) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return vgpuctl_nl_request(nl, msg, NULL, NULL);
}

/*
 * tenant-new found the name or the cgroup taken. Returns 0 when the
 * tenant is this container's or pod's already (a pod's second container,
 * or a hook run twice), 1 when a stale one of the same name was deleted
 * (try again), or the exit status after an error line.
 */
static int taken(struct vgpu_nl *nl, const struct vgpuctl_hook_tenant *t)
{
	struct found f;
	int err = tenant_get(nl, t->name, &f);

	if (err == -ENOENT)
		return vgpuctl_error("cgroup %s already belongs to a tenant other than %s",
				     t->cgroup, t->name);
	if (err) {
		vgpuctl_nl_perror(nl, err);
		return VGPU_EXIT_ERR;
	}
	if (!strcmp(f.cgroup, t->cgroup) && !f.removed)
		return 0;
	if (!f.removed)
		return vgpuctl_error("tenant %s exists on another cgroup, %s (want %s)",
				     t->name, f.cgroup, t->cgroup);
	/* An earlier container's or pod's, whose cgroup is gone. */
	err = tenant_del(nl, t->name);
	if (err == -EBUSY)
		return vgpuctl_error("tenant %s of an earlier container (cgroup %s, removed) still has registered processes",
				     t->name, f.cgroup);
	if (err && err != -ENOENT) {
		vgpuctl_nl_perror(nl, err);
		return VGPU_EXIT_ERR;
	}
	return 1;
}

/**
 * vgpuctl_hook_tenant_make() - make a container's or pod's tenant, or join it
 * @t: the tenant
 *
 * The tenant is ephemeral: the module deletes it once its cgroup is
 * removed and none of its processes is registered. A pod's later
 * containers find it made and leave it as it is.
 *
 * Return: the exit status, after an error line on failure.
 */
int vgpuctl_hook_tenant_make(const struct vgpuctl_hook_tenant *t)
{
	struct vgpu_nl nl;
	int ret, err, tries;

	ret = vgpuctl_need_admin();
	if (ret)
		return ret;
	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	for (tries = 0; tries < 2; tries++) {
		err = tenant_new(&nl, t);
		if (!err) {
			ret = vgpuctl_placement_sync(&nl, t->name, true,
						     vgpuctl_quotas_seen(t->quotas));
			break;
		}
		if (err != -EEXIST) {
			vgpuctl_nl_perror(&nl, err);
			ret = VGPU_EXIT_ERR;
			break;
		}
		ret = taken(&nl, t);
		if (ret != 1)
			break;
	}
	if (ret == 1)
		ret = vgpuctl_error("tenant %s keeps coming back", t->name);
	vgpuctl_nl_close(&nl);
	return ret;
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
