// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-devtest's /dev/vgpu side: the page (VRAM budget slots), the gate
 * (compute grants) and the ioctls, driven the way libvgpu does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../libvgpu/logic/charge.h"
#include "devtest.h"

int devtest_dev_fd = -1;
struct vgpu_dev_page *devtest_page;
static const struct vgpu_dev_gate *gate;

/*
 * alloc and free run libvgpu's own charging code (libvgpu/logic/charge.c,
 * compiled into this tool), so the kernel tests exercise the fast path
 * libvgpu ships rather than a copy that can drift from it. The ioctl
 * callback counts the CHARGEs and the bytes released, for the output.
 */
struct charge_count {
	int charges;
	uint64_t released;
};

static int charger_ioctl(void *ctx, unsigned long req, void *arg)
{
	struct charge_count *n = ctx;

	if (req == VGPU_IOC_CHARGE)
		n->charges++;
	if (devtest_dev_fd < 0)
		return -EBADF;
	if (ioctl(devtest_dev_fd, req, arg))
		return -errno;
	if (req == VGPU_IOC_RELEASE)
		n->released += ((struct vgpu_dev_charge *)arg)->bytes;
	return 0;
}

static struct charge_count charge_count;
/* keep[] holds the last CHARGE's keep, from alloc or the charge step. */
static struct vgpu_charger charger = { .ioctl = charger_ioctl, .ctx = &charge_count };

static _Atomic int64_t *slot_avail(uint32_t gpu)
{
	return (_Atomic int64_t *)&devtest_page->gpu[gpu].avail;
}

static _Atomic uint64_t *slot_used(uint32_t gpu)
{
	return (_Atomic uint64_t *)&devtest_page->gpu[gpu].used;
}

int devtest_step_open(void)
{
	void *p;

	if (devtest_dev_fd >= 0)
		return 0;
	devtest_dev_fd = open(VGPU_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (devtest_dev_fd < 0)
		return -errno;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, devtest_dev_fd, 0);
	if (p == MAP_FAILED) {
		int err = -errno;

		close(devtest_dev_fd);
		devtest_dev_fd = -1;
		return err;
	}
	devtest_page = p;
	return 0;
}

/* Opens up to @n more files, kept open until exit; stops at the first error. */
int devtest_step_open_many(unsigned long n)
{
	unsigned long opened = 0;
	int fd, err = 0;

	while (opened < n) {
		fd = open(VGPU_DEV_PATH, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			err = errno;
			break;
		}
		opened++;
	}
	printf("open-many n=%lu opened=%lu errno=%s\n", n, opened,
	       err ? devtest_errname(err) : "0");
	return 0;
}

void devtest_dev_forget(void)
{
	devtest_dev_fd = -1;
	devtest_page = NULL;
	gate = NULL;
}

int devtest_step_close_dev(void)
{
	if (gate)
		munmap((void *)gate, 4096);
	gate = NULL;
	if (devtest_page)
		munmap(devtest_page, 4096);
	devtest_page = NULL;
	if (devtest_dev_fd >= 0)
		close(devtest_dev_fd);
	devtest_dev_fd = -1;
	return 0;
}

static int check_gpu(uint32_t gpu)
{
	return gpu < VGPU_DEV_GPUS ? 0 : -EINVAL;
}

static int do_charge(uint32_t gpu, uint64_t bytes, struct vgpu_dev_charge *c)
{
	memset(c, 0, sizeof(*c));
	c->gpu = gpu;
	c->bytes = bytes;
	if (devtest_dev_fd < 0)
		return -EBADF;
	if (ioctl(devtest_dev_fd, VGPU_IOC_CHARGE, c))
		return -errno;
	if (gpu < VGPU_DEV_GPUS)
		charger.keep[gpu] = c->keep;
	return 0;
}

static int do_release(uint32_t gpu, uint64_t bytes, struct vgpu_dev_charge *c)
{
	memset(c, 0, sizeof(*c));
	c->gpu = gpu;
	c->bytes = bytes;
	if (devtest_dev_fd < 0)
		return -EBADF;
	return ioctl(devtest_dev_fd, VGPU_IOC_RELEASE, c) ? -errno : 0;
}

static int64_t avail_of(uint32_t gpu)
{
	return gpu < VGPU_DEV_GPUS && devtest_page ? (int64_t)*slot_avail(gpu) : 0;
}

static uint64_t used_of(uint32_t gpu)
{
	return gpu < VGPU_DEV_GPUS && devtest_page ? (uint64_t)*slot_used(gpu) : 0;
}

