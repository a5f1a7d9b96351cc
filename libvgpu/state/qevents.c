// SPDX-License-Identifier: GPL-2.0
/*
 * The queue bound (queue.h) against the driver: its events are the
 * driver's (created in the current context with CU_EVENT_BLOCKING_SYNC,
 * so that waiting sleeps); M and K come from VGPU_QUEUE_MARK and
 * VGPU_QUEUE_DEPTH at registration (libvgpu_queue_config).
 */
#include <stdlib.h>

#include "capture.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "qevents.h"
#include "state.h"

static void *q_ctx(void *arg)
{
	vgpu_pfn_cuCtxGetCurrent cur = REAL(cuCtxGetCurrent);
	CUcontext c = NULL;

	(void)arg;
	return cur && !cur(&c) ? (void *)c : NULL;
}

static int q_create(void *arg, void **ev)
{
	vgpu_pfn_cuEventCreate f = REAL(cuEventCreate);

	(void)arg;
	return f ? (int)f((CUevent *)ev, CU_EVENT_BLOCKING_SYNC) : (int)CUDA_ERROR_NOT_FOUND;
}

/* Never onto a stream that captures: the event would be captured, and
 * waiting for it illegal (capture.c). The check and the record are one
 * section, which no capture's beginning splits. */
static int q_record(void *arg, void *ev, void *stream)
{
	vgpu_pfn_cuEventRecord f = REAL(cuEventRecord);
	CUresult rc = CUDA_ERROR_NOT_FOUND;

	(void)arg;
	if (!libvgpu_capture_enter())
		return (int)CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (libvgpu_capture_stream(stream))
		rc = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	else if (f)
		rc = f((CUevent)ev, (CUstream)stream);
	libvgpu_capture_leave();
	if (rc)
		libvgpu_log(VGPU_LOG_DEBUG, "queue bound: no event recorded on stream %p (%d)",
			    stream, (int)rc);
	return (int)rc;
}

static int q_sync(void *arg, void *ev)
{
	vgpu_pfn_cuEventSynchronize f = REAL(cuEventSynchronize);

	(void)arg;
	return f ? (int)f((CUevent)ev) : (int)CUDA_ERROR_NOT_FOUND;
}

static int q_query(void *arg, void *ev)
{
	vgpu_pfn_cuEventQuery f = REAL(cuEventQuery);

	(void)arg;
	return f && f((CUevent)ev) == CUDA_ERROR_NOT_READY;
}

static int q_elapsed(void *arg, float *ms, void *a, void *b)
{
	vgpu_pfn_cuEventElapsedTime_v2 f2 = REAL(cuEventElapsedTime_v2);
	vgpu_pfn_cuEventElapsedTime f1 = REAL(cuEventElapsedTime);

	(void)arg;
	return f2 ? (int)f2(ms, (CUevent)a, (CUevent)b) :
	       f1 ? (int)f1(ms, (CUevent)a, (CUevent)b) : (int)CUDA_ERROR_NOT_FOUND;
}

static void q_destroy(void *arg, void *ev)
{
	vgpu_pfn_cuEventDestroy_v2 f = REAL(cuEventDestroy_v2);

	(void)arg;
	if (f)
		f((CUevent)ev);
}

/* A recorded mark's calls in RELAXED capture mode (capture.c); 0 if the
 * mode is unchanged, else the old mode plus one. */
static unsigned int q_relax(void *arg)
{
	CUstreamCaptureMode old;

	(void)arg;
	return libvgpu_capture_relax(&old) ? (unsigned int)old + 1 : 0;
}

static void q_unrelax(void *arg, unsigned int token)
{
	(void)arg;
	if (token)
		libvgpu_capture_unrelax((CUstreamCaptureMode)(token - 1));
}

static void q_failed(void *arg, int gpu, int err)
{
	(void)arg;
	libvgpu_log(VGPU_LOG_WARN, "cannot create CUDA events on GPU %d (error %d): the work "
		    "this process queues is no longer bounded", gpu, err);
}

static const struct vgpu_queue_ops vgpu_queue_ops = {
	.ctx = q_ctx,
	.create = q_create,
	.record = q_record,
	.sync = q_sync,
	.elapsed = q_elapsed,
	.destroy = q_destroy,
	.failed = q_failed,
	.query = q_query,
	.relax = q_relax,
	.unrelax = q_unrelax,
};


struct vgpu_queue libvgpu_queue = {
	.ops = &vgpu_queue_ops,
	.mark = VGPU_MARK_DEFAULT,
	.depth = VGPU_DEPTH_DEFAULT,
	.target_ns = VGPU_TARGET_US_DEFAULT * 1000ULL,
	.defer_ns = VGPU_TARGET_US_DEFAULT * 1000ULL / VGPU_QUEUE_DEFER_DIV,
};

/* VGPU_QUEUE_MARK (M: 0 = off, or a power of two up to VGPU_MARK_MAX),
 * VGPU_QUEUE_DEPTH (K: 1 to VGPU_QUEUE_DEPTH_MAX) and VGPU_QUEUE_US (the
 * queued device time M and K adapt to; 0: fixed). */
void libvgpu_queue_config(void)
{
	const char *m = getenv("VGPU_QUEUE_MARK"), *k = getenv("VGPU_QUEUE_DEPTH");
	const char *us = getenv("VGPU_QUEUE_US");
	unsigned int mark = VGPU_MARK_DEFAULT, depth = VGPU_DEPTH_DEFAULT;
	unsigned long target = VGPU_TARGET_US_DEFAULT;
	char *end;

	if (us && *us) {
		unsigned long v = strtoul(us, &end, 10);

		if (*end || v > 10000000UL)
			libvgpu_log(VGPU_LOG_WARN, "VGPU_QUEUE_US=\"%s\" is not 0 to 10000000: %lu "
				    "kept", us, target);
		else
			target = v;
	}
	libvgpu_queue.target_ns = (uint64_t)target * 1000ULL;
	libvgpu_queue.defer_ns = libvgpu_queue.target_ns / VGPU_QUEUE_DEFER_DIV;
	if (m && *m) {
		unsigned long v = strtoul(m, &end, 10);

		if (*end || (v && (v > VGPU_MARK_MAX || (v & (v - 1)))))
			libvgpu_log(VGPU_LOG_WARN, "VGPU_QUEUE_MARK=\"%s\" is not 0 or a power of "
				    "two up to %d: %u kept", m, VGPU_MARK_MAX, mark);
		else
			mark = (unsigned int)v;
	}
	if (k && *k) {
		unsigned long v = strtoul(k, &end, 10);

		if (*end || !v || v > VGPU_QUEUE_DEPTH_MAX)
			libvgpu_log(VGPU_LOG_WARN, "VGPU_QUEUE_DEPTH=\"%s\" is not 1 to %d: %u kept",
				    k, VGPU_QUEUE_DEPTH_MAX, depth);
		else
			depth = (unsigned int)v;
	}
	libvgpu_queue.depth = (int)depth;
	libvgpu_queue.mark = mark ? (int)mark : 1;
	__atomic_store_n(&libvgpu_gate.mark_mask, mark ? mark - 1 : VGPU_MARK_OFF, __ATOMIC_RELAXED);
	if (mark)
		libvgpu_log(VGPU_LOG_DEBUG, "queue bound: a mark every %u launches of a thread, "
			    "%u marks per GPU, adapting to %lu us of queued work",
			    mark, depth, target);
	else
		libvgpu_log(VGPU_LOG_DEBUG, "queue bound off (VGPU_QUEUE_MARK=0)");
}
