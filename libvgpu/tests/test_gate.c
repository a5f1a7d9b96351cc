// SPDX-License-Identifier: GPL-2.0
/*
 * The compute launch gate (gate.c) against a fake gate page and a stub
 * ioctl layer, and the node-list parser (nodelist.c), under ASan and
 * UBSan; part of test-logic-asan. One check, one line (check.h); returns
 * 1 on a failure.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../logic/gate.h"
#include "../logic/nodelist.h"
#include "check.h"
#include "test_gate.h"

/* ---- the gate against a fake module ---- */

static struct vgpu_dev_page page;
static struct vgpu_dev_gate gpage;

static struct fake {
	pthread_mutex_t lk;
	pthread_cond_t cv;
	int resolve_gpu;		/* what ops->gpu answers */
	int resolves, drains, waits, fails, fail_err;
	void *asked;			/* the stream ops->gpu was asked about */
	int eintr;			/* WAIT answers EINTR this many times */
	int wait_err;			/* WAIT fails with this (0: it works) */
	int block;			/* WAIT sleeps until the test grants */
	int sleeping;
	uint64_t drain_ns, drain_sleep_ns;
	int order_ok;			/* a drain was never after its wait */
	int last_drains;
} fk = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, .order_ok = 1 };

static int f_gpu(void *ctx, void *stream)
{
	(void)ctx;
	fk.asked = stream;
	__atomic_add_fetch(&fk.resolves, 1, __ATOMIC_RELAXED);
	return fk.resolve_gpu;
}

static void f_drain(void *ctx, int gpu)
{
	struct timespec ts = { 0, (long)fk.drain_sleep_ns };

	(void)ctx;
	(void)gpu;
	if (fk.drain_sleep_ns)
		nanosleep(&ts, NULL);
	pthread_mutex_lock(&fk.lk);
	fk.drains++;
	pthread_mutex_unlock(&fk.lk);
}

/* The module's side: sleeps (a condition variable, no spinning) until
 * the tenant is granted. */
static int f_wait(void *ctx, struct vgpu_dev_wait *w)
{
	int rc = 0;

	(void)ctx;
	pthread_mutex_lock(&fk.lk);
	fk.waits++;
	fk.drain_ns = w->drain_ns;
	if (fk.drains < fk.last_drains)
		fk.order_ok = 0;
	if (fk.eintr > 0) {
		fk.eintr--;
		rc = -EINTR;
	} else if (fk.wait_err) {
		rc = -fk.wait_err;
	} else if (fk.block) {
		fk.sleeping++;
		pthread_cond_broadcast(&fk.cv);
		while (!__atomic_load_n(&gpage.gpu[w->gpu].granted, __ATOMIC_ACQUIRE))
			pthread_cond_wait(&fk.cv, &fk.lk);
		fk.sleeping--;
	}
	pthread_mutex_unlock(&fk.lk);
	return rc;
}

static void f_failed(void *ctx, int gpu, int err)
{
	(void)ctx;
	(void)gpu;
	fk.fails++;
	fk.fail_err = err;
}

static const struct vgpu_gate_ops f_ops = { f_gpu, f_drain, f_wait, f_failed };
static struct vgpu_gate gt = { .page = &page, .one_gpu = 1, .gen = 7,
				.mark_mask = VGPU_MARK_OFF, .ops = &f_ops };

/* A launch as launch.c makes it: fast path, else slow path. */
static void launch(void)
{
	if (!vgpu_gate_pass(&gt, NULL))
		libvgpu_gate_slow(&gt, NULL);
}

static void *launcher(void *arg)
{
	(void)arg;
	launch();
	return NULL;
}