int devtest_step_charge(uint32_t gpu, uint64_t bytes)
{
	struct vgpu_dev_charge c;
	int err = do_charge(gpu, bytes, &c);

	if (!err)
		printf("charge gpu=%u bytes=%" PRIu64 " keep=%" PRIu64 " avail=%" PRId64 "\n",
		       gpu, bytes, (uint64_t)c.keep, avail_of(gpu));
	return err;
}

int devtest_step_release(uint32_t gpu, uint64_t bytes)
{
	struct vgpu_dev_charge c;
	int err = do_release(gpu, bytes, &c);

	if (!err)
		printf("release gpu=%u bytes=%" PRIu64 " avail=%" PRId64 "\n",
		       gpu, (uint64_t)c.bytes, avail_of(gpu));
	return err;
}

int devtest_step_meminfo(uint32_t gpu)
{
	struct vgpu_dev_meminfo mi = { .gpu = gpu };

	if (devtest_dev_fd < 0)
		return -EBADF;
	if (ioctl(devtest_dev_fd, VGPU_IOC_MEMINFO, &mi))
		return -errno;
	printf("meminfo gpu=%u capacity=%llu limit=%llu tenant_used=%llu room=%llu\n", gpu,
	       (unsigned long long)mi.capacity, (unsigned long long)mi.limit,
	       (unsigned long long)mi.tenant_used, (unsigned long long)mi.room);
	return 0;
}

int devtest_step_alloc(uint32_t gpu, uint64_t bytes)
{
	int err;

	if (!devtest_page || check_gpu(gpu))
		return -EINVAL;
	charger.page = devtest_page;
	charge_count.charges = 0;
	err = libvgpu_charge(&charger, (int)gpu, bytes);
	if (err)
		return err;
	libvgpu_charge_commit(&charger, (int)gpu, bytes);
	printf("alloc gpu=%u bytes=%" PRIu64 " charges=%d keep=%" PRIu64 " avail=%" PRId64
	       " used=%" PRIu64 "\n", gpu, bytes, charge_count.charges, charger.keep[gpu],
	       avail_of(gpu), used_of(gpu));
	return 0;
}

int devtest_step_free(uint32_t gpu, uint64_t bytes)
{
	if (!devtest_page || check_gpu(gpu) || used_of(gpu) < bytes)
		return -EINVAL;
	charger.page = devtest_page;
	charge_count.released = 0;
	libvgpu_uncharge(&charger, (int)gpu, bytes);
	printf("free gpu=%u bytes=%" PRIu64 " released=%" PRIu64 " avail=%" PRId64
	       " used=%" PRIu64 "\n", gpu, bytes, charge_count.released, avail_of(gpu),
	       used_of(gpu));
	return 0;
}

int devtest_step_page(int gpu)
{
	uint32_t i;

	if (!devtest_page)
		return -EBADF;
	printf("page version=%u registered=%u\n", devtest_page->version, devtest_page->registered);
	for (i = 0; i < VGPU_DEV_GPUS; i++) {
		if (gpu >= 0 ? (int)i != gpu : (!avail_of(i) && !used_of(i)))
			continue;
		printf("slot gpu=%u avail=%" PRId64 " used=%" PRIu64 "\n", i, avail_of(i),
		       used_of(i));
	}
	return 0;
}

int devtest_step_poke(uint64_t gpu, const char *field, uint64_t value)
{
	if (!devtest_page || gpu >= VGPU_DEV_GPUS)
		return -EINVAL;
	if (!strcmp(field, "avail"))
		*slot_avail(gpu) = (int64_t)value;
	else if (!strcmp(field, "used"))
		*slot_used(gpu) = value;
	else if (!strcmp(field, "bound"))
		__atomic_store_n(&devtest_page->gpu[gpu].bound, value, __ATOMIC_RELAXED);
	else if (!strcmp(field, "synced"))
		__atomic_store_n(&devtest_page->gpu[gpu].synced, value, __ATOMIC_RELAXED);
	else
		return -EINVAL;
	return 0;
}

int devtest_step_mmap_check(void)
{
	static const struct {
		const char *name;
		size_t len;
		int prot, flags;
		off_t off;
	} bad[] = {
		{ "private", 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, 0 },
		{ "two_pages", 8192, PROT_READ | PROT_WRITE, MAP_SHARED, 0 },
		{ "offset", 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 8192 },
		{ "exec", 4096, PROT_READ | PROT_EXEC, MAP_SHARED, 0 },
		{ "gate_write", 4096, PROT_READ | PROT_WRITE, MAP_SHARED, VGPU_DEV_GATE_OFFSET },
		{ "gate_exec", 4096, PROT_READ | PROT_EXEC, MAP_SHARED, VGPU_DEV_GATE_OFFSET },
		{ "gate_two_pages", 8192, PROT_READ, MAP_SHARED, VGPU_DEV_GATE_OFFSET },
	};
	unsigned int i, refused = 0;
	void *p;

	if (devtest_dev_fd < 0)
		return -EBADF;
	printf("mmap-check");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = mmap(NULL, bad[i].len, bad[i].prot, bad[i].flags, devtest_dev_fd, bad[i].off);
		if (p == MAP_FAILED) {
			printf(" %s=%s", bad[i].name, devtest_errname(errno));
			refused++;
		} else {
			printf(" %s=mapped", bad[i].name);
			munmap(p, bad[i].len);
		}
	}
	printf("\n");
	return refused == i ? 0 : -EINVAL;
}

