// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the GPU inventory.
 *
 * A fixed array of VGPU_GPU_MAX pointers, one per GPU index, and a bit mask
 * of the slots in use. All of it is protected by vgpu_lock.
 */
#include <linux/bits.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "gpu.h"
#include "vgpu.h"

static struct vgpu_gpu *vgpu_gpus[VGPU_GPU_MAX];
static u64 vgpu_gpu_mask;

/**
 * vgpu_gpu_get() - look a GPU up by index
 * @index: GPU index; any value is accepted
 *
 * Context: vgpu_lock held.
 * Return: the GPU, or NULL when the slot is empty or out of range.
 */
struct vgpu_gpu *vgpu_gpu_get(u32 index)
{
	lockdep_assert_held(&vgpu_lock);
	if (index >= VGPU_GPU_MAX)
		return NULL;
	return vgpu_gpus[index];
}

/**
 * vgpu_gpu_present() - indexes of the GPUs in the inventory
 *
 * Context: vgpu_lock held.
 * Return: a mask with bit i set when GPU i exists.
 */
u64 vgpu_gpu_present(void)
{
	lockdep_assert_held(&vgpu_lock);
	return vgpu_gpu_mask;
}

/**
 * vgpu_gpu_find_uuid() - look a GPU up by UUID, ignoring case
 * @uuid: NUL-terminated UUID
 *
 * Context: vgpu_lock held.
 * Return: the GPU, or NULL.
 */
struct vgpu_gpu *vgpu_gpu_find_uuid(const char *uuid)
{
	struct vgpu_gpu *gpu;
	u32 i;

	vgpu_for_each_gpu(gpu, i) {
		if (gpu->uuid[0] && !strcasecmp(gpu->uuid, uuid))
			return gpu;
	}
	return NULL;
}

/**
 * vgpu_gpu_find_pci() - look a GPU up by normalised PCI bus id
 * @pci: bus id as written by vgpu_pci_normalise()
 *
 * Context: vgpu_lock held.
 * Return: the GPU, or NULL.
 */
struct vgpu_gpu *vgpu_gpu_find_pci(const char *pci)
{
	struct vgpu_gpu *gpu;
	u32 i;

	vgpu_for_each_gpu(gpu, i) {
		if (gpu->pci[0] && !strcmp(gpu->pci, pci))
			return gpu;
	}
	return NULL;
}

/**
 * vgpu_gpu_insert() - put a GPU in its slot
 * @gpu: kmalloc'ed GPU whose slot (@gpu->index) is free; the inventory
 *	owns it from now on
 *
 * Context: vgpu_lock held.
 */
void vgpu_gpu_insert(struct vgpu_gpu *gpu)
{
	lockdep_assert_held(&vgpu_lock);
	if (WARN_ON(gpu->index >= VGPU_GPU_MAX || vgpu_gpus[gpu->index]))
		return;
	vgpu_gpus[gpu->index] = gpu;
	vgpu_gpu_mask |= BIT_ULL(gpu->index);
}

/**
 * vgpu_gpu_remove() - take a GPU out of the inventory and free it
 * @gpu: a GPU of the inventory
 *
 * The other GPUs' NVLink masks lose it.
 *
 * Context: vgpu_lock held.
 */
void vgpu_gpu_remove(struct vgpu_gpu *gpu)
{
	struct vgpu_gpu *peer;
	u32 i;

	lockdep_assert_held(&vgpu_lock);
	vgpu_gpus[gpu->index] = NULL;
	vgpu_gpu_mask &= ~BIT_ULL(gpu->index);
	/* Its peers keep no NVLink to a GPU that is gone. */
	vgpu_for_each_gpu(peer, i)
		peer->nvlink &= ~BIT_ULL(gpu->index);
	kfree(gpu);
}

/**
 * vgpu_gpu_destroy_all() - empty the inventory
 *
 * Context: vgpu_lock held, module exit (the family is unregistered).
 */
void vgpu_gpu_destroy_all(void)
{
	struct vgpu_gpu *gpu;
	u32 i;

	vgpu_for_each_gpu(gpu, i)
		vgpu_gpu_remove(gpu);
}