/* Each check starts from here: a gate page of GPU 1 closed, no launch. */
static void gate_fresh(void)
{
	memset(&page, 0, sizeof(page));
	memset(&gpage, 0, sizeof(gpage));
	fk = (struct fake){ PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, .order_ok = 1 };
	gt = (struct vgpu_gate){ .page = &page, .one_gpu = 1, .gen = 7,
				 .mark_mask = VGPU_MARK_OFF, .ops = &f_ops };
	gt.gate = &gpage;
	memset(&libvgpu_gate_tls, 0, sizeof(libvgpu_gate_tls));
}

static void test_gate_none(void)
{
	static const char what[] = "launch gate: no gate page, nothing asked or counted";

	gate_fresh();
	gt.gate = NULL;
	launch();
	CHECK(!fk.waits && !fk.drains && !fk.resolves && !page.gpu[1].launches, what,
	      "%d waits, %d drains, %d resolves", fk.waits, fk.drains, fk.resolves);
	PASSED(what);
}

static void test_gate_granted(void)
{
	static const char what[] = "launch gate: granted, 1000 launches counted on the "
		"fast path, no wait, no drain";

	gate_fresh();
	gpage.gpu[1].granted = 1;
	for (int i = 0; i < 1000; i++)
		CHECK(vgpu_gate_pass(&gt, NULL), what, "granted but the fast path said no");
	CHECK(page.gpu[1].launches == 1000 && !fk.waits && !fk.drains, what,
	      "%llu launches, %d waits, %d drains",
	      (unsigned long long)page.gpu[1].launches, fk.waits, fk.drains);
	PASSED(what);
}

static void test_gate_closed(void)
{
	static const char what[] = "launch gate: closed after launches, a 2 ms drain "
		"timed, then WAIT, then the launch counted";

	gate_fresh();
	page.gpu[1].launches = 5;
	fk.drain_sleep_ns = 2000000;
	fk.last_drains = 1;
	launch();
	CHECK(fk.drains == 1 && fk.waits == 1 && fk.order_ok, what,
	      "%d drains, %d waits, drain first %d", fk.drains, fk.waits, fk.order_ok);
	CHECK(fk.drain_ns >= 2000000 && fk.drain_ns < 1000000000ULL, what,
	      "drain_ns %llu for a 2 ms drain", (unsigned long long)fk.drain_ns);
	CHECK(page.gpu[1].launches == 6, what, "%llu launches, want 6",
	      (unsigned long long)page.gpu[1].launches);
	PASSED(what);
}

/* A process that drained and launched nothing since does not drain
 * again; the launch after its wait counts, so the next closed gate
 * drains. */
static void test_gate_idle(void)
{
	static const char what[] = "launch gate: closed, nothing launched since the "
		"drain: no drain; after a launch, a drain again";

	gate_fresh();
	page.gpu[1].launches = 5;
	gt.seen[1] = 5;
	launch();
	CHECK(fk.drains == 0 && fk.waits == 1 && fk.drain_ns == 0, what,
	      "idle: %d drains, %d waits, drain_ns %llu", fk.drains, fk.waits,
	      (unsigned long long)fk.drain_ns);
	fk.last_drains = 1;
	launch();
	CHECK(fk.drains == 1 && fk.waits == 2 && fk.order_ok, what,
	      "after a launch: %d drains, %d waits", fk.drains, fk.waits);
	PASSED(what);
}

static void test_gate_eintr(void)
{
	static const char what[] = "launch gate: WAIT interrupted twice, asked again, "
		"drained once";

	gate_fresh();
	page.gpu[1].launches = 5;
	fk.eintr = 2;
	fk.last_drains = 1;
	launch();
	CHECK(fk.drains == 1 && fk.waits == 3 && !fk.fails && page.gpu[1].launches == 6,
	      what, "%d drains, %d waits, %d failures, %llu launches", fk.drains, fk.waits,
	      fk.fails, (unsigned long long)page.gpu[1].launches);
	PASSED(what);
}

/* Threads meeting the closed gate all sleep in WAIT (no spinning), and
 * all go once the tenant is granted. */
