// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl apply, without netlink (apply.h): the state the configuration
 * files ask for, read with the parsers of the commands whose words the
 * lines are (gpu add, set, tenant add, flavour). apply_diff.c compares it
 * with the module's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "../conf/flavour.h"
#include "../lib/parse.h"

/* Grow @arr (of @n elements of @size) by one zeroed element; NULL: ENOMEM. */
static void *grow(void *arr, size_t *n, size_t size)
{
	char *more = realloc(*(void **)arr, (*n + 1) * size);

	if (!more)
		return NULL;
	*(void **)arr = more;
	memset(more + *n * size, 0, size);
	return more + (*n)++ * size;
}

/* "gpu probe" or "gpu INDEX vram SIZE ...", each index once. */
static int load_gpu(const struct vgpuctl_conf_rec *r, struct apply_state *w)
{
	struct vgpuctl_gpu_add g;
	struct apply_gpu *ag;
	size_t i;
	int ret;

	if (r->argc == 2 && !strcmp(r->argv[1], "probe")) {
		if (w->probe)
			return vgpuctl_conf_error(r, "gpu probe is already declared at %s:%u",
						  w->probe->file, w->probe->line);
		w->probe = r;
		return 0;
	}
	vgpuctl_error_where(r->file, r->line);
	ret = vgpuctl_gpu_add_parse(&g, r->argc - 1, r->argv + 1);
	vgpuctl_error_where(NULL, 0);
	if (ret)
		return ret;
	for (i = 0; i < w->ngpus; i++)
		if (w->gpus[i].g.index == g.index)
			return vgpuctl_conf_error(r, "gpu %u is already declared at %s:%u", g.index,
						  w->gpus[i].rec->file, w->gpus[i].rec->line);
	ag = grow(&w->gpus, &w->ngpus, sizeof(*ag));
	if (!ag)
		return vgpuctl_error("%s", strerror(ENOMEM));
	ag->g = g;
	ag->rec = r;
	return 0;
}

/* "host KEY VALUE...", the keys of vgpuctl set, each once in all files. */
static int load_host(const struct vgpuctl_conf_rec *r, struct apply_state *w)
{
	int i;

	if (r->argc < 2)
		return vgpuctl_conf_error(r, "host needs KEY VALUE (default or monitor-group)");
	for (i = 1; i < r->argc; i += 2) {
		bool pol = !strcmp(r->argv[i], "default");
		const struct vgpuctl_conf_rec *prev = pol ? w->policy_rec : w->gid_rec;

		if (!pol && strcmp(r->argv[i], "monitor-group"))
			return vgpuctl_conf_error(r, "unknown key \"%s\" for host (default or monitor-group)",
						  r->argv[i]);
		if (i + 1 >= r->argc)
			return vgpuctl_conf_error(r, "missing value for %s", r->argv[i]);
		if (prev)
			return vgpuctl_conf_error(r, "host %s is already declared at %s:%u",
						  r->argv[i], prev->file, prev->line);
		if (pol && vgpuctl_parse_policy(r->argv[i + 1], &w->policy))
			return vgpuctl_conf_error(r, "invalid POLICY \"%s\" for default (allow or deny)",
						  r->argv[i + 1]);
		if (!pol && vgpuctl_host_parse_group(r->argv[i + 1], &w->gid))
			return vgpuctl_conf_error(r, "invalid GROUP \"%s\" for monitor-group (a group name or number, or none)",
						  r->argv[i + 1]);
		if (pol)
			w->has_policy = true, w->policy_rec = r;
		else
			w->has_gid = true, w->gid_rec = r;
	}
	return 0;
}

/* "tenant NAME cgroup PATH ...", the words of tenant add, each name once. */
static int load_tenant(const struct vgpuctl_conf_rec *r, const char *mnt, struct apply_state *w)
{
	static struct tenant_conf c = { .cmd = "tenant add" };
	const char *path = NULL;
	struct apply_tenant *t;
	char cg[VGPU_PATH_LEN_MAX + 1];
	size_t i;
	int ret;

	if (r->argc < 2)
		return vgpuctl_conf_error(r, "tenant needs a NAME");
	vgpuctl_error_where(r->file, r->line);
	ret = vgpuctl_tenant_check_name(r->argv[1], "tenant");
	if (!ret)
		ret = vgpuctl_tenant_conf_parse(&c, r->argc - 2, r->argv + 2, &path);
	vgpuctl_error_where(NULL, 0);
	if (ret)
		return ret;
	if (!path)
		return vgpuctl_conf_error(r, "tenant %s needs cgroup PATH", r->argv[1]);
	ret = vgpuctl_cgroup_path(mnt, path, cg, sizeof(cg));
	if (ret)
		return vgpuctl_conf_error(r, ret == -2 ? "cgroup path \"%s\" is not under %s" :
					  "invalid PATH \"%s\" for cgroup%.0s", path, mnt);
	for (i = 0; i < w->ntenants; i++)
		if (!strcmp(w->tenants[i].name, r->argv[1]))
			return vgpuctl_conf_error(r, "tenant \"%s\" is already declared at %s:%u",
						  r->argv[1], w->tenants[i].rec->file,
						  w->tenants[i].rec->line);
	t = grow(&w->tenants, &w->ntenants, sizeof(*t));
	if (!t)
		return vgpuctl_error("%s", strerror(ENOMEM));
	snprintf(t->name, sizeof(t->name), "%s", r->argv[1]);
	strcpy(t->cgroup, cg);
	t->q = c;
	t->rec = r;
	return 0;
}

/**
 * vgpuctl_apply_load() - what the configuration asks of the module
 * @conf: the loaded files
 * @mnt: the cgroup2 mount point, against which tenants' cgroups resolve
 * @want: filled in (zeroed first; vgpuctl_apply_state_free() it)
 *
 * Every record is checked, so that one run names every bad line.
 *
 * Return: 0, or the exit status after the error lines.
 */
int vgpuctl_apply_load(const struct vgpuctl_conf *conf, const char *mnt, struct apply_state *want)
{
	struct vgpuctl_flavour *fl = NULL;
	size_t i, nfl = 0;
	int ret = 0, r;

	memset(want, 0, sizeof(*want));
	for (i = 0; i < conf->n; i++) {
		const struct vgpuctl_conf_rec *rec = &conf->recs[i];
		const char *kind = rec->argv[0];

		r = 0;
		if (!strcmp(kind, "gpu"))
			r = load_gpu(rec, want);
		else if (!strcmp(kind, "host"))
			r = load_host(rec, want);
		else if (!strcmp(kind, "tenant"))
			r = load_tenant(rec, mnt, want);
		if (r && !ret)
			ret = r;
	}
	/* Not applied to the module, but a bad one is a bad line all the same. */
	r = vgpuctl_flavours(conf, &fl, &nfl);
	free(fl);
	if (r && !ret)
		ret = r;
	if (ret)
		vgpuctl_apply_state_free(want);
	return ret;
}

/** vgpuctl_apply_state_free() - free what @s holds (not @s). */
void vgpuctl_apply_state_free(struct apply_state *s)
{
	free(s->gpus);
	free(s->tenants);
	memset(s, 0, sizeof(*s));
}

/** vgpuctl_apply_plan_free() - free what @p holds (not @p). */
void vgpuctl_apply_plan_free(struct apply_plan *p)
{
	free(p->c);
	memset(p, 0, sizeof(*p));
}
