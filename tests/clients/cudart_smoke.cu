// SPDX-License-Identifier: GPL-2.0
/*
 * A CUDA runtime program as a user writes it, built by nvcc twice (with
 * -cudart shared and -cudart static) and run on simgpu: NVIDIA's own
 * libcudart initialises through simgpu's private export tables
 * (Documentation/simgpu.md, "Private export tables").
 *
 * One line per step: "NAME ok ..." or "NAME FAILED ...", then
 * "cudart_smoke ok" when every step passed. "entry NAME FLAVOUR in FILE
 * as SYMBOL" lines name the library and symbol whose function the runtime's own
 * cuGetProcAddress answers for NAME (the runtime got cuGetProcAddress
 * with dlsym, and resolves every driver entry point through it):
 * libcuda.so.1 bare, libvgpu.so under libvgpu. Optional argument: bytes of
 * the allocation that must fail with cudaErrorMemoryAllocation
 * (default: twice the device's total memory).
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

#define STEP(name, call)						\
	do {								\
		cudaError_t e_ = (call);				\
		if (e_ == cudaSuccess) {				\
			printf("%s ok\n", name);			\
		} else {						\
			printf("%s FAILED %s: %s (%d)\n", name, #call,	\
			       cudaGetErrorName(e_), (int)e_);		\
			fails++;					\
		}							\
	} while (0)

__global__ void smoke_write(int *p, int v)
{
	p[threadIdx.x] = v;
}

/* Which library the runtime's driver look-up answers NAME from. */
static void entry(const char *name, unsigned long long flags, const char *flavour)
{
	void *fn = NULL;
	cudaDriverEntryPointQueryResult q;
	Dl_info info;
	const char *file;
	cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, 13000, flags, &q);

	if (e != cudaSuccess || !fn) {
		printf("entry %s FAILED %s\n", name, cudaGetErrorName(e));
		fails++;
		return;
	}
	file = dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "?";
	if (strrchr(file, '/'))
		file = strrchr(file, '/') + 1;
	printf("entry %s %s in %s as %s\n", name, flavour, file,
	       info.dli_sname ? info.dli_sname : "?");
}

int main(int argc, char **argv)
{
	enum { N = 1 << 16 };
	static unsigned char in[N], out[N];
	int n = 0, rv = 0, dv = 0;
	size_t freeb = 0, total = 0, big;
	void *d = NULL, *huge = NULL;
	cudaStream_t s = NULL;
	cudaGraph_t g = NULL;
	cudaGraphExec_t ge = NULL;
	cudaError_t e;

	STEP("runtime-version", cudaRuntimeGetVersion(&rv));
	STEP("driver-version", cudaDriverGetVersion(&dv));
	printf("versions runtime %d driver %d\n", rv, dv);
	STEP("device-count", cudaGetDeviceCount(&n));
	printf("devices %d\n", n);
	STEP("set-device", cudaSetDevice(0));
	entry("cuMemAlloc", cudaEnableDefault, "default");
	entry("cuMemcpyHtoD", cudaEnableDefault, "default");
	entry("cuLaunchKernel", cudaEnableDefault, "default");
	entry("cuLaunchKernel", cudaEnablePerThreadDefaultStream, "per-thread");
	entry("cuStreamBeginCapture", cudaEnableDefault, "default");
	entry("cuGraphLaunch", cudaEnableDefault, "default");
	entry("cuMemGetInfo", cudaEnableDefault, "default");
	STEP("mem-info", cudaMemGetInfo(&freeb, &total));
	printf("mem free %zu total %zu\n", freeb, total);
	STEP("malloc", cudaMalloc(&d, N));
	for (size_t i = 0; i < N; i++)
		in[i] = (unsigned char)(i * 7 + 3);
	STEP("memcpy-h2d", cudaMemcpy(d, in, N, cudaMemcpyHostToDevice));
	STEP("memcpy-d2h", cudaMemcpy(out, d, N, cudaMemcpyDeviceToHost));
	if (memcmp(in, out, N)) {
		printf("data FAILED the bytes copied back differ\n");
		fails++;
	} else {
		printf("data ok\n");
	}
	smoke_write<<<1, 32>>>((int *)d, 42);
	STEP("launch", cudaGetLastError());
	STEP("launch-sync", cudaDeviceSynchronize());
	/* The kernel's code is loaded by now (lazily, at the first launch). */
	STEP("mem-info-after-launch", cudaMemGetInfo(&freeb, &total));
	printf("mem after-launch free %zu total %zu\n", freeb, total);
	STEP("stream-create", cudaStreamCreate(&s));
	STEP("capture-begin", cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	smoke_write<<<1, 32, 0, s>>>((int *)d, 7);
	STEP("capture-launch", cudaGetLastError());
	STEP("capture-copy", cudaMemcpyAsync(out, d, 256, cudaMemcpyDeviceToHost, s));
	STEP("capture-end", cudaStreamEndCapture(s, &g));
	STEP("graph-instantiate", cudaGraphInstantiate(&ge, g, 0));
	STEP("graph-launch", cudaGraphLaunch(ge, s));
	STEP("stream-sync", cudaStreamSynchronize(s));
	STEP("graph-exec-destroy", cudaGraphExecDestroy(ge));
	STEP("graph-destroy", cudaGraphDestroy(g));
	STEP("stream-destroy", cudaStreamDestroy(s));
	STEP("free", cudaFree(d));
	STEP("device-sync", cudaDeviceSynchronize());
	big = argc > 1 ? strtoull(argv[1], NULL, 0) : 2 * total;
	e = cudaMalloc(&huge, big);
	if (e == cudaErrorMemoryAllocation) {
		printf("malloc-too-big ok %zu bytes: %s\n", big, cudaGetErrorName(e));
	} else {
		printf("malloc-too-big FAILED %zu bytes: got %s, want cudaErrorMemoryAllocation\n",
		       big, cudaGetErrorName(e));
		fails++;
	}
	cudaGetLastError();	/* the failed allocation's error is not sticky */
	STEP("after-oom-malloc", cudaMalloc(&d, 4096));
	STEP("after-oom-free", cudaFree(d));
	/* The runtime's state for the context goes with it (its context
	 * local storage destructor), and comes back at the next call. */
	STEP("device-reset", cudaDeviceReset());
	STEP("after-reset-malloc", cudaMalloc(&d, 4096));
	STEP("after-reset-free", cudaFree(d));
	if (fails) {
		printf("cudart_smoke FAILED %d steps\n", fails);
		return 1;
	}
	printf("cudart_smoke ok\n");
	return 0;
}
