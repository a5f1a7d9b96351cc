// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu-stat: print the shared simgpu state (the ground truth): per GPU
 * memory used/total and engine time; per process and per cgroup the
 * device time consumed and the bytes held; the per-cgroup memory limits
 * set through NVML.
 *
 *   simgpu-stat [-j]     text (one record a line, "key value" pairs) or JSON
 *   simgpu-stat reset    zero the accounting, forget dead processes
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm.h"

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* When the snapshot was taken: the clock busy_ns is read against. */
static uint64_t snap_now;

/* Device time the kernel on the engine has run so far (up to its end). */
static uint64_t running(const struct sg_state *s, int g, int proc)
{
	const struct sg_gpu_shared *gp = &s->gpus[g];
	uint64_t end = snap_now;

	if (!gp->owner_pid || (proc >= 0 && gp->owner_proc != proc))
		return 0;
	if (gp->owner_until && gp->owner_until < end)
		end = gp->owner_until;
	return end > gp->owner_since ? end - gp->owner_since : 0;
}

/* A cgroup's bytes held by its live processes on GPU g, and its device
 * time there, the running kernel's so far included. */
static void cgroup_totals(const struct sg_state *s, int c, int g, uint64_t *bytes,
			  uint64_t *busy)
{
	*bytes = 0;
	*busy = s->cgroups[c].busy_ns[g];
	for (int p = 0; p < SG_MAX_PROCS; p++) {
		if (s->procs[p].pid && s->procs[p].cgroup == c) {
			*bytes += s->procs[p].alive ? s->procs[p].bytes[g] : 0;
			*busy += running(s, g, p);
		}
	}
}

static void text(const struct sg_state *s, int ngpus)
{
	for (int g = 0; g < ngpus; g++) {
		const struct sg_gpu_shared *gp = &s->gpus[g];

		printf("gpu %d used %llu total %llu busy_ns %llu kernels %llu engine_pid %d "
		       "now_ns %llu max_idle_ns %llu\n",
		       g, (unsigned long long)gp->used, (unsigned long long)gp->total,
		       (unsigned long long)(gp->busy_ns + running(s, g, -1)),
		       (unsigned long long)gp->kernels, gp->owner_pid,
		       (unsigned long long)snap_now, (unsigned long long)gp->max_idle_ns);
	}
	for (int p = 0; p < SG_MAX_PROCS; p++) {
		const struct sg_proc_shared *sp = &s->procs[p];

		if (!sp->pid)
			continue;
		for (int g = 0; g < ngpus; g++) {
			if (!sp->bytes[g] && !sp->busy_ns[g] && !sp->ctxs[g] && !sp->kernels[g])
				continue;
			printf("proc %d gpu %d alive %d bytes %llu busy_ns %llu kernels %llu contexts %d comm %s cgroup %s\n",
			       sp->pid, g, sp->alive, (unsigned long long)sp->bytes[g],
			       (unsigned long long)(sp->busy_ns[g] + running(s, g, p)),
			       (unsigned long long)sp->kernels[g], sp->ctxs[g],
			       sp->comm[0] ? sp->comm : "-",
			       sp->cgroup >= 0 ? s->cgroups[sp->cgroup].path : "-");
		}
	}
	for (int c = 0; c < SG_MAX_CGROUPS; c++) {
		const struct sg_cgroup_shared *cg = &s->cgroups[c];

		if (!cg->path[0])
			continue;
		for (int g = 0; g < ngpus; g++) {
			uint64_t bytes, busy;

			cgroup_totals(s, c, g, &bytes, &busy);
			if (!bytes && !busy && !cg->kernels[g])
				continue;
			printf("cgroup %s gpu %d bytes %llu busy_ns %llu kernels %llu\n",
			       cg->path, g, (unsigned long long)bytes,
			       (unsigned long long)busy, (unsigned long long)cg->kernels[g]);
		}
	}
	for (int l = 0; l < SG_MAX_LIMITS; l++) {
		const struct sg_limit_shared *lim = &s->limits[l];

		for (int g = 0; lim->path[0] && g < ngpus; g++) {
			if (!lim->soft[g] && lim->hard[g] == SG_NO_LIMIT)
				continue;
			printf("limit %s gpu %d soft %llu hard ", lim->path, g,
			       (unsigned long long)lim->soft[g]);
			if (lim->hard[g] == SG_NO_LIMIT)
				printf("max\n");
			else
				printf("%llu\n", (unsigned long long)lim->hard[g]);
		}
	}
}

