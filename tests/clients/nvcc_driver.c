// SPDX-License-Identifier: GPL-2.0
/*
 * A driver-API program as a user would write it, compiled by nvcc against
 * NVIDIA's cuda.h and linked with the toolkit's libcuda stub; at run time
 * it must work unchanged on simgpu's libcuda.so.1.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define CK(call)							\
	do {								\
		CUresult rc_ = (call);					\
		if (rc_ != CUDA_SUCCESS) {				\
			const char *n_ = "?";				\
			cuGetErrorName(rc_, &n_);			\
			printf("FAILED %s: %s (%d)\n", #call, n_, (int)rc_); \
			return 1;					\
		}							\
	} while (0)

static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry simgpu_spin(.param .u64 ns)\n{\n\tret;\n}\n";

int main(void)
{
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction fn;
	CUdeviceptr d;
	char name[128];
	int n, major, minor, sms;
	size_t total, freeb;
	uint64_t ns = 200000000;	/* 0.2 s */
	void *params[] = { &ns };
	unsigned char in[4096], out[4096];
	struct timespec t0, t1;
	double secs;

	CK(cuInit(0));
	CK(cuDeviceGetCount(&n));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDeviceGetName(name, sizeof(name), dev));
	CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
	CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
	CK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
	CK(cuDeviceTotalMem(&total, dev));
	printf("devices %d name %s cc %d.%d sms %d total %zu\n", n, name, major, minor, sms, total);
	CK(cuCtxCreate(&ctx, NULL, 0, dev));
	CK(cuModuleLoadData(&mod, ptx));
	CK(cuModuleGetFunction(&fn, mod, "simgpu_spin"));
	CK(cuMemAlloc(&d, sizeof(in)));
	CK(cuMemGetInfo(&freeb, &total));
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 13);
	CK(cuMemcpyHtoD(d, in, sizeof(in)));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
	CK(cuCtxSynchronize());
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CK(cuMemcpyDtoH(out, d, sizeof(out)));
	CK(cuMemFree(d));
	CK(cuModuleUnload(mod));
	CK(cuCtxDestroy(ctx));
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (memcmp(in, out, sizeof(in))) {
		printf("FAILED data mismatch\n");
		return 1;
	}
	printf("kernel %.3f s used %zu\n", secs, total - freeb);
	printf("nvcc_driver ok\n");
	return 0;
}
