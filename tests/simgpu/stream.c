// SPDX-License-Identifier: GPL-2.0
/*
 * Streams: each has a worker thread that runs its queued operations in
 * order (kernels on the shared engine, copies, sets, event records and
 * waits, host functions, stream-ordered frees). The legacy NULL stream and
 * the per-thread default streams are ordinary streams created on demand.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "simgpu.h"

/* Operations queued on any stream and not completed; under simgpu_lk. */
static uint64_t ops_pending;

static uint64_t next_stream_id = 1;

struct ptds {
	struct CUctx_st *ctx;
	uint64_t ctx_id;
	struct CUstream_st *s;
};
static __thread struct ptds tls_ptds[4];

struct sg_op *simgpu_op_new(enum sg_op_kind kind)
{
	struct sg_op *op = calloc(1, sizeof(*op));

	if (op)
		op->kind = kind;
	return op;
}

/*
 * An op that holds the engine for ns: a kernel, or a copy or set (move:
 * its data is moved first, so that no one sees its end before the data is
 * in place). Synchronising threads see the end too: they need not wait
 * for this thread to wake (stream_done()), as a GPU's completion does not
 * wait for a host thread, whether a kernel or a DMA engine did the work.
 */
static void run_engine(struct CUstream_st *s, uint64_t ns, const struct sg_op *move)
{
	uint64_t token, end = simgpu_kernel_begin(s->ctx->dev, ns, s->clock_ns, &token);

	if (move)
		simgpu_move(move);
	pthread_mutex_lock(&simgpu_lk);
	s->run_end = end;
	if (simgpu_sync_waiters)
		pthread_cond_broadcast(&simgpu_cv);
	pthread_mutex_unlock(&simgpu_lk);
	simgpu_kernel_finish(s->ctx->dev, token, end);
	s->clock_ns = end;
}

/*
 * Device time: an operation starts when it was queued or when the one
 * before it on the stream ended, whichever is later, as on a GPU that has
 * the work queued; the host thread running it may wake later than that.
 */
static void run_op(struct CUstream_st *s, struct sg_op *op)
{
	if (s->clock_ns < op->ready_ns)
		s->clock_ns = op->ready_ns;
	switch (op->kind) {
	case SG_OP_KERNEL:
		run_engine(s, op->ns, NULL);
		break;
	case SG_OP_COPY:
	case SG_OP_SET:
		run_engine(s, simgpu_op_copy_ns(op), op);
		break;
	case SG_OP_RECORD:
		pthread_mutex_lock(&simgpu_lk);
		if (op->ev->done < op->seq) {
			op->ev->done = op->seq;
			op->ev->t_ns = s->clock_ns;
		}
		pthread_mutex_unlock(&simgpu_lk);
		break;
	case SG_OP_WAIT:
		pthread_mutex_lock(&simgpu_lk);
		while (op->ev->done < op->seq && !simgpu_exiting)
			pthread_cond_wait(&simgpu_cv, &simgpu_lk);
		if (s->clock_ns < op->ev->t_ns)
			s->clock_ns = op->ev->t_ns;
		pthread_mutex_unlock(&simgpu_lk);
		break;
	case SG_OP_HOST:
		op->fn(op->arg);
		s->clock_ns = simgpu_now_ns();
		break;
	case SG_OP_POOL_FREE:
		simgpu_pool_free_op(op->ptr);
		break;
	case SG_OP_UNCHARGE:
		simgpu_uncharge(s->ctx->dev, op->n);
		break;
	case SG_OP_WAIT_VALUE:
		simgpu_wait_value(op);
		if (s->clock_ns < simgpu_now_ns())
			s->clock_ns = simgpu_now_ns();
		break;
	case SG_OP_STOP:
		break;
	}
}

