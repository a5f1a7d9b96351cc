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
 *   gpus-auto N          the following registers ask the module to choose
 *                        N GPUs (gpus-auto; 0: none); they print the
 *                        chosen mask as gpus=0x..., as procs does
 *   charge GPU BYTES     VGPU_IOC_CHARGE
 *   release GPU BYTES    VGPU_IOC_RELEASE
 *   meminfo GPU          VGPU_IOC_MEMINFO
 *   alloc GPU BYTES      libvgpu's fast path (libvgpu/logic/charge.c, linked in):
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
 *   bench-charge GPU BYTES N  N rounds of CHARGE BYTES then RELEASE of the
 *                        whole budget; prints p50, p99 and max in ns
 *   hammer GPU BYTES REGS ROUNDS  open REGS registrations, then ROUNDS
 *                        times CHARGE BYTES on each in turn (BYTES 0:
 *                        RELEASE 0, an O(1) call; ROUNDS 0: until
 *                        SIGTERM); prints the calls and refusals
 *   hammer-read GPU WHAT REGS ROUNDS  likewise, each call a read: WHAT
 *                        meminfo (VGPU_IOC_MEMINFO), tenant-get or
 *                        proc-get (a dump)
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
	case ERANGE: return "ERANGE";
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

/* ---- main ---- */

static int usage(void)
{
	fputs("usage: vgpu-devtest STEP...  (see the source's header for the steps)\n", stderr);
	return 2;
}

/*
 * A step's arguments: the handler takes them from argv after the step's
 * name, advancing i; a missing or malformed required one sets bad, and
 * the program prints its usage.
 */
struct args {
	int argc;
	char **argv;
	int i;
	bool bad;
};

/* The next argument, required; NULL (bad) when there is none. */
static const char *arg_str(struct args *a)
{
	if (a->i + 1 >= a->argc) {
		a->bad = true;
		return NULL;
	}
	return a->argv[++a->i];
}

/* The next argument as a number, required. */
static uint64_t arg_u64(struct args *a)
{
	const char *s = arg_str(a);
	uint64_t v = 0;

	if (s && parse_u64(s, &v))
		a->bad = true;
	return v;
}

/* The next argument if it is a number, else def (nothing taken). */
static uint64_t arg_opt(struct args *a, uint64_t def)
{
	uint64_t v;

	if (a->i + 1 < a->argc && !parse_u64(a->argv[a->i + 1], &v)) {
		a->i++;
		return v;
	}
	return def;
}

static int s_open(struct args *a) { (void)a; return devtest_step_open(); }
static int s_register(struct args *a) { (void)a; return devtest_step_register(false); }
static int s_procs(struct args *a) { (void)a; return devtest_step_procs(); }
static int s_host(struct args *a) { (void)a; return devtest_step_host(); }
static int s_usage(struct args *a) { (void)a; return devtest_step_usage(NULL); }
static int s_rt(struct args *a) { (void)a; return step_rt(); }
static int s_dofork_check(struct args *a) { (void)a; return devtest_step_dofork_check(); }
static int s_gate_check(struct args *a) { (void)a; return devtest_step_gate_check(); }
static int s_mmap_check(struct args *a) { (void)a; return devtest_step_mmap_check(); }
static int s_close_socket(struct args *a) { (void)a; return devtest_step_close_socket(); }
static int s_close_dev(struct args *a) { (void)a; return devtest_step_close_dev(); }
static int s_placement(struct args *a) { (void)a; return devtest_step_placement(); }

/* A malformed FD is the error under test, not a usage error. */
static int s_register_fd(struct args *a)
{
	const char *s = arg_str(a);
	uint64_t fd;

	if (!s)
		return 0;
	return parse_u64(s, &fd) ? -EINVAL : devtest_step_register_fd((int)fd, false);
}

