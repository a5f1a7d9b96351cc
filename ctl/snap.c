// SPDX-License-Identifier: GPL-2.0
/*
 * A snapshot of vgpu.ko's state for metrics and account (see snap.h): the
 * dumps are read into plain structures, each retried when a concurrent
 * change interrupts it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/genl.h>

#include "snap.h"

/* Tries of a dump that keeps being interrupted by concurrent changes. */
#define SNAP_DUMP_TRIES	5

static struct nla_policy host_policy[VGPU_A_HOST_MAX + 1] = {
	[VGPU_A_HOST_DEFAULT_POLICY] = { .type = NLA_U32 },
	[VGPU_A_HOST_PROCS] = { .type = NLA_U32 },
	[VGPU_A_HOST_INSTANCE_ID] = { .type = NLA_U64 },
	[VGPU_A_HOST_LOADED] = { .type = NLA_U64 },
	[VGPU_A_HOST_MONITOR_GID] = { .type = NLA_U32 },
	[VGPU_A_HOST_FINALS] = { .type = NLA_U32 },
	[VGPU_A_HOST_FINALS_DROPPED] = { .type = NLA_U64 },
};

static struct nla_policy gpu_policy[VGPU_A_GPU_MAX + 1] = {
	[VGPU_A_GPU_INDEX] = { .type = NLA_U32 },
	[VGPU_A_GPU_UUID] = { .type = NLA_STRING },
	[VGPU_A_GPU_PCI] = { .type = NLA_STRING },
	[VGPU_A_GPU_VRAM] = { .type = NLA_U64 },
	[VGPU_A_GPU_NUMA] = { .type = NLA_U32 },
};

static struct nla_policy tenant_policy[VGPU_A_TENANT_MAX + 1] = {
	[VGPU_A_TENANT_NAME] = { .type = NLA_STRING },
	[VGPU_A_TENANT_ID] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CGROUP] = { .type = NLA_STRING },
	[VGPU_A_TENANT_CGROUP_ID] = { .type = NLA_U64 },
	[VGPU_A_TENANT_VRAM_MAX] = { .type = NLA_U64 },
	[VGPU_A_TENANT_VRAM_MIN] = { .type = NLA_U64 },
	[VGPU_A_TENANT_GPUS] = { .type = NLA_U64 },
	[VGPU_A_TENANT_WEIGHT] = { .type = NLA_U32 },
	[VGPU_A_TENANT_COMPUTE_MAX] = { .type = NLA_U32 },
	[VGPU_A_TENANT_PRIORITY] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CPUS] = { .type = NLA_STRING },
	[VGPU_A_TENANT_MEMS] = { .type = NLA_STRING },
	[VGPU_A_TENANT_CGROUP_REMOVED] = { .type = NLA_FLAG },
	[VGPU_A_TENANT_USAGE] = { .type = NLA_NESTED },
	[VGPU_A_TENANT_PLACEMENT] = { .type = NLA_U32 },
	[VGPU_A_TENANT_EXCLUSIVE] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CPUS_EFFECTIVE] = { .type = NLA_STRING },
	[VGPU_A_TENANT_MEMS_EFFECTIVE] = { .type = NLA_STRING },
	[VGPU_A_TENANT_LABEL] = { .type = NLA_NESTED },
	[VGPU_A_TENANT_EPHEMERAL] = { .type = NLA_FLAG },
	[VGPU_A_TENANT_CREATED] = { .type = NLA_U64 },
	[VGPU_A_TENANT_DELETED] = { .type = NLA_U64 },
	[VGPU_A_TENANT_DEL_REASON] = { .type = NLA_U32 },
	[VGPU_A_TENANT_FINAL_SEQ] = { .type = NLA_U64 },
};

static struct nla_policy label_policy[VGPU_A_LABEL_MAX + 1] = {
	[VGPU_A_LABEL_KEY] = { .type = NLA_STRING },
	[VGPU_A_LABEL_VALUE] = { .type = NLA_STRING },
};

