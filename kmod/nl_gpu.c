// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: netlink handlers of the GPU inventory (gpu-add, gpu-del, gpu-set,
 * gpu-get).
 */
#include <linux/bits.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "acct.h"
#include "gpu.h"
#include "gpu_choice.h"
#include "nl_gen.h"
#include "tenant.h"
#include "vgpu.h"

/* Position of a GPU dump: the next index to send. */
struct vgpu_gpu_dump_ctx {
	u32 index;
};

static size_t vgpu_gpu_msg_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* index */
	       nla_total_size(VGPU_UUID_LEN + 1) +	/* uuid */
	       nla_total_size(VGPU_PCI_BUF_LEN) +	/* pci */
	       2 * nla_total_size_64bit(sizeof(u64)) +	/* vram, nvlink */
	       2 * nla_total_size(sizeof(u32)) +	/* numa, state */
	       nla_total_size(VGPU_REASON_LEN_MAX + 1);	/* state-reason */
}

static int vgpu_gpu_fill(struct sk_buff *skb, const struct vgpu_gpu *gpu, u32 portid,
			 u32 seq, int flags, u8 cmd, struct netlink_callback *cb)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &vgpu_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	if (nla_put_u32(skb, VGPU_A_GPU_INDEX, gpu->index) ||
	    (gpu->uuid[0] && nla_put_string(skb, VGPU_A_GPU_UUID, gpu->uuid)) ||
	    (gpu->pci[0] && nla_put_string(skb, VGPU_A_GPU_PCI, gpu->pci)) ||
	    nla_put_u64_64bit(skb, VGPU_A_GPU_VRAM, gpu->vram, VGPU_A_GPU_PAD) ||
	    nla_put_s32(skb, VGPU_A_GPU_NUMA, gpu->numa) ||
	    nla_put_u64_64bit(skb, VGPU_A_GPU_NVLINK, gpu->nvlink, VGPU_A_GPU_PAD) ||
	    nla_put_u32(skb, VGPU_A_GPU_STATE, gpu->state) ||
	    (gpu->reason[0] && nla_put_string(skb, VGPU_A_GPU_STATE_REASON, gpu->reason))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static void vgpu_gpu_notify(const struct vgpu_gpu *gpu, u8 cmd)
{
	struct sk_buff *msg;

	if (!vgpu_nl_has_listeners())
		return;
	msg = genlmsg_new(vgpu_gpu_msg_size(), GFP_KERNEL);
	if (!msg)
		return;
	if (vgpu_gpu_fill(msg, gpu, 0, 0, 0, cmd, NULL)) {
		nlmsg_free(msg);
		return;
	}
	vgpu_nl_notify(msg);
}

/* Checks and fills everything of a new GPU that needs no lock. */
static int vgpu_gpu_parse(struct vgpu_gpu *gpu, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;

	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_GPU_INDEX)) {
		NL_SET_ERR_MSG(info->extack, "GPU index is required");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_GPU_VRAM)) {
		NL_SET_ERR_MSG(info->extack, "GPU vram is required");
		return -EINVAL;
	}
	gpu->index = nla_get_u32(attrs[VGPU_A_GPU_INDEX]);
	gpu->vram = nla_get_u64(attrs[VGPU_A_GPU_VRAM]);
	gpu->numa = NUMA_NO_NODE;
	if (attrs[VGPU_A_GPU_NUMA])
		gpu->numa = nla_get_s32(attrs[VGPU_A_GPU_NUMA]);
	return 0;
}

/* Checks a new GPU's uuid, unique among the GPUs, and copies it in. */
static int vgpu_gpu_check_uuid(struct vgpu_gpu *gpu, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[VGPU_A_GPU_UUID];

	if (!attr)
		return 0;
	if (!vgpu_uuid_valid(nla_data(attr))) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "uuid must be GPU- followed by 8-4-4-4-12 hex digits");
		return -EINVAL;
	}
	if (vgpu_gpu_find_uuid(nla_data(attr))) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "uuid already belongs to another GPU");
		return -EEXIST;
	}
	nla_strscpy(gpu->uuid, attr, sizeof(gpu->uuid));
	return 0;
}

