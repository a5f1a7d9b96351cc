/* SPDX-License-Identifier: GPL-2.0 */
/* CUDA devices to inventory GPUs, by UUID (devmap.c). */
#ifndef VGPU_DEVMAP_H
#define VGPU_DEVMAP_H

#include "../access/hooks.h"
#include "../access/netlink.h"

#define VGPU_GPU_NONE (-1)	/* not in the inventory: the host default applies */
#define VGPU_GPU_SKIP (-2)	/* unknown (no context, bad device): the driver answers */
int libvgpu_dev_gpu(CUdevice dev);
int libvgpu_cur_gpu(CUcontext *ctx);
int libvgpu_uuid_gpu(const char *uuid);
void libvgpu_devmap_reset(void);
void libvgpu_uuid_str(const CUuuid *u, char out[VGPU_UUID_LEN + 1]);

#endif
