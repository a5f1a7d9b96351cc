// SPDX-License-Identifier: GPL-2.0
/*
 * Per-cgroup device memory limits, as NVIDIA's driver keeps them when it
 * has no dmem controller to lean on (MPS v3 memory partitioning, "misc"
 * backend): a table of cgroups with a soft and a hard limit per GPU, set
 * and read through NVML (nvmlDeviceSetMemoryLimits_v1, nvml.c), enforced
 * by the allocator (simgpu_charge, engine.c) for every process, whatever
 * library it loaded. A process is held to the hard limit of the nearest
 * cgroup at or above its own that has one on the GPU; limits do not nest
 * (a limited cgroup's processes count only against its own limit). The
 * soft limit is kept and reported, never enforced (the driver only marks
 * a process over it as a candidate for eviction under pressure).
 * Shared by the driver and NVML; the state lock is held by the caller.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "shm.h"

/* NVML takes the cgroup's directory; cgroup v2 must be mounted here. */
#define SG_CGROUP_MOUNT	"/sys/fs/cgroup"

int simgpu_limit_path(const char *dir, char *out, size_t len)
{
	size_t mlen = strlen(SG_CGROUP_MOUNT), n;
	struct stat st;

	if (!dir || strncmp(dir, SG_CGROUP_MOUNT, mlen) ||
	    (dir[mlen] && dir[mlen] != '/'))
		return -1;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return -1;
	n = strlen(dir + mlen);
	while (n > 0 && dir[mlen + n - 1] == '/')
		n--;
	if (n + 2 > len || n + 1 > SG_CGROUP_LEN - 1)
		return -1;
	if (!n) {
		snprintf(out, len, "/");
		return 0;
	}
	memcpy(out, dir + mlen, n);
	out[n] = 0;
	return 0;
}

/* Whether cgroup path p is anc or below it. */
static int at_or_below(const char *p, const char *anc)
{
	size_t n = strlen(anc);

	if (!strcmp(anc, "/"))
		return 1;
	return !strncmp(p, anc, n) && (p[n] == 0 || p[n] == '/');
}

static struct sg_limit_shared *find(const char *path)
{
	for (int i = 0; i < SG_MAX_LIMITS; i++)
		if (simgpu_shm->limits[i].path[0] && !strcmp(simgpu_shm->limits[i].path, path))
			return &simgpu_shm->limits[i];
	return NULL;
}

static int has_limit(const struct sg_limit_shared *l)
{
	for (int g = 0; g < SG_MAX_GPUS; g++)
		if (l->soft[g] || l->hard[g] != SG_NO_LIMIT)
			return 1;
	return 0;
}

int simgpu_limit_set(const char *path, int gpu, uint64_t soft, uint64_t hard)
{
	struct sg_limit_shared *l = find(path);
	int i;

	if (!l) {
		if (!soft && hard == SG_NO_LIMIT)
			return 0;
		for (i = 0; i < SG_MAX_LIMITS && simgpu_shm->limits[i].path[0]; i++)
			;
		if (i == SG_MAX_LIMITS)
			return -1;
		l = &simgpu_shm->limits[i];
		memset(l, 0, sizeof(*l));
		snprintf(l->path, sizeof(l->path), "%s", path);
		for (int g = 0; g < SG_MAX_GPUS; g++)
			l->hard[g] = SG_NO_LIMIT;
	}
	l->soft[gpu] = soft;
	l->hard[gpu] = hard;
	if (!has_limit(l))
		l->path[0] = 0;
	return 0;
}

void simgpu_limit_get(const char *path, int gpu, uint64_t *soft, uint64_t *hard)
{
	const struct sg_limit_shared *l = find(path);

	*soft = l ? l->soft[gpu] : 0;
	*hard = l ? l->hard[gpu] : SG_NO_LIMIT;
}

uint64_t simgpu_limit_used(const char *path, int gpu)
{
	uint64_t sum = 0;

	for (int i = 0; i < SG_MAX_PROCS; i++) {
		const struct sg_proc_shared *p = &simgpu_shm->procs[i];

		if (p->alive && p->cgroup >= 0 &&
		    at_or_below(simgpu_shm->cgroups[p->cgroup].path, path))
			sum += p->bytes[gpu];
	}
	return sum;
}

/* The limit governing cgroup path on gpu: the deepest one at or above it. */
static const struct sg_limit_shared *governing(const char *path, int gpu)
{
	const struct sg_limit_shared *best = NULL;

	for (int i = 0; i < SG_MAX_LIMITS; i++) {
		const struct sg_limit_shared *l = &simgpu_shm->limits[i];

		if (!l->path[0] || l->hard[gpu] == SG_NO_LIMIT || !at_or_below(path, l->path))
			continue;
		if (!best || strlen(l->path) > strlen(best->path))
			best = l;
	}
	return best;
}

int simgpu_limit_allows(int slot, int gpu, uint64_t bytes)
{
	const struct sg_proc_shared *me;
	const struct sg_limit_shared *l;
	uint64_t used = 0;

	if (slot < 0 || simgpu_shm->procs[slot].cgroup < 0)
		return 1;
	me = &simgpu_shm->procs[slot];
	l = governing(simgpu_shm->cgroups[me->cgroup].path, gpu);
	if (!l)
		return 1;
	for (int i = 0; i < SG_MAX_PROCS; i++) {
		const struct sg_proc_shared *p = &simgpu_shm->procs[i];

		if (p->alive && p->cgroup >= 0 &&
		    governing(simgpu_shm->cgroups[p->cgroup].path, gpu) == l)
			used += p->bytes[gpu];
	}
	return used <= l->hard[gpu] && bytes <= l->hard[gpu] - used;
}
