// SPDX-License-Identifier: GPL-2.0
/*
 * vmm-client: drives CUDA's virtual memory management step by step, in the
 * orders real programs use, so that what libvgpu charges can be compared
 * with what simgpu holds after each step. One address reservation; offsets
 * are from its start; handles are numbered h0, h1, ... in the order they
 * were obtained. Commands are separated by "," arguments; each prints one
 * line, "CMD ARGS ok" or "CMD ARGS CUDA_ERROR_..." (exit status 0 when all
 * succeeded, 1 when one failed, 2 on a usage error, 3 when cuInit failed).
 *
 *   reserve SIZE        cuMemAddressReserve
 *   create SIZE         cuMemCreate on GPU 0: "create SIZE = hN"
 *   map N OFF           cuMemMap of all of hN at OFF
 *   access OFF SIZE     cuMemSetAccess, read-write for GPU 0
 *   unmap OFF SIZE      cuMemUnmap
 *   release N           cuMemRelease of hN
 *   retain OFF          cuMemRetainAllocationHandle: "retain OFF = hN (hK)",
 *                       hK the handle that was mapped there
 *   props N             cuMemGetAllocationPropertiesFromHandle of hN
 *   memset OFF SIZE     cuMemsetD8: the memory is usable
 *   afree               cuMemAddressFree of the reservation
 *   sample SIZE         NVIDIA's vectorAddMMAP: create, map at the top of
 *                       the used range, release at once, set access
 *   grow SEG N          PyTorch's expandable segment growing by N handles
 *                       of SEG: create them all (when one is refused,
 *                       release those just made), map each, then one
 *                       cuMemSetAccess over the new range
 *   shrink N            PyTorch giving back the top N handles of the
 *                       segment: unmap each, then release it
 *   register OFF        NCCL's buffer registration: retain the handle
 *                       mapped at OFF, query its properties, release it
 *   ecreate SIZE        cuMemCreate exportable as a POSIX file descriptor
 *   export N            cuMemExportToShareableHandle of hN as a file
 *                       descriptor, kept open: "export N = fd F (eK)",
 *                       K counting the exports
 *   close K             close the descriptor of export K
 *   open PID F          open descriptor F of process PID (/proc/PID/fd/F)
 *                       and keep it as if exported here: "open PID F (eK)"
 *   import PID F SIZE   cuMemImportFromShareableHandle of descriptor F of
 *                       process PID (opened as /proc/PID/fd/F and closed
 *                       after), or with PID 0 of this process's export F:
 *                       "import PID F SIZE = hN (hK)", SIZE the size the
 *                       exporter said (a handle does not tell)
 *   info                cuMemGetInfo: "info free F"
 *   sync                cuCtxSynchronize
 *   hold MS             print "holding", sleep, holding everything
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuload.h"

#define MAX_HANDLES 1024

static CUdevice dev;
static CUdeviceptr base;
static uint64_t rsize, top;	/* the reservation, the end of the used range */
static CUmemGenericAllocationHandle hv[MAX_HANDLES];
static uint64_t hsize[MAX_HANDLES];
static int nh;
static int seg[MAX_HANDLES], nseg;	/* the segment's handles, bottom up */
static int failed;
static int efd[MAX_HANDLES], ne;	/* exported descriptors */

static CUresult create_as(uint64_t size, int *idx, CUmemAllocationHandleType types)
{
	CUmemAllocationProp prop = { 0 };
	CUresult rc;

	if (nh == MAX_HANDLES)
		return CUDA_ERROR_OUT_OF_MEMORY;
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	prop.requestedHandleTypes = types;
	rc = cu.cuMemCreate(&hv[nh], size, &prop, 0);
	if (!rc) {
		hsize[nh] = size;
		*idx = nh++;
	}
	return rc;
}

static CUresult create(uint64_t size, int *idx)
{
	return create_as(size, idx, CU_MEM_HANDLE_TYPE_NONE);
}

static CUresult access_rw(uint64_t off, uint64_t size)
{
	CUmemAccessDesc d = { 0 };

	d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	d.location.id = dev;
	d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	return cu.cuMemSetAccess(base + off, size, &d, 1);
}

static CUresult sample(uint64_t size)
{
	CUresult rc;
	int i;

	rc = create(size, &i);
	if (rc)
		return rc;
	rc = cu.cuMemMap(base + top, size, 0, hv[i], 0);
	if (!rc)
		rc = cu.cuMemRelease(hv[i]);
	if (!rc)
		rc = access_rw(top, size);
	if (!rc)
		top += size;
	return rc;
}

static CUresult grow(uint64_t segsize, uint64_t n)
{
	int first = nh, idx;
	CUresult rc = CUDA_SUCCESS;

	for (uint64_t i = 0; i < n && !rc; i++)
		rc = create(segsize, &idx);
	if (rc) {
		while (nh > first)
			cu.cuMemRelease(hv[--nh]);
		return rc;
	}
	for (int i = first; i < nh && !rc; i++) {
		rc = cu.cuMemMap(base + top + (uint64_t)(i - first) * segsize, segsize, 0, hv[i], 0);
		if (!rc)
			seg[nseg++] = i;
	}
	if (!rc)
		rc = access_rw(top, n * segsize);
	if (!rc)
		top += n * segsize;
	return rc;
}

