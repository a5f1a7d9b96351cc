// SPDX-License-Identifier: GPL-2.0
/*
 * Tenant replies and events as vgpuctl reads and prints them (tenant
 * show, monitor): the attributes, labels, usage lines.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "final.h"
#include "tenant_state.h"
#include "../lib/parse.h"
#include "../lib/print.h"
#include "../lib/spec_gen.h"
#include "../lib/spec_policy.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_tenant_next_usage() - parse the next usage nest of a tenant reply
 * @nlh: the message
 * @pos: the nest returned last, NULL at first; updated
 * @utb: VGPU_A_USAGE_MAX + 1 slots
 *
 * Return: 1 with @utb filled, 0 after the last one, -EPROTO when malformed.
 */
int vgpuctl_tenant_next_usage(struct nlmsghdr *nlh, struct nlattr **pos, struct nlattr **utb)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *head = genlmsg_attrdata(g, 0), *a;
	int len = genlmsg_attrlen(g, 0), rem;

	if (*pos) {
		rem = len - (int)((char *)*pos - (char *)head);
		a = nla_next(*pos, &rem);
	} else {
		a = head;
		rem = len;
	}
	for (; nla_ok(a, rem); a = nla_next(a, &rem)) {
		if (nla_type(a) != VGPU_A_TENANT_USAGE)
			continue;
		*pos = a;
		if (nla_parse_nested(utb, VGPU_A_USAGE_MAX, a, vgpu_usage_nl_policy) < 0)
			return -EPROTO;
		return 1;
	}
	return 0;
}

/**
 * vgpuctl_tenant_parse() - the attributes of a tenant-get reply or tenant event
 * @nlh: the message
 * @tb: VGPU_A_TENANT_MAX + 1 slots
 *
 * Return: 0, or a negative errno when malformed.
 */
int vgpuctl_tenant_parse(struct nlmsghdr *nlh, struct nlattr **tb)
{
	struct nlattr *utb[VGPU_A_USAGE_MAX + 1], *pos = NULL;
	int ret;

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_TENANT_MAX, vgpu_tenant_nl_policy) < 0)
		return -EPROTO;
	while ((ret = vgpuctl_tenant_next_usage(nlh, &pos, utb)) > 0)
		;
	return ret;
}

static const char *str_attr(struct nlattr *a)
{
	return a ? nla_get_string(a) : NULL;
}

static uint64_t u64_attr(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static uint32_t u32_attr(struct nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

/**
 * vgpuctl_usage_print() - one GPU's usage: an object of the "usage" array
 *	(JSON) or an indented line after the object's line (plain)
 * @u: the usage
 */
void vgpuctl_usage_print(const struct vgpuctl_usage *u)
{
#define HAS(a)	(!!(u->has & (1u << VGPU_A_USAGE_##a)))
	vgpuctl_print_sub_open("    ");
	vgpuctl_print_u64("gpu", "gpu", HAS(GPU), u->gpu);
	vgpuctl_print_size("vram_current", "vram", HAS(VRAM_CURRENT), u->vram_current);
	vgpuctl_print_size("vram_peak", "peak", HAS(VRAM_PEAK), u->vram_peak);
	vgpuctl_print_size("vram_budget", "budget", HAS(VRAM_BUDGET), u->vram_budget);
	vgpuctl_print_u64("vram_failures", "failures", HAS(VRAM_FAILURES), u->vram_failures);
	vgpuctl_print_u64("vram_byte_seconds", "byte-seconds", HAS(VRAM_BYTE_SECONDS),
			  u->vram_byte_seconds);
	/* Counters: 0 when absent (a module without the scheduler). */
	vgpuctl_print_ns("gpu_time_ns", "gpu-time", true, u->gpu_time_ns);
	vgpuctl_print_ns("throttled_ns", "throttled", true, u->throttled_ns);
	vgpuctl_print_u64("grants", "grants", true, u->grants);
	/* Plain output names these only when there are some. */
	vgpuctl_print_u64("vram_overdrafts", "overdrafts",
			  HAS(VRAM_OVERDRAFTS) && (vgpuctl_print_json() || u->vram_overdrafts),
			  u->vram_overdrafts);
	vgpuctl_print_u64("vram_reserved_byte_seconds", "reserved-byte-seconds",
			  HAS(VRAM_RESERVED_BYTE_SECONDS) &&
			  (vgpuctl_print_json() || u->vram_reserved_byte_seconds),
			  u->vram_reserved_byte_seconds);
	vgpuctl_print_u64("vram_scans", "scans",
			  HAS(VRAM_SCANS) && (vgpuctl_print_json() || u->vram_scans),
			  u->vram_scans);
	vgpuctl_print_sub_close();
#undef HAS
}

/*
 * The usage nests: a JSON array (empty when there is none), or in plain
 * output, when @lines, one indented line per GPU after the tenant's line.
 */
static void print_usage(struct nlmsghdr *nlh, bool lines)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct vgpuctl_usage u;
	struct nlattr *a;
	int rem;

	if (!vgpuctl_print_json() && !lines)
		return;
	vgpuctl_print_arr_open("usage");
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem)
		if (nla_type(a) == VGPU_A_TENANT_USAGE && !vgpuctl_usage_read(a, &u))
			vgpuctl_usage_print(&u);
	vgpuctl_print_arr_close();
}

