/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compute launch gate (issue #5): before a kernel or a graph is
 * submitted, one word of the read-only gate page (uapi/vgpu_dev.h, struct
 * vgpu_dev_gate) says whether the process's tenant holds the GPU. While it
 * does, a launch counts itself in the page's launches and goes: no system
 * call, no lock, no clock read. Otherwise the slow path drains the work
 * the process queued since it last waited, then sleeps in VGPU_IOC_WAIT
 * until the tenant is granted.
 *
 * Every M-th launch of a thread (M = mark_mask + 1, a power of two) also
 * leaves the fast path after being counted: the wrapper makes the launch,
 * then marks the streams of the thread's last M launches with events
 * (queue.h), which bounds the work the process keeps queued. The other
 * launches only store their stream in the thread's window.
 *
 * Pure logic: draining, waiting and finding the launch's GPU are function
 * pointers, so the host tests drive it against a fake page and the
 * benchmark (bench/gate-bench.c) measures the very same fast path.
 */
#ifndef VGPU_GATE_H
#define VGPU_GATE_H

#include <stdint.h>

#include "../../uapi/vgpu_dev.h"

/* one_gpu when the launch's GPU must be found per thread. */
#define VGPU_GATE_RESOLVE (-1)
/* The largest M: the thread's window of streams. */
#define VGPU_MARK_MAX 16
/* mark_mask that never marks (the queue bound off). */
#define VGPU_MARK_OFF (~0U)

struct vgpu_gate_ops {
	/* The inventory GPU of a launch from this thread on stream (a
	 * default stream: the current context's; another: the stream's
	 * device), or < 0: not gated (outside the inventory, unknown);
	 * may refresh libvgpu_gate_tls. */
	int (*gpu)(void *ctx, void *stream);
	/* Wait until the work the process queued on gpu has completed. */
	void (*drain)(void *ctx, int gpu);
	/* ioctl(VGPU_IOC_WAIT): 0 once the tenant is granted, or -errno. */
	int (*wait)(void *ctx, struct vgpu_dev_wait *w);
	/* WAIT failed with err (other than EINTR): gpu is no longer gated. */
	void (*failed)(void *ctx, int gpu, int err);
};

struct vgpu_gate {
	/* NULL: no gate (unregistered, module absent or without a gate
	 * page); set once registered, before the state is published. */
	const struct vgpu_dev_gate *gate;
	struct vgpu_dev_page *page;
	/* The process's only GPU so far, or VGPU_GATE_RESOLVE: then the
	 * thread's libvgpu_gate_tls says, while its gen is gen. */
	int one_gpu;
	unsigned int gen;
	/* M - 1: a thread's launch n (from 0) marks when (n & mark_mask)
	 * == mark_mask; VGPU_MARK_OFF: never. */
	unsigned int mark_mask;
	const struct vgpu_gate_ops *ops;
	void *ctx;
	/* Per GPU: page launches when the process last drained, and
	 * whether WAIT failed (then launches pass through). */
	uint64_t seen[VGPU_DEV_GPUS];
	uint8_t off[VGPU_DEV_GPUS];
};

/* Per thread: the current context and its GPU (< 0: not gated); the
 * last other stream launched on and its device's GPU (valid while st_gen
 * is the gate's gen); the thread's gated launches, the streams of the
 * last VGPU_MARK_MAX (by n), and a mark due after the launch in progress
 * (its GPU + 1, 0: none). */
struct libvgpu_gate_tls {
	void *cur;
	int gpu;
	unsigned int gen;	/* 0 never matches */
	void *st;
	int st_gpu;
	unsigned int st_gen;
	int last;		/* GPU + 1 of the last gated launch, 0: none */
	unsigned int moved;	/* n when the thread last changed GPU + 1 */
	unsigned int n;
	int mark;
	void *win[VGPU_MARK_MAX];
};
extern __thread struct libvgpu_gate_tls libvgpu_gate_tls __attribute__((tls_model("initial-exec")));

/* Note a gated launch on stream of GPU g in the thread's window (and
 * whether the thread changed GPU); 1 when it is the M-th (a mark is due
 * after it). */
static inline int vgpu_gate_note(struct vgpu_gate *gt, int g, void *stream)
{
	unsigned int n = libvgpu_gate_tls.n++, m = __atomic_load_n(&gt->mark_mask, __ATOMIC_RELAXED);

	if (__builtin_expect(libvgpu_gate_tls.last != g + 1, 0)) {
		if (libvgpu_gate_tls.last)
			libvgpu_gate_tls.moved = n + 1;
		libvgpu_gate_tls.last = g + 1;
	}

	libvgpu_gate_tls.win[n & (VGPU_MARK_MAX - 1)] = stream;
	return (n & m) == m;
}

/* The default streams (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD: the
 * handles 0 to 2) run in the current context; any other in its own. */
static inline int vgpu_default_stream(const void *stream)
{
	return (uintptr_t)stream <= 2;
}

/* The launch's GPU from the process's only GPU or the thread's cache
 * (the current context's, or the last other stream's); < 0: ask. */
static inline int vgpu_gate_gpu(struct vgpu_gate *gt, void *stream)
{
	int g = __atomic_load_n(&gt->one_gpu, __ATOMIC_RELAXED);
	unsigned int gen;

	if (g >= 0)
		return g;
	gen = __atomic_load_n(&gt->gen, __ATOMIC_RELAXED);
	if (vgpu_default_stream(stream))
		return libvgpu_gate_tls.gen == gen ? libvgpu_gate_tls.gpu : -1;
	return libvgpu_gate_tls.st == stream && libvgpu_gate_tls.st_gen == gen ?
	       libvgpu_gate_tls.st_gpu : -1;
}

/* Launches within which a thread that changed GPU counts as driving
 * several (queue.h, gatedev.c: no self-deadlock). */
#define VGPU_CROSS_LAUNCHES 64

/* Whether the calling thread changed GPU within its last
 * VGPU_CROSS_LAUNCHES launches: its work on one GPU may wait for work it
 * has yet to submit on another. */
static inline int vgpu_gate_cross(void)
{
	return libvgpu_gate_tls.moved &&
	       libvgpu_gate_tls.n - libvgpu_gate_tls.moved < VGPU_CROSS_LAUNCHES;
}

/*
 * The fast path of a launch on stream, inlined into each launch wrapper,
 * without a call: 1 when the tenant holds the launch's GPU (the launch is
 * counted in the page and may go), 0 when libvgpu_gate_slow() must decide:
 * the gate closed, or the launch was counted and is the thread's M-th
 * (libvgpu_gate_tls.mark set). Loads: the gate pointer, one_gpu (else the
 * thread's cache for the current context or the stream, and gen), the
 * grant word, mark_mask; one relaxed
 * increment; the thread's counter and one store in its window.
 */
static inline int vgpu_gate_pass(struct vgpu_gate *gt, void *stream)
{
	const struct vgpu_dev_gate *gp = __atomic_load_n(&gt->gate, __ATOMIC_ACQUIRE);
	int g = vgpu_gate_gpu(gt, stream);

	if (__builtin_expect(!gp || g < 0 ||
			     !__atomic_load_n(&gp->gpu[g].granted, __ATOMIC_RELAXED), 0))
		return 0;
	__atomic_fetch_add(&gt->page->gpu[g].launches, 1, __ATOMIC_RELAXED);
	if (__builtin_expect(!vgpu_gate_note(gt, g, stream), 1))
		return 1;
	libvgpu_gate_tls.mark = g + 1;
	return 0;
}

/* Everything else: a mark due (counted already: nothing to do), no gate
 * (pass), the GPU to be found (ops->gpu), or the gate closed: drain if
 * the process launched on the GPU since it last drained, sleep in WAIT
 * (retried on EINTR), count the launch and note it in the window (which
 * may make a mark due). Returns 1 if it called ops->wait (the caller
 * was on a slow path), else 0. */
int libvgpu_gate_slow(struct vgpu_gate *gt, void *stream);

#endif
