// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl: administer vgpu.ko over its generic netlink family.
 *
 *   vgpuctl [-j|--json] [-p|--pretty] [-V|--version] [-h|--help] OBJECT COMMAND [ARGS]
 *
 * Options, object dispatch and the top-level help live here; each object
 * is a file of its own (gpu.c and probe.c, tenant.c, backstop.c, monitor.c,
 * proc.c for ps, host.c for host, show and set, top.c, metrics.c, account.c,
 * hook.c for the OCI hooks, cdi.c; batch.c for -b).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../enforce/backstop.h"
#include "batch.h"
#include "../lib/parse.h"
#include "../lib/print.h"
#include "../vgpuctl.h"

static void usage(FILE *f)
{
	fputs("Usage: vgpuctl [OPTIONS] OBJECT { COMMAND | help }\n"
	      "       vgpuctl [OPTIONS] [--force] -b FILE\n"
	      "       vgpuctl [-V | --version]\n"
	      "       vgpuctl [-h | --help | help]\n"
	      "       vgpuctl [OPTIONS] { ps | show | set KEY VALUE | top [-d SECONDS] [-n N] }\n"
	      "       vgpuctl { metrics | account | agent } [ARGS]\n"
	      "OBJECT := { gpu | tenant | host | backstop | monitor | hook | cdi | apply }\n"
	      "OPTIONS := { -j[son] | -p[retty] }\n"
	      "  -j, --json     print JSON\n"
	      "  -p, --pretty   print indented JSON (implies -j)\n"
	      "  -b, --batch FILE  run one command per line of FILE (- for stdin)\n"
	      "      --force    go on after a failing line of -b\n"
	      "  -V, --version  print the version and exit\n"
	      "  -h, --help     print this help and exit\n\n", f);
	vgpuctl_usage_gpu(f);
	fputc('\n', f);
	vgpuctl_usage_tenant(f);
	fputc('\n', f);
	vgpuctl_usage_backstop(f);
	fputc('\n', f);
	vgpuctl_usage_monitor(f);
	fputc('\n', f);
	vgpuctl_usage_ps(f);
	fputc('\n', f);
	vgpuctl_usage_host(f);
	fputc('\n', f);
	vgpuctl_usage_top(f);
	fputc('\n', f);
	vgpuctl_usage_metrics(f);
	fputc('\n', f);
	vgpuctl_usage_account(f);
	fputc('\n', f);
	vgpuctl_usage_hook(f);
	fputc('\n', f);
	vgpuctl_usage_cdi(f);
	fputc('\n', f);
	vgpuctl_usage_apply(f);
	fputc('\n', f);
	vgpuctl_usage_agent(f);
}

struct object {
	const char *name;	/* may be abbreviated to any prefix */
	int (*fn)(int argc, char **argv);
};

/* In the order in which an abbreviation is resolved. */
static const struct object objects[] = {
	{ "gpu", vgpuctl_cmd_gpu },
	{ "tenant", vgpuctl_cmd_tenant },
	{ "host", vgpuctl_cmd_host },
	{ "backstop", vgpuctl_cmd_backstop },
	{ "monitor", vgpuctl_cmd_monitor },
	{ "ps", vgpuctl_cmd_ps },
	{ "show", vgpuctl_cmd_show },
	{ "set", vgpuctl_cmd_set },
	{ "top", vgpuctl_cmd_top },
	{ "metrics", vgpuctl_cmd_metrics },
	{ "account", vgpuctl_cmd_account },
	{ "hook", vgpuctl_cmd_hook },
	{ "cdi", vgpuctl_cmd_cdi },
	{ "apply", vgpuctl_cmd_apply },
	{ "agent", vgpuctl_cmd_agent },
};

/* The output options, for each line of a batch. */
static bool json, pretty;

/* Run one command: argv[0] is OBJECT, "help" or a top-level command. */
static int dispatch(int argc, char **argv)
{
	size_t i;

	vgpuctl_print_init(json, pretty);
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return VGPU_EXIT_OK;
	}
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (vgpuctl_matches(argv[0], objects[i].name))
			return objects[i].fn(argc - 1, argv + 1);
	return vgpuctl_usage_error("unknown object \"%s\"; try \"vgpuctl help\"", argv[0]);
}

int main(int argc, char **argv)
{
	enum { OPT_FORCE = 256 };
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "batch", required_argument, NULL, 'b' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *batch = NULL;
	bool force = false;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jpb:Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'p':
			pretty = true;
			json = true;
			break;
		case 'b':
			batch = optarg;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case 'V':
			printf("vgpuctl %s (vgpu netlink family version %d)\n",
			       VGPU_CTL_VERSION, VGPU_FAMILY_VERSION);
			return VGPU_EXIT_OK;
		case 'h':
			usage(stdout);
			return VGPU_EXIT_OK;
		default:
			if (optopt == 'b')
				return vgpuctl_usage_error("missing FILE for -b");
			if (optopt)
				return vgpuctl_usage_error("unknown option \"-%c\"; try \"vgpuctl help\"",
							   optopt);
			return vgpuctl_usage_error("unknown option \"%s\"; try \"vgpuctl help\"",
						   argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;

	if (batch && argc > 0)
		return vgpuctl_usage_error("unexpected argument \"%s\" after -b FILE", argv[0]);
	if (batch)
		return vgpuctl_batch(batch, force, dispatch);
	if (force)
		return vgpuctl_usage_error("--force goes with -b FILE");
	if (argc < 1)
		return vgpuctl_usage_error("missing OBJECT; try \"vgpuctl help\"");
	return dispatch(argc, argv);
}
