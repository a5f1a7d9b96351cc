// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: netlink handlers of the tenant table (tenant-new, tenant-del,
 * tenant-set, tenant-get).
 *
 * Changes need CAP_NET_ADMIN (GENL_ADMIN_PERM in the ops). Readers without
 * it, outside the monitor group (host.c), see only the tenant they belong
 * to; any other tenant is reported as unknown, so that its existence does
 * not leak.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <net/genetlink.h>

#include "gpu_choice.h"
#include "nl_gen.h"
#include "parse.h"
#include "tenant.h"
#include "vgpu.h"

/* Position of a tenant dump. */
struct vgpu_tenant_dump_ctx {
	unsigned long id;	/* next tenant id to send */
	bool done;		/* every tenant to send was sent */
};

static const char *vgpu_tenant_name_attr(struct genl_info *info)
{
	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_TENANT_NAME)) {
		NL_SET_ERR_MSG(info->extack, "tenant name is required");
		return NULL;
	}
	return nla_data(info->attrs[VGPU_A_TENANT_NAME]);
}

/* Looks up the tenant a request names, with the errors of a missing one. */
static struct vgpu_tenant *vgpu_tenant_lookup(struct genl_info *info)
{
	struct vgpu_tenant *t;
	const char *name;

	lockdep_assert_held(&vgpu_lock);
	name = vgpu_tenant_name_attr(info);
	if (!name)
		return ERR_PTR(-EINVAL);
	t = vgpu_tenant_find(name);
	if (!t) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VGPU_A_TENANT_NAME],
				    "unknown tenant");
		return ERR_PTR(-ENOENT);
	}
	return t;
}

/* The labels @old becomes with the request's (label.c), in @labels. */
static int vgpu_tenant_labels(struct genl_info *info, const struct vgpu_labels *old,
			      struct vgpu_labels *labels)
{
	struct vgpu_labels out = { 0 };
	int err;

	err = vgpu_labels_apply(&out, old, genlmsg_data(info->genlhdr),
				genlmsg_len(info->genlhdr), info->extack);
	if (err) {
		vgpu_labels_free(&out);
		return err;
	}
	vgpu_labels_move(labels, &out);
	return 0;
}

/* Resolves the cgroup of a new tenant, in the caller's cgroup namespace. */
static struct cgroup *vgpu_tenant_cgroup(struct genl_info *info)
{
	struct nlattr *path = info->attrs[VGPU_A_TENANT_CGROUP];
	struct nlattr *id = info->attrs[VGPU_A_TENANT_CGROUP_ID];
	struct cgroup *cgrp;

	if (!path && !id) {
		NL_SET_ERR_MSG(info->extack, "tenant cgroup is required");
		return ERR_PTR(-EINVAL);
	}
	if (path && id) {
		NL_SET_ERR_MSG_ATTR(info->extack, id, "give cgroup or cgroup-id, not both");
		return ERR_PTR(-EINVAL);
	}

	cgrp = path ? cgroup_get_from_path(nla_data(path)) : cgroup_get_from_id(nla_get_u64(id));
	if (!IS_ERR(cgrp) && !(READ_ONCE(cgrp->self.flags) & CSS_ONLINE)) {
		/* Found by id while being removed. */
		cgroup_put(cgrp);
		cgrp = ERR_PTR(-ENOENT);
	}
	if (IS_ERR(cgrp)) {
		NL_SET_ERR_MSG_ATTR(info->extack, path ?: id,
				    "cgroup not found or not a cgroup v2 directory");
		return ERR_PTR(-ENOENT);
	}
	/* "", "/" and "//" name the caller's namespace root: every process. */
	if (!cgroup_parent(cgrp) || cgrp == current->nsproxy->cgroup_ns->root_cset->dfl_cgrp) {
		cgroup_put(cgrp);
		NL_SET_ERR_MSG_ATTR(info->extack, path ?: id,
				    "the root cgroup cannot be a tenant: it holds every process");
		return ERR_PTR(-EINVAL);
	}
	return cgrp;
}

