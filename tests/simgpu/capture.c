// SPDX-License-Identifier: GPL-2.0
/*
 * Stream capture, as the CUDA Programming Guide ("CUDA Graphs": "Creating
 * a Graph Using Stream Capture", "Cross-stream Dependencies and Events",
 * "Prohibited and Unhandled Operations", "Invalidation") and the driver
 * API (cuStreamBeginCapture, cuThreadExchangeStreamCaptureMode,
 * cuStreamEndCapture, cuStreamIsCapturing) describe it:
 *
 * - operations submitted to a capturing stream do not run: they become
 *   nodes of the capture's graph (kernels, copies, memsets, host
 *   functions, stream-ordered allocations and frees);
 * - an event recorded in a capturing stream is a captured event; a stream
 *   waiting on it joins the capture (a fork), and must be joined back
 *   (the stream that the capture must wait on records an event after its
 *   last captured operation, which a stream of the capture waits on)
 *   before cuStreamEndCapture, else CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
 * - synchronising or querying a capturing stream, a context with one, or a
 *   captured event is illegal; "potentially unsafe" calls (cuMemAlloc,
 *   cuEventQuery/Synchronize, the legacy stream's synchronisation) are
 *   prohibited to a thread whose mode is not RELAXED while it has a
 *   non-relaxed capture live, and, in GLOBAL mode, while any thread has a
 *   GLOBAL capture live. An illegal call fails and invalidates the
 *   capture: further operations on its streams fail with
 *   CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, and cuStreamEndCapture ends it
 *   with that error and a NULL graph.
 *
 * simgpu's graph keeps the nodes in capture order and runs them in that
 * order (graph.c); a wait on an event recorded outside any capture adds
 * no node.
 */
#include <stdlib.h>

#include "graph.h"

struct sg_capture {
	struct sg_capture *next;
	uint64_t id;
	CUstreamCaptureMode mode;
	int invalid;
	int into;		/* cuStreamBeginCaptureToGraph: the caller's graph */
	pthread_t thread;
	struct CUstream_st *origin;
	struct CUgraph_st *graph;
};

int simgpu_captures;			/* atomic: captures in the list */
static struct sg_capture *live;		/* simgpu_lk */
static uint64_t next_id = 1;
static __thread CUstreamCaptureMode tls_mode;	/* GLOBAL: 0 */

static struct sg_capture *by_id(uint64_t id)
{
	struct sg_capture *c;

	for (c = live; c && c->id != id; c = c->next)
		;
	return c;
}

static int in_ctx(struct CUctx_st *ctx, struct CUstream_st *t)
{
	for (struct CUstream_st *s = ctx->streams; s; s = s->next)
		if (s == t)
			return 1;
	return 0;
}

/* s waits on ev (recorded in capture c): a fork joins s into c; an origin
 * waiting on an event recorded after another stream's last operation
 * joins that stream back. Under simgpu_lk. */
static CUresult wait_captured(struct sg_capture *c, struct CUstream_st *s, struct CUevent_st *ev)
{
	struct CUstream_st *src = ev->cap_src;

	if (ev->cap_id != c->id)
		return CUDA_ERROR_STREAM_CAPTURE_ISOLATION;
	if (!s->cap) {
		s->cap = c;
		s->cap_ops = s->cap_joined = 0;
	}
	if (src != s && in_ctx(s->ctx, src) && src->cap == c && ev->cap_mark == src->cap_ops)
		src->cap_joined = src->cap_ops;
	return CUDA_SUCCESS;
}

static CUresult capture(struct sg_capture *c, struct CUstream_st *s, struct sg_op *op)
{
	CUresult rc;

	if (c->invalid)
		return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	switch (op->kind) {
	case SG_OP_RECORD:
		op->ev->cap_id = c->id;
		op->ev->cap_src = s;
		op->ev->cap_mark = s->cap_ops;
		if (op->ev->done < op->seq)
			op->ev->done = op->seq;	/* nothing to wait for now */
		return CUDA_SUCCESS;
	case SG_OP_WAIT:
		if (!op->ev->cap_id)
			return CUDA_SUCCESS;
		rc = wait_captured(c, s, op->ev);
		break;
	default:
		rc = simgpu_graph_add_op(c->graph, op, s->ctx->dev);
		if (!rc)
			s->cap_ops++;
	}
	if (rc)
		c->invalid = 1;
	return rc;
}

