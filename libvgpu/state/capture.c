// SPDX-License-Identifier: GPL-2.0
/*
 * Stream capture (issue #14): the captures the process has live, so that
 * libvgpu never makes a call that a capture forbids.
 *
 * CUDA prohibits, while a stream captures, synchronising or querying it,
 * its context (cuCtxSynchronize: "a broader handle which encompasses an
 * active stream capture") or a captured event, whatever the mode; and in
 * GLOBAL mode (the default) "potentially unsafe" calls such as
 * cuEventSynchronize / cuEventQuery from any thread not in RELAXED mode
 * while any GLOBAL capture is live. An illegal call invalidates the
 * capture, and the application's cuStreamEndCapture then fails. libvgpu's
 * own such calls are the gate's drain (cuCtxSynchronize, gatedev.c) and
 * the queue bound's events (queue.c, qevents.c):
 *
 * - a launch onto a capturing stream is not gated, counted or marked: it
 *   runs when its graph is launched, and cuGraphLaunch is gated like a
 *   launch (graph.c), which is where its device time is spent;
 * - the gate's drain is skipped while any capture is live (a launch onto
 *   another stream still waits at a closed gate, without draining first);
 * - the queue bound's marks go on: their event calls are made in RELAXED
 *   mode (libvgpu_capture_relax), where the driver allows them whatever
 *   other threads capture, and an event is never recorded on a stream
 *   that captures (qevents.c). So the work a process queues stays bounded
 *   while it captures, which PyTorch does for long stretches.
 *
 * Beginning (issue 28, finding 3): a check that no capture is live, or
 * that a stream does not capture, and the call it allows must not be
 * split by a capture begun in between by another thread; the driver's
 * begin returns before libvgpu counts the capture. So the checks and
 * their calls run in sections (libvgpu_capture_enter/_leave), and
 * cuStreamBeginCapture* first raises vgpu_cap_opening, which turns new
 * sections away, waits for those in flight to leave, then calls the
 * driver and counts the capture. A section is an event record
 * (microseconds) or a drain (the work queued, which the queue bound keeps
 * short); a beginning waits for them at most VGPU_CAPTURE_WAIT_NS, then
 * goes on with a warning, as a drain can wait on work that itself waits
 * for the host (a stream memory operation the beginning thread would
 * write later).
 *
 * Captures are counted between a successful cuStreamBeginCapture* and the
 * cuStreamEndCapture after which the stream no longer captures (the
 * driver ends a capture even when it fails it as invalidated or
 * unjoined).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../logic/clock.h"
#include "capture.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "../access/nest.h"

int libvgpu_captures;

#define VGPU_CAPTURE_WAIT_NS 1000000000ULL

/* Captures beginning; sections in flight ("Beginning" above). */
static int vgpu_cap_opening;
static int vgpu_cap_inflight;

struct cap {
	struct cap *next;
	void *stream;		/* CU_STREAM_PER_THREAD: of thread */
	pthread_t thread;
};

static struct cap *vgpu_caps;
static pthread_mutex_t vgpu_cap_lk = PTHREAD_MUTEX_INITIALIZER;

int libvgpu_capture_stream(void *stream)
{
	vgpu_pfn_cuStreamIsCapturing is = REAL(cuStreamIsCapturing);
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	CUresult rc;

	if (!vgpu_capture_live() || !is)
		return 0;
	rc = is((CUstream)stream, &st);
	if (rc == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
		return 1;
	return rc == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

int libvgpu_capture_enter(void)
{
	__atomic_add_fetch(&vgpu_cap_inflight, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&vgpu_cap_opening, __ATOMIC_SEQ_CST))
		return 1;
	__atomic_sub_fetch(&vgpu_cap_inflight, 1, __ATOMIC_SEQ_CST);
	return 0;
}

void libvgpu_capture_leave(void)
{
	__atomic_sub_fetch(&vgpu_cap_inflight, 1, __ATOMIC_SEQ_CST);
}

int libvgpu_capture_relax(CUstreamCaptureMode *old)
{
	vgpu_pfn_cuThreadExchangeStreamCaptureMode x = REAL(cuThreadExchangeStreamCaptureMode);

	*old = CU_STREAM_CAPTURE_MODE_RELAXED;
	return x && x(old) == CUDA_SUCCESS;
}

void libvgpu_capture_unrelax(CUstreamCaptureMode old)
{
	vgpu_pfn_cuThreadExchangeStreamCaptureMode x = REAL(cuThreadExchangeStreamCaptureMode);

	if (x)
		x(&old);
}

/* Before a capture begins: turn new sections away, and wait for those in
 * flight to leave (at most VGPU_CAPTURE_WAIT_NS). */
static void opening(void)
{
	const struct timespec nap = { 0, 20000 };
	uint64_t t0 = 0;

	__atomic_add_fetch(&vgpu_cap_opening, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&vgpu_cap_inflight, __ATOMIC_SEQ_CST)) {
		if (!t0) {
			t0 = libvgpu_mono_ns();
		} else if (libvgpu_mono_ns() - t0 >= VGPU_CAPTURE_WAIT_NS) {
			libvgpu_log(VGPU_LOG_WARN, "capture: libvgpu's drain still runs after "
				    "%llu ms: the capture begins beside it",
				    VGPU_CAPTURE_WAIT_NS / 1000000ULL);
			return;
		}
		nanosleep(&nap, NULL);
	}
}

