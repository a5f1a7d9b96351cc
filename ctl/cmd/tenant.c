// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl tenant: add, set, del, show the tenants of vgpu.ko.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "../enforce/backstop.h"
#include "../lib/parse.h"
#include "../lib/print.h"
#include "../lib/spec_gen.h"
#include "../obj/tenant.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_usage_tenant() - usage of the tenant object
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_tenant(FILE *f)
{
	fputs("Usage: vgpuctl tenant add NAME cgroup PATH [ephemeral] [QUOTA VALUE]... [label KEY=VALUE]...\n"
	      "       vgpuctl tenant set NAME { QUOTA { VALUE | none } | label KEY=[VALUE] }...\n"
	      "       vgpuctl tenant replace NAME cgroup PATH [ephemeral] [QUOTA VALUE]...\n"
	      "                              [label KEY=VALUE]...\n"
	      "       vgpuctl tenant del NAME [force]\n"
	      "       vgpuctl tenant { show | list } [NAME]\n"
	      "       vgpuctl tenant { suspend | resume } NAME [wait SECS | nowait]\n"
	      "       vgpuctl tenant final [show]\n"
	      "       vgpuctl tenant final ack SEQ\n"
	      "       vgpuctl tenant help\n"
	      "QUOTA VALUE := { vram-max SIZE | vram-min SIZE | gpus { LIST | auto COUNT } |\n"
	      "                 weight N |\n"
	      "                 compute-max PCT | priority { low | normal | high } |\n"
	      "                 cpus LIST | mems LIST | placement { manual | auto } |\n"
	      "                 exclusive { on | off } | preemptible { on | off } |\n"
	      "                 vram-wait WAIT }\n"
	      "NAME := 1-63 printable characters, no spaces\n"
	      "PATH := cgroup v2 directory, absolute or relative to the cgroup2 mount\n"
	      "SIZE := NUMBER[.FRACTION][B|K|Ki|KiB|KB|M|...|T|Ti|TiB|TB] (powers of 1024)\n"
	      "LIST := NUMBER[-NUMBER][,...] (\"0-3,8\")\n"
	      "N    := 1-10000\n"
	      "COUNT := 1-64: the module chooses that many GPUs by the host's gpu-policy\n"
	      "        (see \"vgpuctl host help\"); the choice shows as the tenant's gpus\n"
	      "PCT  := 0-100 with at most 2 decimals, optional % (\"37.5%\")\n"
	      "SECS := 0.001-86400, at most 3 decimals\n"
	      "WAIT := seconds, 0-600, at most 3 decimals (\"30\", \"0.5\")\n"
	      "KEY  := 1-63 letters, digits and ._/- starting with a letter or digit\n"
	      "VALUE (label) := at most 255 printable ASCII characters; at most 16 labels\n"
	      "After a change of cpus, mems, placement, exclusive or gpus, the CPUs and\n"
	      "nodes in force are written to the cgroup's cpuset.cpus and cpuset.mems.\n"
	      "set: \"label KEY=\" removes the label. ephemeral: the module deletes the\n"
	      "tenant once its cgroup is removed and none of its processes is registered.\n"
	      "replace adds the tenant, or sets an existing one on the same cgroup to\n"
	      "exactly the quotas and labels given (the others are cleared).\n"
	      "del refuses a tenant with registered processes; force ends their\n"
	      "registrations first (their charges go with them).\n"
	      "suspend checkpoints the tenant's processes into host memory and gives\n"
	      "their VRAM back; resume charges it again, then restores them. Both need\n"
	      "the agent (\"vgpuctl agent\") and wait until it is done (default 60 s),\n"
	      "then print the outcome; nowait returns once the module took the request.\n"
	      "preemptible on: the tenant may be suspended to free VRAM for a tenant\n"
	      "of higher priority whose charge waits for room; it resumes by itself.\n"
	      "vram-wait: how long a charge of the tenant that finds no room may wait\n"
	      "for preemptible tenants of lower priority to be suspended (0: none).\n"
	      "final shows the final records of deleted tenants; final ack SEQ drops\n"
	      "those up to SEQ.\n"
	      "add, replace, del and a set of vram-max, vram-min or gpus also set the\n"
	      "tenant's limits in the driver or the dmem controller where either offers\n"
	      "them (see \"vgpuctl backstop help\").\n", f);
}

static int tenant_add(int argc, char **argv)
{
	static struct tenant_conf c = { .cmd = "tenant add" };
	char mnt[VGPU_PATH_LEN_MAX + 1], cgroup[VGPU_PATH_LEN_MAX + 1];
	const char *name, *path = NULL;
	int ret;

	if (argc < 1)
		return vgpuctl_usage_error("missing NAME for tenant add");
	name = argv[0];
	ret = vgpuctl_tenant_check_name(name, "tenant add");
	if (!ret)
		ret = vgpuctl_tenant_conf_parse(&c, argc - 1, argv + 1, &path);
	if (!ret)
		ret = vgpuctl_tenant_resolve_cgroup(path, mnt, cgroup);
	if (ret)
		return ret;
	return vgpuctl_tenant_send(VGPU_CMD_TENANT_NEW, name, cgroup, &c, false);
}