int simgpu_capture_op(struct CUstream_st *s, struct sg_op *op, CUresult *rc)
{
	struct sg_capture *c;

	if (op->kind == SG_OP_STOP)
		return 0;
	pthread_mutex_lock(&simgpu_lk);
	c = s->cap;
	if (!c && op->kind == SG_OP_WAIT && op->ev->cap_id)
		c = by_id(op->ev->cap_id);
	if (!c && s->kind == 1) {
		/* The legacy stream synchronises with blocking streams: work
		 * on it would depend on a capturing one (implicit). */
		for (c = live; c && (c->origin->ctx != s->ctx || c->origin->flags); c = c->next)
			;
		if (c) {
			c->invalid = 1;
			*rc = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
			pthread_mutex_unlock(&simgpu_lk);
			free(op);
			return 1;
		}
	}
	if (!c) {
		pthread_mutex_unlock(&simgpu_lk);
		return 0;
	}
	*rc = capture(c, s, op);
	pthread_mutex_unlock(&simgpu_lk);
	free(op);
	return 1;
}

int simgpu_capture_alloc(struct CUstream_st *s, size_t size, CUdeviceptr *dptr, CUresult *rc)
{
	struct CUgraph_st *g = NULL;
	int capturing;
	CUgraphNode n;

	if (!__atomic_load_n(&simgpu_captures, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&simgpu_lk);
	capturing = s->cap != NULL;
	if (capturing && s->cap->invalid)
		*rc = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
	else if (capturing)
		g = s->cap->graph;
	pthread_mutex_unlock(&simgpu_lk);
	if (!g)
		return capturing;
	*rc = simgpu_graph_add_alloc(g, NULL, 0, s->ctx->dev, size, &n);
	if (*rc)
		return 1;
	*dptr = n->ptr;
	pthread_mutex_lock(&simgpu_lk);
	s->cap_ops++;
	pthread_mutex_unlock(&simgpu_lk);
	return 1;
}

CUresult simgpu_capture_unsafe(void)
{
	CUresult rc = CUDA_SUCCESS;

	if (!__atomic_load_n(&simgpu_captures, __ATOMIC_RELAXED) ||
	    tls_mode == CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&simgpu_lk);
	for (struct sg_capture *c = live; c; c = c->next) {
		int mine = pthread_equal(c->thread, pthread_self()) &&
			   c->mode != CU_STREAM_CAPTURE_MODE_RELAXED;

		if (mine || (tls_mode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
			     c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL)) {
			c->invalid = 1;
			rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		}
	}
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

CUresult simgpu_capture_sync_stream(struct CUstream_st *s)
{
	CUresult rc = CUDA_SUCCESS;

	if (!__atomic_load_n(&simgpu_captures, __ATOMIC_RELAXED))
		return CUDA_SUCCESS;
	pthread_mutex_lock(&simgpu_lk);
	if (s->cap) {
		s->cap->invalid = 1;
		rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	pthread_mutex_unlock(&simgpu_lk);
	return rc ? rc : s->kind == 1 ? simgpu_capture_unsafe() : CUDA_SUCCESS;
}

CUresult simgpu_capture_sync_ctx(struct CUctx_st *ctx)
{
	CUresult rc = CUDA_SUCCESS;

	if (!__atomic_load_n(&simgpu_captures, __ATOMIC_RELAXED))
		return CUDA_SUCCESS;
	pthread_mutex_lock(&simgpu_lk);
	for (struct CUstream_st *s = ctx->streams; s; s = s->next) {
		if (s->cap) {
			s->cap->invalid = 1;
			rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		}
	}
	pthread_mutex_unlock(&simgpu_lk);
	return rc ? rc : simgpu_capture_unsafe();
}

CUresult simgpu_capture_sync_event(struct CUevent_st *ev)
{
	struct sg_capture *c;

	pthread_mutex_lock(&simgpu_lk);
	c = ev->cap_id ? by_id(ev->cap_id) : NULL;
	if (c)
		c->invalid = 1;
	pthread_mutex_unlock(&simgpu_lk);
	if (ev->cap_id)
		return CUDA_ERROR_CAPTURED_EVENT;
	return simgpu_capture_unsafe();
}

/* ---- API ---- */

static CUresult begin(CUstream h, int ptds, CUstreamCaptureMode mode, struct CUgraph_st *into)
{
	struct CUstream_st *s;
	struct sg_capture *c;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	if (s->kind == 1 || mode > CU_STREAM_CAPTURE_MODE_RELAXED ||
	    (into && (into->magic != SG_GRAPH_MAGIC || into->owned)))
		return CUDA_ERROR_INVALID_VALUE;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->graph = into ? into : simgpu_graph_new())) {
		free(c);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	c->into = into != NULL;
	c->mode = mode;
	c->thread = pthread_self();
	c->origin = s;
	pthread_mutex_lock(&simgpu_lk);
	if (s->cap) {
		pthread_mutex_unlock(&simgpu_lk);
		if (!c->into)
			simgpu_graph_free(c->graph);
		free(c);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	c->id = next_id++;
	c->next = live;
	live = c;
	s->cap = c;
	s->cap_ops = s->cap_joined = 0;
	__atomic_add_fetch(&simgpu_captures, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&simgpu_lk);
	/* The capture is live, the caller does not know it yet: the window
	 * in which another thread's check "no capture is live" goes stale. */
	simgpu_pause_point("cuStreamBeginCapture:live");
	return CUDA_SUCCESS;
}

SG_API CUresult cuStreamBeginCapture(CUstream h)
{ SG_GATE(); return begin(h, 0, CU_STREAM_CAPTURE_MODE_GLOBAL, NULL); }
SG_API CUresult cuStreamBeginCapture_ptsz(CUstream h)
{ SG_GATE(); return begin(h, 1, CU_STREAM_CAPTURE_MODE_GLOBAL, NULL); }
SG_API CUresult cuStreamBeginCapture_v2(CUstream h, CUstreamCaptureMode mode)
{ SG_GATE(); return begin(h, 0, mode, NULL); }
SG_API CUresult cuStreamBeginCapture_v2_ptsz(CUstream h, CUstreamCaptureMode mode);
SG_API CUresult cuStreamBeginCapture_v2_ptsz(CUstream h, CUstreamCaptureMode mode)
{ SG_GATE(); return begin(h, 1, mode, NULL); }

#if CUDA_VERSION >= 12030
/* Into an existing graph; the dependencies given order nothing in a graph
 * run in node order (graph.c). */
static CUresult begin_to(CUstream h, int ptds, CUgraph g, const CUgraphNode *deps, size_t ndeps,
			 CUstreamCaptureMode mode)
{
	if (!g || (ndeps && !deps))
		return CUDA_ERROR_INVALID_VALUE;
	return begin(h, ptds, mode, g);
}

SG_API CUresult cuStreamBeginCaptureToGraph(CUstream h, CUgraph g, const CUgraphNode *deps,
					    const CUgraphEdgeData *edges, size_t ndeps,
					    CUstreamCaptureMode mode)
{ SG_GATE(); (void)edges; return begin_to(h, 0, g, deps, ndeps, mode); }
SG_API CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream h, CUgraph g, const CUgraphNode *deps,
						 const CUgraphEdgeData *edges, size_t ndeps,
						 CUstreamCaptureMode mode);
SG_API CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream h, CUgraph g, const CUgraphNode *deps,
						 const CUgraphEdgeData *edges, size_t ndeps,
						 CUstreamCaptureMode mode)
{ SG_GATE(); (void)edges; return begin_to(h, 1, g, deps, ndeps, mode); }
#endif

SG_API CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	SG_GATE();
	CUstreamCaptureMode old = tls_mode;

	if (!mode || *mode > CU_STREAM_CAPTURE_MODE_RELAXED)
		return CUDA_ERROR_INVALID_VALUE;
	tls_mode = *mode;
	*mode = old;
	return CUDA_SUCCESS;
}

