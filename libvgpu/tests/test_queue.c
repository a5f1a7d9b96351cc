// SPDX-License-Identifier: GPL-2.0
/*
 * The queue bound (queue.c) driven through the launch gate (gate.c)
 * against a fake GPU, under ASan and UBSan; part of test-logic-asan. One
 * check per scenario, each from a fresh set-up (check.h); returns 1 on a
 * failure.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../logic/gate.h"
#include "../logic/queue.h"
#include "check.h"
#include "test_gate.h"

/*
 * A fake GPU that runs nothing by itself (the worst case: work completes
 * only when the library waits for it). Per stream: launches submitted and
 * completed; an event remembers its stream's submitted count when
 * recorded, and cuEventSynchronize completes the stream up to it. Every
 * event call is counted, with the launch it came after.
 */
#define QS 8
#define QEV 256

static struct qfake {
	pthread_mutex_t lk;
	uint64_t sub[QS], done[QS];
	struct fev {
		int live, recorded;
		int stream;
		uint64_t target;
	} ev[QEV];
	int nev, creates, destroys, records, syncs, elapseds, queries, calls_off_mark, errors;
	int relaxes, unrelaxed;		/* relax calls; event calls in a mark not relaxed */
	int create_err, failed_said;
	float ms_per_launch;		/* device time of a launch */
	uint64_t launch_n;		/* the launch the calls come after */
	int marking;			/* inside a mark */
	uint64_t max_out, bound;
	int over;
	uint64_t now_ns, tick_ns;	/* the fake clock; its step per launch */
	int rec_on[QS];			/* records per stream */
} qf = { .lk = PTHREAD_MUTEX_INITIALIZER, .ms_per_launch = 2.0f };

static char qstreams[QS];
static int qctx_tag;

static int qs_index(void *stream)
{
	return (int)((char *)stream - qstreams);
}

static void q_call(void)
{
	if (!qf.marking)
		qf.calls_off_mark++;
}

/* The thread's capture mode as the relax ops set it (qevents.c). */
static __thread int q_relaxed;

static void q_relax_check(void)
{
	if (qf.marking && !q_relaxed)
		qf.unrelaxed++;
}

static unsigned int q_relax(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&qf.lk);
	if (q_relaxed)
		qf.errors++;
	q_relaxed = 1;
	qf.relaxes++;
	pthread_mutex_unlock(&qf.lk);
	return 7;
}

static void q_unrelax(void *arg, unsigned int token)
{
	(void)arg;
	pthread_mutex_lock(&qf.lk);
	if (!q_relaxed || token != 7)
		qf.errors++;
	q_relaxed = 0;
	pthread_mutex_unlock(&qf.lk);
}

static void *q_ctx(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&qf.lk);
	q_call();
	pthread_mutex_unlock(&qf.lk);
	return &qctx_tag;
}

static int q_create(void *arg, void **ev)
{
	int rc = 0;

	(void)arg;
	pthread_mutex_lock(&qf.lk);
	q_call();
	q_relax_check();
	if (qf.create_err || qf.nev == QEV) {
		rc = qf.create_err ? qf.create_err : 2;
	} else {
		qf.ev[qf.nev].live = 1;
		*ev = &qf.ev[qf.nev++];
		qf.creates++;
	}
	pthread_mutex_unlock(&qf.lk);
	return rc;
}

static int q_record(void *arg, void *ev, void *stream)
{
	struct fev *e = ev;

	(void)arg;
	pthread_mutex_lock(&qf.lk);
	q_call();
	q_relax_check();
	if (!e->live)
		qf.errors++;
	e->recorded = 1;
	e->stream = qs_index(stream);
	e->target = qf.sub[e->stream];
	qf.records++;
	qf.rec_on[e->stream]++;
	pthread_mutex_unlock(&qf.lk);
	return 0;
}

