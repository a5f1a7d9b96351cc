// SPDX-License-Identifier: GPL-2.0
/*
 * The tests' controls of the stand-in, one text line each way over a
 * STANDIN_CTL connection (vgpu-standin ctl SOCKET WORDS...): what the
 * module's scheduler would decide, made by hand, and what it holds.
 *
 *   grant TENANT GPU         the tenant holds the GPU (the default)
 *   revoke TENANT GPU        the grant is taken: its launches wait
 *   flip TENANT GPU MS       revoked now, then granted and revoked in turn
 *                            every MS ms
 *   show TENANT GPU          "ok charged C used U limit L grants G failures F
 *                            procs P waiting W" (W: parked in VGPU_IOC_WAIT)
 *
 * and the set-up, for a host where vgpuctl cannot run (what "vgpuctl gpu
 * add" and "tenant add" would ask through the interposer):
 *
 *   gpu-add INDEX VRAM UUID  GPU INDEX with VRAM bytes (vgpu-standin probe
 *                            sends one for each GPU NVML lists)
 *   tenant-add NAME VRAM-MAX GPUS
 *                            a tenant of vram-max VRAM-MAX bytes ("none": no
 *                            limit) on GPUS ("all", or indexes "0,2"); its
 *                            cgroup is /vgpu-standin-NAME, never made
 *   gpus                     "ok gpus N"
 *   tenant NAME              "ok tenant NAME id I vram-max V gpus G" (V and G
 *                            as tenant-add takes them)
 *
 * Answers "ok ..." or "error: WHAT".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "standind.h"

static void answer(struct standin_conn *c, const char *s)
{
	send(c->fd, s, strlen(s), MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void add_ms(struct timespec *t, unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_nsec += (long)(ms % 1000) * 1000000L;
	t->tv_sec += ms / 1000 + t->tv_nsec / 1000000000L;
	t->tv_nsec %= 1000000000L;
}

static void show(struct standin *s, struct standin_conn *c, struct standin_tenant *t, int g)
{
	char out[256];
	int procs = 0, waiting = 0;

	for (int i = 0; i < STANDIN_CONNS; i++) {
		const struct standin_conn *p = &s->conn[i];

		if (p->fd < 0 || p->kind != STANDIN_DEV || !p->registered || p->tenant != t->id)
			continue;
		procs++;
		waiting += p->waiting && ((struct vgpu_dev_wait *)p->wait.arg)->gpu == (uint32_t)g;
	}
	snprintf(out, sizeof(out), "ok charged %llu used %llu limit %llu grants %u failures %llu "
		 "procs %d waiting %d",
		 (unsigned long long)standin_tenant_charged(s, t->id, g),
		 (unsigned long long)standin_tenant_used(s, t->id, g),
		 (unsigned long long)t->vram_max, t->grants[g],
		 (unsigned long long)t->failures[g], procs, waiting);
	answer(c, out);
}

static const char *errname(int err)
{
	return err == -EEXIST ? "error: it exists already" : err == -ENOSPC ? "error: no room for more" :
	       "error: invalid: an empty or too long name, UUID or cgroup, or no VRAM";
}

/* "0,2" or "all" into a mask of GPU indexes; 0 when malformed. */
static uint64_t gpu_list(const char *w)
{
	uint64_t mask = 0;
	char *end;

	if (!strcmp(w, "all"))
		return UINT64_MAX;
	for (const char *p = w; *p; p = end + (*end == ',')) {
		unsigned long g = strtoul(p, &end, 10);

		if (end == p || g >= VGPU_DEV_GPUS || (*end && *end != ','))
			return 0;
		mask |= 1ull << g;
	}
	return mask;
}

static int u64_word(const char *w, uint64_t *v)
{
	char *end;

	if (!w || !*w || *w == '-')
		return -1;
	errno = 0;
	*v = strtoull(w, &end, 10);
	return *end || errno ? -1 : 0;
}