static int tenant_set(int argc, char **argv)
{
	static struct tenant_conf c = { .cmd = "tenant set", .set = true };
	const char *name, *path = NULL;
	int ret;

	if (argc < 1)
		return vgpuctl_usage_error("missing NAME for tenant set");
	name = argv[0];
	ret = vgpuctl_tenant_check_name(name, "tenant set");
	if (ret)
		return ret;
	if (argc < 2)
		return vgpuctl_usage_error("tenant set needs at least one QUOTA VALUE or label");
	ret = vgpuctl_tenant_conf_parse(&c, argc - 1, argv + 1, &path);
	if (ret)
		return ret;
	return vgpuctl_tenant_send(VGPU_CMD_TENANT_SET, name, NULL, &c, false);
}

static int tenant_del(int argc, char **argv)
{
	int ret;

	if (argc < 1)
		return vgpuctl_usage_error("missing NAME for tenant del");
	ret = vgpuctl_tenant_check_name(argv[0], "tenant del");
	if (ret)
		return ret;
	if (argc > 1 && strcmp(argv[1], "force"))
		return vgpuctl_usage_error("unexpected argument \"%s\" for tenant del", argv[1]);
	if (argc > 2)
		return vgpuctl_usage_error("unexpected argument \"%s\" for tenant del", argv[2]);
	return vgpuctl_tenant_send(VGPU_CMD_TENANT_DEL, argv[0], NULL, NULL, argc > 1);
}

/* tenant replace NAME cgroup PATH [ephemeral] [QUOTA VALUE]... [label KEY=VALUE]... */
static int tenant_replace(int argc, char **argv)
{
	static struct tenant_conf c = { .cmd = "tenant replace" };
	const char *name, *path = NULL;
	int ret;

	if (argc < 1)
		return vgpuctl_usage_error("missing NAME for tenant replace");
	name = argv[0];
	ret = vgpuctl_tenant_check_name(name, "tenant replace");
	if (!ret)
		ret = vgpuctl_tenant_conf_parse(&c, argc - 1, argv + 1, &path);
	if (ret)
		return ret;
	return vgpuctl_tenant_replace(name, path, &c);
}

/* Default wait of tenant suspend and resume for the agent, in seconds. */
#define SUSPEND_WAIT_DEFAULT	60

/* tenant { suspend | resume } NAME [wait SECS | nowait] */
static int tenant_suspend(int argc, char **argv, bool resume)
{
	const char *cmd = resume ? "tenant resume" : "tenant suspend";
	uint64_t wait_ns = SUSPEND_WAIT_DEFAULT * 1000000000ull;
	int ret, i;

	if (argc < 1)
		return vgpuctl_usage_error("missing NAME for %s", cmd);
	ret = vgpuctl_tenant_check_name(argv[0], cmd);
	if (ret)
		return ret;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "nowait")) {
			wait_ns = 0;
		} else if (!strcmp(argv[i], "wait")) {
			if (++i >= argc)
				return vgpuctl_usage_error("missing SECS after \"wait\" for %s", cmd);
			if (vgpuctl_parse_seconds(argv[i], &wait_ns))
				return vgpuctl_usage_error("invalid wait \"%s\" for %s: want seconds, 0.001 to %u",
							   argv[i], cmd, VGPU_SECONDS_MAX);
		} else {
			return vgpuctl_usage_error("unexpected argument \"%s\" for %s", argv[i], cmd);
		}
	}
	return vgpuctl_tenant_suspend(argv[0], resume, wait_ns);
}

static int tenant_show_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];
	const struct vgpuctl_bs_show *bs = arg;

	if (vgpuctl_tenant_parse(nlh, tb))
		return -EPROTO;
	vgpuctl_print_obj_open(NULL);
	vgpuctl_tenant_print(nlh, tb, true);
	vgpuctl_backstop_print_tenant(bs, tb);
	vgpuctl_print_obj_close();
	return 0;
}

static int put_name(struct nl_msg *msg, const void *arg)
{
	return nla_put_string(msg, VGPU_A_TENANT_NAME, arg);
}

static int tenant_show(int argc, char **argv)
{
	/* Read once, before the dump, for every tenant's backstop lines. */
	struct vgpuctl_bs_show *bs;
	struct vgpu_show_req r = {
		.cmd = VGPU_CMD_TENANT_GET, .dump = argc == 0, .fn = tenant_show_one,
	};
	int ret;

	if (argc > 1)
		return vgpuctl_usage_error("unexpected argument \"%s\" for tenant show", argv[1]);
	if (argc > 0) {
		ret = vgpuctl_tenant_check_name(argv[0], "tenant show");
		if (ret)
			return ret;
		r.put = put_name;
		r.parg = argv[0];
	}
	bs = calloc(1, sizeof(*bs));
	if (!bs)
		return vgpuctl_error("%s", strerror(ENOMEM));
	vgpuctl_backstop_show_prepare(bs);
	r.arg = bs;
	ret = vgpuctl_show_run(&r);
	free(bs);
	return ret;
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
	if (!strcmp(cmd, "replace"))
		return tenant_replace(argc, argv);
	if (!strcmp(cmd, "suspend") || !strcmp(cmd, "resume"))
		return tenant_suspend(argc, argv, cmd[0] == 'r');
	if (!strcmp(cmd, "final"))
		return vgpuctl_tenant_final(argc, argv);
	return vgpuctl_usage_error("unknown command \"%s\" for tenant; try \"vgpuctl tenant help\"",
				   cmd);
}
