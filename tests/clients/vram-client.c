// SPDX-License-Identifier: GPL-2.0
/*
 * vram-client: allocates VRAM through every path a framework uses, loading
 * libcuda.so.1 the way NVIDIA's runtime does (cuload.c), so that libvgpu's
 * accounting can be checked path by path. Commands are separated by ","
 * arguments; each prints one line, "CMD ARGS ok" or "CMD ARGS CUDA_ERROR_..."
 * (exit status 0 when all succeeded, 1 when one failed, 2 on a usage
 * error, 3 when cuInit failed).
 *
 *   device N            use GPU N (primary context; the default is 0)
 *   alloc SIZE          cuMemAlloc (v2)
 *   pitch W H           cuMemAllocPitch (element size 4); prints the pitch
 *   managed SIZE        cuMemAllocManaged
 *   async SIZE          cuMemAllocAsync on a stream, synchronised
 *   frompool SIZE       cuMemAllocFromPoolAsync from a pool of its own
 *   stream N            later stream-ordered commands use a stream of GPU N's
 *                       primary context (the current context is unchanged)
 *   nocur               no context is current any more (cuCtxSetCurrent(NULL))
 *   devpool N SIZE      frompool, from a pool created on GPU N
 *   defpool N SIZE      frompool, from GPU N's default pool
 *   hostpool SIZE       frompool, from a pool of host memory (HOST location)
 *   vmm SIZE            cuMemCreate (a physical allocation handle)
 *   array W H D         cuArray3DCreate, float x4 elements (D 0: 2D)
 *   mipmap W H LEVELS   cuMipmappedArrayCreate, float x4 elements
 *   graphalloc SIZE     a graph with a mem-alloc node, instantiated, launched
 *   ctx                 cuCtxCreate (a context of its own)
 *   ctxv2               the same through cuCtxCreate's 3020 form (_v2), as
 *                       programs built against CUDA 3.2 to 12.4 call it
 *   fill SIZE           alloc SIZE until it fails: "fill N x SIZE" (ok)
 *   freeall             free everything held, each by its own path
 *   info                cuMemGetInfo: "info free F total T"
 *   total               cuDeviceTotalMem: "total T"
 *   nvml                nvmlDeviceGetMemoryInfo(_v2) and running processes
 *   uuid                the device's UUID
 *   stress T SECS MAX   T threads allocating and freeing random sizes up to
 *                       MAX for SECS seconds, then "stress held B" (ok)
 *   hold MS             sleep, holding everything
 *   fork                the rest of the script runs in a child; the parent
 *                       waits for it, holds on for 2 s more (so that what
 *                       the child's end changed can be observed), then
 *                       exits with the child's status
 *   exec PROG ARGS...   replace the process (the rest of the line is PROG's)
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuload.h"

enum kind { K_ALLOC, K_MANAGED, K_ASYNC, K_POOL, K_VMM, K_ARRAY, K_MIPMAP, K_GRAPH, K_CTX };

struct item {
	enum kind kind;
	uint64_t handle;	/* pointer, handle, array, graph, context */
	uint64_t extra;		/* pool or exec graph */
	uint64_t ptr;		/* memory a graph allocated */
};

static CUdevice dev;
static CUcontext pctx;
static struct item *items;
static size_t nitems, capitems;
static pthread_mutex_t items_lock = PTHREAD_MUTEX_INITIALIZER;
static int failed;

static void keep3(enum kind k, uint64_t handle, uint64_t extra, uint64_t ptr)
{
	pthread_mutex_lock(&items_lock);
	if (nitems == capitems) {
		capitems = capitems ? capitems * 2 : 64;
		items = realloc(items, capitems * sizeof(*items));
		if (!items)
			abort();
	}
	items[nitems++] = (struct item){ k, handle, extra, ptr };
	pthread_mutex_unlock(&items_lock);
}

static void keep(enum kind k, uint64_t handle, uint64_t extra)
{
	keep3(k, handle, extra, 0);
}

/* The stream of "stream N", or NULL: each command makes its own. */
static CUstream ustream;

static CUresult use_stream(int n)
{
	CUcontext c, popped;
	CUdevice d;
	CUresult rc = cu.cuDeviceGet(&d, n);

	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&c, d);
	if (!rc)
		rc = cu.cuCtxPushCurrent(c);
	if (rc)
		return rc;
	rc = cu.cuStreamCreate(&ustream, CU_STREAM_NON_BLOCKING);
	cu.cuCtxPopCurrent(&popped);
	return rc;
}