/**
 * vgpu_nl_tenant_new_doit() - handle tenant-new: create a tenant
 * @skb: request
 * @info: request attributes and extack
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_tenant_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	struct vgpu_tenant *t;
	struct cgroup *cgrp;
	const char *name;
	int err;

	name = vgpu_tenant_name_attr(info);
	if (!name)
		return -EINVAL;
	if (!vgpu_name_valid(name)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[VGPU_A_TENANT_NAME],
				    "tenant name must be 1-63 printable characters without spaces");
		return -EINVAL;
	}
	t = vgpu_tenant_alloc(name);
	if (!t)
		return -ENOMEM;
	err = vgpu_tenant_labels(info, &t->labels, &t->labels);
	if (err) {
		vgpu_tenant_free(t);
		return err;
	}
	t->ephemeral = nla_get_flag(attrs[VGPU_A_TENANT_EPHEMERAL]);

	mutex_lock(&vgpu_lock);
	if (vgpu_tenant_find(name)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[VGPU_A_TENANT_NAME],
				    "tenant name already exists");
		err = -EEXIST;
		goto err_unlock;
	}
	cgrp = vgpu_tenant_cgroup(info);
	if (IS_ERR(cgrp)) {
		err = PTR_ERR(cgrp);
		goto err_unlock;
	}
	vgpu_tenant_set_cgroup(t, cgrp);
	if (vgpu_tenant_find_cgroup(t->cgroup_id)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    attrs[VGPU_A_TENANT_CGROUP] ?: attrs[VGPU_A_TENANT_CGROUP_ID],
				    "cgroup already belongs to a tenant");
		err = -EEXIST;
		goto err_unlock;
	}
	if (vgpu_tenant_count() >= VGPU_TENANT_MAX) {
		NL_SET_ERR_MSG(info->extack, "too many tenants");
		err = -ENOSPC;
		goto err_unlock;
	}

	err = vgpu_quota_apply(&t->quota, attrs, info->extack);
	if (err)
		goto err_unlock;
	err = vgpu_gpus_prepare(&t->quota, NULL, attrs, info->extack);
	if (err)
		goto err_unlock;
	err = vgpu_tenant_check_quota(&t->quota, NULL, attrs, info->extack);
	if (err)
		goto err_unlock;
	err = vgpu_place_prepare(t, &t->quota, attrs, info->extack);
	if (err)
		goto err_unlock;

	err = vgpu_tenant_insert(t);
	if (err) {
		if (err == -ENOSPC)
			NL_SET_ERR_MSG(info->extack, "too many tenants");
		goto err_unlock;
	}
	vgpu_acct_bucket_add(&t->bucket, &t->quota);
	vgpu_place_commit(t);
	if (t->ephemeral)
		vgpu_ephemeral_added();
	vgpu_changed();
	vgpu_tenant_notify(t, VGPU_CMD_TENANT_NEW_NTF);
	mutex_unlock(&vgpu_lock);
	return 0;

err_unlock:
	mutex_unlock(&vgpu_lock);
	vgpu_tenant_free(t);
	return err;
}

/**
 * vgpu_nl_tenant_del_doit() - handle tenant-del: delete a tenant
 * @skb: request
 * @info: request attributes and extack
 *
 * Refused while processes are registered to the tenant, unless the request
 * has force: their registrations end first (their charges with them).
 * Refused, force or not, unless the tenant is running (tenant_state.c). The
 * tenant's final record is kept and sent with tenant-del-ntf.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_tenant_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	bool force = nla_get_flag(info->attrs[VGPU_A_TENANT_FORCE]);
	struct vgpu_tenant *t;
	int err;

	mutex_lock(&vgpu_lock);
	t = vgpu_tenant_lookup(info);
	if (IS_ERR(t)) {
		mutex_unlock(&vgpu_lock);
		return PTR_ERR(t);
	}
	if (t->state != VGPU_TENANT_STATE_RUNNING) {
		/* Its checkpointed processes would be left locked. */
		mutex_unlock(&vgpu_lock);
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VGPU_A_TENANT_NAME],
				    "tenant is suspended (or being suspended or resumed): resume it first");
		return -EBUSY;
	}
	err = vgpu_tenant_delete(t, force, VGPU_DEL_REASON_ADMIN);
	mutex_unlock(&vgpu_lock);
	if (err == -EBUSY)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VGPU_A_TENANT_NAME],
				    "tenant has registered processes (force ends them)");
	return err;
}

