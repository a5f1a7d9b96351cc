// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu shared state: one file in shared memory ($SIMGPU_STATE, default
 * /dev/shm/simgpu-state) mapped by every process that uses the simulated
 * GPUs. A robust process-shared mutex guards it; entries of processes that
 * died (even by kill -9) are reclaimed whenever the state is locked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shm.h"

struct sg_state *simgpu_shm;

/* Liveness scans open /proc files: do them at most this often. */
#define SCAN_INTERVAL_NS 2000000ULL

uint64_t simgpu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void simgpu_futex_wait(uint32_t *addr, uint32_t val, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

	syscall(SYS_futex, addr, FUTEX_WAIT, val, &ts, NULL, 0);
}

void simgpu_futex_wake(uint32_t *addr)
{
	syscall(SYS_futex, addr, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Field 22 of /proc/PID/stat (start time in clock ticks, the same in
 * every pid namespace) into *start; pid 0: this process.
 * Returns 1 for a running process, 0 for a zombie or none, -1 when
 * /proc cannot tell. A zombie counts as gone: the real driver releases
 * a process's GPU resources at exit, not when it is reaped. */
static int proc_stat(pid_t pid, uint64_t *start)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	ssize_t n;
	int fd, field;

	*start = 0;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/stat");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -1;
	p += 2;			/* field 3: state */
	if (*p == 'Z' || *p == 'X')
		return 0;
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &v) != 1)
		return -1;
	*start = v ? v : 1;
	return 1;
}

uint64_t simgpu_pid_starttime(pid_t pid)
{
	uint64_t st;

	return proc_stat(pid, &st) == 1 ? st : 0;
}

int simgpu_pid_alive(pid_t pid, uint64_t starttime)
{
	uint64_t st;
	int rc;

	if (pid <= 0)
		return 0;
	if (kill(pid, 0) && errno == ESRCH)
		return 0;
	rc = proc_stat(pid, &st);
	if (rc < 0)
		return 1;	/* /proc cannot tell: trust kill() */
	if (rc == 0)
		return 0;
	return !starttime || st == starttime;
}

static void init_state(struct sg_state *s)
{
	pthread_mutexattr_t a;

	memset(s, 0, sizeof(*s));
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&s->lock, &a);
	pthread_mutexattr_destroy(&a);
	s->version = SG_STATE_VERSION;
	s->size = sizeof(*s);
	for (int i = 0; i < SG_MAX_PROCS; i++)
		s->procs[i].cgroup = -1;
	__atomic_store_n(&s->magic, SG_STATE_MAGIC, __ATOMIC_RELEASE);
}