static int q_sync(void *arg, void *ev)
{
	struct fev *e = ev;

	(void)arg;
	pthread_mutex_lock(&qf.lk);
	q_call();
	q_relax_check();
	if (!e->live || !e->recorded)
		qf.errors++;
	{	/* queued at the moment of the wait */
		uint64_t out = 0;

		for (int i = 0; i < QS; i++)
			out += qf.sub[i] - qf.done[i];
		if (out > qf.max_out)
			qf.max_out = out;
		if (out > qf.bound)
			qf.over++;
	}
	if (qf.done[e->stream] < e->target)
		qf.done[e->stream] = e->target;
	qf.syncs++;
	pthread_mutex_unlock(&qf.lk);
	return 0;
}

/* 2 ms of device time per launch of the stream. */
static int q_elapsed(void *arg, float *ms, void *a, void *b)
{
	struct fev *x = a, *y = b;

	(void)arg;
	pthread_mutex_lock(&qf.lk);
	q_call();
	q_relax_check();
	if (!x->live || !y->live || x->stream != y->stream)
		qf.errors++;
	*ms = (float)(y->target - x->target) * qf.ms_per_launch;
	qf.elapseds++;
	pthread_mutex_unlock(&qf.lk);
	return 0;
}

static void q_destroy(void *arg, void *ev)
{
	struct fev *e = ev;

	(void)arg;
	pthread_mutex_lock(&qf.lk);
	if (!e->live)
		qf.errors++;
	e->live = 0;
	qf.destroys++;
	pthread_mutex_unlock(&qf.lk);
}

static void q_failed(void *arg, int gpu, int err)
{
	(void)arg;
	(void)gpu;
	(void)err;
	qf.failed_said++;
}

static uint64_t q_now(void *arg)
{
	(void)arg;
	return __atomic_load_n(&qf.now_ns, __ATOMIC_RELAXED);
}

/* Not complete until waited for: the fake GPU runs nothing by itself. */
static int q_query(void *arg, void *ev)
{
	struct fev *e = ev;
	int busy;

	(void)arg;
	pthread_mutex_lock(&qf.lk);
	q_call();
	q_relax_check();
	if (!e->live || !e->recorded)
		qf.errors++;
	busy = qf.done[e->stream] < e->target;
	qf.queries++;
	pthread_mutex_unlock(&qf.lk);
	return busy;
}

static const struct vgpu_queue_ops q_ops = {
	q_ctx, q_create, q_record, q_sync, q_elapsed, q_destroy, q_failed, q_now, q_query,
	q_relax, q_unrelax,
};
static struct vgpu_queue q = { .ops = &q_ops, .mark = 4, .depth = 4 };
static struct vgpu_dev_page qpage;
static struct vgpu_dev_gate qgpage;
/* The gate stays granted: its ops are never called. */
static int qg_gpu(void *ctx, void *stream)
{
	(void)ctx;
	(void)stream;
	return 0;
}

static void qg_drain(void *ctx, int gpu)
{
	(void)ctx;
	(void)gpu;
}

static int qg_wait(void *ctx, struct vgpu_dev_wait *w)
{
	(void)ctx;
	(void)w;
	return 0;
}

static void qg_failed(void *ctx, int gpu, int err)
{
	(void)ctx;
	(void)gpu;
	(void)err;
}

static const struct vgpu_gate_ops qg_ops = { qg_gpu, qg_drain, qg_wait, qg_failed };
static struct vgpu_gate qgt = { .gate = &qgpage, .page = &qpage, .one_gpu = 0, .gen = 1,
				.mark_mask = 3, .ops = &qg_ops };

/* A launch as launch.c makes it, on a fake stream: the gate, the fake
 * driver's submission, the mark when due (as libvgpu_launch_mark()); then
 * the work queued and not known complete, against the bound. */