static CUresult get_stream(CUstream *s)
{
	*s = ustream;
	return ustream ? CUDA_SUCCESS : cu.cuStreamCreate(s, CU_STREAM_NON_BLOCKING);
}

static void put_stream(CUstream s)
{
	if (s != ustream)
		cu.cuStreamDestroy(s);
}

static CUresult release(const struct item *it)
{
	CUstream s;
	CUresult rc;

	switch (it->kind) {
	case K_ALLOC:
	case K_MANAGED:
		return cu.cuMemFree((CUdeviceptr)it->handle);
	case K_ASYNC:
	case K_POOL:
		rc = get_stream(&s);
		if (rc)
			return rc;
		rc = cu.cuMemFreeAsync((CUdeviceptr)it->handle, s);
		if (!rc)
			rc = cu.cuStreamSynchronize(s);
		put_stream(s);
		if (!rc && it->kind == K_POOL)
			rc = cu.cuMemPoolDestroy((CUmemoryPool)it->extra);
		return rc;
	case K_VMM:
		return cu.cuMemRelease((CUmemGenericAllocationHandle)it->handle);
	case K_ARRAY:
		return cu.cuArrayDestroy((CUarray)it->handle);
	case K_MIPMAP:
		return cu.cuMipmappedArrayDestroy((CUmipmappedArray)it->handle);
	case K_GRAPH:
		/* What an alloc node without a free node allocated outlives the graph. */
		cu.cuGraphExecDestroy((CUgraphExec)it->extra);
		rc = cu.cuGraphDestroy((CUgraph)it->handle);
		if (!rc)
			rc = cu.cuMemFree((CUdeviceptr)it->ptr);
		return rc;
	case K_CTX:
		rc = cu.cuCtxDestroy((CUcontext)it->handle);
		if (!rc)
			rc = cu.cuCtxSetCurrent(pctx);
		return rc;
	}
	return CUDA_ERROR_INVALID_VALUE;
}

static CUresult use_device(int n)
{
	CUresult rc = cu.cuDeviceGet(&dev, n);

	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&pctx, dev);
	if (!rc)
		rc = cu.cuCtxSetCurrent(pctx);
	return rc;
}

/* loc: 0 no pool (cuMemAllocAsync), 1 a pool created on GPU n, 2 GPU n's
 * default pool, 3 a host pool. */
static CUresult do_async(uint64_t size, int loc, int n)
{
	CUmemPoolProps props = { 0 };
	CUmemoryPool pool = NULL;
	CUdeviceptr p;
	CUstream s;
	CUresult rc = get_stream(&s);

	if (rc)
		return rc;
	props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	props.location.type = loc == 3 ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE;
	props.location.id = n;
	if (loc == 2)
		rc = cu.cuDeviceGetDefaultMemPool(&pool, n);
	else if (loc)
		rc = cu.cuMemPoolCreate(&pool, &props);
	if (!rc)
		rc = loc ? cu.cuMemAllocFromPoolAsync(&p, size, pool, s)
			 : cu.cuMemAllocAsync(&p, size, s);
	if (!rc)
		rc = cu.cuStreamSynchronize(s);
	put_stream(s);
	if (!rc)
		keep(loc == 1 || loc == 3 ? K_POOL : K_ASYNC, p, (uint64_t)pool);
	else if (pool && loc != 2)
		cu.cuMemPoolDestroy(pool);
	return rc;
}

static CUresult do_vmm(uint64_t size)
{
	CUmemAllocationProp prop = { 0 };
	CUmemGenericAllocationHandle h;
	CUresult rc;

	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	rc = cu.cuMemCreate(&h, size, &prop, 0);
	if (!rc)
		keep(K_VMM, h, 0);
	return rc;
}

static CUresult do_array(uint64_t w, uint64_t h, uint64_t d)
{
	CUDA_ARRAY3D_DESCRIPTOR desc = { 0 };
	CUarray a;
	CUresult rc;

	desc.Width = w;
	desc.Height = h;
	desc.Depth = d;
	desc.Format = CU_AD_FORMAT_FLOAT;
	desc.NumChannels = 4;
	rc = cu.cuArray3DCreate(&a, &desc);
	if (!rc)
		keep(K_ARRAY, (uint64_t)a, 0);
	return rc;
}