/**
 * vgpu_nl_tenant_set_doit() - handle tenant-set: change a tenant's quotas
 * @skb: request
 * @info: request attributes and extack
 *
 * Quotas the request names are set, those in the clear attribute unset,
 * the others kept; labels are applied as vgpu_labels_apply() says. The
 * result is checked whole before it replaces the
 * tenant's quotas: on error nothing changed. A vram-max below what the
 * tenant holds is accepted: its budgets are taken back and its new
 * charges fail until its usage drops.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_tenant_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *clear_attr = info->attrs[VGPU_A_TENANT_CLEAR];
	struct vgpu_labels labels = { 0 };
	struct vgpu_quota_set quota;
	struct vgpu_tenant *t;
	u32 clear;
	int err;

	err = vgpu_quota_init(&quota);
	if (err)
		return err;

	mutex_lock(&vgpu_lock);
	t = vgpu_tenant_lookup(info);
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto out_unlock;
	}
	clear = clear_attr ? nla_get_u32(clear_attr) : 0;
	/* gpus-auto sets the gpus quota. */
	if ((clear & vgpu_quota_given(info->attrs)) ||
	    ((clear & VGPU_QUOTA_GPUS) && info->attrs[VGPU_A_TENANT_GPUS_AUTO])) {
		NL_SET_ERR_MSG_ATTR(info->extack, clear_attr, "a quota is both set and cleared");
		err = -EINVAL;
		goto out_unlock;
	}

	vgpu_quota_copy(&quota, &t->quota);
	quota.set &= ~clear;
	if (clear & VGPU_QUOTA_GPUS)
		quota.gpus_auto = 0;
	err = vgpu_quota_apply(&quota, info->attrs, info->extack);
	if (err)
		goto out_unlock;
	err = vgpu_gpus_prepare(&quota, t, info->attrs, info->extack);
	if (err)
		goto out_unlock;
	err = vgpu_tenant_check_quota(&quota, t, info->attrs, info->extack);
	if (err)
		goto out_unlock;
	err = vgpu_tenant_labels(info, &t->labels, &labels);
	if (err)
		goto out_unlock;
	err = vgpu_place_prepare(t, &quota, info->attrs, info->extack);
	if (err)
		goto out_unlock;

	vgpu_labels_move(&t->labels, &labels);
	vgpu_quota_copy(&t->quota, &quota);
	vgpu_acct_bucket_set(&t->bucket, &t->quota);
	vgpu_place_commit(t);
	vgpu_changed();
	vgpu_tenant_notify(t, VGPU_CMD_TENANT_CHANGE_NTF);
out_unlock:
	mutex_unlock(&vgpu_lock);
	vgpu_labels_free(&labels);
	vgpu_quota_destroy(&quota);
	return err;
}

/**
 * vgpu_nl_tenant_get_doit() - handle tenant-get: describe one tenant
 * @skb: request
 * @info: request attributes and extack
 *
 * Callers without CAP_NET_ADMIN, outside the monitor group, may only get
 * the tenant they belong to.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_tenant_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct vgpu_tenant *t;
	struct sk_buff *msg;
	int err;

	mutex_lock(&vgpu_lock);
	t = vgpu_tenant_lookup(info);
	if (!IS_ERR(t) && !vgpu_may_read_all(skb) && t != vgpu_tenant_of_task(current)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VGPU_A_TENANT_NAME],
				    "unknown tenant");
		t = ERR_PTR(-ENOENT);
	}
	if (IS_ERR(t)) {
		err = PTR_ERR(t);
		goto err_unlock;
	}

	msg = genlmsg_new(vgpu_tenant_msg_size(t), GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto err_unlock;
	}
	err = vgpu_tenant_fill(msg, t, current->nsproxy->cgroup_ns, info->snd_portid,
			       info->snd_seq, 0, VGPU_CMD_TENANT_GET, NULL);
	if (err) {
		nlmsg_free(msg);
		goto err_unlock;
	}
	mutex_unlock(&vgpu_lock);

	return genlmsg_reply(msg, info);

err_unlock:
	mutex_unlock(&vgpu_lock);
	return err;
}

/**
 * vgpu_nl_tenant_get_dumpit() - handle a tenant-get dump
 * @skb: message to fill
 * @cb: dump state, kept in @cb->ctx
 *
 * Callers with CAP_NET_ADMIN or in the monitor group get every tenant in
 * id order; others get only the tenant they belong to, if any.
 *
 * Return: bytes written, 0 at the end, or a negative errno.
 */