int simgpu_state_open(void)
{
	const char *path = getenv("SIMGPU_STATE");
	struct stat st;
	void *map;
	int fd, err;

	if (simgpu_shm)
		return 0;
	if (!path || !*path)
		path = SG_DEFAULT_STATE;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return -errno;
	/* The first process initialises the file; flock orders the rest. */
	if (flock(fd, LOCK_EX)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (fstat(fd, &st))
		goto fail;
	if ((size_t)st.st_size != sizeof(struct sg_state)) {
		if (st.st_size && st.st_size != 0) {
			/* Another layout: start afresh (nobody can share it). */
			if (ftruncate(fd, 0))
				goto fail;
		}
		if (ftruncate(fd, sizeof(struct sg_state)))
			goto fail;
		(void)fchmod(fd, 0666);
	}
	map = mmap(NULL, sizeof(struct sg_state), PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		goto fail;
	if (((struct sg_state *)map)->magic != SG_STATE_MAGIC ||
	    ((struct sg_state *)map)->version != SG_STATE_VERSION ||
	    ((struct sg_state *)map)->size != sizeof(struct sg_state))
		init_state(map);
	flock(fd, LOCK_UN);
	close(fd);
	simgpu_shm = map;
	return 0;
fail:
	err = -errno;
	flock(fd, LOCK_UN);
	close(fd);
	return err;
}

void simgpu_state_configure(const struct sg_config *cfg)
{
	simgpu_state_lock();
	if (simgpu_shm->ngpus < cfg->ngpus)
		simgpu_shm->ngpus = cfg->ngpus;
	for (int i = 0; i < cfg->ngpus; i++)
		simgpu_shm->gpus[i].total = cfg->gpu[i].vram;
	simgpu_state_unlock();
}

void simgpu_engine_drop(int gpu, uint64_t now, int completed)
{
	struct sg_state *s = simgpu_shm;
	struct sg_gpu_shared *g = &s->gpus[gpu];
	int slot = g->owner_proc;

	if (g->owner_until > g->owner_since && now > g->owner_until)
		now = g->owner_until;
	if (slot >= 0 && slot < SG_MAX_PROCS && now > g->owner_since) {
		uint64_t d = now - g->owner_since;
		struct sg_proc_shared *p = &s->procs[slot];

		p->busy_ns[gpu] += d;
		p->kernels[gpu] += completed;
		if (p->cgroup >= 0) {
			s->cgroups[p->cgroup].busy_ns[gpu] += d;
			s->cgroups[p->cgroup].kernels[gpu] += completed;
		}
		g->busy_ns += d;
		g->kernels += completed;
	}
	if (now > g->free_since)
		g->free_since = now;
	g->owner_pid = 0;
	g->owner_proc = -1;
	g->owner_token = 0;
	g->owner_until = 0;
	__atomic_add_fetch(&g->gen, 1, __ATOMIC_RELEASE);
	simgpu_futex_wake(&g->gen);
}

void simgpu_state_release_pid(pid_t pid)
{
	struct sg_state *s = simgpu_shm;
	uint64_t now = simgpu_now_ns();
	int i, g;

	/* A kernel whose device end has come ran to completion, even if its
	 * thread had not woken to say so when the process went. */
	for (g = 0; g < SG_MAX_GPUS; g++)
		if (s->gpus[g].owner_pid == pid)
			simgpu_engine_drop(g, now, now >= s->gpus[g].owner_until);
	for (i = 0; i < SG_MAX_WAITERS; i++) {
		if (s->waiters[i].pid == pid) {
			int gpu = s->waiters[i].gpu;

			s->waiters[i].pid = 0;
			if (gpu >= 0 && gpu < SG_MAX_GPUS) {
				__atomic_add_fetch(&s->gpus[gpu].gen, 1, __ATOMIC_RELEASE);
				simgpu_futex_wake(&s->gpus[gpu].gen);
			}
		}
	}
	for (i = 0; i < SG_MAX_PROCS; i++) {
		struct sg_proc_shared *p = &s->procs[i];

		if (p->pid != pid || !p->alive)
			continue;
		simgpu_export_release_slot(i);
		for (g = 0; g < SG_MAX_GPUS; g++) {
			/* Exported memory is counted by its entry. */
			uint64_t b = p->bytes[g] - (p->shared[g] <= p->bytes[g] ? p->shared[g] : p->bytes[g]);

			s->gpus[g].used -= b <= s->gpus[g].used ? b : s->gpus[g].used;
			p->bytes[g] = 0;
			p->shared[g] = 0;
			p->ctxs[g] = 0;
		}
		p->alive = 0;
	}
}

void simgpu_state_reclaim(int force)
{
	struct sg_state *s = simgpu_shm;
	uint64_t now = simgpu_now_ns();
	int i;

	if (!force && now - s->last_scan < SCAN_INTERVAL_NS)
		return;
	/* The table holds host pids: a process in another pid namespace
	 * cannot tell whether they live, so it leaves the scan to others. */
	if (!simgpu_pidns_initial())
		return;
	s->last_scan = now;
	for (i = 0; i < SG_MAX_PROCS; i++) {
		struct sg_proc_shared *p = &s->procs[i];

		if (p->alive && !simgpu_pid_alive(p->pid, p->starttime)) {
			simgpu_state_release_pid(p->pid);
			simgpu_ckpt_unlink(p->pid);
			s->reclaimed++;
		}
	}
	simgpu_export_scan(force);
	/* Engine owners and waiters without a live process entry. */
	for (i = 0; i < SG_MAX_GPUS; i++) {
		pid_t o = s->gpus[i].owner_pid;

		if (o && kill(o, 0) && errno == ESRCH)
			simgpu_engine_drop(i, now, 0);
	}
	for (i = 0; i < SG_MAX_WAITERS; i++) {
		pid_t w = s->waiters[i].pid;

		if (w && kill(w, 0) && errno == ESRCH)
			s->waiters[i].pid = 0;
	}
}

void simgpu_state_lock(void)
{
	int rc = pthread_mutex_lock(&simgpu_shm->lock);

	if (rc == EOWNERDEAD) {
		pthread_mutex_consistent(&simgpu_shm->lock);
		simgpu_state_reclaim(1);
		return;
	}
	simgpu_state_reclaim(0);
}

void simgpu_state_unlock(void)
{
	pthread_mutex_unlock(&simgpu_shm->lock);
}

static int cgroup_slot(const char *path)
{
	struct sg_state *s = simgpu_shm;
	int i, free_slot = -1;

	for (i = 0; i < SG_MAX_CGROUPS; i++) {
		if (!s->cgroups[i].path[0]) {
			if (free_slot < 0)
				free_slot = i;
			continue;
		}
		if (!strcmp(s->cgroups[i].path, path))
			return i;
	}
	if (free_slot >= 0)
		snprintf(s->cgroups[free_slot].path, SG_CGROUP_LEN, "%s", path);
	return free_slot;
}

static void read_cgroup(char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/self/cgroup", "re");

	snprintf(out, len, "/");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			line[3 + len - 1] = 0;
			memcpy(out, line + 3, strlen(line + 3) + 1);
			break;
		}
	}
	fclose(f);
}

