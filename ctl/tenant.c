// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl tenant: add, set, del, show the tenants of vgpu.ko.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "parse.h"
#include "print.h"
#include "spec_gen.h"
#include "vgpuctl.h"

/**
 * vgpuctl_usage_tenant() - usage of the tenant object
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_tenant(FILE *f)
{
	fputs("Usage: vgpuctl tenant add NAME cgroup PATH [QUOTA VALUE]...\n"
	      "       vgpuctl tenant set NAME QUOTA { VALUE | none } [QUOTA { VALUE | none }]...\n"
	      "       vgpuctl tenant del NAME [force]\n"
	      "       vgpuctl tenant { show | list } [NAME]\n"
	      "       vgpuctl tenant help\n"
	      "QUOTA VALUE := { vram-max SIZE | vram-min SIZE | gpus LIST | weight N |\n"
	      "                 compute-max PCT | priority { low | normal | high } |\n"
	      "                 cpus LIST | mems LIST | placement { manual | auto } |\n"
	      "                 exclusive { on | off } }\n"
	      "NAME := 1-63 printable characters, no spaces\n"
	      "PATH := cgroup v2 directory, absolute or relative to the cgroup2 mount\n"
	      "SIZE := NUMBER[.FRACTION][B|K|Ki|KiB|KB|M|...|T|Ti|TiB|TB] (powers of 1024)\n"
	      "LIST := NUMBER[-NUMBER][,...] (\"0-3,8\")\n"
	      "N    := 1-10000\n"
	      "PCT  := 0-100 with at most 2 decimals, optional % (\"37.5%\")\n"
	      "After a change of cpus, mems, placement, exclusive or gpus, the CPUs and\n"
	      "nodes in force are written to the cgroup's cpuset.cpus and cpuset.mems.\n"
	      "del refuses a tenant with registered processes; force ends their\n"
	      "registrations first (their charges go with them).\n", f);
}

/* How vgpuctl reads a quota's value; Q_NONE: a quota vgpuctl does not know. */
enum quota_type { Q_NONE, Q_SIZE, Q_GPUS, Q_WEIGHT, Q_PCT, Q_PRIO, Q_CPUS, Q_MEMS, Q_PLACE,
		  Q_ONOFF };

/*
 * The value type of each quota, by its attribute. The quotas' names, bits
 * and attributes are the spec's (vgpu_spec_quotas[], spec_gen.h); only
 * how to parse each value is vgpuctl's own.
 */
static const enum quota_type quota_types[VGPU_A_TENANT_MAX + 1] = {
	[VGPU_A_TENANT_VRAM_MAX] = Q_SIZE,
	[VGPU_A_TENANT_VRAM_MIN] = Q_SIZE,
	[VGPU_A_TENANT_GPUS] = Q_GPUS,
	[VGPU_A_TENANT_WEIGHT] = Q_WEIGHT,
	[VGPU_A_TENANT_COMPUTE_MAX] = Q_PCT,
	[VGPU_A_TENANT_PRIORITY] = Q_PRIO,
	[VGPU_A_TENANT_CPUS] = Q_CPUS,
	[VGPU_A_TENANT_MEMS] = Q_MEMS,
	[VGPU_A_TENANT_PLACEMENT] = Q_PLACE,
	[VGPU_A_TENANT_EXCLUSIVE] = Q_ONOFF,
};

#define NQUOTAS	VGPU_QUOTA_NBITS

/* The quotas of a tenant add or tenant set command line. */
struct tenant_conf {
	const char *cmd;	/* "tenant add" or "tenant set" */
	uint32_t seen;		/* quotas named (set or cleared) */
	uint32_t clear;		/* quotas given as "none" */
	uint64_t u64[NQUOTAS];	/* numeric values, by bit number */
	char list[NQUOTAS][VGPU_LIST_LEN_MAX + 1];	/* cpus, mems */
};

/* The quota named @name, NULL if the spec or vgpuctl does not know it. */
static const struct vgpu_spec_quota *find_quota(const char *name)
{
	size_t i;

	for (i = 0; i < NQUOTAS; i++)
		if (!strcmp(vgpu_spec_quotas[i].name, name) &&
		    quota_types[vgpu_spec_quotas[i].attr] != Q_NONE)
			return &vgpu_spec_quotas[i];
	return NULL;
}

