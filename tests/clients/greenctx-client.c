// SPDX-License-Identifier: GPL-2.0
/*
 * greenctx-client: green contexts step by step, so that what libvgpu
 * charges can be compared with what the driver holds after each step. It
 * loads libcuda.so.1 the way NVIDIA's runtime does (cuload.c). Commands
 * are separated by "," arguments; each prints one line, "CMD ARGS ok" or
 * "CMD ARGS CUDA_ERROR_..." (exit status 0 when all succeeded, 1 when one
 * failed, 2 on a usage error, 3 when cuInit failed). No context is current
 * at the start.
 *
 *   primary N       GPU N's primary context is retained and made current
 *   green N SMS     a green context on GPU N: the device's SM resource,
 *                   one group of at least SMS SMs split from it, a
 *                   descriptor, cuGreenCtxCreate (the last one is used)
 *   current         the green context's CUcontext (cuCtxFromGreenCtx)
 *                   becomes current
 *   stream          cuGreenCtxStreamCreate (non-blocking)
 *   alloc SIZE      cuMemAlloc in the current context
 *   launch          a kernel of a library launched on the green stream,
 *                   which is then synchronised
 *   destroy         the green stream (if any), then cuGreenCtxDestroy
 *   pause FILE      print "pausing FILE", wait until FILE exists
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuload.h"

static CUgreenCtx green;
static CUstream gstream;
static int failed;

static struct {
	__typeof__(&cuDeviceGetDevResource) get_res;
	__typeof__(&cuDevSmResourceSplitByCount) split;
	__typeof__(&cuDevResourceGenerateDesc) gen_desc;
	__typeof__(&cuGreenCtxCreate) create;
	__typeof__(&cuGreenCtxDestroy) destroy;
	__typeof__(&cuCtxFromGreenCtx) from;
	__typeof__(&cuGreenCtxStreamCreate) stream;
} g;

static int resolve(const char *name, void *out, int version)
{
	CUdriverProcAddressQueryResult st;

	if (cu.cuGetProcAddress(name, out, version, CU_GET_PROC_ADDRESS_DEFAULT, &st)) {
		fprintf(stderr, "greenctx-client: %s not found\n", name);
		return -1;
	}
	return 0;
}

static CUresult primary(int n)
{
	CUcontext c;
	CUdevice dev;
	CUresult rc = cu.cuDeviceGet(&dev, n);

	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&c, dev);
	return rc ? rc : cu.cuCtxSetCurrent(c);
}

static CUresult green_create(int n, unsigned int sms)
{
	CUdevResource all, part;
	CUdevResourceDesc desc;
	unsigned int groups = 1;
	CUdevice dev;
	CUresult rc = cu.cuDeviceGet(&dev, n);

	if (!rc)
		rc = g.get_res(dev, &all, CU_DEV_RESOURCE_TYPE_SM);
	if (!rc)
		rc = g.split(&part, &groups, &all, NULL, 0, sms);
	if (!rc && groups != 1)
		rc = CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	if (!rc)
		rc = g.gen_desc(&desc, &part, 1);
	return rc ? rc : g.create(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM);
}

static CUresult current(void)
{
	CUcontext c;
	CUresult rc = g.from(&c, green);

	return rc ? rc : cu.cuCtxSetCurrent(c);
}

static const char image[] = "simgpu accepts any image";

static CUresult launch(void)
{
	CUlibrary lib;
	CUkernel k;
	CUresult rc = cu.cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);

	if (!rc)
		rc = cu.cuLibraryGetKernel(&k, lib, "k");
	if (!rc)
		rc = cu.cuLaunchKernel((CUfunction)k, 1, 1, 1, 1, 1, 1, 0, gstream, NULL, NULL);
	return rc ? rc : cu.cuStreamSynchronize(gstream);
}

static CUresult destroy(void)
{
	CUresult rc = CUDA_SUCCESS;

	if (gstream)
		rc = cu.cuStreamDestroy(gstream);
	gstream = NULL;
	return rc ? rc : g.destroy(green);
}

static void run(char **av, int ac)
{
	char what[256];
	uint64_t a = 0, b = 0;
	CUdeviceptr p;
	CUresult rc = CUDA_SUCCESS;
	const char *cmd = av[0];

	snprintf(what, sizeof(what), "%s", cmd);
	for (int i = 1; i < ac && strlen(what) < 200; i++) {
		strcat(what, " ");
		strncat(what, av[i], 40);
	}
	if (strcmp(cmd, "pause") &&
	    ((ac > 1 && cu_size_arg(av[1], &a)) || (ac > 2 && cu_size_arg(av[2], &b)))) {
		fprintf(stderr, "greenctx-client: bad number in: %s\n", what);
		exit(2);
	}
	if (!strcmp(cmd, "primary") && ac == 2) {
		rc = primary((int)a);
	} else if (!strcmp(cmd, "green") && ac == 3) {
		rc = green_create((int)a, (unsigned int)b);
	} else if (!strcmp(cmd, "current") && ac == 1) {
		rc = current();
	} else if (!strcmp(cmd, "stream") && ac == 1) {
		rc = g.stream(&gstream, green, CU_STREAM_NON_BLOCKING, 0);
	} else if (!strcmp(cmd, "alloc") && ac == 2) {
		rc = cu.cuMemAlloc(&p, a);
	} else if (!strcmp(cmd, "launch") && ac == 1) {
		rc = launch();
	} else if (!strcmp(cmd, "destroy") && ac == 1) {
		rc = destroy();
	} else if (!strcmp(cmd, "pause") && ac == 2) {
		struct timespec ts = { 0, 10000000L };

		printf("pausing %s\n", av[1]);
		fflush(stdout);
		while (access(av[1], F_OK))
			nanosleep(&ts, NULL);
	} else {
		fprintf(stderr, "greenctx-client: bad command: %s\n", what);
		exit(2);
	}
	printf("%s %s\n", what, rc ? cu_err(rc) : "ok");
	fflush(stdout);
	if (rc)
		failed = 1;
}

int main(int argc, char **argv)
{
	CUresult rc;
	int start = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: greenctx-client CMD [ARGS] [, CMD [ARGS]]...\n");
		return 2;
	}
	if (cu_load(0) || resolve("cuDeviceGetDevResource", &g.get_res, 12040) ||
	    resolve("cuDevSmResourceSplitByCount", &g.split, 12040) ||
	    resolve("cuDevResourceGenerateDesc", &g.gen_desc, 12040) ||
	    resolve("cuGreenCtxCreate", &g.create, 12040) ||
	    resolve("cuGreenCtxDestroy", &g.destroy, 12040) ||
	    resolve("cuCtxFromGreenCtx", &g.from, 12040) ||
	    resolve("cuGreenCtxStreamCreate", &g.stream, 12050))
		return 3;
	rc = cu.cuInit(0);
	if (rc) {
		printf("init %s\n", cu_err(rc));
		return 3;
	}
	for (int i = 1; i <= argc; i++) {
		if (i == argc || !strcmp(argv[i], ",")) {
			if (i > start)
				run(argv + start, i - start);
			start = i + 1;
		}
	}
	return failed;
}
