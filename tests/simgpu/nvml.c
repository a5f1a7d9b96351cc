// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu NVML (libnvidia-ml.so.1): the views nvidia-smi and frameworks
 * size themselves by, read from the same shared state as the driver:
 * devices, memory info, utilisation (process lists, per-process samples
 * and BAR1: nvmlproc.c); and the
 * per-cgroup memory limits of newer drivers (memlimit.c keeps them).
 */
#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
#include <nvml.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "nvmldev.h"
#include "shm.h"

#define SG_API __attribute__((visibility("default")))

struct nvmlDevice_st {
	int index;
};

static struct sg_config cfg;
static struct nvmlDevice_st devs[SG_MAX_GPUS];
static int inited;
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static struct { uint64_t t, busy; } last[SG_MAX_GPUS];

SG_API nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
	char err[512];
	nvmlReturn_t rc = NVML_SUCCESS;

	(void)flags;
	pthread_mutex_lock(&lk);
	if (!inited) {
		if (simgpu_config_load(&cfg, err, sizeof(err))) {
			fprintf(stderr, "simgpu: bad configuration: %s\n", err);
			rc = NVML_ERROR_UNKNOWN;
		} else if (simgpu_state_open()) {
			rc = NVML_ERROR_DRIVER_NOT_LOADED;
		} else {
			simgpu_state_configure(&cfg);
			for (int i = 0; i < SG_MAX_GPUS; i++)
				devs[i].index = i;
		}
	}
	if (!rc)
		inited++;
	pthread_mutex_unlock(&lk);
	return rc;
}

SG_API nvmlReturn_t nvmlInit_v2(void) { return nvmlInitWithFlags(0); }
SG_API nvmlReturn_t nvmlInit(void) { return nvmlInitWithFlags(0); }

SG_API nvmlReturn_t nvmlShutdown(void)
{
	nvmlReturn_t rc = NVML_SUCCESS;

	pthread_mutex_lock(&lk);
	if (!inited)
		rc = NVML_ERROR_UNINITIALIZED;
	else
		inited--;
	pthread_mutex_unlock(&lk);
	return rc;
}

SG_API const char *nvmlErrorString(nvmlReturn_t result)
{
	switch (result) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
	case NVML_ERROR_NOT_FOUND: return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
	case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
	case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Insufficient Resources";
	default: return "Unknown Error";
	}
}

#define CHECK_INIT() do { if (!inited) return NVML_ERROR_UNINITIALIZED; } while (0)

nvmlReturn_t simgpu_nvml_dev(nvmlDevice_t d, int *i)
{
	CHECK_INIT();
	if (!d || d < devs || d >= devs + cfg.ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	*i = d->index;
	return NVML_SUCCESS;
}

nvmlReturn_t simgpu_nvml_ready(void)
{
	CHECK_INIT();
	return NVML_SUCCESS;
}

const struct sg_config *simgpu_nvml_cfg(void)
{
	return &cfg;
}

nvmlDevice_t simgpu_nvml_handle(int i)
{
	return &devs[i];
}

static nvmlReturn_t copy_str(char *dst, unsigned int len, const char *src)
{
	if (!dst)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(src) + 1 > len)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(dst, src, strlen(src) + 1);
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
	CHECK_INIT();
	return copy_str(version, length, "580.65.06");
}

SG_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v)
{
	CHECK_INIT();
	if (!v)
		return NVML_ERROR_INVALID_ARGUMENT;
	*v = 13000;
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	return nvmlSystemGetCudaDriverVersion(v);
}

SG_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
	CHECK_INIT();
	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	*count = (unsigned int)cfg.ngpus;
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlDeviceGetCount(unsigned int *count)
{
	return nvmlDeviceGetCount_v2(count);
}

SG_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	CHECK_INIT();
	if (!device || index >= (unsigned int)cfg.ngpus)
		return NVML_ERROR_INVALID_ARGUMENT;
	*device = &devs[index];
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
	return nvmlDeviceGetHandleByIndex_v2(index, device);
}