static void *worker(void *arg)
{
	struct CUstream_st *s = arg;

	/* Kernels end on time, not up to 50 us late (the default slack). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_mutex_lock(&simgpu_lk);
	for (;;) {
		struct sg_op *op = s->head;

		if (!op) {
			pthread_cond_wait(&s->cv, &simgpu_lk);
			continue;
		}
		pthread_mutex_unlock(&simgpu_lk);
		run_op(s, op);
		pthread_mutex_lock(&simgpu_lk);
		s->head = op->next;
		if (!s->head)
			s->tail = NULL;
		s->run_end = 0;
		s->completed++;
		ops_pending--;
		pthread_cond_broadcast(&simgpu_cv);
		if (op->kind == SG_OP_STOP) {
			free(op);
			break;
		}
		free(op);
	}
	/* Unlink and free the destroyed stream. */
	for (struct CUstream_st **pp = &s->ctx->streams; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	s->magic = 0;
	pthread_cond_broadcast(&simgpu_cv);
	pthread_mutex_unlock(&simgpu_lk);
	pthread_cond_destroy(&s->cv);
	free(s);
	return NULL;
}

static struct CUstream_st *stream_new(struct CUctx_st *ctx, unsigned int flags,
				      int prio, int kind)
{
	struct CUstream_st *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->magic = SG_STREAM_MAGIC;
	s->ctx = ctx;
	s->flags = flags;
	s->prio = prio;
	s->kind = kind;
	pthread_cond_init(&s->cv, NULL);
	pthread_mutex_lock(&simgpu_lk);
	s->id = next_stream_id++;
	s->next = ctx->streams;
	ctx->streams = s;
	pthread_mutex_unlock(&simgpu_lk);
	return s;
}

/* Queue op on s (takes ownership of op). */
CUresult simgpu_stream_submit(struct CUstream_st *s, struct sg_op *op)
{
	CUresult rc = CUDA_SUCCESS;

	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (__atomic_load_n(&simgpu_captures, __ATOMIC_RELAXED) && simgpu_capture_op(s, op, &rc))
		return rc;	/* captured (capture.c) */
	pthread_mutex_lock(&simgpu_lk);
	if (!s->started) {
		pthread_t t;
		pthread_attr_t a;

		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &a, worker, s))
			rc = CUDA_ERROR_OUT_OF_MEMORY;
		else
			s->started = 1;
		pthread_attr_destroy(&a);
	}
	if (!rc) {
		if (op->kind == SG_OP_RECORD)
			op->ev->cap_id = 0;	/* recorded outside any capture */
		op->ready_ns = simgpu_now_ns();
		if (s->tail)
			s->tail->next = op;
		else
			s->head = op;
		s->tail = op;
		s->submitted++;
		ops_pending++;
		pthread_cond_signal(&s->cv);
	} else {
		free(op);
	}
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

/* Map a handle (NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD or a stream)
 * to a stream object; ptds: the caller is a _ptsz/_ptds entry point. */
