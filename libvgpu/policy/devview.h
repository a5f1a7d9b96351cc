/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tenant's device view (devview.c): with a `gpus` quota, the GPUs it
 * may use, in inventory order, are its devices 0..n-1 in CUDA and NVML.
 */
#ifndef VGPU_DEVVIEW_H
#define VGPU_DEVVIEW_H

#include "../access/netlink.h"
#include "register.h"

/* From a proc-register reply (register.c), own set when the process asked
 * for GPUs of its own (VGPU_GPUS); a fork forgets it. */
void libvgpu_devview_build(const struct vgpu_reg *reg, int own);
/* Did the last registration make a view (in a tenant with a gpus quota)? */
int libvgpu_devview_built(void);
/* Is the view on (registered, in a tenant with a gpus quota)? Inline, so
 * that the registration on first use is its callers' call (the NVML
 * wrappers), not devview.c's: register.c builds the view. */
static inline int vgpu_devview_on(void)
{
	return vgpu_active() && libvgpu_devview_built();
}
/* Its device count, and device v's UUID (v below the count). */
int libvgpu_devview_count(void);
const char *libvgpu_devview_uuid(int v);
/* The view's device of a UUID (any case), or -1 for a foreign GPU. */
int libvgpu_devview_find(const char *uuid);
/* Before the real cuInit: CUDA_VISIBLE_DEVICES for the driver, the view
 * (narrowed by the tenant's own CUDA_VISIBLE_DEVICES) as physical UUIDs. */
void libvgpu_devview_cuda_env(void);

#endif
