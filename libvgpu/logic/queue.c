// SPDX-License-Identifier: GPL-2.0
/*
 * The queue bound (queue.h): marks of events after every M-th launch of a
 * thread, a ring of K marks per GPU, a wait for the oldest when it is
 * full. No lock is held across a call of ops.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "queue.h"

#define VGPU_QAVAIL (4 * VGPU_MARK_MAX)

/*
 * The calling thread's marks deferred since its last mark that recorded
 * events (queue.h, "Deferred marks"): for one queue, GPU, context and
 * generation; the launches they covered and the union of their streams.
 */
struct vgpu_qdefer {
	const struct vgpu_queue *q;
	int gpu;
	void *ctx;
	unsigned int gen;
	uint64_t since_ns;	/* when the thread last recorded a mark here */
	uint64_t launches;	/* launches covered by deferred marks */
	int n;
	void *streams[VGPU_MARK_MAX];
};
static __thread struct vgpu_qdefer vgpu_qdefer;

__thread int libvgpu_queue_cross;

static uint64_t qnow(struct vgpu_queue *q)
{
	if (q->ops->now)
		return q->ops->now(q->arg);
	return libvgpu_mono_ns();
}

/* Whether the n events e complete within VGPU_QUEUE_CROSS_NS (polled). */
static int settles(struct vgpu_queue *q, const struct vgpu_qev *e, int n)
{
	const struct timespec nap = { 0, 50000 };
	uint64_t t0 = libvgpu_mono_ns();
	int i = 0;

	for (;;) {
		while (i < n && !q->ops->query(q->arg, e[i].ev))
			i++;
		if (i == n)
			return 1;
		if (libvgpu_mono_ns() - t0 >= VGPU_QUEUE_CROSS_NS)
			return 0;
		nanosleep(&nap, NULL);
	}
}

static struct vgpu_qgpu *qgpu(struct vgpu_queue *q, int g)
{
	struct vgpu_qgpu *qg = __atomic_load_n(&q->gpu[g], __ATOMIC_ACQUIRE), *none = NULL;

	if (qg)
		return qg;
	qg = calloc(1, sizeof(*qg));
	if (!qg)
		return NULL;
	pthread_mutex_init(&qg->lk, NULL);
	pthread_cond_init(&qg->cv, NULL);
	if (!__atomic_compare_exchange_n(&q->gpu[g], &none, qg, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		pthread_mutex_destroy(&qg->lk);
		pthread_cond_destroy(&qg->cv);
		free(qg);
		qg = none;
	}
	return qg;
}

/* Take the prev entry of (stream, ctx) out; its ev is NULL if none. */
static struct vgpu_qev take_prev(struct vgpu_qgpu *qg, void *stream, void *ctx)
{
	struct vgpu_qev e = { 0 };

