// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl show and vgpuctl set: the host-wide settings of vgpu.ko
 * (host-get, host-set).
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "../lib/parse.h"
#include "../lib/print.h"
#include "../lib/spec_policy.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_usage_host() - usage of show and set
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_host(FILE *f)
{
	fputs("Usage: vgpuctl show\n"
	      "       vgpuctl set default { allow | deny }\n"
	      "       vgpuctl set monitor-group { GROUP | none }\n"
	      "       vgpuctl set gpu-policy { binpack | spread }\n"
	      "       vgpuctl host { show | set KEY VALUE... }\n"
	      "       vgpuctl { show | set | host } help\n"
	      "show prints the host-wide settings, the module's instance id and load time,\n"
	      "and (to CAP_NET_ADMIN or the monitor group) the number of registered\n"
	      "processes and of final records kept and dropped.\n"
	      "default: whether GPU processes outside every tenant may use the GPUs.\n"
	      "monitor-group: a group name or number, or none; its members read every\n"
	      "tenant, process and final record without changing anything.\n"
	      "gpu-policy: how \"gpus auto N\" chooses a tenant's GPUs among the healthy\n"
	      "ones with room for its vram-min: binpack (least free room first, the\n"
	      "default) or spread (most free room first).\n", f);
}

static uint64_t u64_or0(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

/* monitor_gid (null for none) and monitor_group: its name, the number, or "none". */
static void print_monitor(struct nlattr *a)
{
	uint32_t gid = a ? nla_get_u32(a) : VGPU_GID_NONE;
	struct group *gr = NULL;
	char num[16];

	if (!a)
		return;
	if (gid != VGPU_GID_NONE)
		gr = getgrgid(gid);
	snprintf(num, sizeof(num), "%u", gid);
	vgpuctl_print_u64("monitor_gid", NULL, gid != VGPU_GID_NONE, gid);
	vgpuctl_print_str("monitor_group", "monitor-group",
			  gid == VGPU_GID_NONE ? "none" : gr ? gr->gr_name : num);
}

static int host_show_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_HOST_MAX + 1], *pol;
	const char *name;

	(void)arg;
	if (genlmsg_parse(nlh, 0, tb, VGPU_A_HOST_MAX, vgpu_host_nl_policy) < 0)
		return -EPROTO;
	pol = tb[VGPU_A_HOST_DEFAULT_POLICY];
	name = pol ? vgpuctl_policy_name(nla_get_u32(pol)) : NULL;
	vgpuctl_print_obj_open(NULL);
	if (pol && !name)	/* a policy this vgpuctl does not know */
		vgpuctl_print_u64("default", "default", true, nla_get_u32(pol));
	else
		vgpuctl_print_str("default", "default", name);
	vgpuctl_print_u64("procs", "procs", tb[VGPU_A_HOST_PROCS],
			  tb[VGPU_A_HOST_PROCS] ? nla_get_u32(tb[VGPU_A_HOST_PROCS]) : 0);
	vgpuctl_print_hex64("instance_id", "instance", tb[VGPU_A_HOST_INSTANCE_ID],
			    u64_or0(tb[VGPU_A_HOST_INSTANCE_ID]));
	vgpuctl_print_time("loaded", "loaded", tb[VGPU_A_HOST_LOADED],
			   u64_or0(tb[VGPU_A_HOST_LOADED]));
	print_monitor(tb[VGPU_A_HOST_MONITOR_GID]);
	pol = tb[VGPU_A_HOST_GPU_POLICY];	/* absent from an older module */
	name = pol ? vgpuctl_gpu_policy_name(nla_get_u32(pol)) : NULL;
	if (pol && !name)	/* a gpu-policy this vgpuctl does not know */
		vgpuctl_print_u64("gpu_policy", "gpu-policy", true, nla_get_u32(pol));
	else if (pol)
		vgpuctl_print_str("gpu_policy", "gpu-policy", name);
	vgpuctl_print_u64("finals", "finals", tb[VGPU_A_HOST_FINALS],
			  tb[VGPU_A_HOST_FINALS] ? nla_get_u32(tb[VGPU_A_HOST_FINALS]) : 0);
	vgpuctl_print_u64("finals_dropped", "finals-dropped", tb[VGPU_A_HOST_FINALS_DROPPED],
			  u64_or0(tb[VGPU_A_HOST_FINALS_DROPPED]));
	vgpuctl_print_obj_close();
	return 0;
}