static CUresult do_mipmap(uint64_t w, uint64_t h, uint64_t levels)
{
	CUDA_ARRAY3D_DESCRIPTOR desc = { 0 };
	CUmipmappedArray m;
	CUresult rc;

	desc.Width = w;
	desc.Height = h;
	desc.Format = CU_AD_FORMAT_FLOAT;
	desc.NumChannels = 4;
	rc = cu.cuMipmappedArrayCreate(&m, &desc, (unsigned int)levels);
	if (!rc)
		keep(K_MIPMAP, (uint64_t)m, 0);
	return rc;
}

static CUresult do_graphalloc(uint64_t size)
{
	CUDA_MEM_ALLOC_NODE_PARAMS ap = { 0 };
	CUgraphNode n;
	CUgraphExec e;
	CUgraph g;
	CUresult rc = cu.cuGraphCreate(&g, 0);

	if (rc)
		return rc;
	ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	ap.poolProps.location.id = dev;
	ap.bytesize = size;
	rc = cu.cuGraphAddMemAllocNode(&n, g, NULL, 0, &ap);
	if (!rc)
		rc = cu.cuGraphInstantiate(&e, g, 0);
	if (!rc) {
		rc = cu.cuGraphLaunch(e, NULL);
#if CUDA_VERSION >= 13000
		if (!rc)
			rc = cu.cuCtxSynchronize(NULL);
#else
		if (!rc)
			rc = cu.cuCtxSynchronize();
#endif
		if (rc)
			cu.cuGraphExecDestroy(e);
	}
	if (rc) {
		cu.cuGraphDestroy(g);
		return rc;
	}
	keep3(K_GRAPH, (uint64_t)g, (uint64_t)e, ap.dptr);
	return rc;
}

static CUresult do_ctx(void)
{
	CUcontext c;
	CUresult rc;

#if CUDA_VERSION >= 12050
	rc = cu.cuCtxCreate(&c, NULL, 0, dev);
#else
	rc = cu.cuCtxCreate(&c, 0, dev);
#endif
	if (!rc)
		keep(K_CTX, (uint64_t)c, 0);
	/* cuCtxCreate makes the new context current; keep using the primary. */
	if (!rc)
		rc = cu.cuCtxSetCurrent(pctx);
	return rc;
}

/* cuCtxCreate as asked at API version 3020: cuCtxCreate_v2. */
static CUresult do_ctx_v2(void)
{
	CUresult (*create)(CUcontext *, unsigned int, CUdevice) = NULL;
	CUdriverProcAddressQueryResult st;
	CUcontext c;
	CUresult rc;

	rc = cu.cuGetProcAddress("cuCtxCreate", (void **)&create, 3020, 0, &st);
	if (rc || !create)
		return rc ? rc : CUDA_ERROR_NOT_FOUND;
	rc = create(&c, 0, dev);
	if (!rc)
		keep(K_CTX, (uint64_t)c, 0);
	if (!rc)
		rc = cu.cuCtxSetCurrent(pctx);
	return rc;
}

