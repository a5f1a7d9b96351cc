// SPDX-License-Identifier: GPL-2.0
/*
 * capture-client: stream capture and graph replay, reached like NVIDIA's
 * runtime does (cuload.c). It captures on a stream, in a capture mode,
 * a graph of an allocation (cuMemAllocAsync), a memset and a host-to-device
 * copy of its first 4 KiB (simgpu runs them on the host: a whole-size
 * memset would hold the stream up), K simgpu_spin kernels of NS ns and
 * (unless keep) the allocation's free, while the same thread keeps launching kernels on a
 * second, uncaptured stream (side launches: they meet libvgpu's gate,
 * its drains and queue marks). Then it instantiates the graph, replays it
 * N times, synchronises, says "holding" and pauses for HOLD.
 *
 *   capture-client MODE NS K SIZE N HOLD [keep] [side S] [sidens NS]
 *                  [pause PAUSE] [fork unjoined|joined] [forbid WHAT]
 *
 * MODE: global, thread (thread-local) or relaxed. SIZE takes K/M/G.
 * side S: S side launches of sidens NS (default 2 of NS) after each
 * captured kernel. pause PAUSE: after the capture, say "captured" and pause.
 * HOLD and PAUSE are milliseconds, or a file to wait for (waitfile.h).
 * fork: a third stream joins the capture (waits on an event recorded in
 * it) and runs a kernel; joined: the capture stream then waits on an event
 * recorded after it (else the fork is left unjoined).
 * forbid WHAT: during the capture the client itself makes a call that
 * CUDA forbids there: sync (cuCtxSynchronize), alloc (cuMemAlloc),
 * query (cuEventQuery of an event recorded outside the capture), other
 * (cuMemAlloc from another thread, in the default GLOBAL mode); it
 * prints that call's result and cuStreamEndCapture's, and stops.
 *
 * One line per step: "STEP ok ..." or "STEP CUDA_ERROR_..."; exit 0 when
 * every step succeeded, 1 otherwise, 2 on a usage error.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuload.h"
#include "waitfile.h"

static struct {
	__typeof__(&cuStreamBeginCapture_v2) begin;
	__typeof__(&cuStreamEndCapture) end;
	__typeof__(&cuStreamIsCapturing) is;
	__typeof__(&cuThreadExchangeStreamCaptureMode) xmode;
	__typeof__(&cuMemsetD8Async) set;
	__typeof__(&cuMemcpyHtoDAsync_v2) copy;
	__typeof__(&cuEventCreate) evcreate;
	__typeof__(&cuEventRecord) record;
	__typeof__(&cuEventQuery) query;
	__typeof__(&cuGraphGetNodes) nodes;
	__typeof__(&cuStreamWaitEvent) wait;
} cx;

static int get(const char *name, int version, void **out)
{
	CUresult rc = cu_proc(name, version, out);

	if (rc) {
		printf("lookup %s %s\n", name, cu_err(rc));
		return -1;
	}
	return 0;
}

static int load(void)
{
	return get("cuStreamBeginCapture", 10010, (void **)&cx.begin) |
	       get("cuStreamEndCapture", 10000, (void **)&cx.end) |
	       get("cuStreamIsCapturing", 10000, (void **)&cx.is) |
	       get("cuThreadExchangeStreamCaptureMode", 10010, (void **)&cx.xmode) |
	       get("cuMemsetD8Async", 3020, (void **)&cx.set) |
	       get("cuMemcpyHtoDAsync", 3020, (void **)&cx.copy) |
	       get("cuEventCreate", 2000, (void **)&cx.evcreate) |
	       get("cuEventRecord", 2000, (void **)&cx.record) |
	       get("cuEventQuery", 2000, (void **)&cx.query) |
	       get("cuGraphGetNodes", 10000, (void **)&cx.nodes) |
	       get("cuStreamWaitEvent", 3020, (void **)&cx.wait);
}

static int step(const char *what, CUresult rc)
{
	printf("%s %s\n", what, rc ? cu_err(rc) : "ok");
	fflush(stdout);
	return rc != CUDA_SUCCESS;
}

static CUfunction spin;
static CUcontext ctx;

static CUresult setup(void)
{
	static const char image[] = "simgpu test image: any bytes will do";
	CUlibrary lib;
	CUkernel k;
	CUdevice d;
	CUresult rc = cu.cuDeviceGet(&d, 0);

	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&ctx, d);
	if (!rc)
		rc = cu.cuCtxSetCurrent(ctx);
	if (!rc)
		rc = cu.cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
	if (!rc)
		rc = cu.cuLibraryGetKernel(&k, lib, "simgpu_spin");
	if (!rc)
		spin = (CUfunction)(void *)k;
	return rc;
}

static CUresult kernel(uint64_t ns, CUstream s)
{
	void *params[] = { &ns };

	return cu.cuLaunchKernel(spin, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}

struct opts {
	CUstreamCaptureMode mode;
	uint64_t ns, k, size, n, side, sidens;
	const char *hold, *pause;
	int keep;
	int fork;		/* 1 unjoined, 2 joined */
	const char *forbid;
};

