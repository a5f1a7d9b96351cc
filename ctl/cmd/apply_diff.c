// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl apply: the changes that take the module's state (apply.c reads
 * it) to the files' (apply_load.c), each said in vgpuctl's words. Only
 * what differs: a second apply finds nothing to do.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "../lib/spec_gen.h"

/* Append to the words of @ch. */
static void say(struct apply_change *ch, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(struct apply_change *ch, const char *fmt, ...)
{
	size_t len = strlen(ch->words);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ch->words + len, sizeof(ch->words) - len, fmt, ap);
	va_end(ap);
}

static struct apply_change *add_change(struct apply_plan *p, enum apply_kind kind)
{
	struct apply_change *more = realloc(p->c, (p->n + 1) * sizeof(*p->c));

	if (!more)
		return NULL;
	p->c = more;
	memset(&more[p->n], 0, sizeof(*more));
	more[p->n].kind = kind;
	return &more[p->n++];
}

/* The words of @r from @from on, each after a space. */
static void say_words(struct apply_change *ch, const struct vgpuctl_conf_rec *r, int from)
{
	int i;

	for (i = from; i < r->argc; i++)
		say(ch, " %s", r->argv[i]);
}

/* The VALUE word of quota @name on tenant line @r. */
static const char *quota_word(const struct vgpuctl_conf_rec *r, const char *name)
{
	int i;

	for (i = 2; i + 1 < r->argc; i += strcmp(r->argv[i], "ephemeral") ? 2 : 1)
		if (!strcmp(r->argv[i], name))
			return r->argv[i + 1];
	return "?";
}

/* The VALUE word of @key on host line @r. */
static const char *host_word(const struct vgpuctl_conf_rec *r, const char *key)
{
	int i;

	for (i = 1; i + 1 < r->argc; i += 2)
		if (!strcmp(r->argv[i], key))
			return r->argv[i + 1];
	return "?";
}

static int diff_host(const struct apply_state *w, const struct apply_state *h,
		     struct apply_plan *p)
{
	struct apply_change *ch;
	bool pol = w->has_policy && (!h->has_policy || h->policy != w->policy);
	bool gid = w->has_gid && (!h->has_gid || h->gid != w->gid);

	if (!pol && !gid)
		return 0;
	ch = add_change(p, APPLY_HOST);
	if (!ch)
		return vgpuctl_error("%s", strerror(ENOMEM));
	say(ch, "set");
	if (pol)
		say(ch, " default %s", w->policy == VGPU_DEFAULT_POLICY_DENY ? "deny" : "allow");
	if (gid)
		say(ch, " monitor-group %s", host_word(w->gid_rec, "monitor-group"));
	ch->policy = pol;
	ch->gid = gid;
	return 0;
}

static const struct apply_gpu *find_gpu(const struct apply_state *s, uint32_t index)
{
	size_t i;

	for (i = 0; i < s->ngpus; i++)
		if (s->gpus[i].g.index == index)
			return &s->gpus[i];
	return NULL;
}

/* GPUs only get added: changing one that tenants may use is for gpu del. */
static int diff_gpus(const struct apply_state *w, const struct apply_state *h,
		     struct apply_plan *p)
{
	struct apply_change *ch;
	const struct apply_gpu *hg;
	size_t i;
	int ret = 0;

	for (i = 0; i < w->ngpus; i++) {
		const struct apply_gpu *wg = &w->gpus[i];

		hg = find_gpu(h, wg->g.index);
		if (hg && hg->g.vram != wg->g.vram) {
			ret = vgpuctl_conf_error(wg->rec, "gpu %u is in the module with vram %llu bytes, not %llu (change it with gpu del and gpu add)",
						 wg->g.index, (unsigned long long)hg->g.vram,
						 (unsigned long long)wg->g.vram);
			continue;
		}
		if (hg)
			continue;
		ch = add_change(p, APPLY_GPU_ADD);
		if (!ch)
			return vgpuctl_error("%s", strerror(ENOMEM));
		ch->gpu = wg;
		say(ch, "gpu add");
		say_words(ch, wg->rec, 1);
	}
	return ret;
}

static const struct apply_tenant *find_tenant(const struct apply_state *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->ntenants; i++)
		if (!strcmp(s->tenants[i].name, name))
			return &s->tenants[i];
	return NULL;
}

/* The value of label @key in @c, NULL when it has none. */
static const char *label_of(const struct tenant_conf *c, const char *key)
{
	unsigned int i;

	for (i = 0; i < c->nlabels; i++)
		if (!strcmp(c->labels[i].key, key))
			return c->labels[i].value;
	return NULL;
}

static void set_label(struct apply_change *ch, const char *key, const char *value)
{
	struct tenant_conf *s = &ch->set;

	strcpy(s->labels[s->nlabels].key, key);
	strcpy(s->labels[s->nlabels++].value, value);
	say(ch, " label %s=%s", key, value);
}