SG_API nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	CHECK_INIT();
	if (!uuid || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < cfg.ngpus; i++) {
		if (!strcasecmp(uuid, cfg.gpu[i].uuid)) {
			*device = &devs[i];
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

/* The board serial number: simgpu's are 1650923000000 + the GPU's index. */
static void serial_of(int i, char *out, size_t len)
{
	snprintf(out, len, "%llu", 1650923000000ULL + (unsigned long long)i);
}

SG_API nvmlReturn_t nvmlDeviceGetHandleBySerial(const char *serial, nvmlDevice_t *device)
{
	char s[NVML_DEVICE_SERIAL_BUFFER_SIZE];

	CHECK_INIT();
	if (!serial || !device)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < cfg.ngpus; i++) {
		serial_of(i, s, sizeof(s));
		if (!strcmp(serial, s)) {
			*device = &devs[i];
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

SG_API nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
	char s[NVML_DEVICE_SERIAL_BUFFER_SIZE];
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	serial_of(i, s, sizeof(s));
	return copy_str(serial, length, s);
}

SG_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
	unsigned int d, b, s, f;

	CHECK_INIT();
	if (!pciBusId || !device || sscanf(pciBusId, "%x:%x:%x.%x", &d, &b, &s, &f) < 3)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < cfg.ngpus; i++) {
		const struct sg_gpu_config *g = &cfg.gpu[i];

		if (g->domain == d && g->bus == b && g->device == s) {
			*device = &devs[i];
			return NVML_SUCCESS;
		}
	}
	return NVML_ERROR_NOT_FOUND;
}

SG_API nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
	return nvmlDeviceGetHandleByPciBusId_v2(pciBusId, device);
}

SG_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	return rc ? rc : copy_str(name, length, cfg.name);
}

SG_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	return rc ? rc : copy_str(uuid, length, cfg.gpu[i].uuid);
}

SG_API nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!index)
		return NVML_ERROR_INVALID_ARGUMENT;
	*index = (unsigned int)i;
	return NVML_SUCCESS;
}

/* /dev/nvidiaN: the GPU's own index (not through nvmlDeviceGetIndex,
 * which a preloaded library may renumber). */
SG_API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!minor)
		return NVML_ERROR_INVALID_ARGUMENT;
	*minor = (unsigned int)i;
	return NVML_SUCCESS;
}

void simgpu_nvml_pci(int i, nvmlPciInfo_t *pci)
{
	const struct sg_gpu_config *g = &cfg.gpu[i];

	memset(pci, 0, sizeof(*pci));
	snprintf(pci->busIdLegacy, sizeof(pci->busIdLegacy), "%04X:%02X:%02X.%X",
		 g->domain, g->bus, g->device, g->function);
	snprintf(pci->busId, sizeof(pci->busId), "%08X:%02X:%02X.%X",
		 g->domain, g->bus, g->device, g->function);
	pci->domain = g->domain;
	pci->bus = g->bus;
	pci->device = g->device;
	pci->pciDeviceId = 0x233010de;
	pci->pciSubSystemId = 0x16c110de;
}

SG_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!pci)
		return NVML_ERROR_INVALID_ARGUMENT;
	simgpu_nvml_pci(i, pci);
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	return nvmlDeviceGetPciInfo_v3(device, pci);
}

SG_API nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
	return nvmlDeviceGetPciInfo_v3(device, pci);
}

static void mem(int i, unsigned long long *total, unsigned long long *used)
{
	simgpu_state_lock();
	simgpu_export_scan(1);	/* exported memory whose descriptors closed */
	*total = simgpu_shm->gpus[i].total;
	*used = simgpu_shm->gpus[i].used;
	simgpu_state_unlock();
	if (*used > *total)
		*used = *total;
}