static CUresult shrink(uint64_t n)
{
	CUresult rc = CUDA_SUCCESS;

	for (uint64_t i = 0; i < n && nseg && !rc; i++) {
		int h = seg[nseg - 1];

		rc = cu.cuMemUnmap(base + top - hsize[h], hsize[h]);
		if (!rc)
			rc = cu.cuMemRelease(hv[h]);
		if (!rc) {
			top -= hsize[h];
			nseg--;
		}
	}
	return rc;
}

/* "= hN (hK)": N the new handle's number, K the first with its value. */
static CUresult retain(uint64_t off, char *what, size_t len)
{
	CUresult rc;
	int k = 0;

	if (nh == MAX_HANDLES)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = cu.cuMemRetainAllocationHandle(&hv[nh], (void *)(uintptr_t)(base + off));
	if (rc)
		return rc;
	while (k < nh && hv[k] != hv[nh])
		k++;
	hsize[nh] = k < nh ? hsize[k] : 0;
	snprintf(what + strlen(what), len - strlen(what), " = h%d (h%d)", nh, k);
	nh++;
	return rc;
}

static CUresult props(uint64_t n, char *what, size_t len)
{
	CUmemAllocationProp p;
	CUresult rc;

	if (n >= (uint64_t)nh)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = cu.cuMemGetAllocationPropertiesFromHandle(&p, hv[n]);
	if (!rc)
		snprintf(what + strlen(what), len - strlen(what), " = type %d device %d",
			 (int)p.location.type, p.location.id);
	return rc;
}

static CUresult export_fd(uint64_t n, char *what, size_t len)
{
	CUresult rc;
	int fd = -1;

	if (n >= (uint64_t)nh || ne == MAX_HANDLES)
		return CUDA_ERROR_INVALID_HANDLE;
	rc = cu.cuMemExportToShareableHandle(&fd, hv[n], CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
	if (!rc) {
		snprintf(what + strlen(what), len - strlen(what), " = fd %d (e%d)", fd, ne);
		efd[ne++] = fd;
	}
	return rc;
}

static CUresult open_fd(uint64_t pid, uint64_t f, char *what, size_t len)
{
	char path[64];

	if (ne == MAX_HANDLES)
		return CUDA_ERROR_OUT_OF_MEMORY;
	snprintf(path, sizeof(path), "/proc/%" PRIu64 "/fd/%" PRIu64, pid, f);
	efd[ne] = open(path, O_RDWR | O_CLOEXEC);
	if (efd[ne] < 0) {
		fprintf(stderr, "vmm-client: %s: cannot open\n", path);
		return CUDA_ERROR_INVALID_VALUE;
	}
	snprintf(what + strlen(what), len - strlen(what), " (e%d)", ne++);
	return CUDA_SUCCESS;
}

/* "= hN (hK)" as for retain. */
static CUresult import_fd(uint64_t pid, uint64_t f, uint64_t size, char *what, size_t len)
{
	char path[64];
	CUresult rc;
	int fd, k = 0;

	if (nh == MAX_HANDLES)
		return CUDA_ERROR_OUT_OF_MEMORY;
	if (!pid && f >= (uint64_t)ne)
		return CUDA_ERROR_INVALID_HANDLE;
	if (pid)
		snprintf(path, sizeof(path), "/proc/%" PRIu64 "/fd/%" PRIu64, pid, f);
	else
		snprintf(path, sizeof(path), "/proc/self/fd/%d", efd[f]);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "vmm-client: %s: cannot open\n", path);
		return CUDA_ERROR_INVALID_VALUE;
	}
	rc = cu.cuMemImportFromShareableHandle(&hv[nh], (void *)(intptr_t)fd,
					       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
	close(fd);
	if (rc)
		return rc;
	while (k < nh && hv[k] != hv[nh])
		k++;
	hsize[nh] = size;
	snprintf(what + strlen(what), len - strlen(what), " = h%d (h%d)", nh, k);
	nh++;
	return rc;
}

static CUresult do_register(uint64_t off, char *what, size_t len)
{
	CUresult rc = retain(off, what, len);

	if (!rc)
		rc = props((uint64_t)nh - 1, what, len);
	if (!rc)
		rc = cu.cuMemRelease(hv[nh - 1]);
	return rc;
}

