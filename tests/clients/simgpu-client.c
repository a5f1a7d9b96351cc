// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu-client: a CUDA driver client that loads libcuda.so.1 like NVIDIA's
 * runtime (cuload.c) and runs a script of commands given as arguments
 * (commands separated by ",") or, with "-", read from stdin one a line.
 * Every command prints one result line, "CMD ARGS ok" or
 * "CMD ARGS CUDA_ERROR_...", and the exit status is 0 when all succeeded,
 * 1 when one failed, 2 on a usage error, 3 when cuInit failed.
 *
 *   init                       print cuInit's result (done anyway first)
 *   device N                   use GPU N (primary context), default 0
 *   alloc SIZE [count N]       cuMemAlloc N times; SIZE takes K/M/G
 *   free                       free everything alloc'd
 *   memcpy SIZE                alloc, copy in, copy out, compare, free
 *   launch NS [count N] [streams S] [threads T] [decades D]
 *                              N simgpu_spin kernels of NS ns per thread,
 *                              round robin over S streams, then sync;
 *                              with D > 1 the lengths cycle through NS,
 *                              10 NS, ... 10^(D-1) NS
 *   async NS [count N]         launch without synchronising
 *   sync                       cuCtxSynchronize
 *   info                       cuMemGetInfo: "info free F total T"
 *   sleep MS                   sleep
 *   lookup NAME VERSION FLAGS  cuGetProcAddress_v2: "lookup ... -> SYMBOL status S
 *                              in LIBRARY" (the file dladdr names)
 *   pattern vmm [SIZE] [steps K]   reserve, create 2 MiB chunks, map, grow,
 *                              set access, touch, unmap, release
 *   pattern pool [SIZE] [count N]  stream-ordered alloc/free, pools, trim
 *   graph NS [count N]         graph of alloc, N kernels, free; launch
 *   nvml                       libnvidia-ml.so.1's view of the current GPU:
 *                              "nvml gpu N total T used U free F procs P"
 *   version                    "version driver D headers H": cuDriverGetVersion
 *                              and the CUDA_VERSION this client was built with
 *   exit CODE                  exit now
 *
 * Options before the script: -p  per-thread default stream look-ups.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuload.h"
#include "spin-ptx.h"

#define MAXARGS 16

static CUcontext ctx;
static CUdevice dev;
static CUlibrary lib;
static CUfunction spin;
static CUdeviceptr *held;
static size_t nheld, capheld;
static int failed;
static int driver_version;	/* cuDriverGetVersion's */

/* "key value" options after the positional arguments. */
static uint64_t opt(char **av, int ac, const char *key, uint64_t def)
{
	uint64_t v;

	for (int i = 0; i + 1 < ac; i++)
		if (!strcmp(av[i], key) && !cu_size_arg(av[i + 1], &v))
			return v;
	return def;
}

static int report(const char *what, CUresult rc)
{
	printf("%s %s\n", what, rc ? cu_err(rc) : "ok");
	fflush(stdout);
	if (rc)
		failed = 1;
	return rc ? -1 : 0;
}

static CUresult use_device(int n)
{
	CUresult rc;

	if (ctx) {
		cu.cuCtxSetCurrent(NULL);
		cu.cuDevicePrimaryCtxRelease(dev);
		ctx = NULL;
		spin = NULL;
	}
	rc = cu.cuDeviceGet(&dev, n);
	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&ctx, dev);
	if (!rc)
		rc = cu.cuCtxSetCurrent(ctx);
	return rc;
}

static CUresult get_spin(void)
{
	CUkernel k;
	CUresult rc;

	if (spin)
		return CUDA_SUCCESS;
	if (!lib) {
		rc = cu.cuLibraryLoadData(&lib, cu_spin_ptx, NULL, NULL, 0, NULL, NULL, 0);
		if (rc)
			return rc;
	}
	rc = cu.cuLibraryGetKernel(&k, lib, "simgpu_spin");
	if (!rc)
		spin = (CUfunction)(void *)k;	/* the runtime launches CUkernels so */
	return rc;
}

static CUresult launch_one(uint64_t ns, CUstream s)
{
	void *params[] = { &ns };

	return cu.cuLaunchKernel(spin, 1, 1, 1, 32, 1, 1, 0, s, params, NULL);
}

