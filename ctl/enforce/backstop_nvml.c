// SPDX-License-Identifier: GPL-2.0
/*
 * NVML's per-cgroup memory limits, for the backstop (backstop.h).
 * libnvidia-ml.so.1 is opened at run time, once, on first use; a host
 * without it, or a driver without nvmlDeviceSetMemoryLimits_v1 and
 * nvmlDeviceGetMemoryLimits_v1 (or answering NVML_ERROR_NOT_SUPPORTED),
 * has no driver backstop, which is not an error. The GPU is found by the
 * UUID the module holds for it.
 */
#include <dlfcn.h>
#include <nvml.h>
#include <stdio.h>
#include <string.h>

#include "backstop.h"

#define NVML_LIB	"libnvidia-ml.so.1"

static struct {
	int state;		/* 0: not tried, 1: open, -1: none */
	void *lib;
	const char *(*error_string)(nvmlReturn_t);
	nvmlReturn_t (*by_uuid)(const char *, nvmlDevice_t *);
	nvmlReturn_t (*set)(nvmlDevice_t, nvmlSetMemoryLimits_v1_t *);
	nvmlReturn_t (*get)(nvmlDevice_t, nvmlGetMemoryLimits_v1_t *);
} nv;

static void nvml_open(void)
{
	nvmlReturn_t (*init)(void);

	nv.state = -1;
	nv.lib = dlopen(NVML_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!nv.lib)
		return;
	init = (nvmlReturn_t (*)(void))dlsym(nv.lib, "nvmlInit_v2");
	nv.error_string = (const char *(*)(nvmlReturn_t))dlsym(nv.lib, "nvmlErrorString");
	nv.by_uuid = (nvmlReturn_t (*)(const char *, nvmlDevice_t *))
		dlsym(nv.lib, "nvmlDeviceGetHandleByUUID");
	nv.set = (nvmlReturn_t (*)(nvmlDevice_t, nvmlSetMemoryLimits_v1_t *))
		dlsym(nv.lib, "nvmlDeviceSetMemoryLimits_v1");
	nv.get = (nvmlReturn_t (*)(nvmlDevice_t, nvmlGetMemoryLimits_v1_t *))
		dlsym(nv.lib, "nvmlDeviceGetMemoryLimits_v1");
	if (!init || !nv.by_uuid || init() != NVML_SUCCESS) {
		dlclose(nv.lib);
		nv.lib = NULL;
		return;
	}
	nv.state = 1;
}

/** vgpuctl_bs_nvml() - whether NVML is there (opened on first call). */
bool vgpuctl_bs_nvml(void)
{
	if (!nv.state)
		nvml_open();
	return nv.state > 0;
}

static const char *nvml_strerror(const char *fn, nvmlReturn_t rc)
{
	static char buf[160];
	const char *s = nv.error_string ? nv.error_string(rc) : NULL;

	if (s && *s)
		snprintf(buf, sizeof(buf), "%s: %s (NVML error %d)", fn, s, (int)rc);
	else
		snprintf(buf, sizeof(buf), "%s: NVML error %d", fn, (int)rc);
	return buf;
}

/* The handle of GPU @uuid: 0, 1 (no such GPU or no NVML), -1 with @fail. */
static int handle(const char *uuid, nvmlDevice_t *dev, const char **fail)
{
	nvmlReturn_t rc;

	if (!uuid || !*uuid || !vgpuctl_bs_nvml())
		return 1;
	rc = nv.by_uuid(uuid, dev);
	if (rc == NVML_ERROR_NOT_FOUND || rc == NVML_ERROR_INVALID_ARGUMENT)
		return 1;
	if (rc != NVML_SUCCESS) {
		*fail = nvml_strerror("nvmlDeviceGetHandleByUUID", rc);
		return -1;
	}
	return 0;
}

/* What an answer means: 0 done, 1 the driver has no such limits, -1 failed. */
static int verdict(const char *fn, nvmlReturn_t rc, const char **fail)
{
	if (rc == NVML_SUCCESS)
		return 0;
	if (rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_FUNCTION_NOT_FOUND)
		return 1;
	*fail = nvml_strerror(fn, rc);
	return -1;
}

/**
 * vgpuctl_bs_nvml_get() - the driver's limits of a cgroup on a GPU
 * @uuid: the GPU
 * @dir: the cgroup's directory ("/sys/fs/cgroup/a")
 * @l: the limits (hard VGPU_BS_NONE: none)
 * @fail: on -1, what failed, with NVML's error string
 *
 * Return: 0, 1 when the driver (or the host) has no per-cgroup limits for
 * this GPU, -1 on any other failure.
 */
int vgpuctl_bs_nvml_get(const char *uuid, const char *dir, struct vgpu_bs_limits *l,
			const char **fail)
{
	nvmlGetMemoryLimits_v1_t got = { .nameSpace = dir };
	nvmlDevice_t dev;
	int ret = handle(uuid, &dev, fail);

	if (ret)
		return ret;
	if (!nv.get)
		return 1;
	ret = verdict("nvmlDeviceGetMemoryLimits_v1", nv.get(dev, &got), fail);
	if (!ret) {
		l->soft = got.softLimit;
		l->hard = got.hardLimit == NVML_DEVICE_MEMORY_LIMIT_MAX ? VGPU_BS_NONE :
			  got.hardLimit;
	}
	return ret;
}

/**
 * vgpuctl_bs_nvml_set() - set the driver's limits of a cgroup on a GPU
 * @uuid: the GPU
 * @dir: the cgroup's directory
 * @l: the limits; soft 0 and hard VGPU_BS_NONE clear them
 * @fail: on -1, what failed
 *
 * Return: 0, 1 when the driver has no per-cgroup limits, -1 on failure.
 */
int vgpuctl_bs_nvml_set(const char *uuid, const char *dir, const struct vgpu_bs_limits *l,
			const char **fail)
{
	nvmlSetMemoryLimits_v1_t lim = {
		.nameSpace = dir,
		.softLimit = l->soft,
		.hardLimit = l->hard == VGPU_BS_NONE ? NVML_DEVICE_MEMORY_LIMIT_MAX : l->hard,
	};
	nvmlDevice_t dev;
	int ret = handle(uuid, &dev, fail);

	if (ret)
		return ret;
	if (!nv.set)
		return 1;
	return verdict("nvmlDeviceSetMemoryLimits_v1", nv.set(dev, &lim), fail);
}