	for (int i = 0; i < VGPU_MARK_MAX; i++)
		if (qg->prev[i].ev && qg->prev[i].stream == stream && qg->prev[i].ctx == ctx) {
			e = qg->prev[i];
			qg->prev[i].ev = NULL;
			break;
		}
	return e;
}

/* Install e as its stream's prev; an entry evicted goes to *out. */
static void put_prev(struct vgpu_qgpu *qg, struct vgpu_qev e, struct vgpu_qev *out, int *nout)
{
	int slot = -1;

	for (int i = 0; i < VGPU_MARK_MAX; i++)
		if (!qg->prev[i].ev || (qg->prev[i].stream == e.stream && qg->prev[i].ctx == e.ctx)) {
			slot = i;
			if (qg->prev[i].ev)
				break;
		}
	if (slot < 0)
		slot = (int)(qg->prev_next++ % VGPU_MARK_MAX);
	if (qg->prev[slot].ev)
		out[(*nout)++] = qg->prev[slot];
	qg->prev[slot] = e;
}

/* Give events back: to the spares while there is room; returns how many
 * of avail are left over (to destroy, outside the lock). Under qg->lk. */
static int to_spares(struct vgpu_qgpu *qg, struct vgpu_qev *avail, int navail)
{
	while (navail && qg->nspare < VGPU_QUEUE_SPARE)
		qg->spare[qg->nspare++] = avail[--navail];
	return navail;
}

/*
 * The oldest mark s (BUSY, its prv taken) did not complete in time for a
 * thread on several GPUs: put it back pending, or forget it (its events
 * to the spares: recording a pending event again is allowed) when its
 * slot is needed; 1 if forgotten.
 */
static int unsettled(struct vgpu_queue *q, struct vgpu_qgpu *qg, struct vgpu_qslot *s,
		     unsigned int gen, const struct vgpu_qev *prv, int forget)
{
	struct vgpu_qev avail[VGPU_QAVAIL];
	int navail = 0, nold = s->n;

	pthread_mutex_lock(&qg->lk);
	pthread_cond_broadcast(&qg->cv);
	if (gen != __atomic_load_n(&q->gen, __ATOMIC_RELAXED)) {
		s->state = VGPU_QS_EMPTY;	/* a context went away: forget */
		s->n = 0;
		pthread_mutex_unlock(&qg->lk);
		return 1;
	}
	for (int i = 0; i < nold; i++)
		if (prv[i].ev)
			put_prev(qg, prv[i], avail, &navail);
	if (forget) {
		for (int i = 0; i < nold; i++)
			avail[navail++] = s->e[i];
		s->n = 0;
	}
	s->state = forget ? VGPU_QS_EMPTY : VGPU_QS_FULL;
	navail = to_spares(qg, avail, navail);
	pthread_mutex_unlock(&qg->lk);
	for (int i = 0; i < navail; i++)
		q->ops->destroy(q->arg, avail[i].ev);
	return forget;
}

/*
 * If more than keep marks are pending on qg, wait for the oldest (its
 * events, sleeping), measure it from the previous mark of each of its
 * streams within the same grant, and free its slot; 1 if it waited. A
 * thread on several GPUs waits a bounded time (libvgpu_queue_cross),
 * then leaves the mark pending (0) or, with forget, drops it (1).
 */
static int wait_oldest(struct vgpu_queue *q, struct vgpu_qgpu *qg, int keep, int forget)
{
	struct vgpu_qev old[VGPU_MARK_MAX], prv[VGPU_MARK_MAX], avail[VGPU_QAVAIL];
	struct vgpu_qslot *s = NULL;
	int nold, navail = 0, full = 0;
	uint64_t dev = 0, per = 0;
	unsigned int gen;

	pthread_mutex_lock(&qg->lk);
	gen = __atomic_load_n(&q->gen, __ATOMIC_RELAXED);
	for (int i = 0; i < VGPU_QUEUE_DEPTH_MAX; i++) {
		struct vgpu_qslot *t = &qg->slot[i];

		if (t->state != VGPU_QS_FULL)
			continue;
		full++;
		if (!s || t->seq < s->seq)
			s = t;
	}
	if (full <= keep || !s) {
		pthread_mutex_unlock(&qg->lk);
		return 0;
	}
	nold = s->n;
	memcpy(old, s->e, sizeof(old[0]) * (size_t)nold);
	for (int i = 0; i < nold; i++)
		prv[i] = take_prev(qg, old[i].stream, old[i].ctx);
	s->state = VGPU_QS_BUSY;
	qg->waits++;
	pthread_mutex_unlock(&qg->lk);

	if (libvgpu_queue_cross && q->ops->query && !settles(q, old, nold))
		return unsettled(q, qg, s, gen, prv, forget);
	for (int i = 0; i < nold; i++)
		q->ops->sync(q->arg, old[i].ev);
	for (int i = 0; i < nold; i++) {
		float ms;

		if (!prv[i].ev)
			continue;
		if (prv[i].grant == old[i].grant &&
		    !q->ops->elapsed(q->arg, &ms, prv[i].ev, old[i].ev) && ms > 0) {
			uint64_t ns = (uint64_t)((double)ms * 1e6);

			uint64_t n = old[i].cum - prv[i].cum;

			dev += ns;
			if (n && ns / n > per)
				per = ns / n;
		}
		avail[navail++] = prv[i];
	}

	pthread_mutex_lock(&qg->lk);
	s->state = VGPU_QS_EMPTY;
	s->n = 0;
	pthread_cond_broadcast(&qg->cv);
	if (gen != __atomic_load_n(&q->gen, __ATOMIC_RELAXED)) {
		/* A context went away meanwhile: these events may be its, and
		 * gone with it. Forget them (a few leaked at worst). */
		pthread_mutex_unlock(&qg->lk);
		return 1;
	}
	for (int i = 0; i < nold; i++)
		put_prev(qg, old[i], avail, &navail);
	qg->dev_ns += dev;
	if (per)	/* written under lk, read without */
		__atomic_store_n(&qg->launch_ns, qg->launch_ns ? (3 * qg->launch_ns + per) / 4 : per,
				 __ATOMIC_RELAXED);
	navail = to_spares(qg, avail, navail);
	pthread_mutex_unlock(&qg->lk);
	for (int i = 0; i < navail; i++)
		q->ops->destroy(q->arg, avail[i].ev);
	return 1;
}

/* M and the marks kept pending on qg: the configured ones, or, with a
 * target and a measured device time per launch, the largest M (a power
 * of two) and then the most marks that keep (marks + 1) x M launches
 * within the target. */
static void plan(struct vgpu_queue *q, struct vgpu_qgpu *qg, int depth, int *m, int *keep)
{
	uint64_t per, l;
	int mm = 1;

	*m = q->mark;
	*keep = depth;
	if (!q->target_ns)
		return;
	per = __atomic_load_n(&qg->launch_ns, __ATOMIC_RELAXED);
	if (!per)
		return;
	l = q->target_ns / per;		/* launches within the target */
	while (mm < VGPU_MARK_MAX && (uint64_t)(2 * mm) * (uint64_t)(depth + 1) <= l)
		mm *= 2;
	*m = mm;
	l /= (uint64_t)mm;		/* marks within it, the newest included */
	*keep = !l ? 0 : l - 1 > (uint64_t)depth ? depth : (int)(l - 1);
}

/* The distinct streams of win[0..m) into d; their count. */
static int distinct(void *const *win, int m, void **d)
{
	int nd = 0;

	for (int i = 0; i < m; i++) {
		int j = 0;

		while (j < nd && d[j] != win[i])
			j++;
		if (j == nd)
			d[nd++] = win[i];
	}
	return nd;
}

/*
 * A free slot for a new mark of m launches, made BUSY: if the ring is
 * full, wait for its oldest mark; if every slot is busy in other threads,
 * sleep until one is not. Takes up to nd unused events of ctx into avail
 * and counts the mark of m launches; *cum gets the launches marked up to
 * it.
 */
static struct vgpu_qslot *take_slot(struct vgpu_queue *q, struct vgpu_qgpu *qg, int depth,
				    uint64_t m, void *ctx, int nd, struct vgpu_qev *avail,
				    int *navail, uint64_t *cum)
{
	struct vgpu_qslot *s = NULL;

	pthread_mutex_lock(&qg->lk);
	while (!s) {
		int full = 0;

		for (int i = 0; i < depth && !s; i++) {
			if (qg->slot[i].state == VGPU_QS_EMPTY)
				s = &qg->slot[i];
			full += qg->slot[i].state == VGPU_QS_FULL;
		}
		if (s)
			break;
		if (full) {
			pthread_mutex_unlock(&qg->lk);
			wait_oldest(q, qg, 0, 1);
			pthread_mutex_lock(&qg->lk);
		} else {
			qg->slept++;
			pthread_cond_wait(&qg->cv, &qg->lk);
		}
	}
	s->state = VGPU_QS_BUSY;
	s->seq = ++qg->seq;
	s->n = 0;
	for (int i = 0; i < qg->nspare && *navail < nd; ) {
		if (qg->spare[i].ctx == ctx) {
			avail[(*navail)++] = qg->spare[i];
			qg->spare[i] = qg->spare[--qg->nspare];
		} else {
			i++;
		}
	}
	qg->marks++;
	qg->cum += m;
	*cum = qg->cum;
	pthread_mutex_unlock(&qg->lk);
	return s;
}

/* Record the mark proto (its ev aside) on each stream of d: into made,
 * with an event from avail or a new one; their count. No lock held. */
static int record(struct vgpu_queue *q, int g, struct vgpu_qev proto, void *const *d, int nd,
		  struct vgpu_qev *avail, int *navail, struct vgpu_qev *made)
{
	int nmade = 0;

