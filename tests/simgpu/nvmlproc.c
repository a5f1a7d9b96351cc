// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu NVML's per-process views (Documentation/simgpu.md, "NVML process
 * views"): the compute, graphics and MPS process lists, the detail list
 * (every mode), per-process utilisation samples (both forms), and BAR1
 * memory. A process's list is its kind
 * ($SIMGPU_PROC_KIND when it registered); pids are host pids, as NVML's.
 */
#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
#include <nvml.h>
#include <time.h>

#include "nvmldev.h"
#include "shm.h"

#define SG_API __attribute__((visibility("default")))
/* simgpu's BAR1: a 256 MiB aperture, 1 MiB mapped per process with a context. */
#define SG_BAR1_TOTAL (256ULL << 20)
#define SG_BAR1_PER_PROC (1ULL << 20)

static int on_gpu(const struct sg_proc_shared *sp, int i)
{
	return sp->alive && (sp->ctxs[i] || sp->bytes[i]);
}

/* The layouts of NVML's process entries simgpu fills. */
enum sg_layout { SG_LAYOUT_V1, SG_LAYOUT_V2, SG_LAYOUT_DETAIL };

static void put_proc(void *out, enum sg_layout layout, const struct sg_proc_shared *sp, int i)
{
	if (layout == SG_LAYOUT_V1) {
		nvmlProcessInfo_v1_t *o = out;

		o->pid = (unsigned int)sp->pid;
		o->usedGpuMemory = sp->bytes[i];
	} else if (layout == SG_LAYOUT_V2) {
		nvmlProcessInfo_t *o = out;

		o->pid = (unsigned int)sp->pid;
		o->usedGpuMemory = sp->bytes[i];
		o->gpuInstanceId = 0xffffffff;
		o->computeInstanceId = 0xffffffff;
	} else {
#ifdef nvmlProcessDetailList_v1
		nvmlProcessDetail_v1_t *o = out;

		o->pid = (unsigned int)sp->pid;
		o->usedGpuMemory = sp->bytes[i];
		o->gpuInstanceId = 0xffffffff;
		o->computeInstanceId = 0xffffffff;
		o->usedGpuCcProtectedMemory = 0;	/* no confidential computing */
#endif
	}
}

/*
 * Live processes of this kind (SG_KIND_ANY: every kind, each once) with a
 * context or memory on GPU i, up to cap entries of stride bytes written;
 * the count of all of them returned.
 */
#define SG_KIND_ANY (-1)
static unsigned int list_procs(int i, int kind, void *infos, unsigned int cap, size_t stride,
			       enum sg_layout layout)
{
	unsigned int n = 0;

	simgpu_state_lock();
	for (int p = 0; p < SG_MAX_PROCS; p++) {
		struct sg_proc_shared *sp = &simgpu_shm->procs[p];

		if (!on_gpu(sp, i) || (kind != SG_KIND_ANY && sp->kind != kind))
			continue;
		if (n < cap)
			put_proc((char *)infos + stride * n, layout, sp, i);
		n++;
	}
	simgpu_state_unlock();
	return n;
}

static nvmlReturn_t procs(nvmlDevice_t device, unsigned int *count, void *infos,
			  size_t stride, int v1, int kind)
{
	unsigned int n;
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!count || (*count && !infos))
		return NVML_ERROR_INVALID_ARGUMENT;
	n = list_procs(i, kind, infos, *count, stride, v1 ? SG_LAYOUT_V1 : SG_LAYOUT_V2);
	rc = n > *count ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
	*count = n;
	return rc;
}

#define SG_PROC_LIST(name, type, v1, kind)						\
	SG_API nvmlReturn_t name(nvmlDevice_t device, unsigned int *infoCount, type *infos)	\
	{										\
		return procs(device, infoCount, infos, sizeof(*infos), v1, kind);	\
	}

