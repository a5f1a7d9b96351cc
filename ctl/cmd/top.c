// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl top: every interval, dump the tenants (tenant-get) and show, per
 * tenant and GPU, the share of the GPU it used over the interval
 * (Δgpu-time-ns / Δwall), the share it spent throttled (Δthrottled-ns /
 * Δwall), its weight, compute-max, priority and VRAM. On a terminal the
 * screen is redrawn; otherwise each interval is a block of its own after
 * a blank line; with -j, one JSON object per interval and line.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "../lib/parse.h"
#include "../lib/print.h"
#include "../obj/tenant_state.h"
#include "../vgpuctl.h"

/* Tries of a dump that keeps being interrupted by concurrent changes. */
#define TOP_DUMP_TRIES	5

/**
 * vgpuctl_usage_top() - usage of top
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_top(FILE *f)
{
	fputs("Usage: vgpuctl top [-d SECONDS] [-n ITERATIONS]\n"
	      "       vgpuctl top help\n"
	      "Every SECONDS (default 1; at most 3 decimals), shows for each tenant and GPU\n"
	      "the share of the GPU it used and the share it was throttled over the last\n"
	      "interval, its weight, compute-max, priority, VRAM and state (running,\n"
	      "suspending, suspended, resuming; \"(wait)\": a resume waits for room);\n"
	      "ITERATIONS times, or\n"
	      "until interrupted (SIGINT, SIGTERM).\n", f);
}

/* A tenant on one GPU (or on none), as one dump reported it. */
struct top_row {
	uint32_t id;
	char name[VGPU_NAME_LEN_MAX + 1];
	bool has_gpu;
	uint32_t gpu;
	uint64_t gpu_time, throttled, vram;
	bool has_cmax, has_vmax;
	uint32_t weight, cmax, prio;
	uint64_t vmax;
	uint32_t state;		/* enum vgpu_tenant_state */
	bool has_state, resume_wait;
};

/* The rows of one dump, sorted by (id, gpu) once complete. */
struct top_sample {
	struct top_row *v;
	size_t n, cap;
	uint64_t t;		/* CLOCK_MONOTONIC of the dump, ns */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int add_row(struct top_sample *s, const struct top_row *r)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct top_row *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *r;
	return 0;
}

static uint64_t u64_of(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

/* Reply handler of the dump: the rows of one tenant into the sample @arg. */
static int top_collect(struct nlmsghdr *nlh, void *arg)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1], *u[VGPU_A_USAGE_MAX + 1], *pos = NULL;
	struct top_sample *s = arg;
	struct top_row r = { .weight = VGPU_WEIGHT_DEFAULT, .prio = VGPU_PRIORITY_NORMAL };
	bool any = false;
	int ret;

	if (vgpuctl_tenant_parse(nlh, tb) || !tb[VGPU_A_TENANT_ID] || !tb[VGPU_A_TENANT_NAME])
		return -EPROTO;
	r.id = nla_get_u32(tb[VGPU_A_TENANT_ID]);
	snprintf(r.name, sizeof(r.name), "%s", nla_get_string(tb[VGPU_A_TENANT_NAME]));
	if (tb[VGPU_A_TENANT_WEIGHT])
		r.weight = nla_get_u32(tb[VGPU_A_TENANT_WEIGHT]);
	if (tb[VGPU_A_TENANT_PRIORITY])
		r.prio = nla_get_u32(tb[VGPU_A_TENANT_PRIORITY]);
	r.has_cmax = tb[VGPU_A_TENANT_COMPUTE_MAX];
	if (r.has_cmax)
		r.cmax = nla_get_u32(tb[VGPU_A_TENANT_COMPUTE_MAX]);
	r.has_vmax = tb[VGPU_A_TENANT_VRAM_MAX];
	r.vmax = u64_of(tb[VGPU_A_TENANT_VRAM_MAX]);
	r.has_state = tb[VGPU_A_TENANT_STATE];
	if (r.has_state)
		r.state = nla_get_u32(tb[VGPU_A_TENANT_STATE]);
	r.resume_wait = tb[VGPU_A_TENANT_RESUME_WAIT];
	while ((ret = vgpuctl_tenant_next_usage(nlh, &pos, u)) > 0) {
		if (!u[VGPU_A_USAGE_GPU])
			continue;
		r.has_gpu = true;
		r.gpu = nla_get_u32(u[VGPU_A_USAGE_GPU]);
		r.gpu_time = u64_of(u[VGPU_A_USAGE_GPU_TIME_NS]);
		r.throttled = u64_of(u[VGPU_A_USAGE_THROTTLED_NS]);
		r.vram = u64_of(u[VGPU_A_USAGE_VRAM_CURRENT]);
		if (add_row(s, &r))
			return -ENOMEM;
		any = true;
	}
	if (ret < 0)
		return ret;
	if (!any) {
		r.has_gpu = false;
		r.gpu = 0;
		r.gpu_time = r.throttled = r.vram = 0;
		if (add_row(s, &r))
			return -ENOMEM;
	}
	return 0;
}