static struct nla_policy usage_policy[VGPU_A_USAGE_MAX + 1] = {
	[VGPU_A_USAGE_GPU] = { .type = NLA_U32 },
	[VGPU_A_USAGE_VRAM_CURRENT] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_PEAK] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_FAILURES] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_BUDGET] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_BYTE_SECONDS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_GPU_TIME_NS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_THROTTLED_NS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_GRANTS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_OVERDRAFTS] = { .type = NLA_U64 },
	[VGPU_A_USAGE_VRAM_RESERVED_BYTE_SECONDS] = { .type = NLA_U64 },
};

static struct nla_policy proc_policy[VGPU_A_PROC_MAX + 1] = {
	[VGPU_A_PROC_PID] = { .type = NLA_U32 },
	[VGPU_A_PROC_TENANT] = { .type = NLA_STRING },
	[VGPU_A_PROC_TENANT_ID] = { .type = NLA_U32 },
	[VGPU_A_PROC_GPU] = { .type = NLA_NESTED },
};

static uint64_t u64_of(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t u32_of(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

static void str_of(char *dst, size_t len, struct nlattr *a)
{
	snprintf(dst, len, "%s", a ? nla_get_string(a) : "");
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A growing array of @size-byte elements. */
struct vec {
	void **v;
	size_t *n;
	size_t cap, size;
};

static void *vec_add(struct vec *a)
{
	if (*a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 8;
		void *v = realloc(*a->v, cap * a->size);

		if (!v)
			return NULL;
		*a->v = v;
		a->cap = cap;
	}
	memset((char *)*a->v + *a->n * a->size, 0, a->size);
	return (char *)*a->v + (*a->n)++ * a->size;
}

static int host_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_HOST_MAX + 1];
	struct vgpu_snap_host *h = arg;

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_HOST_MAX, host_policy) < 0)
		return -EPROTO;
	h->has_policy = tb[VGPU_A_HOST_DEFAULT_POLICY];
	h->policy = u32_of(tb[VGPU_A_HOST_DEFAULT_POLICY]);
	h->has_procs = tb[VGPU_A_HOST_PROCS];
	h->procs = u32_of(tb[VGPU_A_HOST_PROCS]);
	h->has_instance = tb[VGPU_A_HOST_INSTANCE_ID];
	h->instance_id = u64_of(tb[VGPU_A_HOST_INSTANCE_ID]);
	h->has_loaded = tb[VGPU_A_HOST_LOADED];
	h->loaded = u64_of(tb[VGPU_A_HOST_LOADED]);
	h->has_monitor_gid = tb[VGPU_A_HOST_MONITOR_GID];
	h->monitor_gid = u32_of(tb[VGPU_A_HOST_MONITOR_GID]);
	h->has_finals = tb[VGPU_A_HOST_FINALS];
	h->finals = u32_of(tb[VGPU_A_HOST_FINALS]);
	h->has_finals_dropped = tb[VGPU_A_HOST_FINALS_DROPPED];
	h->finals_dropped = u64_of(tb[VGPU_A_HOST_FINALS_DROPPED]);
	return 0;
}

static int gpu_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_GPU_MAX + 1];
	struct vgpu_snap_gpu *g;

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_GPU_MAX, gpu_policy) < 0 ||
	    !tb[VGPU_A_GPU_INDEX])
		return -EPROTO;
	g = vec_add(arg);
	if (!g)
		return -ENOMEM;
	g->index = nla_get_u32(tb[VGPU_A_GPU_INDEX]);
	str_of(g->uuid, sizeof(g->uuid), tb[VGPU_A_GPU_UUID]);
	str_of(g->pci, sizeof(g->pci), tb[VGPU_A_GPU_PCI]);
	g->vram = u64_of(tb[VGPU_A_GPU_VRAM]);
	g->numa = tb[VGPU_A_GPU_NUMA] ? (int32_t)nla_get_u32(tb[VGPU_A_GPU_NUMA]) : -1;
	return 0;
}

