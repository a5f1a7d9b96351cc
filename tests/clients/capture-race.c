// SPDX-License-Identifier: GPL-2.0
/*
 * capture-race: GLOBAL-mode captures begun while another thread of the
 * process keeps launching (issue 28, finding 3). The launching thread's
 * launches meet libvgpu's gate, whose queue-bound marks synchronise and
 * query events: "potentially unsafe" calls that invalidate every live
 * GLOBAL capture of the process (CUDA Programming Guide, "Cross-stream
 * Dependencies and Events" / "Prohibited and Unhandled Operations"). The
 * main thread begins a GLOBAL capture on a stream of its own, captures one
 * kernel, ends it, ROUNDS times; loaded like NVIDIA's runtime (cuload.c).
 *
 *   capture-race ROUNDS NS GAP [HOLD]
 *
 * NS: each kernel's length (the launcher's and the captured one); GAP:
 * microseconds between captures (no capture live); HOLD: microseconds
 * each capture stays live after its kernel (default 0).
 * Prints "rounds R invalidated I launches L backlog_ms B" and exits 0
 * when no capture step failed other than by invalidation, 1 otherwise, 2
 * on a usage error. With HOLD, at the end of each hold (the capture still
 * live) the launcher measures the work it has queued, in RELAXED mode
 * where its waits are legal: B is the longest such backlog in device time
 * (-1 without HOLD). The queue bound must hold while captures are live:
 * without it, B is everything the launcher submitted in the hold.
 *
 * With SIMGPU_PAUSE_IN=cuStreamBeginCapture:live and SIMGPU_PAUSE_FILE=PATH
 * (simgpu's pause point once a capture is live, before the begin returns:
 * Documentation/simgpu.md), the launcher holds each begin there for
 * CR_PAUSED_LAUNCHES of its launches, then releases it (creates PATH):
 * the window in which a check "no capture is live" made by libvgpu on
 * the launcher's behalf goes stale is then open every round, not by
 * chance. "paused P" counts the begins so held.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuload.h"

static struct {
	__typeof__(&cuStreamBeginCapture_v2) begin;
	__typeof__(&cuStreamEndCapture) end;
	__typeof__(&cuThreadExchangeStreamCaptureMode) xmode;
	__typeof__(&cuEventSynchronize) evsync;
	__typeof__(&cuEventElapsedTime) elapsed;
} cr;

static CUfunction cr_spin;
static CUcontext cr_ctx;
static uint64_t cr_ns;
static useconds_t cr_gap_us, cr_hold_us;
static double cr_backlog_ms = -1;
static int cr_probe;
#define CR_PAUSED_LAUNCHES 64
static const char *cr_pause;	/* SIMGPU_PAUSE_FILE, when begins pause */
static unsigned long cr_paused;
static int cr_since;		/* the launcher's launches since the pause began */		/* 1: the main thread asks for a measure; 2: done */
static int cr_stop, cr_failed;
static unsigned long cr_launches;

static int cr_get(const char *name, int version, void **out)
{
	return cu_proc(name, version, out) != CUDA_SUCCESS;
}

static CUresult cr_setup(void)
{
	static const char image[] = "simgpu test image: any bytes will do";
	CUlibrary lib;
	CUkernel k;
	CUdevice d;
	CUresult rc = cu.cuDeviceGet(&d, 0);

	if (cr_get("cuStreamBeginCapture", 10010, (void **)&cr.begin) ||
	    cr_get("cuStreamEndCapture", 10000, (void **)&cr.end) ||
	    cr_get("cuThreadExchangeStreamCaptureMode", 10010, (void **)&cr.xmode) ||
	    cr_get("cuEventSynchronize", 2000, (void **)&cr.evsync) ||
	    cr_get("cuEventElapsedTime", 2000, (void **)&cr.elapsed))
		return CUDA_ERROR_NOT_FOUND;
	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&cr_ctx, d);
	if (!rc)
		rc = cu.cuCtxSetCurrent(cr_ctx);
	if (!rc)
		rc = cu.cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
	if (!rc)
		rc = cu.cuLibraryGetKernel(&k, lib, "simgpu_spin");
	if (!rc)
		cr_spin = (CUfunction)(void *)k;
	return rc;
}

