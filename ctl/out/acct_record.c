// SPDX-License-Identifier: GPL-2.0
/*
 * The usage records of one cycle of vgpuctl account (see acct.h and
 * Documentation/metrics.md, "Usage records"), one JSON object per line,
 * through json.c. Given the snapshot (tenants, then final records) and the
 * state of the last cycle:
 *
 * - another module instance: every entry of the old one is closed with a
 *   "module-reloaded" record (no usage: the module that counted it is gone);
 * - each tenant's usage row gives an "interval" record, the counters less
 *   those last recorded (a tenant not seen before counts from its creation,
 *   when its counters were 0);
 * - each final record newer than the last one recorded gives a "deleted"
 *   record per GPU, from the last recorded counters to the final ones;
 * - an entry whose tenant is still there without a row for the GPU (the
 *   GPU was deleted, its counters with it) is closed "gpu-removed", one
 *   whose tenant is neither there nor in a final record (the record was
 *   dropped past final-max, or acknowledged by another collector) "lost".
 *
 * The records of an entry then add up to the kernel's counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "../lib/json.h"
#include "../lib/parse.h"
#include "../lib/spec_gen.h"

/* Where the records of a cycle go. */
struct cyc {
	FILE *out;
	const char *host;
	uint64_t instance;
	uint64_t cycle;
	size_t n;
};

/* One record: a window of a tenant on a GPU. */
struct rec {
	const char *reason;
	const struct vgpu_acct_entry *e;	/* tenant id, GPU, name, created, uuid */
	const struct vgpu_snap_tenant *t;	/* labels, quotas; NULL for a closing record */
	const struct vgpu_snap_usage *u;	/* peak and used now; NULL for none */
	uint64_t start, end;
	struct vgpu_acct_ctr d;
};

static uint64_t sub(uint64_t cur, uint64_t last)
{
	return cur >= last ? cur - last : cur;	/* a counter that restarted */
}

static struct vgpu_acct_ctr ctr_of(const struct vgpu_snap_usage *u)
{
	return (struct vgpu_acct_ctr){
		.gpu_time_ns = u->gpu_time_ns, .throttled_ns = u->throttled_ns,
		.grants = u->grants, .vram_byte_seconds = u->vram_byte_seconds,
		.vram_reserved_byte_seconds = u->vram_reserved_byte_seconds,
		.vram_failures = u->vram_failures, .vram_overdrafts = u->vram_overdrafts,
		.vram_scans = u->vram_scans,
	};
}

static struct vgpu_acct_ctr ctr_sub(const struct vgpu_acct_ctr *c, const struct vgpu_acct_ctr *l)
{
	return (struct vgpu_acct_ctr){
		.gpu_time_ns = sub(c->gpu_time_ns, l->gpu_time_ns),
		.throttled_ns = sub(c->throttled_ns, l->throttled_ns),
		.grants = sub(c->grants, l->grants),
		.vram_byte_seconds = sub(c->vram_byte_seconds, l->vram_byte_seconds),
		.vram_reserved_byte_seconds = sub(c->vram_reserved_byte_seconds,
						  l->vram_reserved_byte_seconds),
		.vram_failures = sub(c->vram_failures, l->vram_failures),
		.vram_overdrafts = sub(c->vram_overdrafts, l->vram_overdrafts),
		/* No count to start from: the record leaves vram_scans out. */
		.vram_scans = l->no_scans ? 0 : sub(c->vram_scans, l->vram_scans),
		.no_scans = l->no_scans,
		.suspended_ns = l->no_suspended ? 0 : sub(c->suspended_ns, l->suspended_ns),
		.no_suspended = l->no_suspended,
	};
}

