// SPDX-License-Identifier: GPL-2.0
/*
 * The gate's operations (gate.h) for the real process: the launch's GPU
 * is the current context's (ctxmap.c); the drain synchronises the current
 * context (cuCtxSynchronize_v2(NULL) where the driver has the 13.0 form,
 * else cuCtxSynchronize); the wait is VGPU_IOC_WAIT on /dev/vgpu. No lock
 * is held across either.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include "capture.h"
#include "ctxmap.h"
#include "gatedev.h"
#include "hooks.h"
#include "log.h"
#include "qevents.h"
#include "state.h"
#include "synced.h"

static int gate_gpu(void *ctx);
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

static int gate_gpu(void *ctx)
{
	(void)ctx;
	return libvgpu_ctx_gpu();
}

static void gate_drain(void *ctx, int gpu)
{
	vgpu_pfn_cuCtxSynchronize_v2 sync2 = REAL(cuCtxSynchronize_v2);
	vgpu_pfn_cuCtxSynchronize sync1 = REAL(cuCtxSynchronize);
	uint64_t launches = __atomic_load_n(&libvgpu_gate.page->gpu[gpu].launches, __ATOMIC_RELAXED);
	CUresult rc;

	(void)ctx;
	/* Illegal while a stream of the context captures (capture.c): the
	 * gate waits without draining. */
	if (vgpu_capture_live())
		return;
	rc = sync2 ? sync2(NULL) : sync1 ? sync1() : CUDA_ERROR_NOT_FOUND;
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