CUresult simgpu_stream_resolve(CUstream h, int ptds, struct CUstream_st **out)
{
	struct CUctx_st *ctx;
	CUresult rc;

	SG_INIT_CHECK();
	if (h && h != CU_STREAM_LEGACY && h != CU_STREAM_PER_THREAD) {
		if (h->magic != SG_STREAM_MAGIC || h->destroyed)
			return CUDA_ERROR_INVALID_HANDLE;
		if (!simgpu_ctx_valid(h->ctx))
			return CUDA_ERROR_CONTEXT_IS_DESTROYED;
		*out = h;
		return CUDA_SUCCESS;
	}
	rc = simgpu_ctx_get(&ctx);
	if (rc)
		return rc;
	if (h == CU_STREAM_PER_THREAD || (!h && ptds)) {
		struct ptds *slot = NULL;

		for (int i = 0; i < 4; i++) {
			if (tls_ptds[i].ctx == ctx && tls_ptds[i].ctx_id == ctx->id &&
			    tls_ptds[i].s && tls_ptds[i].s->magic == SG_STREAM_MAGIC) {
				*out = tls_ptds[i].s;
				return CUDA_SUCCESS;
			}
		}
		for (int i = 0; i < 4 && !slot; i++)
			if (!tls_ptds[i].s || tls_ptds[i].s->magic != SG_STREAM_MAGIC ||
			    !simgpu_ctx_valid(tls_ptds[i].ctx))
				slot = &tls_ptds[i];
		if (!slot)
			slot = &tls_ptds[0];
		slot->s = stream_new(ctx, 0, 0, 2);
		if (!slot->s)
			return CUDA_ERROR_OUT_OF_MEMORY;
		slot->ctx = ctx;
		slot->ctx_id = ctx->id;
		*out = slot->s;
		return CUDA_SUCCESS;
	}
	pthread_mutex_lock(&simgpu_lk);
	if (!ctx->null_stream) {
		pthread_mutex_unlock(&simgpu_lk);
		struct CUstream_st *s = stream_new(ctx, 0, 0, 1);

		if (!s)
			return CUDA_ERROR_OUT_OF_MEMORY;
		pthread_mutex_lock(&simgpu_lk);
		if (!ctx->null_stream)
			ctx->null_stream = s;
		else
			s->destroyed = 1;	/* lost a race: never used */
	}
	*out = ctx->null_stream;
	pthread_mutex_unlock(&simgpu_lk);
	return CUDA_SUCCESS;
}

/* Wait until every stream of the process has run what was queued on it
 * (a checkpoint "waits for submitted work": checkpoint.c). */
void simgpu_stream_drain(void)
{
	pthread_mutex_lock(&simgpu_lk);
	while (ops_pending)
		pthread_cond_wait(&simgpu_cv, &simgpu_lk);
	pthread_mutex_unlock(&simgpu_lk);
}

/* Threads in simgpu_stream_sync() or simgpu_ctx_sync(); under simgpu_lk. */
unsigned int simgpu_sync_waiters;

/*
 * Whether s has run its first target operations by device time now: done,
 * or the running one is a kernel whose device end has come (its thread may
 * not have woken yet) and the rest are event records, which take no device
 * time: they are completed here (the worker's record is idempotent). Else
 * *wake is lowered to the kernel's end, if that is what is awaited.
 * Under simgpu_lk.
 */
static int stream_done(struct CUstream_st *s, uint64_t target, uint64_t now, uint64_t *wake)
{
	struct sg_op *op;
	uint64_t n;

	if (s->completed >= target)
		return 1;
	if (!s->run_end || !s->head)
		return 0;
	for (op = s->head->next, n = s->completed + 1; n < target; op = op->next, n++)
		if (!op || op->kind != SG_OP_RECORD)
			return 0;
	if (now < s->run_end) {
		if (s->run_end < *wake)
			*wake = s->run_end;
		return 0;
	}
	for (op = s->head->next, n = s->completed + 1; n < target; op = op->next, n++) {
		if (op->ev->done < op->seq) {
			op->ev->done = op->seq;
			op->ev->t_ns = op->ready_ns > s->run_end ? op->ready_ns : s->run_end;
		}
	}
	return 1;
}

/* Sleep on simgpu_cv until woken or until wake (UINT64_MAX: no limit). */
static void sync_sleep(uint64_t wake)
{
	struct timespec ts = {
		(time_t)(wake / 1000000000ULL), (long)(wake % 1000000000ULL)
	};

	simgpu_sync_waiters++;
	if (wake == UINT64_MAX)
		pthread_cond_wait(&simgpu_cv, &simgpu_lk);
	else
		pthread_cond_timedwait(&simgpu_cv, &simgpu_lk, &ts);
	simgpu_sync_waiters--;
}

CUresult simgpu_stream_sync(struct CUstream_st *s)
{
	uint64_t target, wake = UINT64_MAX;

	pthread_mutex_lock(&simgpu_lk);
	target = s->submitted;
	while (s->magic == SG_STREAM_MAGIC && !stream_done(s, target, simgpu_now_ns(), &wake)) {
		sync_sleep(wake);
		wake = UINT64_MAX;
	}
	pthread_mutex_unlock(&simgpu_lk);
	simgpu_pool_trim_all();
	return CUDA_SUCCESS;
}