static void opened(void)
{
	__atomic_sub_fetch(&vgpu_cap_opening, 1, __ATOMIC_SEQ_CST);
}

static void begun(CUstream h, int ptsz)
{
	struct cap *c = calloc(1, sizeof(*c));
	int n;

	if (!c) {
		libvgpu_log(VGPU_LOG_WARN, "capture: out of memory: drains and marks go on");
		return;
	}
	c->stream = vgpu_capture_key(h, ptsz);
	c->thread = pthread_self();
	pthread_mutex_lock(&vgpu_cap_lk);
	c->next = vgpu_caps;
	vgpu_caps = c;
	n = __atomic_add_fetch(&libvgpu_captures, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&vgpu_cap_lk);
	libvgpu_log(VGPU_LOG_DEBUG, "capture begun on stream %p: %d live", c->stream, n);
}

/* After cuStreamEndCapture on h: forget the capture if h left it. */
static void ended(CUstream h, int ptsz)
{
	vgpu_pfn_cuStreamIsCapturing is = REAL(cuStreamIsCapturing);
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	void *k = vgpu_capture_key(h, ptsz);
	struct cap **pp, *c = NULL;

	if (is && is((CUstream)k, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE) {
		libvgpu_log(VGPU_LOG_DEBUG, "capture on stream %p goes on", k);
		return;
	}
	pthread_mutex_lock(&vgpu_cap_lk);
	for (pp = &vgpu_caps; *pp; pp = &(*pp)->next) {
		if ((*pp)->stream == k && (k != (void *)CU_STREAM_PER_THREAD ||
					   pthread_equal((*pp)->thread, pthread_self()))) {
			c = *pp;
			*pp = c->next;
			__atomic_sub_fetch(&libvgpu_captures, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	pthread_mutex_unlock(&vgpu_cap_lk);
	libvgpu_log(VGPU_LOG_DEBUG, "capture on stream %p ended: %d live", k,
		    __atomic_load_n(&libvgpu_captures, __ATOMIC_RELAXED));
	free(c);
}

#define BEGIN(sym, params, args, h, ptsz)					\
VGPU_EXPORT CUresult sym params							\
{										\
	VGPU_PASS_NESTED(sym, args);						\
	vgpu_pfn_##sym real = REAL(sym);					\
	CUresult rc;								\
										\
	if (!real)								\
		return CUDA_ERROR_NOT_INITIALIZED;				\
	opening();								\
	rc = real args;								\
	if (rc == CUDA_SUCCESS)							\
		begun(h, ptsz);							\
	opened();								\
	return rc;								\
}

BEGIN(cuStreamBeginCapture, (CUstream hStream), (hStream), hStream, 0)
BEGIN(cuStreamBeginCapture_ptsz, (CUstream hStream), (hStream), hStream, 1)
BEGIN(cuStreamBeginCapture_v2, (CUstream hStream, CUstreamCaptureMode mode),
      (hStream, mode), hStream, 0)
BEGIN(cuStreamBeginCapture_v2_ptsz, (CUstream hStream, CUstreamCaptureMode mode),
      (hStream, mode), hStream, 1)
#if CUDA_VERSION >= 12030
BEGIN(cuStreamBeginCaptureToGraph,
      (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
       const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode),
      (hStream, hGraph, dependencies, dependencyData, numDependencies, mode), hStream, 0)
BEGIN(cuStreamBeginCaptureToGraph_ptsz,
      (CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
       const CUgraphEdgeData *dependencyData, size_t numDependencies, CUstreamCaptureMode mode),
      (hStream, hGraph, dependencies, dependencyData, numDependencies, mode), hStream, 1)
#endif

static CUresult end(vgpu_pfn_cuStreamEndCapture real, CUstream h, CUgraph *g, int ptsz)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(h, g);
	if (vgpu_capture_live())
		ended(h, ptsz);
	return rc;
}

VGPU_EXPORT CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
	VGPU_PASS_NESTED(cuStreamEndCapture, (hStream, phGraph));
	return end(REAL(cuStreamEndCapture), hStream, phGraph, 0);
}

VGPU_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
	VGPU_PASS_NESTED(cuStreamEndCapture_ptsz, (hStream, phGraph));
	return end(REAL(cuStreamEndCapture_ptsz), hStream, phGraph, 1);
}

/* In a forked child (init.c): the captures were the parent's, begun by
 * its threads on its driver state; none goes on in the child. */
void libvgpu_capture_reset(void)
{
	struct cap *c = vgpu_caps, *next;

	pthread_mutex_init(&vgpu_cap_lk, NULL);
	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	vgpu_caps = NULL;
	__atomic_store_n(&libvgpu_captures, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&vgpu_cap_opening, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&vgpu_cap_inflight, 0, __ATOMIC_RELAXED);
}
