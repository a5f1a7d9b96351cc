// SPDX-License-Identifier: GPL-2.0
/*
 * The stand-in's rules, written from uapi/vgpu_dev.h's contract (not from
 * the module's code): which tenant a process belongs to, charges with a
 * budget and refusal at the limit, budgets taken back, the tenant's view
 * of memory, and the grants of the gate.
 *
 * A process's charge on a GPU is what it was given (its @avail plus its
 * @used, while it keeps to the protocol); a tenant's is the sum over its
 * processes, and may never pass min(vram-max, the GPU's VRAM). The GPU as
 * a whole may never be charged past its VRAM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standind.h"

/* The budget given with a charge: an eighth of the room left after it,
 * at most 256 MiB, in 2 MiB steps (none near the limit, where charging
 * becomes exact, as the uapi promises). */
#define STANDIN_BUDGET_MAX (256ull << 20)
#define STANDIN_BUDGET_STEP (2ull << 20)

struct standin_tenant *standin_tenant_by_name(struct standin *s, const char *name)
{
	for (int i = 0; i < STANDIN_TENANTS; i++)
		if (s->tenant[i].present && !strcmp(s->tenant[i].name, name))
			return &s->tenant[i];
	return NULL;
}

struct standin_tenant *standin_tenant_by_id(struct standin *s, uint32_t id)
{
	for (int i = 0; id && i < STANDIN_TENANTS; i++)
		if (s->tenant[i].present && s->tenant[i].id == id)
			return &s->tenant[i];
	return NULL;
}

/* A new tenant on @cgroup, every GPU and no vram-max; NULL with *@err
 * (-EEXIST, -ENOSPC, -EINVAL: a name or cgroup too long or empty). */
struct standin_tenant *standin_tenant_new(struct standin *s, const char *name, const char *cgroup,
					  int *err)
{
	struct standin_tenant *t = NULL;

	*err = -EINVAL;
	if (!name[0] || strlen(name) >= STANDIN_NAME || !cgroup[0] || strlen(cgroup) >= STANDIN_PATH)
		return NULL;
	*err = -EEXIST;
	if (standin_tenant_by_name(s, name))
		return NULL;
	for (int i = 0; i < STANDIN_TENANTS && !t; i++)
		if (!s->tenant[i].present)
			t = &s->tenant[i];
	*err = -ENOSPC;
	if (!t)
		return NULL;
	memset(t, 0, sizeof(*t));
	strcpy(t->name, name);
	strcpy(t->cgroup, cgroup);
	t->vram_max = t->gpus = UINT64_MAX;
	t->id = ++s->next_id;
	t->present = 1;
	return t;
}

/* GPU @i with @vram bytes (@uuid, @pci: "" for none; @numa -1: none). */
int standin_gpu_add(struct standin *s, int i, uint64_t vram, const char *uuid, const char *pci,
		    int32_t numa)
{
	struct standin_gpu *g;

	if (i < 0 || i >= VGPU_DEV_GPUS)
		return -EINVAL;
	g = &s->gpu[i];
	if (g->present)
		return -EEXIST;
	if (!vram || strlen(uuid) >= sizeof(g->uuid) || strlen(pci) >= sizeof(g->pci))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	strcpy(g->uuid, uuid);
	strcpy(g->pci, pci);
	g->vram = vram;
	g->numa = numa;
	g->present = 1;
	return 0;
}

int standin_gpu_mask_ok(const struct standin_tenant *t, int gpu)
{
	return !t || (t->gpus >> gpu) & 1;
}

/* VGPU_STANDIN_TENANT=NAME in the process's initial environment. */
static uint32_t tenant_by_environ(struct standin *s, pid_t pid)
{
	char path[64], buf[65536];
	struct standin_tenant *t;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strncmp(buf + i, STANDIN_TENANT_ENV "=", sizeof(STANDIN_TENANT_ENV))) {
			t = standin_tenant_by_name(s, buf + i + sizeof(STANDIN_TENANT_ENV));
			return t ? t->id : 0;
		}
	return 0;
}

/* The tenant whose cgroup holds the process's cgroup v2 directory. */
static uint32_t tenant_by_cgroup(struct standin *s, pid_t pid)
{
	char path[64], line[STANDIN_PATH + 8];
	uint32_t id = 0;
	size_t best = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *cg = line + 3;

		if (strncmp(line, "0::", 3))
			continue;
		cg[strcspn(cg, "\n")] = 0;
		for (int i = 0; i < STANDIN_TENANTS; i++) {
			const struct standin_tenant *t = &s->tenant[i];
			size_t l = strlen(t->cgroup);

			/* the deepest tenant directory at or above the process's */
			if (t->present && l > best && !strncmp(cg, t->cgroup, l) &&
			    (cg[l] == 0 || cg[l] == '/' || !strcmp(t->cgroup, "/"))) {
				best = l;
				id = t->id;
			}
		}
	}
	fclose(f);
	return id;
}

