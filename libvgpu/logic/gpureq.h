/* SPDX-License-Identifier: GPL-2.0 */
/* The GPUs a process asks the module to choose for it (VGPU_GPUS). */
#ifndef VGPU_GPUREQ_H
#define VGPU_GPUREQ_H

#include <stdint.h>

/*
 * Parse the value of VGPU_GPUS: "auto:N", N GPUs from 1 to VGPU_GPU_MAX
 * chosen by the module at registration. Returns 0 with *n set, or
 * -EINVAL with *n 0 for anything else (the caller names the problem).
 * An unset or empty variable is no request: *n 0, return 0.
 */
int libvgpu_gpureq_parse(const char *v, uint32_t *n);

#endif
