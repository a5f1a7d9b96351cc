// SPDX-License-Identifier: GPL-2.0
/*
 * NVML's views. nvmlInit (every form) registers the process like cuInit,
 * so that nvidia-smi-like tools see their tenant. Memory info follows
 * views.c (reserved is reported as 0 and folded into used). The running
 * process lists (_v1/_v2/_v3 layouts, all starting with the pid) keep only
 * the processes registered under the caller's tenant, as a proc-get dump
 * on the registration socket reports them, with their pids translated from
 * the initial pid namespace (NVML's) into the caller's; callers outside
 * every tenant see the driver's list. A size query (count only) is answered with the
 * driver's count, an upper bound.
 */
#include <string.h>

#include "devmap.h"
#include "hooks.h"
#include "netlink.h"
#include "register.h"
#include "state.h"
#include "views.h"

#define VGPU_PIDS_MAX 4096

static nvmlReturn_t init_done(nvmlReturn_t rc)
{
	if (rc == NVML_SUCCESS)
		libvgpu_ensure();
	return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlInit(void)
{
	vgpu_pfn_nvmlInit real = REAL(nvmlInit);

	return real ? init_done(real()) : NVML_ERROR_LIBRARY_NOT_FOUND;
}

VGPU_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	vgpu_pfn_nvmlInit_v2 real = REAL(nvmlInit_v2);

	return real ? init_done(real()) : NVML_ERROR_LIBRARY_NOT_FOUND;
}

VGPU_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	vgpu_pfn_nvmlInitWithFlags real = REAL(nvmlInitWithFlags);

	return real ? init_done(real(flags)) : NVML_ERROR_LIBRARY_NOT_FOUND;
}

static int nvml_gpu(nvmlDevice_t d)
{
	vgpu_pfn_nvmlDeviceGetUUID uuid = REAL(nvmlDeviceGetUUID);
	char s[NVML_DEVICE_UUID_V2_BUFFER_SIZE];

	if (!vgpu_active() || !uuid || uuid(d, s, sizeof(s)) != NVML_SUCCESS)
		return VGPU_GPU_SKIP;
	return libvgpu_uuid_gpu(s);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	vgpu_pfn_nvmlDeviceGetMemoryInfo real = REAL(nvmlDeviceGetMemoryInfo);
	struct vgpu_view v;
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, memory);
	if (rc == NVML_SUCCESS && memory && libvgpu_view(nvml_gpu(device), &v)) {
		memory->total = v.total;
		memory->used = v.used;
		memory->free = v.free;
	}
	return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
	vgpu_pfn_nvmlDeviceGetMemoryInfo_v2 real = REAL(nvmlDeviceGetMemoryInfo_v2);
	struct vgpu_view v;
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, memory);
	if (rc == NVML_SUCCESS && memory && libvgpu_view(nvml_gpu(device), &v)) {
		memory->total = v.total;
		memory->reserved = 0;
		memory->used = v.used;
		memory->free = v.free;
	}
	return rc;
}

/*
 * Keep the entries (each size bytes, pid first) of the tenant's processes
 * and give each the pid the caller's namespace knows: NVML reports pids of
 * the initial pid namespace, the dump pairs them with ours and leaves out
 * processes our namespace cannot see.
 */
static void filter(void *infos, unsigned int *count, size_t size)
{
	static struct vgpu_nl_pid pids[VGPU_PIDS_MAX];	/* under nl_lk */
	unsigned int out = 0;
	int n;

	if (!infos || !count || !vgpu_active() || !libvgpu_proc.reg.in_tenant)
		return;
	pthread_mutex_lock(&libvgpu_proc.nl_lk);
	n = libvgpu_nl_tenant_pids(libvgpu_proc.nlfd, libvgpu_proc.family, libvgpu_proc.reg.tenant_id,
				   pids, VGPU_PIDS_MAX);
	if (n >= 0) {
		for (unsigned int i = 0; i < *count; i++) {
			char *e = (char *)infos + i * size;
			unsigned int pid;

			memcpy(&pid, e, sizeof(pid));
			for (int k = 0; k < n; k++) {
				if (pids[k].host == pid) {
					char *o = (char *)infos + out++ * size;

					memmove(o, e, size);
					memcpy(o, &pids[k].pid, sizeof(pids[k].pid));
					break;
				}
			}
		}
		*count = out;
	}
	pthread_mutex_unlock(&libvgpu_proc.nl_lk);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
							      unsigned int *infoCount,
							      nvmlProcessInfo_v1_t *infos)
{
	vgpu_pfn_nvmlDeviceGetComputeRunningProcesses real =
		REAL(nvmlDeviceGetComputeRunningProcesses);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, infoCount, infos);
	if (rc == NVML_SUCCESS)
		filter(infos, infoCount, sizeof(*infos));
	return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device,
								 unsigned int *infoCount,
								 nvmlProcessInfo_v2_t *infos)
{
	vgpu_pfn_nvmlDeviceGetComputeRunningProcesses_v2 real =
		REAL(nvmlDeviceGetComputeRunningProcesses_v2);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, infoCount, infos);
	if (rc == NVML_SUCCESS)
		filter(infos, infoCount, sizeof(*infos));
	return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
								 unsigned int *infoCount,
								 nvmlProcessInfo_t *infos)
{
	vgpu_pfn_nvmlDeviceGetComputeRunningProcesses_v3 real =
		REAL(nvmlDeviceGetComputeRunningProcesses_v3);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, infoCount, infos);
	if (rc == NVML_SUCCESS)
		filter(infos, infoCount, sizeof(*infos));
	return rc;
}
