// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl apply's reader and diff (apply_load.c,
 * apply_diff.c): configuration records built in memory, a module state
 * built by hand, and the changes (in vgpuctl's words) or the errors
 * (naming FILE:LINE) compared whole. Stderr goes to a file read back.
 */
#define VGPU_UNIT_SUITE "apply"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ctl/cmd/apply.h"
#include "result.h"

static char errbuf[8192];

/* Records of @lines (words split on blanks), as file "f.conf", line i+1. */
static void recs_of(struct vgpuctl_conf *c, const char *const *lines, size_t n)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->recs = calloc(n, sizeof(*c->recs));
	c->n = n;
	for (i = 0; i < n; i++) {
		char *dup = strdup(lines[i]), *w, *save = NULL;
		struct vgpuctl_conf_rec *r = &c->recs[i];

		r->file = "f.conf";
		r->line = (unsigned int)i + 1;
		r->argv = calloc(64, sizeof(char *));
		for (w = strtok_r(dup, " ", &save); w; w = strtok_r(NULL, " ", &save))
			r->argv[r->argc++] = w;
	}
}

/* Load @lines and diff against @have; the changes' words, one per line, or "ERR" and stderr. */
static const char *run(const char *const *lines, size_t n, const struct apply_state *have,
		       bool prune)
{
	static char out[16384];
	struct vgpuctl_conf c;
	struct apply_state want;
	struct apply_plan p;
	size_t i;
	FILE *f;
	long len;

	recs_of(&c, lines, n);
	out[0] = errbuf[0] = '\0';
	f = freopen("build/unit/test_apply.err", "w+", stderr);
	if (vgpuctl_apply_load(&c, "/sys/fs/cgroup", &want)) {
		strcpy(out, "ERR");
	} else {
		if (vgpuctl_apply_diff(&want, have, prune, &p)) {
			strcpy(out, "ERR");
		} else {
			for (i = 0; i < p.n; i++)
				snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s\n",
					 p.c[i].words);
			vgpuctl_apply_plan_free(&p);
		}
		vgpuctl_apply_state_free(&want);
	}
	fflush(stderr);
	if (f) {
		rewind(f);
		len = (long)fread(errbuf, 1, sizeof(errbuf) - 1, f);
		errbuf[len > 0 ? len : 0] = '\0';
	}
	for (i = 0; i < n; i++) {
		free(c.recs[i].argv[0]);
		free(c.recs[i].argv);
	}
	free(c.recs);
	return out;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check(const char *what, const char *got, const char *want)
{
	result(!strcmp(got, want), what, "got \"%s\", want \"%s\"", got, want);
}

static void check_err(const char *what, const char *got, const char *msg)
{
	result(!strcmp(got, "ERR") && strstr(errbuf, msg), what, "got \"%s\", stderr \"%s\", want \"%s\"",
	       got, errbuf, msg);
}

/* Into @t, the tenant a module holds that tenant line @line describes. */
static void tenant_of(const char *line, struct apply_tenant *t)
{
	struct vgpuctl_conf c;
	struct apply_state w;

	recs_of(&c, &line, 1);
	if (vgpuctl_apply_load(&c, "/sys/fs/cgroup", &w))
		abort();
	*t = w.tenants[0];
	t->rec = NULL;
	vgpuctl_apply_state_free(&w);
	free(c.recs[0].argv[0]);
	free(c.recs[0].argv);
	free(c.recs);
}

/* A module state: tenant ta on /ta with weight 70 and label team=a, x idle, y in use. */
static struct apply_state *module(void)
{
	static struct apply_tenant t[3];
	static struct apply_gpu g[1];
	static struct apply_state h;

	tenant_of("tenant ta cgroup ta weight 70 label team=a", &t[0]);
	strcpy(t[1].name, "x");
	strcpy(t[1].cgroup, "/x");
	strcpy(t[2].name, "y");
	strcpy(t[2].cgroup, "/y");
	t[2].procs = 2;
	g[0].g.index = 0;
	g[0].g.vram = 16ULL << 30;
	h = (struct apply_state){ .gpus = g, .ngpus = 1, .has_policy = true,
				  .policy = VGPU_DEFAULT_POLICY_ALLOW, .tenants = t, .ntenants = 3 };
	return &h;
}

static void test_diff(const struct apply_state *h)
{
	const char *const same[] = { "gpu 0 vram 16G", "host default allow",
				     "tenant ta cgroup /sys/fs/cgroup/ta weight 70 label team=a" };
	const char *const edit[] = { "tenant ta cgroup ta weight 20 vram-max 1G label team=b",
				     "tenant tb cgroup tb ephemeral compute-max 50%" };
	const char *const strip[] = { "tenant ta cgroup ta", "host default deny", "gpu 1 vram 8G" };
	struct apply_state empty = { 0 };

	check("the module as the files say: no change", run(same, N(same), h, false), "");
	check("an edit: only what differs, a new tenant added", run(edit, N(edit), h, false),
	      "tenant set ta vram-max 1G weight 20 label team=b\n"
	      "tenant add tb cgroup tb ephemeral compute-max 50%\n");
	check("left out: quota cleared, label removed; host and a new GPU",
	      run(strip, N(strip), h, false),
	      "set default deny\ngpu add 1 vram 8G\ntenant set ta weight none label team=\n");
	check("--prune: idle x deleted, y in use kept", run(same, N(same), h, true),
	      "tenant del x\n# kept tenant y: it has 2 registered processes\n");
	check("an empty module: everything added", run(same, N(same), &empty, false),
	      "set default allow\ngpu add 0 vram 16G\n"
	      "tenant add ta cgroup /sys/fs/cgroup/ta weight 70 label team=a\n");
}

