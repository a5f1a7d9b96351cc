// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl ps: the processes registered with vgpu.ko (proc-get dump), one
 * row per process and GPU; vgpuctl ps del PID ends a process's
 * registrations (proc-del).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "../lib/parse.h"
#include "../lib/print.h"
#include "../lib/spec_policy.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_usage_ps() - usage of ps
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_ps(FILE *f)
{
	fputs("Usage: vgpuctl ps\n"
	      "       vgpuctl ps del PID\n"
	      "       vgpuctl ps help\n"
	      "Lists the processes registered with vgpu, one row per process and GPU:\n"
	      "pid, tenant (- outside every tenant), GPU (- when none), VRAM held and\n"
	      "VRAM charged but not yet allocated (budget), and the GPUs the module\n"
	      "chose for the process at registration (VGPU_GPUS=auto:N; - when it\n"
	      "asked for none). PARKED: for a process checkpointed by tenant suspend,\n"
	      "the bytes of that GPU it holds in host memory; - for a running one.\n"
	      "Callers without\n"
	      "CAP_NET_ADMIN see only the processes of their own tenant.\n"
	      "del ends every registration of process PID (as this pid namespace\n"
	      "numbers it): its charges are given back and libvgpu in it stops\n"
	      "allocating. The process itself goes on; end it to free what it holds.\n", f);
}

/* One row of the table. */
struct ps_row {
	uint32_t pid;
	char tenant[VGPU_NAME_LEN_MAX + 1];	/* "" outside every tenant */
	bool has_gpu;
	uint32_t gpu;
	uint64_t vram;
	uint64_t budget;
	uint64_t parked;
	bool suspended;		/* checkpointed: its charges parked */
	bool has_chosen;	/* the module chose GPUs for the process */
	uint64_t chosen;
};

/* The rows of the plain table, kept until the dump is over. */
static struct {
	struct ps_row *v;
	size_t n, cap;
	bool nomem;
} rows;

static void print_row(const struct ps_row *r)
{
	if (vgpuctl_print_json()) {
		vgpuctl_print_obj_open(NULL);
		vgpuctl_print_u64("pid", NULL, true, r->pid);
		vgpuctl_print_str("tenant", NULL, r->tenant[0] ? r->tenant : NULL);
		vgpuctl_print_u64("gpu", NULL, r->has_gpu, r->gpu);
		vgpuctl_print_u64("vram", NULL, true, r->vram);
		vgpuctl_print_u64("vram_budget", NULL, true, r->budget);
		vgpuctl_print_flag("suspended", NULL, r->suspended);
		vgpuctl_print_u64("vram_parked", NULL, true, r->parked);
		vgpuctl_print_mask("gpus_chosen", NULL, r->has_chosen, r->chosen);
		vgpuctl_print_obj_close();
		return;
	}
	if (rows.n == rows.cap) {
		size_t cap = rows.cap ? 2 * rows.cap : 64;
		struct ps_row *v = realloc(rows.v, cap * sizeof(*v));

		if (!v) {
			rows.nomem = true;
			return;
		}
		rows.v = v;
		rows.cap = cap;
	}
	rows.v[rows.n++] = *r;
}

static uint64_t u64_or_0(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static int ps_one(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_PROC_MAX + 1], *g[VGPU_A_PROC_GPU_MAX + 1], *a;
	struct genlmsghdr *gh = nlmsg_data(nlh);
	struct ps_row r = { 0 };
	bool any = false;
	int rem;

	(void)arg;
	if (genlmsg_parse(nlh, 0, tb, VGPU_A_PROC_MAX, vgpu_proc_nl_policy) < 0 ||
	    !tb[VGPU_A_PROC_PID])
		return -EPROTO;
	r.pid = nla_get_u32(tb[VGPU_A_PROC_PID]);
	if (tb[VGPU_A_PROC_TENANT])
		snprintf(r.tenant, sizeof(r.tenant), "%s", nla_get_string(tb[VGPU_A_PROC_TENANT]));
	r.suspended = tb[VGPU_A_PROC_SUSPENDED];
	r.has_chosen = tb[VGPU_A_PROC_GPUS];
	r.chosen = u64_or_0(tb[VGPU_A_PROC_GPUS]);
	nla_for_each_attr(a, genlmsg_attrdata(gh, 0), genlmsg_attrlen(gh, 0), rem) {
		if (nla_type(a) != VGPU_A_PROC_GPU)
			continue;
		if (nla_parse_nested(g, VGPU_A_PROC_GPU_MAX, a, vgpu_proc_gpu_nl_policy) < 0 ||
		    !g[VGPU_A_PROC_GPU_INDEX])
			return -EPROTO;
		r.has_gpu = true;
		r.gpu = nla_get_u32(g[VGPU_A_PROC_GPU_INDEX]);
		r.vram = u64_or_0(g[VGPU_A_PROC_GPU_VRAM_USED]);
		r.budget = u64_or_0(g[VGPU_A_PROC_GPU_VRAM_BUDGET]);
		r.parked = u64_or_0(g[VGPU_A_PROC_GPU_VRAM_PARKED]);
		print_row(&r);
		any = true;
	}
	if (!any) {
		r.has_gpu = false;
		r.vram = r.budget = r.parked = 0;
		print_row(&r);
	}
	return rows.nomem ? -ENOMEM : 0;
}

