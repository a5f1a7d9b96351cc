// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu NVML health: the row remapper's state, from the configuration
 * (gpuN.row_remap_failure). NVML API Reference, nvmlDeviceGetRemappedRows:
 * the rows remapped for correctable and uncorrectable errors, whether
 * remappings are pending (a reset is needed to apply them) and whether a
 * remapping ever failed. simgpu remaps nothing: the counts and pending are
 * 0; failureOccurred is the configured value.
 */
#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
#include <nvml.h>

#include "nvmldev.h"
#include "shm.h"

#define SG_API __attribute__((visibility("default")))

SG_API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows,
					      unsigned int *uncRows, unsigned int *isPending,
					      unsigned int *failureOccurred)
{
	int i;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &i);

	if (rc)
		return rc;
	if (!corrRows || !uncRows || !isPending || !failureOccurred)
		return NVML_ERROR_INVALID_ARGUMENT;
	*corrRows = 0;
	*uncRows = 0;
	*isPending = 0;
	*failureOccurred = (unsigned int)simgpu_nvml_cfg()->gpu[i].row_remap_failure;
	return NVML_SUCCESS;
}