static void *other_thread(void *arg)
{
	CUdeviceptr p;
	CUresult rc = cu.cuCtxSetCurrent(ctx);

	if (!rc)
		rc = cu.cuMemAlloc(&p, 1 << 20);
	*(CUresult *)arg = rc;
	return NULL;
}

/* The app's own forbidden call during the capture: its result. */
static CUresult forbidden(const char *what, CUevent ev)
{
	CUresult rc = CUDA_ERROR_UNKNOWN;
	CUdeviceptr p;
	pthread_t t;

	if (!strcmp(what, "other")) {
		if (pthread_create(&t, NULL, other_thread, &rc))
			return CUDA_ERROR_OUT_OF_MEMORY;
		pthread_join(t, NULL);
		return rc;
	}

	if (!strcmp(what, "sync"))
		return cu.cuCtxSynchronize(NULL);
	if (!strcmp(what, "alloc"))
		return cu.cuMemAlloc(&p, 1 << 20);
	return cx.query(ev);
}

/* A third stream forks from s's capture, runs a kernel, and is joined
 * back if asked. */
static CUresult fork_join(const struct opts *o, CUstream s)
{
	CUevent a, b;
	CUstream s3;
	CUresult rc = cu.cuStreamCreate(&s3, CU_STREAM_NON_BLOCKING);

	if (!rc)
		rc = cx.evcreate(&a, 0);
	if (!rc)
		rc = cx.evcreate(&b, 0);
	if (!rc)
		rc = cx.record(a, s);
	if (!rc)
		rc = cx.wait(s3, a, 0);
	if (!rc)
		rc = kernel(o->ns, s3);
	if (!rc && o->fork == 2)
		rc = cx.record(b, s3);
	if (!rc && o->fork == 2)
		rc = cx.wait(s, b, 0);
	return rc;
}

/* Capture the graph on s (side launches on s2); 0 or the failing rc. */
static CUresult capture(const struct opts *o, CUstream s, CUstream s2, CUgraph *g)
{
	static unsigned char host[4096];
	CUstreamCaptureStatus st;
	CUdeviceptr p = 0;
	CUevent ev;
	CUresult rc, rc2;

	rc = cx.evcreate(&ev, 0);
	if (!rc)
		rc = cx.record(ev, s2);
	if (!rc)
		rc = kernel(o->ns, s2);	/* the process has work queued */
	if (!rc)
		rc = cx.begin(s, o->mode);
	if (step("begin", rc))
		return rc;
	rc = cu.cuMemAllocAsync(&p, o->size, s);
	if (!rc)
		rc = cx.set(p, 0x5a, sizeof(host), s);
	if (!rc)
		rc = cx.copy(p, host, sizeof(host), s);
	for (uint64_t i = 0; i < o->k && !rc; i++) {
		rc = kernel(o->ns, s);
		for (uint64_t j = 0; j < o->side && !rc; j++)
			if ((rc2 = kernel(o->sidens, s2)))
				return step("side launch", rc2), rc2;
	}
	if (!rc && o->forbid) {
		step(o->forbid, forbidden(o->forbid, ev));
		step("end", cx.end(s, g));
		return CUDA_SUCCESS;	/* the results printed are the test */
	}
	if (!rc && o->fork)
		rc = fork_join(o, s);
	if (!rc && !o->keep)
		rc = cu.cuMemFreeAsync(p, s);
	if (step("capture", rc))
		return rc;
	rc2 = cx.is(s, &st);
	printf("status %s %d\n", rc2 ? cu_err(rc2) : "ok", (int)st);
	rc = cx.end(s, g);
	step("end", rc);
	return rc;
}

