// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA in a parent and in its forked child, reached like NVIDIA's
 * runtime (dlopen, dlsym of cuGetProcAddress_v2, look-ups). Each side
 * initialises, allocates, frees and prints "parent ok" / "child ok".
 */
#include <dlfcn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

typedef CUresult (*gpa_fn)(const char *, void **, int, cuuint64_t,
			   CUdriverProcAddressQueryResult *);

static int use_cuda(const char *who)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	gpa_fn gpa = h ? (gpa_fn)dlsym(h, "cuGetProcAddress_v2") : NULL;
	CUresult (*init)(unsigned int) = h ? (CUresult (*)(unsigned int))dlsym(h, "cuInit") : NULL;
	CUresult (*retain)(CUcontext *, CUdevice) = NULL;
	CUresult (*setcur)(CUcontext) = NULL;
	CUresult (*alloc)(CUdeviceptr *, size_t) = NULL;
	CUresult (*fr)(CUdeviceptr) = NULL;
	CUcontext ctx;
	CUdeviceptr p;
	CUresult rc;

	if (!gpa || !init) {
		printf("%s: cannot load the driver\n", who);
		return 1;
	}
	gpa("cuDevicePrimaryCtxRetain", (void **)&retain, 7000, 0, NULL);
	gpa("cuCtxSetCurrent", (void **)&setcur, 4000, 0, NULL);
	gpa("cuMemAlloc", (void **)&alloc, 3020, 0, NULL);
	gpa("cuMemFree", (void **)&fr, 3020, 0, NULL);
	if (!retain || !setcur || !alloc || !fr) {
		printf("%s: look-ups failed\n", who);
		return 1;
	}
	rc = init(0);
	if (!rc)
		rc = retain(&ctx, 0);
	if (!rc)
		rc = setcur(ctx);
	if (!rc)
		rc = alloc(&p, 1 << 20);
	if (!rc)
		rc = fr(p);
	printf("%s %s (%d)\n", who, rc ? "failed" : "ok", (int)rc);
	fflush(stdout);
	return rc != 0;
}

int main(void)
{
	int st, bad = use_cuda("parent");
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(use_cuda("child"));
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		bad = 1;
	return bad;
}
