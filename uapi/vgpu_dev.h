/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/*
 * /dev/vgpu: the data path between libvgpu and vgpu.ko.
 *
 * Generic netlink is the control plane (uapi/vgpu.h, generated from the
 * YAML spec); this character device carries what must be fast. A process
 * opens /dev/vgpu, maps its one page (struct vgpu_dev_page) and registers
 * over netlink with the file descriptor (VGPU_A_PROC_FD). From then on:
 *
 * - The module charges the process's tenant for VRAM before the process
 *   allocates: each GPU slot of the page holds a budget, @avail, of bytes
 *   already charged to the tenant that the process may spend without a
 *   system call (compare-and-swap @avail down by the size, allocate, then
 *   add the size to @used). When @avail is short, VGPU_IOC_CHARGE asks the
 *   module for more: it charges the request plus a new budget sized by how
 *   far the tenant is from its limit (none near the limit, where charging
 *   becomes exact), or refuses with ENOMEM. A free moves the size back from
 *   @used to @avail; VGPU_IOC_RELEASE returns surplus budget.
 * - The module may take unspent budget back at any time (an atomic
 *   exchange of @avail with 0), when the tenant or the GPU runs short.
 * - @used is what the process holds: the module reads it for exact usage
 *   reports. The bytes charged to a process are kept in the module, so a
 *   process that scribbles on its page can only misreport itself, never
 *   obtain more than its tenant's limit through the module.
 *
 * The page's GPU slots are indexed by the inventory's GPU index.
 */
#ifndef _UAPI_LINUX_VGPU_DEV_H
#define _UAPI_LINUX_VGPU_DEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define VGPU_DEV_PATH		"/dev/vgpu"
#define VGPU_DEV_PAGE_VERSION	1
#define VGPU_DEV_GPUS		64	/* equals VGPU_GPU_MAX */

/**
 * struct vgpu_dev_gpu - one GPU's slot of the shared page
 * @avail: budget: bytes charged to the tenant that the process may still
 *	allocate; decreased by the process (compare-and-swap, never below
 *	0), increased by VGPU_IOC_CHARGE and frees, exchanged with 0 by the
 *	module to take the budget back
 * @used: bytes the process holds on the GPU
 * @rsvd: zero
 */
struct vgpu_dev_gpu {
	__s64 avail;
	__u64 used;
	__u64 rsvd[2];
};

/**
 * struct vgpu_dev_page - the page a process maps from /dev/vgpu
 * @version: VGPU_DEV_PAGE_VERSION
 * @registered: set by the module once the process is registered; cleared
 *	when its registration ends (all charges are dropped then)
 * @rsvd: zero
 * @gpu: one slot per GPU index
 */
struct vgpu_dev_page {
	__u32 version;
	__u32 registered;
	__u64 rsvd[7];
	struct vgpu_dev_gpu gpu[VGPU_DEV_GPUS];
};

/**
 * struct vgpu_dev_charge - argument of VGPU_IOC_CHARGE and VGPU_IOC_RELEASE
 * @gpu: GPU index
 * @flags: zero
 * @bytes: CHARGE: bytes the process needs now (the module adds at least
 *	this to @avail, or fails with ENOMEM and adds nothing);
 *	RELEASE: bytes of budget to give back (at most the slot's @avail)
 * @keep: out: the most budget the module wants the process to keep idle;
 *	the process releases the surplus of @avail over twice this
 */
struct vgpu_dev_charge {
	__u32 gpu;
	__u32 flags;
	__u64 bytes;
	__u64 keep;
};

/**
 * struct vgpu_dev_meminfo - argument of VGPU_IOC_MEMINFO: the tenant's view
 * @gpu: in: GPU index
 * @flags: zero
 * @capacity: the GPU's VRAM
 * @limit: the tenant's vram-max on the GPU, or ~0 when unlimited
 * @tenant_used: bytes all the tenant's processes hold on the GPU (for a
 *	process outside every tenant: its own)
 * @room: the most the tenant could hold on the GPU given the others:
 *	capacity less what the other tenants hold, or reserve with vram-min
 *
 * A view for the tenant: total = min(@limit, @capacity), used =
 * @tenant_used, free = min(total, @room) - used (0 when negative).
 */
struct vgpu_dev_meminfo {
	__u32 gpu;
	__u32 flags;
	__u64 capacity;
	__u64 limit;
	__u64 tenant_used;
	__u64 room;
};

#define VGPU_IOC_MAGIC		0xb7
#define VGPU_IOC_CHARGE		_IOWR(VGPU_IOC_MAGIC, 1, struct vgpu_dev_charge)
#define VGPU_IOC_RELEASE	_IOWR(VGPU_IOC_MAGIC, 2, struct vgpu_dev_charge)
#define VGPU_IOC_MEMINFO	_IOWR(VGPU_IOC_MAGIC, 3, struct vgpu_dev_meminfo)

#endif /* _UAPI_LINUX_VGPU_DEV_H */