static void test_gate_threads(void)
{
	static const char what[] = "launch gate: 4 threads sleep in WAIT until granted, "
		"then all launch";
	pthread_t t[4];

	gate_fresh();
	fk.block = 1;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, launcher, NULL);
	pthread_mutex_lock(&fk.lk);
	while (fk.sleeping < 4)
		pthread_cond_wait(&fk.cv, &fk.lk);
	__atomic_store_n(&gpage.gpu[1].granted, 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&fk.cv);
	pthread_mutex_unlock(&fk.lk);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(fk.waits == 4 && page.gpu[1].launches == 4, what,
	      "%d waits, %llu launches", fk.waits, (unsigned long long)page.gpu[1].launches);
	PASSED(what);
}

/* Several GPUs: the thread's cache, else ops->gpu; < 0: ungated. */
static void test_gate_resolve(void)
{
	static const char what[] = "launch gate: per-thread GPU, cached by generation, "
		"else resolved; outside the inventory not counted";

	gate_fresh();
	gt.one_gpu = VGPU_GATE_RESOLVE;
	gpage.gpu[3].granted = 1;
	libvgpu_gate_tls.gen = 7;
	libvgpu_gate_tls.gpu = 3;
	CHECK(vgpu_gate_pass(&gt, NULL) && page.gpu[3].launches == 1 && !fk.resolves, what,
	      "thread cache: launches %llu, resolves %d",
	      (unsigned long long)page.gpu[3].launches, fk.resolves);
	gt.gen = 8;
	fk.resolve_gpu = 3;
	launch();
	CHECK(page.gpu[3].launches == 2 && fk.resolves == 1, what,
	      "stale cache: launches %llu, resolves %d",
	      (unsigned long long)page.gpu[3].launches, fk.resolves);
	fk.resolve_gpu = -1;
	launch();
	CHECK(page.gpu[3].launches == 2 && fk.resolves == 2, what, "outside the inventory counted");
	PASSED(what);
}

/* A stream other than a default one: its own GPU (ops->gpu asked with
 * it), then the thread's stream cache while the generation holds; the
 * current context's GPU for the default streams. */
static void test_gate_stream(void)
{
	static const char what[] = "launch gate: a non-default stream's GPU from ops->gpu "
		"with that stream, then from the thread's stream cache; default streams "
		"take the current context's";
	static char s1;
	void *st = &s1;

	gate_fresh();
	gt.one_gpu = VGPU_GATE_RESOLVE;
	gpage.gpu[3].granted = 1;
	gpage.gpu[5].granted = 1;
	libvgpu_gate_tls.gen = gt.gen;
	libvgpu_gate_tls.gpu = 3;
	libvgpu_gate_tls.st = NULL;
	fk.resolve_gpu = 5;
	if (!vgpu_gate_pass(&gt, st))
		libvgpu_gate_slow(&gt, st);
	CHECK(fk.resolves == 1 && fk.asked == st && page.gpu[5].launches == 1, what,
	      "first launch: %d resolves, asked %p, GPU 5 launches %llu", fk.resolves,
	      fk.asked, (unsigned long long)page.gpu[5].launches);
	libvgpu_gate_tls.st = st;	/* as gatedev.c caches it */
	libvgpu_gate_tls.st_gpu = 5;
	libvgpu_gate_tls.st_gen = gt.gen;
	CHECK(vgpu_gate_pass(&gt, st) && fk.resolves == 1 && page.gpu[5].launches == 2, what,
	      "cached: %d resolves, GPU 5 launches %llu", fk.resolves,
	      (unsigned long long)page.gpu[5].launches);
	CHECK(vgpu_gate_pass(&gt, (void *)2) && page.gpu[3].launches == 1, what,
	      "CU_STREAM_PER_THREAD: GPU 3 launches %llu", (unsigned long long)page.gpu[3].launches);
	gt.gen++;
	CHECK(!vgpu_gate_pass(&gt, st), what, "a stale stream cache was used");
	libvgpu_gate_tls.st = NULL;
	PASSED(what);
}

