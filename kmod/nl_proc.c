// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: netlink handlers of the GPU processes (proc-register, proc-get,
 * proc-del).
 *
 * proc-register runs in the registering process's context: its identity
 * (thread group, cgroup, hence tenant) comes from current, never from the
 * request, which only names its /dev/vgpu file descriptor.
 */
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <net/genetlink.h>

#include "acct.h"
#include "gpu.h"
#include "gpu_choice.h"
#include "nl_gen.h"
#include "proc.h"
#include "tenant.h"
#include "vgpu.h"

/* Position of a proc-get dump. */
struct vgpu_proc_dump_ctx {
	u64 serial;	/* last registration sent or skipped */
	bool done;	/* every process to send was sent */
};

static size_t vgpu_proc_register_msg_size(void)
{
	size_t gpu = nla_total_size(0) +			/* nest */
		     nla_total_size(sizeof(u32)) +		/* index */
		     nla_total_size(VGPU_UUID_LEN + 1) +	/* uuid */
		     2 * nla_total_size_64bit(sizeof(u64)) +	/* vram, vram-max */
		     nla_total_size(0);				/* denied */

	return 2 * nla_total_size(sizeof(u32)) +		/* pid, host-pid */
	       nla_total_size(VGPU_NAME_LEN_MAX + 1) +		/* tenant */
	       2 * nla_total_size(sizeof(u32)) +		/* tenant-id, policy */
	       vgpu_place_msg_size(NULL) +			/* cpus, mems */
	       nla_total_size_64bit(sizeof(u64)) +		/* gpus */
	       VGPU_GPU_MAX * gpu;
}

/*
 * The reply of proc-register: who the process is (its pid in its own pid
 * namespace and in the initial one, which the GPU driver reports) and, per
 * GPU of the
 * inventory, its capacity, the tenant's limit and whether it is denied
 * (outside the tenant's GPUs or those chosen for the process, @gpus);
 * the choice itself; and the tenant's effective CPUs and nodes when
 * restricted.
 */
static int vgpu_proc_register_fill(struct sk_buff *msg, struct genl_info *info,
				   const struct vgpu_tenant *t, u64 gpus)
{
	struct vgpu_gpu *gpu;
	struct nlattr *nest;
	bool denied;
	void *hdr;
	u32 i;

	lockdep_assert_held(&vgpu_lock);
	hdr = genlmsg_put(msg, info->snd_portid, info->snd_seq, &vgpu_nl_family, 0,
			  VGPU_CMD_PROC_REGISTER);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, VGPU_A_PROC_PID, task_tgid_vnr(current)) ||
	    nla_put_u32(msg, VGPU_A_PROC_HOST_PID, task_tgid_nr(current)) ||
	    (t && nla_put_string(msg, VGPU_A_PROC_TENANT, t->name)) ||
	    (t && nla_put_u32(msg, VGPU_A_PROC_TENANT_ID, t->id)) ||
	    nla_put_u32(msg, VGPU_A_PROC_DEFAULT_POLICY, vgpu_default_policy) ||
	    (t && vgpu_place_put(msg, &t->place, VGPU_A_PROC_CPUS, VGPU_A_PROC_MEMS)) ||
	    (gpus != ~0ULL &&
	     nla_put_u64_64bit(msg, VGPU_A_PROC_GPUS, gpus, VGPU_A_PROC_PAD)))
		goto err_cancel;

	vgpu_for_each_gpu(gpu, i) {
		if (t)
			denied = !vgpu_quota_uses_gpu(&t->quota, i);
		else
			denied = vgpu_default_policy == VGPU_DEFAULT_POLICY_DENY;
		denied |= !(gpus & BIT_ULL(i));
		nest = nla_nest_start(msg, VGPU_A_PROC_GPU);
		if (!nest ||
		    nla_put_u32(msg, VGPU_A_PROC_GPU_INDEX, i) ||
		    (gpu->uuid[0] && nla_put_string(msg, VGPU_A_PROC_GPU_UUID, gpu->uuid)) ||
		    nla_put_u64_64bit(msg, VGPU_A_PROC_GPU_VRAM, gpu->vram, VGPU_A_PROC_GPU_PAD) ||
		    (t && (t->quota.set & VGPU_QUOTA_VRAM_MAX) &&
		     nla_put_u64_64bit(msg, VGPU_A_PROC_GPU_VRAM_MAX, t->quota.vram_max,
				       VGPU_A_PROC_GPU_PAD)) ||
		    (denied && nla_put_flag(msg, VGPU_A_PROC_GPU_DENIED)))
			goto err_cancel;
		nla_nest_end(msg, nest);
	}
	genlmsg_end(msg, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

/* The GPUs a registering process asks for (gpus-auto) into @p->gpus. */
static int vgpu_proc_choose(struct vgpu_proc *p, const struct vgpu_tenant *t,
			    struct genl_info *info)
{
	struct nlattr *attr = info->attrs[VGPU_A_PROC_GPUS_AUTO];

	if (!attr)
		return 0;
	if (!t) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "gpus-auto needs a tenant: the process is outside every tenant");
		return -EPERM;
	}
	return vgpu_gpus_choose_proc(t, nla_get_u32(attr), &p->gpus, attr, info->extack);
}

