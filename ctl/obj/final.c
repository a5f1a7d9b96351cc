// SPDX-License-Identifier: GPL-2.0
/*
 * Final records of deleted tenants: reading them into a struct, dumping
 * them, acknowledging them (see final.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "final.h"
#include "../lib/spec_policy.h"

static uint64_t u64_or0(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t u32_or0(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

/* Bit i set for each tb[i] present. */
static uint32_t present(struct nlattr **tb, int max)
{
	uint32_t bits = 0;
	int i;

	for (i = 1; i <= max && i < 32; i++)
		if (tb[i])
			bits |= 1u << i;
	return bits;
}

/**
 * vgpuctl_usage_read() - a usage nest into a struct
 * @nest: a VGPU_A_TENANT_USAGE attribute
 * @u: out
 *
 * Return: 0, or -EPROTO when malformed or without a GPU index.
 */
int vgpuctl_usage_read(struct nlattr *nest, struct vgpuctl_usage *u)
{
	struct nlattr *tb[VGPU_A_USAGE_MAX + 1];

	if (nla_parse_nested(tb, VGPU_A_USAGE_MAX, nest, vgpu_usage_nl_policy) < 0 ||
	    !tb[VGPU_A_USAGE_GPU])
		return -EPROTO;
	*u = (struct vgpuctl_usage) {
		.has = present(tb, VGPU_A_USAGE_MAX),
		.gpu = nla_get_u32(tb[VGPU_A_USAGE_GPU]),
		.vram_current = u64_or0(tb[VGPU_A_USAGE_VRAM_CURRENT]),
		.vram_peak = u64_or0(tb[VGPU_A_USAGE_VRAM_PEAK]),
		.vram_budget = u64_or0(tb[VGPU_A_USAGE_VRAM_BUDGET]),
		.vram_failures = u64_or0(tb[VGPU_A_USAGE_VRAM_FAILURES]),
		.vram_byte_seconds = u64_or0(tb[VGPU_A_USAGE_VRAM_BYTE_SECONDS]),
		.gpu_time_ns = u64_or0(tb[VGPU_A_USAGE_GPU_TIME_NS]),
		.throttled_ns = u64_or0(tb[VGPU_A_USAGE_THROTTLED_NS]),
		.grants = u64_or0(tb[VGPU_A_USAGE_GRANTS]),
		.vram_overdrafts = u64_or0(tb[VGPU_A_USAGE_VRAM_OVERDRAFTS]),
		.vram_reserved_byte_seconds =
			u64_or0(tb[VGPU_A_USAGE_VRAM_RESERVED_BYTE_SECONDS]),
		.vram_scans = u64_or0(tb[VGPU_A_USAGE_VRAM_SCANS]),
	};
	return 0;
}

/* The label and usage nests (multi-attributes) of a record. */
static int read_nests(struct nlmsghdr *nlh, struct vgpuctl_final *f)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *a, *ltb[VGPU_A_LABEL_MAX + 1];
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) == VGPU_A_TENANT_USAGE) {
			if (f->nusage == VGPU_GPU_MAX ||
			    vgpuctl_usage_read(a, &f->usage[f->nusage]))
				return -EPROTO;
			f->nusage++;
		} else if (nla_type(a) == VGPU_A_TENANT_LABEL) {
			if (f->nlabels == VGPU_LABEL_MAX ||
			    nla_parse_nested(ltb, VGPU_A_LABEL_MAX, a, vgpu_label_nl_policy) < 0 ||
			    !ltb[VGPU_A_LABEL_KEY] || !ltb[VGPU_A_LABEL_VALUE])
				return -EPROTO;
			f->labels[f->nlabels].key = nla_get_string(ltb[VGPU_A_LABEL_KEY]);
			f->labels[f->nlabels].value = nla_get_string(ltb[VGPU_A_LABEL_VALUE]);
			f->nlabels++;
		}
	}
	return 0;
}

