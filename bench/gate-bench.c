// SPDX-License-Identifier: GPL-2.0
/*
 * gate-bench: the cost of libvgpu's compute launch gate on the fast path
 * (the tenant holds the GPU), natively, without a GPU or the module.
 *
 * It links libvgpu's gate code (libvgpu/logic/gate.c, gate.h: the very
 * vgpu_gate_pass() and libvgpu_gate_slow() the library inlines and calls)
 * against a gate page and a process page in plain memory, granted = 1,
 * and a stub "driver" with cuLaunchKernel's eleven arguments. Two ways
 * in, both through a function pointer as a program calls the driver:
 *
 *   bare    the stub itself (the program without libvgpu)
 *   gated   a wrapper built as libvgpu/cuda/launch.c builds its wrappers: the
 *           real function from a slot, the nesting test (nest.h), the
 *           lazy-load test of the function (lazyload.h: one load), the
 *           inlined gate fast path, a tail call to the real function (the
 *           slow twin only when closed)
 *
 * The queue bound runs with libvgpu's defaults (qevents.h: M = 4 at
 * first, K = 4, adapting to 40 ms of queued work, a thread's marks
 * deferred while its last recorded one is younger than 1 ms; queue.h),
 * the very libvgpu_queue_mark(), with stub event calls that cost nothing
 * and model kernels of 5 us ("short"): the time between two events is
 * the launches between them times that. "gated" is every launch, the
 * library's own share of the marks amortised over the batch (the
 * driver's share is counted below, not timed); "gated-nomark" the same
 * with marks off (VGPU_QUEUE_MARK=0): the launches between marks;
 * "gated-count" the policy before deferred marks (a mark recorded every
 * M-th launch); "gated-tls" is "gated" with the GPU taken from the
 * thread's cache of its last stream's GPU (a process that has used more
 * than one GPU; one stream: the cache holds one). Calls are
 * timed in batches (clock_gettime around 1000 calls), bare and gated
 * batches alternating; the table gives the median and 99th percentile
 * of ns per call over the batches, and "added" the same of the paired
 * differences. Launches go round robin on 2 streams.
 *
 * Then the driver calls the gate adds (event create, record,
 * synchronize, elapsed time, destroy) per 1000 launches, for 5 us and
 * 1 ms kernels, with both policies: the launching thread at the GPU's
 * pace (the bound's waits hold it there), so the queue's clock is a
 * virtual one advancing by the kernel's length per launch.
 *
 *   gate-bench [CALLS]        default 10000000 per path
 *
 * It checks itself (exit 1, the reason on stderr): every launch counted
 * once on its GPU, and deferred marks at most as many driver calls as
 * counted ones. tests/host/benches.sh runs it short (100000 calls).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../libvgpu/logic/gate.h"
#include "../libvgpu/access/nest.h"
#include "../libvgpu/cuda/lazyload.h"
#include "../libvgpu/state/qevents.h"

#define BATCH 1000

typedef int (*launch_fn)(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
			 unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem,
			 void *stream, void **params, void **extra);

static __attribute__((noinline)) int stub(void *f, unsigned int gx, unsigned int gy,
					  unsigned int gz, unsigned int bx, unsigned int by,
					  unsigned int bz, unsigned int shmem, void *stream,
					  void **params, void **extra)
{
	__asm__ volatile("" : : "r"(f), "r"(gx), "r"(gy), "r"(gz), "r"(bx), "r"(by), "r"(bz),
			 "r"(shmem), "r"(stream), "r"(params), "r"(extra) : "memory");
	return 0;
}

static launch_fn real_slot = stub;	/* as libvgpu's libvgpu_real[] */

__thread unsigned int libvgpu_nest __attribute__((tls_model("initial-exec")));
static struct vgpu_dev_page page;
static struct vgpu_dev_gate gpage;

static int no_gpu(void *ctx, void *stream)
{
	(void)ctx;
	(void)stream;
	return -1;
}

static void no_drain(void *ctx, int gpu)
{
	(void)ctx;
	(void)gpu;
}

static int no_wait(void *ctx, struct vgpu_dev_wait *w)
{
	(void)ctx;
	(void)w;
	return 0;
}

