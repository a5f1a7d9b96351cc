// SPDX-License-Identifier: GPL-2.0
/*
 * NVML's enumeration under the tenant's device view (devview.c). NVML does
 * not read CUDA_VISIBLE_DEVICES, so its entry points that count, find or
 * number devices are mapped here: the count is the view's; index v is the
 * view's device v (found by its UUID); a UUID, serial or PCI bus id of a
 * foreign GPU is NVML_ERROR_NOT_FOUND, as for a GPU absent from the host
 * (NVML API Reference, nvmlDeviceGetHandleByUUID, ...BySerial,
 * ...ByPciBusId_v2); nvmlDeviceGetIndex answers the view's index; the
 * topology queries that return device sets keep the view's devices. Other
 * calls take a handle, which the tenant can only have from these. Without
 * a view every call passes through.
 */
#include <string.h>

#include "../policy/devview.h"
#include "../access/hooks.h"
#include "../access/nest.h"

/* The view's device of a real handle, or -1 (foreign or unknown). */
static int handle_pos(nvmlDevice_t d)
{
	vgpu_pfn_nvmlDeviceGetUUID uuid = REAL(nvmlDeviceGetUUID);
	char s[NVML_DEVICE_UUID_V2_BUFFER_SIZE];

	if (!uuid || uuid(d, s, sizeof(s)) != NVML_SUCCESS)
		return -1;
	return libvgpu_devview_find(s);
}

/* The real answer, or NOT_FOUND when it is a foreign GPU's handle. */
static nvmlReturn_t keep_own(nvmlReturn_t rc, nvmlDevice_t *device)
{
	if (rc == NVML_SUCCESS && vgpu_devview_on() && handle_pos(*device) < 0)
		return NVML_ERROR_NOT_FOUND;
	return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
	VGPU_PASS_NESTED(nvmlDeviceGetCount_v2, (deviceCount));
	vgpu_pfn_nvmlDeviceGetCount_v2 real = REAL(nvmlDeviceGetCount_v2);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(deviceCount);
	if (rc == NVML_SUCCESS && vgpu_devview_on())
		*deviceCount = (unsigned int)libvgpu_devview_count();
	return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount)
{
	VGPU_PASS_NESTED(nvmlDeviceGetCount, (deviceCount));
	vgpu_pfn_nvmlDeviceGetCount real = REAL(nvmlDeviceGetCount);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(deviceCount);
	if (rc == NVML_SUCCESS && vgpu_devview_on())
		*deviceCount = (unsigned int)libvgpu_devview_count();
	return rc;
}

/* Index v of the view: its UUID's handle; past the end, NVML's answer for
 * an index beyond the device count. */