CUresult simgpu_ctx_sync(struct CUctx_st *ctx)
{
	pthread_mutex_lock(&simgpu_lk);
	for (;;) {
		uint64_t now = simgpu_now_ns(), wake = UINT64_MAX;
		struct CUstream_st *s;

		for (s = ctx->streams; s; s = s->next)
			if (!stream_done(s, s->submitted, now, &wake))
				break;
		if (!s)
			break;
		sync_sleep(wake);
	}
	pthread_mutex_unlock(&simgpu_lk);
	simgpu_pool_trim_all();
	return CUDA_SUCCESS;
}

static void stream_stop(struct CUstream_st *s)
{
	s->destroyed = 1;
	if (s->started) {
		simgpu_stream_submit(s, simgpu_op_new(SG_OP_STOP));
		return;
	}
	pthread_mutex_lock(&simgpu_lk);
	for (struct CUstream_st **pp = &s->ctx->streams; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	}
	s->magic = 0;
	pthread_mutex_unlock(&simgpu_lk);
	pthread_cond_destroy(&s->cv);
	free(s);
}

/* The context is going away: its streams end after their queued work. */
void simgpu_stream_destroy_all(struct CUctx_st *ctx)
{
	struct CUstream_st *list[256];
	int n = 0;

	pthread_mutex_lock(&simgpu_lk);
	for (struct CUstream_st *s = ctx->streams; s && n < 256; s = s->next)
		if (!s->destroyed)
			list[n++] = s;
	ctx->null_stream = NULL;
	pthread_mutex_unlock(&simgpu_lk);
	for (int i = 0; i < n; i++)
		stream_stop(list[i]);
}

/* ---- API ---- */

SG_API CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
	SG_GATE();
	struct CUctx_st *ctx;
	CUresult rc = simgpu_ctx_get(&ctx);

	if (rc)
		return rc;
	if (!phStream || flags > CU_STREAM_NON_BLOCKING)
		return CUDA_ERROR_INVALID_VALUE;
	return simgpu_stream_create(ctx, phStream, flags, priority);
}

CUresult simgpu_stream_create(struct CUctx_st *ctx, CUstream *ph, unsigned int flags, int prio)
{
	if (prio > 0)
		prio = 0;
	if (prio < -5)
		prio = -5;
	*ph = stream_new(ctx, flags, prio, 0);
	return *ph ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

SG_API CUresult cuStreamCreate(CUstream *phStream, unsigned int flags)
{
	SG_GATE();
	return cuStreamCreateWithPriority(phStream, flags, 0);
}

SG_API CUresult cuStreamDestroy_v2(CUstream h)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD ||
	    h->magic != SG_STREAM_MAGIC || h->destroyed || h->kind)
		return CUDA_ERROR_INVALID_HANDLE;
	stream_stop(h);
	return CUDA_SUCCESS;
}

SG_API CUresult cuStreamDestroy(CUstream h)
{
	SG_GATE();
	return cuStreamDestroy_v2(h);
}

#define STREAM_FN(name, ptds)						\
SG_API CUresult name(CUstream h)					\
{									\
	SG_GATE();							\
	struct CUstream_st *s;						\
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);		\
	if (!rc)							\
		rc = simgpu_capture_sync_stream(s);			\
	return rc ? rc : BODY(s);					\
}