/* The label nests: "labels":{"k":"v"} (JSON) or "label k=v" words (plain). */
static void print_labels(struct nlmsghdr *nlh)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *a, *ltb[VGPU_A_LABEL_MAX + 1];
	int rem;

	vgpuctl_print_map_open("labels");
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) != VGPU_A_TENANT_LABEL ||
		    nla_parse_nested(ltb, VGPU_A_LABEL_MAX, a, vgpu_label_nl_policy) < 0 ||
		    !ltb[VGPU_A_LABEL_KEY] || !ltb[VGPU_A_LABEL_VALUE])
			continue;
		vgpuctl_print_label(nla_get_string(ltb[VGPU_A_LABEL_KEY]),
				    nla_get_string(ltb[VGPU_A_LABEL_VALUE]));
	}
	vgpuctl_print_map_close();
}

/**
 * vgpuctl_print_reason() - why a tenant was deleted
 * @has: absent unless set
 * @reason: enum vgpu_del_reason
 */
void vgpuctl_print_reason(bool has, uint32_t reason)
{
	const char *name = vgpuctl_enum_name(vgpu_del_reason_names, VGPU_DEL_REASON_COUNT,
					     reason);

	if (has && !name)	/* a reason this vgpuctl does not know */
		vgpuctl_print_u64("del_reason", "del-reason", true, reason);
	else
		vgpuctl_print_str("del_reason", "del-reason", has ? name : NULL);
}

/**
 * vgpuctl_tenant_print() - print one tenant (show and monitor)
 * @nlh: the message, for its usage nests
 * @tb: its attributes, from vgpuctl_tenant_parse()
 * @usage_lines: plain output: the usage lines after the tenant's line
 *               (JSON always has the usage array)
 */