static CUresult cr_kernel(CUstream s)
{
	void *params[] = { &cr_ns };

	return cu.cuLaunchKernel(cr_spin, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}

/* The launcher's stream and what measures its backlog. */
struct cr_lane {
	CUstream s, idle;
	CUevent queued, now;
};

/*
 * The launcher's queued work, while the main thread's capture is live, in
 * device time: an event after its queue completes at the end of the last
 * kernel queued, one recorded next on an idle stream at the device's now.
 * Not the wall time of a synchronise: that also counts the host threads
 * that run the queue waking late: 1.9 s in a starved CI VM whose launcher
 * had launched 125 ms of kernels in all.
 * A host stall between the two records makes the figure smaller, never
 * larger (below 0: nothing queued). The waits are legal in RELAXED mode.
 */
static void cr_measure(const struct cr_lane *l)
{
	CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_RELAXED;
	float ms;

	if (cr.xmode(&m))
		return;
	if (!cu.cuEventRecord(l->queued, l->s) && !cu.cuEventRecord(l->now, l->idle) &&
	    !cr.evsync(l->queued) && !cr.evsync(l->now) &&
	    !cr.elapsed(&ms, l->now, l->queued)) {
		if (ms < 0)
			ms = 0;
		if (ms > cr_backlog_ms)
			cr_backlog_ms = ms;
	}
	cr.xmode(&m);
}

/* A begin paused in simgpu (PATH.paused exists): released after
 * CR_PAUSED_LAUNCHES launches. */
static void cr_release(void)
{
	char mark[4096];
	int fd;

	snprintf(mark, sizeof(mark), "%s.paused", cr_pause);
	if (access(mark, F_OK)) {
		cr_since = 0;
		return;
	}
	if (++cr_since < CR_PAUSED_LAUNCHES)
		return;
	unlink(mark);
	fd = open(cr_pause, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	cr_since = 0;
	__atomic_add_fetch(&cr_paused, 1, __ATOMIC_RELAXED);
}

/* Launches on a stream of its own, in the default (GLOBAL) mode: a launch
 * is legal during another stream's capture; libvgpu's marks on its behalf
 * are what is at stake. */
static void *cr_launcher(void *arg)
{
	struct cr_lane l;

	(void)arg;
	if (cu.cuCtxSetCurrent(cr_ctx) || cu.cuStreamCreate(&l.s, CU_STREAM_NON_BLOCKING) ||
	    cu.cuStreamCreate(&l.idle, CU_STREAM_NON_BLOCKING) ||
	    cu.cuEventCreate(&l.queued, CU_EVENT_DEFAULT) ||
	    cu.cuEventCreate(&l.now, CU_EVENT_DEFAULT)) {
		printf("launcher: set-up failed\n");
		__atomic_store_n(&cr_failed, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	while (!__atomic_load_n(&cr_stop, __ATOMIC_RELAXED)) {
		CUresult rc = cr_kernel(l.s);

		if (rc) {
			printf("launcher %s\n", cu_err(rc));
			__atomic_store_n(&cr_failed, 1, __ATOMIC_RELAXED);
			break;
		}
		__atomic_add_fetch(&cr_launches, 1, __ATOMIC_RELAXED);
		if (cr_pause)
			cr_release();
		if (__atomic_load_n(&cr_probe, __ATOMIC_ACQUIRE) == 1) {
			cr_measure(&l);
			__atomic_store_n(&cr_probe, 2, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long rounds, invalid = 0, r;
	CUstream s;
	pthread_t t;
	int bad = 0;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: capture-race ROUNDS NS GAP [HOLD]\n");
		return 2;
	}
	rounds = strtoul(argv[1], NULL, 0);
	cr_ns = strtoull(argv[2], NULL, 0);
	cr_gap_us = (useconds_t)strtoul(argv[3], NULL, 0);
	cr_hold_us = argc == 5 ? (useconds_t)strtoul(argv[4], NULL, 0) : 0;
	if (getenv("SIMGPU_PAUSE_IN") &&
	    !strcmp(getenv("SIMGPU_PAUSE_IN"), "cuStreamBeginCapture:live"))
		cr_pause = getenv("SIMGPU_PAUSE_FILE");
	if (cu_load(0) || cu.cuInit(0) || cr_setup() ||
	    cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) {
		fprintf(stderr, "capture-race: set-up failed\n");
		return 1;
	}
	if (pthread_create(&t, NULL, cr_launcher, NULL))
		return 1;
	while (__atomic_load_n(&cr_launches, __ATOMIC_RELAXED) < 10 &&
	       !__atomic_load_n(&cr_failed, __ATOMIC_RELAXED))
		;
	for (r = 0; r < rounds && !bad; r++) {
		CUresult rc;

		if (cr_pause)
			unlink(cr_pause);
		rc = cr.begin(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
		CUgraph g = NULL;

		if (rc) {
			printf("begin %s\n", cu_err(rc));
			bad = 1;
			break;
		}
		rc = cr_kernel(s);
		if (rc && rc != CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) {
			printf("kernel %s\n", cu_err(rc));
			bad = 1;
		}
		if (cr_hold_us) {
			usleep(cr_hold_us);
			__atomic_store_n(&cr_probe, 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&cr_probe, __ATOMIC_ACQUIRE) != 2 &&
			       !__atomic_load_n(&cr_failed, __ATOMIC_RELAXED))
				usleep(100);
			__atomic_store_n(&cr_probe, 0, __ATOMIC_RELAXED);
		}
		rc = cr.end(s, &g);
		if (rc == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
			invalid++;
		else if (rc) {
			printf("end %s\n", cu_err(rc));
			bad = 1;
		}
		if (g)
			cu.cuGraphDestroy(g);
		usleep(cr_gap_us);	/* no capture live: the launcher's marks run */
	}
	__atomic_store_n(&cr_stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	printf("rounds %lu invalidated %lu launches %lu backlog_ms %.1f paused %lu\n", r, invalid,
	       __atomic_load_n(&cr_launches, __ATOMIC_RELAXED), cr_backlog_ms,
	       __atomic_load_n(&cr_paused, __ATOMIC_RELAXED));
	return bad || cr_failed;
}
