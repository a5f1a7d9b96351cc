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
 *
 * Compute time is granted per tenant per GPU (Documentation/compute.md). A
 * second page, at offset VGPU_DEV_GATE_OFFSET and mapped read-only, is the
 * gate: gpu[i].granted is non-zero while the process's tenant holds the
 * grant on GPU i, so a launch checks one word and costs no system call.
 * Without a grant the process drains its queued work, then sleeps in
 * VGPU_IOC_WAIT until its tenant is granted. The module hands a GPU to the
 * next tenant only once the previous holder's processes have drained (or
 * a timeout passed), so queued work running past a slice is charged to the
 * tenant that queued it.
 */
#ifndef _UAPI_LINUX_VGPU_DEV_H
#define _UAPI_LINUX_VGPU_DEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define VGPU_DEV_PATH		"/dev/vgpu"
#define VGPU_DEV_PAGE_VERSION	2
#define VGPU_DEV_GPUS		64	/* equals VGPU_GPU_MAX */
#define VGPU_DEV_GATE_OFFSET	4096	/* mmap offset of the gate page */

/**
 * struct vgpu_dev_gpu - one GPU's slot of the shared page
 * @avail: budget: bytes charged to the tenant that the process may still
 *	allocate; decreased by the process (compare-and-swap, never below
 *	0), increased by VGPU_IOC_CHARGE and frees, exchanged with 0 by the
 *	module to take the budget back
 * @used: bytes the process holds on the GPU
 * @launches: kernels, graphs, copies and memsets the process submitted to
 *	the GPU (the process increments it; the module reads it to tell an idle holder)
 * @bound: threads of the process waiting for their own queued work on the
 *	GPU to advance (the library's queue bound): the process is busy
 *	there, not idle, though it does not launch. Only a holder's own
 *	idleness reads it, so a wrong value costs no other tenant anything.
 *	The library also counts threads in the application's own
 *	synchronisations (context, stream, event).
 * @synced: a count of @launches all known complete (the process raises it
 *	when a whole-context synchronisation returns): a process with
 *	@synced >= @launches has nothing queued on the GPU, so a revoked
 *	holder need not be waited for to drain.
 */
struct vgpu_dev_gpu {
	__s64 avail;
	__u64 used;
	__u64 launches;
	__u64 bound;
	__u64 synced;
};

/**
 * struct vgpu_dev_page - the page a process maps from /dev/vgpu
 * @version: VGPU_DEV_PAGE_VERSION
 * @registered: set by the module once the process is registered; cleared
 *	when its registration ends (all charges are dropped then)
 * @placement_seq: bumped by the module when the tenant's placement (CPUs,
 *	NUMA nodes) changes; the library then re-reads it (proc-register's
 *	reply shape, via VGPU_IOC_PLACEMENT) and rebinds its memory policy
 * @rsvd0: zero
 * @rsvd: zero
 * @gpu: one slot per GPU index
 */
struct vgpu_dev_page {
	__u32 version;
	__u32 registered;
	__u32 placement_seq;
	__u32 rsvd0;
	__u64 rsvd[6];
	struct vgpu_dev_gpu gpu[VGPU_DEV_GPUS];
};

/**
 * struct vgpu_dev_gate - the read-only gate page (offset VGPU_DEV_GATE_OFFSET)
 * @version: VGPU_DEV_PAGE_VERSION
 * @rsvd: zero
 * @gpu: per GPU index: @granted is non-zero while the process's tenant
 *	holds the GPU; @seq counts the grants the tenant received
 */
struct vgpu_dev_gate {
	__u32 version;
	__u32 rsvd[15];
	struct {
		__u32 granted;
		__u32 seq;
	} gpu[VGPU_DEV_GPUS];
};

/**
 * struct vgpu_dev_wait - argument of VGPU_IOC_WAIT
 * @gpu: GPU index
 * @flags: zero
 * @drain_ns: in: how long the process just spent draining its queued work
 *	(for the record; the module charges by its own clock)
 * @waited_ns: out: how long the call slept
 */
struct vgpu_dev_wait {
	__u32 gpu;
	__u32 flags;
	__u64 drain_ns;
	__u64 waited_ns;
};

/**
 * struct vgpu_dev_placement - argument of VGPU_IOC_PLACEMENT
 * @seq: out: the placement_seq this answer belongs to
 * @flags: out: bit 0 set when @mems restricts the process
 * @mems: out: bit mask of the NUMA nodes (node n is bit n % 64 of word
 *	n / 64) the process's memory belongs on
 */
struct vgpu_dev_placement {
	__u32 seq;
	__u32 flags;
	__u64 mems[16];
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
 * @room: the most the tenant may count on holding, as far as it may
 *	know: min(@limit, @capacity); or, when the GPU is full for it (what
 *	the others hold or reserve leaves it nothing beyond its own charges,
 *	short of its limit), what it holds: its charges, that is its
 *	processes' use and unspent budgets (outside every tenant: the
 *	process's own)
 *
 * Nothing here depends on the others but that one bit, whether the GPU is
 * full: @room does not move when they allocate or free unless it flips.
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
#define VGPU_IOC_WAIT		_IOWR(VGPU_IOC_MAGIC, 4, struct vgpu_dev_wait)
#define VGPU_IOC_PLACEMENT	_IOR(VGPU_IOC_MAGIC, 5, struct vgpu_dev_placement)

#endif /* _UAPI_LINUX_VGPU_DEV_H */
