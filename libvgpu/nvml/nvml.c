// SPDX-License-Identifier: GPL-2.0
/*
 * NVML's views. nvmlInit (every form) registers the process like cuInit,
 * so that nvidia-smi-like tools see their tenant. Memory info follows
 * views.c (reserved is reported as 0 and folded into used); BAR1 is
 * clamped to that view with nothing used. The running process lists
 * (compute, graphics, MPS; _v1/_v2/_v3 layouts; the detail list of every
 * mode) and the per-process utilisation samples (both forms) keep only
 * the processes registered under the caller's tenant, as a proc-get dump
 * on the registration socket reports them, with their pids translated from
 * the initial pid namespace (NVML's) into the caller's; callers outside
 * every tenant see the driver's list. A size query (count only) is answered with the
 * driver's count, an upper bound.
 */
#include <stddef.h>
#include <string.h>

#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../access/netlink.h"
#include "../policy/register.h"
#include "../state/state.h"
#include "views.h"
#include "../access/nest.h"

#define VGPU_PIDS_MAX 4096

static nvmlReturn_t init_done(nvmlReturn_t rc)
{
	if (rc == NVML_SUCCESS)
		libvgpu_ensure();
	return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlInit(void)
{
	VGPU_PASS_NESTED(nvmlInit, ());
	vgpu_pfn_nvmlInit real = REAL(nvmlInit);

	return real ? init_done(real()) : NVML_ERROR_LIBRARY_NOT_FOUND;
}

VGPU_EXPORT nvmlReturn_t nvmlInit_v2(void)
{
	VGPU_PASS_NESTED(nvmlInit_v2, ());
	vgpu_pfn_nvmlInit_v2 real = REAL(nvmlInit_v2);

	return real ? init_done(real()) : NVML_ERROR_LIBRARY_NOT_FOUND;
}

VGPU_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	VGPU_PASS_NESTED(nvmlInitWithFlags, (flags));
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
	VGPU_PASS_NESTED(nvmlDeviceGetMemoryInfo, (device, memory));
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
	VGPU_PASS_NESTED(nvmlDeviceGetMemoryInfo_v2, (device, memory));
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
 * Keep the entries (each size bytes, the pid an unsigned int at pid_off)
 * of the tenant's processes and give each the pid the caller's namespace
 * knows: NVML reports pids of the initial pid namespace, the dump pairs
 * them with ours and leaves out processes our namespace cannot see. The
 * entries dropped are zeroed, so that the caller's array past the new
 * count holds nothing of other tenants'.
 */
static void filter(void *infos, unsigned int *count, size_t size, size_t pid_off)
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

			memcpy(&pid, e + pid_off, sizeof(pid));
			for (int k = 0; k < n; k++) {
				if (pids[k].host == pid) {
					char *o = (char *)infos + out++ * size;

					memmove(o, e, size);
					memcpy(o + pid_off, &pids[k].pid, sizeof(pids[k].pid));
					break;
				}
			}
		}
		memset((char *)infos + (size_t)out * size, 0, (size_t)(*count - out) * size);
		*count = out;
	}
	pthread_mutex_unlock(&libvgpu_proc.nl_lk);
}

/* The entries of an array of type, filtered by their member pid. */
#define VGPU_FILTER(infos, count, type) filter((infos), (count), sizeof(type), offsetof(type, pid))

/* A running-process list (compute, graphics or MPS; _v1/_v2/_v3), filtered. */
#define VGPU_NVML_PROC_LIST(name, type)							\
	VGPU_EXPORT nvmlReturn_t name(nvmlDevice_t device, unsigned int *infoCount,	\
				      type *infos)					\
	{										\
		VGPU_PASS_NESTED(name, (device, infoCount, infos));			\
		vgpu_pfn_##name real = REAL(name);					\
		nvmlReturn_t rc;							\
											\
		if (!real)								\
			return NVML_ERROR_LIBRARY_NOT_FOUND;				\
		rc = real(device, infoCount, infos);					\
		if (rc == NVML_SUCCESS)							\
			VGPU_FILTER(infos, infoCount, __typeof__(*infos));			\
		return rc;								\
	}

VGPU_NVML_PROC_LIST(nvmlDeviceGetComputeRunningProcesses, nvmlProcessInfo_v1_t)
VGPU_NVML_PROC_LIST(nvmlDeviceGetComputeRunningProcesses_v2, nvmlProcessInfo_v2_t)
VGPU_NVML_PROC_LIST(nvmlDeviceGetComputeRunningProcesses_v3, nvmlProcessInfo_t)
VGPU_NVML_PROC_LIST(nvmlDeviceGetGraphicsRunningProcesses, nvmlProcessInfo_v1_t)
VGPU_NVML_PROC_LIST(nvmlDeviceGetGraphicsRunningProcesses_v2, nvmlProcessInfo_v2_t)
VGPU_NVML_PROC_LIST(nvmlDeviceGetGraphicsRunningProcesses_v3, nvmlProcessInfo_t)
VGPU_NVML_PROC_LIST(nvmlDeviceGetMPSComputeRunningProcesses, nvmlProcessInfo_v1_t)
VGPU_NVML_PROC_LIST(nvmlDeviceGetMPSComputeRunningProcesses_v2, nvmlProcessInfo_v2_t)
VGPU_NVML_PROC_LIST(nvmlDeviceGetMPSComputeRunningProcesses_v3, nvmlProcessInfo_t)