/* Checks a new GPU's PCI bus id, unique among the GPUs, and copies it in. */
static int vgpu_gpu_check_pci(struct vgpu_gpu *gpu, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[VGPU_A_GPU_PCI];

	if (!attr)
		return 0;
	if (vgpu_pci_normalise(nla_data(attr), gpu->pci)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "pci must be a bus id such as 0000:3b:00.0");
		return -EINVAL;
	}
	if (vgpu_gpu_find_pci(gpu->pci)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "pci bus id already belongs to another GPU");
		return -EEXIST;
	}
	return 0;
}

/*
 * Checks a new GPU from vgpu_gpu_parse() against the inventory and the
 * tenants, filling in its uuid and PCI bus id; changes nothing else.
 */
static int vgpu_gpu_add_check(struct vgpu_gpu *gpu, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	int err;

	lockdep_assert_held(&vgpu_lock);
	if (vgpu_gpu_get(gpu->index)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[VGPU_A_GPU_INDEX],
				    "GPU index already in use");
		return -EEXIST;
	}
	err = vgpu_gpu_check_uuid(gpu, info);
	if (err)
		return err;
	err = vgpu_gpu_check_pci(gpu, info);
	if (err)
		return err;
	if (gpu->numa != NUMA_NO_NODE && !node_online(gpu->numa)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[VGPU_A_GPU_NUMA],
				    "numa node is not online");
		return -EINVAL;
	}
	/* Tenants with no gpus quota may use the new GPU at once. */
	if (gpu->vram < vgpu_tenant_reserved(gpu->index, NULL, false)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[VGPU_A_GPU_VRAM],
				    "vram is below the vram-min reserved by tenants not preemptible");
		return -ENOSPC;
	}
	return 0;
}

/*
 * Puts a checked GPU in the inventory, whose placements were prepared by
 * vgpu_place_prepare_gpus(); cannot fail.
 */
static void vgpu_gpu_add_commit(struct vgpu_gpu *gpu)
{
	lockdep_assert_held(&vgpu_lock);
	vgpu_gpu_insert(gpu);
	vgpu_acct_gpu_add(gpu->index, gpu->vram);
	vgpu_changed();
	vgpu_gpu_notify(gpu, VGPU_CMD_GPU_ADD_NTF);
	vgpu_place_commit_gpus();
}

/**
 * vgpu_nl_gpu_add_doit() - handle gpu-add: add a GPU to the inventory
 * @skb: request
 * @info: request attributes and extack
 *
 * In phases: parse the request, check it under vgpu_lock, prepare the
 * placements it changes (the last step that may fail), commit.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_gpu_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct vgpu_gpu *gpu;
	int err;

	gpu = kzalloc(sizeof(*gpu), GFP_KERNEL);
	if (!gpu)
		return -ENOMEM;
	err = vgpu_gpu_parse(gpu, info);
	if (err)
		goto err_free;

	mutex_lock(&vgpu_lock);
	err = vgpu_gpu_add_check(gpu, info);
	if (err)
		goto err_unlock;
	/* Tenants with auto placement may gain the GPU's node. */
	err = vgpu_place_prepare_gpus(vgpu_gpu_present() | BIT_ULL(gpu->index), gpu,
				      info->extack);
	if (err)
		goto err_unlock;
	vgpu_gpu_add_commit(gpu);
	mutex_unlock(&vgpu_lock);
	return 0;

err_unlock:
	mutex_unlock(&vgpu_lock);
err_free:
	kfree(gpu);
	return err;
}

/* Looks up the GPU a gpu-del or gpu-get request names. */
static struct vgpu_gpu *vgpu_gpu_lookup(struct genl_info *info)
{
	struct vgpu_gpu *gpu;