static CUresult ctx_sync(void)
{
#if CUDA_VERSION >= 13000
	return cu.cuCtxSynchronize(NULL);
#else
	return cu.cuCtxSynchronize();
#endif
}

struct launch_job {
	uint64_t ns, count, streams, decades;
	CUresult rc;
};

/* The i-th kernel's length: ns times 10^(i mod decades). */
static uint64_t job_ns(const struct launch_job *j, uint64_t i)
{
	uint64_t ns = j->ns;

	for (uint64_t d = j->decades > 1 ? i % j->decades : 0; d; d--)
		ns *= 10;
	return ns;
}

static void *launch_thread(void *arg)
{
	struct launch_job *j = arg;
	CUstream st[64] = { 0 };
	uint64_t ns = j->streams > 64 ? 64 : j->streams;

	j->rc = cu.cuCtxSetCurrent(ctx);
	for (uint64_t i = 0; i < ns && !j->rc; i++)
		j->rc = cu.cuStreamCreate(&st[i], CU_STREAM_NON_BLOCKING);
	for (uint64_t i = 0; i < j->count && !j->rc; i++)
		j->rc = launch_one(job_ns(j, i), ns ? st[i % ns] : NULL);
	for (uint64_t i = 0; i < ns; i++) {
		if (!j->rc && st[i])
			j->rc = cu.cuStreamSynchronize(st[i]);
		if (st[i])
			cu.cuStreamDestroy(st[i]);
	}
	if (!j->rc)
		j->rc = ctx_sync();
	return NULL;
}

static CUresult cmd_launch(uint64_t ns, uint64_t count, uint64_t streams, uint64_t threads,
			   uint64_t decades)
{
	struct launch_job jobs[64];
	pthread_t t[64];
	CUresult rc = get_spin();

	if (rc)
		return rc;
	if (threads < 1)
		threads = 1;
	if (threads > 64)
		threads = 64;
	for (uint64_t i = 0; i < threads; i++) {
		jobs[i] = (struct launch_job){ ns, count, streams, decades, CUDA_SUCCESS };
		pthread_create(&t[i], NULL, launch_thread, &jobs[i]);
	}
	for (uint64_t i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		if (jobs[i].rc && !rc)
			rc = jobs[i].rc;
	}
	return rc;
}

static void keep(CUdeviceptr p)
{
	if (nheld == capheld) {
		capheld = capheld ? capheld * 2 : 64;
		held = realloc(held, capheld * sizeof(*held));
		if (!held)
			abort();
	}
	held[nheld++] = p;
}

static CUresult pattern_vmm(uint64_t chunk, uint64_t steps)
{
	CUmemAllocationProp prop = { 0 };
	CUmemAccessDesc acc = { 0 };
	CUmemGenericAllocationHandle h[256];
	CUdeviceptr va;
	size_t gran, mapped = 0;
	uint64_t reserve;
	CUresult rc;
	uint64_t i, made = 0;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	rc = cu.cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
	if (rc)
		return rc;
	chunk = (chunk + gran - 1) / gran * gran;
	if (steps > 256)
		steps = 256;
	reserve = chunk * steps * 2;	/* room to grow, like expandable_segments */
	rc = cu.cuMemAddressReserve(&va, reserve, 0, 0, 0);
	if (rc)
		return rc;
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	for (i = 0; i < steps && !rc; i++) {
		rc = cu.cuMemCreate(&h[i], chunk, &prop, 0);
		if (rc)
			break;
		made++;
		rc = cu.cuMemMap(va + mapped, chunk, 0, h[i], 0);
		if (!rc)
			rc = cu.cuMemSetAccess(va + mapped, chunk, &acc, 1);
		if (!rc)
			rc = cu.cuMemsetD8(va + mapped, (unsigned char)i, chunk);
		if (!rc)
			mapped += chunk;
	}
	if (!rc) {
		unsigned char b = 0xff;

		/* The last segment holds what was written. */
		rc = cu.cuMemcpyDtoH(&b, va + mapped - 1, 1);
		if (!rc && b != (unsigned char)(steps - 1))
			rc = CUDA_ERROR_ILLEGAL_ADDRESS;
		printf("vmm mapped %zu\n", mapped);
	}
	if (mapped)
		cu.cuMemUnmap(va, mapped);
	for (i = 0; i < made; i++)
		cu.cuMemRelease(h[i]);
	cu.cuMemAddressFree(va, reserve);
	return rc;
}

