// SPDX-License-Identifier: GPL-2.0
/*
 * Which GPU a launch goes to, cheaply, for the compute gate (gate.h): the
 * GPU of the launching thread's current context. libvgpu keeps a small
 * map of contexts to inventory GPUs, filled where contexts appear
 * (cuCtxCreate*, cuDevicePrimaryCtxRetain: ctx.c) or are first seen
 * current, and a per-thread "current GPU" that cuCtxSetCurrent,
 * cuCtxPushCurrent and cuCtxPopCurrent (curctx.c; and cuCtxCreate*, which
 * makes the new context current) keep up to date. While the process has
 * used exactly one GPU, a launch takes that one without even reading the
 * thread's state (libvgpu_gate.one_gpu). A context destroyed, or a primary
 * context reset, invalidates every thread's cache (a generation counter);
 * the next launch asks the driver (cuCtxGetCurrent, cuCtxGetDevice).
 *
 * A launch into a stream other than a default one is gated on the
 * stream's GPU (streamdev.c), cached per thread for the last such stream
 * under the same generation (cuStreamDestroy bumps it: a handle may come
 * back as another device's stream).
 */
#include <string.h>

#include "ctxmap.h"
#include "devmap.h"
#include "../access/hooks.h"
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

static void bump_gen(void)
{
	unsigned int g = __atomic_add_fetch(&libvgpu_gate.gen, 1, __ATOMIC_RELEASE);

	if (!g)		/* wrapped: skip 0 */
		__atomic_add_fetch(&libvgpu_gate.gen, 1, __ATOMIC_RELEASE);
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
	__atomic_store_n(&libvgpu_gate.one_gpu, seen >= 0 ? seen : VGPU_GATE_RESOLVE,
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
	libvgpu_gate_tls.cur = c;
	libvgpu_gate_tls.gpu = gpu;
	libvgpu_gate_tls.gen = gen;
}

void libvgpu_ctx_note(CUcontext c, int gpu, int current)
{
	unsigned int gen = __atomic_load_n(&libvgpu_gate.gen, __ATOMIC_ACQUIRE);

	if (!c || gpu == VGPU_GPU_SKIP || !vgpu_gating())
		return;
	pthread_mutex_lock(&vgpu_ctxmap_lk);
	map_put(c, gpu);
	pthread_mutex_unlock(&vgpu_ctxmap_lk);
	if (current)
		tls_set(c, gpu, gen);
}

void libvgpu_ctx_forget(CUcontext c)
{
	pthread_mutex_lock(&vgpu_ctxmap_lk);
	for (int i = 0; i < VGPU_CTXMAP; i++)
		if (vgpu_ctxmap[i].ctx == c)
			vgpu_ctxmap[i].ctx = NULL;
	pthread_mutex_unlock(&vgpu_ctxmap_lk);
	bump_gen();
}

void libvgpu_ctx_became_current(CUcontext c)
{
	vgpu_pfn_cuCtxGetDevice getdev = REAL(cuCtxGetDevice);
	unsigned int gen = __atomic_load_n(&libvgpu_gate.gen, __ATOMIC_ACQUIRE);
	CUdevice dev;
	int g;

	if (!c) {
		tls_set(NULL, VGPU_GPU_NONE, gen);
		return;
	}
	g = map_get(c);
	if (g == VGPU_GPU_SKIP) {
		if (!getdev || getdev(&dev) || (g = libvgpu_dev_gpu(dev)) == VGPU_GPU_SKIP) {
			libvgpu_ctx_unknown();	/* asked at the next launch */
			return;
		}
		libvgpu_ctx_note(c, g, 0);
	}
	tls_set(c, g, gen);
}

void libvgpu_ctx_unknown(void)
{
	libvgpu_gate_tls.gen = 0;
}

int libvgpu_ctx_gpu(void)
{
	vgpu_pfn_cuCtxGetCurrent cur;
	CUcontext c = NULL;

	if (libvgpu_gate_tls.gen == __atomic_load_n(&libvgpu_gate.gen, __ATOMIC_ACQUIRE))
		return libvgpu_gate_tls.gpu;
	cur = REAL(cuCtxGetCurrent);
	if (!cur || cur(&c))
		return VGPU_GPU_NONE;
	libvgpu_ctx_became_current(c);
	return libvgpu_gate_tls.gen && libvgpu_gate_tls.cur == c ? libvgpu_gate_tls.gpu : VGPU_GPU_NONE;
}

int libvgpu_current_gpu(void)
{
	int g = __atomic_load_n(&libvgpu_gate.one_gpu, __ATOMIC_RELAXED);

	return g >= 0 ? g : libvgpu_ctx_gpu();
}

int libvgpu_gpu_ctxs(int gpu, CUcontext *out, int max)
{
	int n = 0;

	pthread_mutex_lock(&vgpu_ctxmap_lk);
	for (int i = 0; i < VGPU_CTXMAP && n < max; i++)
		if (vgpu_ctxmap[i].ctx && vgpu_ctxmap[i].gpu == gpu)
			out[n++] = vgpu_ctxmap[i].ctx;
	pthread_mutex_unlock(&vgpu_ctxmap_lk);
	return n;
}

void libvgpu_ctxmap_stale(void)
{
	bump_gen();
}

void libvgpu_ctxmap_reset(void)
{
	pthread_mutex_init(&vgpu_ctxmap_lk, NULL);
	memset(vgpu_ctxmap, 0, sizeof(vgpu_ctxmap));
	vgpu_seen = VGPU_SEEN_NONE;
	bump_gen();
}