/* Take c out of the live list and its streams out of capture; 1 when a
 * stream of it other than the origin was not joined back. Under
 * simgpu_lk. */
static int finish(struct sg_capture *c)
{
	int unjoined = 0;

	for (struct CUstream_st *t = c->origin->ctx->streams; t; t = t->next) {
		if (t->cap != c)
			continue;
		if (t != c->origin && t->cap_ops != t->cap_joined)
			unjoined = 1;
		t->cap = NULL;
	}
	for (struct sg_capture **pp = &live; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	__atomic_sub_fetch(&simgpu_captures, 1, __ATOMIC_RELAXED);
	return unjoined;
}

static CUresult end(CUstream h, CUgraph *out, int ptds)
{
	struct CUstream_st *s;
	struct sg_capture *c;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);
	int unjoined;

	if (rc)
		return rc;
	if (!out)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&simgpu_lk);
	c = s->cap;
	if (!c || c->origin != s) {
		if (c)
			c->invalid = 1;
		pthread_mutex_unlock(&simgpu_lk);
		return c ? CUDA_ERROR_STREAM_CAPTURE_UNMATCHED : CUDA_ERROR_ILLEGAL_STATE;
	}
	if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && !pthread_equal(c->thread, pthread_self())) {
		pthread_mutex_unlock(&simgpu_lk);
		return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
	}
	unjoined = finish(c);
	pthread_mutex_unlock(&simgpu_lk);
	*out = NULL;
	if (c->invalid || unjoined) {
		if (!c->into)
			simgpu_graph_free(c->graph);
		rc = c->invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED :
				  CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
	} else {
		*out = c->graph;
	}
	free(c);
	return rc;
}