/* N is sent as is (the module checks its range). */
static int s_gpus_auto(struct args *a)
{
	const char *s = arg_str(a);
	uint64_t n;

	if (!s)
		return 0;
	if (parse_u64(s, &n) || n > UINT32_MAX)
		return -EINVAL;
	devtest_set_gpus_auto((uint32_t)n);
	return 0;
}

/* Steps that take GPU and a number (bytes, vram). */
static int gpu_and_u64(struct args *a, int (*step)(uint32_t gpu, uint64_t n))
{
	uint64_t g = arg_u64(a), n = arg_u64(a);

	return a->bad ? 0 : step((uint32_t)g, n);
}

static int s_charge(struct args *a) { return gpu_and_u64(a, devtest_step_charge); }

static int s_release(struct args *a) { return gpu_and_u64(a, devtest_step_release); }

static int s_alloc(struct args *a) { return gpu_and_u64(a, devtest_step_alloc); }

static int s_free(struct args *a) { return gpu_and_u64(a, devtest_step_free); }

static int s_meminfo(struct args *a)
{
	uint64_t g = arg_u64(a);

	return a->bad ? 0 : devtest_step_meminfo((uint32_t)g);
}

static int s_page(struct args *a) { return devtest_step_page((int)arg_opt(a, (uint64_t)-1)); }
static int s_gate(struct args *a) { return devtest_step_gate((int)arg_opt(a, (uint64_t)-1)); }

static int s_poke(struct args *a)
{
	uint64_t g = arg_u64(a);
	const char *field = arg_str(a);
	uint64_t v = arg_u64(a);

	if (!a->bad && devtest_step_poke(g, field, v))
		a->bad = true;
	return 0;
}

static int s_host_set(struct args *a)
{
	const char *policy = arg_str(a);

	return a->bad ? 0 : devtest_step_host_set(policy);
}

static int s_usage_of(struct args *a)
{
	const char *tenant = arg_str(a);

	return a->bad ? 0 : devtest_step_usage(tenant);
}

static int s_new_socket(struct args *a)
{
	(void)a;
	devtest_nl_forget();
	return devtest_nl_family();
}

static int s_new_dev(struct args *a)
{
	(void)a;
	devtest_dev_forget();
	return devtest_step_open();
}

static int s_open_many(struct args *a)
{
	uint64_t n = arg_u64(a);

	return a->bad ? 0 : devtest_step_open_many((unsigned long)n);
}

static int s_wait(struct args *a)
{
	uint64_t g = arg_u64(a);

	return a->bad ? 0 : devtest_step_wait((uint32_t)g, arg_opt(a, 0));
}

static int s_alarm(struct args *a)
{
	uint64_t ms = arg_u64(a);

	return a->bad ? 0 : step_alarm(ms);
}

static int s_run(struct args *a)
{
	uint64_t g = arg_u64(a), ms = arg_u64(a);

	return a->bad ? 0 : devtest_step_run((uint32_t)g, ms, arg_opt(a, 500));
}

static int s_hold(struct args *a) { return step_hold((long)arg_opt(a, (uint64_t)-1)); }

static int s_threads(struct args *a)
{
	uint64_t n = arg_u64(a);

	return a->bad ? 0 : step_threads((unsigned long)n);
}

static int s_wait_placement(struct args *a)
{
	uint64_t secs = arg_u64(a);

	return a->bad ? 0 : devtest_step_wait_placement((long)secs);
}

static int s_waiters(struct args *a)
{
	uint64_t g = arg_u64(a), n = arg_u64(a), secs = arg_u64(a);

	return a->bad ? 0 : devtest_step_waiters((uint32_t)g, (unsigned long)n, secs);
}

static int s_gpu_readd(struct args *a) { return gpu_and_u64(a, devtest_step_gpu_readd); }

static int s_fork_hold(struct args *a)
{
	uint64_t secs = arg_u64(a);

	return a->bad ? 0 : devtest_step_fork_hold((long)secs);
}

static int s_bench_register(struct args *a)
{
	uint64_t n = arg_u64(a);

	return a->bad ? 0 : devtest_step_bench_register((long)n);
}