static int parse_label(struct vgpu_snap_tenant *t, struct nlattr *a)
{
	struct nlattr *lb[VGPU_A_LABEL_MAX + 1];
	struct vgpu_snap_label *l;

	if (nla_parse_nested(lb, VGPU_A_LABEL_MAX, a, label_policy) < 0 ||
	    !lb[VGPU_A_LABEL_KEY] || t->nlabels == VGPU_LABEL_MAX)
		return -EPROTO;
	l = &t->labels[t->nlabels++];
	str_of(l->key, sizeof(l->key), lb[VGPU_A_LABEL_KEY]);
	str_of(l->value, sizeof(l->value), lb[VGPU_A_LABEL_VALUE]);
	return 0;
}

static int parse_usage(struct vgpu_snap_tenant *t, struct nlattr *a)
{
	struct nlattr *u[VGPU_A_USAGE_MAX + 1];
	struct vgpu_snap_usage *s;

	if (nla_parse_nested(u, VGPU_A_USAGE_MAX, a, usage_policy) < 0 ||
	    !u[VGPU_A_USAGE_GPU] || t->nusage == VGPU_GPU_MAX)
		return -EPROTO;
	s = &t->usage[t->nusage++];
	s->gpu = nla_get_u32(u[VGPU_A_USAGE_GPU]);
	s->vram_current = u64_of(u[VGPU_A_USAGE_VRAM_CURRENT]);
	s->vram_peak = u64_of(u[VGPU_A_USAGE_VRAM_PEAK]);
	s->vram_failures = u64_of(u[VGPU_A_USAGE_VRAM_FAILURES]);
	s->vram_budget = u64_of(u[VGPU_A_USAGE_VRAM_BUDGET]);
	s->vram_byte_seconds = u64_of(u[VGPU_A_USAGE_VRAM_BYTE_SECONDS]);
	s->vram_reserved_byte_seconds = u64_of(u[VGPU_A_USAGE_VRAM_RESERVED_BYTE_SECONDS]);
	s->gpu_time_ns = u64_of(u[VGPU_A_USAGE_GPU_TIME_NS]);
	s->throttled_ns = u64_of(u[VGPU_A_USAGE_THROTTLED_NS]);
	s->grants = u64_of(u[VGPU_A_USAGE_GRANTS]);
	s->vram_overdrafts = u64_of(u[VGPU_A_USAGE_VRAM_OVERDRAFTS]);
	return 0;
}

static void tenant_scalars(struct vgpu_snap_tenant *t, struct nlattr **tb)
{
	str_of(t->name, sizeof(t->name), tb[VGPU_A_TENANT_NAME]);
	t->id = u32_of(tb[VGPU_A_TENANT_ID]);
	str_of(t->cgroup, sizeof(t->cgroup), tb[VGPU_A_TENANT_CGROUP]);
	t->cgroup_id = u64_of(tb[VGPU_A_TENANT_CGROUP_ID]);
	t->has_vram_max = tb[VGPU_A_TENANT_VRAM_MAX];
	t->vram_max = u64_of(tb[VGPU_A_TENANT_VRAM_MAX]);
	t->has_vram_min = tb[VGPU_A_TENANT_VRAM_MIN];
	t->vram_min = u64_of(tb[VGPU_A_TENANT_VRAM_MIN]);
	t->has_gpus = tb[VGPU_A_TENANT_GPUS];
	t->gpus = u64_of(tb[VGPU_A_TENANT_GPUS]);
	t->weight = tb[VGPU_A_TENANT_WEIGHT] ? nla_get_u32(tb[VGPU_A_TENANT_WEIGHT]) :
		VGPU_WEIGHT_DEFAULT;
	t->has_compute_max = tb[VGPU_A_TENANT_COMPUTE_MAX];
	t->compute_max = u32_of(tb[VGPU_A_TENANT_COMPUTE_MAX]);
	t->priority = tb[VGPU_A_TENANT_PRIORITY] ? nla_get_u32(tb[VGPU_A_TENANT_PRIORITY]) :
		VGPU_PRIORITY_NORMAL;
	t->ephemeral = tb[VGPU_A_TENANT_EPHEMERAL];
	t->cgroup_removed = tb[VGPU_A_TENANT_CGROUP_REMOVED];
	t->has_created = tb[VGPU_A_TENANT_CREATED];
	t->created = u64_of(tb[VGPU_A_TENANT_CREATED]);
	t->final_seq = u64_of(tb[VGPU_A_TENANT_FINAL_SEQ]);
	t->deleted = u64_of(tb[VGPU_A_TENANT_DELETED]);
	t->del_reason = u32_of(tb[VGPU_A_TENANT_DEL_REASON]);
}

