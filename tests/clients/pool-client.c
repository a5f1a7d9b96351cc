// SPDX-License-Identifier: GPL-2.0
/*
 * pool-client: stream-ordered allocation through memory pools, and context
 * memory that grows (modules, libraries, limits), step by step, so that
 * what libvgpu charges can be compared with what the driver holds after
 * each step. It loads libcuda.so.1 the way NVIDIA's runtime
 * does (cuload.c). Commands are separated by "," arguments; each prints
 * one line, "CMD ARGS ok" or "CMD ARGS CUDA_ERROR_..." (exit status 0
 * when all succeeded, 1 when one failed, 2 on a usage error, 3 when cuInit
 * failed). One stream (of the current device's primary context) is used.
 *
 *   device N        GPU N's primary context becomes current (default 0)
 *   pool N          create a pool on GPU N; later allocations come from it
 *   hostpool        create a pool of host memory (HOST location); the same
 *   default         later allocations are cuMemAllocAsync (the current
 *                   pool of the stream's device)
 *   setpool         cuDeviceSetMemPool(the device, the created pool)
 *   alloc SIZE N    N allocations of SIZE, then the stream is synchronised
 *   free            cuMemFreeAsync of everything held (no synchronisation)
 *   sync            cuStreamSynchronize
 *   threshold SIZE  the pool's CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
 *   trim SIZE       cuMemPoolTrimTo(the pool, SIZE)
 *   reserved        "reserved R used U" of the pool
 *   destroy         cuMemPoolDestroy(the created pool)
 *   module          cuModuleLoadData (any image: simgpu's)
 *   library         cuLibraryLoadData
 *   function NAME   cuModuleGetFunction / cuLibraryGetKernel of the last
 *                   module or library loaded (lazy loading loads it here)
 *   unload          cuModuleUnload / cuLibraryUnload of the last one
 *   limit L SIZE    cuCtxSetLimit: L is stack, fifo or heap
 *   pause FILE      print "pausing FILE", wait until FILE exists (a test
 *                   looks at the process between steps)
 *   hold MS         sleep, holding everything
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuload.h"

static CUdevice dev;
static CUstream stream;
static CUmemoryPool pool;	/* created, or NULL: the device's current */
static int from_pool;
static CUdeviceptr *held;
static size_t nheld, capheld;
static int failed;

static CUresult (*set_attr)(CUmemoryPool, CUmemPool_attribute, void *);
static CUresult (*set_pool)(CUdevice, CUmemoryPool);
static CUresult (*get_pool)(CUmemoryPool *, CUdevice);
static CUresult (*mod_load)(CUmodule *, const void *);
static CUresult (*mod_func)(CUfunction *, CUmodule, const char *);
static CUresult (*mod_unload)(CUmodule);
static CUresult (*set_limit)(CUlimit, size_t);
static CUmodule module;
static CUlibrary library;

static int resolve(const char *name, void *out)
{
	CUdriverProcAddressQueryResult st;

	if (cu.cuGetProcAddress(name, out, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &st)) {
		fprintf(stderr, "pool-client: %s not found\n", name);
		return -1;
	}
	return 0;
}

static CUresult use_device(int n)
{
	CUcontext c;
	CUresult rc = cu.cuDeviceGet(&dev, n);

	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&c, dev);
	if (!rc)
		rc = cu.cuCtxSetCurrent(c);
	if (!rc)
		rc = cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
	return rc;
}

/* The pool the next commands mean: the created one or the current one. */
static CUresult the_pool(CUmemoryPool *p)
{
	*p = pool;
	return pool ? CUDA_SUCCESS : get_pool(p, dev);
}

static CUresult create(int n, int host)
{
	CUmemPoolProps props = { 0 };

	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = host ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = host ? 0 : n;
	from_pool = 1;
	return cu.cuMemPoolCreate(&pool, &props);
}

static CUresult alloc(uint64_t size, uint64_t count)
{
	CUresult rc = CUDA_SUCCESS;

	for (uint64_t i = 0; i < count && !rc; i++) {
		CUdeviceptr p;

		rc = from_pool ? cu.cuMemAllocFromPoolAsync(&p, size, pool, stream)
			       : cu.cuMemAllocAsync(&p, size, stream);
		if (rc)
			break;
		if (nheld == capheld) {
			capheld = capheld ? capheld * 2 : 64;
			held = realloc(held, capheld * sizeof(*held));
			if (!held)
				abort();
		}
		held[nheld++] = p;
	}
	return rc ? rc : cu.cuStreamSynchronize(stream);
}

static CUresult free_all(void)
{
	CUresult rc = CUDA_SUCCESS;

	while (nheld && !rc)
		rc = cu.cuMemFreeAsync(held[--nheld], stream);
	return rc;
}

static CUresult reserved(char *what, size_t len)
{
	cuuint64_t r = 0, u = 0;
	CUmemoryPool p;
	CUresult rc = the_pool(&p);

	if (!rc)
		rc = cu.cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &r);
	if (!rc)
		rc = cu.cuMemPoolGetAttribute(p, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &u);
	if (!rc)
		snprintf(what, len, "reserved %llu used %llu", (unsigned long long)r,
			 (unsigned long long)u);
	return rc;
}

static CUresult pool_cmd(const char *cmd, uint64_t a)
{
	CUmemoryPool p;
	cuuint64_t v = a;
	CUresult rc = the_pool(&p);

	if (rc)
		return rc;
	if (!strcmp(cmd, "threshold"))
		return set_attr(p, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v);
	if (!strcmp(cmd, "trim"))
		return cu.cuMemPoolTrimTo(p, a);
	if (!strcmp(cmd, "setpool"))
		return set_pool(dev, p);
	rc = cu.cuMemPoolDestroy(p);	/* destroy */
	pool = NULL;
	from_pool = 0;
	return rc;
}