int vgpu_nl_tenant_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct vgpu_tenant_dump_ctx *ctx = (void *)cb->ctx;
	struct cgroup_namespace *ns = current->nsproxy->cgroup_ns;
	u32 portid = NETLINK_CB(cb->skb).portid;
	u32 seq = cb->nlh->nlmsg_seq;
	struct vgpu_tenant *t;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));

	/*
	 * Every entry went out in earlier calls, each checked against the
	 * generation it was read in. Leave cb->seq alone, so that a change
	 * since then does not flag the final NLMSG_DONE as interrupted.
	 */
	if (ctx->done)
		return 0;

	mutex_lock(&vgpu_lock);
	cb->seq = vgpu_generation;
	if (!vgpu_may_read_all(cb->skb)) {
		t = vgpu_tenant_of_task(current);
		if (t)
			err = vgpu_tenant_fill(skb, t, ns, portid, seq, NLM_F_MULTI,
					       VGPU_CMD_TENANT_GET, cb);
		if (!err)
			ctx->done = true;
		goto out_unlock;
	}

	for (; (t = vgpu_tenant_next(&ctx->id)); ctx->id++) {
		err = vgpu_tenant_fill(skb, t, ns, portid, seq, NLM_F_MULTI,
				       VGPU_CMD_TENANT_GET, cb);
		if (err)
			break;
	}
	if (!t)
		ctx->done = true;
out_unlock:
	mutex_unlock(&vgpu_lock);

	if (err && !skb->len)
		return err;
	return skb->len;
}

/**
 * vgpu_nl_tenant_suspend_doit() - handle tenant-suspend
 * @skb: request
 * @info: request attributes and extack
 *
 * The agent does the work and settles it (tenant_state.c).
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_tenant_suspend_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct vgpu_tenant *t;
	int err;

	mutex_lock(&vgpu_lock);
	t = vgpu_tenant_lookup(info);
	err = IS_ERR(t) ? PTR_ERR(t) : vgpu_tenant_suspend(t, info->extack);
	mutex_unlock(&vgpu_lock);
	return err;
}

/**
 * vgpu_nl_tenant_resume_doit() - handle tenant-resume
 * @skb: request
 * @info: request attributes and extack
 *
 * Return: 0 (resuming, or waiting for room) or a negative errno with the
 * extack message set.
 */
int vgpu_nl_tenant_resume_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct vgpu_tenant *t;
	int err;

	mutex_lock(&vgpu_lock);
	t = vgpu_tenant_lookup(info);
	err = IS_ERR(t) ? PTR_ERR(t) : vgpu_tenant_resume(t, info->extack);
	mutex_unlock(&vgpu_lock);
	return err;
}

/**
 * vgpu_nl_tenant_settle_doit() - handle tenant-settle (the agent)
 * @skb: request
 * @info: request attributes and extack
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_tenant_settle_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *reason = info->attrs[VGPU_A_TENANT_STATE_REASON];
	struct vgpu_tenant *t;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_TENANT_STATE)) {
		NL_SET_ERR_MSG(info->extack, "state is required");
		return -EINVAL;
	}
	mutex_lock(&vgpu_lock);
	t = vgpu_tenant_lookup(info);
	err = IS_ERR(t) ? PTR_ERR(t) :
		vgpu_tenant_settle(t, nla_get_u32(info->attrs[VGPU_A_TENANT_STATE]),
				   reason ? nla_data(reason) : "", info->extack);
	mutex_unlock(&vgpu_lock);
	return err;
}
