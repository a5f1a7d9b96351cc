// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-devtest: one tenant's charges beside another's (issue 33, item 3).
 * bench-charge times a tenant's CHARGE and RELEASE rounds; hammer is the
 * other tenant: many registrations charging in a loop (refused charges,
 * or an O(1) call as the control at the same load); hammer-read, the
 * same registrations reading their tenant in a loop (MEMINFO, tenant-get,
 * proc-get: each sums or lists every registration of the tenant).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "devtest.h"

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The @q-th quantile (0..1) of the sorted @v, nearest rank. */
static uint64_t quantile(const uint64_t *v, long n, double q)
{
	long i = (long)(q * (double)n + 0.999999) - 1;

	return n ? v[i < 0 ? 0 : i >= n ? n - 1 : i] : 0;
}

/**
 * devtest_step_bench_charge() - time N rounds of CHARGE then RELEASE
 * @gpu: GPU index
 * @bytes: bytes each CHARGE asks for
 * @n: rounds
 *
 * A round asks for @bytes and gives the whole budget back, as a process
 * that allocates and frees does near its limit. Prints
 * "bench-charge n=N p50_ns=.. p99_ns=.. max_ns=.. errors=..".
 * Return: 0, -ENOMEM when no memory for the samples, -EBADF without a device.
 */
int devtest_step_bench_charge(uint32_t gpu, uint64_t bytes, long n)
{
	struct vgpu_dev_charge c;
	long i, errors = 0;
	uint64_t *lat, t;

	if (devtest_dev_fd < 0)
		return -EBADF;
	lat = calloc(n > 0 ? (size_t)n : 1, sizeof(*lat));
	if (!lat)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		t = now_ns();
		c = (struct vgpu_dev_charge){ .gpu = gpu, .bytes = bytes };
		if (ioctl(devtest_dev_fd, VGPU_IOC_CHARGE, &c))
			errors++;
		c = (struct vgpu_dev_charge){ .gpu = gpu, .bytes = UINT64_MAX };
		if (ioctl(devtest_dev_fd, VGPU_IOC_RELEASE, &c))
			errors++;
		lat[i] = now_ns() - t;
	}
	qsort(lat, (size_t)n, sizeof(*lat), cmp_u64);
	printf("bench-charge n=%ld p50_ns=%llu p99_ns=%llu max_ns=%llu errors=%ld\n", n,
	       (unsigned long long)quantile(lat, n, 0.5), (unsigned long long)quantile(lat, n, 0.99),
	       (unsigned long long)(n ? lat[n - 1] : 0), errors);
	free(lat);
	return 0;
}

/* Opens @regs more registrations (a /dev/vgpu and a socket each) into @fds. */
static int hammer_register(int *fds, long regs)
{
	long i;
	int err;

	for (i = 0; i < regs; i++) {
		devtest_dev_forget();
		devtest_nl_forget();
		err = devtest_step_register(true);
		if (err)
			return err;
		fds[i] = devtest_dev_fd;
	}
	return 0;
}

/**
 * devtest_step_hammer() - many registrations charging in a loop
 * @gpu: GPU index
 * @bytes: bytes each CHARGE asks for; 0: RELEASE of 0 bytes instead, an
 *	O(1) call under the same lock (the control)
 * @regs: registrations to open (a /dev/vgpu and a socket each, kept)
 * @rounds: rounds over the registrations, one call each; 0: until SIGTERM
 *
 * Prints "hammering regs=R pid=P" once registered, then, at the end,
 * "hammer regs=R calls=C ok=K refused=E other=O ms=T".
 * Return: 0, or a registration's -errno.
 */
int devtest_step_hammer(uint32_t gpu, uint64_t bytes, long regs, long rounds)
{
	struct sigaction sa = { .sa_handler = on_stop };
	long calls = 0, ok = 0, refused = 0, other = 0, r, i;
	struct vgpu_dev_charge c;
	uint64_t t0;
	int *fds;
	int err;

	if (regs <= 0)
		return -EINVAL;
	fds = calloc((size_t)regs, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	err = hammer_register(fds, regs);
	if (err)
		goto out;
	sigaction(SIGTERM, &sa, NULL);
	printf("hammering regs=%ld pid=%d\n", regs, (int)getpid());
	fflush(stdout);
	t0 = now_ns();
	for (r = 0; !stop && (!rounds || r < rounds); r++) {
		for (i = 0; i < regs; i++) {
			c = (struct vgpu_dev_charge){ .gpu = gpu, .bytes = bytes };
			if (!ioctl(fds[i], bytes ? VGPU_IOC_CHARGE : VGPU_IOC_RELEASE, &c))
				ok++;
			else if (errno == ENOMEM)
				refused++;
			else
				other++;
			calls++;
		}
	}
	printf("hammer regs=%ld calls=%ld ok=%ld refused=%ld other=%ld ms=%llu\n", regs, calls,
	       ok, refused, other, (unsigned long long)((now_ns() - t0) / 1000000));
out:
	free(fds);
	return err;
}

/* One read of hammer-read on registration @fd: 0 or -errno. */
static int hammer_read_one(int fd, uint32_t gpu, const char *what)
{
	struct vgpu_dev_meminfo mi = { .gpu = gpu };

	if (!strcmp(what, "meminfo"))
		return ioctl(fd, VGPU_IOC_MEMINFO, &mi) ? -errno : 0;
	if (!strcmp(what, "tenant-get"))
		return devtest_dump_quiet(VGPU_CMD_TENANT_GET);
	return devtest_dump_quiet(VGPU_CMD_PROC_GET);
}

/**
 * devtest_step_hammer_read() - many registrations reading in a loop
 * @gpu: GPU index (meminfo)
 * @what: "meminfo" (VGPU_IOC_MEMINFO on each registration in turn),
 *	"tenant-get" or "proc-get" (a dump on the last registration's socket)
 * @regs: registrations to open (a /dev/vgpu and a socket each, kept)
 * @rounds: rounds over the registrations, one call each; 0: until SIGTERM
 *
 * Prints "hammering regs=R pid=P" once registered, then, at the end,
 * "hammer regs=R calls=C ok=K refused=0 other=O ms=T".
 * Return: 0, -EINVAL for an unknown @what, or a registration's -errno.
 */
int devtest_step_hammer_read(uint32_t gpu, const char *what, long regs, long rounds)
{
	struct sigaction sa = { .sa_handler = on_stop };
	long calls = 0, ok = 0, other = 0, r, i;
	uint64_t t0;
	int *fds;
	int err;

	if (regs <= 0 || (strcmp(what, "meminfo") && strcmp(what, "tenant-get") &&
			  strcmp(what, "proc-get")))
		return -EINVAL;
	fds = calloc((size_t)regs, sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	err = hammer_register(fds, regs);
	if (err)
		goto out;
	sigaction(SIGTERM, &sa, NULL);
	printf("hammering regs=%ld pid=%d\n", regs, (int)getpid());
	fflush(stdout);
	t0 = now_ns();
	for (r = 0; !stop && (!rounds || r < rounds); r++) {
		for (i = 0; i < regs && !stop; i++) {
			if (hammer_read_one(fds[i], gpu, what))
				other++;
			else
				ok++;
			calls++;
		}
	}
	printf("hammer regs=%ld calls=%ld ok=%ld refused=0 other=%ld ms=%llu\n", regs, calls,
	       ok, other, (unsigned long long)((now_ns() - t0) / 1000000));
out:
	free(fds);
	return err;
}
