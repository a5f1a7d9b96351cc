// SPDX-License-Identifier: GPL-2.0
/*
 * Which GPU a launch goes to, cheaply, for the compute gate (gate.h): the
 * GPU of the launching thread's current context. libvgpu keeps a small
 * map of contexts to inventory GPUs, filled where contexts appear
 * (cuCtxCreate*, cuDevicePrimaryCtxRetain: ctx.c) or are first seen
 * current, and a per-thread "current GPU" that cuCtxSetCurrent,
 * cuCtxPushCurrent and cuCtxPopCurrent (and cuCtxCreate*, which makes the
 * new context current) keep up to date. While the process has used
 * exactly one GPU, a launch takes that one without even reading the
 * thread's state (vgpu_gate.one_gpu). A context destroyed, or a primary
 * context reset, invalidates every thread's cache (a generation counter);
 * the next launch asks the driver (cuCtxGetCurrent, cuCtxGetDevice).
 *
 * A launch into a stream of another context than the current one is
 * gated on the current context's GPU.
 *
 * The gate's slow path: the drain synchronises the current context
 * (cuCtxSynchronize_v2(NULL) where the driver has the 13.0 form, else
 * cuCtxSynchronize), the wait is VGPU_IOC_WAIT on /dev/vgpu. No lock is
 * held across either.
 *
 * The queue bound (queue.h): its events are the driver's (created in the
 * current context with CU_EVENT_BLOCKING_SYNC, so that waiting sleeps);
 * M and K come from VGPU_QUEUE_MARK and VGPU_QUEUE_DEPTH at registration.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "log.h"
#include "state.h"

#define VGPU_CTXMAP 64
#define VGPU_SEEN_NONE (-10)	/* no GPU seen yet */
#define VGPU_SEEN_MANY (-11)	/* more than one (or one outside the inventory) */

static struct {
	CUcontext ctx;
	int gpu;
} vgpu_ctxmap[VGPU_CTXMAP];
static unsigned int vgpu_ctxmap_next;		/* slot to reuse when full */
static int vgpu_seen = VGPU_SEEN_NONE;		/* the GPU(s) of the map so far */
static pthread_mutex_t vgpu_ctxmap_lk = PTHREAD_MUTEX_INITIALIZER;

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

#define VGPU_MARK_DEFAULT 4	/* M */
#define VGPU_DEPTH_DEFAULT 4	/* K */

/* gen: 0 never matches a thread's cache (vgpu_gate_tls, gate.c). */
struct vgpu_gate vgpu_gate = {
	.one_gpu = VGPU_GATE_RESOLVE,
	.gen = 1,
	.mark_mask = VGPU_MARK_DEFAULT - 1,
	.ops = &vgpu_gate_ops,
};

/* ---- the queue bound's driver calls ---- */

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

static int q_record(void *arg, void *ev, void *stream)
{
	vgpu_pfn_cuEventRecord f = REAL(cuEventRecord);
	CUresult rc = f ? f((CUevent)ev, (CUstream)stream) : CUDA_ERROR_NOT_FOUND;

	(void)arg;
	if (rc)
		vgpu_log(VGPU_LOG_DEBUG, "queue bound: cuEventRecord on stream %p gave %d",
			 stream, (int)rc);
	return (int)rc;
}