static CUresult dispatch(const char *cmd, int ac, const uint64_t *a, char *what, size_t len)
{
	int idx;

	if (!strcmp(cmd, "reserve") && ac == 2) {
		rsize = a[1];
		return cu.cuMemAddressReserve(&base, a[1], 0, 0, 0);
	} else if (!strcmp(cmd, "create") && ac == 2) {
		CUresult rc = create(a[1], &idx);

		if (!rc)
			snprintf(what + strlen(what), len - strlen(what), " = h%d", idx);
		return rc;
	} else if ((!strcmp(cmd, "map") || !strcmp(cmd, "release") || !strcmp(cmd, "props")) &&
		   ac == (cmd[0] == 'm' ? 3 : 2) && a[1] >= (uint64_t)nh) {
		return CUDA_ERROR_INVALID_HANDLE;	/* no such number: hand on nothing */
	} else if (!strcmp(cmd, "map") && ac == 3) {
		return cu.cuMemMap(base + a[2], hsize[a[1]], 0, hv[a[1]], 0);
	} else if (!strcmp(cmd, "access") && ac == 3) {
		return access_rw(a[1], a[2]);
	} else if (!strcmp(cmd, "unmap") && ac == 3) {
		return cu.cuMemUnmap(base + a[1], a[2]);
	} else if (!strcmp(cmd, "release") && ac == 2) {
		return cu.cuMemRelease(hv[a[1]]);
	} else if (!strcmp(cmd, "retain") && ac == 2) {
		return retain(a[1], what, len);
	} else if (!strcmp(cmd, "props") && ac == 2) {
		return props(a[1], what, len);
	} else if (!strcmp(cmd, "memset") && ac == 3) {
		return cu.cuMemsetD8(base + a[1], 0x5a, a[2]);
	} else if (!strcmp(cmd, "afree") && ac == 1) {
		return cu.cuMemAddressFree(base, rsize);
	} else if (!strcmp(cmd, "sample") && ac == 2) {
		return sample(a[1]);
	} else if (!strcmp(cmd, "grow") && ac == 3) {
		return grow(a[1], a[2]);
	} else if (!strcmp(cmd, "shrink") && ac == 2) {
		return shrink(a[1]);
	} else if (!strcmp(cmd, "register") && ac == 2) {
		return do_register(a[1], what, len);
	} else if (!strcmp(cmd, "ecreate") && ac == 2) {
		CUresult rc = create_as(a[1], &idx, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);

		if (!rc)
			snprintf(what + strlen(what), len - strlen(what), " = h%d", idx);
		return rc;
	} else if (!strcmp(cmd, "export") && ac == 2) {
		return export_fd(a[1], what, len);
	} else if (!strcmp(cmd, "close") && ac == 2) {
		if (a[1] >= (uint64_t)ne || efd[a[1]] < 0)
			return CUDA_ERROR_INVALID_HANDLE;
		close(efd[a[1]]);
		efd[a[1]] = -1;
		return CUDA_SUCCESS;
	} else if (!strcmp(cmd, "open") && ac == 3) {
		return open_fd(a[1], a[2], what, len);
	} else if (!strcmp(cmd, "import") && ac == 4) {
		return import_fd(a[1], a[2], a[3], what, len);
	} else if (!strcmp(cmd, "info") && ac == 1) {
		size_t f = 0, t = 0;
		CUresult rc = cu.cuMemGetInfo(&f, &t);

		if (!rc)
			snprintf(what + strlen(what), len - strlen(what), " free %zu", f);
		return rc;
	} else if (!strcmp(cmd, "sync") && ac == 1) {
		return cu.cuCtxSynchronize(NULL);
	} else if (!strcmp(cmd, "hold") && ac == 2) {
		struct timespec ts = { (time_t)(a[1] / 1000), (long)(a[1] % 1000) * 1000000L };

		printf("holding\n");
		fflush(stdout);
		nanosleep(&ts, NULL);
		return CUDA_SUCCESS;
	}
	fprintf(stderr, "vmm-client: bad command: %s\n", what);
	exit(2);
}

static void run(char **av, int ac)
{
	uint64_t a[4] = { 0 };
	char what[256];
	CUresult rc;

	snprintf(what, sizeof(what), "%s", av[0]);
	for (int i = 1; i < ac && strlen(what) < 160; i++) {
		strcat(what, " ");
		strncat(what, av[i], 40);
	}
	for (int i = 1; i < ac; i++) {
		if (i > 3 || cu_size_arg(av[i], &a[i])) {
			fprintf(stderr, "vmm-client: bad arguments in: %s\n", what);
			exit(2);
		}
	}
	rc = dispatch(av[0], ac, a, what, sizeof(what));
	printf("%s %s\n", what, rc ? cu_err(rc) : "ok");
	fflush(stdout);
	if (rc)
		failed = 1;
}

int main(int argc, char **argv)
{
	CUcontext ctx;
	CUresult rc;
	int start = 1;

	if (argc < 2) {
		fprintf(stderr, "usage: vmm-client CMD [ARGS] [, CMD [ARGS]]...\n");
		return 2;
	}
	if (cu_load(0))
		return 3;
	rc = cu.cuInit(0);
	if (!rc)
		rc = cu.cuDeviceGet(&dev, 0);
	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&ctx, dev);
	if (!rc)
		rc = cu.cuCtxSetCurrent(ctx);
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