static nvmlReturn_t by_view_index(unsigned int v, nvmlDevice_t *device)
{
	vgpu_pfn_nvmlDeviceGetHandleByUUID byuuid = REAL(nvmlDeviceGetHandleByUUID);

	if (!byuuid)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	if (!device || v >= (unsigned int)libvgpu_devview_count())
		return NVML_ERROR_INVALID_ARGUMENT;
	return byuuid(libvgpu_devview_uuid((int)v), device);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
	VGPU_PASS_NESTED(nvmlDeviceGetHandleByIndex_v2, (index, device));
	vgpu_pfn_nvmlDeviceGetHandleByIndex_v2 real = REAL(nvmlDeviceGetHandleByIndex_v2);

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	return vgpu_devview_on() ? by_view_index(index, device) : real(index, device);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
	VGPU_PASS_NESTED(nvmlDeviceGetHandleByIndex, (index, device));
	vgpu_pfn_nvmlDeviceGetHandleByIndex real = REAL(nvmlDeviceGetHandleByIndex);

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	return vgpu_devview_on() ? by_view_index(index, device) : real(index, device);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
	VGPU_PASS_NESTED(nvmlDeviceGetHandleByUUID, (uuid, device));
	vgpu_pfn_nvmlDeviceGetHandleByUUID real = REAL(nvmlDeviceGetHandleByUUID);

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	if (uuid && device && vgpu_devview_on() && libvgpu_devview_find(uuid) < 0)
		return NVML_ERROR_NOT_FOUND;
	return real(uuid, device);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetHandleBySerial(const char *serial, nvmlDevice_t *device)
{
	VGPU_PASS_NESTED(nvmlDeviceGetHandleBySerial, (serial, device));
	vgpu_pfn_nvmlDeviceGetHandleBySerial real = REAL(nvmlDeviceGetHandleBySerial);

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	return keep_own(real(serial, device), device);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId,
							  nvmlDevice_t *device)
{
	VGPU_PASS_NESTED(nvmlDeviceGetHandleByPciBusId_v2, (pciBusId, device));
	vgpu_pfn_nvmlDeviceGetHandleByPciBusId_v2 real = REAL(nvmlDeviceGetHandleByPciBusId_v2);

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	return keep_own(real(pciBusId, device), device);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
	VGPU_PASS_NESTED(nvmlDeviceGetHandleByPciBusId, (pciBusId, device));
	vgpu_pfn_nvmlDeviceGetHandleByPciBusId real = REAL(nvmlDeviceGetHandleByPciBusId);

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	return keep_own(real(pciBusId, device), device);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
	VGPU_PASS_NESTED(nvmlDeviceGetIndex, (device, index));
	vgpu_pfn_nvmlDeviceGetIndex real = REAL(nvmlDeviceGetIndex);
	nvmlReturn_t rc;
	int v;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, index);
	if (rc == NVML_SUCCESS && vgpu_devview_on()) {
		v = handle_pos(device);
		if (v < 0)
			return NVML_ERROR_INVALID_ARGUMENT;
		*index = (unsigned int)v;
	}
	return rc;
}

/*
 * A device set (count protocol of NVML's topology queries: *count 0 asks
 * for the number, else up to *count handles are written and *count is the
 * number written), with only the view's devices. The real call is asked
 * for every device into a buffer of our own.
 */
#define VGPU_NVML_SET_MAX 64

static nvmlReturn_t own_set(nvmlReturn_t rc, unsigned int n, nvmlDevice_t *all,
			    unsigned int *count, nvmlDevice_t *deviceArray)
{
	unsigned int kept = 0;

	if (rc != NVML_SUCCESS)
		return rc;
	for (unsigned int i = 0; i < n; i++)
		if (handle_pos(all[i]) >= 0)
			all[kept++] = all[i];
	if (*count) {
		if (kept > *count)
			kept = *count;
		memcpy(deviceArray, all, kept * sizeof(*all));
	}
	*count = kept;
	return NVML_SUCCESS;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device,
							  nvmlGpuTopologyLevel_t level,
							  unsigned int *count,
							  nvmlDevice_t *deviceArray)
{
	VGPU_PASS_NESTED(nvmlDeviceGetTopologyNearestGpus, (device, level, count, deviceArray));
	vgpu_pfn_nvmlDeviceGetTopologyNearestGpus real = REAL(nvmlDeviceGetTopologyNearestGpus);
	nvmlDevice_t all[VGPU_NVML_SET_MAX];
	unsigned int n = VGPU_NVML_SET_MAX;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	if (!count || (*count && !deviceArray) || !vgpu_devview_on())
		return real(device, level, count, deviceArray);
	return own_set(real(device, level, &n, all), n, all, count, deviceArray);
}

VGPU_EXPORT nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpuNumber, unsigned int *count,
						     nvmlDevice_t *deviceArray)
{
	VGPU_PASS_NESTED(nvmlSystemGetTopologyGpuSet, (cpuNumber, count, deviceArray));
	vgpu_pfn_nvmlSystemGetTopologyGpuSet real = REAL(nvmlSystemGetTopologyGpuSet);
	nvmlDevice_t all[VGPU_NVML_SET_MAX];
	unsigned int n = VGPU_NVML_SET_MAX;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	if (!count || (*count && !deviceArray) || !vgpu_devview_on())
		return real(cpuNumber, count, deviceArray);
	return own_set(real(cpuNumber, &n, all), n, all, count, deviceArray);
}