/* preemptible and vram-wait (issue 31): set, changed and cleared like any quota. */
static void test_preempt(void)
{
	static struct apply_tenant t[1];
	struct apply_state h = { .tenants = t, .ntenants = 1 };
#define TP "tenant tp cgroup tp priority low"
	const char *const same[] = { TP " preemptible on vram-wait 30" };
	const char *const spelt[] = { TP " preemptible on vram-wait 30.000" };
	const char *const edit[] = { TP " preemptible off vram-wait 0.5" };
	const char *const strip[] = { TP };
	const char *const zero[] = { TP " preemptible on vram-wait 0" };
#undef TP

	tenant_of(same[0], &t[0]);
	check("preemptible, vram-wait as the module has them: no change",
	      run(same, N(same), &h, false), "");
	check("vram-wait spelt otherwise, the same milliseconds: no change",
	      run(spelt, N(spelt), &h, false), "");
	check("preemptible off, vram-wait 0.5: both set",
	      run(edit, N(edit), &h, false),
	      "tenant set tp preemptible off vram-wait 0.5\n");
	check("both left out: both cleared", run(strip, N(strip), &h, false),
	      "tenant set tp preemptible none vram-wait none\n");
	check("vram-wait 0 is a value, not the same as 30 s", run(zero, N(zero), &h, false),
	      "tenant set tp vram-wait 0\n");
	tenant_of(strip[0], &t[0]);
	check("both added to a tenant without them", run(same, N(same), &h, false),
	      "tenant set tp preemptible on vram-wait 30\n");
	check("vram-wait 0 added: set, though it waits no longer than unset",
	      run(zero, N(zero), &h, false), "tenant set tp preemptible on vram-wait 0\n");
}

static void test_refused(const struct apply_state *h)
{
	const char *const moved[] = { "host default allow", "tenant ta cgroup other weight 70" };
	const char *const eph[] = { "tenant ta cgroup ta ephemeral" };
	const char *const vram[] = { "gpu 0 vram 8G" };

	check_err("a tenant on another cgroup", run(moved, N(moved), h, false),
		  "Error: f.conf:2: tenant \"ta\" is in the module on cgroup /ta, not /other");
	check_err("ephemeral differs", run(eph, N(eph), h, false),
		  "Error: f.conf:1: tenant \"ta\" is in the module not ephemeral");
	check_err("a GPU of another size", run(vram, N(vram), h, false),
		  "Error: f.conf:1: gpu 0 is in the module with vram 17179869184 bytes, not 8589934592");
}

/* Every kind of bad line, each named by FILE:LINE; all reported in one run. */
static void test_bad_lines(const struct apply_state *h)
{
	static const struct { const char *line, *msg; } bad[] = {
		{ "tenant", "tenant needs a NAME" },
		{ "tenant a", "tenant a needs cgroup PATH" },
		{ "tenant a cgroup /etc", "cgroup path \"/etc\" is not under /sys/fs/cgroup" },
		{ "tenant a cgroup a weight 0", "invalid N \"0\" for weight" },
		{ "tenant a cgroup a bogus 1", "unknown key \"bogus\" for tenant add" },
		{ "tenant a cgroup a label =x", "invalid label \"=x\"" },
		{ "tenant a cgroup a vram-max", "missing value for vram-max" },
		{ "tenant a cgroup a vram-wait 601",
		  "invalid WAIT \"601\" for vram-wait (0-600 seconds" },
		{ "tenant a cgroup a vram-wait 2m", "invalid WAIT \"2m\" for vram-wait" },
		{ "tenant a cgroup a preemptible 1",
		  "invalid VALUE \"1\" for preemptible (on or off)" },
		{ "tenant nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn cgroup a", "invalid NAME" },
		{ "gpu", "missing INDEX for gpu add" },
		{ "gpu 0", "vram is required" },
		{ "gpu 99 vram 1G", "invalid INDEX \"99\"" },
		{ "host", "host needs KEY VALUE" },
		{ "host default maybe", "invalid POLICY \"maybe\"" },
		{ "host colour red", "unknown key \"colour\" for host" },
		{ "flavour 9bad!", "invalid flavour name" },
	};
	const char *const dup[] = { "tenant a cgroup a", "tenant a cgroup b", "gpu probe",
				    "gpu probe", "host default allow", "host default deny" };
	const char *lines[N(bad)];
	char what[128], want[256];
	size_t i;

	for (i = 0; i < N(bad); i++) {
		lines[i] = bad[i].line;
		snprintf(what, sizeof(what), "bad line: %s", bad[i].line);
		snprintf(want, sizeof(want), "Error: f.conf:1: %s", bad[i].msg);
		check_err(what, run(&bad[i].line, 1, h, false), want);
	}
	run(lines, N(bad), h, false);
	for (i = 0; i < N(bad); i++) {
		snprintf(want, sizeof(want), "Error: f.conf:%zu: ", i + 1);
		snprintf(what, sizeof(what), "one run names line %zu too", i + 1);
		result(strstr(errbuf, want) != NULL, what, "stderr \"%s\"", errbuf);
	}
	check_err("a tenant twice", run(dup, 2, h, false),
		  "Error: f.conf:2: tenant \"a\" is already declared at f.conf:1");
	check_err("gpu probe twice", run(dup + 2, 2, h, false),
		  "Error: f.conf:2: gpu probe is already declared at f.conf:1");
	check_err("host default twice", run(dup + 4, 2, h, false),
		  "Error: f.conf:2: host default is already declared at f.conf:1");
}

int main(void)
{
	const struct apply_state *h = module();

	test_diff(h);
	test_preempt();
	test_refused(h);
	test_bad_lines(h);
	return failures ? 1 : 0;
}