SG_API CUresult cuStreamEndCapture(CUstream h, CUgraph *out)
{ SG_GATE(); return end(h, out, 0); }
SG_API CUresult cuStreamEndCapture_ptsz(CUstream h, CUgraph *out)
{ SG_GATE(); return end(h, out, 1); }

static CUresult status(CUstream h, int ptds, CUstreamCaptureStatus *st, cuuint64_t *id,
		       CUgraph *graph)
{
	struct CUstream_st *s;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);
	struct sg_capture *c;

	if (rc)
		return rc;
	if (!st)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&simgpu_lk);
	c = s->cap;
	if (!c && s->kind == 1) {
		/* The legacy stream while a blocking stream captures: the
		 * documented error; the capture is not invalidated. */
		for (c = live; c && (c->origin->ctx != s->ctx || c->origin->flags); c = c->next)
			;
		rc = c ? CUDA_ERROR_STREAM_CAPTURE_IMPLICIT : CUDA_SUCCESS;
		c = NULL;
	}
	*st = !c ? CU_STREAM_CAPTURE_STATUS_NONE : c->invalid ?
	      CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
	if (c && id)
		*id = c->id;
	if (c && graph)
		*graph = c->graph;
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

SG_API CUresult cuStreamIsCapturing(CUstream h, CUstreamCaptureStatus *st)
{ SG_GATE(); return status(h, 0, st, NULL, NULL); }
SG_API CUresult cuStreamIsCapturing_ptsz(CUstream h, CUstreamCaptureStatus *st)
{ SG_GATE(); return status(h, 1, st, NULL, NULL); }

/* cuStreamGetCaptureInfo_v3: no dependency edges (nodes run in order). */
static CUresult info(CUstream h, int ptds, CUstreamCaptureStatus *st, cuuint64_t *id,
		     CUgraph *graph, const CUgraphNode **deps, const CUgraphEdgeData **edges,
		     size_t *ndeps)
{
	CUresult rc = status(h, ptds, st, id, graph);

	if (!rc && deps)
		*deps = NULL;
	if (!rc && edges)
		*edges = NULL;
	if (!rc && ndeps)
		*ndeps = 0;
	return rc;
}

SG_API CUresult cuStreamGetCaptureInfo_v3(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id,
					  CUgraph *graph, const CUgraphNode **deps,
					  const CUgraphEdgeData **edges, size_t *ndeps)
{ SG_GATE(); return info(h, 0, st, id, graph, deps, edges, ndeps); }
SG_API CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream h, CUstreamCaptureStatus *st,
					       cuuint64_t *id, CUgraph *graph,
					       const CUgraphNode **deps,
					       const CUgraphEdgeData **edges, size_t *ndeps);
SG_API CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream h, CUstreamCaptureStatus *st,
					       cuuint64_t *id, CUgraph *graph,
					       const CUgraphNode **deps,
					       const CUgraphEdgeData **edges, size_t *ndeps)
{ SG_GATE(); return info(h, 1, st, id, graph, deps, edges, ndeps); }
SG_API CUresult cuStreamGetCaptureInfo_v2(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id,
					  CUgraph *graph, const CUgraphNode **deps, size_t *ndeps)
{ SG_GATE(); return info(h, 0, st, id, graph, deps, NULL, ndeps); }
SG_API CUresult cuStreamGetCaptureInfo(CUstream h, CUstreamCaptureStatus *st, cuuint64_t *id)
{ SG_GATE(); return info(h, 0, st, id, NULL, NULL, NULL, NULL); }
