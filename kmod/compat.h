/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the kernel versions vgpu.ko builds for, and the few interfaces
 * that changed between them. The module is tested on Debian's kernels
 * from 6.1 to 7.3 (Documentation/kernels.md, which lists every interface
 * reviewed and what changed), and builds for the releases between: each
 * helper below switches at the release that changed the interface, so
 * the logic files keep one code path.
 *
 * Interfaces reviewed and kept as they are on every supported kernel
 * (the reasons are in Documentation/kernels.md): struct genl_ops (split
 * ops, 6.2, would not build on 6.1), the NETLINK_URELEASE notifier
 * (per-socket genl private state is 6.8), the ->mmap file operation
 * (->mmap_prepare came by 6.16), system_wq (marked for removal in favour
 * of system_percpu_wq, which 6.1 lacks, but exported to 7.3), misc
 * devices, cgroup and cpumask calls, xarray, kref.
 *
 * The upper end of the range is policy, not a build need, and is kept in
 * one place: tools/kdir (dkms.conf agrees). Here only the lower end.
 */
#ifndef VGPU_COMPAT_H
#define VGPU_COMPAT_H

#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "vgpu.ko needs Linux 6.1 or newer (see Documentation/kernels.md)"
#endif

/*
 * hex_to_bin() and friends: <linux/kernel.h> included <linux/hex.h> (a
 * header of its own after 6.1) until 7.0; from 7.0 a user includes it.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0)
#include <linux/hex.h>
#endif

/*
 * vgpu_hrtimer_setup() - initialise an hrtimer and set its callback.
 * hrtimer_setup() appeared in 6.13 and hrtimer_init() was removed in 6.15,
 * when ->function became private to the hrtimer core (set only through
 * hrtimer_setup() or hrtimer_update_function()).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
static inline void vgpu_hrtimer_setup(struct hrtimer *timer,
				      enum hrtimer_restart (*fn)(struct hrtimer *),
				      clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_setup(timer, fn, clock, mode);
}
#else
static inline void vgpu_hrtimer_setup(struct hrtimer *timer,
				      enum hrtimer_restart (*fn)(struct hrtimer *),
				      clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
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
