// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu NVML's per-process views (Documentation/simgpu.md, "NVML process
 * views"): the compute, graphics and MPS process lists, per-process
 * utilisation samples, and BAR1 memory. A process's list is its kind
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

/* Live processes of this kind with a context or memory on the GPU. */
static nvmlReturn_t procs(nvmlDevice_t device, unsigned int *count, void *infos,
			  size_t stride, int v1, int kind)
{
	unsigned int n = 0, cap;
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!count || (*count && !infos))
		return NVML_ERROR_INVALID_ARGUMENT;
	cap = *count;
	simgpu_state_lock();
	for (int p = 0; p < SG_MAX_PROCS; p++) {
		struct sg_proc_shared *sp = &simgpu_shm->procs[p];

		if (!on_gpu(sp, i) || sp->kind != kind)
			continue;
		if (n < cap) {
			char *out = (char *)infos + stride * n;

			if (v1) {
				nvmlProcessInfo_v1_t *o = (void *)out;

				o->pid = (unsigned int)sp->pid;
				o->usedGpuMemory = sp->bytes[i];
			} else {
				nvmlProcessInfo_t *o = (void *)out;

				o->pid = (unsigned int)sp->pid;
				o->usedGpuMemory = sp->bytes[i];
				o->gpuInstanceId = 0xffffffff;
				o->computeInstanceId = 0xffffffff;
			}
		}
		n++;
	}
	simgpu_state_unlock();
	*count = n;
	return n > cap ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
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

static unsigned long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
}

/*
 * One sample per live process on the GPU that has used its engine; the
 * sample buffer simgpu keeps is the process's whole life, so smUtil is its
 * share of all the GPU's engine time, stamped now. NULL utilization: the
 * count needed.
 */
SG_API nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device,
						    nvmlProcessUtilizationSample_t *utilization,
						    unsigned int *processSamplesCount,
						    unsigned long long lastSeenTimeStamp)
{
	unsigned long long ts = now_us();
	unsigned int n = 0, cap;
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!processSamplesCount)
		return NVML_ERROR_INVALID_ARGUMENT;
	cap = utilization ? *processSamplesCount : 0;
	simgpu_state_lock();
	for (int p = 0; p < SG_MAX_PROCS && ts > lastSeenTimeStamp; p++) {
		struct sg_proc_shared *sp = &simgpu_shm->procs[p];
		uint64_t all = simgpu_shm->gpus[i].busy_ns;

		if (!on_gpu(sp, i) || !sp->busy_ns[i])
			continue;
		if (n < cap) {
			nvmlProcessUtilizationSample_t *o = &utilization[n];

			o->pid = (unsigned int)sp->pid;
			o->timeStamp = ts;
			o->smUtil = all ? (unsigned int)(sp->busy_ns[i] * 100 / all) : 100;
			o->smUtil = o->smUtil > 100 ? 100 : o->smUtil;
			o->memUtil = o->encUtil = o->decUtil = 0;
		}
		n++;
	}
	simgpu_state_unlock();
	*processSamplesCount = n;
	if (!utilization)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	if (!n)
		return NVML_ERROR_NOT_FOUND;
	return n > cap ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}

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