void vgpuctl_tenant_print(struct nlmsghdr *nlh, struct nlattr **tb, bool usage_lines)
{
	bool removed = tb[VGPU_A_TENANT_CGROUP_REMOVED];
	struct vgpuctl_tstate st;
	struct nlattr *prio = tb[VGPU_A_TENANT_PRIORITY];
	const char *pname = prio ? vgpuctl_priority_name(nla_get_u32(prio)) : NULL;
	struct nlattr *place = tb[VGPU_A_TENANT_PLACEMENT];
	const char *plname = place ? vgpuctl_placement_name(nla_get_u32(place)) : NULL;

	vgpuctl_print_str("name", "tenant", str_attr(tb[VGPU_A_TENANT_NAME]));
	vgpuctl_print_u64("id", "id", tb[VGPU_A_TENANT_ID], u32_attr(tb[VGPU_A_TENANT_ID]));
	vgpuctl_print_str("cgroup", "cgroup", str_attr(tb[VGPU_A_TENANT_CGROUP]));
	vgpuctl_print_u64("cgroup_id", "cgroup_id", tb[VGPU_A_TENANT_CGROUP_ID],
			  u64_attr(tb[VGPU_A_TENANT_CGROUP_ID]));
	if (vgpuctl_print_json())
		vgpuctl_print_flag("cgroup_removed", NULL, removed);
	vgpuctl_print_flag("ephemeral", "ephemeral", tb[VGPU_A_TENANT_EPHEMERAL]);
	vgpuctl_print_time("created", "created", tb[VGPU_A_TENANT_CREATED],
			   u64_attr(tb[VGPU_A_TENANT_CREATED]));
	if (tb[VGPU_A_TENANT_FINAL_SEQ]) {	/* a deletion's final record */
		vgpuctl_print_u64("final_seq", "final-seq", true,
				  u64_attr(tb[VGPU_A_TENANT_FINAL_SEQ]));
		vgpuctl_print_time("deleted", "deleted", tb[VGPU_A_TENANT_DELETED],
				   u64_attr(tb[VGPU_A_TENANT_DELETED]));
		vgpuctl_print_reason(tb[VGPU_A_TENANT_DEL_REASON],
				     u32_attr(tb[VGPU_A_TENANT_DEL_REASON]));
	}
	print_labels(nlh);
	vgpuctl_print_size("vram_max", "vram-max", tb[VGPU_A_TENANT_VRAM_MAX],
			   u64_attr(tb[VGPU_A_TENANT_VRAM_MAX]));
	vgpuctl_print_size("vram_min", "vram-min", tb[VGPU_A_TENANT_VRAM_MIN],
			   u64_attr(tb[VGPU_A_TENANT_VRAM_MIN]));
	vgpuctl_print_mask("gpus", "gpus", tb[VGPU_A_TENANT_GPUS],
			   u64_attr(tb[VGPU_A_TENANT_GPUS]));
	if (tb[VGPU_A_TENANT_GPUS_AUTO])	/* only where the module chose the gpus */
		vgpuctl_print_u64("gpus_auto", "gpus-auto", true,
				  u32_attr(tb[VGPU_A_TENANT_GPUS_AUTO]));
	vgpuctl_print_u64("weight", "weight", tb[VGPU_A_TENANT_WEIGHT],
			  u32_attr(tb[VGPU_A_TENANT_WEIGHT]));
	vgpuctl_print_pct("compute_max", "compute-max", tb[VGPU_A_TENANT_COMPUTE_MAX],
			  u32_attr(tb[VGPU_A_TENANT_COMPUTE_MAX]));
	if (prio && !pname)	/* a priority this vgpuctl does not know */
		vgpuctl_print_u64("priority", "priority", true, nla_get_u32(prio));
	else
		vgpuctl_print_str("priority", "priority", pname);
	vgpuctl_print_str("cpus", "cpus", str_attr(tb[VGPU_A_TENANT_CPUS]));
	vgpuctl_print_str("mems", "mems", str_attr(tb[VGPU_A_TENANT_MEMS]));
	if (place && !plname)	/* a placement this vgpuctl does not know */
		vgpuctl_print_u64("placement", "placement", true, nla_get_u32(place));
	else
		vgpuctl_print_str("placement", "placement", plname);
	vgpuctl_print_flag("exclusive", "exclusive", u32_attr(tb[VGPU_A_TENANT_EXCLUSIVE]));
	vgpuctl_print_flag("preemptible", "preemptible", u32_attr(tb[VGPU_A_TENANT_PREEMPTIBLE]));
	vgpuctl_print_ns("vram_wait_ns", "vram-wait", tb[VGPU_A_TENANT_VRAM_WAIT],
			 u32_attr(tb[VGPU_A_TENANT_VRAM_WAIT]) * 1000000ULL);
	vgpuctl_print_str("cpus_effective", "cpus-effective",
			  str_attr(tb[VGPU_A_TENANT_CPUS_EFFECTIVE]));
	vgpuctl_print_str("mems_effective", "mems-effective",
			  str_attr(tb[VGPU_A_TENANT_MEMS_EFFECTIVE]));
	vgpuctl_tstate_read(tb, &st);
	vgpuctl_tstate_print(&st);
	if (!vgpuctl_print_json())
		vgpuctl_print_flag(NULL, "(cgroup removed)", removed);
	print_usage(nlh, usage_lines);
}

