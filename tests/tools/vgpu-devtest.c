// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-devtest: drive /dev/vgpu and the process netlink commands of
 * vgpu.ko the way libvgpu does, one scripted step at a time, for the
 * kernel tests.
 *
 *   vgpu-devtest STEP...
 *
 * Steps run in order. A step that fails prints "STEP errno=NAME msg=TEXT"
 * (msg is the kernel's extended ack, or empty) and ends the program with
 * status 1, unless written "try STEP", which goes on. Sizes take the
 * binary suffixes K, M, G, T. Every line printed is "WORD key=value ...".
 *
 *   open                 open /dev/vgpu (O_CLOEXEC) and map its page
 *   open-many N          open N more files, kept open until exit (without
 *                        mapping): "open-many n=N opened=K errno=E"
 *   register             (open if needed,) open a netlink socket
 *                        (SOCK_CLOEXEC) and send proc-register with the fd
 *   register-fd FD       send proc-register naming FD (error tests)
 *   charge GPU BYTES     VGPU_IOC_CHARGE
 *   release GPU BYTES    VGPU_IOC_RELEASE
 *   meminfo GPU          VGPU_IOC_MEMINFO
 *   alloc GPU BYTES      libvgpu's fast path (libvgpu/charge.c, linked in):
 *                        take BYTES from avail with a compare-and-swap,
 *                        CHARGE when short, add to used
 *   free GPU BYTES       libvgpu's uncharge: used -= BYTES, avail += BYTES;
 *                        over twice the last keep, release down to keep
 *   page [GPU]           print the page (all non-empty slots, or one)
 *   poke GPU avail|used|bound|synced VALUE
 *                        write a raw value into the page
 *   procs                proc-get dump
 *   host                 host-get
 *   host-set allow|deny  host-set
 *   usage                tenant-get dump: "tenant name=T", then one line per
 *                        usage nest
 *   usage-of TENANT      the same for one tenant
 *   new-socket           open another netlink socket, leaving the old open
 *   new-dev              open and map another /dev/vgpu, leaving the old open
 *   mmap-check           try the mappings the module must refuse (private,
 *                        two pages, offset 8192, executable, a writable gate)
 *   gate [GPU]           map the gate page (read-only, offset 4096) if not
 *                        yet, print it: "gate version=V", then one line
 *                        per GPU with a grant or a seq (or GPU's)
 *   gate-check           the gate cannot be written: mprotect(PROT_WRITE)
 *                        and a write through /proc/self/mem are refused
 *   wait GPU [DRAIN_NS]  VGPU_IOC_WAIT: "wait gpu=G waited_us=U granted=X"
 *   alarm MS             deliver SIGALRM (no SA_RESTART) in MS ms
 *   run GPU MS [GAP_US]  for MS ms, launch like libvgpu's gate: when the
 *                        gate is open count a launch in the page and sleep
 *                        GAP_US (default 500), else WAIT; prints launches,
 *                        waits and the time spent waiting
 *   close-socket         close the netlink socket
 *   close-dev            unmap and close /dev/vgpu
 *   hold [SECONDS]       start two threads (unless "threads" did) that sleep
 *                        too, print "holding pid=P" and sleep (default:
 *                        forever)
 *   threads N            start N threads that sleep forever
 *   placement            VGPU_IOC_PLACEMENT: "placement seq=S flags=F mems=L"
 *                        (L a node list, or -)
 *   wait-placement SECONDS  wait until the page's placement_seq moves, then
 *                        do "placement" (ETIMEDOUT when it does not)
 *   dofork-check         madvise(MADV_DOFORK) on the page and the gate must
 *                        fail: "dofork-check page=E gate=E"
 *   waiters GPU N SECS   start N threads that each wait for a grant on GPU
 *                        (again after EINTR, until SECS s have passed):
 *                        "waiters started=N", then, when all have returned
 *                        or at the deadline, "waiters gpu=G n=N granted=K
 *                        enodev=J other=L ms=T" (L: still waiting, or
 *                        another error; the step fails when L > 0)
 *   rt                   run at SCHED_FIFO priority 50 from now on
 *   gpu-readd INDEX VRAM gpu-del then gpu-add of the GPU, back to back
 *   fork-hold SECONDS    fork a child that keeps every fd, tries a CHARGE
 *                        (prints "child charge errno=..."), then sleeps
 *   bench-register N     N rounds of open, mmap, register, close; prints
 *                        the latency of proc-register
 *   parallel N           N processes register at once and hold until all
 *                        have; prints latencies and the procs counts
 *   exec PROG [ARG...]   exec PROG with the rest of the arguments
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "devtest.h"

static unsigned int nthreads;

/* ---- small helpers ---- */

const char *devtest_errname(int e)
{
	switch (e) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case ENOTTY: return "ENOTTY";
	case EAGAIN: return "EAGAIN";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINTR: return "EINTR";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EIO: return "EIO";
	case EMFILE: return "EMFILE";
	default: {
		static char buf[16];

		snprintf(buf, sizeof(buf), "E%d", e);
		return buf;
	}
	}
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long n;
	int shift = 0;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	case 'T': case 't': shift = 40; end++; break;
	}
	if (*end || (shift && n > (UINT64_MAX >> shift)))
		return -1;
	*v = (uint64_t)n << shift;
	return 0;
}