static void put_quotas(struct vgpu_json *j, const struct vgpu_snap_tenant *t)
{
	const char *prio = vgpuctl_priority_name(t->priority);
	uint32_t g;

	vgpuctl_json_obj_open(j, "quotas");
	if (t->has_vram_max)
		vgpuctl_json_u64(j, "vram_max_bytes", t->vram_max);
	if (t->has_vram_min)
		vgpuctl_json_u64(j, "vram_min_bytes", t->vram_min);
	if (t->has_gpus) {
		vgpuctl_json_arr_open(j, "gpus");
		for (g = 0; g < 64; g++)
			if (t->gpus >> g & 1)
				vgpuctl_json_u64(j, NULL, g);
		vgpuctl_json_arr_close(j);
	}
	vgpuctl_json_u64(j, "weight", t->weight);
	if (t->has_compute_max)
		vgpuctl_json_fixed(j, "compute_max", t->compute_max / 10000.0, 4);
	if (prio)
		vgpuctl_json_str(j, "priority", prio);
	vgpuctl_json_bool(j, "preemptible", t->preemptible);
	if (t->has_vram_wait)
		vgpuctl_json_u64(j, "vram_wait_ns", t->vram_wait * 1000000ULL);
	vgpuctl_json_obj_close(j);
}

static void put_tenant(struct vgpu_json *j, const struct rec *r)
{
	size_t i;

	vgpuctl_json_obj_open(j, "tenant");
	vgpuctl_json_str(j, "name", r->e->name);
	vgpuctl_json_u64(j, "id", r->e->tenant);
	if (r->e->created)
		vgpuctl_json_u64(j, "created_ns", r->e->created);
	if (r->t) {
		vgpuctl_json_str(j, "cgroup", r->t->cgroup);
		vgpuctl_json_obj_open(j, "labels");
		for (i = 0; i < r->t->nlabels; i++)
			vgpuctl_json_str(j, r->t->labels[i].key, r->t->labels[i].value);
		vgpuctl_json_obj_close(j);
	}
	vgpuctl_json_obj_close(j);
}

static void put_usage(struct vgpu_json *j, const struct rec *r)
{
	vgpuctl_json_obj_open(j, "usage");
	vgpuctl_json_u64(j, "gpu_time_ns", r->d.gpu_time_ns);
	vgpuctl_json_u64(j, "throttled_ns", r->d.throttled_ns);
	vgpuctl_json_u64(j, "grants", r->d.grants);
	vgpuctl_json_u64(j, "vram_byte_seconds", r->d.vram_byte_seconds);
	vgpuctl_json_u64(j, "vram_reserved_byte_seconds", r->d.vram_reserved_byte_seconds);
	vgpuctl_json_u64(j, "vram_failures", r->d.vram_failures);
	vgpuctl_json_u64(j, "vram_overdrafts", r->d.vram_overdrafts);
	if (!r->d.no_scans)
		vgpuctl_json_u64(j, "vram_scans", r->d.vram_scans);
	if (!r->d.no_suspended)
		vgpuctl_json_u64(j, "suspended_ns", r->d.suspended_ns);
	if (r->t && r->t->has_state) {
		/* As the window ends: the tenant's, the same in each GPU's record. */
		const char *st = vgpuctl_enum_name(vgpu_tenant_state_names,
						   VGPU_TENANT_STATE_COUNT, r->t->state);

		vgpuctl_json_str(j, "state", st ? st : "unknown");
		vgpuctl_json_u64(j, "host_bytes", r->t->host_bytes);
	}
	if (r->u) {
		vgpuctl_json_u64(j, "vram_peak_bytes", r->u->vram_peak);
		vgpuctl_json_u64(j, "vram_used_bytes", r->u->vram_current);
	}
	vgpuctl_json_obj_close(j);
}

