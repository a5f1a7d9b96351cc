// SPDX-License-Identifier: GPL-2.0
/*
 * The gate's operations (gate.h) for the real process: the launch's GPU
 * is its stream's (streamdev.c), the current context's for a default
 * stream (ctxmap.c); the drain synchronises the process's contexts of
 * that GPU (cuCtxSynchronize_v2(ctx) where the driver has the 13.0 form,
 * else cuCtxSynchronize between a push and a pop), the current context
 * if none is known; the wait is VGPU_IOC_WAIT on /dev/vgpu. No lock is
 * held across either.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "capture.h"
#include "ctxmap.h"
#include "devmap.h"
#include "gatedev.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "qevents.h"
#include "state.h"
#include "streamdev.h"
#include "synced.h"

static int gate_gpu(void *ctx, void *stream);
static void gate_drain(void *ctx, int gpu);
static int gate_wait(void *ctx, struct vgpu_dev_wait *w);
static void gate_failed(void *ctx, int gpu, int err);

static const struct vgpu_gate_ops vgpu_gate_ops = {
	.gpu = gate_gpu,
	.drain = gate_drain,
	.wait = gate_wait,
	.failed = gate_failed,
};

/* gen: 0 never matches a thread's cache (libvgpu_gate_tls, gate.c). */
struct vgpu_gate libvgpu_gate = {
	.one_gpu = VGPU_GATE_RESOLVE,
	.gen = 1,
	.mark_mask = VGPU_MARK_DEFAULT - 1,
	.ops = &vgpu_gate_ops,
};

static int gate_gpu(void *ctx, void *stream)
{
	unsigned int gen = __atomic_load_n(&libvgpu_gate.gen, __ATOMIC_ACQUIRE);
	int g;

	(void)ctx;
	if (vgpu_default_stream(stream))
		return libvgpu_ctx_gpu();
	g = libvgpu_stream_gpu(stream);
	if (g == VGPU_GPU_SKIP)
		return g;	/* not cached: a bad stream, the driver answers */
	libvgpu_gate_tls.st = stream;
	libvgpu_gate_tls.st_gpu = g;
	libvgpu_gate_tls.st_gen = gen;
	return g;
}

/* Synchronise context c (NULL: the current one). */
static CUresult ctx_sync(CUcontext c)
{
	vgpu_pfn_cuCtxSynchronize_v2 sync2 = REAL(cuCtxSynchronize_v2);
	vgpu_pfn_cuCtxSynchronize sync1 = REAL(cuCtxSynchronize);
	vgpu_pfn_cuCtxPushCurrent_v2 push = REAL(cuCtxPushCurrent_v2);
	vgpu_pfn_cuCtxPopCurrent_v2 pop = REAL(cuCtxPopCurrent_v2);
	CUcontext popped;
	CUresult rc;

	if (sync2)
		return sync2(c);
	if (!sync1)
		return CUDA_ERROR_NOT_FOUND;
	if (!c)
		return sync1();
	if (!push || !pop)
		return CUDA_ERROR_NOT_FOUND;
	rc = push(c);
	if (rc)
		return rc;
	rc = sync1();
	pop(&popped);
	return rc;
}

static void gate_drain(void *ctx, int gpu)
{
	uint64_t launches = __atomic_load_n(&libvgpu_gate.page->gpu[gpu].launches, __ATOMIC_RELAXED);
	CUcontext c[8];
	int n;
	CUresult rc = CUDA_SUCCESS;

	(void)ctx;
	if (vgpu_gate_cross()) {
		/* A thread on several GPUs may have queued work here that waits
		 * for work it has yet to submit elsewhere: no drain, the module
		 * hands over after drain_timeout_us at worst. */
		libvgpu_log(VGPU_LOG_DEBUG, "no drain on GPU %d: the thread drives several GPUs", gpu);
		return;
	}
	/* Illegal while a stream of the context captures (capture.c): the
	 * gate waits without draining. The check and the drain are one
	 * section, which no capture's beginning splits. */
	if (!libvgpu_capture_enter())
		return;
	if (vgpu_capture_live()) {
		libvgpu_capture_leave();
		return;
	}
	n = libvgpu_gpu_ctxs(gpu, c, 8);
	if (!n)
		rc = ctx_sync(NULL);
	for (int i = 0; i < n; i++) {
		CUresult r = ctx_sync(c[i]);

		if (r && r != CUDA_ERROR_INVALID_CONTEXT)	/* destroyed meanwhile */
			rc = r;
	}
	libvgpu_capture_leave();
	if (!rc && gpu >= 0 && gpu < VGPU_DEV_GPUS)
		libvgpu_sync_complete(gpu, launches);
	if (rc)
		libvgpu_log(VGPU_LOG_DEBUG, "drain on GPU %d: cuCtxSynchronize gave %d", gpu, (int)rc);
}

static int gate_wait(void *ctx, struct vgpu_dev_wait *w)
{
	int fd = *(int *)ctx;

	if (ioctl(fd, VGPU_IOC_WAIT, w) < 0)
		return -errno;
	libvgpu_log(VGPU_LOG_DEBUG, "GPU %u: drained in %llu ns, waited %llu ns; device time "
		    "measured by events so far %llu ns", w->gpu, (unsigned long long)w->drain_ns,
		    (unsigned long long)w->waited_ns,
		    (unsigned long long)libvgpu_queue_dev_ns(&libvgpu_queue, (int)w->gpu));
	return 0;
}

static void gate_failed(void *ctx, int gpu, int err)
{
	static int said;

	(void)ctx;
	libvgpu_log(__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED) ? VGPU_LOG_DEBUG : VGPU_LOG_WARN,
		    "VGPU_IOC_WAIT on GPU %d failed (%s): launches on it pass through the "
		    "compute gate", gpu, strerror(err));
}

void libvgpu_gate_start(struct vgpu_dev_page *page, const struct vgpu_dev_gate *gate)
{
	libvgpu_gate.page = page;
	libvgpu_gate.ctx = &libvgpu_proc.devfd;
	libvgpu_queue_config();
	__atomic_store_n(&libvgpu_gate.gate, gate, __ATOMIC_RELEASE);
}

void libvgpu_gate_reset(void)
{
	__atomic_store_n(&libvgpu_gate.gate, NULL, __ATOMIC_RELEASE);
	libvgpu_gate.page = NULL;
	libvgpu_gate.one_gpu = VGPU_GATE_RESOLVE;
	memset(libvgpu_gate.seen, 0, sizeof(libvgpu_gate.seen));
	memset(libvgpu_gate.off, 0, sizeof(libvgpu_gate.off));
	libvgpu_gate_tls.mark = 0;
	libvgpu_queue_reset(&libvgpu_queue);
	libvgpu_ctxmap_reset();
}