static void no_fail(void *ctx, int gpu, int err)
{
	(void)ctx;
	(void)gpu;
	(void)err;
}

static const struct vgpu_gate_ops ops = { no_gpu, no_drain, no_wait, no_fail };
static struct vgpu_gate gt = {
	.gate = &gpage, .page = &page, .one_gpu = 0, .gen = 1,
	.mark_mask = VGPU_MARK_DEFAULT - 1, .ops = &ops,
};

/* Stub event calls: a count, and the launches made when an event was
 * recorded (by event number), for the elapsed times of kernel_ns
 * kernels. */
#define EVS 4096
static unsigned long ev_calls;
static int ev_n;
static uint64_t ev_at[EVS];
static uint64_t kernel_ns = 5000;
static uint64_t vclock;			/* the virtual clock of the rate runs */

static uint64_t launched(void)
{
	return page.gpu[0].launches + page.gpu[1].launches;
}

static void *ev_ctx(void *arg)
{
	(void)arg;
	return (void *)&ev_ctx;
}

static int ev_create(void *arg, void **ev)
{
	(void)arg;
	*ev = (void *)(uintptr_t)++ev_n;
	ev_calls++;
	return 0;
}

static int ev_record(void *arg, void *ev, void *stream)
{
	(void)arg;
	(void)stream;
	ev_at[(uintptr_t)ev % EVS] = launched();
	ev_calls++;
	return 0;
}

static int ev_sync(void *arg, void *ev)
{
	(void)arg;
	(void)ev;
	ev_calls++;
	return 0;
}

static int ev_elapsed(void *arg, float *ms, void *a, void *b)
{
	(void)arg;
	*ms = (float)((double)(ev_at[(uintptr_t)b % EVS] - ev_at[(uintptr_t)a % EVS]) *
		      (double)kernel_ns / 1e6);
	ev_calls++;
	return 0;
}

static void ev_destroy(void *arg, void *ev)
{
	(void)arg;
	(void)ev;
	ev_calls++;
}

/* The mark's capture-mode exchange (qevents.c): two driver calls. */
static unsigned int ev_relax(void *arg)
{
	(void)arg;
	ev_calls++;
	return 1;
}

static void ev_unrelax(void *arg, unsigned int token)
{
	(void)arg;
	(void)token;
	ev_calls++;
}

static void ev_failed(void *arg, int gpu, int err)
{
	(void)arg;
	(void)gpu;
	(void)err;
}

static uint64_t virtual_now(void *arg)
{
	(void)arg;
	return vclock;
}

static struct vgpu_queue_ops qops = {
	ev_ctx, ev_create, ev_record, ev_sync, ev_elapsed, ev_destroy, ev_failed, NULL, NULL,
	ev_relax, ev_unrelax,
};
/* libvgpu's defaults (qevents.c) */
static struct vgpu_queue queue = {
	.ops = &qops, .mark = VGPU_MARK_DEFAULT, .depth = VGPU_DEPTH_DEFAULT,
	.target_ns = VGPU_TARGET_US_DEFAULT * 1000ULL,
	.defer_ns = VGPU_TARGET_US_DEFAULT * 1000ULL / VGPU_QUEUE_DEFER_DIV,
};
static unsigned long marks;
static int bench_bad;		/* a consistency check failed */

/* As libvgpu's libvgpu_launch_mark(). */
static __attribute__((noinline)) int mark(int rc)
{
	unsigned int m = gt.mark_mask + 1;
	int g = libvgpu_gate_tls.mark - 1;
	void *win[VGPU_MARK_MAX];

	unsigned int m2;

	libvgpu_gate_tls.mark = 0;
	for (unsigned int i = 0; i < m; i++)
		win[i] = libvgpu_gate_tls.win[(libvgpu_gate_tls.n - 1 - i) & (VGPU_MARK_MAX - 1)];
	m2 = (unsigned int)libvgpu_queue_mark(&queue, g, gpage.gpu[g].seq, win, (int)m);
	if (m2 != m && m2 >= 1 && m2 <= VGPU_MARK_MAX)
		gt.mark_mask = m2 - 1;
	marks++;
	return rc;
}