static void emit(struct cyc *c, const struct rec *r)
{
	const struct vgpu_snap_tenant *t = r->t;
	struct vgpu_json j;
	char id[20];

	snprintf(id, sizeof(id), "%016" PRIx64, c->instance);
	vgpuctl_json_init(&j, c->out, false);
	vgpuctl_json_obj_open(&j, NULL);
	vgpuctl_json_u64(&j, "schema", VGPU_ACCT_SCHEMA);
	vgpuctl_json_u64(&j, "cycle", c->cycle);
	vgpuctl_json_str(&j, "host", c->host);
	vgpuctl_json_str(&j, "instance_id", id);
	put_tenant(&j, r);
	vgpuctl_json_obj_open(&j, "gpu");
	vgpuctl_json_u64(&j, "index", r->e->gpu);
	if (r->e->uuid[0])
		vgpuctl_json_str(&j, "uuid", r->e->uuid);
	vgpuctl_json_obj_close(&j);
	vgpuctl_json_obj_open(&j, "window");
	vgpuctl_json_u64(&j, "start_ns", r->start);
	vgpuctl_json_u64(&j, "end_ns", r->end);
	vgpuctl_json_str(&j, "reason", r->reason);
	if (t && !strcmp(r->reason, "deleted")) {
		const char *why = vgpuctl_enum_name(vgpu_del_reason_names,
						    VGPU_DEL_REASON_COUNT, t->del_reason);

		vgpuctl_json_str(&j, "deleted_by", why ? why : "unknown");
		vgpuctl_json_u64(&j, "final_seq", t->final_seq);
	}
	vgpuctl_json_obj_close(&j);
	if (t)
		put_quotas(&j, t);
	put_usage(&j, r);
	vgpuctl_json_obj_close(&j);
	c->n++;
}

/* A record that closes entry @e without usage. */
static void close_entry(struct cyc *c, const struct vgpu_acct_entry *e, const char *reason)
{
	struct rec r = { .reason = reason, .e = e, .start = e->end_ns, .end = e->end_ns };

	emit(c, &r);
}

/* The entry of a tenant's row as recorded now (name, GPU's uuid, counters). */
static void fill_entry(struct vgpu_acct_entry *e, const struct vgpu_snap *s,
		       const struct vgpu_snap_tenant *t, const struct vgpu_snap_usage *u,
		       uint64_t end)
{
	const struct vgpu_snap_gpu *g = vgpuctl_snap_gpu(s, u->gpu);

	e->tenant = t->id;
	e->gpu = u->gpu;
	e->end_ns = end;
	e->created = t->has_created ? t->created : 0;
	e->c = ctr_of(u);
	e->c.suspended_ns = t->suspended_ns;
	snprintf(e->name, sizeof(e->name), "%s", t->name);
	if (g)
		snprintf(e->uuid, sizeof(e->uuid), "%s", g->uuid);
}

/* The "interval" records of the tenants; @st gets their entries. */
static int intervals(struct cyc *c, const struct vgpu_snap *s,
		     const struct vgpu_acct_state *old, struct vgpu_acct_state *st)
{
	size_t i, k;

	for (i = 0; i < s->ntenants; i++) {
		const struct vgpu_snap_tenant *t = &s->tenants[i];

		for (k = 0; k < t->nusage; k++) {
			const struct vgpu_snap_usage *u = &t->usage[k];
			const struct vgpu_acct_entry *l = vgpuctl_acct_state_find(old, t->id, u->gpu);
			struct vgpu_acct_entry *e = vgpuctl_acct_state_add(st);
			struct vgpu_acct_ctr zero = { 0 };
			struct rec r = { .reason = "interval", .t = t, .u = u, .end = s->realtime };

			if (!e)
				return -ENOMEM;
			fill_entry(e, s, t, u, s->realtime);
			r.e = e;
			r.start = l ? l->end_ns : t->has_created ? t->created : s->realtime;
			r.d = ctr_sub(&e->c, l ? &l->c : &zero);
			emit(c, &r);
		}
	}
	return 0;
}

static const struct vgpu_snap_tenant *find_final(const struct vgpu_snap *s, uint64_t after,
						 uint32_t id)
{
	size_t i;

	for (i = 0; i < s->nfinals; i++)
		if (s->finals[i].final_seq > after && s->finals[i].id == id)
			return &s->finals[i];
	return NULL;
}

static bool has_tenant(const struct vgpu_snap *s, uint32_t id)
{
	size_t i;

	for (i = 0; i < s->ntenants; i++)
		if (s->tenants[i].id == id)
			return true;
	return false;
}