struct stress_job {
	uint64_t max;
	double secs;
	unsigned int seed;
	uint64_t held;
	CUresult rc;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *stress_thread(void *arg)
{
	struct stress_job *j = arg;
	CUdeviceptr p[64] = { 0 };
	uint64_t sz[64] = { 0 };
	double end = now_s() + j->secs;

	j->rc = cu.cuCtxSetCurrent(pctx);
	while (!j->rc && now_s() < end) {
		int i = rand_r(&j->seed) % 64;

		if (p[i]) {
			j->rc = cu.cuMemFree(p[i]);
			p[i] = 0;
			j->held -= sz[i];
		} else {
			/* Whole pages, as simgpu rounds each allocation up to 4 KiB. */
			sz[i] = 4096 * (1 + (uint64_t)rand_r(&j->seed) % (j->max / 4096));
			if (!cu.cuMemAlloc(&p[i], sz[i]))
				j->held += sz[i];
			else
				p[i] = 0;	/* refused at the limit: fine */
		}
	}
	for (int i = 0; i < 64; i++)
		if (p[i])
			keep(K_ALLOC, p[i], 0);
	return NULL;
}

static CUresult do_stress(uint64_t threads, uint64_t secs, uint64_t max, char *what, size_t len)
{
	struct stress_job jobs[64];
	pthread_t t[64];
	uint64_t held = 0;
	CUresult rc = CUDA_SUCCESS;

	if (threads < 1 || threads > 64 || max < 4096)
		return CUDA_ERROR_INVALID_VALUE;
	for (uint64_t i = 0; i < threads; i++) {
		jobs[i] = (struct stress_job){ max, (double)secs, (unsigned int)(i * 7919 + (uint64_t)getpid()), 0, 0 };
		pthread_create(&t[i], NULL, stress_thread, &jobs[i]);
	}
	for (uint64_t i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		held += jobs[i].held;
		if (jobs[i].rc && !rc)
			rc = jobs[i].rc;
	}
	snprintf(what, len, "stress held %" PRIu64, held);
	return rc;
}

/* NVML through dlopen, as nvidia-smi; the few types are declared here. */
struct nvml_mem { unsigned long long total, free, used; };
struct nvml_mem2 { unsigned int version; unsigned long long total, reserved, free, used; };
struct nvml_proc { unsigned int pid; unsigned long long mem; unsigned int gi, ci; };

static CUresult do_nvml(char *what, size_t len)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL), *d;
	int (*init)(void), (*handle)(unsigned int, void **);
	int (*mem)(void *, struct nvml_mem *), (*mem2)(void *, struct nvml_mem2 *);
	int (*procs)(void *, unsigned int *, struct nvml_proc *);
	struct nvml_mem m;
	struct nvml_mem2 m2 = { (unsigned int)(sizeof(m2) | (2u << 24)), 0, 0, 0, 0 };
	struct nvml_proc p[64];
	unsigned int n = 64;
	char pids[128] = "";

	if (!h)
		return CUDA_ERROR_SHARED_OBJECT_INIT_FAILED;
	init = (int (*)(void))dlsym(h, "nvmlInit_v2");
	handle = (int (*)(unsigned int, void **))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	mem = (int (*)(void *, struct nvml_mem *))dlsym(h, "nvmlDeviceGetMemoryInfo");
	mem2 = (int (*)(void *, struct nvml_mem2 *))dlsym(h, "nvmlDeviceGetMemoryInfo_v2");
	procs = (int (*)(void *, unsigned int *, struct nvml_proc *))
		dlsym(h, "nvmlDeviceGetComputeRunningProcesses_v3");
	if (!init || !handle || !mem || !mem2 || !procs || init() ||
	    handle((unsigned int)dev, &d) || mem(d, &m) || mem2(d, &m2) || procs(d, &n, p))
		return CUDA_ERROR_UNKNOWN;
	for (unsigned int i = 0; i < n && strlen(pids) < 100; i++)
		snprintf(pids + strlen(pids), sizeof(pids) - strlen(pids), "%s%u", i ? "," : "", p[i].pid);
	snprintf(what, len, "nvml total %llu used %llu free %llu v2 total %llu used %llu free %llu procs %u pids %s",
		 m.total, m.used, m.free, m2.total, m2.used, m2.free, n, n ? pids : "-");
	return CUDA_SUCCESS;
}