int devtest_step_placement(void)
{
	struct vgpu_dev_placement pl;
	unsigned int i, n = 0;

	memset(&pl, 0, sizeof(pl));
	if (devtest_dev_fd < 0)
		return -EBADF;
	if (ioctl(devtest_dev_fd, VGPU_IOC_PLACEMENT, &pl))
		return -errno;
	printf("placement seq=%u flags=%u mems=", pl.seq, pl.flags);
	for (i = 0; i < sizeof(pl.mems) * 8; i++) {
		if (pl.mems[i / 64] & (1ULL << (i % 64)))
			printf("%s%u", n++ ? "," : "", i);
	}
	printf("%s\n", n ? "" : "-");
	return 0;
}

int devtest_step_wait_placement(long secs)
{
	uint32_t seq;
	double end = devtest_now_us() + secs * 1e6;

	if (!devtest_page)
		return -EBADF;
	seq = __atomic_load_n(&devtest_page->placement_seq, __ATOMIC_ACQUIRE);
	while (__atomic_load_n(&devtest_page->placement_seq, __ATOMIC_ACQUIRE) == seq) {
		if (devtest_now_us() > end)
			return -ETIMEDOUT;
		usleep(20000);
	}
	return devtest_step_placement();
}

static int gate_map(void)
{
	void *p;

	if (gate)
		return 0;
	if (devtest_dev_fd < 0)
		return -EBADF;
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, devtest_dev_fd, VGPU_DEV_GATE_OFFSET);
	if (p == MAP_FAILED)
		return -errno;
	gate = p;
	return 0;
}

static uint32_t granted_of(uint32_t gpu)
{
	return __atomic_load_n(&gate->gpu[gpu].granted, __ATOMIC_ACQUIRE);
}

int devtest_step_gate(int gpu)
{
	uint32_t i;
	int err = gate_map();

	if (err)
		return err;
	printf("gate version=%u\n", gate->version);
	for (i = 0; i < VGPU_DEV_GPUS; i++) {
		if (gpu >= 0 ? (int)i != gpu : (!gate->gpu[i].granted && !gate->gpu[i].seq))
			continue;
		printf("gate gpu=%u granted=%u seq=%u\n", i, granted_of(i), gate->gpu[i].seq);
	}
	return 0;
}

int devtest_step_gate_check(void)
{
	int err = gate_map(), fd, mp, wr;
	uint32_t one = 1;

	if (err)
		return err;
	mp = mprotect((void *)gate, 4096, PROT_READ | PROT_WRITE) ? errno : 0;
	fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	wr = 0;
	if (fd >= 0) {
		if (pwrite(fd, &one, sizeof(one), (off_t)(uintptr_t)&gate->gpu[0].granted) < 0)
			wr = errno;
		close(fd);
	}
	printf("gate-check mprotect=%s proc_mem=%s\n", mp ? devtest_errname(mp) : "allowed",
	       wr ? devtest_errname(wr) : "written");
	return mp && wr ? 0 : -EINVAL;
}

static int do_wait(uint32_t gpu, uint64_t drain_ns, uint64_t *waited_ns)
{
	struct vgpu_dev_wait w = { .gpu = gpu, .drain_ns = drain_ns };

	if (devtest_dev_fd < 0)
		return -EBADF;
	if (ioctl(devtest_dev_fd, VGPU_IOC_WAIT, &w))
		return -errno;
	*waited_ns = w.waited_ns;
	return 0;
}

int devtest_step_wait(uint32_t gpu, uint64_t drain_ns)
{
	uint64_t waited = 0;
	int err = gate_map();

	if (!err)
		err = do_wait(gpu, drain_ns, &waited);
	if (err)
		return err;
	printf("wait gpu=%u waited_us=%" PRIu64 " granted=%u seq=%u\n", gpu, waited / 1000,
	       gpu < VGPU_DEV_GPUS ? granted_of(gpu) : 0,
	       gpu < VGPU_DEV_GPUS ? gate->gpu[gpu].seq : 0);
	return 0;
}

