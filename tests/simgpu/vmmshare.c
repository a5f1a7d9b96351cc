// SPDX-License-Identifier: GPL-2.0
/*
 * VMM allocations exported as POSIX file descriptors, in the shared state.
 * The CUDA Driver API reference (Virtual Memory Management) keeps such an
 * allocation alive while any reference lives, in any process: a handle
 * (the creator's, a retained one, each imported one), a mapping, or an
 * open shareable handle ("Once all shareable handles are closed and the
 * allocation is released, the allocated memory referenced will be
 * released back to the OS", cuMemExportToShareableHandle). So its bytes
 * are counted in the GPU's used memory once, by its entry here, and are
 * attributed to each process while it holds a reference of its own (the
 * creator was charged at cuMemCreate; an importer from its import on), an
 * open descriptor included: a process that released its handles and
 * mappings but keeps a descriptor open still holds the memory (by_fd),
 * until a scan finds that it closed it. A descriptor open only in a
 * process that holds no reference of its own (passed on, never imported)
 * keeps the memory on the GPU, attributed to nobody.
 * The descriptor is a dup of the memfd backing the memory: an entry is
 * known by the memfd's inode, and a descriptor is open while a process's
 * /proc/PID/fd names that inode. The lock is held for every call.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shm.h"

/* Looking for closed descriptors opens /proc: do it at most this often
 * (and whenever memory runs short, simgpu_state_reclaim(1)). */
#define EXPORT_SCAN_NS 20000000ULL

int simgpu_export_find(uint64_t fdev, uint64_t ino)
{
	for (int i = 0; i < SG_MAX_EXPORTS; i++)
		if (simgpu_shm->exports[i].ino == ino && simgpu_shm->exports[i].fdev == fdev)
			return i;
	return -1;
}

int simgpu_export_add(uint64_t fdev, uint64_t ino, int gpu, uint64_t size, int slot)
{
	struct sg_export_shared *e;
	int i;

	for (i = 0; i < SG_MAX_EXPORTS && simgpu_shm->exports[i].ino; i++)
		;
	if (i == SG_MAX_EXPORTS || !ino)
		return -1;
	e = &simgpu_shm->exports[i];
	memset(e, 0, sizeof(*e));
	e->fdev = fdev;
	e->ino = ino;
	e->size = size;
	e->gpu = gpu;
	if (slot >= 0) {
		simgpu_shm->procs[slot].shared[gpu] += size;
		e->holders[slot / 64] |= 1ULL << (slot % 64);
	}
	return i;
}

/* Whether the descriptor directory dir (/proc/PID/fd) names the memfd. */
static int dir_has(const char *dir, uint64_t fdev, uint64_t ino)
{
	DIR *fds = opendir(dir);
	struct dirent *f;
	struct stat st;
	int found = 0;

	if (!fds)
		return 0;
	while (!found && (f = readdir(fds))) {
		if (f->d_name[0] == '.')
			continue;
		found = !fstatat(dirfd(fds), f->d_name, &st, 0) && (uint64_t)st.st_ino == ino &&
			(uint64_t)st.st_dev == fdev;
	}
	closedir(fds);
	return found;
}

/* Whether some process has a descriptor of the memfd open. */
static int fd_open(uint64_t fdev, uint64_t ino)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;
	char path[288];
	int found = 0;

	if (!proc)
		return 0;
	while (!found && (p = readdir(proc))) {
		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", p->d_name);
		found = dir_has(path, fdev, ino);
	}
	closedir(proc);
	return found;
}

/* Whether the process in slot has a descriptor of the memfd open. */
static int slot_fd_open(int slot, uint64_t fdev, uint64_t ino)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)simgpu_shm->procs[slot].pid);
	return dir_has(path, fdev, ino);
}

static int held(const struct sg_export_shared *e)
{
	for (int i = 0; i < SG_MAX_PROCS / 64; i++)
		if (e->holders[i])
			return 1;
	return 0;
}

/* Free entry i if nothing keeps it: its memory goes back to the GPU. */
static void export_put(int i)
{
	struct sg_export_shared *e = &simgpu_shm->exports[i];
	struct sg_gpu_shared *g;

	if (!e->ino || held(e) || fd_open(e->fdev, e->ino))
		return;
	g = &simgpu_shm->gpus[e->gpu];
	g->used -= e->size <= g->used ? e->size : g->used;
	memset(e, 0, sizeof(*e));
}

/* Drop slot's hold of entry idx, whatever keeps it. */
static void export_drop(int idx, int slot)
{
	struct sg_export_shared *e = &simgpu_shm->exports[idx];
	struct sg_proc_shared *p = &simgpu_shm->procs[slot];
	uint64_t bit = 1ULL << (slot % 64);
	int g = e->gpu;

	if (!e->ino || !(e->holders[slot / 64] & bit))
		return;
	e->holders[slot / 64] &= ~bit;
	e->by_fd[slot / 64] &= ~bit;
	p->bytes[g] -= e->size <= p->bytes[g] ? e->size : p->bytes[g];
	p->shared[g] -= e->size <= p->shared[g] ? e->size : p->shared[g];
	export_put(idx);
}

void simgpu_export_hold(int idx, int slot, int on)
{
	struct sg_export_shared *e = &simgpu_shm->exports[idx];
	uint64_t bit = 1ULL << (slot % 64);

	if (slot < 0 || !e->ino)
		return;
	if (!on) {
		/* Its own open descriptor still holds the memory. */
		if ((e->holders[slot / 64] & bit) &&
		    dir_has("/proc/self/fd", e->fdev, e->ino))
			e->by_fd[slot / 64] |= bit;
		else
			export_drop(idx, slot);
		return;
	}
	e->by_fd[slot / 64] &= ~bit;	/* a reference again */
	if (e->holders[slot / 64] & bit)
		return;
	/* An importer: its bytes, but not the GPU's again. */
	e->holders[slot / 64] |= bit;
	simgpu_shm->procs[slot].bytes[e->gpu] += e->size;
	simgpu_shm->procs[slot].shared[e->gpu] += e->size;
}

void simgpu_export_release_slot(int slot)
{
	for (int i = 0; i < SG_MAX_EXPORTS; i++)
		export_drop(i, slot);
}

/* End the descriptor-only holds of entry i whose descriptor is closed
 * (the table holds host pids: only from the initial pid namespace). */
static void export_scan_fds(int i)
{
	struct sg_export_shared *e = &simgpu_shm->exports[i];

	if (!simgpu_pidns_initial())
		return;
	for (int w = 0; w < SG_MAX_PROCS / 64; w++)
		for (int b = 0; e->ino && e->by_fd[w] && b < 64; b++)
			if ((e->by_fd[w] & (1ULL << b)) &&
			    !slot_fd_open(w * 64 + b, e->fdev, e->ino))
				export_drop(i, w * 64 + b);
}

void simgpu_export_scan(int force)
{
	uint64_t now = simgpu_now_ns();

	if (!force && now - simgpu_shm->last_export_scan < EXPORT_SCAN_NS)
		return;
	simgpu_shm->last_export_scan = now;
	for (int i = 0; i < SG_MAX_EXPORTS; i++) {
		export_scan_fds(i);
		if (simgpu_shm->exports[i].ino && !held(&simgpu_shm->exports[i]))
			export_put(i);
	}
}