static int run(const struct opts *o)
{
	CUstreamCaptureMode mode = o->mode == CU_STREAM_CAPTURE_MODE_RELAXED ?
				   CU_STREAM_CAPTURE_MODE_RELAXED : CU_STREAM_CAPTURE_MODE_GLOBAL;
	CUgraphExec e;
	CUstream s, s2;
	CUgraph g = NULL;
	size_t nn = 0;
	CUresult rc;

	if (step("setup", setup()) || step("streams", cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) ||
	    step("streams", cu.cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING)) ||
	    step("mode", cx.xmode(&mode)))
		return 1;
	rc = capture(o, s, s2, &g);
	if (o->forbid)
		return 0;	/* the results printed are the test */
	if (rc)
		return 1;
	if (o->pause) {
		printf("captured\n");
		fflush(stdout);
		client_pause(o->pause);
	}
	rc = cx.nodes(g, NULL, &nn);
	printf("nodes %s %zu\n", rc ? cu_err(rc) : "ok", nn);
	if (step("instantiate", cu.cuGraphInstantiate(&e, g, 0)))
		return 1;
	for (uint64_t i = 0; i < o->n; i++) {
		rc = cu.cuGraphLaunch(e, s);
		if (rc)
			return step("replay", rc);
	}
	printf("replays %llu ok\n", (unsigned long long)o->n);
	if (step("sync", cu.cuStreamSynchronize(s)) || step("sync", cu.cuCtxSynchronize(NULL)))
		return 1;
	printf("holding\n");
	fflush(stdout);
	client_pause(o->hold);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: capture-client global|thread|relaxed NS K SIZE N HOLD "
		"[keep] [side S] [pause PAUSE] [forbid sync|alloc|query]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = { .side = 2 };
	char *end;

	if (argc < 7)
		return usage();
	if (!strcmp(argv[1], "global"))
		o.mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
	else if (!strcmp(argv[1], "thread"))
		o.mode = CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
	else if (!strcmp(argv[1], "relaxed"))
		o.mode = CU_STREAM_CAPTURE_MODE_RELAXED;
	else
		return usage();
	o.ns = strtoull(argv[2], &end, 0);
	o.k = strtoull(argv[3], &end, 0);
	if (cu_size_arg(argv[4], &o.size) || !o.size || o.size < 4096)
		return usage();
	o.n = strtoull(argv[5], &end, 0);
	o.hold = argv[6];
	for (int i = 7; i < argc; i++) {
		if (!strcmp(argv[i], "keep"))
			o.keep = 1;
		else if (!strcmp(argv[i], "side") && i + 1 < argc)
			o.side = strtoull(argv[++i], &end, 0);
		else if (!strcmp(argv[i], "sidens") && i + 1 < argc)
			o.sidens = strtoull(argv[++i], &end, 0);
		else if (!strcmp(argv[i], "fork") && i + 1 < argc && !strcmp(argv[i + 1], "joined"))
			o.fork = 2, i++;
		else if (!strcmp(argv[i], "fork") && i + 1 < argc &&
			 !strcmp(argv[i + 1], "unjoined"))
			o.fork = 1, i++;
		else if (!strcmp(argv[i], "pause") && i + 1 < argc)
			o.pause = argv[++i];
		else if (!strcmp(argv[i], "forbid") && i + 1 < argc &&
			 strstr(" sync alloc query other ", argv[i + 1]) && strlen(argv[i + 1]) > 3)
			o.forbid = argv[++i];
		else
			return usage();
	}
	if (!o.sidens)
		o.sidens = o.ns;
	if (cu_load(1) || load() || step("init", cu.cuInit(0)))
		return 3;
	return run(&o);
}
