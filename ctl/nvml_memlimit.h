/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVML's per-cgroup device memory limits, for the nvml.h of drivers that
 * predate them (Debian's libnvidia-ml-dev, CUDA 11.8's NVML, has none).
 * vgpuctl resolves the two functions with dlsym at run time, and simgpu
 * defines them, so both build against the older header and vgpu still runs
 * on drivers without them.
 *
 * Names, members, their order and types are NVIDIA's:
 *  - NVML API Reference, "nvmlSetMemoryLimits_v1_t" and
 *    "nvmlGetMemoryLimits_v1_t" (docs.nvidia.com/deploy/nvml-api/api/
 *    structnvmlSetMemoryLimits__v1__t.html, ...GetMemoryLimits__v1__t.html):
 *    nameSpace, softLimit, hardLimit (and currentUsed for get). Neither
 *    struct has a version member: the version is the _v1 of the function.
 *  - "Device Queries": nvmlDeviceSetMemoryLimits_v1(nvmlDevice_t,
 *    nvmlSetMemoryLimits_v1_t *) ("Requires root/admin permissions",
 *    "MIG handles are not supported") and nvmlDeviceGetMemoryLimits_v1(
 *    nvmlDevice_t, nvmlGetMemoryLimits_v1_t *) (any user).
 *  - "Device Structs": NVML_DEVICE_MEMORY_LIMIT_MAX, 'Value for "maximum"
 *    memory limit'. Clearing a cgroup's limits is softLimit 0 and hardLimit
 *    NVML_DEVICE_MEMORY_LIMIT_MAX. NVIDIA's pages name the macro without
 *    its value; ~0ULL (the largest unsigned long long) is the value of
 *    CUDA 13.4's nvml.h as others have read it, and is the only value a
 *    byte count cannot reach.
 * The same layout is in NVIDIA's cuda-python NVML bindings
 * (cuda.bindings.nvml.SetMemoryLimits_v1 / GetMemoryLimits_v1).
 *
 * A newer nvml.h that declares these itself wins: everything here is
 * skipped when NVML_DEVICE_MEMORY_LIMIT_MAX is already defined.
 */
#ifndef VGPU_NVML_MEMLIMIT_H
#define VGPU_NVML_MEMLIMIT_H

#include <nvml.h>

#ifndef NVML_DEVICE_MEMORY_LIMIT_MAX
#define NVML_DEVICE_MEMORY_LIMIT_MAX	(~0ULL)

typedef struct {
	const char *nameSpace;		/* [in] full path of the cgroup directory */
	unsigned long long softLimit;	/* [in] bytes guaranteed */
	unsigned long long hardLimit;	/* [in] bytes at most */
} nvmlSetMemoryLimits_v1_t;

typedef struct {
	const char *nameSpace;		/* [in] full path of the cgroup directory */
	unsigned long long softLimit;	/* [out] */
	unsigned long long hardLimit;	/* [out] */
	unsigned long long currentUsed;	/* [out] bytes the cgroup uses */
} nvmlGetMemoryLimits_v1_t;

nvmlReturn_t nvmlDeviceSetMemoryLimits_v1(nvmlDevice_t device,
					  nvmlSetMemoryLimits_v1_t *limits);
nvmlReturn_t nvmlDeviceGetMemoryLimits_v1(nvmlDevice_t device,
					  nvmlGetMemoryLimits_v1_t *limits);
#endif

#endif /* VGPU_NVML_MEMLIMIT_H */
