// SPDX-License-Identifier: GPL-2.0
/*
 * engine-client: work on a GPU's engines other than kernels launched on
 * the current context's default stream, for the compute gate's tests
 * (tests/vm/suites/68-engines.sh, 82-engines-share.sh). Loads libcuda.so.1
 * as NVIDIA's runtime does (cuload.c). One command, its result on one
 * line ("CMD ok" or "CMD CUDA_ERROR_..."); exit 0 on success, 1 on a
 * failure, 2 on a usage error, 3 when cuInit failed.
 *
 *   xstream NS COUNT DEV   COUNT simgpu_spin kernels of NS ns launched as
 *                          CUkernels on a stream of device DEV with no
 *                          context current, then synchronise
 *   copy BYTES COUNT       COUNT device-to-device copies of BYTES on a
 *                          stream of device 0, then synchronise
 *   work KIND BYTES COUNT  COUNT operations of KIND on a stream of device
 *                          0 ("[started]" on stderr once it has that
 *                          stream), then synchronise and check what they
 *                          did:
 *                          2d (cuMemcpy2DAsync of 4 rows of BYTES/4 bytes),
 *                          3d (cuMemcpy3DAsync of 2 slices of 2 such rows),
 *                          batch (cuMemcpyBatchAsync: 2 copies of BYTES/2),
 *                          peer (cuMemcpyPeerAsync of BYTES from device
 *                          0's memory to device 1's), memset2d
 *                          (cuMemsetD2D32Async of 4 rows), prefetch
 *                          (cuMemPrefetchAsync of BYTES managed memory to
 *                          device 0), writevalue (cuStreamWriteValue32;
 *                          BYTES unused), batchmemop (cuStreamBatchMemOp:
 *                          a 32-bit write, a barrier, a 64-bit write;
 *                          both print "[set up]" when their word is,
 *                          then, with ENGINE_GO set, wait as waitfile.h
 *                          says, and print "[issued N]" as call N
 *                          returns),
 *                          array (cuMemcpyHtoAAsync and cuMemcpyAtoHAsync
 *                          of BYTES in turn), arraysync (cuMemcpyDtoA,
 *                          AtoA, AtoD, AtoH, HtoA of BYTES in turn, on
 *                          the current context), batch3d
 *                          (cuMemcpy3DBatchAsync: BYTES/2 to an array,
 *                          4 rows of BYTES/8 between device buffers),
 *                          prefetchbatch, discardprefetch
 *                          (cuMemPrefetchBatchAsync,
 *                          cuMemDiscardAndPrefetchBatchAsync: two halves
 *                          of BYTES managed memory, to device 0 and the
 *                          host), copyattr (cuMemcpyWithAttributesAsync
 *                          of BYTES), copy3dattr (batch3d's two copies,
 *                          each alone with cuMemcpy3DWithAttributesAsync),
 *                          fabric (cuFabricCpyBatchAsync: 2 copies of
 *                          BYTES/2 between pointers); and the deprecated
 *                          launches of a BYTES ns simgpu_spin kernel set
 *                          up with
 *                          cuFuncSetBlockShape and cuParamSetv: launch
 *                          (cuLaunch), launchgrid (cuLaunchGrid),
 *                          launchgridasync (cuLaunchGridAsync on the
 *                          stream), multidevice
 *                          (cuLaunchCooperativeKernelMultiDevice on the
 *                          stream and one of device 1)
 *   waitvalue NS COUNT     a stream waits (cuStreamWaitValue32) for a word
 *                          the host sets after NS ns, then writes COUNT
 *                          into another word; fails if the write came
 *                          before the wait was released
 *   errors 0 0             bad arguments to those calls get the errors the
 *                          Driver API reference names; prints each
 *                          mismatch
 *   pingpong NS COUNT      one thread, devices 0 and 1: per round, device
 *                          0's stream waits for device 1's last event,
 *                          runs a host function that waits until the
 *                          thread has launched the round's kernel on
 *                          device 1, then an NS kernel; device 1's stream
 *                          runs an NS kernel and records its event. The
 *                          thread makes device 0's work runnable only
 *                          after it launched on device 1: a library that
 *                          waits for device 0's work first never ends
 *                          (a host function waiting 60 s fails the run).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuload.h"
#include "engine-work.h"

static const char image[] = "simgpu test image: any bytes will do";

/* The round device 1 has been launched for (pingpong). */
static unsigned long long launched_b;
static int hostfn_late;

static CUresult spin_kernel(CUkernel *k)
{
	CUlibrary lib;
	CUresult rc = cu.cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);

	return rc ? rc : cu.cuLibraryGetKernel(k, lib, "simgpu_spin");
}