/* Parse one QUOTA VALUE pair into @c. Returns 0 or VGPU_EXIT_USAGE. */
static int parse_quota(struct tenant_conf *c, const struct vgpu_spec_quota *q,
		       const char *val, bool allow_none)
{
	size_t i = (size_t)(q - vgpu_spec_quotas);
	uint32_t u32 = 0;
	bool on = false;
	const char *what = "", *hint = "";
	int bad = 0;

	if (c->seen & q->bit)
		return vgpuctl_usage_error("duplicate key \"%s\" for %s", q->name, c->cmd);
	c->seen |= q->bit;
	if (allow_none && !strcmp(val, "none")) {
		c->clear |= q->bit;
		return 0;
	}
	switch (quota_types[q->attr]) {
	case Q_NONE:
		break;
	case Q_SIZE:
		what = "SIZE";
		bad = vgpuctl_parse_size(val, &c->u64[i]);
		break;
	case Q_GPUS:
		what = "LIST";
		bad = vgpuctl_parse_gpus(val, &c->u64[i]);
		break;
	case Q_WEIGHT:
		what = "N";
		hint = " (1-10000)";
		bad = vgpuctl_parse_weight(val, &u32);
		c->u64[i] = u32;
		break;
	case Q_PCT:
		what = "PCT";
		hint = " (0-100, at most 2 decimals)";
		bad = vgpuctl_parse_pct(val, &u32);
		c->u64[i] = u32;
		break;
	case Q_PRIO:
		what = "PRIORITY";
		hint = " (low, normal or high)";
		bad = vgpuctl_parse_priority(val, &u32);
		c->u64[i] = u32;
		break;
	case Q_CPUS:
		what = "LIST";
		bad = vgpuctl_parse_list_norm(val, VGPU_LIST_CPU_MAX, c->list[i],
					      sizeof(c->list[i]));
		break;
	case Q_MEMS:
		what = "LIST";
		bad = vgpuctl_parse_list_norm(val, VGPU_LIST_NODE_MAX, c->list[i],
					      sizeof(c->list[i]));
		break;
	case Q_PLACE:
		what = "PLACEMENT";
		hint = " (manual or auto)";
		bad = vgpuctl_parse_placement(val, &u32);
		c->u64[i] = u32;
		break;
	case Q_ONOFF:
		what = "VALUE";
		hint = " (on or off)";
		bad = vgpuctl_parse_onoff(val, &on);
		c->u64[i] = on;
		break;
	}
	if (bad)
		return vgpuctl_usage_error("invalid %s \"%s\" for %s%s", what, val, q->name, hint);
	return 0;
}

/* Put the quotas set in @c (not the cleared ones) into @msg. */
static int put_quotas(struct nl_msg *msg, const struct tenant_conf *c)
{
	size_t i;
	int err = 0;

	for (i = 0; i < NQUOTAS && !err; i++) {
		const struct vgpu_spec_quota *q = &vgpu_spec_quotas[i];

		if (!(c->seen & q->bit) || (c->clear & q->bit))
			continue;
		switch (quota_types[q->attr]) {
		case Q_NONE:
			break;
		case Q_SIZE:
		case Q_GPUS:
			err = nla_put_u64(msg, q->attr, c->u64[i]);
			break;
		case Q_WEIGHT:
		case Q_PCT:
		case Q_PRIO:
		case Q_PLACE:
		case Q_ONOFF:
			err = nla_put_u32(msg, q->attr, (uint32_t)c->u64[i]);
			break;
		case Q_CPUS:
		case Q_MEMS:
			err = nla_put_string(msg, q->attr, c->list[i]);
			break;
		}
	}
	if (!err && c->clear)
		err = nla_put_u32(msg, VGPU_A_TENANT_CLEAR, c->clear);
	return err;
}

/*
 * Send a tenant mutation built from @name, @cgroup (or NULL) and @c, then,
 * when @c names what decides its CPUs and nodes, write them to its cgroup
 * (placement.c).
 */
