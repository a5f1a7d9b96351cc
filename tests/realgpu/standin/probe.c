// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu-standin probe SOCKET: the GPUs NVML lists, added to the stand-in at
 * their NVML index with their UUID and VRAM (a "gpu-add" control line
 * each), as "vgpuctl gpu probe" adds them through the interposer. For a
 * GPU host where vgpuctl cannot run (its libraries missing there):
 * tests/realgpu/standin-steps.sh then sets the tenants up with "ctl
 * tenant-add". NVML is opened at run time (the daemon links nothing of
 * NVIDIA's); the few types it needs are declared here, as NVML's ABI has
 * them. Prints "probe gpu INDEX vram BYTES uuid UUID" per GPU; exit 0 when
 * every GPU was added, 1 otherwise (the reason on stderr).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "standind.h"

#define STANDIN_NVML_LIB "libnvidia-ml.so.1"

struct standin_nvml_mem {
	unsigned long long total, free, used;	/* nvmlMemory_t */
};

struct standin_nvml {
	int (*init)(void);
	int (*shutdown)(void);
	const char *(*error)(int);
	int (*count)(unsigned int *);
	int (*handle)(unsigned int, void **);
	int (*uuid)(void *, char *, unsigned int);
	int (*memory)(void *, struct standin_nvml_mem *);
};

static int nvml_open(struct standin_nvml *n)
{
	void *lib = dlopen(STANDIN_NVML_LIB, RTLD_NOW | RTLD_LOCAL);

	if (!lib) {
		fprintf(stderr, "vgpu-standin probe: cannot load %s: %s\n", STANDIN_NVML_LIB, dlerror());
		return -1;
	}
	*(void **)&n->init = dlsym(lib, "nvmlInit_v2");
	*(void **)&n->shutdown = dlsym(lib, "nvmlShutdown");
	*(void **)&n->error = dlsym(lib, "nvmlErrorString");
	*(void **)&n->count = dlsym(lib, "nvmlDeviceGetCount_v2");
	*(void **)&n->handle = dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&n->uuid = dlsym(lib, "nvmlDeviceGetUUID");
	*(void **)&n->memory = dlsym(lib, "nvmlDeviceGetMemoryInfo");
	if (!n->init || !n->shutdown || !n->error || !n->count || !n->handle || !n->uuid || !n->memory) {
		fprintf(stderr, "vgpu-standin probe: %s lacks a function it needs (nvmlInit_v2, "
			"nvmlDeviceGetCount_v2, ..._HandleByIndex_v2, ..._GetUUID, ..._GetMemoryInfo)\n",
			STANDIN_NVML_LIB);
		return -1;
	}
	return 0;
}

/* GPU @i as NVML has it, added by a control line. */
static int probe_one(const char *path, struct standin_nvml *n, unsigned int i)
{
	char uuid[96], line[256], ans[512];
	struct standin_nvml_mem m;
	void *h;
	int r;

	if ((r = n->handle(i, &h)) || (r = n->uuid(h, uuid, sizeof(uuid))) || (r = n->memory(h, &m))) {
		fprintf(stderr, "vgpu-standin probe: GPU %u: %s\n", i, n->error(r));
		return -1;
	}
	snprintf(line, sizeof(line), "gpu-add %u %llu %s", i, m.total, uuid);
	if (standin_ctl_ask(path, line, ans, sizeof(ans))) {
		fprintf(stderr, "vgpu-standin probe: GPU %u (%s): %s\n", i, uuid, ans);
		return -1;
	}
	printf("probe gpu %u vram %llu uuid %s\n", i, m.total, uuid);
	return 0;
}

int standin_probe(const char *path)
{
	struct standin_nvml n;
	unsigned int count = 0;
	int r, bad = 0;

	if (nvml_open(&n))
		return 1;
	if ((r = n.init()) || (r = n.count(&count))) {
		fprintf(stderr, "vgpu-standin probe: NVML: %s\n", n.error(r));
		return 1;
	}
	if (!count)
		fprintf(stderr, "vgpu-standin probe: NVML lists no GPU\n");
	for (unsigned int i = 0; i < count && i < VGPU_DEV_GPUS; i++)
		bad |= probe_one(path, &n, i);
	n.shutdown();
	return bad || !count;
}