/**
 * vgpu_nl_proc_register_doit() - handle proc-register: register the caller
 * @skb: request
 * @info: request attributes and extack
 *
 * The calling process becomes a GPU user charged to the tenant it belongs
 * to now, with the page of its /dev/vgpu file (attribute fd) as its
 * accounting page, until the socket that sent this is released, the file
 * closed or the process gone. When its tenant's CPUs are restricted, every
 * thread of the process is pinned to them. With gpus-auto, the module
 * chooses that many of the tenant's GPUs for the process and denies it
 * the others; a process outside every tenant may not ask.
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_proc_register_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *fd_attr = info->attrs[VGPU_A_PROC_FD];
	struct vgpu_tenant *t;
	struct vgpu_proc *p;
	struct sk_buff *msg;
	struct file *file;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_PROC_FD)) {
		NL_SET_ERR_MSG(info->extack, "fd is required");
		return -EINVAL;
	}
	/*
	 * fget(), not fdget(): struct fd changed shape in 6.12, and one
	 * reference per registration costs nothing that matters.
	 */
	file = fget(nla_get_u32(fd_attr));
	if (!file || file->f_op != &vgpu_dev_fops) {
		NL_SET_ERR_MSG_ATTR(info->extack, fd_attr, "fd is not an open /dev/vgpu");
		err = -EBADF;
		goto out_fput;
	}

	err = -ENOMEM;
	p = vgpu_proc_alloc();
	if (!p)
		goto out_fput;
	msg = genlmsg_new(vgpu_proc_register_msg_size(), GFP_KERNEL);
	if (!msg)
		goto out_put;

	mutex_lock(&vgpu_lock);
	t = vgpu_tenant_of_task(current);
	err = vgpu_proc_choose(p, t, info);
	if (!err)
		err = vgpu_proc_register_fill(msg, info, t, p->gpus);
	if (!err)
		err = vgpu_proc_link(p, file->private_data, t, genl_info_net(info),
				     info->snd_portid);
	if (!err)
		vgpu_place_pin_proc(p);
	mutex_unlock(&vgpu_lock);
	if (err == -EBUSY)
		NL_SET_ERR_MSG_ATTR(info->extack, fd_attr, "/dev/vgpu file already registered");
	else if (err == -EEXIST)
		NL_SET_ERR_MSG(info->extack, "this socket already registered a process");
	else if (err == -EMFILE)
		NL_SET_ERR_MSG(info->extack, "this process holds too many registrations");
	if (err) {
		nlmsg_free(msg);
		goto out_put;
	}

	err = genlmsg_reply(msg, info);
	/* A process that cannot hear it is registered would never know. */
	if (err)
		vgpu_proc_unregister(p);
out_put:
	vgpu_proc_put(p);
out_fput:
	if (file)
		fput(file);
	return err;
}

