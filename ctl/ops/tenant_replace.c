// SPDX-License-Identifier: GPL-2.0
/*
 * The replace operation: add a tenant, or set an existing one on the same
 * cgroup to exactly the quotas and labels given. Its callers parse: the
 * tenant replace command (tenant.c) its words, the OCI hook
 * (hook_tenant.c) the container's; tenant_send.c sends.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <sys/stat.h>

#include <netlink/genl/genl.h>

#include "../lib/spec_policy.h"
#include "../obj/tenant.h"
#include "../vgpuctl.h"

/* What tenant replace needs of the tenant as it is. */
struct existing {
	bool found;
	uint64_t cgroup_id;
	char cgroup[VGPU_PATH_LEN_MAX + 1];
	bool ephemeral;
	unsigned int nlabels;
	char keys[VGPU_LABEL_MAX][VGPU_LABEL_KEY_LEN_MAX + 1];
};

static int existing_one(struct nlmsghdr *nlh, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1], *a, *ltb[VGPU_A_LABEL_MAX + 1];
	struct existing *e = arg;
	int rem;

	if (vgpuctl_tenant_parse(nlh, tb) || !tb[VGPU_A_TENANT_CGROUP_ID])
		return -EPROTO;
	e->found = true;
	e->cgroup_id = nla_get_u64(tb[VGPU_A_TENANT_CGROUP_ID]);
	snprintf(e->cgroup, sizeof(e->cgroup), "%s",
		 tb[VGPU_A_TENANT_CGROUP] ? nla_get_string(tb[VGPU_A_TENANT_CGROUP]) : "?");
	e->ephemeral = tb[VGPU_A_TENANT_EPHEMERAL];
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) != VGPU_A_TENANT_LABEL || e->nlabels == VGPU_LABEL_MAX ||
		    nla_parse_nested(ltb, VGPU_A_LABEL_MAX, a, vgpu_label_nl_policy) < 0 || !ltb[VGPU_A_LABEL_KEY])
			continue;
		snprintf(e->keys[e->nlabels++], sizeof(e->keys[0]), "%s",
			 (char *)nla_data(ltb[VGPU_A_LABEL_KEY]));
	}
	return 0;
}

/*
 * Turn @c into the tenant set that leaves the tenant @e with exactly the
 * quotas and labels of @c: the quotas not given are cleared, the labels
 * not given removed. Returns 0 or VGPU_EXIT_ERR.
 */
static int replace_as_set(struct tenant_conf *c, const struct existing *e, const char *name,
			  const char *cgroup_dir)
{
	unsigned int i, j;
	struct stat st;

	if (stat(cgroup_dir, &st))
		return vgpuctl_error("cannot stat cgroup %s: %s", cgroup_dir, strerror(errno));
	if ((uint64_t)st.st_ino != e->cgroup_id)
		return vgpuctl_error("tenant \"%s\" exists on another cgroup (%s)", name, e->cgroup);
	if (c->ephemeral != e->ephemeral)
		return vgpuctl_error("tenant \"%s\" exists and is %sephemeral (set only when a tenant is added)",
				     name, e->ephemeral ? "" : "not ");
	vgpuctl_tenant_conf_clear_unnamed(c);
	for (i = 0; i < e->nlabels; i++) {
		for (j = 0; j < c->nlabels && strcmp(c->labels[j].key, e->keys[i]); j++)
			;
		if (j < c->nlabels || c->nlabels == CONF_LABELS)
			continue;
		strcpy(c->labels[c->nlabels].key, e->keys[i]);
		c->labels[c->nlabels++].value[0] = '\0';
	}
	c->ephemeral = false;	/* not an attribute of tenant-set */
	c->set = true;
	return 0;
}

/**
 * vgpuctl_tenant_replace() - add a tenant, or set it to exactly @c
 * @name: the tenant, a valid NAME
 * @path: its cgroup, absolute or relative to the cgroup2 mount
 * @c: its quotas, labels and ephemeral flag; when the tenant exists on the
 *     same cgroup, @c is turned into the tenant set that clears the others
 *
 * Idempotent, for hooks and scripts: the tenant is added, or when it
 * exists on the same cgroup, set to exactly the quotas and labels given.
 *
 * Return: the exit status, after an error line on failure.
 */
int vgpuctl_tenant_replace(const char *name, const char *path, struct tenant_conf *c)
{
	char mnt[VGPU_PATH_LEN_MAX + 1], cgroup[VGPU_PATH_LEN_MAX + 1];
	char dir[2 * VGPU_PATH_LEN_MAX + 2];
	struct existing e = { 0 };
	struct vgpu_nl nl;
	struct nl_msg *msg;
	int ret, err;

	ret = vgpuctl_tenant_resolve_cgroup(path, mnt, cgroup);
	if (!ret)
		ret = vgpuctl_need_admin();
	if (!ret)
		ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	msg = vgpuctl_nl_msg(&nl, VGPU_CMD_TENANT_GET, false);
	if (msg && nla_put_string(msg, VGPU_A_TENANT_NAME, name) < 0) {
		vgpuctl_nl_close(&nl);
		return vgpuctl_put_failed(msg);
	}
	err = msg ? vgpuctl_nl_request(&nl, msg, existing_one, &e) : -ENOMEM;
	if (err && err != -ENOENT) {
		vgpuctl_nl_perror(&nl, err);
		vgpuctl_nl_close(&nl);
		return VGPU_EXIT_ERR;
	}
	vgpuctl_nl_close(&nl);
	if (!e.found)
		return vgpuctl_tenant_send(VGPU_CMD_TENANT_NEW, name, cgroup, c, false);
	snprintf(dir, sizeof(dir), "%s%s", strcmp(mnt, "/") ? mnt : "", cgroup);
	ret = replace_as_set(c, &e, name, dir);
	if (ret)
		return ret;
	return vgpuctl_tenant_send(VGPU_CMD_TENANT_SET, name, NULL, c, false);
}