SG_PROC_LIST(nvmlDeviceGetComputeRunningProcesses, nvmlProcessInfo_v1_t, 1, SG_KIND_COMPUTE)
SG_PROC_LIST(nvmlDeviceGetComputeRunningProcesses_v2, nvmlProcessInfo_v2_t, 0, SG_KIND_COMPUTE)
SG_PROC_LIST(nvmlDeviceGetComputeRunningProcesses_v3, nvmlProcessInfo_t, 0, SG_KIND_COMPUTE)
SG_PROC_LIST(nvmlDeviceGetGraphicsRunningProcesses, nvmlProcessInfo_v1_t, 1, SG_KIND_GRAPHICS)
SG_PROC_LIST(nvmlDeviceGetGraphicsRunningProcesses_v2, nvmlProcessInfo_v2_t, 0, SG_KIND_GRAPHICS)
SG_PROC_LIST(nvmlDeviceGetGraphicsRunningProcesses_v3, nvmlProcessInfo_t, 0, SG_KIND_GRAPHICS)
SG_PROC_LIST(nvmlDeviceGetMPSComputeRunningProcesses, nvmlProcessInfo_v1_t, 1, SG_KIND_MPS)
SG_PROC_LIST(nvmlDeviceGetMPSComputeRunningProcesses_v2, nvmlProcessInfo_v2_t, 0, SG_KIND_MPS)
SG_PROC_LIST(nvmlDeviceGetMPSComputeRunningProcesses_v3, nvmlProcessInfo_t, 0, SG_KIND_MPS)

#ifdef nvmlProcessDetailList_v1
/*
 * nvmlDeviceGetRunningProcessDetailList (NVML 12.4+): the list of the
 * mode's kind (NVML_PROCESS_MODE_ALL: every process on the GPU, once).
 * NVIDIA documents NVML_ERROR_INVALID_ARGUMENT for a NULL plist, an
 * invalid version or mode (not ARGUMENT_VERSION_MISMATCH, unlike
 * nvmlDeviceGetProcessesUtilizationInfo); numProcArrayEntries 0 and
 * procArray NULL ask for the count: INSUFFICIENT_SIZE with it, or SUCCESS
 * when none run. Entries but no array is refused as the older lists do.
 */
SG_API nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device,
							  nvmlProcessDetailList_t *plist)
{
	static const int kinds[NVML_PROCESS_MODE_MAX] = {
		[NVML_PROCESS_MODE_COMPUTE] = SG_KIND_COMPUTE,
		[NVML_PROCESS_MODE_GRAPHICS] = SG_KIND_GRAPHICS,
		[NVML_PROCESS_MODE_MPS] = SG_KIND_MPS,
		[NVML_PROCESS_MODE_ALL] = SG_KIND_ANY,
	};
	unsigned int n;
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!plist || plist->version != nvmlProcessDetailList_v1 ||
	    plist->mode >= NVML_PROCESS_MODE_MAX ||
	    (plist->numProcArrayEntries && !plist->procArray))
		return NVML_ERROR_INVALID_ARGUMENT;
	n = list_procs(i, kinds[plist->mode], plist->procArray, plist->numProcArrayEntries,
		       sizeof(*plist->procArray), SG_LAYOUT_DETAIL);
	rc = n > plist->numProcArrayEntries ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
	plist->numProcArrayEntries = n;
	return rc;
}
#endif

static unsigned long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
}

/*
 * The samples simgpu keeps (Documentation/simgpu.md): one per live process
 * on GPU i that has used its engine, stamped ts, smUtil its share of all
 * the GPU's engine time, none when ts is not after lastSeen. Calls
 * put(out, k, pid, ts, smUtil) for the first cap; returns how many there are.
 */
typedef void sg_put_sample(void *out, unsigned int k, unsigned int pid, unsigned long long ts,
			   unsigned int sm);