	lockdep_assert_held(&vgpu_lock);
	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_GPU_INDEX)) {
		NL_SET_ERR_MSG(info->extack, "GPU index is required");
		return ERR_PTR(-EINVAL);
	}
	gpu = vgpu_gpu_get(nla_get_u32(info->attrs[VGPU_A_GPU_INDEX]));
	if (!gpu) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VGPU_A_GPU_INDEX], "unknown GPU");
		return ERR_PTR(-ENOENT);
	}
	return gpu;
}

/**
 * vgpu_nl_gpu_del_doit() - handle gpu-del: remove a GPU no tenant names
 * @skb: request
 * @info: request attributes and extack
 *
 * Refused while bytes are charged on the GPU (after taking unspent
 * budgets back) or parked for it by a suspended tenant.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_gpu_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct vgpu_gpu *gpu;
	int err = 0;

	mutex_lock(&vgpu_lock);
	gpu = vgpu_gpu_lookup(info);
	if (IS_ERR(gpu)) {
		err = PTR_ERR(gpu);
		goto out_unlock;
	}
	if (vgpu_tenant_names_gpu(gpu->index)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VGPU_A_GPU_INDEX],
				    "GPU is named in a tenant's gpus");
		err = -EBUSY;
		goto out_unlock;
	}
	/* Tenants with auto placement and no gpus quota may lose its node. */
	err = vgpu_place_prepare_gpus(vgpu_gpu_present() & ~BIT_ULL(gpu->index), NULL,
				      info->extack);
	if (err)
		goto out_unlock;
	err = vgpu_acct_gpu_del(gpu->index);
	if (err) {
		vgpu_place_abort();
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[VGPU_A_GPU_INDEX],
				    "GPU has allocations (held, or parked by a suspended tenant)");
		goto out_unlock;
	}
	vgpu_gpu_notify(gpu, VGPU_CMD_GPU_DEL_NTF);
	vgpu_gpu_remove(gpu);
	vgpu_changed();
	vgpu_place_commit_gpus();
out_unlock:
	mutex_unlock(&vgpu_lock);
	return err;
}

/* Checks a gpu-set request against the inventory; changes nothing. */
static int vgpu_gpu_set_check(const struct vgpu_gpu *gpu, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	u32 state = gpu->state;
	u64 peers;

	if (!attrs[VGPU_A_GPU_NVLINK] && !attrs[VGPU_A_GPU_STATE] &&
	    !attrs[VGPU_A_GPU_STATE_REASON]) {
		NL_SET_ERR_MSG(info->extack, "nvlink, state or state-reason is required");
		return -EINVAL;
	}
	if (attrs[VGPU_A_GPU_NVLINK]) {
		peers = nla_get_u64(attrs[VGPU_A_GPU_NVLINK]);
		if (peers & BIT_ULL(gpu->index)) {
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[VGPU_A_GPU_NVLINK],
					    "nvlink names the GPU itself");
			return -EINVAL;
		}
		if (peers & ~vgpu_gpu_present()) {
			NL_SET_ERR_MSG_ATTR(info->extack, attrs[VGPU_A_GPU_NVLINK],
					    "nvlink names an unknown GPU");
			return -ENOENT;
		}
	}
	if (attrs[VGPU_A_GPU_STATE])
		state = nla_get_u32(attrs[VGPU_A_GPU_STATE]);
	if (attrs[VGPU_A_GPU_STATE_REASON] && state == VGPU_GPU_STATE_HEALTHY) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[VGPU_A_GPU_STATE_REASON],
				    "a healthy GPU has no state-reason");
		return -EINVAL;
	}
	return 0;
}

/*
 * Tells the monitor group of a changed GPU and, when its state changed,
 * of each tenant that may use it: those tenants' listeners see the event.
 */
static void vgpu_gpu_changed(const struct vgpu_gpu *gpu, bool state_changed)
{
	struct vgpu_tenant *t;
	unsigned long id = 0;

	vgpu_changed();
	vgpu_gpu_notify(gpu, VGPU_CMD_GPU_CHANGE_NTF);
	if (!state_changed)
		return;
	for (; (t = vgpu_tenant_next(&id)); id++) {
		if (vgpu_quota_uses_gpu(&t->quota, gpu->index))
			vgpu_tenant_notify(t, VGPU_CMD_TENANT_CHANGE_NTF);
	}
}

