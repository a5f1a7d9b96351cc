/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the kernel versions vgpu.ko builds for, and the few interfaces
 * that changed between them. The module is tested on Debian 12's two
 * kernels, 6.1 and 6.12 (Documentation/kernels.md), and builds for the
 * releases between: each helper below switches at the release that
 * changed the interface, so the logic files keep one code path.
 *
 * Interfaces reviewed and kept as they are on every supported kernel
 * (the reasons are in Documentation/kernels.md): struct genl_ops (split
 * ops, 6.2, would not build on 6.1), the NETLINK_URELEASE notifier
 * (per-socket genl private state is 6.8), hrtimer_init() (hrtimer_setup()
 * is 6.13), misc devices, cgroup and cpumask calls, xarray, kref.
 */
#ifndef VGPU_COMPAT_H
#define VGPU_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) || \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#error "vgpu.ko supports Linux 6.1 to 6.12 (see Documentation/kernels.md)"
#endif

/*
 * vgpu_vma_set_flags() / vgpu_vma_clear_flags() - change a VMA's flags in
 * ->mmap. 6.3 made vma->vm_flags read-only and added vm_flags_set() and
 * vm_flags_clear(), which also assert the mmap lock is held.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static inline void vgpu_vma_set_flags(struct vm_area_struct *vma, vm_flags_t flags)
{
	vm_flags_set(vma, flags);
}

static inline void vgpu_vma_clear_flags(struct vm_area_struct *vma, vm_flags_t flags)
{
	vm_flags_clear(vma, flags);
}
#else
static inline void vgpu_vma_set_flags(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vgpu_vma_clear_flags(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

#endif /* VGPU_COMPAT_H */