/* JSON: the per-cgroup memory limits set through NVML, one per cgroup and GPU. */
static void json_limits(const struct sg_state *s, int ngpus)
{
	const char *sep = "";

	printf(",\"limits\":[");
	for (int l = 0; l < SG_MAX_LIMITS; l++) {
		const struct sg_limit_shared *lim = &s->limits[l];

		for (int g = 0; lim->path[0] && g < ngpus; g++) {
			if (!lim->soft[g] && lim->hard[g] == SG_NO_LIMIT)
				continue;
			printf("%s{\"path\":", sep);
			json_str(lim->path);
			printf(",\"gpu\":%d,\"soft\":%llu,\"hard\":", g,
			       (unsigned long long)lim->soft[g]);
			if (lim->hard[g] == SG_NO_LIMIT)
				printf("null}");
			else
				printf("%llu}", (unsigned long long)lim->hard[g]);
			sep = ",";
		}
	}
	printf("]");
}

static void json(const struct sg_state *s, int ngpus)
{
	const char *sep = "";

	printf("{\"gpus\":[");
	for (int g = 0; g < ngpus; g++) {
		const struct sg_gpu_shared *gp = &s->gpus[g];

		printf("%s{\"index\":%d,\"used\":%llu,\"total\":%llu,\"busy_ns\":%llu,"
		       "\"kernels\":%llu,\"engine_pid\":%d,\"max_idle_ns\":%llu}", g ? "," : "", g,
		       (unsigned long long)gp->used, (unsigned long long)gp->total,
		       (unsigned long long)(gp->busy_ns + running(s, g, -1)),
		       (unsigned long long)gp->kernels, gp->owner_pid,
		       (unsigned long long)gp->max_idle_ns);
	}
	printf("],\"processes\":[");
	for (int p = 0; p < SG_MAX_PROCS; p++) {
		const struct sg_proc_shared *sp = &s->procs[p];

		if (!sp->pid)
			continue;
		printf("%s{\"pid\":%d,\"alive\":%s,\"comm\":", sep, sp->pid,
		       sp->alive ? "true" : "false");
		json_str(sp->comm);
		printf(",\"cgroup\":");
		json_str(sp->cgroup >= 0 ? s->cgroups[sp->cgroup].path : "");
		printf(",\"gpus\":[");
		for (int g = 0; g < ngpus; g++)
			printf("%s{\"index\":%d,\"bytes\":%llu,\"busy_ns\":%llu,\"kernels\":%llu,"
			       "\"contexts\":%d}", g ? "," : "", g,
			       (unsigned long long)sp->bytes[g],
			       (unsigned long long)(sp->busy_ns[g] + running(s, g, p)),
			       (unsigned long long)sp->kernels[g], sp->ctxs[g]);
		printf("]}");
		sep = ",";
	}
	printf("],\"cgroups\":[");
	sep = "";
	for (int c = 0; c < SG_MAX_CGROUPS; c++) {
		const struct sg_cgroup_shared *cg = &s->cgroups[c];

		if (!cg->path[0])
			continue;
		printf("%s{\"path\":", sep);
		json_str(cg->path);
		printf(",\"gpus\":[");
		for (int g = 0; g < ngpus; g++) {
			uint64_t bytes, busy;

			cgroup_totals(s, c, g, &bytes, &busy);
			printf("%s{\"index\":%d,\"bytes\":%llu,\"busy_ns\":%llu,\"kernels\":%llu}",
			       g ? "," : "", g, (unsigned long long)bytes,
			       (unsigned long long)busy, (unsigned long long)cg->kernels[g]);
		}
		printf("]}");
		sep = ",";
	}
	printf("]");
	json_limits(s, ngpus);
	printf(",\"reclaimed\":%llu,\"now_ns\":%llu}\n", (unsigned long long)s->reclaimed,
	       (unsigned long long)snap_now);
}

int main(int argc, char **argv)
{
	static struct sg_state snap;
	int use_json = 0, reset = 0, rc, ngpus;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-j"))
			use_json = 1;
		else if (!strcmp(argv[i], "reset"))
			reset = 1;
		else {
			fprintf(stderr, "usage: simgpu-stat [-j] | simgpu-stat reset\n"
				"  state file: $SIMGPU_STATE or %s\n", SG_DEFAULT_STATE);
			return 2;
		}
	}
	rc = simgpu_state_open();
	if (rc) {
		fprintf(stderr, "simgpu-stat: cannot open state %s: %s\n",
			getenv("SIMGPU_STATE") ? getenv("SIMGPU_STATE") : SG_DEFAULT_STATE,
			strerror(-rc));
		return 1;
	}
	simgpu_state_lock();
	simgpu_state_reclaim(1);
	if (reset)
		simgpu_state_reset();
	snap = *simgpu_shm;
	snap_now = simgpu_now_ns();
	simgpu_state_unlock();
	if (reset)
		return 0;
	ngpus = snap.ngpus;
	if (use_json)
		json(&snap, ngpus);
	else
		text(&snap, ngpus);
	return 0;
}