static CUresult pattern_pool(uint64_t size, uint64_t count)
{
	CUmemPoolProps props = { 0 };
	CUmemoryPool pool, def;
	CUstream s;
	CUdeviceptr p[256];
	cuuint64_t reserved = 0;
	CUresult rc;
	uint64_t i;

	if (count > 256)
		count = 256;
	rc = cu.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	if (rc)
		return rc;
	rc = cu.cuDeviceGetDefaultMemPool(&def, dev);
	for (i = 0; i < count && !rc; i++)
		rc = cu.cuMemAllocAsync(&p[i], size, s);
	count = i - (rc ? 1 : 0);
	for (i = 0; i < count; i++)
		cu.cuMemFreeAsync(p[i], s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	if (!rc)
		rc = cu.cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved);
	if (!rc)
		printf("pool default reserved %llu\n", (unsigned long long)reserved);
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = dev;
	if (!rc)
		rc = cu.cuMemPoolCreate(&pool, &props);
	if (rc)
		goto out;
	for (i = 0; i < count && !rc; i++)
		rc = cu.cuMemAllocFromPoolAsync(&p[i], size, pool, s);
	count = i - (rc ? 1 : 0);
	for (i = 0; i < count; i++)
		cu.cuMemFreeAsync(p[i], s);
	cu.cuStreamSynchronize(s);
	if (!rc)
		rc = cu.cuMemPoolTrimTo(pool, 0);
	if (!rc)
		rc = cu.cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved);
	if (!rc)
		printf("pool created reserved %llu\n", (unsigned long long)reserved);
	cu.cuMemPoolDestroy(pool);
out:
	cu.cuStreamDestroy(s);
	return rc;
}

static CUresult cmd_graph(uint64_t ns, uint64_t count)
{
	CUgraph g;
	CUgraphExec e;
	CUgraphNode prev = NULL, n;
	CUDA_MEM_ALLOC_NODE_PARAMS ap = { 0 };
	CUresult rc = get_spin();

	if (rc)
		return rc;
	rc = cu.cuGraphCreate(&g, 0);
	if (rc)
		return rc;
	ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	ap.poolProps.location.id = dev;
	ap.bytesize = 4 << 20;
	rc = cu.cuGraphAddMemAllocNode(&prev, g, NULL, 0, &ap);
	for (uint64_t i = 0; i < count && !rc; i++) {
		CUDA_KERNEL_NODE_PARAMS kp = { 0 };
		void *params[] = { &ns };

		kp.func = spin;
		kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1;
		kp.blockDimX = 32;
		kp.blockDimY = kp.blockDimZ = 1;
		kp.kernelParams = params;
		rc = cu.cuGraphAddKernelNode(&n, g, &prev, 1, &kp);
		prev = n;
	}
	if (!rc)
		rc = cu.cuGraphAddMemFreeNode(&n, g, &prev, 1, ap.dptr);
	if (!rc)
		rc = cu.cuGraphInstantiate(&e, g, 0);
	if (!rc) {
		rc = cu.cuGraphLaunch(e, NULL);
		if (!rc)
			rc = ctx_sync();
		cu.cuGraphExecDestroy(e);
	}
	cu.cuGraphDestroy(g);
	/* Freed graph memory stays reserved for later graphs until trimmed,
	 * as frameworks do when they drop their graphs. */
	if (!rc) {
		CUdriverProcAddressQueryResult st;
		__typeof__(&cuDeviceGraphMemTrim) trim = NULL;

		rc = cu.cuGetProcAddress("cuDeviceGraphMemTrim", (void **)&trim, 11040,
					 CU_GET_PROC_ADDRESS_DEFAULT, &st);
		if (!rc)
			rc = trim ? trim(dev) : CUDA_ERROR_NOT_FOUND;
	}
	return rc;
}

/* A library's file name without its directory. */
static const char *lib_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path ? path : "?";
}