/* A tenant-get reply or a final record into a new element of the vec @arg. */
static int tenant_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1], *a;
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct vgpu_snap_tenant *t;
	int rem, err = 0;

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_TENANT_MAX, tenant_policy) < 0 ||
	    !tb[VGPU_A_TENANT_ID] || !tb[VGPU_A_TENANT_NAME])
		return -EPROTO;
	t = vec_add(arg);
	if (!t)
		return -ENOMEM;
	tenant_scalars(t, tb);
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) == VGPU_A_TENANT_LABEL)
			err = parse_label(t, a);
		else if (nla_type(a) == VGPU_A_TENANT_USAGE)
			err = parse_usage(t, a);
		if (err)
			return err;
	}
	return 0;
}

static struct vgpu_snap_usage *usage_of(struct vgpu_snap *s, uint32_t id, uint32_t gpu)
{
	size_t i, j;

	for (i = 0; i < s->ntenants; i++) {
		struct vgpu_snap_tenant *t = &s->tenants[i];

		if (t->id != id)
			continue;
		for (j = 0; j < t->nusage; j++)
			if (t->usage[j].gpu == gpu)
				return &t->usage[j];
		if (t->nusage == VGPU_GPU_MAX)
			return NULL;
		t->usage[t->nusage] = (struct vgpu_snap_usage){ .gpu = gpu };
		return &t->usage[t->nusage++];
	}
	return NULL;
}

/* A proc-get reply: count the process on each GPU it uses. */
static int proc_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_PROC_MAX + 1], *a, *gb[VGPU_A_PROC_GPU_MAX + 1];
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct vgpu_snap *s = arg;
	struct vgpu_snap_usage *u;
	int rem;

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_PROC_MAX, proc_policy) < 0)
		return -EPROTO;
	if (!tb[VGPU_A_PROC_TENANT_ID])
		return 0;	/* outside every tenant */
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) != VGPU_A_PROC_GPU)
			continue;
		if (nla_parse_nested(gb, VGPU_A_PROC_GPU_MAX, a, NULL) < 0 ||
		    !gb[VGPU_A_PROC_GPU_INDEX] || nla_len(gb[VGPU_A_PROC_GPU_INDEX]) < 4)
			return -EPROTO;
		u = usage_of(s, nla_get_u32(tb[VGPU_A_PROC_TENANT_ID]),
			     nla_get_u32(gb[VGPU_A_PROC_GPU_INDEX]));
		if (u)
			u->procs++;
	}
	return 0;
}

/* One request, a dump retried while interrupted; @reset empties what it filled. */
static int request(struct vgpu_nl *nl, uint8_t cmd, bool dump, vgpu_nl_reply_fn fn,
		   void *arg, size_t *reset)
{
	struct nl_msg *msg;
	int err = -EINTR, try;

	for (try = 0; try < SNAP_DUMP_TRIES && err == -EINTR; try++) {
		if (reset)
			*reset = 0;
		msg = vgpuctl_nl_msg(nl, cmd, dump);
		if (!msg)
			return -ENOMEM;
		err = vgpuctl_nl_request(nl, msg, fn, arg);
	}
	return err;
}

