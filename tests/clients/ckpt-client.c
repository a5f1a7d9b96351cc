// SPDX-License-Identifier: GPL-2.0
/*
 * ckpt-client: a process for the checkpoint tests (tests/host/ckpt.sh,
 * bench/ckpt-bench) to suspend and resume. It fills device buffers with a
 * pattern, keeps their checksums, and checks them again on demand.
 * Commands are ","-separated arguments; each prints one line, "CMD ... ok"
 * or "CMD ... CUDA_ERROR_..." (exit 0: all succeeded, 1: one failed,
 * 2: usage, 3: cuInit failed).
 *
 *   alloc SIZE     cuMemAlloc, filled (cuMemcpyHtoD)
 *   pool SIZE      cuMemAllocAsync on a stream, filled, synchronised
 *   vmm SIZE       cuMemCreate + cuMemAddressReserve + cuMemMap +
 *                  cuMemSetAccess (SIZE a multiple of 2M), filled
 *   managed SIZE   cuMemAllocManaged, filled
 *   share SIZE     vmm, created shareable and exported as a file
 *                  descriptor (cuMemExportToShareableHandle), kept open
 *   sum            read every buffer back (cuMemcpyDtoH): "sum N buffers
 *                  B bytes ok", or "sum mismatch buffer I"
 *   info           cuMemGetInfo: "info free F total T"
 *   ticker PATH    a thread calls cuCtxSynchronize every millisecond and
 *                  writes how many calls returned into PATH
 *   hold PATH      cuMemPoolGetAttribute held inside the driver until PATH
 *                  exists (simgpu's SIMGPU_PAUSE_IN; PATH.paused says so)
 *   touch PATH     create PATH;  wait PATH: wait until PATH exists
 *   free           free every buffer
 */
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuload.h"
#include "waitfile.h"

#define MAXBUF 64

struct buf {
	CUdeviceptr p;
	size_t size;
	uint64_t sum;
	int kind;		/* 0 alloc, 1 pool, 2 vmm, 3 managed, 4 share */
	CUmemGenericAllocationHandle h;
};

static struct buf bufs[MAXBUF];
static int nbufs;
static CUstream stream;
static CUcontext ctx;