static CUresult cmd_lookup(const char *name, int version, unsigned long long flags)
{
	CUdriverProcAddressQueryResult st = 0;
	void *fn = NULL;
	Dl_info info;
	CUresult rc = cu.cuGetProcAddress(name, &fn, version, flags, &st);

	if (rc) {
		printf("lookup %s %d %llu -> %s status %d\n", name, version, flags,
		       cu_err(rc), (int)st);
		return CUDA_SUCCESS;	/* the answer is the result */
	}
	/* The library the answer lies in ends the line: tests/realgpu/run
	 * checks that hooked names resolve into libvgpu. */
	if (dladdr(fn, &info) && info.dli_sname)
		printf("lookup %s %d %llu -> %s status %d in %s\n", name, version, flags,
		       info.dli_sname, (int)st, lib_name(info.dli_fname));
	else
		printf("lookup %s %d %llu -> %p status %d in %s\n", name, version, flags, fn,
		       (int)st, dladdr(fn, &info) ? lib_name(info.dli_fname) : "?");
	return CUDA_SUCCESS;
}

/* NVML's view, through dlopen like nvidia-smi; the few types are
 * declared here to keep the client free of nvml.h. */
struct nvml_mem { unsigned long long total, free, used; };
struct nvml_proc { unsigned int pid; unsigned long long mem; unsigned int gi, ci; };

static CUresult cmd_nvml(char *what, size_t len)
{
	int (*init)(void), (*handle)(unsigned int, void **), (*meminfo)(void *, struct nvml_mem *);
	int (*procs)(void *, unsigned int *, struct nvml_proc *);
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL), *d;
	struct nvml_mem m;
	struct nvml_proc p[64];
	unsigned int n = 64;

	if (!h)
		return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
	init = (int (*)(void))dlsym(h, "nvmlInit_v2");
	handle = (int (*)(unsigned int, void **))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	meminfo = (int (*)(void *, struct nvml_mem *))dlsym(h, "nvmlDeviceGetMemoryInfo");
	procs = (int (*)(void *, unsigned int *, struct nvml_proc *))
		dlsym(h, "nvmlDeviceGetComputeRunningProcesses_v3");
	if (!init || !handle || !meminfo || !procs || init() ||
	    handle((unsigned int)dev, &d) || meminfo(d, &m) || procs(d, &n, p))
		return CUDA_ERROR_UNKNOWN;
	snprintf(what, len, "nvml gpu %d total %llu used %llu free %llu procs %u",
		 (int)dev, m.total, m.used, m.free, n);
	return CUDA_SUCCESS;
}

