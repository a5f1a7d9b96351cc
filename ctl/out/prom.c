// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text exposition format 0.0.4 of a snapshot (see prom.h):
 * each family once, "# HELP" and "# TYPE" first, then its samples; label
 * values escaped (backslash, double quote, newline); counters end in
 * _total, amounts are in base units (bytes, seconds), ratios are 0-1, and
 * a quota that is not set has no series at all.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../lib/parse.h"
#include "prom.h"

#ifndef VGPU_CTL_VERSION
#define VGPU_CTL_VERSION	"0.1"
#endif

/* A label of a sample: name and value. */
struct lbl {
	const char *k, *v;
};

/**
 * vgpuctl_prom_escape() - write a label value or a HELP text, escaped
 * @f: the stream
 * @s: the text
 * @help: a HELP text (backslash and newline escaped) rather than a label
 *        value (double quote too)
 */
void vgpuctl_prom_escape(FILE *f, const char *s, bool help)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && !help)
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

/**
 * vgpuctl_prom_label_name() - the label name of a tenant's label key
 * @out: "label_" and the key with every character outside [a-zA-Z0-9_]
 *       replaced by "_" (as kube-state-metrics names Kubernetes labels)
 * @outlen: its size
 * @key: the key
 */
void vgpuctl_prom_label_name(char *out, size_t outlen, const char *key)
{
	size_t i, n = (size_t)snprintf(out, outlen, "label_%s", key);

	if (n >= outlen)
		n = outlen - 1;
	for (i = 6; i < n; i++) {
		char c = out[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_'))
			out[i] = '_';
	}
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s ", name);
	vgpuctl_prom_escape(f, help, true);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

static void sample(FILE *f, const char *name, const struct lbl *l, size_t n, const char *val)
{
	size_t i;

	fputs(name, f);
	for (i = 0; i < n; i++) {
		fprintf(f, "%c%s=\"", i ? ',' : '{', l[i].k);
		vgpuctl_prom_escape(f, l[i].v, false);
		fputc('"', f);
	}
	fprintf(f, "%s %s\n", n ? "}" : "", val);
}

/* Values: integers, ns as seconds, basis points as a ratio. */
static const char *v_u64(char *buf, uint64_t v)
{
	snprintf(buf, 32, "%" PRIu64, v);
	return buf;
}

static const char *v_ns(char *buf, uint64_t ns)
{
	snprintf(buf, 32, "%" PRIu64 ".%09" PRIu64, ns / 1000000000U, ns % 1000000000U);
	return buf;
}

static const char *v_bp(char *buf, uint32_t bp)
{
	snprintf(buf, 32, "%u.%04u", bp / 10000, bp % 10000);
	return buf;
}

static void host_metrics(FILE *f, const struct vgpu_snap_host *h)
{
	char id[20], v[32];
	struct lbl l = { "instance_id", id };

	if (h->has_instance) {
		snprintf(id, sizeof(id), "%016" PRIx64, h->instance_id);
		family(f, "vgpu_module_info", "gauge",
		       "The loaded vgpu module; instance_id is drawn at each load.");
		sample(f, "vgpu_module_info", &l, 1, "1");
	}
	if (h->has_loaded) {
		family(f, "vgpu_module_loaded_timestamp_seconds", "gauge",
		       "When the vgpu module was loaded, in seconds since the epoch.");
		sample(f, "vgpu_module_loaded_timestamp_seconds", NULL, 0, v_ns(v, h->loaded));
	}
	if (h->has_procs) {
		family(f, "vgpu_registered_processes", "gauge",
		       "Processes registered with vgpu on the host.");
		sample(f, "vgpu_registered_processes", NULL, 0, v_u64(v, h->procs));
	}
	if (h->has_finals) {
		family(f, "vgpu_final_records", "gauge",
		       "Final records of deleted tenants kept, not yet acknowledged.");
		sample(f, "vgpu_final_records", NULL, 0, v_u64(v, h->finals));
	}
	if (h->has_finals_dropped) {
		family(f, "vgpu_final_records_dropped_total", "counter",
		       "Final records dropped unacknowledged (the module keeps at most 1024).");
		sample(f, "vgpu_final_records_dropped_total", NULL, 0, v_u64(v, h->finals_dropped));
	}
}

static void gpu_metrics(FILE *f, const struct vgpu_snap *s)
{
	char idx[12], numa[12], v[32];
	size_t i, j;

	family(f, "vgpu_gpu_info", "gauge", "A GPU of vgpu's inventory.");
	for (i = 0; i < s->ngpus; i++) {
		const struct vgpu_snap_gpu *g = &s->gpus[i];
		struct lbl l[4] = {
			{ "gpu", idx }, { "uuid", g->uuid }, { "pci_bus_id", g->pci },
			{ "numa_node", numa },
		};

		snprintf(idx, sizeof(idx), "%u", g->index);
		snprintf(numa, sizeof(numa), "%d", g->numa);
		sample(f, "vgpu_gpu_info", l, 4, "1");
	}
	family(f, "vgpu_gpu_vram_capacity_bytes", "gauge", "VRAM of the GPU.");
	for (i = 0; i < s->ngpus; i++) {
		struct lbl l = { "gpu", idx };

		snprintf(idx, sizeof(idx), "%u", s->gpus[i].index);
		sample(f, "vgpu_gpu_vram_capacity_bytes", &l, 1, v_u64(v, s->gpus[i].vram));
	}
	family(f, "vgpu_gpu_vram_reserved_bytes", "gauge",
	       "VRAM the tenants that may use the GPU reserve on it (their vram-min).");
	for (i = 0; i < s->ngpus; i++) {
		struct lbl l = { "gpu", idx };
		uint64_t sum = 0;

		for (j = 0; j < s->ntenants; j++)
			if (s->tenants[j].has_vram_min &&
			    vgpuctl_snap_may_use(&s->tenants[j], s->gpus[i].index))
				sum += s->tenants[j].vram_min;
		snprintf(idx, sizeof(idx), "%u", s->gpus[i].index);
		sample(f, "vgpu_gpu_vram_reserved_bytes", &l, 1, v_u64(v, sum));
	}
}

/* vgpu_tenant_info: name, id, cgroup, priority and the admin's labels. */
static void tenant_info(FILE *f, const struct vgpu_snap_tenant *t)
{
	char id[12], names[VGPU_LABEL_MAX][VGPU_LABEL_KEY_LEN_MAX + 8];
	struct lbl l[4 + VGPU_LABEL_MAX];
	const char *prio = vgpuctl_priority_name(t->priority);
	size_t n = 0, i, j;

	snprintf(id, sizeof(id), "%u", t->id);
	l[n++] = (struct lbl){ "tenant", t->name };
	l[n++] = (struct lbl){ "id", id };
	l[n++] = (struct lbl){ "cgroup", t->cgroup };
	l[n++] = (struct lbl){ "priority", prio ? prio : "" };
	for (i = 0; i < t->nlabels; i++) {
		vgpuctl_prom_label_name(names[i], sizeof(names[i]), t->labels[i].key);
		for (j = 4; j < n && strcmp(l[j].k, names[i]); j++)
			;
		if (j == n)	/* two keys that name the same label: the first */
			l[n++] = (struct lbl){ names[i], t->labels[i].value };
	}
	sample(f, "vgpu_tenant_info", l, n, "1");
}

static void tenant_metrics(FILE *f, const struct vgpu_snap *s)
{
	char v[32];
	size_t i;

	family(f, "vgpu_tenant_info", "gauge",
	       "A tenant: its id, cgroup, priority and labels (label_KEY).");
	for (i = 0; i < s->ntenants; i++)
		tenant_info(f, &s->tenants[i]);
	family(f, "vgpu_tenant_created_timestamp_seconds", "gauge",
	       "When the tenant was created, in seconds since the epoch.");
	for (i = 0; i < s->ntenants; i++) {
		struct lbl l = { "tenant", s->tenants[i].name };

		if (s->tenants[i].has_created)
			sample(f, "vgpu_tenant_created_timestamp_seconds", &l, 1,
			       v_ns(v, s->tenants[i].created));
	}
	family(f, "vgpu_tenant_weight", "gauge", "The tenant's compute weight (1-10000).");
	for (i = 0; i < s->ntenants; i++) {
		struct lbl l = { "tenant", s->tenants[i].name };

		sample(f, "vgpu_tenant_weight", &l, 1, v_u64(v, s->tenants[i].weight));
	}
	family(f, "vgpu_tenant_compute_max_ratio", "gauge",
	       "The tenant's compute cap, a share of each GPU (absent when unset).");
	for (i = 0; i < s->ntenants; i++) {
		struct lbl l = { "tenant", s->tenants[i].name };

		if (s->tenants[i].has_compute_max)
			sample(f, "vgpu_tenant_compute_max_ratio", &l, 1,
			       v_bp(v, s->tenants[i].compute_max));
	}
	family(f, "vgpu_tenant_priority", "gauge",
	       "The tenant's compute priority: 0 low, 1 normal, 2 high.");
	for (i = 0; i < s->ntenants; i++) {
		struct lbl l = { "tenant", s->tenants[i].name };

		sample(f, "vgpu_tenant_priority", &l, 1, v_u64(v, s->tenants[i].priority));
	}
}

/*
 * Suspension (Documentation/suspend.md), for a module that reports it:
 * vgpu_tenant_suspended 1 while suspending, suspended or resuming, with
 * the state as a label; the bytes in host memory; the time suspended.
 */
static void suspension_metrics(FILE *f, const struct vgpu_snap *s)
{
	char v[32];
	size_t i;

	family(f, "vgpu_tenant_suspended", "gauge",
	       "1 while the tenant is suspending, suspended or resuming (state), else 0.");
	for (i = 0; i < s->ntenants; i++) {
		const struct vgpu_snap_tenant *t = &s->tenants[i];
		const char *st = vgpuctl_enum_name(vgpu_tenant_state_names,
						   VGPU_TENANT_STATE_COUNT, t->state);
		struct lbl l[2] = { { "tenant", t->name }, { "state", st ? st : "unknown" } };

		if (t->has_state)
			sample(f, "vgpu_tenant_suspended", l, 2,
			       t->state == VGPU_TENANT_STATE_RUNNING ? "0" : "1");
	}
	family(f, "vgpu_tenant_host_bytes", "gauge",
	       "Device memory of the tenant's suspended processes held in host memory.");
	for (i = 0; i < s->ntenants; i++) {
		struct lbl l = { "tenant", s->tenants[i].name };

		if (s->tenants[i].has_state)
			sample(f, "vgpu_tenant_host_bytes", &l, 1, v_u64(v, s->tenants[i].host_bytes));
	}
	family(f, "vgpu_tenant_suspended_seconds_total", "counter",
	       "Time the tenant spent suspended or resuming.");
	for (i = 0; i < s->ntenants; i++) {
		struct lbl l = { "tenant", s->tenants[i].name };

		if (s->tenants[i].has_state)
			sample(f, "vgpu_tenant_suspended_seconds_total", &l, 1,
			       v_ns(v, s->tenants[i].suspended_ns));
	}
}

/*
 * Preemption's quotas (Documentation/suspend.md, "The quotas"): whether
 * the tenant may be suspended for another, and how long its charges may
 * wait for room (absent when unset).
 */
static void preempt_metrics(FILE *f, const struct vgpu_snap *s)
{
	char v[32];
	size_t i;

	family(f, "vgpu_tenant_preemptible", "gauge",
	       "1 when the tenant may be suspended to free VRAM for a tenant of higher priority.");
	for (i = 0; i < s->ntenants; i++) {
		struct lbl l = { "tenant", s->tenants[i].name };

		sample(f, "vgpu_tenant_preemptible", &l, 1, s->tenants[i].preemptible ? "1" : "0");
	}
	family(f, "vgpu_tenant_vram_wait_seconds", "gauge",
	       "How long a charge of the tenant may wait for room (vram-wait; absent when unset).");
	for (i = 0; i < s->ntenants; i++) {
		struct lbl l = { "tenant", s->tenants[i].name };

		if (s->tenants[i].has_vram_wait)
			sample(f, "vgpu_tenant_vram_wait_seconds", &l, 1,
			       v_ns(v, s->tenants[i].vram_wait * 1000000ULL));
	}
}

/* The per tenant and GPU families, from the usage rows. */
enum u_kind { U_BYTES, U_NS, U_COUNT };

struct u_family {
	const char *name, *type, *help;
	size_t off;		/* of the uint64_t (or, for processes, uint32_t) */
	enum u_kind kind;
};

#define UOFF(m)	offsetof(struct vgpu_snap_usage, m)

static const struct u_family u_families[] = {
	{ "vgpu_tenant_vram_used_bytes", "gauge", "VRAM the tenant's processes hold on the GPU.",
	  UOFF(vram_current), U_BYTES },
	{ "vgpu_tenant_vram_peak_bytes", "gauge", "Most VRAM the tenant held on the GPU.",
	  UOFF(vram_peak), U_BYTES },
	{ "vgpu_tenant_vram_allocation_failures_total", "counter",
	  "Allocations refused to the tenant on the GPU.", UOFF(vram_failures), U_COUNT },
	{ "vgpu_tenant_vram_byte_seconds_total", "counter",
	  "Time integral of the VRAM the tenant held on the GPU.", UOFF(vram_byte_seconds),
	  U_COUNT },
	{ "vgpu_tenant_vram_reserved_byte_seconds_total", "counter",
	  "Time integral of the tenant's vram-min reservation on the GPU.",
	  UOFF(vram_reserved_byte_seconds), U_COUNT },
	{ "vgpu_tenant_gpu_seconds_total", "counter",
	  "Time the tenant held the GPU (its work ran, queued work drained included).",
	  UOFF(gpu_time_ns), U_NS },
	{ "vgpu_tenant_throttled_seconds_total", "counter",
	  "Time the tenant waited for the GPU without getting it.", UOFF(throttled_ns), U_NS },
	{ "vgpu_tenant_grants_total", "counter", "Times the tenant was granted the GPU.",
	  UOFF(grants), U_COUNT },
	{ "vgpu_tenant_vram_overdrafts_total", "counter",
	  "Processes of the tenant found claiming more VRAM than granted.",
	  UOFF(vram_overdrafts), U_COUNT },
	{ "vgpu_tenant_vram_scans_total", "counter",
	  "Charges of the tenant that ran short and looked through its registrations on the GPU.",
	  UOFF(vram_scans), U_COUNT },
};

static void usage_metrics(FILE *f, const struct vgpu_snap *s)
{
	char idx[12], v[32];
	size_t k, i, j;

	for (k = 0; k < sizeof(u_families) / sizeof(u_families[0]); k++) {
		const struct u_family *uf = &u_families[k];

		family(f, uf->name, uf->type, uf->help);
		for (i = 0; i < s->ntenants; i++) {
			for (j = 0; j < s->tenants[i].nusage; j++) {
				const struct vgpu_snap_usage *u = &s->tenants[i].usage[j];
				struct lbl l[2] = { { "tenant", s->tenants[i].name }, { "gpu", idx } };
				uint64_t val;

				memcpy(&val, (const char *)u + uf->off, sizeof(val));
				snprintf(idx, sizeof(idx), "%u", u->gpu);
				sample(f, uf->name, l, 2, uf->kind == U_NS ? v_ns(v, val) : v_u64(v, val));
			}
		}
	}
	family(f, "vgpu_tenant_processes", "gauge",
	       "Registered processes of the tenant using the GPU.");
	for (i = 0; i < s->ntenants; i++) {
		for (j = 0; j < s->tenants[i].nusage; j++) {
			struct lbl l[2] = { { "tenant", s->tenants[i].name }, { "gpu", idx } };

			snprintf(idx, sizeof(idx), "%u", s->tenants[i].usage[j].gpu);
			sample(f, "vgpu_tenant_processes", l, 2,
			       v_u64(v, s->tenants[i].usage[j].procs));
		}
	}
}

/* vram-max and vram-min on each GPU of the inventory the tenant may use. */
static void quota_metrics(FILE *f, const struct vgpu_snap *s, bool min)
{
	const char *name = min ? "vgpu_tenant_vram_reservation_bytes" : "vgpu_tenant_vram_limit_bytes";
	char idx[12], v[32];
	size_t i, j;

	family(f, name, "gauge", min ?
	       "The tenant's vram-min on each GPU it may use (absent when unset)." :
	       "The tenant's vram-max on each GPU it may use (absent when unset).");
	for (i = 0; i < s->ntenants; i++) {
		const struct vgpu_snap_tenant *t = &s->tenants[i];

		if (min ? !t->has_vram_min : !t->has_vram_max)
			continue;
		for (j = 0; j < s->ngpus; j++) {
			struct lbl l[2] = { { "tenant", t->name }, { "gpu", idx } };

			if (!vgpuctl_snap_may_use(t, s->gpus[j].index))
				continue;
			snprintf(idx, sizeof(idx), "%u", s->gpus[j].index);
			sample(f, name, l, 2, v_u64(v, min ? t->vram_min : t->vram_max));
		}
	}
}

static void head(FILE *f, bool up)
{
	struct lbl l[2] = { { "version", VGPU_CTL_VERSION }, { "netlink_family_version", "" } };
	char fv[12];

	snprintf(fv, sizeof(fv), "%d", VGPU_FAMILY_VERSION);
	l[1].v = fv;
	family(f, "vgpu_up", "gauge", "Whether the vgpu module answered (1) or not (0).");
	sample(f, "vgpu_up", NULL, 0, up ? "1" : "0");
	family(f, "vgpu_build_info", "gauge", "The vgpuctl that wrote these metrics.");
	sample(f, "vgpu_build_info", l, 2, "1");
}

/**
 * vgpuctl_prom_write() - write a snapshot's metrics
 * @f: the stream
 * @s: a snapshot with the host, GPUs, tenants and processes
 */
void vgpuctl_prom_write(FILE *f, const struct vgpu_snap *s)
{
	head(f, true);
	host_metrics(f, &s->host);
	gpu_metrics(f, s);
	tenant_metrics(f, s);
	preempt_metrics(f, s);
	suspension_metrics(f, s);
	quota_metrics(f, s, false);
	quota_metrics(f, s, true);
	usage_metrics(f, s);
}

/**
 * vgpuctl_prom_write_down() - the metrics when the module did not answer
 * @f: the stream
 *
 * vgpu_up 0 and the build, nothing else.
 */
void vgpuctl_prom_write_down(FILE *f)
{
	head(f, false);
}