static int run(char **av, int ac)
{
	char what[256];
	uint64_t a = 0, b = 0, c = 0;
	CUresult rc = CUDA_SUCCESS;
	const char *cmd = av[0];

	snprintf(what, sizeof(what), "%s", cmd);
	for (int i = 1; i < ac && strlen(what) < 200; i++) {
		strcat(what, " ");
		strncat(what, av[i], 40);
	}
	if (!strcmp(cmd, "exec") && ac > 1) {
		fflush(stdout);
		execvp(av[1], av + 1);
		printf("%s exec failed: %s\n", what, strerror(errno));
		exit(1);
	}
	if ((ac > 1 && cu_size_arg(av[1], &a)) || (ac > 2 && cu_size_arg(av[2], &b)) ||
	    (ac > 3 && cu_size_arg(av[3], &c))) {
		fprintf(stderr, "vram-client: bad number in: %s\n", what);
		exit(2);
	}
	if (!strcmp(cmd, "device") && ac == 2) {
		rc = use_device((int)a);
	} else if (!strcmp(cmd, "alloc") && ac == 2) {
		CUdeviceptr p;

		rc = cu.cuMemAlloc(&p, a);
		if (!rc)
			keep(K_ALLOC, p, 0);
	} else if (!strcmp(cmd, "pitch") && ac == 3) {
		CUdeviceptr p;
		size_t pitch = 0;

		rc = cu.cuMemAllocPitch(&p, &pitch, a, b, 4);
		if (!rc) {
			keep(K_ALLOC, p, 0);
			snprintf(what, sizeof(what), "pitch %" PRIu64 " %" PRIu64 " = %zu", a, b, pitch);
		}
	} else if (!strcmp(cmd, "managed") && ac == 2) {
		CUdeviceptr p;

		rc = cu.cuMemAllocManaged(&p, a, CU_MEM_ATTACH_GLOBAL);
		if (!rc)
			keep(K_MANAGED, p, 0);
	} else if (!strcmp(cmd, "async") && ac == 2) {
		rc = do_async(a, 0, (int)dev);
	} else if (!strcmp(cmd, "frompool") && ac == 2) {
		rc = do_async(a, 1, (int)dev);
	} else if (!strcmp(cmd, "stream") && ac == 2) {
		rc = use_stream((int)a);
	} else if (!strcmp(cmd, "nocur") && ac == 1) {
		rc = cu.cuCtxSetCurrent(NULL);
	} else if (!strcmp(cmd, "devpool") && ac == 3) {
		rc = do_async(b, 1, (int)a);
	} else if (!strcmp(cmd, "defpool") && ac == 3) {
		rc = do_async(b, 2, (int)a);
	} else if (!strcmp(cmd, "hostpool") && ac == 2) {
		rc = do_async(a, 3, 0);
	} else if (!strcmp(cmd, "vmm") && ac == 2) {
		rc = do_vmm(a);
	} else if (!strcmp(cmd, "array") && ac == 4) {
		rc = do_array(a, b, c);
	} else if (!strcmp(cmd, "mipmap") && ac == 4) {
		rc = do_mipmap(a, b, c);
	} else if (!strcmp(cmd, "graphalloc") && ac == 2) {
		rc = do_graphalloc(a);
	} else if (!strcmp(cmd, "ctx") && ac == 1) {
		rc = do_ctx();
	} else if (!strcmp(cmd, "ctxv2") && ac == 1) {
		rc = do_ctx_v2();
	} else if (!strcmp(cmd, "fill") && ac == 2) {
		uint64_t n = 0;
		CUdeviceptr p;

		while (!cu.cuMemAlloc(&p, a)) {
			keep(K_ALLOC, p, 0);
			n++;
		}
		snprintf(what, sizeof(what), "fill %" PRIu64 " x %" PRIu64, n, a);
	} else if (!strcmp(cmd, "freeall") && ac == 1) {
		for (size_t i = nitems; i > 0 && !rc; i--)
			rc = release(&items[i - 1]);
		nitems = 0;
	} else if (!strcmp(cmd, "info") && ac == 1) {
		size_t f = 0, t = 0;

		rc = cu.cuMemGetInfo(&f, &t);
		if (!rc)
			snprintf(what, sizeof(what), "info free %zu total %zu", f, t);
	} else if (!strcmp(cmd, "total") && ac == 1) {
		size_t t = 0;

		rc = cu.cuDeviceTotalMem(&t, dev);
		if (!rc)
			snprintf(what, sizeof(what), "total %zu", t);
	} else if (!strcmp(cmd, "nvml") && ac == 1) {
		rc = do_nvml(what, sizeof(what));
	} else if (!strcmp(cmd, "uuid") && ac == 1) {
		CUuuid u;

		rc = cu.cuDeviceGetUuid(&u, dev);
		if (!rc) {
			const unsigned char *x = (const unsigned char *)u.bytes;

			snprintf(what, sizeof(what),
				 "uuid GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
				 x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9],
				 x[10], x[11], x[12], x[13], x[14], x[15]);
		}
	} else if (!strcmp(cmd, "stress") && ac == 4) {
		rc = do_stress(a, b, c, what, sizeof(what));
	} else if (!strcmp(cmd, "fork") && ac == 1) {
		int st = 0;
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			rc = CUDA_ERROR_OPERATING_SYSTEM;
		} else if (pid == 0) {
			snprintf(what, sizeof(what), "fork child %d", (int)getpid());
		} else {
			waitpid(pid, &st, 0);
			printf("fork parent: child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128);
			fflush(stdout);
			sleep(2);
			exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
		}
	} else if (!strcmp(cmd, "hold") && ac == 2) {
		struct timespec ts = { (time_t)(a / 1000), (long)(a % 1000) * 1000000L };

		printf("holding\n");
		fflush(stdout);
		nanosleep(&ts, NULL);
	} else {
		fprintf(stderr, "vram-client: bad command: %s\n", what);
		exit(2);
	}
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
		fprintf(stderr, "usage: vram-client CMD [ARGS] [, CMD [ARGS]]...\n");
		return 2;
	}
	if (cu_load(0))
		return 3;
	rc = cu.cuInit(0);
	if (rc) {
		printf("init %s\n", cu_err(rc));
		return 3;
	}
	rc = use_device(0);
	if (rc) {
		printf("device 0 %s\n", cu_err(rc));
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