static int tenant_send(uint8_t cmd, const char *name, const char *cgroup,
		       const struct tenant_conf *c, bool force)
{
	struct vgpu_nl nl;
	struct nl_msg *msg;
	int ret;

	ret = vgpuctl_need_admin();
	if (ret)
		return ret;
	ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	if (cmd == VGPU_CMD_TENANT_SET) {
		ret = vgpuctl_placement_prepare(&nl, name, c->seen);
		if (ret) {
			vgpuctl_nl_close(&nl);
			return ret;
		}
	}
	msg = vgpuctl_nl_msg(&nl, cmd, false);
	if (msg && (nla_put_string(msg, VGPU_A_TENANT_NAME, name) < 0 ||
		    (cgroup && nla_put_string(msg, VGPU_A_TENANT_CGROUP, cgroup) < 0) ||
		    (c && put_quotas(msg, c) < 0) ||
		    (force && nla_put_flag(msg, VGPU_A_TENANT_FORCE) < 0))) {
		vgpuctl_nl_close(&nl);
		return vgpuctl_put_failed(msg);
	}
	ret = vgpuctl_send(&nl, msg, NULL, NULL);
	if (!ret && c)
		ret = vgpuctl_placement_sync(&nl, name, cmd == VGPU_CMD_TENANT_NEW, c->seen);
	vgpuctl_nl_close(&nl);
	return ret;
}

static int check_name(const char *name, const char *cmd)
{
	if (vgpuctl_parse_name(name))
		return vgpuctl_usage_error("invalid NAME \"%s\" for %s (1-63 printable characters, no spaces)",
					   name, cmd);
	return 0;
}

static int tenant_add(int argc, char **argv)
{
	static struct tenant_conf c = { .cmd = "tenant add" };
	char mnt[VGPU_PATH_LEN_MAX + 1], cgroup[VGPU_PATH_LEN_MAX + 1];
	const struct vgpu_spec_quota *q;
	const char *name, *path = NULL;
	int ret;

	if (argc < 1)
		return vgpuctl_usage_error("missing NAME for tenant add");
	name = argv[0];
	ret = check_name(name, "tenant add");
	if (ret)
		return ret;
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		q = find_quota(argv[0]);
		if (!q && strcmp(argv[0], "cgroup"))
			return vgpuctl_usage_error("unknown key \"%s\" for tenant add", argv[0]);
		if (argc < 2)
			return vgpuctl_usage_error("missing value for %s", argv[0]);
		if (!q) {
			if (path)
				return vgpuctl_usage_error("duplicate key \"cgroup\" for tenant add");
			path = argv[1];
			continue;
		}
		ret = parse_quota(&c, q, argv[1], false);
		if (ret)
			return ret;
	}
	if (!path)
		return vgpuctl_usage_error("cgroup is required");
	if (vgpuctl_cgroup_mount("/proc/self/mounts", mnt, sizeof(mnt)) < 0)
		return vgpuctl_error("cannot find the cgroup2 mount point");
	ret = vgpuctl_cgroup_path(mnt, path, cgroup, sizeof(cgroup));
	if (ret == -2)
		return vgpuctl_usage_error("cgroup path must be under %s", mnt);
	if (ret)
		return vgpuctl_usage_error("invalid PATH \"%s\" for cgroup", path);
	return tenant_send(VGPU_CMD_TENANT_NEW, name, cgroup, &c, false);
}

static int tenant_set(int argc, char **argv)
{
	static struct tenant_conf c = { .cmd = "tenant set" };
	const struct vgpu_spec_quota *q;
	const char *name;
	int ret;

	if (argc < 1)
		return vgpuctl_usage_error("missing NAME for tenant set");
	name = argv[0];
	ret = check_name(name, "tenant set");
	if (ret)
		return ret;
	if (argc < 2)
		return vgpuctl_usage_error("tenant set needs at least one QUOTA VALUE");
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		q = find_quota(argv[0]);
		if (!q)
			return vgpuctl_usage_error("unknown key \"%s\" for tenant set", argv[0]);
		if (argc < 2)
			return vgpuctl_usage_error("missing value for %s", argv[0]);
		ret = parse_quota(&c, q, argv[1], true);
		if (ret)
			return ret;
	}
	return tenant_send(VGPU_CMD_TENANT_SET, name, NULL, &c, false);
}

static int tenant_del(int argc, char **argv)
{
	int ret;

	if (argc < 1)
		return vgpuctl_usage_error("missing NAME for tenant del");
	ret = check_name(argv[0], "tenant del");
	if (ret)
		return ret;
	if (argc > 1 && strcmp(argv[1], "force"))
		return vgpuctl_usage_error("unexpected argument \"%s\" for tenant del", argv[1]);
	if (argc > 2)
		return vgpuctl_usage_error("unexpected argument \"%s\" for tenant del", argv[2]);
	return tenant_send(VGPU_CMD_TENANT_DEL, argv[0], NULL, NULL, argc > 1);
}

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
	[VGPU_A_TENANT_CLEAR] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CGROUP_REMOVED] = { .type = NLA_FLAG },
	[VGPU_A_TENANT_USAGE] = { .type = NLA_NESTED },
	[VGPU_A_TENANT_PLACEMENT] = { .type = NLA_U32 },
	[VGPU_A_TENANT_EXCLUSIVE] = { .type = NLA_U32 },
	[VGPU_A_TENANT_CPUS_EFFECTIVE] = { .type = NLA_STRING },
	[VGPU_A_TENANT_MEMS_EFFECTIVE] = { .type = NLA_STRING },
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
};

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
		if (nla_parse_nested(utb, VGPU_A_USAGE_MAX, a, usage_policy) < 0)
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

	if (genlmsg_parse(nlh, 0, tb, VGPU_A_TENANT_MAX, tenant_policy) < 0)
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