static unsigned int samples(int i, unsigned long long lastSeen, void *out, unsigned int cap,
			    sg_put_sample *put)
{
	unsigned long long ts = now_us();
	unsigned int n = 0;

	simgpu_state_lock();
	for (int p = 0; p < SG_MAX_PROCS && ts > lastSeen; p++) {
		struct sg_proc_shared *sp = &simgpu_shm->procs[p];
		uint64_t all = simgpu_shm->gpus[i].busy_ns;
		unsigned int sm;

		if (!on_gpu(sp, i) || !sp->busy_ns[i])
			continue;
		sm = all ? (unsigned int)(sp->busy_ns[i] * 100 / all) : 100;
		if (n < cap)
			put(out, n, (unsigned int)sp->pid, ts, sm > 100 ? 100 : sm);
		n++;
	}
	simgpu_state_unlock();
	return n;
}

static void put_sample(void *out, unsigned int k, unsigned int pid, unsigned long long ts,
		       unsigned int sm)
{
	nvmlProcessUtilizationSample_t *o = (nvmlProcessUtilizationSample_t *)out + k;

	*o = (nvmlProcessUtilizationSample_t){ .pid = pid, .timeStamp = ts, .smUtil = sm };
}

/* NULL utilization: the count needed (simgpu.md, "NVML process views"). */
SG_API nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
						    nvmlProcessUtilizationSample_t *utilization,
						    unsigned int *processSamplesCount,
						    unsigned long long lastSeenTimeStamp)
{
	unsigned int n, cap;
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!processSamplesCount)
		return NVML_ERROR_INVALID_ARGUMENT;
	cap = utilization ? *processSamplesCount : 0;
	n = samples(i, lastSeenTimeStamp, utilization, cap, put_sample);
	*processSamplesCount = n;
	if (!utilization)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	if (!n)
		return NVML_ERROR_NOT_FOUND;
	return n > cap ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}

#ifdef nvmlProcessesUtilizationInfo_v1
static void put_info(void *out, unsigned int k, unsigned int pid, unsigned long long ts,
		     unsigned int sm)
{
	nvmlProcessUtilizationInfo_v1_t *o = (nvmlProcessUtilizationInfo_v1_t *)out + k;

	*o = (nvmlProcessUtilizationInfo_v1_t){ .pid = pid, .timeStamp = ts, .smUtil = sm };
}

/*
 * nvmlDeviceGetProcessesUtilizationInfo (NVML 12.4+), as NVIDIA documents
 * it: NULL info INVALID_ARGUMENT; a version other than v1
 * ARGUMENT_VERSION_MISMATCH; a NULL procUtilArray or one too small
 * INSUFFICIENT_SIZE with the count needed; no samples NOT_FOUND.
 */
SG_API nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device,
							  nvmlProcessesUtilizationInfo_t *info)
{
	unsigned int n, cap;
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!info)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (info->version != nvmlProcessesUtilizationInfo_v1)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	cap = info->procUtilArray ? info->processSamplesCount : 0;
	n = samples(i, info->lastSeenTimeStamp, info->procUtilArray, cap, put_info);
	info->processSamplesCount = n;
	if (!info->procUtilArray)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	if (!n)
		return NVML_ERROR_NOT_FOUND;
	return n > cap ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}
#endif

SG_API nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1Memory)
{
	unsigned long long used = 0;
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!bar1Memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	simgpu_state_lock();
	for (int p = 0; p < SG_MAX_PROCS; p++)
		if (simgpu_shm->procs[p].alive && simgpu_shm->procs[p].ctxs[i])
			used += SG_BAR1_PER_PROC;
	simgpu_state_unlock();
	bar1Memory->bar1Total = SG_BAR1_TOTAL;
	bar1Memory->bar1Used = used > SG_BAR1_TOTAL ? SG_BAR1_TOTAL : used;
	bar1Memory->bar1Free = SG_BAR1_TOTAL - bar1Memory->bar1Used;
	return NVML_SUCCESS;
}