/* FNV-1a over the bytes: the checksum kept at fill time. */
static uint64_t fnv(const unsigned char *b, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static CUresult fill(struct buf *b)
{
	unsigned char *host = malloc(b->size);
	uint64_t x = (uint64_t)nbufs * 0x9e3779b97f4a7c15ULL + 1;
	CUresult rc;

	if (!host)
		return CUDA_ERROR_OUT_OF_MEMORY;
	for (size_t i = 0; i < b->size; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;	/* xorshift64 */
		host[i] = (unsigned char)x;
	}
	b->sum = fnv(host, b->size);
	rc = cu.cuMemcpyHtoD(b->p, host, b->size);
	free(host);
	return rc;
}

static CUresult get_vmm(struct buf *b, int share)
{
	CUmemAllocationProp prop = { .type = CU_MEM_ALLOCATION_TYPE_PINNED };
	CUmemAccessDesc acc = { .flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
	CUresult rc;

	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	if (share)
		prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	acc.location = prop.location;
	rc = cu.cuMemCreate(&b->h, b->size, &prop, 0);
	if (!rc && share) {
		int fd;	/* left open: the memory is shared from now on */

		rc = cu.cuMemExportToShareableHandle(&fd, b->h,
						     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
	}

	if (!rc)
		rc = cu.cuMemAddressReserve(&b->p, b->size, 0, 0, 0);
	if (!rc)
		rc = cu.cuMemMap(b->p, b->size, 0, b->h, 0);
	if (!rc)
		rc = cu.cuMemSetAccess(b->p, b->size, &acc, 1);
	return rc;
}

static CUresult allocate(int kind, size_t size)
{
	struct buf *b = &bufs[nbufs];
	CUresult rc;

	if (nbufs == MAXBUF)
		return CUDA_ERROR_OUT_OF_MEMORY;
	b->size = size;
	b->kind = kind;
	if (kind == 0)
		rc = cu.cuMemAlloc(&b->p, size);
	else if (kind == 1 && !(rc = cu.cuMemAllocAsync(&b->p, size, stream)))
		rc = cu.cuStreamSynchronize(stream);
	else if (kind == 2 || kind == 4)
		rc = get_vmm(b, kind == 4);
	else if (kind == 3)
		rc = cu.cuMemAllocManaged(&b->p, size, CU_MEM_ATTACH_GLOBAL);
	if (!rc)
		rc = fill(b);
	if (!rc)
		nbufs++;
	return rc;
}

static int check_sums(void)
{
	size_t total = 0;

	for (int i = 0; i < nbufs; i++) {
		unsigned char *host = malloc(bufs[i].size);
		CUresult rc = host ? cu.cuMemcpyDtoH(host, bufs[i].p, bufs[i].size)
				   : CUDA_ERROR_OUT_OF_MEMORY;

		if (rc || fnv(host, bufs[i].size) != bufs[i].sum) {
			printf("sum mismatch buffer %d %s\n", i, rc ? cu_err(rc) : "bytes differ");
			free(host);
			return 1;
		}
		total += bufs[i].size;
		free(host);
	}
	printf("sum %d buffers %zu bytes ok\n", nbufs, total);
	return 0;
}

/* The count is written to PATH.tmp, then renamed: a reader never sees
 * a file half written. */
static void *ticker(void *arg)
{
	const char *path = arg;
	unsigned long long n = 0;
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	cu.cuCtxSetCurrent(ctx);
	for (;;) {
		char line[32];
		int fd, len;

		if (cu.cuCtxSynchronize(ctx) == CUDA_SUCCESS)
			n++;
		len = snprintf(line, sizeof(line), "%llu\n", n);
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			(void)!write(fd, line, (size_t)len);
			close(fd);
			rename(tmp, path);
		}
		usleep(1000);
	}
	return NULL;
}

static CUresult hold(const char *path)
{
	CUmemoryPool pool;
	cuuint64_t v;
	CUresult rc = cu.cuDeviceGetDefaultMemPool(&pool, 0);

	if (rc)
		return rc;
	setenv("SIMGPU_PAUSE_FILE", path, 1);
	setenv("SIMGPU_PAUSE_IN", "cuMemPoolGetAttribute", 1);
	rc = cu.cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v);
	unsetenv("SIMGPU_PAUSE_IN");
	return rc;
}

static CUresult free_all(void)
{
	CUresult rc = CUDA_SUCCESS;

	while (nbufs > 0 && !rc) {
		struct buf *b = &bufs[--nbufs];

		if (b->kind != 2 && b->kind != 4) {
			rc = cu.cuMemFree(b->p);
			continue;
		}
		rc = cu.cuMemUnmap(b->p, b->size);
		if (!rc)
			rc = cu.cuMemRelease(b->h);
		if (!rc)
			rc = cu.cuMemAddressFree(b->p, b->size);
	}
	return rc;
}

/* Run one command (argv[0] is its name); 0 ok, 1 failed, 2 usage. */
static int run(char **a, int n)
{
	static const char *const kinds[] = { "alloc", "pool", "vmm", "managed", "share" };
	CUresult rc = CUDA_SUCCESS;
	uint64_t size;
	pthread_t t;

	for (int k = 0; k < 5; k++) {
		if (strcmp(a[0], kinds[k]))
			continue;
		if (n != 2 || cu_size_arg(a[1], &size))
			return 2;
		rc = allocate(k, (size_t)size);
		printf("%s %s %s\n", a[0], a[1], rc ? cu_err(rc) : "ok");
		return rc != CUDA_SUCCESS;
	}
	if (!strcmp(a[0], "sum") && n == 1)
		return check_sums();
	if (!strcmp(a[0], "info") && n == 1) {
		size_t fr, tot;

		rc = cu.cuMemGetInfo(&fr, &tot);
		if (!rc)
			printf("info free %zu total %zu\n", fr, tot);
	} else if (!strcmp(a[0], "ticker") && n == 2) {
		if (pthread_create(&t, NULL, ticker, a[1]))
			return 1;
	} else if (!strcmp(a[0], "hold") && n == 2) {
		rc = hold(a[1]);
	} else if (!strcmp(a[0], "touch") && n == 2) {
		close(open(a[1], O_WRONLY | O_CREAT, 0644));
	} else if (!strcmp(a[0], "wait") && n == 2) {
		client_pause(a[1]);
	} else if (!strcmp(a[0], "free") && n == 1) {
		rc = free_all();
	} else {
		return 2;
	}
	printf("%s %s\n", a[0], rc ? cu_err(rc) : "ok");
	return rc != CUDA_SUCCESS;
}

int main(int argc, char **argv)
{
	int status = 0, start = 1;
	CUresult rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || cu_load(0))
		return argc < 2 ? 2 : 3;
	rc = cu.cuInit(0);
	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&ctx, 0);
	if (!rc)
		rc = cu.cuCtxSetCurrent(ctx);
	if (!rc)
		rc = cu.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
	if (rc) {
		printf("init %s\n", cu_err(rc));
		return 3;
	}
	for (int i = 1; i <= argc; i++) {
		int r;

		if (i < argc && strcmp(argv[i], ","))
			continue;
		if (i == start) {
			start = i + 1;
			continue;
		}
		r = run(&argv[start], i - start);
		if (r == 2) {
			fprintf(stderr, "ckpt-client: bad command: %s\n", argv[start]);
			return 2;
		}
		status |= r;
		start = i + 1;
	}
	return status;
}
