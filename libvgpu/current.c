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
 */
#include <errno.h>
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

/* gen: 0 never matches a thread's cache (vgpu_gate_tls, gate.c). */
struct vgpu_gate vgpu_gate = {
	.one_gpu = VGPU_GATE_RESOLVE,
	.gen = 1,
	.ops = &vgpu_gate_ops,
};

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

void vgpu_launch_slow(void)
{
	if (__atomic_load_n(&vgpu_proc.state, __ATOMIC_ACQUIRE) == VGPU_ST_UNSET)
		vgpu_ensure();	/* a launch before any other hooked call */
	vgpu_gate_slow(&vgpu_gate);
}

static void gate_drain(void *ctx, int gpu)
{
	vgpu_pfn_cuCtxSynchronize_v2 sync2 = REAL(cuCtxSynchronize_v2);
	vgpu_pfn_cuCtxSynchronize sync1 = REAL(cuCtxSynchronize);
	CUresult rc = sync2 ? sync2(NULL) : sync1 ? sync1() : CUDA_ERROR_NOT_FOUND;

	(void)ctx;
	if (rc)
		vgpu_log(VGPU_LOG_DEBUG, "drain on GPU %d: cuCtxSynchronize gave %d", gpu, (int)rc);
}

static int gate_wait(void *ctx, struct vgpu_dev_wait *w)
{
	int fd = *(int *)ctx;

	vgpu_placement_sync();	/* a slow path: the placement may have moved */
	if (ioctl(fd, VGPU_IOC_WAIT, w) < 0)
		return -errno;
	vgpu_log(VGPU_LOG_DEBUG, "GPU %u: drained in %llu ns, waited %llu ns", w->gpu,
		 (unsigned long long)w->drain_ns, (unsigned long long)w->waited_ns);
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
	pthread_mutex_init(&vgpu_ctxmap_lk, NULL);
	memset(vgpu_ctxmap, 0, sizeof(vgpu_ctxmap));
	vgpu_seen = VGPU_SEEN_NONE;
	bump_gen();
}

/* ---- the hooks that change the current context ---- */

VGPU_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
	vgpu_pfn_cuCtxSetCurrent real = REAL(cuCtxSetCurrent);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(ctx);
	if (rc == CUDA_SUCCESS && gating())
		became_current(ctx);
	return rc;
}

static CUresult push(vgpu_pfn_cuCtxPushCurrent_v2 real, CUcontext ctx)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(ctx);
	if (rc == CUDA_SUCCESS && gating())
		became_current(ctx);
	return rc;
}

VGPU_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx)
{
	return push(REAL(cuCtxPushCurrent), ctx);
}

VGPU_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
	return push(REAL(cuCtxPushCurrent_v2), ctx);
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
