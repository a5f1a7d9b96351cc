/* SPDX-License-Identifier: GPL-2.0 */
/* Registration with vgpu.ko (register.c): libvgpu_proc (state.h). */
#ifndef VGPU_REGISTER_H
#define VGPU_REGISTER_H

#include "../access/netlink.h"
#include "../state/state.h"

/* Register on first use; returns enum vgpu_state. Cheap once decided. */
int libvgpu_ensure(void);
static inline int vgpu_active(void)
{
	return libvgpu_ensure() == VGPU_ST_ACTIVE;
}
/* The registration's entry for inventory GPU gpu, or NULL. */
const struct vgpu_reg_gpu *libvgpu_reg_gpu(int gpu);
/* CUDA_VISIBLE_DEVICES set to the device view, once per registration
 * (cuInit, init.c, before the driver reads it). */
void libvgpu_register_cuda_env(void);
/* A forked child forgets the parent's registration (init.c). */
void libvgpu_register_reset(void);

#endif
