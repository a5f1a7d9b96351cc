/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the GPU inventory, VGPU_GPU_MAX slots indexed by GPU index.
 * Everything here is called with vgpu_lock held.
 */
#ifndef _VGPU_GPU_H
#define _VGPU_GPU_H

#include <linux/types.h>

#include "parse.h"

/**
 * struct vgpu_gpu - one GPU of the inventory
 * @index: slot, 0 to VGPU_GPU_MAX - 1
 * @numa: NUMA node the GPU is attached to, NUMA_NO_NODE (-1) when none
 * @vram: VRAM capacity in bytes
 * @uuid: NVML UUID as given, "" when unset (compared case-insensitively)
 * @pci: PCI bus id in sysfs form, "" when unset
 * @nvlink: mask of the GPU indexes this one has an NVLink to, symmetric
 *	across the inventory (gpu_choice.c)
 * @state: enum vgpu_gpu_state; no new tenant is placed on a GPU that is
 *	not VGPU_GPU_STATE_HEALTHY
 * @reason: why the GPU is not healthy, "" when not given
 */
struct vgpu_gpu {
	u32 index;
	s32 numa;
	u64 vram;
	char uuid[VGPU_UUID_LEN + 1];
	char pci[VGPU_PCI_BUF_LEN];
	u64 nvlink;
	u32 state;
	char reason[VGPU_REASON_LEN_MAX + 1];
};

struct vgpu_gpu *vgpu_gpu_get(u32 index);
u64 vgpu_gpu_present(void);
struct vgpu_gpu *vgpu_gpu_find_uuid(const char *uuid);
struct vgpu_gpu *vgpu_gpu_find_pci(const char *pci);
void vgpu_gpu_insert(struct vgpu_gpu *gpu);
void vgpu_gpu_remove(struct vgpu_gpu *gpu);
void vgpu_gpu_destroy_all(void);

/**
 * vgpu_for_each_gpu() - iterate over the GPUs present, by index
 * @gpu: struct vgpu_gpu * cursor
 * @i: u32 index cursor
 */
#define vgpu_for_each_gpu(gpu, i)					\
	for ((i) = 0; (i) < VGPU_GPU_MAX; (i)++)			\
		if (!((gpu) = vgpu_gpu_get(i))) {} else

#endif /* _VGPU_GPU_H */
