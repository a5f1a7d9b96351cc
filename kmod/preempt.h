/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: preemption by memory: a charge that finds no room waits while
 * preemptible tenants of lower priority are suspended (preempt.c).
 */
#ifndef _VGPU_PREEMPT_H
#define _VGPU_PREEMPT_H

#include <linux/types.h>

struct vgpu_proc;

/**
 * struct vgpu_preempt - a charge waiting for preemption
 * @gpu: GPU index
 * @bytes: the charge, wanted on the GPU while it waits
 * @deadline: jiffies at which it stops waiting (its tenant's vram-wait)
 */
struct vgpu_preempt {
	u32 gpu;
	u64 bytes;
	unsigned long deadline;
};

int vgpu_preempt_start(struct vgpu_proc *p, u32 gpu, u64 bytes, struct vgpu_preempt *pre);
int vgpu_preempt_wait(struct vgpu_preempt *pre, int seq);
void vgpu_preempt_end(struct vgpu_preempt *pre);

#endif /* _VGPU_PREEMPT_H */