/*
 * The usage nests: a JSON array (empty when there is none), or in plain
 * output, when @lines, one indented line per GPU after the tenant's line.
 */
static void print_usage(struct nlmsghdr *nlh, bool lines)
{
	struct nlattr *u[VGPU_A_USAGE_MAX + 1], *pos = NULL;

	if (!vgpuctl_print_json() && !lines)
		return;
	vgpuctl_print_arr_open("usage");
	while (vgpuctl_tenant_next_usage(nlh, &pos, u) > 0) {
		uint64_t overdrafts;

		vgpuctl_print_sub_open("    ");
		vgpuctl_print_u64("gpu", "gpu", u[VGPU_A_USAGE_GPU], u32_attr(u[VGPU_A_USAGE_GPU]));
		vgpuctl_print_size("vram_current", "vram", u[VGPU_A_USAGE_VRAM_CURRENT],
				   u64_attr(u[VGPU_A_USAGE_VRAM_CURRENT]));
		vgpuctl_print_size("vram_peak", "peak", u[VGPU_A_USAGE_VRAM_PEAK],
				   u64_attr(u[VGPU_A_USAGE_VRAM_PEAK]));
		vgpuctl_print_size("vram_budget", "budget", u[VGPU_A_USAGE_VRAM_BUDGET],
				   u64_attr(u[VGPU_A_USAGE_VRAM_BUDGET]));
		vgpuctl_print_u64("vram_failures", "failures", u[VGPU_A_USAGE_VRAM_FAILURES],
				  u64_attr(u[VGPU_A_USAGE_VRAM_FAILURES]));
		vgpuctl_print_u64("vram_byte_seconds", "byte-seconds",
				  u[VGPU_A_USAGE_VRAM_BYTE_SECONDS],
				  u64_attr(u[VGPU_A_USAGE_VRAM_BYTE_SECONDS]));
		/* Counters: 0 when absent (a module without the scheduler). */
		vgpuctl_print_ns("gpu_time_ns", "gpu-time", true,
				 u64_attr(u[VGPU_A_USAGE_GPU_TIME_NS]));
		vgpuctl_print_ns("throttled_ns", "throttled", true,
				 u64_attr(u[VGPU_A_USAGE_THROTTLED_NS]));
		vgpuctl_print_u64("grants", "grants", true, u64_attr(u[VGPU_A_USAGE_GRANTS]));
		/* Plain output names overdrafts only when there are some. */
		overdrafts = u64_attr(u[VGPU_A_USAGE_VRAM_OVERDRAFTS]);
		vgpuctl_print_u64("vram_overdrafts", "overdrafts",
				  u[VGPU_A_USAGE_VRAM_OVERDRAFTS] &&
				  (vgpuctl_print_json() || overdrafts), overdrafts);
		vgpuctl_print_sub_close();
	}
	vgpuctl_print_arr_close();
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
	vgpuctl_print_size("vram_max", "vram-max", tb[VGPU_A_TENANT_VRAM_MAX],
			   u64_attr(tb[VGPU_A_TENANT_VRAM_MAX]));
	vgpuctl_print_size("vram_min", "vram-min", tb[VGPU_A_TENANT_VRAM_MIN],
			   u64_attr(tb[VGPU_A_TENANT_VRAM_MIN]));
	vgpuctl_print_mask("gpus", "gpus", tb[VGPU_A_TENANT_GPUS],
			   u64_attr(tb[VGPU_A_TENANT_GPUS]));
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
	vgpuctl_print_str("cpus_effective", "cpus-effective",
			  str_attr(tb[VGPU_A_TENANT_CPUS_EFFECTIVE]));
	vgpuctl_print_str("mems_effective", "mems-effective",
			  str_attr(tb[VGPU_A_TENANT_MEMS_EFFECTIVE]));
	if (!vgpuctl_print_json())
		vgpuctl_print_flag(NULL, "(cgroup removed)", removed);
	print_usage(nlh, usage_lines);
}