static int run(char **av, int ac)
{
	char what[256];
	uint64_t a = 0, b;
	CUresult rc = CUDA_SUCCESS;
	const char *c = av[0];

	snprintf(what, sizeof(what), "%s", c);
	for (int i = 1; i < ac && strlen(what) < 200; i++) {
		strcat(what, " ");
		strncat(what, av[i], 40);
	}
	if (ac > 1)
		cu_size_arg(av[1], &a);
	if (!strcmp(c, "init") || !strcmp(c, "device")) {
		rc = !strcmp(c, "device") ? use_device((int)a) : CUDA_SUCCESS;
	} else if (!strcmp(c, "alloc") && ac > 1) {
		uint64_t n = opt(av, ac, "count", 1);

		for (uint64_t i = 0; i < n; i++) {
			CUdeviceptr p;

			rc = cu.cuMemAlloc(&p, a);
			snprintf(what, sizeof(what), "alloc %llu", (unsigned long long)a);
			if (report(what, rc))
				return -1;
			keep(p);
		}
		return 0;
	} else if (!strcmp(c, "free")) {
		size_t n = nheld;

		for (size_t i = 0; i < nheld && !rc; i++)
			rc = cu.cuMemFree(held[i]);
		nheld = 0;
		snprintf(what, sizeof(what), "free %zu", n);
	} else if (!strcmp(c, "memcpy") && ac > 1) {
		CUdeviceptr p;
		unsigned char *h1 = malloc(a), *h2 = malloc(a);

		rc = h1 && h2 ? cu.cuMemAlloc(&p, a) : CUDA_ERROR_OUT_OF_MEMORY;
		if (!rc) {
			for (uint64_t i = 0; i < a; i++)
				h1[i] = (unsigned char)(i * 7 + 3);
			rc = cu.cuMemcpyHtoD(p, h1, a);
			if (!rc)
				rc = cu.cuMemcpyDtoH(h2, p, a);
			if (!rc && memcmp(h1, h2, a))
				rc = CUDA_ERROR_ILLEGAL_ADDRESS;
			cu.cuMemFree(p);
		}
		free(h1);
		free(h2);
	} else if ((!strcmp(c, "launch") || !strcmp(c, "async")) && ac > 1) {
		if (!strcmp(c, "async")) {
			uint64_t n = opt(av, ac, "count", 1);

			rc = get_spin();
			for (uint64_t i = 0; i < n && !rc; i++)
				rc = launch_one(a, NULL);
		} else {
			uint64_t d = opt(av, ac, "decades", 1);

			if (d > 9) {
				fprintf(stderr, "simgpu-client: decades %llu: at most 9\n",
					(unsigned long long)d);
				exit(2);
			}
			rc = cmd_launch(a, opt(av, ac, "count", 1), opt(av, ac, "streams", 0),
					opt(av, ac, "threads", 1), d);
		}
	} else if (!strcmp(c, "sync")) {
		rc = ctx_sync();
	} else if (!strcmp(c, "info")) {
		size_t f = 0, t = 0;

		rc = cu.cuMemGetInfo(&f, &t);
		if (!rc)
			snprintf(what, sizeof(what), "info free %zu total %zu", f, t);
	} else if (!strcmp(c, "sleep") && ac > 1) {
		struct timespec ts = { (time_t)(a / 1000), (long)(a % 1000) * 1000000L };

		nanosleep(&ts, NULL);
	} else if (!strcmp(c, "lookup") && ac > 3) {
		if (cu_size_arg(av[2], &a) || cu_size_arg(av[3], &b)) {
			fprintf(stderr, "simgpu-client: bad lookup: %s\n", what);
			exit(2);
		}
		return cmd_lookup(av[1], (int)a, b) ? -1 : 0;
	} else if (!strcmp(c, "pattern") && ac > 1 && !strcmp(av[1], "vmm")) {
		uint64_t sz = 2 << 20;

		if (ac > 2)
			cu_size_arg(av[2], &sz);
		rc = pattern_vmm(sz, opt(av, ac, "steps", 8));
	} else if (!strcmp(c, "pattern") && ac > 1 && !strcmp(av[1], "pool")) {
		uint64_t sz = 1 << 20;

		if (ac > 2)
			cu_size_arg(av[2], &sz);
		rc = pattern_pool(sz, opt(av, ac, "count", 8));
	} else if (!strcmp(c, "graph") && ac > 1) {
		rc = cmd_graph(a, opt(av, ac, "count", 1));
	} else if (!strcmp(c, "nvml")) {
		rc = cmd_nvml(what, sizeof(what));
	} else if (!strcmp(c, "version")) {
		snprintf(what, sizeof(what), "version driver %d headers %d", driver_version,
			 CUDA_VERSION);
	} else if (!strcmp(c, "exit")) {
		fflush(stdout);
		exit((int)a);
	} else {
		fprintf(stderr, "simgpu-client: bad command: %s\n", what);
		exit(2);
	}
	return report(what, rc);
}

static void run_line(char *line)
{
	char *av[MAXARGS], *save = NULL;
	int ac = 0;

	for (char *t = strtok_r(line, " \t\n", &save); t && ac < MAXARGS;
	     t = strtok_r(NULL, " \t\n", &save))
		av[ac++] = t;
	if (ac && av[0][0] != '#')
		run(av, ac);
}

int main(int argc, char **argv)
{
	unsigned long long flags = CU_GET_PROC_ADDRESS_LEGACY_STREAM;
	int i = 1;
	CUresult rc;

	if (i < argc && !strcmp(argv[i], "-p")) {
		flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
		i++;
	}
	if (cu_load(flags))
		return 3;
	cu.cuDriverGetVersion(&driver_version);
	rc = cu.cuInit(0);
	if (rc) {
		printf("init %s\n", cu_err(rc));
		printf("init code %d\n", (int)rc);
		return 3;
	}
	rc = use_device(0);
	if (rc) {
		printf("device 0 %s\n", cu_err(rc));
		return 3;
	}
	if (i < argc && !strcmp(argv[i], "-")) {
		char line[1024];

		while (fgets(line, sizeof(line), stdin))
			run_line(line);
	} else {
		/* Arguments, commands separated by ",". */
		while (i < argc) {
			int j = i;

			while (j < argc && strcmp(argv[j], ","))
				j++;
			if (j > i)
				run(&argv[i], j - i);
			i = j + 1;
		}
	}
	if (lib)
		cu.cuLibraryUnload(lib);
	cu.cuDevicePrimaryCtxRelease(dev);
	return failed ? 1 : 0;
}
