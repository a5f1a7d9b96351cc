/* SPDX-License-Identifier: GPL-2.0 */
/*
 * simgpu-dmem: a test-only kernel module that stands for a GPU driver's
 * use of the kernel's dmem cgroup controller (Linux 6.14 and later), for
 * simgpu. It registers one dmem region per simulated GPU, named as
 * NVIDIA's driver names its own ("nvidia/PCI-BUS-ID/vidmem"), and charges
 * and uncharges them for simgpu's allocations through /dev/simgpu-dmem,
 * in the calling process's cgroup, as a driver does in its allocation
 * path. The interface between the module and simgpu (tests/simgpu/dmem.c).
 */
#ifndef SIMGPU_DMEM_H
#define SIMGPU_DMEM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SIMGPU_DMEM_GPUS	16

/**
 * struct simgpu_dmem_charge - one charge or uncharge
 * @gpu: the region, in the order of the module's regions parameter
 *	(simgpu's GPU index)
 * @pad: zero
 * @bytes: how much
 */
struct simgpu_dmem_charge {
	__u32 gpu;
	__u32 pad;
	__u64 bytes;
};

/* Charge @bytes to the caller's cgroup: 0, or -1 with errno ENOSPC past a
 * dmem.max (the kernel's -EAGAIN), EINVAL for a bad region. */
#define SIMGPU_DMEM_CHARGE	_IOW('S', 1, struct simgpu_dmem_charge)
/* Give back @bytes of what this open file charged on @gpu, newest first. */
#define SIMGPU_DMEM_UNCHARGE	_IOW('S', 2, struct simgpu_dmem_charge)

#endif /* SIMGPU_DMEM_H */