static const char image[] = "simgpu accepts any image";

static CUresult code_cmd(const char *cmd, const char *name)
{
	CUfunction f;
	CUkernel k;
	CUresult rc;

	if (!strcmp(cmd, "module")) {
		library = NULL;
		return mod_load(&module, image);
	}
	if (!strcmp(cmd, "library")) {
		module = NULL;
		return cu.cuLibraryLoadData(&library, image, NULL, NULL, 0, NULL, NULL, 0);
	}
	if (!module && !library)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!strcmp(cmd, "function") && module)
		return mod_func(&f, module, name);
	if (!strcmp(cmd, "function")) {	/* a library's kernel, first used here */
		rc = cu.cuLibraryGetKernel(&k, library, name);
		return rc ? rc : cu.cuKernelGetFunction(&f, k);
	}
	rc = module ? mod_unload(module) : cu.cuLibraryUnload(library);	/* unload */
	module = NULL;
	library = NULL;
	return rc;
}

static CUresult limit_cmd(const char *which, uint64_t size)
{
	if (!strcmp(which, "stack"))
		return set_limit(CU_LIMIT_STACK_SIZE, size);
	if (!strcmp(which, "fifo"))
		return set_limit(CU_LIMIT_PRINTF_FIFO_SIZE, size);
	if (!strcmp(which, "heap"))
		return set_limit(CU_LIMIT_MALLOC_HEAP_SIZE, size);
	fprintf(stderr, "pool-client: no limit %s (stack, fifo or heap)\n", which);
	exit(2);
}

static int run(char **av, int ac)
{
	char what[256];
	uint64_t a = 0, b = 1;
	CUresult rc = CUDA_SUCCESS;
	const char *cmd = av[0];

	snprintf(what, sizeof(what), "%s", cmd);
	for (int i = 1; i < ac && strlen(what) < 200; i++) {
		strcat(what, " ");
		strncat(what, av[i], 40);
	}
	if (!strcmp(cmd, "limit") && ac == 3) {
		if (cu_size_arg(av[2], &a)) {
			fprintf(stderr, "pool-client: bad number in: %s\n", what);
			exit(2);
		}
		rc = limit_cmd(av[1], a);
		goto done;
	}
	if (strcmp(cmd, "pause") && strcmp(cmd, "function") &&
	    ((ac > 1 && cu_size_arg(av[1], &a)) || (ac > 2 && cu_size_arg(av[2], &b)))) {
		fprintf(stderr, "pool-client: bad number in: %s\n", what);
		exit(2);
	}
	if (!strcmp(cmd, "device") && ac == 2) {
		rc = use_device((int)a);
	} else if (!strcmp(cmd, "pool") && ac == 2) {
		rc = create((int)a, 0);
	} else if (!strcmp(cmd, "hostpool") && ac == 1) {
		rc = create(0, 1);
	} else if (!strcmp(cmd, "default") && ac == 1) {
		from_pool = 0;
	} else if (!strcmp(cmd, "alloc") && (ac == 2 || ac == 3)) {
		rc = alloc(a, b);
	} else if (!strcmp(cmd, "free") && ac == 1) {
		rc = free_all();
	} else if (!strcmp(cmd, "sync") && ac == 1) {
		rc = cu.cuStreamSynchronize(stream);
	} else if ((!strcmp(cmd, "threshold") || !strcmp(cmd, "trim")) && ac == 2) {
		rc = pool_cmd(cmd, a);
	} else if ((!strcmp(cmd, "setpool") || !strcmp(cmd, "destroy")) && ac == 1) {
		rc = pool || !strcmp(cmd, "setpool") ? pool_cmd(cmd, 0) : CUDA_ERROR_INVALID_VALUE;
	} else if (!strcmp(cmd, "reserved") && ac == 1) {
		rc = reserved(what, sizeof(what));
	} else if ((!strcmp(cmd, "module") || !strcmp(cmd, "library") ||
		    !strcmp(cmd, "unload")) && ac == 1) {
		rc = code_cmd(cmd, NULL);
	} else if (!strcmp(cmd, "function") && ac == 2) {
		rc = code_cmd(cmd, av[1]);
	} else if (!strcmp(cmd, "pause") && ac == 2) {
		struct timespec ts = { 0, 10000000L };

		printf("pausing %s\n", av[1]);
		fflush(stdout);
		while (access(av[1], F_OK))
			nanosleep(&ts, NULL);
	} else if (!strcmp(cmd, "hold") && ac == 2) {
		struct timespec ts = { (time_t)(a / 1000), (long)(a % 1000) * 1000000L };

		printf("holding\n");
		fflush(stdout);
		nanosleep(&ts, NULL);
	} else {
		fprintf(stderr, "pool-client: bad command: %s\n", what);
		exit(2);
	}
done:
	printf("%s %s\n", what, rc ? cu_err(rc) : "ok");
	fflush(stdout);
	if (rc)
		failed = 1;
	return 0;
}

int main(int argc, char **argv)
{
	CUresult rc;
	int start = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: pool-client CMD [ARGS] [, CMD [ARGS]]...\n");
		return 2;
	}
	if (cu_load(0) || resolve("cuMemPoolSetAttribute", &set_attr) ||
	    resolve("cuDeviceSetMemPool", &set_pool) || resolve("cuDeviceGetMemPool", &get_pool) ||
	    resolve("cuModuleLoadData", &mod_load) || resolve("cuModuleGetFunction", &mod_func) ||
	    resolve("cuModuleUnload", &mod_unload) || resolve("cuCtxSetLimit", &set_limit))
		return 3;
	rc = cu.cuInit(0);
	if (!rc)
		rc = use_device(0);
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