/*
 * Samples (pid first) of the tenant's processes only. When none of the
 * driver's samples are the tenant's, NVML's answer for no samples.
 */
VGPU_EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
							 nvmlProcessUtilizationSample_t *utilization,
							 unsigned int *processSamplesCount,
							 unsigned long long lastSeenTimeStamp)
{
	VGPU_PASS_NESTED(nvmlDeviceGetProcessUtilization, (device, utilization, processSamplesCount, lastSeenTimeStamp));
	vgpu_pfn_nvmlDeviceGetProcessUtilization real = REAL(nvmlDeviceGetProcessUtilization);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, utilization, processSamplesCount, lastSeenTimeStamp);
	if (rc == NVML_SUCCESS && utilization && processSamplesCount) {
		VGPU_FILTER(utilization, processSamplesCount, nvmlProcessUtilizationSample_t);
		if (!*processSamplesCount)
			rc = NVML_ERROR_NOT_FOUND;
	}
	return rc;
}

#ifdef nvmlProcessDetailList_v1
/*
 * The detail list (NVML 12.4+, every mode), filtered like the lists above.
 * Whatever the driver refuses (NULL plist, a version or mode it does not
 * know, a size query's INSUFFICIENT_SIZE) reaches the caller unchanged.
 * A version the driver accepts but this build does not know is a layout
 * libvgpu cannot filter: the caller gets no entry and the answer of a
 * driver that knows only v1, ARGUMENT_VERSION_MISMATCH, never the
 * unfiltered list.
 */
VGPU_EXPORT nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device,
							       nvmlProcessDetailList_t *plist)
{
	VGPU_PASS_NESTED(nvmlDeviceGetRunningProcessDetailList, (device, plist));
	vgpu_pfn_nvmlDeviceGetRunningProcessDetailList real = REAL(nvmlDeviceGetRunningProcessDetailList);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, plist);
	if (rc != NVML_SUCCESS || !plist)
		return rc;
	if (plist->version != nvmlProcessDetailList_v1) {
		if (vgpu_active() && libvgpu_proc.reg.in_tenant) {
			plist->numProcArrayEntries = 0;
			return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
		}
		return rc;
	}
	VGPU_FILTER(plist->procArray, &plist->numProcArrayEntries, nvmlProcessDetail_v1_t);
	return rc;
}
#endif

#ifdef nvmlProcessesUtilizationInfo_v1
/*
 * The samples' newer form (NVML 12.4+; the pid after the time stamp),
 * filtered like nvmlDeviceGetProcessUtilization's: none of the tenant's,
 * NVML_ERROR_NOT_FOUND. The driver's errors (NULL info, version mismatch,
 * a NULL or short array's INSUFFICIENT_SIZE) pass unchanged; a version
 * the driver accepts but this build does not know is refused as
 * nvmlDeviceGetRunningProcessDetailList's is.
 */
VGPU_EXPORT nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device,
							       nvmlProcessesUtilizationInfo_t *info)
{
	VGPU_PASS_NESTED(nvmlDeviceGetProcessesUtilizationInfo, (device, info));
	vgpu_pfn_nvmlDeviceGetProcessesUtilizationInfo real = REAL(nvmlDeviceGetProcessesUtilizationInfo);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, info);
	if (rc != NVML_SUCCESS || !info)
		return rc;
	if (info->version != nvmlProcessesUtilizationInfo_v1) {
		if (vgpu_active() && libvgpu_proc.reg.in_tenant) {
			info->processSamplesCount = 0;
			return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
		}
		return rc;
	}
	if (info->procUtilArray) {
		VGPU_FILTER(info->procUtilArray, &info->processSamplesCount,
			    nvmlProcessUtilizationInfo_v1_t);
		if (!info->processSamplesCount)
			rc = NVML_ERROR_NOT_FOUND;
	}
	return rc;
}
#endif

/*
 * BAR1 maps the GPU's memory, so the tenant's aperture is at most its VRAM
 * view; what the tenant's own processes have mapped is not knowable from
 * the device-wide figure, and that figure includes other tenants' use, so
 * a tenant sees nothing used.
 */
VGPU_EXPORT nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1Memory)
{
	VGPU_PASS_NESTED(nvmlDeviceGetBAR1MemoryInfo, (device, bar1Memory));
	vgpu_pfn_nvmlDeviceGetBAR1MemoryInfo real = REAL(nvmlDeviceGetBAR1MemoryInfo);
	struct vgpu_view v;
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, bar1Memory);
	if (rc == NVML_SUCCESS && bar1Memory && libvgpu_view(nvml_gpu(device), &v)) {
		if (bar1Memory->bar1Total > v.total)
			bar1Memory->bar1Total = v.total;
		bar1Memory->bar1Used = 0;
		bar1Memory->bar1Free = bar1Memory->bar1Total;
	}
	return rc;
}