static int tenant_show_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];

	(void)arg;
	if (vgpuctl_tenant_parse(nlh, tb))
		return -EPROTO;
	vgpuctl_print_obj_open(NULL);
	vgpuctl_tenant_print(nlh, tb, true);
	vgpuctl_print_obj_close();
	return 0;
}

static int put_name(struct nl_msg *msg, const void *arg)
{
	return nla_put_string(msg, VGPU_A_TENANT_NAME, arg);
}

static int tenant_show(int argc, char **argv)
{
	int ret;

	if (argc > 1)
		return vgpuctl_usage_error("unexpected argument \"%s\" for tenant show", argv[1]);
	if (argc > 0) {
		ret = check_name(argv[0], "tenant show");
		if (ret)
			return ret;
		return vgpuctl_show(VGPU_CMD_TENANT_GET, false, put_name, argv[0],
				    tenant_show_one);
	}
	return vgpuctl_show(VGPU_CMD_TENANT_GET, true, NULL, NULL, tenant_show_one);
}

/**
 * vgpuctl_cmd_tenant() - dispatch "vgpuctl tenant COMMAND ..."
 * @argc: arguments after "tenant"
 * @argv: argv[0] is the command; none means show
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_tenant(int argc, char **argv)
{
	const char *cmd = argc > 0 ? argv[0] : "show";

	if (vgpuctl_is_help(argc, argv) || vgpuctl_is_help(argc - 1, argv + 1)) {
		vgpuctl_usage_tenant(stdout);
		return VGPU_EXIT_OK;
	}
	if (argc > 0)
		argc--, argv++;
	if (!strcmp(cmd, "add"))
		return tenant_add(argc, argv);
	if (!strcmp(cmd, "set"))
		return tenant_set(argc, argv);
	if (!strcmp(cmd, "del") || !strcmp(cmd, "delete"))
		return tenant_del(argc, argv);
	if (!strcmp(cmd, "show") || !strcmp(cmd, "list"))
		return tenant_show(argc, argv);
	return vgpuctl_usage_error("unknown command \"%s\" for tenant; try \"vgpuctl tenant help\"",
				   cmd);
}

/**
 * vgpuctl_quotas_parse() - the QUOTA VALUE words of tenant add, for others
 * @cmd: what errors name ("flavour small", "hook create-runtime")
 * @argc: number of words
 * @argv: QUOTA VALUE pairs, exactly the quota words tenant add takes
 * @out: where a new set goes (free() it), or NULL to only check the words
 *
 * A flavour (flavour.c) and the OCI hook (hook.c) give a tenant these
 * quotas; its cgroup is never theirs to name, so "cgroup" is refused.
 *
 * Return: 0, or VGPU_EXIT_USAGE after an error line.
 */
int vgpuctl_quotas_parse(const char *cmd, int argc, char **argv, struct tenant_conf **out)
{
	const struct vgpu_spec_quota *q;
	struct tenant_conf *c;
	int ret = 0;

	c = calloc(1, sizeof(*c));
	if (!c)
		return vgpuctl_error("%s", strerror(ENOMEM));
	c->cmd = cmd;
	for (; argc > 0 && !ret; argc -= 2, argv += 2) {
		q = find_quota(argv[0]);
		if (!q && !strcmp(argv[0], "cgroup"))
			ret = vgpuctl_usage_error("\"cgroup\" is not a quota: the tenant of %s gets its container's cgroup",
						  cmd);
		else if (!q)
			ret = vgpuctl_usage_error("unknown quota \"%s\" for %s", argv[0], cmd);
		else if (argc < 2)
			ret = vgpuctl_usage_error("missing value for %s", argv[0]);
		else
			ret = parse_quota(c, q, argv[1], false);
	}
	if (ret || !out)
		free(c);
	else
		*out = c;
	return ret;
}

/** vgpuctl_quotas_seen() - the quota bits a parsed set names. */
uint32_t vgpuctl_quotas_seen(const struct tenant_conf *c)
{
	return c->seen;
}

/** vgpuctl_quotas_put() - put a parsed set's quotas into a tenant-new request. */
int vgpuctl_quotas_put(struct nl_msg *msg, const struct tenant_conf *c)
{
	return put_quotas(msg, c);
}
