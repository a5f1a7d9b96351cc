/* SPDX-License-Identifier: GPL-2.0 */
/* simgpu NVML: what nvml.c shares with nvmlproc.c. */
#ifndef SIMGPU_NVMLDEV_H
#define SIMGPU_NVMLDEV_H

#include <nvml.h>

/* A valid device handle's index (or NVML's error for the call). */
nvmlReturn_t simgpu_nvml_dev(nvmlDevice_t d, int *i);

#endif