	for (int j = 0; j < nd; j++) {
		struct vgpu_qev e = proto;
		int k, rc;

		e.stream = d[j];
		for (k = 0; k < *navail && avail[k].ctx != e.ctx; k++)
			;
		if (k < *navail) {
			e.ev = avail[k].ev;
			avail[k] = avail[--*navail];
		} else if ((rc = q->ops->create(q->arg, &e.ev)) != 0) {
			if (!__atomic_exchange_n(&q->off, 1, __ATOMIC_RELAXED))
				q->ops->failed(q->arg, g, rc);
			break;
		}
		if (q->ops->record(q->arg, e.ev, d[j])) {
			avail[(*navail)++] = e;	/* kept for another time */
			continue;
		}
		made[nmade++] = e;
	}
	return nmade;
}

/* Put slot s back FULL with made (EMPTY if none), the events left over
 * to the spares or destroyed; 0 if a context went away since gen (the
 * mark is then forgotten), else 1. */
static int put_slot(struct vgpu_queue *q, struct vgpu_qgpu *qg, struct vgpu_qslot *s,
		    unsigned int gen, const struct vgpu_qev *made, int nmade,
		     struct vgpu_qev *avail, int navail)
{
	pthread_mutex_lock(&qg->lk);
	pthread_cond_broadcast(&qg->cv);
	if (gen != __atomic_load_n(&q->gen, __ATOMIC_RELAXED)) {
		s->state = VGPU_QS_EMPTY;	/* a context went away: forget */
		pthread_mutex_unlock(&qg->lk);
		return 0;
	}
	memcpy(s->e, made, sizeof(made[0]) * (size_t)nmade);
	s->n = nmade;
	s->state = nmade ? VGPU_QS_FULL : VGPU_QS_EMPTY;
	qg->events += (uint64_t)nmade;
	navail = to_spares(qg, avail, navail);
	pthread_mutex_unlock(&qg->lk);
	for (int i = 0; i < navail; i++)
		q->ops->destroy(q->arg, avail[i].ev);
	return 1;
}

/* Record one mark of launches on the nd streams of d, then wait for the
 * oldest marks beyond those to keep pending. Returns plan()'s M, or -1
 * when a context went away meanwhile (the mark is forgotten). */
static int mark_streams(struct vgpu_queue *q, struct vgpu_qgpu *qg, int g, uint32_t grant,
			void *ctx, int depth, void *const *d, int nd, uint64_t launches)
{
	struct vgpu_qev made[VGPU_MARK_MAX], avail[VGPU_QAVAIL];
	int navail = 0, nmade, newm, keep;
	struct vgpu_qslot *s;
	unsigned int gen;
	uint64_t cum;

	s = take_slot(q, qg, depth, launches, ctx, nd, avail, &navail, &cum);
	gen = __atomic_load_n(&q->gen, __ATOMIC_RELAXED);
	nmade = record(q, g, (struct vgpu_qev){ NULL, ctx, NULL, grant, cum }, d, nd,
		       avail, &navail, made);
	if (!put_slot(q, qg, s, gen, made, nmade, avail, navail))
		return -1;

	/* Keep at most keep marks pending (fewer than K when the launches
	 * are long). */
	plan(q, qg, depth, &newm, &keep);
	for (int i = 0; i <= depth && wait_oldest(q, qg, keep, 0); i++)
		;
	return newm;
}

/* d gets the union of a[0..na) and b[0..nb) (distinct); its count. */
static int merge(void *const *a, int na, void *const *b, int nb, void **d)
{
	int nd = distinct(a, na, d);

	for (int i = 0; i < nb; i++) {
		int j = 0;

		while (j < nd && d[j] != b[i])
			j++;
		if (j == nd)
			d[nd++] = b[i];
	}
	return nd;
}

/*
 * May this mark of m launches be deferred (queue.h)? Only with a
 * measured device time per launch, the thread's last recorded mark here
 * less than defer_ns ago, and the launches since plus one more window
 * within min(defer_ns, target / (K + 1)) of device time. Then the window's streams
 * join the deferred ones (u, nu: their union) and it returns 1.
 */
static int defer(struct vgpu_queue *q, struct vgpu_qgpu *qg, int depth, int m,
		 void *const *u, int nu)
{
	struct vgpu_qdefer *p = &vgpu_qdefer;
	uint64_t per = __atomic_load_n(&qg->launch_ns, __ATOMIC_RELAXED), now;

	uint64_t span = q->target_ns / (uint64_t)(depth + 1);

	if (q->defer_ns < span)
		span = q->defer_ns;
	/* The mark that ends the deferral covers these and one more window. */
	if (!q->defer_ns || !per || nu > VGPU_MARK_MAX ||
	    p->launches + 2 * (uint64_t)m > span / per)
		return 0;
	now = qnow(q);
	if (now - p->since_ns >= q->defer_ns)
		return 0;
	memcpy(p->streams, u, sizeof(u[0]) * (size_t)nu);
	p->n = nu;
	p->launches += (uint64_t)m;
	return 1;
}

int libvgpu_queue_mark(struct vgpu_queue *q, int g, uint32_t grant, void *const *win, int m)
{
	struct vgpu_qdefer *p = &vgpu_qdefer;
	void *d[VGPU_MARK_MAX], *u[2 * VGPU_MARK_MAX], *ctx;
	int nd, nu, depth = q->depth, newm, fresh;
	struct vgpu_qgpu *qg;
	unsigned int gen, token;

	if (g < 0 || g >= VGPU_DEV_GPUS || __atomic_load_n(&q->off, __ATOMIC_RELAXED))
		return m;
	if (m > VGPU_MARK_MAX)
		m = VGPU_MARK_MAX;
	if (depth < 1 || depth > VGPU_QUEUE_DEPTH_MAX)
		depth = depth < 1 ? 1 : VGPU_QUEUE_DEPTH_MAX;
	qg = qgpu(q, g);
	ctx = q->ops->ctx(q->arg);
	if (!qg || !ctx)
		return m;
	gen = __atomic_load_n(&q->gen, __ATOMIC_RELAXED);
	fresh = p->q != q || p->gpu != g || p->ctx != ctx || p->gen != gen;
	if (fresh) {
		/* Another GPU or context, or a context gone: start afresh
		 * with a recorded mark (queue.h: what a thread switching
		 * GPUs leaves), so that a thread taking turns on GPUs
		 * records every mark. */
		*p = (struct vgpu_qdefer){ .q = q, .gpu = g, .ctx = ctx, .gen = gen };
	}
	nd = distinct(win, m, d);
	nu = merge(p->streams, p->n, d, nd, u);
	if (!fresh && defer(q, qg, depth, m, u, nu))
		return m;
	token = q->ops->relax ? q->ops->relax(q->arg) : 0;
	if (nu > VGPU_MARK_MAX) {
		/* Too many streams for one mark: the deferred ones first. */
		mark_streams(q, qg, g, grant, ctx, depth, p->streams, p->n, p->launches);
		p->launches = 0;
		nu = nd;
		memcpy(u, d, sizeof(d[0]) * (size_t)nd);
	}
	newm = mark_streams(q, qg, g, grant, ctx, depth, u, nu, p->launches + (uint64_t)m);
	if (q->ops->unrelax)
		q->ops->unrelax(q->arg, token);
	p->n = 0;
	p->launches = 0;
	p->gen = __atomic_load_n(&q->gen, __ATOMIC_RELAXED);
	p->since_ns = qnow(q);
	return newm < 0 ? m : newm;
}

void libvgpu_queue_ctx_gone(struct vgpu_queue *q, void *ctx, int destroy)
{
	for (int g = 0; g < VGPU_DEV_GPUS; g++) {
		struct vgpu_qgpu *qg = __atomic_load_n(&q->gpu[g], __ATOMIC_ACQUIRE);
		void *out[VGPU_QUEUE_DEPTH_MAX * VGPU_MARK_MAX + VGPU_MARK_MAX + VGPU_QUEUE_SPARE];
		int n = 0;

		if (!qg)
			continue;
		pthread_mutex_lock(&qg->lk);
		__atomic_add_fetch(&q->gen, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < VGPU_QUEUE_DEPTH_MAX; i++) {
			struct vgpu_qslot *s = &qg->slot[i];
			int k = 0;

			if (s->state != VGPU_QS_FULL)
				continue;	/* a busy slot's mark drops its events */
			for (int j = 0; j < s->n; j++) {
				if (s->e[j].ctx == ctx)
					out[n++] = s->e[j].ev;
				else
					s->e[k++] = s->e[j];
			}
			s->n = k;
			if (!k)
				s->state = VGPU_QS_EMPTY;
		}
		for (int i = 0; i < VGPU_MARK_MAX; i++)
			if (qg->prev[i].ev && qg->prev[i].ctx == ctx) {
				out[n++] = qg->prev[i].ev;
				qg->prev[i].ev = NULL;
			}
		for (int i = 0; i < qg->nspare; ) {
			if (qg->spare[i].ctx == ctx) {
				out[n++] = qg->spare[i].ev;
				qg->spare[i] = qg->spare[--qg->nspare];
			} else {
				i++;
			}
		}
		pthread_mutex_unlock(&qg->lk);
		for (int i = 0; destroy && i < n; i++)
			q->ops->destroy(q->arg, out[i]);
	}
}

uint64_t libvgpu_queue_dev_ns(struct vgpu_queue *q, int g)
{
	struct vgpu_qgpu *qg;
	uint64_t v;

	if (g < 0 || g >= VGPU_DEV_GPUS || !(qg = __atomic_load_n(&q->gpu[g], __ATOMIC_ACQUIRE)))
		return 0;
	pthread_mutex_lock(&qg->lk);
	v = qg->dev_ns;
	pthread_mutex_unlock(&qg->lk);
	return v;
}

void libvgpu_queue_reset(struct vgpu_queue *q)
{
	for (int g = 0; g < VGPU_DEV_GPUS; g++) {
		free(q->gpu[g]);	/* the child is single-threaded */
		q->gpu[g] = NULL;
	}
	vgpu_qdefer = (struct vgpu_qdefer){ 0 };
	q->off = 0;
	q->gen = 0;
}
