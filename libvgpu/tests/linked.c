// SPDX-License-Identifier: GPL-2.0
/*
 * A program linked with -lcuda: its calls bind to libvgpu's exported
 * wrappers when preloaded. Prints where cuMemAlloc_v2 resolved and the
 * result of init, context, alloc, info and free.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <cuda.h>

int main(void)
{
	void *p = (void *)&cuMemAlloc;	/* cuMemAlloc_v2 by cuda.h's macro */
	CUcontext ctx;
	CUdeviceptr d;
	size_t f, t;
	Dl_info di;
	CUresult rc;

	printf("cuMemAlloc_v2 in %s\n", dladdr(p, &di) && di.dli_fname &&
	       strstr(di.dli_fname, "libvgpu.so") ? "libvgpu" : "driver");
	rc = cuInit(0);
	if (!rc)
		rc = cuDevicePrimaryCtxRetain(&ctx, 0);
	if (!rc)
		rc = cuCtxSetCurrent(ctx);
	if (!rc)
		rc = cuMemAlloc(&d, 64 << 20);
	if (!rc)
		rc = cuMemGetInfo(&f, &t);
	if (!rc)
		rc = cuMemFree(d);
	if (!rc)
		rc = cuDevicePrimaryCtxRelease(0);
	printf("linked %s (%d)\n", rc ? "failed" : "ok", (int)rc);
	return rc != 0;
}