static int s_bench_charge(struct args *a)
{
	uint64_t g = arg_u64(a), bytes = arg_u64(a), n = arg_u64(a);

	return a->bad ? 0 : devtest_step_bench_charge((uint32_t)g, bytes, (long)n);
}

static int s_hammer(struct args *a)
{
	uint64_t g = arg_u64(a), bytes = arg_u64(a), regs = arg_u64(a), rounds = arg_u64(a);

	return a->bad ? 0 : devtest_step_hammer((uint32_t)g, bytes, (long)regs, (long)rounds);
}

static int s_hammer_read(struct args *a)
{
	uint64_t g = arg_u64(a);
	const char *what = arg_str(a);
	uint64_t regs = arg_u64(a), rounds = arg_u64(a);

	return a->bad ? 0 : devtest_step_hammer_read((uint32_t)g, what, (long)regs,
						     (long)rounds);
}

static int s_parallel(struct args *a)
{
	uint64_t n = arg_u64(a);

	return a->bad ? 0 : devtest_step_parallel((long)n);
}

/* The rest of the line is the command; nothing follows it. */
static int s_exec(struct args *a)
{
	if (a->i + 1 >= a->argc) {
		a->bad = true;
		return 0;
	}
	fflush(stdout);
	execvp(a->argv[a->i + 1], a->argv + a->i + 1);
	a->i = a->argc - 1;
	return -errno;
}

static const struct step {
	const char *name;
	int (*run)(struct args *a);
} steps[] = {
	{ "open", s_open }, { "open-many", s_open_many },
	{ "register", s_register }, { "register-fd", s_register_fd },
	{ "gpus-auto", s_gpus_auto },
	{ "charge", s_charge }, { "release", s_release }, { "meminfo", s_meminfo },
	{ "alloc", s_alloc }, { "free", s_free },
	{ "page", s_page }, { "poke", s_poke },
	{ "procs", s_procs }, { "host", s_host }, { "host-set", s_host_set },
	{ "usage", s_usage }, { "usage-of", s_usage_of },
	{ "new-socket", s_new_socket }, { "new-dev", s_new_dev },
	{ "mmap-check", s_mmap_check }, { "gate", s_gate }, { "gate-check", s_gate_check },
	{ "dofork-check", s_dofork_check }, { "rt", s_rt },
	{ "wait", s_wait }, { "alarm", s_alarm }, { "run", s_run },
	{ "close-socket", s_close_socket }, { "close-dev", s_close_dev },
	{ "hold", s_hold }, { "threads", s_threads },
	{ "placement", s_placement }, { "wait-placement", s_wait_placement },
	{ "waiters", s_waiters }, { "gpu-readd", s_gpu_readd }, { "fork-hold", s_fork_hold },
	{ "bench-register", s_bench_register }, { "parallel", s_parallel },
	{ "bench-charge", s_bench_charge }, { "hammer", s_hammer },
	{ "hammer-read", s_hammer_read },
	{ "exec", s_exec },
};

static const struct step *find_step(const char *name)
{
	for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++)
		if (!strcmp(steps[k].name, name))
			return &steps[k];
	return NULL;
}

int main(int argc, char **argv)
{
	struct args a = { argc, argv, 1, false };

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	for (; a.i < argc; a.i++) {
		bool try = !strcmp(argv[a.i], "try");
		const struct step *st;
		const char *name;
		int err;

		if (try && ++a.i >= argc)
			return usage();
		name = argv[a.i];
		st = find_step(name);
		if (!st) {
			fprintf(stderr, "Error: unknown step \"%s\".\n", name);
			return usage();
		}
		err = st->run(&a);
		if (a.bad)
			return usage();
		if (err) {
			printf("%s errno=%s msg=%s\n", name, devtest_errname(-err), devtest_errmsg);
			devtest_errmsg[0] = 0;
			if (!try)
				return 1;
		}
	}
	return 0;
}