uint32_t standin_tenant_of(struct standin *s, pid_t pid)
{
	uint32_t id = tenant_by_environ(s, pid);

	return id ? id : tenant_by_cgroup(s, pid);
}

int standin_register(struct standin *s, struct standin_conn *c)
{
	struct standin_tenant *t;

	c->tenant = standin_tenant_of(s, c->pid);
	t = standin_tenant_by_id(s, c->tenant);
	for (int g = 0; g < VGPU_DEV_GPUS; g++)
		c->gate->gpu[g].granted = !t || !t->revoked[g];
	c->registered = 1;
	__atomic_store_n(&c->page->registered, 1, __ATOMIC_RELEASE);
	return 0;
}

void standin_unregister(struct standin *s, struct standin_conn *c)
{
	(void)s;
	memset(c->charged, 0, sizeof(c->charged));
	c->registered = 0;
	c->tenant = 0;
}

/* Sum over the registered processes of tenant (0: only c itself). */
static uint64_t sum(struct standin *s, uint32_t tenant, const struct standin_conn *self, int gpu,
		    int used)
{
	uint64_t n = 0;

	for (int i = 0; i < STANDIN_CONNS; i++) {
		const struct standin_conn *c = &s->conn[i];

		if (c->fd < 0 || c->kind != STANDIN_DEV || !c->registered)
			continue;
		if (tenant ? c->tenant != tenant : c != self)
			continue;
		n += used ? __atomic_load_n(&c->page->gpu[gpu].used, __ATOMIC_ACQUIRE) : c->charged[gpu];
	}
	return n;
}

uint64_t standin_tenant_used(struct standin *s, uint32_t tenant, int gpu)
{
	return sum(s, tenant, NULL, gpu, 1);
}

uint64_t standin_tenant_charged(struct standin *s, uint32_t tenant, int gpu)
{
	return sum(s, tenant, NULL, gpu, 0);
}

static uint64_t gpu_charged(struct standin *s, int gpu)
{
	uint64_t n = 0;

	for (int i = 0; i < STANDIN_CONNS; i++)
		if (s->conn[i].fd >= 0 && s->conn[i].kind == STANDIN_DEV)
			n += s->conn[i].charged[gpu];
	return n;
}

/* Take the unspent budgets back from tenant's processes (every process
 * for 0 with all set): the module may, at any time (uapi). */
static void take_back(struct standin *s, uint32_t tenant, int all, int gpu)
{
	for (int i = 0; i < STANDIN_CONNS; i++) {
		struct standin_conn *c = &s->conn[i];
		int64_t a;

		if (c->fd < 0 || c->kind != STANDIN_DEV || !c->registered ||
		    (!all && c->tenant != tenant))
			continue;
		a = __atomic_exchange_n(&c->page->gpu[gpu].avail, 0, __ATOMIC_ACQ_REL);
		if (a > 0)
			c->charged[gpu] -= (uint64_t)a > c->charged[gpu] ? c->charged[gpu] : (uint64_t)a;
	}
}

/* The tenant's bucket on the GPU: min(vram-max, VRAM); the VRAM outside
 * every tenant. */
static uint64_t bucket(struct standin *s, const struct standin_tenant *t, int gpu)
{
	uint64_t cap = s->gpu[gpu].vram;

	if (s->brk == STANDIN_BREAK_CHARGE)
		return cap;	/* wrong on purpose: the limit is not applied */
	return t && t->vram_max < cap ? t->vram_max : cap;
}

/* What the charger may still give c on gpu, after taking budgets back if
 * need be (0 when bytes do not fit). */
static uint64_t room_for(struct standin *s, struct standin_conn *c, struct standin_tenant *t,
			 int gpu, uint64_t bytes)
{
	uint64_t lim = bucket(s, t, gpu), cap = s->gpu[gpu].vram, mine, all, r;

	for (int pass = 0; pass < 2; pass++) {
		mine = sum(s, c->tenant, c, gpu, 0);
		all = gpu_charged(s, gpu);
		r = mine < lim ? lim - mine : 0;
		if (all < cap && cap - all < r)
			r = cap - all;
		else if (all >= cap)
			r = 0;
		if (r >= bytes)
			return r;
		if (!pass)	/* a short charge: the budgets back first */
			take_back(s, c->tenant, mine + bytes <= lim, gpu);
	}
	return 0;
}