/* $SIMGPU_PROC_KIND: graphics, mps, or (anything else) compute. */
static int32_t proc_kind(void)
{
	const char *k = getenv("SIMGPU_PROC_KIND");

	if (k && !strcmp(k, "graphics"))
		return SG_KIND_GRAPHICS;
	if (k && !strcmp(k, "mps"))
		return SG_KIND_MPS;
	return SG_KIND_COMPUTE;
}

static void read_comm(char *out, size_t len)
{
	FILE *f;

	out[0] = 0;
	f = fopen("/proc/self/comm", "re");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

int simgpu_state_register(pid_t pid, const char *cgroup)
{
	struct sg_state *s = simgpu_shm;
	char cg[SG_CGROUP_LEN];
	int i, slot = -1;
	uint64_t oldest = UINT64_MAX;

	for (i = 0; i < SG_MAX_PROCS; i++)
		if (s->procs[i].alive && s->procs[i].pid == pid)
			return i;
	for (i = 0; i < SG_MAX_PROCS; i++) {
		if (!s->procs[i].pid) {
			slot = i;
			break;
		}
		if (!s->procs[i].alive && s->procs[i].seq < oldest) {
			oldest = s->procs[i].seq;
			slot = i;
		}
	}
	if (slot < 0)
		return -1;
	memset(&s->procs[slot], 0, sizeof(s->procs[slot]));
	s->procs[slot].pid = pid;
	s->procs[slot].alive = 1;
	/* pid is the host's (hostpid.c): read what /proc knows of ourselves. */
	s->procs[slot].starttime = simgpu_pid_starttime(0);
	s->procs[slot].seq = ++s->seq;
	read_comm(s->procs[slot].comm, sizeof(s->procs[slot].comm));
	if (cgroup && cgroup[0])
		snprintf(cg, sizeof(cg), "%s", cgroup);
	else
		read_cgroup(cg, sizeof(cg));
	s->procs[slot].cgroup = cgroup_slot(cg);
	s->procs[slot].kind = proc_kind();
	return slot;
}

void simgpu_state_reset(void)
{
	struct sg_state *s = simgpu_shm;
	int i, g;

	for (i = 0; i < SG_MAX_PROCS; i++) {
		struct sg_proc_shared *p = &s->procs[i];

		if (!p->alive) {
			memset(p, 0, sizeof(*p));
			p->cgroup = -1;
			continue;
		}
		memset(p->busy_ns, 0, sizeof(p->busy_ns));
		memset(p->kernels, 0, sizeof(p->kernels));
	}
	for (i = 0; i < SG_MAX_CGROUPS; i++) {
		memset(s->cgroups[i].busy_ns, 0, sizeof(s->cgroups[i].busy_ns));
		memset(s->cgroups[i].kernels, 0, sizeof(s->cgroups[i].kernels));
	}
	for (g = 0; g < SG_MAX_GPUS; g++) {
		struct sg_gpu_shared *gp = &s->gpus[g];
		uint64_t now = simgpu_now_ns();

		gp->busy_ns = 0;
		gp->kernels = 0;
		gp->max_idle_ns = 0;
		if (!gp->owner_pid)
			gp->free_since = now;	/* idleness counts from here */
		else if (gp->owner_since < now)
			gp->owner_since = gp->owner_until < now ? gp->owner_until : now;
	}
	s->reclaimed = 0;
}
