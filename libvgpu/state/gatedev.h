/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compute gate (gate.h) against the driver and /dev/vgpu
 * (gatedev.c): the process's gate instance (state.h: libvgpu_gate), its
 * drain, wait and GPU look-up, turned on at registration.
 */
#ifndef VGPU_GATEDEV_H
#define VGPU_GATEDEV_H

#include "../../uapi/vgpu_dev.h"

/* Registration: turn the gate on (gate page mapped) or reset it (fork,
 * a failed registration). */
void libvgpu_gate_start(struct vgpu_dev_page *page, const struct vgpu_dev_gate *gate);
void libvgpu_gate_reset(void);

#endif