/**
 * vgpuctl_cmd_show() - "vgpuctl show"
 * @argc: arguments after "show"
 * @argv: none, or "help"
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_show(int argc, char **argv)
{
	struct vgpu_show_req r = {
		.cmd = VGPU_CMD_HOST_GET, .single = true, .fn = host_show_one,
	};

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_host(stdout);
		return VGPU_EXIT_OK;
	}
	if (argc > 0)
		return vgpuctl_usage_error("unexpected argument \"%s\" for show", argv[0]);
	return vgpuctl_show_run(&r);
}

/* GROUP: a group name, a number, or none. Returns 0 or -1 (apply.c too). */
int vgpuctl_host_parse_group(const char *s, uint32_t *gid)
{
	struct group *gr;
	uint32_t v;

	if (!strcmp(s, "none")) {
		*gid = VGPU_GID_NONE;
		return 0;
	}
	if (!vgpuctl_parse_u32(s, 0, VGPU_GID_NONE - 1, &v)) {
		*gid = v;
		return 0;
	}
	gr = getgrnam(s);
	if (!gr || (uint32_t)gr->gr_gid == VGPU_GID_NONE)
		return -1;
	*gid = (uint32_t)gr->gr_gid;
	return 0;
}

/* Send host-set with the settings given (apply.c too). */
int vgpuctl_host_set(const struct vgpuctl_host_conf *h)
{
	struct vgpu_nl nl;
	struct nl_msg *msg;
	int ret = vgpuctl_need_admin();

	if (!ret)
		ret = vgpuctl_open(&nl);
	if (ret)
		return ret;
	msg = vgpuctl_nl_msg(&nl, VGPU_CMD_HOST_SET, false);
	if (msg && ((h->has_policy && nla_put_u32(msg, VGPU_A_HOST_DEFAULT_POLICY, h->policy) < 0) ||
		    (h->has_gid && nla_put_u32(msg, VGPU_A_HOST_MONITOR_GID, h->gid) < 0) ||
		    (h->has_gpu_policy &&
		     nla_put_u32(msg, VGPU_A_HOST_GPU_POLICY, h->gpu_policy) < 0))) {
		vgpuctl_nl_close(&nl);
		return vgpuctl_put_failed(msg);
	}
	ret = vgpuctl_send(&nl, msg, NULL, NULL);
	vgpuctl_nl_close(&nl);
	return ret;
}

/* One "KEY VALUE" of set into @h. Returns 0 or VGPU_EXIT_USAGE. */
static int set_key(struct vgpuctl_host_conf *h, const char *key, const char *val)
{
	bool *has;

	if (!strcmp(key, "default"))
		has = &h->has_policy;
	else if (!strcmp(key, "monitor-group"))
		has = &h->has_gid;
	else if (!strcmp(key, "gpu-policy"))
		has = &h->has_gpu_policy;
	else
		return vgpuctl_usage_error("unknown key \"%s\" for set", key);
	if (!val)
		return vgpuctl_usage_error("missing value for %s", key);
	if (*has)
		return vgpuctl_usage_error("duplicate key \"%s\" for set", key);
	*has = true;
	if (has == &h->has_policy && vgpuctl_parse_policy(val, &h->policy))
		return vgpuctl_usage_error("invalid POLICY \"%s\" for default (allow or deny)", val);
	if (has == &h->has_gid && vgpuctl_host_parse_group(val, &h->gid))
		return vgpuctl_usage_error("invalid GROUP \"%s\" for monitor-group (a group name or number, or none)",
					   val);
	if (has == &h->has_gpu_policy && vgpuctl_parse_gpu_policy(val, &h->gpu_policy))
		return vgpuctl_usage_error("invalid POLICY \"%s\" for gpu-policy (binpack or spread)",
					   val);
	return 0;
}

/**
 * vgpuctl_cmd_set() - "vgpuctl set KEY VALUE..."
 * @argc: arguments after "set"
 * @argv: KEY VALUE pairs, or "help"
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_set(int argc, char **argv)
{
	struct vgpuctl_host_conf h = { .gid = VGPU_GID_NONE };
	int ret;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_host(stdout);
		return VGPU_EXIT_OK;
	}
	if (argc < 1)
		return vgpuctl_usage_error("missing KEY for set; try \"vgpuctl set help\"");
	for (; argc > 0; argc -= 2, argv += 2) {
		ret = set_key(&h, argv[0], argc > 1 ? argv[1] : NULL);
		if (ret)
			return ret;
	}
	return vgpuctl_host_set(&h);
}

/**
 * vgpuctl_cmd_host() - "vgpuctl host { show | set ... }"
 * @argc: arguments after "host"
 * @argv: the command; none means show
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_host(int argc, char **argv)
{
	if (argc < 1 || !strcmp(argv[0], "show"))
		return vgpuctl_cmd_show(argc > 0 ? argc - 1 : 0, argv + (argc > 0));
	if (!strcmp(argv[0], "set"))
		return vgpuctl_cmd_set(argc - 1, argv + 1);
	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_host(stdout);
		return VGPU_EXIT_OK;
	}
	return vgpuctl_usage_error("unknown command \"%s\" for host; try \"vgpuctl host help\"",
				   argv[0]);
}
