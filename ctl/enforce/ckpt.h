/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVIDIA's checkpoint API (cuCheckpointProcess*, driver r570 and later) as
 * the agent calls it (ckpt.c): libcuda.so.1 opened at run time. The
 * results are CUresult values (0: CUDA_SUCCESS), named by
 * vgpuctl_ckpt_strerror(). What to call for a process, from where it
 * stands (ckpt_plan.c), is pure.
 */
#ifndef VGPU_CTL_CKPT_H
#define VGPU_CTL_CKPT_H

#include <stdbool.h>
#include <stddef.h>

/* A process's state, as CUprocessState numbers it. */
enum vgpuctl_ckpt_state {
	VGPUCTL_CKPT_RUNNING = 0,
	VGPUCTL_CKPT_LOCKED = 1,
	VGPUCTL_CKPT_CHECKPOINTED = 2,
	VGPUCTL_CKPT_FAILED = 3,
	VGPUCTL_CKPT_CHECKPOINTING = 4,
	VGPUCTL_CKPT_RESTORING = 5,
};

/* CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_TIMEOUT: the agent words them. */
#define VGPUCTL_CKPT_NOT_SUPPORTED	801
#define VGPUCTL_CKPT_TIMEOUT		909

int vgpuctl_ckpt_open(char *err, size_t len);
int vgpuctl_ckpt_get_state(int pid, int *state);
int vgpuctl_ckpt_lock(int pid, unsigned int timeout_ms);
int vgpuctl_ckpt_checkpoint(int pid);
int vgpuctl_ckpt_restore(int pid);
int vgpuctl_ckpt_unlock(int pid);
const char *vgpuctl_ckpt_strerror(int rc);
const char *vgpuctl_ckpt_state_name(int state);

/* ckpt_plan.c: the steps of one process, in this order. */
enum vgpuctl_ckpt_step {
	VGPUCTL_STEP_ROOM = 1 << 0,		/* its device bytes fit the cgroup's memory */
	VGPUCTL_STEP_LOCK = 1 << 1,
	VGPUCTL_STEP_CHECKPOINT = 1 << 2,
	VGPUCTL_STEP_RESTORE = 1 << 3,
	VGPUCTL_STEP_UNLOCK = 1 << 4,
	VGPUCTL_STEP_PARK = 1 << 5,		/* proc-set PID suspended */
	VGPUCTL_STEP_UNPARK = 1 << 6,		/* proc-set PID */
	VGPUCTL_STEP_REFUSE = 1 << 7,		/* a state the phase cannot start from */
};
unsigned int vgpuctl_ckpt_plan(bool resume, int state, bool parked);

#endif
