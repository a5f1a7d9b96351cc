// SPDX-License-Identifier: GPL-2.0
/*
 * A tenant's quotas and labels as vgpuctl holds them (struct tenant_conf):
 * parsed from QUOTA VALUE and label words, read from a tenant-get reply,
 * compared, and put into a tenant mutation. tenant.c, tenant_replace.c,
 * flavour.c, hook.c and hook_tenant.c use them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "../lib/parse.h"
#include "../lib/spec_gen.h"
#include "tenant.h"
#include "../vgpuctl.h"

/* How vgpuctl reads a quota's value; Q_NONE: a quota vgpuctl does not know. */
enum quota_type { Q_NONE, Q_SIZE, Q_GPUS, Q_WEIGHT, Q_PCT, Q_PRIO, Q_CPUS, Q_MEMS, Q_PLACE,
		  Q_ONOFF, Q_MS };

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
	[VGPU_A_TENANT_PREEMPTIBLE] = Q_ONOFF,
	[VGPU_A_TENANT_VRAM_WAIT] = Q_MS,
};

/* vram-wait's hint in parse_quota() names the spec's maximum. */
_Static_assert(VGPU_CHECK_TENANT_VRAM_WAIT_MAX == 600 * 1000, "vram-wait's hint: 0-600 seconds");

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
	case Q_MS:	/* vram-wait: seconds given, milliseconds sent */
		what = "WAIT";
		hint = " (0-600 seconds, at most 3 decimals)";
		bad = vgpuctl_parse_ms(val, VGPU_CHECK_TENANT_VRAM_WAIT_MAX, &u32);
		c->u64[i] = u32;
		break;
	}
	if (bad)
		return vgpuctl_usage_error("invalid %s \"%s\" for %s%s", what, val, q->name, hint);
	return 0;
}

/* Parse "gpus auto COUNT" (@argv[0] is "gpus"). Returns 0 or VGPU_EXIT_USAGE. */
static int parse_gpus_auto(struct tenant_conf *c, const struct vgpu_spec_quota *q, int argc,
			   char **argv)
{
	if (c->seen & q->bit)
		return vgpuctl_usage_error("duplicate key \"%s\" for %s", q->name, c->cmd);
	c->seen |= q->bit;
	if (argc < 3)
		return vgpuctl_usage_error("missing COUNT for gpus auto");
	if (vgpuctl_parse_gpu_count(argv[2], &c->gpus_auto))
		return vgpuctl_usage_error("invalid COUNT \"%s\" for gpus auto (1-64)", argv[2]);
	return 0;
}

/**
 * vgpuctl_tenant_conf_clear_unnamed() - clear every quota @c does not name
 * @c: a parsed command line, turned into a tenant set by tenant replace
 */
void vgpuctl_tenant_conf_clear_unnamed(struct tenant_conf *c)
{
	size_t q;

	for (q = 0; q < NQUOTAS; q++) {
		const struct vgpu_spec_quota *sq = &vgpu_spec_quotas[q];

		if (quota_types[sq->attr] != Q_NONE && !(c->seen & sq->bit))
			c->seen |= sq->bit, c->clear |= sq->bit;
	}
}

/**
 * vgpuctl_tenant_conf_from_reply() - the quotas a tenant-get reply holds
 * @c: zeroed; gets seen bits and values of the quotas set (apply.c diffs it)
 * @tb: the parsed reply; the module puts only the quotas that are set
 */
void vgpuctl_tenant_conf_from_reply(struct tenant_conf *c, struct nlattr **tb)
{
	size_t i;

	for (i = 0; i < NQUOTAS; i++) {
		const struct vgpu_spec_quota *q = &vgpu_spec_quotas[i];
		struct nlattr *a = tb[q->attr];

		if (!a || quota_types[q->attr] == Q_NONE)
			continue;
		c->seen |= q->bit;
		if (q->attr == VGPU_A_TENANT_GPUS && tb[VGPU_A_TENANT_GPUS_AUTO])
			c->gpus_auto = nla_get_u32(tb[VGPU_A_TENANT_GPUS_AUTO]);
		if (quota_types[q->attr] == Q_CPUS || quota_types[q->attr] == Q_MEMS)
			snprintf(c->list[i], sizeof(c->list[i]), "%s", nla_get_string(a));
		else if (quota_types[q->attr] == Q_SIZE || quota_types[q->attr] == Q_GPUS)
			c->u64[i] = nla_get_u64(a);
		else
			c->u64[i] = nla_get_u32(a);
	}
}

