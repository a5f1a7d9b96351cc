/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue bound of the compute gate (issue #5): a process must not keep
 * more work queued on a GPU than it can drain quickly when its grant is
 * revoked, or the module's hand-over waits for it (and, past the drain
 * timeout, the next tenant's work queues behind it).
 *
 * Every M-th launch of a thread (gate.h: libvgpu_gate_tls.mark) makes a
 * *mark*: after the launch, one event is recorded on each distinct
 * stream among the thread's last M launches, so every launch of the
 * thread is followed on its stream by an event of some mark. The marks of
 * a process on a GPU live in a ring of K slots; a mark that finds the
 * ring full first waits (cuEventSynchronize on events created with
 * CU_EVENT_BLOCKING_SYNC: the thread sleeps) for the events of the oldest
 * mark, then reuses its slot. Hence, after mark j, every launch covered
 * by marks up to j - K has completed, and a process with T launching
 * threads on a GPU has at most K x M + T x M launches queued there that
 * are not known complete (K x M + M with one thread: 20 at M = K = 4).
 *
 * Deferred marks (defer_ns, with a target): on NVIDIA's driver an event
 * record costs of the order of a microsecond, so recording a mark every
 * M-th launch (M up to 16) adds several percent to programs bound by the
 * launch rate of short kernels. So a thread's M-th launch records only
 * if its last recorded mark on that GPU (same context) is defer_ns old
 * (target / VGPU_QUEUE_DEFER_DIV: 1 ms at the default 40 ms), or if the
 * launches since, plus one more window, would exceed C = min(defer_ns,
 * target / (K + 1)) / device time per launch (the launches of defer_ns
 * of device time), or if the streams since would not
 * fit in one mark (more than VGPU_MARK_MAX: the deferred ones are then
 * recorded as a mark of their own first). Otherwise the mark is deferred:
 * its window's streams join the thread's deferred set (thread-local) and
 * the next recorded mark covers them all, so every launch is still
 * followed on its stream by an event of some mark. A mark then covers at
 * most C launches, and with one thread at most (K + 1) x C launches,
 * (K + 1) x defer_ns of device time (5 ms by default), are not known
 * complete; a thread records at most a mark per defer_ns of its time and
 * per defer_ns of device time its launches take, whatever its launch
 * rate. With launches longer than defer_ns / (2 M) nothing is deferred
 * (C < 2 M): a mark every M-th
 * launch, as before. A thread that moves to another GPU or context starts
 * afresh with a recorded mark (a thread taking turns on GPUs defers
 * nothing); launches of deferred marks on the GPU it left are covered
 * only by the drain at the next hand-over (at most C of them). Without a
 * measured time per launch, nothing is deferred. Checking costs a
 * CLOCK_MONOTONIC read every M-th launch, not per launch.
 *
 * The same events measure: when the oldest mark is waited for, the time
 * from the previous mark completed on the same stream (and within the
 * same grant, by the gate page's seq) to this one (cuEventElapsedTime)
 * is added to dev_ns. Divided by the launches marked on the GPU in
 * between (every stream's: they share the device), it gives the device
 * time per launch that M and K adapt to. It is device time between two points of one
 * stream: the stream's work in between, plus the stream's idle gaps
 * inside the grant; streams running concurrently add up. Informational
 * only (logged at each WAIT); the module charges by its own clock.
 *
 * Pure logic over function pointers (the driver's event calls), so that
 * the host tests drive it with stubs. One mutex per GPU guards the ring,
 * held for bookkeeping only, never across a driver call: a mark takes its
 * slot (BUSY) and the events it needs under the lock, drops it, waits and
 * records, then puts the slot back.
 */
#ifndef VGPU_QUEUE_H
#define VGPU_QUEUE_H

#include <pthread.h>
#include <stdint.h>

#include "gate.h"

#define VGPU_QUEUE_DEPTH_MAX 16		/* K */
#define VGPU_QUEUE_SPARE (2 * VGPU_MARK_MAX)
/* libvgpu's defer_ns: the target / VGPU_QUEUE_DEFER_DIV (1 ms at the
 * default 40 ms). */
#define VGPU_QUEUE_DEFER_DIV 40

struct vgpu_queue_ops {
	/* The calling thread's current context, or NULL. */
	void *(*ctx)(void *arg);
	/* A new event in the current context: 0, or the driver's error. */
	int (*create)(void *arg, void **ev);
	int (*record)(void *arg, void *ev, void *stream);
	int (*sync)(void *arg, void *ev);
	/* Milliseconds from a to b, both complete: 0, or an error. */
	int (*elapsed)(void *arg, float *ms, void *a, void *b);
	void (*destroy)(void *arg, void *ev);
	/* Events cannot be created (err): no bound any more, said once. */
	void (*failed)(void *arg, int gpu, int err);
	/* Monotonic ns for deferring marks; NULL: CLOCK_MONOTONIC. */
	uint64_t (*now)(void *arg);
	/* 1 while ev has not completed, else 0 (done, or an error); NULL:
	 * marks of threads on several GPUs wait unbounded like others. */
	int (*query)(void *arg, void *ev);
	/* Around a recorded mark's calls (NULL: nothing): relax returns a
	 * token that unrelax takes back (qevents.c: the thread's stream
	 * capture mode made RELAXED, so that the calls are legal while
	 * other threads capture). */
	unsigned int (*relax)(void *arg);
	void (*unrelax)(void *arg, unsigned int token);
};

/* How long a mark of a thread that drives several GPUs waits for a mark
 * before it goes on (queue.c: no self-deadlock). */
#define VGPU_QUEUE_CROSS_NS 2000000ULL

/* Set by the caller around libvgpu_queue_mark(): the calling thread
 * launched on another GPU lately. Its work on this GPU may then wait for
 * work it has yet to submit on the other (a collective's partner kernel,
 * a host function or a stream memory operation waiting for a later
 * write): its waits for marks are bounded by VGPU_QUEUE_CROSS_NS (polled
 * with ops->query), and a mark not complete by then is left pending, or
 * forgotten when its slot is needed. */
extern __thread int libvgpu_queue_cross;

struct vgpu_qev {
	void *ev, *ctx, *stream;
	uint32_t grant;		/* the gate page's seq when recorded */
	uint64_t cum;		/* launches marked on the GPU up to this mark */
};

enum { VGPU_QS_EMPTY, VGPU_QS_FULL, VGPU_QS_BUSY };

struct vgpu_qslot {
	int state;
	int n;
	uint64_t seq;		/* order of the marks */
	struct vgpu_qev e[VGPU_MARK_MAX];
};

struct vgpu_qgpu {
	pthread_mutex_t lk;
	pthread_cond_t cv;		/* a slot stopped being busy */
	uint64_t seq;
	struct vgpu_qslot slot[VGPU_QUEUE_DEPTH_MAX];
	/* Per stream, the last event waited for (the start of the next
	 * elapsed time); unused events, per context. */
	struct vgpu_qev prev[VGPU_MARK_MAX];
	struct vgpu_qev spare[VGPU_QUEUE_SPARE];
	int nspare;
	unsigned int prev_next;
	/* Counters (under lk): marks made, events recorded, waits for an
	 * oldest mark, sleeps for a slot (every one busy in other threads),
	 * device ns measured;
	 * device ns per launch (a moving average, 0: unknown). */
	uint64_t marks, events, waits, slept, dev_ns;
	uint64_t launch_ns;
	uint64_t cum;			/* launches marked, all threads */
};

struct vgpu_queue {
	const struct vgpu_queue_ops *ops;
	void *arg;
	int mark;			/* M, 1..VGPU_MARK_MAX, a power of two */
	int depth;			/* K, 1..VGPU_QUEUE_DEPTH_MAX */
	/* 0: M and K fixed. Otherwise, once the device time per launch is
	 * measured, M and the marks kept pending shrink (or M grows, up to
	 * VGPU_MARK_MAX) so that (pending + 1) x M launches take about
	 * this long; with launches longer than it, a mark per launch and
	 * none kept pending (each launch waited for at its mark). */
	uint64_t target_ns;
	/* 0: a mark records every M launches. Otherwise (with a target
	 * and a measured device time per launch) a thread's mark may be
	 * deferred while its last recorded one is younger than this. */
	uint64_t defer_ns;
	int off;			/* event creation failed: no bound */
	unsigned int gen;		/* bumped when a context goes away */
	struct vgpu_qgpu *gpu[VGPU_DEV_GPUS];	/* allocated at the first mark */
};

/* A mark on gpu after a launch: win holds the thread's last m streams
 * (m = M, at most VGPU_MARK_MAX), grant the gate page's seq. Returns the
 * M to use from now on. */
int libvgpu_queue_mark(struct vgpu_queue *q, int gpu, uint32_t grant, void *const *win, int m);
/* Context ctx is about to go away (destroy: 1, its events are destroyed)
 * or has gone (0: forgotten only). */
void libvgpu_queue_ctx_gone(struct vgpu_queue *q, void *ctx, int destroy);
/* Device ns measured on gpu so far (0 if none). */
uint64_t libvgpu_queue_dev_ns(struct vgpu_queue *q, int gpu);
/* fork: forget everything (the events were the parent's). */
void libvgpu_queue_reset(struct vgpu_queue *q);

#endif
