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
 *   capture-race ROUNDS NS GAP
 *
 * NS: each kernel's length (the launcher's and the captured one); GAP:
 * microseconds between captures (no capture live), when the launcher's
 * launches are marked.
 * Prints "rounds R invalidated I launches L" and exits 0 when no capture
 * step failed other than by invalidation, 1 otherwise, 2 on a usage error.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cuload.h"

static struct {
	__typeof__(&cuStreamBeginCapture_v2) begin;
	__typeof__(&cuStreamEndCapture) end;
} cr;

static CUfunction cr_spin;
static CUcontext cr_ctx;
static uint64_t cr_ns;
static useconds_t cr_gap_us;
static int cr_stop, cr_failed;
static unsigned long cr_launches;

static int cr_get(const char *name, int version, void **out)
{
	CUdriverProcAddressQueryResult st;

	return cu.cuGetProcAddress(name, out, version, 0, &st) || !*out;
}

static CUresult cr_setup(void)
{
	static const char image[] = "simgpu test image: any bytes will do";
	CUlibrary lib;
	CUkernel k;
	CUdevice d;
	CUresult rc = cu.cuDeviceGet(&d, 0);

	if (cr_get("cuStreamBeginCapture", 10010, (void **)&cr.begin) ||
	    cr_get("cuStreamEndCapture", 10000, (void **)&cr.end))
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

/* Launches on a stream of its own, in the default (GLOBAL) mode: a launch
 * is legal during another stream's capture; libvgpu's marks on its behalf
 * are what is at stake. */
static void *cr_launcher(void *arg)
{
	CUstream s;

	(void)arg;
	if (cu.cuCtxSetCurrent(cr_ctx) || cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING))
		return NULL;
	while (!__atomic_load_n(&cr_stop, __ATOMIC_RELAXED)) {
		CUresult rc = cr_kernel(s);

		if (rc) {
			printf("launcher %s\n", cu_err(rc));
			__atomic_store_n(&cr_failed, 1, __ATOMIC_RELAXED);
			break;
		}
		__atomic_add_fetch(&cr_launches, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long rounds, invalid = 0, r;
	CUstream s;
	pthread_t t;
	int bad = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: capture-race ROUNDS NS GAP\n");
		return 2;
	}
	rounds = strtoul(argv[1], NULL, 0);
	cr_ns = strtoull(argv[2], NULL, 0);
	cr_gap_us = (useconds_t)strtoul(argv[3], NULL, 0);
	if (cu_load(0) || cu.cuInit(0) || cr_setup() ||
	    cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) {
		fprintf(stderr, "capture-race: set-up failed\n");
		return 1;
	}
	if (pthread_create(&t, NULL, cr_launcher, NULL))
		return 1;
	while (__atomic_load_n(&cr_launches, __ATOMIC_RELAXED) < 10)
		;
	for (r = 0; r < rounds && !bad; r++) {
		CUresult rc = cr.begin(s, CU_STREAM_CAPTURE_MODE_GLOBAL);
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
	printf("rounds %lu invalidated %lu launches %lu\n", r, invalid,
	       __atomic_load_n(&cr_launches, __ATOMIC_RELAXED));
	return bad || cr_failed;
}