/**
 * vgpuctl_tenant_quota_same() - whether @a and @b agree on quota number @i
 * @a: a parsed line or reply
 * @b: another
 * @i: index into vgpu_spec_quotas[]
 *
 * Return: true when both leave it unset, or both set it to the same value.
 */
bool vgpuctl_tenant_quota_same(const struct tenant_conf *a, const struct tenant_conf *b, size_t i)
{
	uint32_t bit = vgpu_spec_quotas[i].bit;
	bool sa = (a->seen & bit) && !(a->clear & bit), sb = (b->seen & bit) && !(b->clear & bit);
	enum quota_type t = quota_types[vgpu_spec_quotas[i].attr];

	if (t == Q_NONE || (!sa && !sb))
		return true;
	if (sa != sb)
		return false;
	/* A choice the module made is the same while the count asked is. */
	if (t == Q_GPUS && (a->gpus_auto || b->gpus_auto))
		return a->gpus_auto == b->gpus_auto;
	if (t == Q_CPUS || t == Q_MEMS)
		return !strcmp(a->list[i], b->list[i]);
	return a->u64[i] == b->u64[i];
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
			err = nla_put_u64(msg, q->attr, c->u64[i]);
			break;
		case Q_GPUS:
			if (c->gpus_auto)
				err = nla_put_u32(msg, VGPU_A_TENANT_GPUS_AUTO, c->gpus_auto);
			else
				err = nla_put_u64(msg, q->attr, c->u64[i]);
			break;
		case Q_WEIGHT:
		case Q_PCT:
		case Q_PRIO:
		case Q_PLACE:
		case Q_ONOFF:
		case Q_MS:
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

/**
 * vgpuctl_tenant_conf_label() - parse one "label KEY=VALUE" into @c
 * @c: the conf being parsed (tenant add, set, replace; the OCI hook's)
 * @arg: KEY=VALUE ("KEY=" removes, in a set)
 *
 * Return: 0, or VGPU_EXIT_USAGE after an error line.
 */
int vgpuctl_tenant_conf_label(struct tenant_conf *c, const char *arg)
{
	unsigned int i, max = c->set ? CONF_LABELS : VGPU_LABEL_MAX;
	char key[VGPU_LABEL_KEY_LEN_MAX + 1], value[VGPU_LABEL_VALUE_LEN_MAX + 1];
	int bad = vgpuctl_parse_label(arg, key, value);

	if (bad == -2)
		return vgpuctl_usage_error("invalid VALUE in label \"%s\" (at most 255 printable ASCII characters)",
					   arg);
	if (bad)
		return vgpuctl_usage_error("invalid label \"%s\" (KEY=VALUE, KEY: 1-63 letters, digits and ._/- starting with a letter or digit)",
					   arg);
	if (!*value && !c->set)
		return vgpuctl_usage_error("label \"%s\" has no value (\"label KEY=\" removes a label in tenant set)",
					   arg);
	for (i = 0; i < c->nlabels; i++)
		if (!strcmp(c->labels[i].key, key))
			return vgpuctl_usage_error("duplicate label \"%s\" for %s", key, c->cmd);
	if (c->nlabels == max)
		return vgpuctl_usage_error("too many labels for %s (at most %u)", c->cmd, max);
	strcpy(c->labels[c->nlabels].key, key);
	strcpy(c->labels[c->nlabels].value, value);
	c->nlabels++;
	return 0;
}

/*
 * Parse the KEY VALUE words after NAME into @c: quotas, labels, and for
 * add and replace ephemeral (a word alone) and cgroup (into *@path).
 * Returns 0 or VGPU_EXIT_USAGE.
 */
int vgpuctl_tenant_conf_parse(struct tenant_conf *c, int argc, char **argv, const char **path)
{
	const struct vgpu_spec_quota *q;
	const char *cmd = c->cmd;
	bool set = c->set;
	int ret, step;

	/* @c is static (it is large): start clean, for the next line of -b. */
	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->set = set;
	for (; argc > 0; argc -= step, argv += step) {
		step = 2;
		if (!c->set && !strcmp(argv[0], "ephemeral")) {
			if (c->ephemeral)
				return vgpuctl_usage_error("duplicate key \"ephemeral\" for %s",
							   c->cmd);
			c->ephemeral = true;
			step = 1;
			continue;
		}
		q = find_quota(argv[0]);
		if (!q && strcmp(argv[0], "label") && (c->set || strcmp(argv[0], "cgroup")))
			return vgpuctl_usage_error("unknown key \"%s\" for %s", argv[0], c->cmd);
		if (argc < 2)
			return vgpuctl_usage_error("missing value for %s", argv[0]);
		if (q && q->attr == VGPU_A_TENANT_GPUS && !strcmp(argv[1], "auto"))
			ret = parse_gpus_auto(c, q, argc, argv), step = 3;
		else if (q)
			ret = parse_quota(c, q, argv[1], c->set);
		else if (!strcmp(argv[0], "label"))
			ret = vgpuctl_tenant_conf_label(c, argv[1]);
		else if (*path)
			ret = vgpuctl_usage_error("duplicate key \"cgroup\" for %s", c->cmd);
		else
			*path = argv[1], ret = 0;
		if (ret)
			return ret;
	}
	return 0;
}

/* Put the labels of @c, each a nest of its key and value, into @msg. */
static int put_labels(struct nl_msg *msg, const struct tenant_conf *c)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < c->nlabels; i++) {
		nest = nla_nest_start(msg, VGPU_A_TENANT_LABEL | NLA_F_NESTED);
		if (!nest ||
		    nla_put_string(msg, VGPU_A_LABEL_KEY, c->labels[i].key) < 0 ||
		    nla_put_string(msg, VGPU_A_LABEL_VALUE, c->labels[i].value) < 0)
			return -1;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/**
 * vgpuctl_tenant_conf_put() - put a tenant_conf into a tenant mutation
 * @msg: the tenant-new, tenant-set or tenant-replace message
 * @c: its quotas, labels and ephemeral flag
 *
 * Return: 0, or -1 when @msg has no room.
 */
int vgpuctl_tenant_conf_put(struct nl_msg *msg, const struct tenant_conf *c)
{
	if (put_quotas(msg, c) < 0 || put_labels(msg, c) < 0 ||
	    (c->ephemeral && nla_put_flag(msg, VGPU_A_TENANT_EPHEMERAL) < 0))
		return -1;
	return 0;
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

/* 0 if @name is a valid tenant NAME, else VGPU_EXIT_USAGE naming @cmd. */
int vgpuctl_tenant_check_name(const char *name, const char *cmd)
{
	if (vgpuctl_parse_name(name))
		return vgpuctl_usage_error("invalid NAME \"%s\" for %s (1-63 printable characters, no spaces)",
					   name, cmd);
	return 0;
}

/*
 * The cgroup path the kernel takes for @path, in @out; the cgroup2 mount
 * point in @mnt. Returns 0 or VGPU_EXIT_USAGE or VGPU_EXIT_ERR.
 */
int vgpuctl_tenant_resolve_cgroup(const char *path, char *mnt, char *out)
{
	int ret;

	if (!path)
		return vgpuctl_usage_error("cgroup is required");
	if (vgpuctl_cgroup_mount("/proc/self/mounts", mnt, VGPU_PATH_LEN_MAX + 1) < 0)
		return vgpuctl_error("cannot find the cgroup2 mount point");
	ret = vgpuctl_cgroup_path(mnt, path, out, VGPU_PATH_LEN_MAX + 1);
	if (ret == -2)
		return vgpuctl_usage_error("cgroup path must be under %s", mnt);
	if (ret)
		return vgpuctl_usage_error("invalid PATH \"%s\" for cgroup", path);
	return 0;
}
