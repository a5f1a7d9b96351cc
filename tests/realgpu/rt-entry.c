// SPDX-License-Identifier: GPL-2.0
/*
 * rt-entry: NVIDIA's runtime's own driver-entry-point query
 * (cudaGetDriverEntryPointByVersion, linked from libcudart_static.a as nvcc
 * links programs) for hooked names, each answer placed by dladdr:
 *
 *   entry NAME VERSION FLAGS -> SYMBOL in LIBRARY
 *
 * tests/realgpu/run's rt-entry step checks they lie in libvgpu. Exit 0,
 * or 3 with "runtime ERROR" when the runtime does not start (simgpu
 * refuses the private export tables it needs: simgpu.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

static const struct {
	const char *name;
	unsigned int version;
} rt_names[] = {
	{ "cuMemAlloc", 3020 }, { "cuMemFree", 3020 }, { "cuMemAllocAsync", 11020 },
	{ "cuMemCreate", 10020 }, { "cuMemGetInfo", 3020 }, { "cuLaunchKernel", 4000 },
	{ "cuLaunchKernelEx", 12000 }, { "cuGraphLaunch", 10000 },
	{ "cuMemcpyHtoD", 3020 }, { "cuCtxSynchronize", 2000 },
};

static const char *rt_lib(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

int main(void)
{
	enum cudaDriverEntryPointQueryResult st;
	cudaError_t err = cudaFree(NULL);	/* starts the runtime */
	int bad = 0;

	if (err) {
		printf("runtime %s\n", cudaGetErrorName(err));
		return 3;
	}
	for (size_t i = 0; i < sizeof(rt_names) / sizeof(rt_names[0]); i++) {
		for (unsigned long long fl = 0; fl <= cudaEnablePerThreadDefaultStream; fl += 2) {
			void *fn = NULL;
			Dl_info di;

			err = cudaGetDriverEntryPointByVersion(rt_names[i].name, &fn,
							       rt_names[i].version, fl, &st);
			if (err || st != cudaDriverEntryPointSuccess || !fn) {
				printf("entry %s %u %llu -> %s status %d\n", rt_names[i].name,
				       rt_names[i].version, fl, cudaGetErrorName(err), (int)st);
				bad = 1;
			} else if (dladdr(fn, &di) && di.dli_sname) {
				printf("entry %s %u %llu -> %s in %s\n", rt_names[i].name,
				       rt_names[i].version, fl, di.dli_sname, rt_lib(di.dli_fname));
			} else {
				printf("entry %s %u %llu -> %p in %s\n", rt_names[i].name,
				       rt_names[i].version, fl, fn,
				       dladdr(fn, &di) ? rt_lib(di.dli_fname) : "?");
			}
		}
	}
	return bad;
}
