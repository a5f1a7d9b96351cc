/* SPDX-License-Identifier: GPL-2.0 */
/* simgpu NVML: what nvml.c shares with nvmlproc.c. */
#ifndef SIMGPU_NVMLDEV_H
#define SIMGPU_NVMLDEV_H

#include <nvml.h>

struct sg_config;

/* A valid device handle's index (or NVML's error for the call). */
nvmlReturn_t simgpu_nvml_dev(nvmlDevice_t d, int *i);
/* NVML_SUCCESS once nvmlInit succeeded, else NVML_ERROR_UNINITIALIZED. */
nvmlReturn_t simgpu_nvml_ready(void);
/* NVML's configuration (valid once nvmlInit succeeded). */
const struct sg_config *simgpu_nvml_cfg(void);
nvmlDevice_t simgpu_nvml_handle(int i);
/* GPU i's PCI information, as nvmlDeviceGetPciInfo_v3 gives it. */
void simgpu_nvml_pci(int i, nvmlPciInfo_t *pci);

#endif