#define PARAMS (void *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, \
		unsigned int by, unsigned int bz, unsigned int shmem, void *stream, \
		void **params, void **extra)
#define ARGS (f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra)

/* lazyload.c's table: no kernel pending, as after each one's first use. */
uint32_t libvgpu_lazy_pend[VGPU_LAZY_SLOTS];

static __attribute__((noinline)) int gated_slow PARAMS
{
	int rc;

	libvgpu_gate_slow(&gt, stream);
	rc = real_slot ARGS;
	return libvgpu_gate_tls.mark ? mark(rc) : rc;
}

static __attribute__((noinline)) int gated PARAMS
{
	launch_fn real = __atomic_load_n(&real_slot, __ATOMIC_RELAXED);

	VGPU_PASS_NESTED_HOT(real, ARGS);	/* never taken here: its cost */
	if (__builtin_expect(real && !vgpu_lazy_pending(f) && vgpu_gate_pass(&gt, stream), 1))
		return real ARGS;
	return gated_slow ARGS;
}

static launch_fn volatile entry_bare = stub, entry_gated = gated;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

/* Launches alternate between two streams this far apart (0: one stream). */
static uintptr_t bench_stream_step = 0x40;

static double batch(launch_fn fn)
{
	void *params[1] = { NULL };
	uint64_t t0 = now_ns();

	for (int i = 0; i < BATCH; i++)
		fn((void *)1, 1, 1, 1, 32, 1, 1, 0,
		   (void *)(uintptr_t)(0x1000 + (i & 1) * bench_stream_step), params, NULL);
	return (double)(now_ns() - t0) / BATCH;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void row(const char *name, double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	printf("%-12s %9.2f %9.2f\n", name, v[n / 2], v[n * 99 / 100]);
}

/* Alternate bare and gated batches; print gated and added rows. */
static void run(long batches, const char *gname, const char *aname, double *bare,
		double *g, double *d, int print_bare)
{
	for (long i = 0; i < batches; i++) {
		bare[i] = batch(entry_bare);
		g[i] = batch(entry_gated);
		d[i] = g[i] - bare[i];
	}
	if (print_bare)
		row("bare", bare, batches);
	row(gname, g, batches);
	row(aname, d, batches);
}

/* The queue afresh: libvgpu's defaults, marks deferred up to defer_ns
 * (0: recorded every M-th launch). */
static void reset_queue(uint64_t defer_ns)
{
	libvgpu_queue_ctx_gone(&queue, (void *)&ev_ctx, 1);
	libvgpu_queue_reset(&queue);
	queue.mark = VGPU_MARK_DEFAULT;
	queue.defer_ns = defer_ns;
	gt.mark_mask = VGPU_MARK_DEFAULT - 1;
	libvgpu_gate_tls.n = 0;
	libvgpu_gate_tls.mark = 0;
}

/* Driver calls per 1000 launches of ns-long kernels at the GPU's pace,
 * after 10 s of them to adapt: returned for 10 s more. */
static double rate(uint64_t ns, uint64_t defer_ns)
{
	void *params[1] = { NULL };
	unsigned long c0;
	long n = (long)(10000000000ULL / ns);

	uint64_t l0 = launched();

	kernel_ns = ns;
	qops.now = virtual_now;
	reset_queue(defer_ns);
	for (int pass = 0; pass < 2; pass++) {
		c0 = ev_calls;
		for (long i = 0; i < n; i++) {
			vclock += ns;
			entry_gated((void *)1, 1, 1, 1, 32, 1, 1, 0,
				    (void *)(uintptr_t)(0x1000 + (i & 1) * 0x40), params, NULL);
		}
	}
	qops.now = NULL;
	kernel_ns = 5000;
	if (launched() - l0 != 2 * (uint64_t)n) {
		fprintf(stderr, "gate-bench: %llu launches counted of %ld at %llu ns\n",
			(unsigned long long)(launched() - l0), 2 * n, (unsigned long long)ns);
		bench_bad = 1;
	}
	return 1000.0 * (double)(ev_calls - c0) / (double)n;
}

static void rates(const char *what, uint64_t ns)
{
	double deferred = rate(ns, VGPU_TARGET_US_DEFAULT * 1000ULL / VGPU_QUEUE_DEFER_DIV);
	double count = rate(ns, 0);

	printf("%-28s %9.1f %9.1f\n", what, deferred, count);
	/* Deferring marks never records more of them than the old policy. */
	if (!(deferred > 0 && deferred <= count)) {
		fprintf(stderr, "gate-bench: %s: %.1f driver calls deferred, %.1f counted\n",
			what, deferred, count);
		bench_bad = 1;
	}
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 10000000L, batches = calls / BATCH;
	double *bare, *g, *d;
	uint64_t want0, want1;
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (batches < 100) {
		fprintf(stderr, "gate-bench: at least %d calls\n", 100 * BATCH);
		return 2;
	}
	if (cpu >= 0) {	/* one CPU: no migration in the middle of a batch */
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	bare = calloc((size_t)batches, sizeof(*bare));
	g = calloc((size_t)batches, sizeof(*g));
	d = calloc((size_t)batches, sizeof(*d));
	if (!bare || !g || !d)
		return 1;
	gpage.version = VGPU_DEV_PAGE_VERSION;
	gpage.gpu[0].granted = 1;
	gpage.gpu[1].granted = 1;
	for (long i = 0; i < batches / 10; i++)		/* warm up */
		batch(entry_bare), batch(entry_gated);

	printf("# %ld calls per path, batches of %d, ns per launch; marks as libvgpu "
	       "(M = %d at first, K = %d, adapting to %d us, deferred up to %llu us), "
	       "%llu ns kernels\n", calls, BATCH, VGPU_MARK_DEFAULT, queue.depth,
	       VGPU_TARGET_US_DEFAULT, (unsigned long long)queue.defer_ns / 1000,
	       (unsigned long long)kernel_ns);
	printf("%-12s %9s %9s\n", "path", "median_ns", "p99_ns");
	run(batches, "gated", "added", bare, g, d, 1);
	gt.mark_mask = VGPU_MARK_OFF;
	run(batches, "gated-nomark", "added-nomark", bare, g, d, 0);
	/* Before deferred marks: one recorded every M-th launch. */
	reset_queue(0);
	run(batches, "gated-count", "added-count", bare, g, d, 0);
	reset_queue(VGPU_TARGET_US_DEFAULT * 1000ULL / VGPU_QUEUE_DEFER_DIV);
	/* More than one GPU: the thread's cache names the GPU of the stream it
	 * last launched on (gate.h keeps one stream; here one stream, on GPU
	 * 1, as a thread launching on one stream of another GPU). */
	gt.one_gpu = VGPU_GATE_RESOLVE;
	bench_stream_step = 0;
	libvgpu_gate_tls.st = (void *)(uintptr_t)0x1000;
	libvgpu_gate_tls.st_gpu = 1;
	libvgpu_gate_tls.st_gen = gt.gen;
	run(batches, "gated-tls", "added-tls", bare, g, d, 0);
	bench_stream_step = 0x40;
	gt.one_gpu = 0;
	/* Every gated launch counted once, on its GPU: the warm-up's and
	 * three runs' on GPU 0, the thread cache's run on GPU 1 (a path that
	 * counted none, or twice, measured something else). */
	want0 = (uint64_t)(batches / 10 + 3 * batches) * BATCH;
	want1 = (uint64_t)batches * BATCH;
	if (page.gpu[0].launches != want0 || page.gpu[1].launches != want1) {
		fprintf(stderr, "gate-bench: launches not counted (%llu, %llu; want %llu, %llu)\n",
			(unsigned long long)page.gpu[0].launches,
			(unsigned long long)page.gpu[1].launches,
			(unsigned long long)want0, (unsigned long long)want1);
		return 1;
	}
	printf("# %lu marks due (every M-th launch), %lu stub event calls, %lu sleeps for a "
	       "slot\n", marks, ev_calls,
	       (unsigned long)(queue.gpu[0] ? queue.gpu[0]->slept : 0));
	printf("%-28s %9s %9s\n", "driver calls per 1000 launches", "deferred", "count");
	rates("short kernels (5 us)", 5000);
	rates("long kernels (1 ms)", 1000000);
	free(bare);
	free(g);
	free(d);
	return bench_bad;
}