/*
 * Into @ch, the tenant set that takes @h to @w: the quotas that differ
 * (cleared when @w leaves them out), the labels that differ or are new,
 * and "label KEY=" for each label @w does not have, as tenant replace does.
 */
static void tenant_set_of(struct apply_change *ch, const struct apply_tenant *w,
			  const struct apply_tenant *h)
{
	struct tenant_conf *s = &ch->set;
	unsigned int i;
	const char *v;

	s->cmd = "tenant set";
	s->set = true;
	say(ch, "tenant set %s", w->name);
	for (i = 0; i < NQUOTAS; i++) {
		const struct vgpu_spec_quota *q = &vgpu_spec_quotas[i];

		if (vgpuctl_tenant_quota_same(&w->q, &h->q, i))
			continue;
		s->seen |= q->bit;
		if (!(w->q.seen & q->bit)) {
			s->clear |= q->bit;
			say(ch, " %s none", q->name);
			continue;
		}
		s->u64[i] = w->q.u64[i];
		strcpy(s->list[i], w->q.list[i]);
		say(ch, " %s %s", q->name, quota_word(w->rec, q->name));
	}
	for (i = 0; i < w->q.nlabels; i++) {
		v = label_of(&h->q, w->q.labels[i].key);
		if (!v || strcmp(v, w->q.labels[i].value))
			set_label(ch, w->q.labels[i].key, w->q.labels[i].value);
	}
	for (i = 0; i < h->q.nlabels; i++)
		if (!label_of(&w->q, h->q.labels[i].key))
			set_label(ch, h->q.labels[i].key, "");
}

/* Add the tenants @h lacks, set those that differ from @w. */
static int diff_tenant(const struct apply_tenant *w, const struct apply_state *h,
		       struct apply_plan *p)
{
	const struct apply_tenant *ht = find_tenant(h, w->name);
	struct apply_change *ch;

	if (ht && strcmp(ht->cgroup, w->cgroup))
		return vgpuctl_conf_error(w->rec, "tenant \"%s\" is in the module on cgroup %s, not %s (a tenant's cgroup changes only by tenant del and add)",
					  w->name, ht->cgroup, w->cgroup);
	if (ht && ht->q.ephemeral != w->q.ephemeral)
		return vgpuctl_conf_error(w->rec, "tenant \"%s\" is in the module %sephemeral (set only when a tenant is added)",
					  w->name, ht->q.ephemeral ? "" : "not ");
	ch = add_change(p, ht ? APPLY_TENANT_SET : APPLY_TENANT_ADD);
	if (!ch)
		return vgpuctl_error("%s", strerror(ENOMEM));
	ch->t = w;
	if (!ht) {
		say(ch, "tenant add");
		say_words(ch, w->rec, 1);
		return 0;
	}
	tenant_set_of(ch, w, ht);
	if (!ch->set.seen && !ch->set.nlabels)
		p->n--;		/* nothing differs */
	return 0;
}

/* --prune: delete the tenants the files do not name, unless in use. */
static int diff_prune(const struct apply_state *w, const struct apply_state *h,
		      struct apply_plan *p)
{
	struct apply_change *ch;
	size_t i;

	for (i = 0; i < h->ntenants; i++) {
		const struct apply_tenant *ht = &h->tenants[i];

		if (find_tenant(w, ht->name))
			continue;
		ch = add_change(p, ht->procs ? APPLY_KEEP : APPLY_TENANT_DEL);
		if (!ch)
			return vgpuctl_error("%s", strerror(ENOMEM));
		ch->t = ht;
		if (ht->procs)
			say(ch, "# kept tenant %s: it has %u registered process%s", ht->name,
			    ht->procs, ht->procs == 1 ? "" : "es");
		else
			say(ch, "tenant del %s", ht->name);
	}
	return 0;
}

/**
 * vgpuctl_apply_diff() - the changes that take @have to @want
 * @want: what the files ask for (vgpuctl_apply_load())
 * @have: what the module holds
 * @prune: also delete the tenants @want does not name (never one in use)
 * @plan: filled in (zeroed first; vgpuctl_apply_plan_free() it), in the
 *        order to make them: host, GPUs, deletions, tenants in file order
 *
 * A tenant or GPU the module holds in a way apply cannot change (another
 * cgroup, ephemeral or not, another VRAM size) is an error naming its line;
 * every one is reported.
 *
 * Return: 0, or the exit status after the error lines.
 */
int vgpuctl_apply_diff(const struct apply_state *want, const struct apply_state *have,
		       bool prune, struct apply_plan *plan)
{
	int ret, r;
	size_t i;

	memset(plan, 0, sizeof(*plan));
	ret = diff_host(want, have, plan);
	r = diff_gpus(want, have, plan);
	ret = ret ? ret : r;
	if (prune) {
		r = diff_prune(want, have, plan);
		ret = ret ? ret : r;
	}
	for (i = 0; i < want->ntenants; i++) {
		r = diff_tenant(&want->tenants[i], have, plan);
		ret = ret ? ret : r;
	}
	if (ret)
		vgpuctl_apply_plan_free(plan);
	return ret;
}
