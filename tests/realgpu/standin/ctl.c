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

void standin_ctl_line(struct standin *s, struct standin_conn *c, char *line)
{
	char *w[5] = { 0 }, *save = NULL, *end;
	struct standin_tenant *t;
	unsigned long g, ms = 0;
	int n = 0;

	for (char *p = strtok_r(line, " \n", &save); p && n < 5; p = strtok_r(NULL, " \n", &save))
		w[n++] = p;
	if (n < 3)
		return answer(c, "error: usage: grant|revoke|flip|show TENANT GPU [MS]");
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