static int q_sync(void *arg, void *ev)
{
	vgpu_pfn_cuEventSynchronize f = REAL(cuEventSynchronize);

	(void)arg;
	return f ? (int)f((CUevent)ev) : (int)CUDA_ERROR_NOT_FOUND;
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

static void q_failed(void *arg, int gpu, int err)
{
	(void)arg;
	vgpu_log(VGPU_LOG_WARN, "cannot create CUDA events on GPU %d (error %d): the work "
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
};

#define VGPU_TARGET_US_DEFAULT 40000	/* well within the default drain timeout */

struct vgpu_queue vgpu_queue = {
	.ops = &vgpu_queue_ops,
	.mark = VGPU_MARK_DEFAULT,
	.depth = VGPU_DEPTH_DEFAULT,
	.target_ns = VGPU_TARGET_US_DEFAULT * 1000ULL,
};

/* VGPU_QUEUE_MARK (M: 0 = off, or a power of two up to VGPU_MARK_MAX),
 * VGPU_QUEUE_DEPTH (K: 1 to VGPU_QUEUE_DEPTH_MAX) and VGPU_QUEUE_US (the
 * queued device time M and K adapt to; 0: fixed). */
static void queue_config(void)
{
	const char *m = getenv("VGPU_QUEUE_MARK"), *k = getenv("VGPU_QUEUE_DEPTH");
	const char *us = getenv("VGPU_QUEUE_US");
	unsigned int mark = VGPU_MARK_DEFAULT, depth = VGPU_DEPTH_DEFAULT;
	unsigned long target = VGPU_TARGET_US_DEFAULT;
	char *end;

	if (us && *us) {
		unsigned long v = strtoul(us, &end, 10);

		if (*end || v > 10000000UL)
			vgpu_log(VGPU_LOG_WARN, "VGPU_QUEUE_US=\"%s\" is not 0 to 10000000: %lu "
				 "kept", us, target);
		else
			target = v;
	}
	vgpu_queue.target_ns = (uint64_t)target * 1000ULL;
	if (m && *m) {
		unsigned long v = strtoul(m, &end, 10);

		if (*end || (v && (v > VGPU_MARK_MAX || (v & (v - 1)))))
			vgpu_log(VGPU_LOG_WARN, "VGPU_QUEUE_MARK=\"%s\" is not 0 or a power of "
				 "two up to %d: %u kept", m, VGPU_MARK_MAX, mark);
		else
			mark = (unsigned int)v;
	}
	if (k && *k) {
		unsigned long v = strtoul(k, &end, 10);

		if (*end || !v || v > VGPU_QUEUE_DEPTH_MAX)
			vgpu_log(VGPU_LOG_WARN, "VGPU_QUEUE_DEPTH=\"%s\" is not 1 to %d: %u kept",
				 k, VGPU_QUEUE_DEPTH_MAX, depth);
		else
			depth = (unsigned int)v;
	}
	vgpu_queue.depth = (int)depth;
	vgpu_queue.mark = mark ? (int)mark : 1;
	__atomic_store_n(&vgpu_gate.mark_mask, mark ? mark - 1 : VGPU_MARK_OFF, __ATOMIC_RELAXED);
	if (mark)
		vgpu_log(VGPU_LOG_DEBUG, "queue bound: a mark every %u launches of a thread, "
			 "%u marks per GPU, adapting to %lu us of queued work", mark, depth, target);
	else
		vgpu_log(VGPU_LOG_DEBUG, "queue bound off (VGPU_QUEUE_MARK=0)");
}

static void bump_gen(void)
{
	unsigned int g = __atomic_add_fetch(&vgpu_gate.gen, 1, __ATOMIC_RELEASE);

	if (!g)		/* wrapped: skip 0 */
		__atomic_add_fetch(&vgpu_gate.gen, 1, __ATOMIC_RELEASE);
}

static int gating(void)
{
	return __atomic_load_n(&vgpu_gate.gate, __ATOMIC_ACQUIRE) != NULL;
}

/* Record c -> gpu; under vgpu_ctxmap_lk. */
static void map_put(CUcontext c, int gpu)
{
	int free_slot = -1, seen;

	for (int i = 0; i < VGPU_CTXMAP; i++) {
		if (vgpu_ctxmap[i].ctx == c) {
			vgpu_ctxmap[i].gpu = gpu;
			free_slot = -2;
			break;
		}
		if (!vgpu_ctxmap[i].ctx && free_slot == -1)
			free_slot = i;
	}
	if (free_slot == -1)
		free_slot = (int)(vgpu_ctxmap_next++ % VGPU_CTXMAP);
	if (free_slot >= 0) {
		vgpu_ctxmap[free_slot].ctx = c;
		vgpu_ctxmap[free_slot].gpu = gpu;
	}
	/* A GPU outside the inventory counts as another GPU: its launches
	 * must not be gated on the inventory one. */
	seen = vgpu_seen == VGPU_SEEN_NONE && gpu >= 0 ? gpu :
	       vgpu_seen == gpu ? gpu : VGPU_SEEN_MANY;
	vgpu_seen = seen;
	__atomic_store_n(&vgpu_gate.one_gpu, seen >= 0 ? seen : VGPU_GATE_RESOLVE,
			 __ATOMIC_RELAXED);
}

/* c's GPU from the map, or VGPU_GPU_SKIP. */
static int map_get(CUcontext c)
{
	int g = VGPU_GPU_SKIP;

	pthread_mutex_lock(&vgpu_ctxmap_lk);
	for (int i = 0; i < VGPU_CTXMAP; i++)
		if (vgpu_ctxmap[i].ctx == c) {
			g = vgpu_ctxmap[i].gpu;
			break;
		}
	pthread_mutex_unlock(&vgpu_ctxmap_lk);
	return g;
}

static void tls_set(CUcontext c, int gpu, unsigned int gen)
{
	vgpu_gate_tls.cur = c;
	vgpu_gate_tls.gpu = gpu;
	vgpu_gate_tls.gen = gen;
}

void vgpu_ctx_note(CUcontext c, int gpu, int current)
{
	unsigned int gen = __atomic_load_n(&vgpu_gate.gen, __ATOMIC_ACQUIRE);

	if (!c || gpu == VGPU_GPU_SKIP || !gating())
		return;
	pthread_mutex_lock(&vgpu_ctxmap_lk);
	map_put(c, gpu);
	pthread_mutex_unlock(&vgpu_ctxmap_lk);
	if (current)
		tls_set(c, gpu, gen);
}

void vgpu_ctx_forget(CUcontext c)
{
	pthread_mutex_lock(&vgpu_ctxmap_lk);
	for (int i = 0; i < VGPU_CTXMAP; i++)
		if (vgpu_ctxmap[i].ctx == c)
			vgpu_ctxmap[i].ctx = NULL;
	pthread_mutex_unlock(&vgpu_ctxmap_lk);
	bump_gen();
}

/* The current context is now c (NULL: none), known or not. */
static void became_current(CUcontext c)
{
	vgpu_pfn_cuCtxGetDevice getdev = REAL(cuCtxGetDevice);
	unsigned int gen = __atomic_load_n(&vgpu_gate.gen, __ATOMIC_ACQUIRE);
	CUdevice dev;
	int g;

	if (!c) {
		tls_set(NULL, VGPU_GPU_NONE, gen);
		return;
	}
	g = map_get(c);
	if (g == VGPU_GPU_SKIP) {
		if (!getdev || getdev(&dev) || (g = vgpu_dev_gpu(dev)) == VGPU_GPU_SKIP) {
			vgpu_gate_tls.gen = 0;	/* unknown: asked at the next launch */
			return;
		}
		vgpu_ctx_note(c, g, 0);
	}
	tls_set(c, g, gen);
}

static int gate_gpu(void *ctx)
{
	vgpu_pfn_cuCtxGetCurrent cur;
	CUcontext c = NULL;

	(void)ctx;
	if (vgpu_gate_tls.gen == __atomic_load_n(&vgpu_gate.gen, __ATOMIC_ACQUIRE))
		return vgpu_gate_tls.gpu;
	cur = REAL(cuCtxGetCurrent);
	if (!cur || cur(&c))
		return VGPU_GPU_NONE;
	became_current(c);
	return vgpu_gate_tls.gen && vgpu_gate_tls.cur == c ? vgpu_gate_tls.gpu : VGPU_GPU_NONE;
}

int vgpu_current_gpu(void)
{
	int g = __atomic_load_n(&vgpu_gate.one_gpu, __ATOMIC_RELAXED);

	return g >= 0 ? g : gate_gpu(NULL);
}

void vgpu_launch_slow(void *stream)
{
	if (__atomic_load_n(&vgpu_proc.state, __ATOMIC_ACQUIRE) == VGPU_ST_UNSET)
		vgpu_ensure();	/* a launch before any other hooked call */
	vgpu_gate_slow(&vgpu_gate, stream);
}

/* After the thread's M-th launch (rc: the driver's answer): mark the
 * streams of its last M launches. */
void vgpu_launch_mark(CUresult rc)
{
	const struct vgpu_dev_gate *gp = __atomic_load_n(&vgpu_gate.gate, __ATOMIC_ACQUIRE);
	unsigned int m = __atomic_load_n(&vgpu_gate.mark_mask, __ATOMIC_RELAXED) + 1;
	int g = vgpu_gate_tls.mark - 1;
	void *win[VGPU_MARK_MAX];
	unsigned int m2;

	vgpu_gate_tls.mark = 0;
	if (rc != CUDA_SUCCESS || !gp || !m || m > VGPU_MARK_MAX || g < 0 || g >= VGPU_DEV_GPUS)
		return;
	for (unsigned int i = 0; i < m; i++)
		win[i] = vgpu_gate_tls.win[(vgpu_gate_tls.n - 1 - i) & (VGPU_MARK_MAX - 1)];
	/* The module must not take this thread's wait for an idle holder. */
	__atomic_fetch_add(&vgpu_gate.page->gpu[g].bound, 1, __ATOMIC_RELAXED);
	m2 = (unsigned int)vgpu_queue_mark(&vgpu_queue, g,
					   __atomic_load_n(&gp->gpu[g].seq, __ATOMIC_RELAXED), win, (int)m);
	__atomic_fetch_sub(&vgpu_gate.page->gpu[g].bound, 1, __ATOMIC_RELAXED);
	if (m2 != m && m2 >= 1 && m2 <= VGPU_MARK_MAX)
		__atomic_store_n(&vgpu_gate.mark_mask, m2 - 1, __ATOMIC_RELAXED);
}

static void gate_drain(void *ctx, int gpu)
{
	vgpu_pfn_cuCtxSynchronize_v2 sync2 = REAL(cuCtxSynchronize_v2);
	vgpu_pfn_cuCtxSynchronize sync1 = REAL(cuCtxSynchronize);
	uint64_t launches = __atomic_load_n(&vgpu_gate.page->gpu[gpu].launches, __ATOMIC_RELAXED);
	CUresult rc = sync2 ? sync2(NULL) : sync1 ? sync1() : CUDA_ERROR_NOT_FOUND;

	(void)ctx;
	if (!rc && gpu >= 0 && gpu < VGPU_DEV_GPUS)
		vgpu_sync_complete(gpu, launches);
	if (rc)
		vgpu_log(VGPU_LOG_DEBUG, "drain on GPU %d: cuCtxSynchronize gave %d", gpu, (int)rc);
}

static int gate_wait(void *ctx, struct vgpu_dev_wait *w)
{
	int fd = *(int *)ctx;

	vgpu_placement_sync();	/* a slow path: the placement may have moved */
	if (ioctl(fd, VGPU_IOC_WAIT, w) < 0)
		return -errno;
	vgpu_log(VGPU_LOG_DEBUG, "GPU %u: drained in %llu ns, waited %llu ns; device time "
		 "measured by events so far %llu ns", w->gpu, (unsigned long long)w->drain_ns,
		 (unsigned long long)w->waited_ns,
		 (unsigned long long)vgpu_queue_dev_ns(&vgpu_queue, (int)w->gpu));
	return 0;
}

static void gate_failed(void *ctx, int gpu, int err)
{
	static int said;

	(void)ctx;
	vgpu_log(__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED) ? VGPU_LOG_DEBUG : VGPU_LOG_WARN,
		 "VGPU_IOC_WAIT on GPU %d failed (%s): launches on it pass through the "
		 "compute gate", gpu, strerror(err));
}

void vgpu_gate_start(struct vgpu_dev_page *page, const struct vgpu_dev_gate *gate)
{
	vgpu_gate.page = page;
	vgpu_gate.ctx = &vgpu_proc.devfd;
	queue_config();
	__atomic_store_n(&vgpu_gate.gate, gate, __ATOMIC_RELEASE);
}

/* fork (the child is single-threaded) or a failed registration. */
void vgpu_gate_reset(void)
{
	__atomic_store_n(&vgpu_gate.gate, NULL, __ATOMIC_RELEASE);
	vgpu_gate.page = NULL;
	vgpu_gate.one_gpu = VGPU_GATE_RESOLVE;
	memset(vgpu_gate.seen, 0, sizeof(vgpu_gate.seen));
	memset(vgpu_gate.off, 0, sizeof(vgpu_gate.off));
	vgpu_gate_tls.mark = 0;
	vgpu_queue_reset(&vgpu_queue);
	pthread_mutex_init(&vgpu_ctxmap_lk, NULL);
	memset(vgpu_ctxmap, 0, sizeof(vgpu_ctxmap));
	vgpu_seen = VGPU_SEEN_NONE;
	bump_gen();
}

/* ---- the hooks that change the current context ---- */

/* cuCtxSetCurrent and cuCtxPushCurrent(_v2): ctx becomes current. */
static CUresult make_current(vgpu_pfn_cuCtxSetCurrent real, CUcontext ctx)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(ctx);
	if (rc == CUDA_SUCCESS && gating())
		became_current(ctx);
	return rc;
}

VGPU_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
	return make_current(REAL(cuCtxSetCurrent), ctx);
}

VGPU_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx)
{
	return make_current(REAL(cuCtxPushCurrent), ctx);
}

VGPU_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
	return make_current(REAL(cuCtxPushCurrent_v2), ctx);
}

static CUresult pop(vgpu_pfn_cuCtxPopCurrent_v2 real, CUcontext *pctx)
{
	vgpu_pfn_cuCtxGetCurrent cur = REAL(cuCtxGetCurrent);
	CUcontext c = NULL;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(pctx);
	if (rc == CUDA_SUCCESS && gating()) {
		if (cur && !cur(&c))
			became_current(c);
		else
			vgpu_gate_tls.gen = 0;	/* unknown: asked at the next launch */
	}
	return rc;
}

VGPU_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx)
{
	return pop(REAL(cuCtxPopCurrent), pctx);
}

VGPU_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
	return pop(REAL(cuCtxPopCurrent_v2), pctx);
}