/* The set-up controls: gpu-add, tenant-add, gpus, tenant. */
static void setup_line(struct standin *s, struct standin_conn *c, char **w, int n)
{
	char out[400], cg[STANDIN_PATH];
	struct standin_tenant *t;
	uint64_t v, idx, mask;
	int err, k = 0;

	if (!strcmp(w[0], "gpus")) {
		for (int g = 0; g < VGPU_DEV_GPUS; g++)
			k += s->gpu[g].present;
		snprintf(out, sizeof(out), "ok gpus %d", k);
		return answer(c, out);
	}
	if (!strcmp(w[0], "gpu-add")) {
		if (n != 4 || u64_word(w[1], &idx) || idx >= VGPU_DEV_GPUS || u64_word(w[2], &v))
			return answer(c, "error: usage: gpu-add INDEX VRAM-BYTES UUID");
		err = standin_gpu_add(s, (int)idx, v, w[3], "", -1);
		return answer(c, err ? errname(err) : "ok");
	}
	if (!strcmp(w[0], "tenant") && n == 2) {
		char vmax[24] = "none", gpus[3 * VGPU_DEV_GPUS + 4] = "all";

		t = standin_tenant_by_name(s, w[1]);
		if (!t)
			return answer(c, "error: no such tenant");
		if (t->vram_max != UINT64_MAX)
			snprintf(vmax, sizeof(vmax), "%llu", (unsigned long long)t->vram_max);
		for (int g = 0, l = 0; g < VGPU_DEV_GPUS && t->gpus != UINT64_MAX; g++)
			if ((t->gpus >> g) & 1)
				l += snprintf(gpus + l, sizeof(gpus) - (size_t)l, "%s%d", l ? "," : "", g);
		snprintf(out, sizeof(out), "ok tenant %s id %u vram-max %s gpus %s", t->name, t->id,
			 vmax, t->gpus ? gpus : "none");
		return answer(c, out);
	}
	/* tenant-add NAME VRAM-MAX GPUS */
	if (n != 4 || (strcmp(w[2], "none") && u64_word(w[2], &v)) || !(mask = gpu_list(w[3])))
		return answer(c, "error: usage: tenant-add NAME VRAM-MAX-BYTES|none all|INDEX,...");
	snprintf(cg, sizeof(cg), "/vgpu-standin-%s", w[1]);
	t = standin_tenant_new(s, w[1], cg, &err);
	if (!t)
		return answer(c, errname(err));
	t->vram_max = strcmp(w[2], "none") ? v : UINT64_MAX;
	t->gpus = mask;
	answer(c, "ok");
}

void standin_ctl_line(struct standin *s, struct standin_conn *c, char *line)
{
	char *w[5] = { 0 }, *save = NULL, *end;
	struct standin_tenant *t;
	unsigned long g, ms = 0;
	int n = 0;

	for (char *p = strtok_r(line, " \n", &save); p && n < 5; p = strtok_r(NULL, " \n", &save))
		w[n++] = p;
	if (n && (!strcmp(w[0], "gpus") || !strcmp(w[0], "gpu-add") || !strcmp(w[0], "tenant-add") ||
		  !strcmp(w[0], "tenant")))
		return setup_line(s, c, w, n);
	if (n < 3)
		return answer(c, "error: usage: grant|revoke|flip|show TENANT GPU [MS], "
			      "gpu-add, tenant-add, gpus, tenant NAME");
	t = standin_tenant_by_name(s, w[1]);
	if (!t)
		return answer(c, "error: no such tenant");
	g = strtoul(w[2], &end, 10);
	if (*end || g >= VGPU_DEV_GPUS || !s->gpu[g].present)
		return answer(c, "error: no such GPU index");
	if (!strcmp(w[0], "flip")) {
		ms = w[3] ? strtoul(w[3], &end, 10) : 0;
		if (!w[3] || *end || !ms || ms > 60000)
			return answer(c, "error: flip needs MS from 1 to 60000");
	}
	if (!strcmp(w[0], "show"))
		return show(s, c, t, (int)g);
	if (strcmp(w[0], "grant") && strcmp(w[0], "revoke") && strcmp(w[0], "flip"))
		return answer(c, "error: unknown control (grant, revoke, flip, show)");
	t->flip_ms[g] = (unsigned int)ms;
	if (ms)
		add_ms(&t->flip_at[g], t->flip_ms[g]);
	/* a flip starts revoked: what runs next meets one grant at least */
	standin_set_grant(s, t, (int)g, !strcmp(w[0], "grant"));
	answer(c, "ok");
}

/* Flip the grants that are due; *timeout_ms: until the next one (-1: none).
 * Returns how many flipped (their waiters are then answered). */
int standin_flip_due(struct standin *s, int *timeout_ms)
{
	struct timespec now;
	int flipped = 0;

	clock_gettime(CLOCK_MONOTONIC, &now);
	*timeout_ms = -1;
	for (int i = 0; i < STANDIN_TENANTS; i++) {
		struct standin_tenant *t = &s->tenant[i];

		for (int g = 0; t->present && g < VGPU_DEV_GPUS; g++) {
			long ms;

			if (!t->flip_ms[g])
				continue;
			ms = (t->flip_at[g].tv_sec - now.tv_sec) * 1000 +
			     (t->flip_at[g].tv_nsec - now.tv_nsec) / 1000000;
			if (ms <= 0) {
				standin_set_grant(s, t, g, t->revoked[g]);
				add_ms(&t->flip_at[g], t->flip_ms[g]);
				flipped++;
				ms = t->flip_ms[g];
			}
			if (*timeout_ms < 0 || ms < *timeout_ms)
				*timeout_ms = (int)ms;
		}
	}
	return flipped;
}