SG_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	mem(i, &memory->total, &memory->used);
	memory->free = memory->total - memory->used;
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!memory)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (memory->version != nvmlMemory_v2)
		return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
	mem(i, &memory->total, &memory->used);
	memory->reserved = 0;
	memory->free = memory->total - memory->used;
	return NVML_SUCCESS;
}

/* Busy share of the time since this process last asked (or right now). */
SG_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *u)
{
	uint64_t now, busy;
	int i, running;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!u)
		return NVML_ERROR_INVALID_ARGUMENT;
	simgpu_state_lock();
	now = simgpu_now_ns();
	busy = simgpu_shm->gpus[i].busy_ns;
	running = simgpu_shm->gpus[i].owner_pid != 0;
	if (running)
		busy += now - simgpu_shm->gpus[i].owner_since;
	simgpu_state_unlock();
	pthread_mutex_lock(&lk);
	if (last[i].t && now > last[i].t && busy >= last[i].busy) {
		uint64_t pct = (busy - last[i].busy) * 100 / (now - last[i].t);

		u->gpu = (unsigned int)(pct > 100 ? 100 : pct);
	} else {
		u->gpu = running ? 100 : 0;
	}
	last[i].t = now;
	last[i].busy = busy;
	pthread_mutex_unlock(&lk);
	u->memory = 0;
	return NVML_SUCCESS;
}

/* Newer NVML (not in CUDA 11.8's nvml.h): declared here. */
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node);

SG_API nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!node)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (cfg.gpu[i].numa < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*node = (unsigned int)cfg.gpu[i].numa;
	return NVML_SUCCESS;
}

/*
 * Per-cgroup memory limits (NVML API Reference: nvmlDeviceSetMemoryLimits_v1,
 * nvmlDeviceGetMemoryLimits_v1). With memory_limits = off, as on a driver
 * that predates them: NVML_ERROR_NOT_SUPPORTED.
 */
static nvmlReturn_t limit_args(nvmlDevice_t device, const char *ns, int *i, char *path)
{
	nvmlReturn_t rc = simgpu_nvml_dev(device, i);

	if (rc)
		return rc;
	if (!cfg.memory_limits)
		return NVML_ERROR_NOT_SUPPORTED;
	if (!ns)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (simgpu_limit_path(ns, path, SG_CGROUP_LEN))
		return NVML_ERROR_NOT_FOUND;
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlDeviceSetMemoryLimits_v1(nvmlDevice_t device,
						 nvmlSetMemoryLimits_v1_t *limits)
{
	char path[SG_CGROUP_LEN];
	nvmlReturn_t rc;
	int i, full;

	if (!limits) {
		rc = simgpu_nvml_dev(device, &i);
		return rc ? rc : NVML_ERROR_INVALID_ARGUMENT;
	}
	rc = limit_args(device, limits->nameSpace, &i, path);
	if (rc)
		return rc;
	if (limits->softLimit > limits->hardLimit)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (geteuid())
		return NVML_ERROR_NO_PERMISSION;
	simgpu_state_lock();
	full = simgpu_limit_set(path, i, limits->softLimit, limits->hardLimit);
	simgpu_state_unlock();
	return full ? NVML_ERROR_INSUFFICIENT_RESOURCES : NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlDeviceGetMemoryLimits_v1(nvmlDevice_t device,
						 nvmlGetMemoryLimits_v1_t *limits)
{
	char path[SG_CGROUP_LEN];
	uint64_t soft, hard, used;
	nvmlReturn_t rc;
	int i;

	if (!limits) {
		rc = simgpu_nvml_dev(device, &i);
		return rc ? rc : NVML_ERROR_INVALID_ARGUMENT;
	}
	rc = limit_args(device, limits->nameSpace, &i, path);
	if (rc)
		return rc;
	simgpu_state_lock();
	simgpu_limit_get(path, i, &soft, &hard);
	used = simgpu_limit_used(path, i);
	simgpu_state_unlock();
	limits->softLimit = soft;
	limits->hardLimit = hard;
	limits->currentUsed = used;
	return NVML_SUCCESS;
}