static void clear_procs(struct vgpu_snap *s)
{
	size_t i, j;

	for (i = 0; i < s->ntenants; i++)
		for (j = 0; j < s->tenants[i].nusage; j++)
			s->tenants[i].usage[j].procs = 0;
}

/*
 * The process counts: a dump interrupted by a change is tried again from
 * zero (the rows it added for GPUs without usage stay, at 0 processes).
 */
static int take_procs(struct vgpu_nl *nl, struct vgpu_snap *s)
{
	int err = -EINTR, try;

	for (try = 0; try < SNAP_DUMP_TRIES && err == -EINTR; try++) {
		struct nl_msg *msg = vgpuctl_nl_msg(nl, VGPU_CMD_PROC_GET, true);

		if (!msg)
			return -ENOMEM;
		clear_procs(s);
		err = vgpuctl_nl_request(nl, msg, proc_one, s);
	}
	return err;
}

/*
 * The final records, after the tenants: a tenant deleted between the two
 * dumps is then in both, never in neither. A module without them answers
 * EOPNOTSUPP: none, and finals_supported stays false.
 */
static int take_finals(struct vgpu_nl *nl, struct vgpu_snap *s)
{
	struct vec f = { (void **)&s->finals, &s->nfinals, 0, sizeof(*s->finals) };
	int err = request(nl, VGPU_CMD_TENANT_FINAL_GET, true, tenant_one, &f, &s->nfinals);

	if (err == -EOPNOTSUPP) {
		s->nfinals = 0;
		return 0;
	}
	s->finals_supported = !err;
	return err;
}

/**
 * vgpuctl_snap_take() - read a snapshot of the module
 * @nl: an open handle
 * @s: filled in (zeroed first; vgpuctl_snap_free() it, also on failure)
 * @what: VGPU_SNAP_* bits of what to read besides the host
 *
 * Return: 0, or a negative errno with @nl's error set.
 */
int vgpuctl_snap_take(struct vgpu_nl *nl, struct vgpu_snap *s, unsigned int what)
{
	struct vec gv = { (void **)&s->gpus, &s->ngpus, 0, sizeof(*s->gpus) };
	struct vec tv = { (void **)&s->tenants, &s->ntenants, 0, sizeof(*s->tenants) };
	uint64_t t0;
	int err;

	memset(s, 0, sizeof(*s));
	err = request(nl, VGPU_CMD_HOST_GET, false, host_one, &s->host, NULL);
	if (!err && (what & VGPU_SNAP_GPUS))
		err = request(nl, VGPU_CMD_GPU_GET, true, gpu_one, &gv, &s->ngpus);
	if (!err && (what & VGPU_SNAP_TENANTS)) {
		t0 = realtime_ns();
		err = request(nl, VGPU_CMD_TENANT_GET, true, tenant_one, &tv, &s->ntenants);
		s->realtime = t0 + (realtime_ns() - t0) / 2;
	}
	if (!err && (what & VGPU_SNAP_PROCS))
		err = take_procs(nl, s);
	if (!err && (what & VGPU_SNAP_FINALS))
		err = take_finals(nl, s);
	return err;
}

/** vgpuctl_snap_free() - free what a snapshot holds (not @s itself). */
void vgpuctl_snap_free(struct vgpu_snap *s)
{
	free(s->gpus);
	free(s->tenants);
	free(s->finals);
	memset(s, 0, sizeof(*s));
}

/** vgpuctl_snap_gpu() - the GPU of index @index in @s, or NULL. */
const struct vgpu_snap_gpu *vgpuctl_snap_gpu(const struct vgpu_snap *s, uint32_t index)
{
	size_t i;

	for (i = 0; i < s->ngpus; i++)
		if (s->gpus[i].index == index)
			return &s->gpus[i];
	return NULL;
}

/** vgpuctl_snap_may_use() - whether tenant @t may use GPU @gpu (its gpus quota). */
bool vgpuctl_snap_may_use(const struct vgpu_snap_tenant *t, uint32_t gpu)
{
	return !t->has_gpus || (gpu < 64 && (t->gpus >> gpu & 1));
}