/* Order of lookups: id, then no GPU before GPUs, then GPU. */
static int cmp_key(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->has_gpu != y->has_gpu)
		return x->has_gpu ? 1 : -1;
	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	return 0;
}

static void sort_key(struct top_sample *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_key);
}

/* Order of display: name, then GPU. */
static int cmp_show(const void *a, const void *b)
{
	const struct top_row *x = *(const struct top_row *const *)a;
	const struct top_row *y = *(const struct top_row *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : cmp_key(x, y);
}

/* Δ@cur - @prev as a percentage of @wall ns; 0 when a counter went back. */
static double share(uint64_t cur, uint64_t prev, uint64_t wall)
{
	if (cur <= prev || !wall)
		return 0.0;
	return (double)(cur - prev) * 100.0 / (double)wall;
}

/* The columns of the table. */
enum { C_TENANT, C_GPU, C_SHARE, C_THR, C_WEIGHT, C_CMAX, C_PRIO, C_VRAM, C_VMAX, C_STATE, NCOLS };

static const char *const top_head[NCOLS] = {
	"TENANT", "GPU", "SHARE", "THROTTLED", "WEIGHT", "COMPUTE-MAX", "PRIORITY",
	"VRAM", "VRAM-MAX", "STATE",
};

#define CELL	(VGPU_NAME_LEN_MAX + 1)

/* The cells of one line of the table. */
static void cells_of(const struct top_row *r, double sh, double thr, char cell[NCOLS][CELL])
{
	const char *p = vgpuctl_priority_name(r->prio);

	snprintf(cell[C_TENANT], CELL, "%s", r->name);
	if (r->has_gpu)
		snprintf(cell[C_GPU], CELL, "%u", r->gpu);
	else
		snprintf(cell[C_GPU], CELL, "-");
	snprintf(cell[C_SHARE], CELL, "%.1f%%", sh);
	snprintf(cell[C_THR], CELL, "%.1f%%", thr);
	snprintf(cell[C_WEIGHT], CELL, "%u", r->weight);
	if (r->has_cmax)
		vgpuctl_format_pct(r->cmax, cell[C_CMAX], CELL);
	else
		snprintf(cell[C_CMAX], CELL, "-");
	if (p)
		snprintf(cell[C_PRIO], CELL, "%s", p);
	else
		snprintf(cell[C_PRIO], CELL, "%u", r->prio);
	vgpuctl_format_size(r->vram, cell[C_VRAM], CELL);
	if (r->has_vmax)
		vgpuctl_format_size(r->vmax, cell[C_VMAX], CELL);
	else
		snprintf(cell[C_VMAX], CELL, "-");
	snprintf(cell[C_STATE], CELL, "%s%s", r->has_state ? vgpuctl_tstate_name(r->state) : "-",
		 r->resume_wait ? "(wait)" : "");
}

/* A cell padded to @w, two spaces apart; the last one ends the line. */
static void put_cell(FILE *f, size_t c, size_t w, const char *s)
{
	if (c + 1 < NCOLS)
		fprintf(f, "%-*s  ", (int)w, s);
	else
		fprintf(f, "%s\n", s);
}

static void print_json_row(const struct top_row *r, double sh, double thr)
{
	const char *p = vgpuctl_priority_name(r->prio);

	vgpuctl_print_sub_open("");
	vgpuctl_print_str("name", NULL, r->name);
	vgpuctl_print_u64("id", NULL, true, r->id);
	vgpuctl_print_u64("gpu", NULL, r->has_gpu, r->gpu);
	vgpuctl_print_fixed("share", NULL, true, sh, 2, NULL);
	vgpuctl_print_fixed("throttled", NULL, true, thr, 2, NULL);
	vgpuctl_print_u64("weight", NULL, true, r->weight);
	vgpuctl_print_u64("compute_max", NULL, r->has_cmax, r->cmax);
	if (p)
		vgpuctl_print_str("priority", NULL, p);
	else
		vgpuctl_print_u64("priority", NULL, true, r->prio);
	vgpuctl_print_u64("vram_current", NULL, true, r->vram);
	vgpuctl_print_u64("vram_max", NULL, r->has_vmax, r->vmax);
	vgpuctl_print_str("state", NULL, r->has_state ? vgpuctl_tstate_name(r->state) : NULL);
	vgpuctl_print_flag("resume_wait", NULL, r->resume_wait);
	vgpuctl_print_sub_close();
}

/*
 * Print one interval: the rows of @cur against those of @prev (a row that
 * was not there counts from 0). @cur is sorted by key here; @elapsed is
 * since the start, @block the number of blocks printed before.
 */
static int top_print(const struct top_sample *prev, struct top_sample *cur,
		     uint64_t elapsed, bool tty, unsigned long block)
{
	FILE *f = vgpuctl_print_file();
	uint64_t wall = cur->t > prev->t ? cur->t - prev->t : 0;
	const struct top_row **show;
	size_t w[NCOLS], i, c, tenants = 0;
	char cell[NCOLS][CELL];

	sort_key(cur);
	show = malloc((cur->n ? cur->n : 1) * sizeof(*show));
	if (!show)
		return -ENOMEM;
	for (i = 0; i < cur->n; i++) {
		show[i] = &cur->v[i];
		if (!i || cur->v[i].id != cur->v[i - 1].id)
			tenants++;
	}
	if (cur->n)
		qsort(show, cur->n, sizeof(*show), cmp_show);

	if (vgpuctl_print_json()) {
		vgpuctl_print_obj_open(NULL);
		vgpuctl_print_fixed("elapsed_s", NULL, true, (double)elapsed / 1e9, 3, NULL);
		vgpuctl_print_fixed("interval_s", NULL, true, (double)wall / 1e9, 3, NULL);
		vgpuctl_print_arr_open("tenants");
	} else {
		if (tty)
			fputs("\033[H\033[2J", f);
		else if (block)
			fputc('\n', f);
		fprintf(f, "vgpuctl top: elapsed %.3fs interval %.3fs tenants %zu\n",
			(double)elapsed / 1e9, (double)wall / 1e9, tenants);
		for (c = 0; c < NCOLS; c++)
			w[c] = strlen(top_head[c]);
	}
	/* Two passes in plain output: the widths, then the lines. */
	for (int pass = vgpuctl_print_json() ? 1 : 0; pass < 2; pass++) {
		for (i = 0; i < cur->n; i++) {
			const struct top_row *r = show[i];
			const struct top_row *p = !prev->n ? NULL :
				bsearch(r, prev->v, prev->n, sizeof(*prev->v), cmp_key);
			double sh = share(r->gpu_time, p ? p->gpu_time : 0, wall);
			double thr = share(r->throttled, p ? p->throttled : 0, wall);

			if (vgpuctl_print_json()) {
				print_json_row(r, sh, thr);
				continue;
			}
			cells_of(r, sh, thr, cell);
			for (c = 0; c < NCOLS; c++) {
				if (!pass) {
					if (strlen(cell[c]) > w[c])
						w[c] = strlen(cell[c]);
					continue;
				}
				put_cell(f, c, w[c], cell[c]);
			}
		}
		if (!pass)
			for (c = 0; c < NCOLS; c++)
				put_cell(f, c, w[c], top_head[c]);
	}
	if (vgpuctl_print_json()) {
		vgpuctl_print_arr_close();
		vgpuctl_print_obj_close();
	}
	free(show);
	fflush(f);
	return ferror(f) ? -EPIPE : 0;
}

/* Dump the tenants into @s (emptied first); 0 or a negative errno. */
static int top_sample(struct vgpu_nl *nl, struct top_sample *s)
{
	struct nl_msg *msg;
	uint64_t t0;
	int err = -EINTR, try;

	for (try = 0; try < TOP_DUMP_TRIES && err == -EINTR; try++) {
		s->n = 0;
		msg = vgpuctl_nl_msg(nl, VGPU_CMD_TENANT_GET, true);
		if (!msg)
			return -ENOMEM;
		t0 = now_ns();
		err = vgpuctl_nl_request(nl, msg, top_collect, s);
		s->t = t0 + (now_ns() - t0) / 2;
	}
	return err;
}

/* Sleep until @deadline (CLOCK_MONOTONIC ns); 1 when a signal came first. */
static int wait_until(int sfd, uint64_t deadline)
{
	struct pollfd pfd = { .fd = sfd, .events = POLLIN };
	uint64_t t;
	int r;

	while ((t = now_ns()) < deadline) {
		r = poll(&pfd, 1, (int)((deadline - t + 999999) / 1000000));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			return 1;
	}
	return 0;
}

/* Parse the options of top; 0 or VGPU_EXIT_USAGE. */
static int top_args(int argc, char **argv, uint64_t *delay, uint32_t *iters)
{
	bool seen_d = false, seen_n = false;
	int i;

	for (i = 0; i < argc; i += 2) {
		bool d = !strcmp(argv[i], "-d") || !strcmp(argv[i], "--delay");
		bool n = !strcmp(argv[i], "-n") || !strcmp(argv[i], "--iterations");

		if (!d && !n)
			return vgpuctl_usage_error("unexpected argument \"%s\" for top", argv[i]);
		if ((d && seen_d) || (n && seen_n))
			return vgpuctl_usage_error("duplicate option \"%s\" for top", argv[i]);
		if (i + 1 >= argc)
			return vgpuctl_usage_error("missing value for %s", argv[i]);
		if (d && vgpuctl_parse_seconds(argv[i + 1], delay))
			return vgpuctl_usage_error("invalid SECONDS \"%s\" for %s (0.001-%u, at most 3 decimals)",
						   argv[i + 1], argv[i], VGPU_SECONDS_MAX);
		if (n && vgpuctl_parse_u32(argv[i + 1], 1, UINT32_MAX, iters))
			return vgpuctl_usage_error("invalid ITERATIONS \"%s\" for %s (1-%u)",
						   argv[i + 1], argv[i], UINT32_MAX);
		seen_d |= d;
		seen_n |= n;
	}
	return 0;
}

/* The refresh loop; returns the exit status. */
static int top_loop(struct vgpu_nl *nl, int sfd, uint64_t delay, uint32_t iters)
{
	struct top_sample a = { 0 }, b = { 0 }, *prev = &a, *cur = &b, *t;
	bool tty = !vgpuctl_print_json() && isatty(STDOUT_FILENO);
	uint64_t start = now_ns();
	unsigned long i;
	int err, ret = VGPU_EXIT_OK;

	err = top_sample(nl, prev);
	sort_key(prev);
	for (i = 0; !err && (!iters || i < iters); i++) {
		err = wait_until(sfd, prev->t + delay);
		if (err) {
			if (err == 1)
				err = 0;	/* SIGINT or SIGTERM */
			else
				ret = vgpuctl_error("poll: %s", strerror(-err));
			break;
		}
		err = top_sample(nl, cur);
		if (!err)
			err = top_print(prev, cur, cur->t - start, tty, i);
		if (err == -EPIPE)
			ret = VGPU_EXIT_ERR;	/* stdout went away */
		else if (err == -ENOMEM)
			ret = vgpuctl_error("%s", strerror(ENOMEM));
		t = prev;
		prev = cur;
		cur = t;
	}
	if (err && !ret) {
		vgpuctl_nl_perror(nl, err);
		ret = VGPU_EXIT_ERR;
	}
	free(a.v);
	free(b.v);
	return ret;
}

/**
 * vgpuctl_cmd_top() - "vgpuctl top [-d SECONDS] [-n ITERATIONS]"
 * @argc: arguments after "top"
 * @argv: the options, or "help"
 *
 * Return: the exit status (0 after -n intervals or SIGINT/SIGTERM).
 */
int vgpuctl_cmd_top(int argc, char **argv)
{
	uint64_t delay = 1000000000ULL;
	uint32_t iters = 0;
	struct vgpu_nl nl;
	int ret, sfd;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_top(stdout);
		return VGPU_EXIT_OK;
	}
	ret = top_args(argc, argv, &delay, &iters);
	if (ret)
		return ret;

	ret = vgpuctl_stop_signals(&sfd);
	if (ret)
		return ret;
	ret = vgpuctl_open(&nl);
	if (!ret) {
		ret = top_loop(&nl, sfd, delay, iters);
		vgpuctl_nl_close(&nl);
	}
	close(sfd);
	return ret;
}