/**
 * vgpu_nl_gpu_set_doit() - handle gpu-set: a GPU's NVLink peers and health
 * @skb: request
 * @info: request attributes and extack
 *
 * nvlink replaces the GPU's peers, and the peers' links to it follow.
 * A state other than healthy keeps new tenants off the GPU (gpu_choice.c);
 * the tenants already there stay. Back to healthy, the reason is cleared;
 * a new state without a reason clears the old one.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_gpu_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;
	bool state_changed = false;
	struct vgpu_gpu *gpu;
	u32 state;
	int err;

	mutex_lock(&vgpu_lock);
	gpu = vgpu_gpu_lookup(info);
	if (IS_ERR(gpu)) {
		err = PTR_ERR(gpu);
		goto out_unlock;
	}
	err = vgpu_gpu_set_check(gpu, info);
	if (err)
		goto out_unlock;
	if (attrs[VGPU_A_GPU_NVLINK])
		vgpu_gpu_set_nvlink(gpu, nla_get_u64(attrs[VGPU_A_GPU_NVLINK]));
	if (attrs[VGPU_A_GPU_STATE]) {
		state = nla_get_u32(attrs[VGPU_A_GPU_STATE]);
		state_changed = state != gpu->state;
		gpu->state = state;
		gpu->reason[0] = '\0';
	}
	if (attrs[VGPU_A_GPU_STATE_REASON])
		nla_strscpy(gpu->reason, attrs[VGPU_A_GPU_STATE_REASON], sizeof(gpu->reason));
	vgpu_gpu_changed(gpu, state_changed);
out_unlock:
	mutex_unlock(&vgpu_lock);
	return err;
}

/**
 * vgpu_nl_gpu_get_doit() - handle gpu-get: describe one GPU
 * @skb: request
 * @info: request attributes and extack
 *
 * The inventory is readable by everyone.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_gpu_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct vgpu_gpu *gpu;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(vgpu_gpu_msg_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&vgpu_lock);
	gpu = vgpu_gpu_lookup(info);
	if (IS_ERR(gpu)) {
		err = PTR_ERR(gpu);
		goto err_unlock;
	}
	err = vgpu_gpu_fill(msg, gpu, info->snd_portid, info->snd_seq, 0,
			    VGPU_CMD_GPU_GET, NULL);
	if (err)
		goto err_unlock;
	mutex_unlock(&vgpu_lock);

	return genlmsg_reply(msg, info);

err_unlock:
	mutex_unlock(&vgpu_lock);
	nlmsg_free(msg);
	return err;
}

/**
 * vgpu_nl_gpu_get_dumpit() - handle a gpu-get dump: describe every GPU
 * @skb: message to fill
 * @cb: dump state; the next index to send is kept in @cb->ctx
 *
 * Return: bytes written, 0 at the end, or a negative errno.
 */
int vgpu_nl_gpu_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct vgpu_gpu_dump_ctx *ctx = (void *)cb->ctx;
	struct vgpu_gpu *gpu;
	int err = 0;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));

	/*
	 * Every entry went out in earlier calls, each checked against the
	 * generation it was read in. Leave cb->seq alone, so that a change
	 * since then does not flag the final NLMSG_DONE as interrupted.
	 */
	if (ctx->index >= VGPU_GPU_MAX)
		return 0;

	mutex_lock(&vgpu_lock);
	cb->seq = vgpu_generation;
	for (; ctx->index < VGPU_GPU_MAX; ctx->index++) {
		gpu = vgpu_gpu_get(ctx->index);
		if (!gpu)
			continue;
		err = vgpu_gpu_fill(skb, gpu, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				    NLM_F_MULTI, VGPU_CMD_GPU_GET, cb);
		if (err)
			break;
	}
	mutex_unlock(&vgpu_lock);

	if (err && !skb->len)
		return err;
	return skb->len;
}