static int do_charge(struct standin *s, struct standin_conn *c, struct vgpu_dev_charge *q)
{
	struct standin_tenant *t = standin_tenant_by_id(s, c->tenant);
	uint64_t r, budget;

	if (q->gpu >= VGPU_DEV_GPUS || !s->gpu[q->gpu].present || q->flags ||
	    q->bytes > (uint64_t)INT64_MAX)
		return -EINVAL;
	if (!standin_gpu_mask_ok(t, (int)q->gpu))
		return -EPERM;
	r = room_for(s, c, t, (int)q->gpu, q->bytes);
	if (!r || r < q->bytes) {
		if (t)
			t->failures[q->gpu]++;
		return -ENOMEM;
	}
	budget = (r - q->bytes) / 8;
	budget = (budget < STANDIN_BUDGET_MAX ? budget : STANDIN_BUDGET_MAX);
	budget -= budget % STANDIN_BUDGET_STEP;
	c->charged[q->gpu] += q->bytes + budget;
	__atomic_add_fetch(&c->page->gpu[q->gpu].avail, (int64_t)(q->bytes + budget),
			   __ATOMIC_ACQ_REL);
	q->keep = budget;
	return 0;
}

static int do_release(struct standin_conn *c, struct vgpu_dev_charge *q)
{
	int64_t *avail, a;
	uint64_t take;

	if (q->gpu >= VGPU_DEV_GPUS || q->flags)
		return -EINVAL;
	avail = (int64_t *)&c->page->gpu[q->gpu].avail;
	a = __atomic_load_n(avail, __ATOMIC_RELAXED);
	do
		take = a <= 0 ? 0 : (uint64_t)a < q->bytes ? (uint64_t)a : q->bytes;
	while (take && !__atomic_compare_exchange_n(avail, &a, a - (int64_t)take, 1,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	c->charged[q->gpu] -= take > c->charged[q->gpu] ? c->charged[q->gpu] : take;
	return 0;
}

static int do_meminfo(struct standin *s, struct standin_conn *c, struct vgpu_dev_meminfo *m)
{
	struct standin_tenant *t = standin_tenant_by_id(s, c->tenant);
	uint64_t cap, mine, others;
	int g = (int)m->gpu;

	if (m->gpu >= VGPU_DEV_GPUS || !s->gpu[g].present || m->flags)
		return -EINVAL;
	cap = s->gpu[g].vram;
	m->capacity = cap;
	m->limit = t && t->vram_max != UINT64_MAX && s->brk != STANDIN_BREAK_VIEW ?
		   t->vram_max : ~0ull;
	m->tenant_used = sum(s, c->tenant, c, g, 1);
	m->room = m->limit < cap ? m->limit : cap;
	/* full for it: the others' charges leave nothing beyond its own */
	mine = sum(s, c->tenant, c, g, 0);
	others = gpu_charged(s, g) - mine;
	if (others >= cap || cap - others <= mine)
		m->room = mine;
	return 0;
}

void standin_set_grant(struct standin *s, struct standin_tenant *t, int gpu, int granted)
{
	t->revoked[gpu] = !granted;
	if (granted)
		t->grants[gpu]++;
	for (int i = 0; i < STANDIN_CONNS; i++) {
		struct standin_conn *c = &s->conn[i];

		if (c->fd < 0 || c->kind != STANDIN_DEV || !c->registered || c->tenant != t->id)
			continue;
		if (granted)
			__atomic_add_fetch(&c->gate->gpu[gpu].seq, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&c->gate->gpu[gpu].granted, (uint32_t)granted, __ATOMIC_RELEASE);
	}
}

/* VGPU_IOC_WAIT: 1 when the answer must wait for a grant. */
static int do_wait(struct standin *s, struct standin_conn *c, struct vgpu_dev_wait *w)
{
	struct standin_tenant *t = standin_tenant_by_id(s, c->tenant);

	if (w->gpu >= VGPU_DEV_GPUS)
		return -EINVAL;
	w->waited_ns = 0;
	return t && t->revoked[w->gpu];
}

/* One ioctl; 1 when its answer is owed later (a WAIT without a grant). */
int standin_ioctl(struct standin *s, struct standin_conn *c, struct standin_ioc *m)
{
	if (!c->registered && m->req != VGPU_IOC_MEMINFO)
		return m->rc = -EPERM, 0;	/* the module's answer before proc-register */
	switch (m->req) {
	case VGPU_IOC_CHARGE:
		m->rc = do_charge(s, c, (struct vgpu_dev_charge *)m->arg);
		return 0;
	case VGPU_IOC_RELEASE:
		m->rc = do_release(c, (struct vgpu_dev_charge *)m->arg);
		return 0;
	case VGPU_IOC_MEMINFO:
		m->rc = do_meminfo(s, c, (struct vgpu_dev_meminfo *)m->arg);
		return 0;
	case VGPU_IOC_WAIT:
		m->rc = do_wait(s, c, (struct vgpu_dev_wait *)m->arg);
		return m->rc > 0 ? (m->rc = 0, 1) : 0;
	case VGPU_IOC_PLACEMENT:
		memset(m->arg, 0, sizeof(struct vgpu_dev_placement));
		((struct vgpu_dev_placement *)m->arg)->seq = c->page->placement_seq;
		m->rc = 0;	/* no placement: the stand-in leaves CPUs and nodes alone */
		return 0;
	default:
		m->rc = -ENOTTY;
		return 0;
	}
}