/* One process of a proc-get dump. */
static int vgpu_proc_fill(struct sk_buff *skb, const struct vgpu_proc *p, u32 pid,
			  struct netlink_callback *cb)
{
	struct nlattr *nest;
	u64 used, budget;
	void *hdr;
	u32 i;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &vgpu_nl_family, NLM_F_MULTI, VGPU_CMD_PROC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, VGPU_A_PROC_PID, pid) ||
	    nla_put_u32(skb, VGPU_A_PROC_HOST_PID, pid_nr(p->pid)) ||
	    (p->tenant && nla_put_string(skb, VGPU_A_PROC_TENANT, p->tenant->name)) ||
	    (p->tenant && nla_put_u32(skb, VGPU_A_PROC_TENANT_ID, p->tenant->id)) ||
	    (p->gpus != ~0ULL &&
	     nla_put_u64_64bit(skb, VGPU_A_PROC_GPUS, p->gpus, VGPU_A_PROC_PAD)) ||
	    (p->frozen && nla_put_flag(skb, VGPU_A_PROC_SUSPENDED)))
		goto err_cancel;
	for (i = 0; i < VGPU_GPU_MAX; i++) {
		if (!p->granted[i] && !p->parked[i])
			continue;
		used = vgpu_acct_proc_used(p, i);
		budget = p->granted[i] - used;
		nest = nla_nest_start(skb, VGPU_A_PROC_GPU);
		if (!nest ||
		    nla_put_u32(skb, VGPU_A_PROC_GPU_INDEX, i) ||
		    nla_put_u64_64bit(skb, VGPU_A_PROC_GPU_VRAM_USED, used, VGPU_A_PROC_GPU_PAD) ||
		    nla_put_u64_64bit(skb, VGPU_A_PROC_GPU_VRAM_BUDGET, budget,
				      VGPU_A_PROC_GPU_PAD) ||
		    (p->parked[i] &&
		     nla_put_u64_64bit(skb, VGPU_A_PROC_GPU_VRAM_PARKED, p->parked[i],
				       VGPU_A_PROC_GPU_PAD)))
			goto err_cancel;
		nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/**
 * vgpu_nl_proc_get_dumpit() - handle a proc-get dump
 * @skb: message to fill
 * @cb: dump state, kept in @cb->ctx
 *
 * One message per registered process, in registration order, with its
 * pid in the reader's pid namespace (processes without one there are left
 * out), its pid in the initial pid namespace (what NVML reports, so that
 * a reader in a container can translate NVML's pids) and its usage on
 * each GPU where it holds anything. Callers without CAP_NET_ADMIN,
 * outside the monitor group, see only the processes of their own tenant:
 * the walk goes through that tenant's registrations only. The walk lets
 * vgpu_acct_lock go every VGPU_SCAN_BATCH registrations (acct_walk.c) and
 * ends the registrations of the dead processes it meets.
 *
 * Return: bytes written, 0 at the end, or a negative errno.
 */
int vgpu_nl_proc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct vgpu_proc_dump_ctx *ctx = (void *)cb->ctx;
	struct pid_namespace *ns = task_active_pid_ns(current);
	bool admin = vgpu_may_read_all(cb->skb);
	struct vgpu_walk w = VGPU_WALK_INIT;
	struct vgpu_tenant *own = NULL;
	struct vgpu_proc *p;
	LIST_HEAD(dead);
	int err = 0;
	u32 pid;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->ctx));
	if (ctx->done)
		return 0;

	mutex_lock(&vgpu_lock);
	if (!admin) {
		own = vgpu_tenant_of_task(current);
		if (!own)
			goto out_done;
	}
	spin_lock(&vgpu_acct_lock);
	if (own)
		vgpu_walk_start(&w, &own->bucket.procs, true, ctx->serial);
	else
		vgpu_walk_start(&w, &vgpu_procs, false, ctx->serial);
	while ((p = vgpu_walk_next(&w))) {
		if (vgpu_proc_dead(p)) {
			vgpu_proc_end(p, &dead);
			continue;
		}
		pid = pid_nr_ns(p->pid, ns);
		if (pid) {
			err = vgpu_proc_fill(skb, p, pid, cb);
			if (err)
				break;
		}
		ctx->serial = p->serial;
	}
	spin_unlock(&vgpu_acct_lock);
	vgpu_walk_done(&w);
out_done:
	if (!err)
		ctx->done = true;
	mutex_unlock(&vgpu_lock);
	vgpu_proc_put_list(&dead);

	if (err && !skb->len)
		return err;
	return skb->len;
}

/**
 * vgpu_nl_proc_del_doit() - handle proc-del: end a process's registrations
 * @skb: request
 * @info: request attributes and extack
 *
 * The pid is in the caller's pid namespace.
 *
 * Return: 0, or -ENOENT with a message when no such process is registered.
 */
int vgpu_nl_proc_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[VGPU_A_PROC_PID];
	unsigned int ended = 0;
	struct pid *pid;

	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_PROC_PID)) {
		NL_SET_ERR_MSG(info->extack, "pid is required");
		return -EINVAL;
	}
	pid = find_get_pid(nla_get_u32(attr));
	if (pid)
		ended = vgpu_proc_end_pid(pid);
	put_pid(pid);
	if (!ended) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "no registered process has this pid");
		return -ENOENT;
	}
	return 0;
}

/**
 * vgpu_nl_proc_set_doit() - handle proc-set: the agent reports a process
 * @skb: request
 * @info: request attributes and extack
 *
 * The pid is in the caller's pid namespace; suspended parks its charges,
 * its absence thaws them (tenant_state.c).
 *
 * Return: 0 or a negative errno with the extack message set.
 */
int vgpu_nl_proc_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[VGPU_A_PROC_PID];
	struct pid *pid;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, VGPU_A_PROC_PID)) {
		NL_SET_ERR_MSG(info->extack, "pid is required");
		return -EINVAL;
	}
	pid = find_get_pid(nla_get_u32(attr));
	if (!pid) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "no registered process has this pid");
		return -ESRCH;
	}
	mutex_lock(&vgpu_lock);
	err = vgpu_tenant_proc_set(pid, nla_get_flag(info->attrs[VGPU_A_PROC_SUSPENDED]),
				   info->extack);
	mutex_unlock(&vgpu_lock);
	put_pid(pid);
	return err;
}