/* The entries of @old the snapshot has no row for: closed or carried on. */
static int leftovers(struct cyc *c, const struct vgpu_snap *s,
		     const struct vgpu_acct_state *old, struct vgpu_acct_state *st)
{
	size_t i;

	for (i = 0; i < old->n; i++) {
		const struct vgpu_acct_entry *l = &old->v[i];
		struct vgpu_acct_entry *e;

		if (vgpuctl_acct_state_find(st, l->tenant, l->gpu))
			continue;	/* recorded as an interval */
		if (find_final(s, old->final_seq, l->tenant)) {
			e = vgpuctl_acct_state_add(st);	/* the final record takes it */
			if (!e)
				return -ENOMEM;
			*e = *l;
			continue;
		}
		close_entry(c, l, has_tenant(s, l->tenant) ? "gpu-removed" : "lost");
	}
	return 0;
}

/* The "deleted" records of the final records newer than @old's. */
static int finals(struct cyc *c, const struct vgpu_snap *s,
		  const struct vgpu_acct_state *old, struct vgpu_acct_state *st)
{
	size_t i, k;

	for (i = 0; i < s->nfinals; i++) {
		const struct vgpu_snap_tenant *t = &s->finals[i];

		if (t->final_seq <= old->final_seq)
			continue;	/* recorded before, not yet acknowledged */
		for (k = 0; k < t->nusage; k++) {
			const struct vgpu_snap_usage *u = &t->usage[k];
			struct vgpu_acct_entry *l = vgpuctl_acct_state_find(st, t->id, u->gpu);
			struct vgpu_acct_entry e = { 0 };
			struct rec r = { .reason = "deleted", .t = t, .u = u, .end = t->deleted };

			fill_entry(&e, s, t, u, t->deleted);
			r.e = &e;
			r.start = l ? l->end_ns : t->has_created ? t->created : t->deleted;
			if (r.start > r.end)	/* deleted while the tenants were dumped */
				r.end = r.start;
			r.d = ctr_sub(&e.c, l ? &l->c : &(struct vgpu_acct_ctr){ 0 });
			if (l && l->uuid[0])
				snprintf(e.uuid, sizeof(e.uuid), "%s", l->uuid);
			emit(c, &r);
		}
		/* Its entries go, rows or not (no row: nothing counted since). */
		for (k = st->n; k-- > 0;)
			if (st->v[k].tenant == t->id)
				vgpuctl_acct_state_del(st, &st->v[k]);
		if (t->final_seq > st->final_seq)
			st->final_seq = t->final_seq;
	}
	return 0;
}

/**
 * vgpuctl_acct_cycle() - the records of one cycle and the state after it
 * @s: the snapshot: host (its instance-id), GPUs, tenants, final records
 * @host: the host's name, for the records
 * @old: the state after the last cycle
 * @st: out: the state after this one (free it with vgpuctl_acct_state_free())
 * @out: where the records go, one per line
 * @records: out: how many
 *
 * Return: 0 or -ENOMEM.
 */
int vgpuctl_acct_cycle(const struct vgpu_snap *s, const char *host,
		       const struct vgpu_acct_state *old, struct vgpu_acct_state *st,
		       FILE *out, size_t *records)
{
	static const struct vgpu_acct_state empty;
	struct cyc c = { .out = out, .host = host, .cycle = old->cycle + 1 };
	size_t i;
	int err;

	memset(st, 0, sizeof(*st));
	st->cycle = c.cycle;
	st->has_instance = true;
	st->instance = s->host.instance_id;
	if (old->has_instance && old->instance != s->host.instance_id) {
		c.instance = old->instance;
		for (i = 0; i < old->n; i++)
			close_entry(&c, &old->v[i], "module-reloaded");
		old = &empty;
	} else {
		st->final_seq = old->final_seq;
	}
	c.instance = s->host.instance_id;
	err = intervals(&c, s, old, st);
	if (!err)
		err = leftovers(&c, s, old, st);
	if (!err)
		err = finals(&c, s, old, st);
	*records = c.n;
	if (err)
		vgpuctl_acct_state_free(st);
	return err;
}