double devtest_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ---- process steps: signals, threads, holding, benchmarks ---- */

static void on_alarm(int sig)
{
	(void)sig;
}

static int step_alarm(uint64_t ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000 } };

	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		return -errno;
	return 0;
}

/* Real-time FIFO scheduling: threads of lower classes on its CPU wait. */
static int step_rt(void)
{
	struct sched_param sp = { .sched_priority = 50 };

	return sched_setscheduler(0, SCHED_FIFO, &sp) ? -errno : 0;
}

static void *thread_sleep(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int step_threads(unsigned long n)
{
	pthread_t t;
	int err;

	for (; n; n--) {
		err = pthread_create(&t, NULL, thread_sleep, NULL);
		if (err)
			return -err;
		pthread_detach(t);
		nthreads++;
	}
	return 0;
}

static int step_hold(long secs)
{
	int err;

	if (!nthreads) {
		err = step_threads(2);
		if (err)
			return err;
	}
	printf("holding pid=%d\n", getpid());
	fflush(stdout);
	if (secs < 0)
		for (;;)
			pause();
	sleep(secs);
	return 0;
}

static int step_bench(long n)
{
	double t, sum = 0, max = 0;
	long i;
	int err;

	for (i = 0; i < n; i++) {
		err = devtest_step_open();
		if (err)
			return err;
		err = devtest_nl_family();
		if (err)
			return err;
		t = devtest_now_us();
		err = devtest_step_register_fd(devtest_dev_fd, true);
		t = devtest_now_us() - t;
		if (err)
			return err;
		sum += t;
		if (t > max)
			max = t;
		devtest_step_close_socket();
		devtest_step_close_dev();
	}
	printf("bench-register n=%ld avg_us=%.1f max_us=%.1f\n", n, n ? sum / n : 0, max);
	return 0;
}

static int step_parallel(long n)
{
	int res[2], go[2];
	struct vgpu_host_info before = { 0 }, during = { 0 }, after = { 0 };
	double sum = 0, max = 0, t;
	long i, ok = 0;
	int err;

	err = devtest_host_get(&before);
	if (err)
		return err;
	if (pipe(res) || pipe(go))
		return -errno;
	fflush(stdout);
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return -errno;
		if (!pid) {
			char c;

			close(res[0]);
			close(go[1]);
			devtest_step_close_socket();
			devtest_dev_forget();
			err = devtest_step_open();
			if (!err)
				err = devtest_nl_family();
			t = devtest_now_us();
			if (!err)
				err = devtest_step_register_fd(devtest_dev_fd, true);
			t = devtest_now_us() - t;
			if (err)
				t = -1;
			if (write(res[1], &t, sizeof(t)) != sizeof(t))
				_exit(1);
			while (read(go[0], &c, 1) > 0)
				;
			_exit(0);
		}
	}
	close(res[1]);
	close(go[0]);
	for (i = 0; i < n && read(res[0], &t, sizeof(t)) == sizeof(t); i++) {
		if (t < 0)
			continue;
		ok++;
		sum += t;
		if (t > max)
			max = t;
	}
	devtest_host_get(&during);
	close(go[1]);
	close(res[0]);
	while (wait(NULL) > 0)
		;
	devtest_host_get(&after);
	printf("parallel n=%ld ok=%ld avg_us=%.1f max_us=%.1f procs_before=%u procs_during=%u"
	       " procs_after=%u\n", n, ok, ok ? sum / ok : 0, max, before.procs, during.procs,
	       after.procs);
	return ok == n ? 0 : -EAGAIN;
}