static CUresult query(struct CUstream_st *s)
{
	CUresult rc;

	pthread_mutex_lock(&simgpu_lk);
	rc = s->completed < s->submitted ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS;
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

#define BODY simgpu_stream_sync
STREAM_FN(cuStreamSynchronize, 0)
STREAM_FN(cuStreamSynchronize_ptsz, 1)
#undef BODY
#define BODY query
STREAM_FN(cuStreamQuery, 0)
STREAM_FN(cuStreamQuery_ptsz, 1)
#undef BODY

static CUresult wait_event(CUstream h, CUevent ev, int ptds)
{
	struct CUstream_st *s;
	struct sg_op *op;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	if (!ev || ev->magic != SG_EVENT_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	op = simgpu_op_new(SG_OP_WAIT);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->ev = ev;
	pthread_mutex_lock(&simgpu_lk);
	op->seq = ev->recorded;
	pthread_mutex_unlock(&simgpu_lk);
	return simgpu_stream_submit(s, op);
}

SG_API CUresult cuStreamWaitEvent(CUstream h, CUevent ev, unsigned int flags)
{
	SG_GATE();
	(void)flags;
	return wait_event(h, ev, 0);
}

SG_API CUresult cuStreamWaitEvent_ptsz(CUstream h, CUevent ev, unsigned int flags)
{
	SG_GATE();
	(void)flags;
	return wait_event(h, ev, 1);
}

#define STREAM_GET(name, ptds, type, expr)				\
SG_API CUresult name(CUstream h, type *out)				\
{									\
	SG_GATE();							\
	struct CUstream_st *s;						\
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);		\
	if (rc)								\
		return rc;						\
	if (!out)							\
		return CUDA_ERROR_INVALID_VALUE;			\
	*out = (expr);							\
	return CUDA_SUCCESS;						\
}

STREAM_GET(cuStreamGetPriority, 0, int, s->prio)
STREAM_GET(cuStreamGetPriority_ptsz, 1, int, s->prio)
STREAM_GET(cuStreamGetFlags, 0, unsigned int, s->flags)
STREAM_GET(cuStreamGetFlags_ptsz, 1, unsigned int, s->flags)
STREAM_GET(cuStreamGetCtx, 0, CUcontext, s->ctx)
STREAM_GET(cuStreamGetCtx_ptsz, 1, CUcontext, s->ctx)
#if CUDA_VERSION >= 12080
/* A stream belongs to its context's device, current or not. */
STREAM_GET(cuStreamGetDevice, 0, CUdevice, s->ctx->dev)
STREAM_GET(cuStreamGetDevice_ptsz, 1, CUdevice, s->ctx->dev)
#endif
#if CUDA_VERSION >= 12000
STREAM_GET(cuStreamGetId, 0, unsigned long long, s->id)
STREAM_GET(cuStreamGetId_ptsz, 1, unsigned long long, s->id)
#endif

static CUresult host_fn(CUstream h, CUhostFn fn, void *arg, int ptds)
{
	struct CUstream_st *s;
	struct sg_op *op;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	if (!fn)
		return CUDA_ERROR_INVALID_VALUE;
	op = simgpu_op_new(SG_OP_HOST);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->fn = fn;
	op->arg = arg;
	return simgpu_stream_submit(s, op);
}

SG_API CUresult cuLaunchHostFunc(CUstream h, CUhostFn fn, void *userData)
{
	SG_GATE();
	return host_fn(h, fn, userData, 0);
}

SG_API CUresult cuLaunchHostFunc_ptsz(CUstream h, CUhostFn fn, void *userData)
{
	SG_GATE();
	return host_fn(h, fn, userData, 1);
}

#if CUDA_VERSION >= 12050
static CUresult get_ctx_v2(CUstream h, CUcontext *pctx, CUgreenCtx *pg, int ptds)
{
	struct CUstream_st *s;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	if (!pctx || !pg)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = s->ctx;
	*pg = s->ctx->green;	/* NULL unless a green context's */
	return CUDA_SUCCESS;
}

SG_API CUresult cuStreamGetCtx_v2(CUstream h, CUcontext *pctx, CUgreenCtx *pg)
{
	SG_GATE();
	return get_ctx_v2(h, pctx, pg, 0);
}

SG_API CUresult cuStreamGetCtx_v2_ptsz(CUstream h, CUcontext *pctx, CUgreenCtx *pg)
{
	SG_GATE();
	return get_ctx_v2(h, pctx, pg, 1);
}
#endif