/* The cells of a row but the last (CHOSEN): pid, tenant, gpu, vram, budget, parked. */
#define PS_CELLS	6

static void ps_cells(const struct ps_row *r, char cell[PS_CELLS][VGPU_NAME_LEN_MAX + 1])
{
	snprintf(cell[0], sizeof(cell[0]), "%u", r->pid);
	snprintf(cell[1], sizeof(cell[1]), "%s", r->tenant[0] ? r->tenant : "-");
	if (r->has_gpu)
		snprintf(cell[2], sizeof(cell[2]), "%u", r->gpu);
	else
		strcpy(cell[2], "-");
	vgpuctl_format_size(r->vram, cell[3], sizeof(cell[3]));
	vgpuctl_format_size(r->budget, cell[4], sizeof(cell[4]));
	if (r->suspended)
		vgpuctl_format_size(r->parked, cell[5], sizeof(cell[5]));
	else
		strcpy(cell[5], "-");
}

/* Plain: the kept rows as a table, columns two spaces apart. */
static void ps_done(bool ok)
{
	static const char *const head[PS_CELLS + 1] = {
		"PID", "TENANT", "GPU", "VRAM", "BUDGET", "PARKED", "CHOSEN",
	};
	FILE *f = vgpuctl_print_file();
	char cell[PS_CELLS][VGPU_NAME_LEN_MAX + 1], chosen[256];
	size_t w[PS_CELLS], i, c;

	if (ok && !vgpuctl_print_json()) {
		for (c = 0; c < PS_CELLS; c++)
			w[c] = strlen(head[c]);
		for (i = 0; i < rows.n; i++) {
			ps_cells(&rows.v[i], cell);
			for (c = 0; c < PS_CELLS; c++)
				if (strlen(cell[c]) > w[c])
					w[c] = strlen(cell[c]);
		}
		for (c = 0; c < PS_CELLS; c++)
			fprintf(f, "%-*s  ", (int)w[c], head[c]);
		fprintf(f, "%s\n", head[PS_CELLS]);
		for (i = 0; i < rows.n; i++) {
			const struct ps_row *r = &rows.v[i];

			ps_cells(r, cell);
			if (r->has_chosen)
				vgpuctl_format_list(&r->chosen, 1, chosen, sizeof(chosen));
			else
				strcpy(chosen, "-");
			for (c = 0; c < PS_CELLS; c++)
				fprintf(f, "%-*s  ", (int)w[c], cell[c]);
			fprintf(f, "%s\n", chosen);
		}
	}
	free(rows.v);
	memset(&rows, 0, sizeof(rows));
}

/**
 * vgpuctl_cmd_ps() - "vgpuctl ps"
 * @argc: arguments after "ps"
 * @argv: none, or "help"
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_ps(int argc, char **argv)
{
	struct vgpu_show_req r = {
		.cmd = VGPU_CMD_PROC_GET, .dump = true, .fn = ps_one, .done = ps_done,
	};

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_ps(stdout);
		return VGPU_EXIT_OK;
	}
	if (argc > 0 && !strcmp(argv[0], "del")) {
		uint32_t pid;

		if (argc < 2)
			return vgpuctl_usage_error("missing PID for ps del");
		if (vgpuctl_parse_u32(argv[1], 1, INT32_MAX, &pid))
			return vgpuctl_usage_error("invalid PID \"%s\" for ps del", argv[1]);
		if (argc > 2)
			return vgpuctl_usage_error("unexpected argument \"%s\" for ps del", argv[2]);
		return vgpuctl_admin_u32(VGPU_CMD_PROC_DEL, VGPU_A_PROC_PID, pid);
	}
	if (argc > 0)
		return vgpuctl_usage_error("unexpected argument \"%s\" for ps", argv[0]);
	return vgpuctl_show_run(&r);
}