/* Neither page can be made inherited by a fork: madvise(MADV_DOFORK) fails. */
int devtest_step_dofork_check(void)
{
	int err = gate_map(), pg, gt;

	if (err)
		return err;
	if (!devtest_page)
		return -EBADF;
	pg = madvise(devtest_page, 4096, MADV_DOFORK) ? errno : 0;
	gt = madvise((void *)gate, 4096, MADV_DOFORK) ? errno : 0;
	printf("dofork-check page=%s gate=%s\n", pg ? devtest_errname(pg) : "allowed",
	       gt ? devtest_errname(gt) : "allowed");
	return pg && gt ? 0 : -EINVAL;
}

struct waiter {
	uint32_t gpu;
	double deadline;
	int err;
	_Atomic int done;
};

static void waiter_wake(int sig)
{
	(void)sig;
}

/* One thread's wait for a grant; a signal before the deadline: again. */
static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	uint64_t waited;

	do {
		w->err = do_wait(w->gpu, 0, &waited);
	} while (w->err == -EINTR && devtest_now_us() < w->deadline);
	w->done = 1;
	return NULL;
}

static unsigned long waiters_done(struct waiter *w, unsigned long n)
{
	unsigned long i, done = 0;

	for (i = 0; i < n; i++)
		done += w[i].done;
	return done;
}

int devtest_step_waiters(uint32_t gpu, unsigned long n, uint64_t secs)
{
	struct sigaction sa = { .sa_handler = waiter_wake };	/* no SA_RESTART */
	unsigned long i, started = 0, granted = 0, gone = 0, other;
	double t0 = devtest_now_us(), deadline = t0 + secs * 1e6;
	struct waiter *w = calloc(n, sizeof(*w));
	pthread_t *tid = calloc(n, sizeof(*tid));
	int err = gate_map();

	if (!err && (!w || !tid))
		err = -ENOMEM;
	if (!err && sigaction(SIGUSR1, &sa, NULL))
		err = -errno;
	for (i = 0; !err && i < n; i++) {
		w[i].gpu = gpu;
		w[i].deadline = deadline;
		err = -pthread_create(&tid[i], NULL, waiter_main, &w[i]);
		if (!err)
			started++;
	}
	printf("waiters started=%lu\n", started);
	fflush(stdout);
	while (waiters_done(w, started) < started && devtest_now_us() < deadline)
		usleep(10000);
	for (i = 0; i < started; i++) {
		while (!w[i].done) {	/* still asleep at the deadline */
			pthread_kill(tid[i], SIGUSR1);
			usleep(10000);
		}
		pthread_join(tid[i], NULL);
		granted += !w[i].err;
		gone += w[i].err == -ENODEV;
	}
	other = started - granted - gone;
	printf("waiters gpu=%u n=%lu granted=%lu enodev=%lu other=%lu ms=%.0f\n", gpu, n,
	       granted, gone, other, (devtest_now_us() - t0) / 1000);
	free(w);
	free(tid);
	return err ? err : other ? -ETIMEDOUT : 0;
}

/* libvgpu's gate (libvgpu/logic/gate.c) with a launch that sleeps GAP_US. */
int devtest_step_run(uint32_t gpu, uint64_t ms, uint64_t gap_us)
{
	uint64_t launches = 0, waits = 0, waited = 0, w;
	double end = devtest_now_us() + ms * 1000.0, t0 = devtest_now_us();
	struct timespec gap = { (time_t)(gap_us / 1000000), (long)(gap_us % 1000000) * 1000 };
	int err = gate_map();

	if (err)
		return err;
	if (!devtest_page || check_gpu(gpu))
		return -EINVAL;
	while (devtest_now_us() < end) {
		if (!granted_of(gpu)) {
			err = do_wait(gpu, 0, &w);
			if (err == -EINTR)
				continue;
			if (err)
				return err;
			waits++;
			waited += w;
		}
		__atomic_fetch_add(&devtest_page->gpu[gpu].launches, 1, __ATOMIC_RELAXED);
		launches++;
		nanosleep(&gap, NULL);
	}
	printf("run gpu=%u ms=%.0f launches=%" PRIu64 " waits=%" PRIu64 " waited_ms=%" PRIu64
	       "\n", gpu, (devtest_now_us() - t0) / 1000, launches, waits, waited / 1000000);
	return 0;
}

int devtest_step_fork_hold(long secs)
{
	struct vgpu_dev_charge c;
	pid_t pid;
	int err;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid)
		return 0;
	err = do_charge(0, 4096, &c);
	printf("child charge errno=%s\n", err ? devtest_errname(-err) : "0");
	fflush(stdout);
	sleep(secs);
	_exit(0);
}
