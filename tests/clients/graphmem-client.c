// SPDX-License-Identifier: GPL-2.0
/*
 * graphmem-client: the device's graph memory reserve, step by step. It
 * builds a graph of one allocation node of SIZE on device 0 and (unless
 * keep) its free node, instantiates it, then runs the steps given:
 *
 *   graphmem-client SIZE [keep] STEP...
 *
 * STEP: upload (cuGraphUpload), launch (cuGraphLaunch, then
 * cuStreamSynchronize), trim (cuDeviceGraphMemTrim), high (prints "high ok
 * used U reserved R", the high watermarks), reset (sets both high
 * watermarks to 0 with cuDeviceSetGraphMemAttribute), pause:MS (sleep) or
 * pause:FILE (wait until FILE exists, waitfile.h).
 * After each step it prints "STEP ok reserved R used U" (the device's
 * CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT and USED_MEM_CURRENT) or
 * "STEP CUDA_ERROR_...". Reached like NVIDIA's runtime does (cuload.c).
 * Exit 0 when every step succeeded, 1 otherwise, 2 on a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuload.h"
#include "waitfile.h"

static struct {
	__typeof__(&cuGraphUpload) upload;
	__typeof__(&cuDeviceGraphMemTrim) trim;
	__typeof__(&cuDeviceGetGraphMemAttribute) attr;
	__typeof__(&cuDeviceSetGraphMemAttribute) set;
} gx;

static int get(const char *name, int version, void **out)
{
	CUresult rc = cu_proc(name, version, out);

	if (rc) {
		printf("lookup %s %s\n", name, cu_err(rc));
		return -1;
	}
	return 0;
}

static int report(const char *what, CUdevice d, CUresult rc)
{
	cuuint64_t r = 0, u = 0;

	if (!rc)
		rc = gx.attr(d, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &r);
	if (!rc)
		rc = gx.attr(d, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &u);
	if (rc)
		printf("%s %s\n", what, cu_err(rc));
	else
		printf("%s ok reserved %llu used %llu\n", what, (unsigned long long)r,
		       (unsigned long long)u);
	fflush(stdout);
	return rc != CUDA_SUCCESS;
}

static int high(CUdevice d)
{
	cuuint64_t u = 0, r = 0;
	CUresult rc = gx.attr(d, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &u);

	if (!rc)
		rc = gx.attr(d, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &r);
	if (rc)
		printf("high %s\n", cu_err(rc));
	else
		printf("high ok used %llu reserved %llu\n", (unsigned long long)u,
		       (unsigned long long)r);
	fflush(stdout);
	return rc != CUDA_SUCCESS;
}

static CUresult reset(CUdevice d)
{
	cuuint64_t zero = 0;
	CUresult rc = gx.set(d, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, &zero);

	if (!rc)
		rc = gx.set(d, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH, &zero);
	return rc;
}

static CUresult build(CUdevice d, uint64_t size, int keep, CUgraphExec *e)
{
	CUDA_MEM_ALLOC_NODE_PARAMS ap;
	CUgraphNode a, f;
	CUgraph g;
	CUresult rc = cu.cuGraphCreate(&g, 0);

	if (rc)
		return rc;
	memset(&ap, 0, sizeof(ap));
	ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	ap.poolProps.location.id = d;
	ap.bytesize = size;
	rc = cu.cuGraphAddMemAllocNode(&a, g, NULL, 0, &ap);
	if (!rc && !keep)
		rc = cu.cuGraphAddMemFreeNode(&f, g, &a, 1, ap.dptr);
	if (!rc)
		rc = cu.cuGraphInstantiate(e, g, 0);
	return rc;
}

int main(int argc, char **argv)
{
	CUgraphExec e;
	CUcontext ctx;
	CUstream s;
	CUdevice d;
	uint64_t size;
	int i = 2, bad = 0;
	CUresult rc;

	if (argc < 3 || cu_size_arg(argv[1], &size) || !size) {
		fprintf(stderr, "usage: graphmem-client SIZE [keep] "
			"upload|launch|trim|high|reset|pause:MS...\n");
		return 2;
	}
	if (cu_load(0))
		return 1;
	if (get("cuGraphUpload", 11010, (void **)&gx.upload) |
	    get("cuDeviceGraphMemTrim", 11040, (void **)&gx.trim) |
	    get("cuDeviceGetGraphMemAttribute", 11040, (void **)&gx.attr) |
	    get("cuDeviceSetGraphMemAttribute", 11040, (void **)&gx.set))
		return 1;
	rc = cu.cuInit(0);
	if (!rc)
		rc = cu.cuDeviceGet(&d, 0);
	if (!rc)
		rc = cu.cuDevicePrimaryCtxRetain(&ctx, d);
	if (!rc)
		rc = cu.cuCtxSetCurrent(ctx);
	if (!rc)
		rc = cu.cuStreamCreate(&s, 0);
	if (!rc)
		rc = build(d, size, argc > 2 && !strcmp(argv[2], "keep"), &e);
	if (report("built", d, rc))
		return 1;
	if (!strcmp(argv[2], "keep"))
		i = 3;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "upload")) {
			bad |= report("upload", d, gx.upload(e, s));
		} else if (!strcmp(argv[i], "launch")) {
			rc = cu.cuGraphLaunch(e, s);
			if (!rc)
				rc = cu.cuStreamSynchronize(s);
			bad |= report("launch", d, rc);
		} else if (!strcmp(argv[i], "trim")) {
			bad |= report("trim", d, gx.trim(d));
		} else if (!strcmp(argv[i], "high")) {
			bad |= high(d);
		} else if (!strcmp(argv[i], "reset")) {
			bad |= report("reset", d, reset(d));
		} else if (!strncmp(argv[i], "pause:", 6)) {
			client_pause(argv[i] + 6);
		} else {
			fprintf(stderr, "graphmem-client: unknown step '%s'\n", argv[i]);
			return 2;
		}
	}
	return bad;
}