/* ---- main ---- */

static int usage(void)
{
	fputs("usage: vgpu-devtest STEP...  (see the source's header for the steps)\n", stderr);
	return 2;
}

#define NEED(k) do { if (i + (k) >= argc) return usage(); } while (0)

int main(int argc, char **argv)
{
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	for (i = 1; i < argc; i++) {
		bool try = false;
		const char *step;
		uint64_t a = 0, b = 0;
		int err;

		if (!strcmp(argv[i], "try")) {
			try = true;
			NEED(1);
			i++;
		}
		step = argv[i];
		if (!strcmp(step, "open")) {
			err = devtest_step_open();
		} else if (!strcmp(step, "register")) {
			err = devtest_step_register(false);
		} else if (!strcmp(step, "register-fd")) {
			NEED(1);
			err = parse_u64(argv[++i], &a) ? -EINVAL : devtest_step_register_fd((int)a, false);
		} else if (!strcmp(step, "charge") || !strcmp(step, "release") ||
			   !strcmp(step, "alloc") || !strcmp(step, "free")) {
			NEED(2);
			if (parse_u64(argv[i + 1], &a) || parse_u64(argv[i + 2], &b))
				return usage();
			i += 2;
			if (!strcmp(step, "charge"))
				err = devtest_step_charge((uint32_t)a, b);
			else if (!strcmp(step, "release"))
				err = devtest_step_release((uint32_t)a, b);
			else if (!strcmp(step, "alloc"))
				err = devtest_step_alloc((uint32_t)a, b);
			else
				err = devtest_step_free((uint32_t)a, b);
		} else if (!strcmp(step, "meminfo")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			err = devtest_step_meminfo((uint32_t)a);
		} else if (!strcmp(step, "page")) {
			int gpu = -1;

			if (i + 1 < argc && !parse_u64(argv[i + 1], &a)) {
				gpu = (int)a;
				i++;
			}
			err = devtest_step_page(gpu);
		} else if (!strcmp(step, "poke")) {
			NEED(3);
			if (parse_u64(argv[i + 1], &a) || parse_u64(argv[i + 3], &b) ||
			    devtest_step_poke(a, argv[i + 2], b))
				return usage();
			i += 3;
			err = 0;
		} else if (!strcmp(step, "procs")) {
			err = devtest_step_procs();
		} else if (!strcmp(step, "host")) {
			err = devtest_step_host();
		} else if (!strcmp(step, "host-set")) {
			NEED(1);
			err = devtest_step_host_set(argv[++i]);
		} else if (!strcmp(step, "usage")) {
			err = devtest_step_usage(NULL);
		} else if (!strcmp(step, "usage-of")) {
			NEED(1);
			i++;
			err = devtest_step_usage(argv[i]);
		} else if (!strcmp(step, "new-socket")) {
			devtest_nl_forget();
			err = devtest_nl_family();
		} else if (!strcmp(step, "new-dev")) {
			devtest_dev_forget();
			err = devtest_step_open();
		} else if (!strcmp(step, "gate")) {
			int gpu = -1;

			if (i + 1 < argc && !parse_u64(argv[i + 1], &a)) {
				gpu = (int)a;
				i++;
			}
			err = devtest_step_gate(gpu);
		} else if (!strcmp(step, "open-many")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			err = devtest_step_open_many((unsigned long)a);
		} else if (!strcmp(step, "rt")) {
			err = step_rt();
		} else if (!strcmp(step, "dofork-check")) {
			err = devtest_step_dofork_check();
		} else if (!strcmp(step, "gate-check")) {
			err = devtest_step_gate_check();
		} else if (!strcmp(step, "wait")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			if (i + 1 < argc && !parse_u64(argv[i + 1], &b))
				i++;
			else
				b = 0;
			err = devtest_step_wait((uint32_t)a, b);
		} else if (!strcmp(step, "alarm")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			err = step_alarm(a);
		} else if (!strcmp(step, "run")) {
			NEED(2);
			if (parse_u64(argv[i + 1], &a) || parse_u64(argv[i + 2], &b))
				return usage();
			i += 2;
			{
				uint64_t gap = 500;

				if (i + 1 < argc && !parse_u64(argv[i + 1], &gap))
					i++;
				err = devtest_step_run((uint32_t)a, b, gap);
			}
		} else if (!strcmp(step, "mmap-check")) {
			err = devtest_step_mmap_check();
		} else if (!strcmp(step, "close-socket")) {
			err = devtest_step_close_socket();
		} else if (!strcmp(step, "close-dev")) {
			err = devtest_step_close_dev();
		} else if (!strcmp(step, "hold")) {
			long secs = -1;

			if (i + 1 < argc && !parse_u64(argv[i + 1], &a)) {
				secs = (long)a;
				i++;
			}
			err = step_hold(secs);
		} else if (!strcmp(step, "threads") || !strcmp(step, "wait-placement")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			if (!strcmp(step, "threads"))
				err = step_threads((unsigned long)a);
			else
				err = devtest_step_wait_placement((long)a);
		} else if (!strcmp(step, "placement")) {
			err = devtest_step_placement();
		} else if (!strcmp(step, "waiters") || !strcmp(step, "gpu-readd")) {
			uint64_t c = 0;

			NEED(2);
			if (parse_u64(argv[i + 1], &a) || parse_u64(argv[i + 2], &b))
				return usage();
			i += 2;
			if (!strcmp(step, "gpu-readd")) {
				err = devtest_step_gpu_readd((uint32_t)a, b);
			} else {
				NEED(1);
				if (parse_u64(argv[++i], &c))
					return usage();
				err = devtest_step_waiters((uint32_t)a, (unsigned long)b, c);
			}
		} else if (!strcmp(step, "fork-hold")) {
			NEED(1);
			if (parse_u64(argv[++i], &a))
				return usage();
			err = devtest_step_fork_hold((long)a);
		} else if (!strcmp(step, "bench-register") || !strcmp(step, "parallel")) {
			NEED(1);
			if (parse_u64(argv[i + 1], &a))
				return usage();
			i++;
			err = !strcmp(step, "parallel") ? step_parallel((long)a) : step_bench((long)a);
		} else if (!strcmp(step, "exec")) {
			NEED(1);
			fflush(stdout);
			execvp(argv[i + 1], argv + i + 1);
			err = -errno;
		} else {
			fprintf(stderr, "Error: unknown step \"%s\".\n", step);
			return usage();
		}
		if (err) {
			printf("%s errno=%s msg=%s\n", step, devtest_errname(-err), devtest_errmsg);
			devtest_errmsg[0] = 0;
			if (!try)
				return 1;
		}
	}
	return 0;
}
