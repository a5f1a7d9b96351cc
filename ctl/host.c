// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl show and vgpuctl set: the host-wide settings of vgpu.ko
 * (host-get, host-set).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "parse.h"
#include "print.h"
#include "vgpuctl.h"

/**
 * vgpuctl_usage_host() - usage of show and set
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_host(FILE *f)
{
	fputs("Usage: vgpuctl show\n"
	      "       vgpuctl set default { allow | deny }\n"
	      "       vgpuctl { show | set } help\n"
	      "show prints the host-wide settings and the number of registered processes.\n"
	      "default: whether GPU processes outside every tenant may use the GPUs.\n", f);
}

static struct nla_policy host_policy[VGPU_A_HOST_MAX + 1] = {
	[VGPU_A_HOST_DEFAULT_POLICY] = { .type = NLA_U32 },
	[VGPU_A_HOST_PROCS] = { .type = NLA_U32 },
};

static int host_show_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_HOST_MAX + 1], *pol;
	const char *name;

	(void)arg;
	if (genlmsg_parse(nlh, 0, tb, VGPU_A_HOST_MAX, host_policy) < 0)
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

/**
 * vgpuctl_cmd_set() - "vgpuctl set KEY VALUE..."
 * @argc: arguments after "set"
 * @argv: KEY VALUE pairs, or "help"
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_set(int argc, char **argv)
{
	bool has_policy = false;
	uint32_t policy = 0;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_host(stdout);
		return VGPU_EXIT_OK;
	}
	if (argc < 1)
		return vgpuctl_usage_error("missing KEY for set; try \"vgpuctl set help\"");
	for (; argc > 0; argc -= 2, argv += 2) {
		if (strcmp(argv[0], "default"))
			return vgpuctl_usage_error("unknown key \"%s\" for set", argv[0]);
		if (argc < 2)
			return vgpuctl_usage_error("missing value for %s", argv[0]);
		if (has_policy)
			return vgpuctl_usage_error("duplicate key \"%s\" for set", argv[0]);
		if (vgpuctl_parse_policy(argv[1], &policy))
			return vgpuctl_usage_error("invalid POLICY \"%s\" for default (allow or deny)",
						   argv[1]);
		has_policy = true;
	}

	return vgpuctl_admin_u32(VGPU_CMD_HOST_SET, VGPU_A_HOST_DEFAULT_POLICY, policy);
}