static CUresult launch(CUkernel k, uint64_t ns, CUstream s)
{
	void *params[] = { &ns };

	return cu.cuLaunchKernel((CUfunction)(void *)k, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}

static CUresult cmd_xstream(uint64_t ns, uint64_t count, int dev)
{
	CUcontext c;
	CUstream s;
	CUkernel k;
	CUresult rc = cu.cuCtxSetCurrent(NULL);

	if (!rc)
		rc = engine_dev_stream(dev, &c, &s);
	if (!rc)
		rc = spin_kernel(&k);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = launch(k, ns, s);
	return rc ? rc : cu.cuStreamSynchronize(s);
}

static CUresult cmd_copy(uint64_t bytes, uint64_t count)
{
	CUdeviceptr a = 0, b = 0;
	CUcontext c;
	CUstream s;
	CUresult rc = engine_dev_stream(0, &c, &s);

	if (!rc)
		rc = cu.cuCtxSetCurrent(c);
	if (!rc)
		rc = cu.cuMemAlloc(&a, bytes);
	if (!rc)
		rc = cu.cuMemAlloc(&b, bytes);
	for (uint64_t i = 0; i < count && !rc; i++)
		rc = cu.cuMemcpyDtoDAsync(i & 1 ? a : b, i & 1 ? b : a, bytes, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (a)
		cu.cuMemFree(a);
	if (b)
		cu.cuMemFree(b);
	return rc;
}

/* On device 0's stream: wait until round (arg) is launched on device 1. */
static void CUDA_CB wait_round(void *arg)
{
	unsigned long long round = (unsigned long long)(uintptr_t)arg;
	struct timespec nap = { 0, 200000 };

	for (int i = 0; i < 300000; i++) {	/* 60 s */
		if (__atomic_load_n(&launched_b, __ATOMIC_ACQUIRE) >= round)
			return;
		nanosleep(&nap, NULL);
	}
	__atomic_store_n(&hostfn_late, 1, __ATOMIC_RELAXED);
}

static CUresult cmd_pingpong(uint64_t ns, uint64_t count)
{
	CUcontext ca, cb;
	CUstream sa, sb;
	CUevent eb = NULL;
	CUkernel k;
	CUresult rc = engine_dev_stream(0, &ca, &sa);

	if (!rc)
		rc = engine_dev_stream(1, &cb, &sb);
	if (!rc)
		rc = spin_kernel(&k);
	if (!rc && !(rc = cu.cuCtxSetCurrent(cb)))
		rc = cu.cuEventCreate(&eb, CU_EVENT_DISABLE_TIMING);
	for (uint64_t i = 1; i <= count && !rc; i++) {
		rc = cu.cuCtxSetCurrent(ca);
		if (!rc && i > 1)
			rc = cu.cuStreamWaitEvent(sa, eb, 0);
		if (!rc)
			rc = cu.cuLaunchHostFunc(sa, wait_round, (void *)(uintptr_t)i);
		if (!rc)
			rc = launch(k, ns, sa);
		if (!rc)
			rc = cu.cuCtxSetCurrent(cb);
		if (!rc)
			rc = launch(k, ns, sb);
		if (!rc)
			rc = cu.cuEventRecord(eb, sb);
		__atomic_store_n(&launched_b, i, __ATOMIC_RELEASE);
	}
	if (!rc)
		rc = cu.cuStreamSynchronize(sa);
	if (!rc)
		rc = cu.cuStreamSynchronize(sb);
	if (!rc && __atomic_load_n(&hostfn_late, __ATOMIC_RELAXED))
		rc = CUDA_ERROR_LAUNCH_TIMEOUT;
	return rc;
}

static void usage(void)
{
	fprintf(stderr, "usage: engine-client xstream NS COUNT DEV | copy BYTES COUNT | "
		"pingpong NS COUNT | work KIND BYTES COUNT | waitvalue NS COUNT | errors 0 0\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t a, b, d = 0;
	CUresult rc;

	int work = argc > 1 && !strcmp(argv[1], "work");

	/* work KIND BYTES COUNT: the numbers one further on */
	if (argc < 4 + work || cu_size_arg(argv[2 + work], &a) ||
	    cu_size_arg(argv[3 + work], &b) || (!work && argc > 4 && cu_size_arg(argv[4], &d)))
		usage();
	if (cu_load(CU_GET_PROC_ADDRESS_LEGACY_STREAM))
		return 3;
	rc = cu.cuInit(0);
	if (rc) {
		printf("init %s\n", cu_err(rc));
		return 3;
	}
	if (!strcmp(argv[1], "xstream") && argc == 5)
		rc = cmd_xstream(a, b, (int)d);
	else if (!strcmp(argv[1], "copy") && argc == 4)
		rc = cmd_copy(a, b);
	else if (work && argc == 5)
		rc = engine_work(argv[2], a, b);
	else if (!strcmp(argv[1], "errors") && argc == 4)
		rc = engine_errors();
	else if (!strcmp(argv[1], "waitvalue") && argc == 4)
		rc = engine_waitvalue(a, b);
	else if (!strcmp(argv[1], "pingpong") && argc == 4)
		rc = cmd_pingpong(a, b);
	else
		usage();
	printf("%s%s%s %s\n", argv[1], work ? " " : "", work ? argv[2] : "",
	       rc ? cu_err(rc) : "ok");
	return rc ? 1 : 0;
}
