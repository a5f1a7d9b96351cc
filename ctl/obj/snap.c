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

#include "final.h"
#include "snap.h"
#include "../lib/spec_policy.h"

/* Tries of a dump that keeps being interrupted by concurrent changes. */
#define SNAP_DUMP_TRIES	5

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

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_HOST_MAX, vgpu_host_nl_policy) < 0)
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

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_GPU_MAX, vgpu_gpu_nl_policy) < 0 ||
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

static void usage_from(struct vgpu_snap_usage *s, const struct vgpuctl_usage *u)
{
	*s = (struct vgpu_snap_usage){
		.gpu = u->gpu,
		.vram_current = u->vram_current, .vram_peak = u->vram_peak,
		.vram_failures = u->vram_failures, .vram_budget = u->vram_budget,
		.vram_byte_seconds = u->vram_byte_seconds,
		.vram_reserved_byte_seconds = u->vram_reserved_byte_seconds,
		.gpu_time_ns = u->gpu_time_ns, .throttled_ns = u->throttled_ns,
		.grants = u->grants, .vram_overdrafts = u->vram_overdrafts,
		.vram_scans = u->vram_scans,
	};
}

/*
 * A tenant as final.c read it into a new element of @v: strings copied
 * (they point into the message), unset weight and priority at their
 * defaults.
 */
static int tenant_add(struct vec *v, const struct vgpuctl_final *f)
{
	struct vgpu_snap_tenant *t = vec_add(v);
	size_t i;

	if (!t)
		return -ENOMEM;
	snprintf(t->name, sizeof(t->name), "%s", f->name);
	t->id = f->id;
	snprintf(t->cgroup, sizeof(t->cgroup), "%s", f->cgroup);
	t->cgroup_id = f->cgroup_id;
	t->has_vram_max = f->quota_set & VGPU_QUOTA_VRAM_MAX;
	t->vram_max = f->vram_max;
	t->has_vram_min = f->quota_set & VGPU_QUOTA_VRAM_MIN;
	t->vram_min = f->vram_min;
	t->has_gpus = f->quota_set & VGPU_QUOTA_GPUS;
	t->gpus = f->gpus;
	t->weight = f->quota_set & VGPU_QUOTA_WEIGHT ? f->weight : VGPU_WEIGHT_DEFAULT;
	t->has_compute_max = f->quota_set & VGPU_QUOTA_COMPUTE_MAX;
	t->compute_max = f->compute_max;
	t->priority = f->quota_set & VGPU_QUOTA_PRIORITY ? f->priority : VGPU_PRIORITY_NORMAL;
	t->preemptible = f->preemptible;
	t->has_vram_wait = f->quota_set & VGPU_QUOTA_VRAM_WAIT;
	t->vram_wait = f->vram_wait;
	t->has_created = f->has_created;
	t->created = f->created;
	t->has_state = f->has_state;
	t->state = f->state;
	t->host_bytes = f->host_bytes;
	t->suspended_ns = f->suspended_ns;
	t->final_seq = f->seq;
	t->deleted = f->deleted;
	t->del_reason = f->reason;
	t->nlabels = f->nlabels;
	for (i = 0; i < f->nlabels; i++) {
		snprintf(t->labels[i].key, sizeof(t->labels[i].key), "%s", f->labels[i].key);
		snprintf(t->labels[i].value, sizeof(t->labels[i].value), "%s", f->labels[i].value);
	}
	t->nusage = f->nusage;
	for (i = 0; i < f->nusage; i++)
		usage_from(&t->usage[i], &f->usage[i]);
	return 0;
}

/* A tenant-get reply into a new element of the vec @arg. */
static int tenant_one(struct nlmsghdr *nlh, void *arg)
{
	struct vgpuctl_final *f = malloc(sizeof(*f));
	int err;

	if (!f)
		return -ENOMEM;
	err = vgpuctl_tenant_read(nlh, f);
	if (!err && !f->id)
		err = -EPROTO;
	if (!err)
		err = tenant_add(arg, f);
	free(f);
	return err;
}

/* A final record (final.c has parsed it) into a new element of the vec @arg. */
static int final_one(const struct vgpuctl_final *f, void *arg)
{
	return tenant_add(arg, f);
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

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_PROC_MAX, vgpu_proc_nl_policy) < 0)
		return -EPROTO;
	if (!tb[VGPU_A_PROC_TENANT_ID])
		return 0;	/* outside every tenant */
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) != VGPU_A_PROC_GPU)
			continue;
		if (nla_parse_nested(gb, VGPU_A_PROC_GPU_MAX, a, vgpu_proc_gpu_nl_policy) < 0 ||
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
	int err = -EINTR, try;

	for (try = 0; try < SNAP_DUMP_TRIES && err == -EINTR; try++) {
		s->nfinals = 0;
		err = vgpuctl_final_each(nl, final_one, &f);
	}
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