/* WAIT failing (an older module: ENOTTY): said once, then launches pass
 * through without blocking. */
static void test_gate_enotty(void)
{
	static const char what[] = "launch gate: WAIT fails with ENOTTY, said once, "
		"then launches pass through";

	gate_fresh();
	gt.one_gpu = 2;
	fk.wait_err = ENOTTY;
	for (int i = 0; i < 3; i++)
		launch();
	CHECK(fk.fails == 1 && fk.fail_err == ENOTTY && fk.waits == 1 &&
	      page.gpu[2].launches == 3, what, "%d failures said, %d waits, %llu launches",
	      fk.fails, fk.waits, (unsigned long long)page.gpu[2].launches);
	PASSED(what);
}

static void test_gate_paths(void)
{
	test_gate_none();
	test_gate_granted();
	test_gate_closed();
	test_gate_idle();
	test_gate_eintr();
	test_gate_threads();
	test_gate_resolve();
	test_gate_stream();
	test_gate_enotty();
}

/* ---- node lists ---- */

static void test_nodelist(void)
{
	static const char what[] = "node-list parser";
	static const struct {
		const char *s;
		int rc;
		uint64_t w0, w15;
	} cases[] = {
		{ "0-1,3", 3, 0xb, 0 },
		{ "0", 1, 1, 0 },
		{ "", 0, 0, 0 },
		{ "\n", 0, 0, 0 },
		{ "0-1,3\n", 3, 0xb, 0 },
		{ "2-3,0-3", 4, 0xf, 0 },
		{ "1023", 1, 0, 1ULL << 63 },
		{ "0-1023", 1024, ~0ULL, ~0ULL },
		{ "63-64", 2, 1ULL << 63, 0 },
		{ "1024", -ERANGE, 0, 0 },
		{ "99999999999999999999999", -ERANGE, 0, 0 },
		{ "1-0", -EINVAL, 0, 0 },
		{ "0,,1", -EINVAL, 0, 0 },
		{ ",0", -EINVAL, 0, 0 },
		{ "0,", -EINVAL, 0, 0 },
		{ "0-", -EINVAL, 0, 0 },
		{ "-1", -EINVAL, 0, 0 },
		{ "0 ,1", -EINVAL, 0, 0 },
		{ "a", -EINVAL, 0, 0 },
		{ "0-1x", -EINVAL, 0, 0 },
		{ "0:2", -EINVAL, 0, 0 },
	};
	uint64_t m[16], small[1];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = libvgpu_nodelist_parse(cases[i].s, m, 1024);

		CHECK(rc == cases[i].rc && m[0] == cases[i].w0 && m[15] == cases[i].w15,
		      what, "\"%s\": %d, words %#llx %#llx", cases[i].s, rc,
		      (unsigned long long)m[0], (unsigned long long)m[15]);
	}
	CHECK(libvgpu_nodelist_parse("0-1,3", m, 1024) == 3 && libvgpu_nodelist_last(m, 1024) == 3,
	      what, "last node");
	CHECK(libvgpu_nodelist_parse("", m, 1024) == 0 && libvgpu_nodelist_last(m, 1024) == -1,
	      what, "last of none");
	CHECK(libvgpu_nodelist_parse("63", small, 64) == 1 && libvgpu_nodelist_parse("64", small, 64) ==
	      -ERANGE && !small[0], what, "a one-word mask");
	CHECK(libvgpu_nodelist_parse(NULL, small, 64) == -EINVAL, what, "NULL");
	PASSEDF("%s (%zu lists: ranges, overlaps, newline, node 1023, malformed, "
		"out of range)", what, sizeof(cases) / sizeof(cases[0]));
}

int test_gate_all(void)
{
	test_gate_paths();
	test_nodelist();
	return failures ? 1 : 0;
}