static void qlaunch(int st)
{
	uint64_t out = 0;

	if (!vgpu_gate_pass(&qgt, &qstreams[st]))
		libvgpu_gate_slow(&qgt, &qstreams[st]);
	pthread_mutex_lock(&qf.lk);
	qf.sub[st]++;
	qf.launch_n++;
	qf.now_ns += qf.tick_ns;
	pthread_mutex_unlock(&qf.lk);
	if (libvgpu_gate_tls.mark) {
		unsigned int m = qgt.mark_mask + 1;
		int g = libvgpu_gate_tls.mark - 1;
		void *win[VGPU_MARK_MAX];

		libvgpu_gate_tls.mark = 0;
		for (unsigned int i = 0; i < m; i++)
			win[i] = libvgpu_gate_tls.win[(libvgpu_gate_tls.n - 1 - i) & (VGPU_MARK_MAX - 1)];
		__atomic_add_fetch(&qf.marking, 1, __ATOMIC_RELAXED);
		m = (unsigned int)libvgpu_queue_mark(&q, g, qgpage.gpu[g].seq, win, (int)m);
		qgt.mark_mask = m - 1;
		__atomic_sub_fetch(&qf.marking, 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_lock(&qf.lk);
	for (int i = 0; i < QS; i++)
		out += qf.sub[i] - qf.done[i];
	if (out > qf.max_out)
		qf.max_out = out;
	if (out > qf.bound)
		qf.over++;
	pthread_mutex_unlock(&qf.lk);
}

static void *qlauncher(void *arg)
{
	int st = (int)(intptr_t)arg;

	libvgpu_gate_tls.n = 0;
	for (int i = 0; i < 100; i++)
		qlaunch(st);
	return NULL;
}

static void qreset(void)
{
	libvgpu_queue_ctx_gone(&q, &qctx_tag, 1);
	libvgpu_queue_reset(&q);
	pthread_mutex_lock(&qf.lk);
	memset(qf.sub, 0, sizeof(qf.sub));
	memset(qf.done, 0, sizeof(qf.done));
	memset(qf.rec_on, 0, sizeof(qf.rec_on));
	qf.max_out = 0;
	qf.over = 0;
	qf.creates = qf.destroys = qf.records = qf.syncs = qf.elapseds = qf.queries = 0;
	qf.calls_off_mark = 0;
	qf.relaxes = qf.unrelaxed = 0;
	qf.nev = 0;
	memset(qf.ev, 0, sizeof(qf.ev));
	pthread_mutex_unlock(&qf.lk);
	libvgpu_gate_tls.n = 0;
}

/* Each scenario starts here, whatever the one before left: M = 4, K = 4,
 * fixed, 2 ms launches, granted in grant 5, no bound checked. */
static void qsetup(void)
{
	qreset();
	q.mark = 4;
	q.depth = 4;
	q.target_ns = 0;
	q.defer_ns = 0;
	qgt.mark_mask = 3;
	qgpage.gpu[0].granted = 1;
	qgpage.gpu[0].seq = 5;
	libvgpu_gate_tls.mark = 0;
	qf.ms_per_launch = 2.0f;
	qf.create_err = 0;
	qf.failed_said = 0;
	qf.errors = 0;
	qf.launch_n = 0;
	qf.bound = ~0ULL;
	qf.tick_ns = 0;
}

/* M = 4, K = 4, one thread, 100 launches round robin on 2 streams (the
 * case where every 4th launch is on the same stream). */
static void q_burst2(void)
{
	for (int i = 0; i < 100; i++)
		qlaunch(i & 1);
}

static void test_q_burst(void)
{
	static const char what[] = "queue bound on a fake GPU: M = 4, K = 4, 100 launches on "
		"2 streams wait for the oldest mark after launches 19, 23, ..., 99 and never "
		"have more than 20 queued; no event call between marks, each mark's in "
		"RELAXED capture mode";
	int syncs_at[64], nsync = 0, last_syncs = 0;

	qsetup();
	qf.bound = (4 + 1) * 4;
	for (int i = 0; i < 100; i++) {
		qlaunch(i & 1);
		if (qf.syncs != last_syncs && nsync < 64)
			syncs_at[nsync++] = i;
		last_syncs = qf.syncs;
	}
	CHECK(!qf.calls_off_mark && qf.records == 25 * 2 && qf.creates <= 4 * 2 + 4 * 2 &&
	      !qf.errors, what, "%d event calls outside marks, %d records, %d creates, "
	      "%d errors", qf.calls_off_mark, qf.records, qf.creates, qf.errors);
	/* Marks after launches 3, 7, ..., 99 (from 0); the ring is full
	 * from the 5th: each then waits for the oldest mark (2 events). */
	CHECK(qf.relaxes == 25 && !qf.unrelaxed && !q_relaxed, what,
	      "%d marks relaxed, %d event calls not relaxed, relaxed after: %d", qf.relaxes,
	      qf.unrelaxed, q_relaxed);
	CHECK(qf.syncs == 21 * 2 && nsync == 21 && syncs_at[0] == 19 && syncs_at[20] == 99,
	      what, "%d syncs at %d launches, first after launch %d", qf.syncs, nsync,
	      nsync ? syncs_at[0] : -1);
	for (int i = 0; i < nsync; i++)
		CHECK(syncs_at[i] == 19 + 4 * i, what, "wait %d after launch %d", i, syncs_at[i]);
	CHECK(!qf.over && qf.max_out == 20, what, "up to %llu launches queued, bound %llu",
	      (unsigned long long)qf.max_out, (unsigned long long)qf.bound);
	PASSED(what);
}

static void test_q_measure(void)
{
	static const char what[] = "queue bound on a fake GPU: 160 ms measured by events, "
		"none across a grant";
	uint64_t dev;

	qsetup();
	q_burst2();
	/* 20 pairs of consecutive waited marks per stream, each 2 launches
	 * of 2 ms apart. */
	dev = libvgpu_queue_dev_ns(&q, 0);
	CHECK(dev == 2 * 20 * 4000000ULL && qf.elapseds == 2 * 20 && !qf.errors, what,
	      "measured %llu ns in %d elapsed times", (unsigned long long)dev, qf.elapseds);
	/* A new grant: the 4 marks still in the ring were recorded in the
	 * old one (measured: 4 ms per stream each); the next, the first of
	 * the new grant, is not measured from its predecessor. */
	qgpage.gpu[0].seq = 6;
	for (int i = 0; i < 20; i++)
		qlaunch(i & 1);
	CHECK(libvgpu_queue_dev_ns(&q, 0) == dev + 2 * 4 * 4000000ULL && qf.elapseds == 2 * 24,
	      what, "a new grant: %llu ns measured, %d elapsed times",
	      (unsigned long long)libvgpu_queue_dev_ns(&q, 0), qf.elapseds);
	PASSED(what);
}

static void test_q_ctx_gone(void)
{
	static const char what[] = "queue bound on a fake GPU: events destroyed with their "
		"context, none twice";

	qsetup();
	q_burst2();
	libvgpu_queue_ctx_gone(&q, &qctx_tag, 1);
	CHECK(qf.creates && qf.creates == qf.destroys && !qf.errors, what,
	      "%d created, %d destroyed, %d errors", qf.creates, qf.destroys, qf.errors);
	PASSED(what);
}

static void test_q_one_stream(void)
{
	static const char what[] = "queue bound on a fake GPU: one stream, (K + 1) x M "
		"queued at most, and reached";

	qsetup();
	for (int i = 0; i < 100; i++)
		qlaunch(3);
	CHECK(!qf.over && qf.max_out == 20 && qf.records == 25 && qf.syncs == 21, what,
	      "%llu queued, %d records, %d syncs", (unsigned long long)qf.max_out,
	      qf.records, qf.syncs);
	PASSED(what);
}

static void test_q_threads(void)
{
	static const char what[] = "queue bound on a fake GPU: 4 threads, a stream each, "
		"within K x M + T x M";
	pthread_t t[4];

	qsetup();
	qf.bound = 4 * 4 + 4 * 4;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, qlauncher, (void *)(intptr_t)(i + 2));
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	CHECK(!qf.over && !qf.errors && qf.records == 100 && !qf.calls_off_mark, what,
	      "up to %llu queued (bound %llu), %d records, %d errors",
	      (unsigned long long)qf.max_out, (unsigned long long)qf.bound, qf.records, qf.errors);
	PASSED(what);
}

static void test_q_no_events(void)
{
	static const char what[] = "queue bound on a fake GPU: event creation failing is "
		"said once, then no bound";

	qsetup();
	qf.create_err = 999;
	for (int i = 0; i < 100; i++)
		qlaunch(i & 1);
	qf.create_err = 0;
	CHECK(qf.failed_said == 1 && !qf.records && !qf.syncs && q.off, what,
	      "said %d times, %d records", qf.failed_said, qf.records);
	PASSED(what);
}

/* Adapting to 20 ms of queued work (one stream: the time between two
 * marks over the launches of the window is the time per launch): 40
 * launches of ms each to measure, then 100 within bound. */
static void q_adapt(float ms, uint64_t bound)
{
	qsetup();
	q.target_ns = 20000000;
	qf.ms_per_launch = ms;
	for (int i = 0; i < 40; i++)
		qlaunch(3);
	qf.max_out = 0;
	qf.bound = bound;
	for (int i = 0; i < 100; i++)
		qlaunch(3);
}

static void test_q_adapt_2ms(void)
{
	static const char what[] = "queue bound on a fake GPU: adapting to 20 ms, 2 ms "
		"launches give M = 2 and at most 10 queued";

	/* M = 2 and 4 marks pending: 10 launches. */
	q_adapt(2.0f, 10);
	CHECK(!qf.over && qf.max_out == 10 && qgt.mark_mask == 1 && !qf.errors, what,
	      "up to %llu queued, M = %u", (unsigned long long)qf.max_out, qgt.mark_mask + 1);
	PASSED(what);
}

static void test_q_adapt_50ms(void)
{
	static const char what[] = "queue bound on a fake GPU: adapting to 20 ms, 50 ms "
		"launches give M = 1 and at most 1 queued";

	/* Each launch waited for at its mark. */
	q_adapt(50.0f, 1);
	CHECK(!qf.over && qf.max_out == 1 && qgt.mark_mask == 0 && !qf.errors, what,
	      "up to %llu queued, M = %u", (unsigned long long)qf.max_out, qgt.mark_mask + 1);
	PASSED(what);
}

static void test_q_adapt_10us(void)
{
	static const char what[] = "queue bound on a fake GPU: adapting to 20 ms, 10 us "
		"launches give M = 16";

	qsetup();
	q.target_ns = 20000000;
	qf.ms_per_launch = 0.01f;
	for (int i = 0; i < 200; i++)
		qlaunch(3);
	CHECK(qgt.mark_mask == 15 && !qf.errors, what, "M = %u", qgt.mark_mask + 1);
	PASSED(what);
}

/* Deferred marks: 10 us launches on one stream, adapting to 20 ms,
 * deferred up to 500 us (C = 500 us / 10 us = 50 launches: a mark that
 * would cover more than 50 - 16 is not deferred, so one covers at most
 * 48), the clock advancing tick_ns per
 * launch; 40 launches to measure, then n more, checked against bound.
 * Returns the records made during those n. */
static int q_defer(uint64_t tick_ns, int n, uint64_t bound)
{
	int r0;

	qsetup();
	q.target_ns = 20000000;
	q.defer_ns = 500000;
	qf.ms_per_launch = 0.01f;
	for (int i = 0; i < 40; i++)
		qlaunch(3);
	qf.tick_ns = tick_ns;
	qf.max_out = 0;
	qf.bound = bound;
	r0 = qf.records;
	for (int i = 0; i < n; i++)
		qlaunch(3);
	return qf.records - r0;
}

static void test_q_defer_time(void)
{
	static const char what[] = "deferred marks: 10 us launches made every 20 us record "
		"a mark at the first window 500 us after the last (every 32 launches), not "
		"every 16";
	int rec = q_defer(20000, 960, ~0ULL);

	/* 960 launches: 30 recorded marks, not 60. */
	CHECK(rec == 30 && qgt.mark_mask == 15 && !qf.errors, what,
	      "%d records over 960 launches, M = %u", rec, qgt.mark_mask + 1);
	PASSED(what);
}

static void test_q_defer_cap(void)
{
	static const char what[] = "deferred marks: launches faster than the clock moves are "
		"marked every 48 launches (500 us of device time at most) and never more "
		"than 5 x 48 queued";
	int rec;

	rec = q_defer(0, 4800, 5 * 48);
	/* 4800 launches, 48 a mark: 100 marks, not 300. */
	CHECK(rec == 100 && !qf.over && qf.max_out == 5 * 48 && !qf.errors, what,
	      "%d records, up to %llu queued", rec, (unsigned long long)qf.max_out);
	PASSED(what);
}

static void test_q_defer_streams(void)
{
	static const char what[] = "deferred marks: the mark recorded after deferred ones "
		"covers their streams too";
	int rec, r5, r6;

	q_defer(0, 0, ~0ULL);
	for (int i = 0; i < 16; i++)	/* deferred: stream 5 only */
		qlaunch(5);
	qf.now_ns += 1000000;		/* 1 ms: the next mark records */
	rec = qf.records;
	r5 = qf.rec_on[5];
	r6 = qf.rec_on[6];
	for (int i = 0; i < 16; i++)
		qlaunch(6);
	r5 = qf.rec_on[5] - r5;
	r6 = qf.rec_on[6] - r6;
	CHECK(r5 == 1 && r6 == 1 && !qf.errors, what,
	      "%d records, on stream 5: %d, 6: %d", qf.records - rec, r5, r6);
	PASSED(what);
}

static void test_q_defer_gpus(void)
{
	static const char what[] = "deferred marks: a thread taking turns on two GPUs "
		"records every mark";
	void *win[VGPU_MARK_MAX];
	int rec;

	q_defer(0, 0, ~0ULL);
	for (int i = 0; i < VGPU_MARK_MAX; i++)
		win[i] = &qstreams[4];
	rec = qf.records;
	__atomic_add_fetch(&qf.marking, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 8; i++)
		libvgpu_queue_mark(&q, (i + 1) & 1, qgpage.gpu[0].seq, win, VGPU_MARK_MAX);
	__atomic_sub_fetch(&qf.marking, 1, __ATOMIC_RELAXED);
	CHECK(qf.records - rec == 8 && !qf.errors, what, "%d records for 8 marks",
	      qf.records - rec);
	PASSED(what);
}

static void test_q_cross(void)
{
	static const char what[] = "queue bound on a fake GPU: a thread on several GPUs whose "
		"marks never complete by themselves makes its 100 launches, each wait bounded "
		"(no event synchronised, under 1 s)";
	struct timespec t0, t1;
	uint64_t ms;

	qsetup();
	libvgpu_queue_cross = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	q_burst2();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	libvgpu_queue_cross = 0;
	ms = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000 +
	     (uint64_t)((t1.tv_nsec - t0.tv_nsec) / 1000000);
	CHECK(!qf.syncs && qf.queries && !qf.errors && ms < 1000 && ms >= 21 *
	      VGPU_QUEUE_CROSS_NS / 1000000, what, "%d syncs, %d queries, %d errors, %llu ms",
	      qf.syncs, qf.queries, qf.errors, (unsigned long long)ms);
	PASSED(what);
}

/* One check per scenario, each from qsetup(): a failure stops only its
 * own. */
int test_queue_all(void)
{
	test_q_burst();
	test_q_measure();
	test_q_ctx_gone();
	test_q_one_stream();
	test_q_threads();
	test_q_no_events();
	test_q_adapt_2ms();
	test_q_adapt_50ms();
	test_q_adapt_10us();
	test_q_defer_time();
	test_q_defer_cap();
	test_q_defer_streams();
	test_q_defer_gpus();
	test_q_cross();
	qsetup();
	return failures ? 1 : 0;
}