/* A tenant message into @f; @final: it must be a final record (final-seq). */
static int tenant_read(struct nlmsghdr *nlh, struct vgpuctl_final *f, bool final)
{
	static const struct { int attr; uint32_t bit; } quotas[] = {
		{ VGPU_A_TENANT_VRAM_MAX, VGPU_QUOTA_VRAM_MAX },
		{ VGPU_A_TENANT_VRAM_MIN, VGPU_QUOTA_VRAM_MIN },
		{ VGPU_A_TENANT_GPUS, VGPU_QUOTA_GPUS },
		{ VGPU_A_TENANT_WEIGHT, VGPU_QUOTA_WEIGHT },
		{ VGPU_A_TENANT_COMPUTE_MAX, VGPU_QUOTA_COMPUTE_MAX },
		{ VGPU_A_TENANT_PRIORITY, VGPU_QUOTA_PRIORITY },
		{ VGPU_A_TENANT_PREEMPTIBLE, VGPU_QUOTA_PREEMPTIBLE },
		{ VGPU_A_TENANT_VRAM_WAIT, VGPU_QUOTA_VRAM_WAIT },
	};
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];
	size_t i;

	memset(f, 0, sizeof(*f));
	if (genlmsg_parse(nlh, 0, tb, VGPU_A_TENANT_MAX, vgpu_tenant_nl_policy) < 0 ||
	    (final && !tb[VGPU_A_TENANT_FINAL_SEQ]) || !tb[VGPU_A_TENANT_NAME])
		return -EPROTO;
	f->seq = u64_or0(tb[VGPU_A_TENANT_FINAL_SEQ]);
	f->name = nla_get_string(tb[VGPU_A_TENANT_NAME]);
	f->id = u32_or0(tb[VGPU_A_TENANT_ID]);
	f->cgroup = tb[VGPU_A_TENANT_CGROUP] ? nla_get_string(tb[VGPU_A_TENANT_CGROUP]) : "";
	f->cgroup_id = u64_or0(tb[VGPU_A_TENANT_CGROUP_ID]);
	f->ephemeral = tb[VGPU_A_TENANT_EPHEMERAL];
	f->has_created = tb[VGPU_A_TENANT_CREATED];
	f->created = u64_or0(tb[VGPU_A_TENANT_CREATED]);
	f->deleted = u64_or0(tb[VGPU_A_TENANT_DELETED]);
	f->reason = u32_or0(tb[VGPU_A_TENANT_DEL_REASON]);
	f->has_state = tb[VGPU_A_TENANT_STATE];
	f->state = u32_or0(tb[VGPU_A_TENANT_STATE]);
	f->host_bytes = u64_or0(tb[VGPU_A_TENANT_HOST_BYTES]);
	f->suspended_ns = u64_or0(tb[VGPU_A_TENANT_SUSPENDED_NS]);
	for (i = 0; i < sizeof(quotas) / sizeof(quotas[0]); i++)
		if (tb[quotas[i].attr])
			f->quota_set |= quotas[i].bit;
	f->vram_max = u64_or0(tb[VGPU_A_TENANT_VRAM_MAX]);
	f->vram_min = u64_or0(tb[VGPU_A_TENANT_VRAM_MIN]);
	f->gpus = u64_or0(tb[VGPU_A_TENANT_GPUS]);
	f->weight = u32_or0(tb[VGPU_A_TENANT_WEIGHT]);
	f->compute_max = u32_or0(tb[VGPU_A_TENANT_COMPUTE_MAX]);
	f->priority = u32_or0(tb[VGPU_A_TENANT_PRIORITY]);
	f->preemptible = u32_or0(tb[VGPU_A_TENANT_PREEMPTIBLE]);
	f->vram_wait = u32_or0(tb[VGPU_A_TENANT_VRAM_WAIT]);
	return read_nests(nlh, f);
}

/**
 * vgpuctl_final_parse() - a final record message into a struct
 * @nlh: a tenant-final-get reply or a tenant-del-ntf
 * @f: out; its strings point into @nlh
 *
 * Return: 0, or -EPROTO when malformed or without final-seq or name.
 */
int vgpuctl_final_parse(struct nlmsghdr *nlh, struct vgpuctl_final *f)
{
	return tenant_read(nlh, f, true);
}

/**
 * vgpuctl_tenant_read() - a live tenant (a tenant-get reply) into a struct
 * @nlh: the message
 * @f: out, as vgpuctl_final_parse() fills it; seq, deleted and reason 0
 *
 * Return: 0, or -EPROTO when malformed or without a name.
 */
int vgpuctl_tenant_read(struct nlmsghdr *nlh, struct vgpuctl_final *f)
{
	return tenant_read(nlh, f, false);
}

struct each_arg {
	vgpuctl_final_fn fn;
	void *arg;
};

static int each_one(struct nlmsghdr *nlh, void *arg)
{
	struct each_arg *ea = arg;
	struct vgpuctl_final *f = malloc(sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	err = vgpuctl_final_parse(nlh, f);
	if (!err)
		err = ea->fn(f, ea->arg);
	free(f);
	return err;
}

/**
 * vgpuctl_final_each() - dump the final records, oldest first
 * @nl: an open handle
 * @fn: called for each record
 * @arg: its argument
 *
 * Needs CAP_NET_ADMIN or the monitor group (else -EPERM).
 *
 * Return: 0, or a negative errno (@nl->msg has the kernel's message).
 */
int vgpuctl_final_each(struct vgpu_nl *nl, vgpuctl_final_fn fn, void *arg)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_TENANT_FINAL_GET, true);
	struct each_arg ea = { .fn = fn, .arg = arg };

	if (!msg)
		return -ENOMEM;
	return vgpuctl_nl_request(nl, msg, each_one, &ea);
}

/**
 * vgpuctl_final_ack() - acknowledge final records (CAP_NET_ADMIN)
 * @nl: an open handle
 * @seq: the records with a final-seq up to this one are dropped
 *
 * Return: 0, or a negative errno (@nl->msg has the kernel's message).
 */
int vgpuctl_final_ack(struct vgpu_nl *nl, uint64_t seq)
{
	struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_TENANT_FINAL_DEL, false);

	if (!msg)
		return -ENOMEM;
	if (nla_put_u64(msg, VGPU_A_TENANT_FINAL_SEQ, seq) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return vgpuctl_nl_request(nl, msg, NULL, NULL);
}
