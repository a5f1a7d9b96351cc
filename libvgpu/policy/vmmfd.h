/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VMM allocations whose last handle and mapping went while a descriptor
 * the process exported (cuMemExportToShareableHandle) is still open in it:
 * the driver keeps the memory for that descriptor, so the charge stays
 * until the descriptor is seen closed (vmm.c).
 */
#ifndef VGPU_VMMFD_H
#define VGPU_VMMFD_H

#include <stdint.h>

#include "../logic/vmmref.h"

/* Whether a descriptor of the file (st_dev, st_ino) is open in this
 * process (a walk of /proc/self/fd). */
int libvgpu_vfd_open(uint64_t fdev, uint64_t ino);
/* Keep r's charge for its exported descriptor: 0, or -1 (no memory). */
int libvgpu_vfd_keep(const struct vgpu_vref *r);
/* Take back the kept record of the file (an import of the process's own
 * descriptor is a handle again): 1 with it in *out, or 0. */
int libvgpu_vfd_take(uint64_t fdev, uint64_t ino, struct vgpu_vref *out);
/* Give back the charges whose descriptors are all closed: one walk of
 * /proc/self/fd when something is kept, nothing otherwise. */
void libvgpu_vfd_check(void);
/* Forget everything (a forked child). */
void libvgpu_vfd_reset(void);

#endif
