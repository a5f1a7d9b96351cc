// SPDX-License-Identifier: GPL-2.0
/*
 * What the agent does with one process (ckpt.h, "The agent" in
 * Documentation/suspend.md): decided from where the process stands alone,
 * the driver's state of it and whether the module holds it parked, never
 * from what an agent remembers, so that an agent stopped at any step and
 * started again takes the process on from there. Pure: the table is
 * checked by tests/unit/test_ckpt_plan.c.
 */
#include "ckpt.h"

/**
 * vgpuctl_ckpt_plan() - the steps that take a process through a phase
 * @resume: the tenant is resuming, else suspending
 * @state: the driver's state of the process (enum vgpuctl_ckpt_state)
 * @parked: the module holds it suspended (proc-get's suspended)
 *
 * Suspending: a parked process is done; running: the room in host memory,
 * lock, checkpoint, park; locked (an agent stopped after its lock):
 * room, checkpoint, park; checkpointed (stopped before proc-set): park.
 * Resuming: checkpointed: restore, unlock; locked (stopped after its
 * restore): unlock; running: nothing; then unpark if parked. Any other
 * state (failed, or a checkpoint or restore under way) is refused.
 *
 * Return: VGPUCTL_STEP_* bits, in the order of their values; 0: nothing.
 */
unsigned int vgpuctl_ckpt_plan(bool resume, int state, bool parked)
{
	if (!resume) {
		if (parked)
			return 0;
		switch (state) {
		case VGPUCTL_CKPT_RUNNING:
			return VGPUCTL_STEP_ROOM | VGPUCTL_STEP_LOCK | VGPUCTL_STEP_CHECKPOINT |
			       VGPUCTL_STEP_PARK;
		case VGPUCTL_CKPT_LOCKED:
			return VGPUCTL_STEP_ROOM | VGPUCTL_STEP_CHECKPOINT | VGPUCTL_STEP_PARK;
		case VGPUCTL_CKPT_CHECKPOINTED:
			return VGPUCTL_STEP_PARK;
		default:
			return VGPUCTL_STEP_REFUSE;
		}
	}
	switch (state) {
	case VGPUCTL_CKPT_CHECKPOINTED:
		return VGPUCTL_STEP_RESTORE | VGPUCTL_STEP_UNLOCK |
		       (parked ? VGPUCTL_STEP_UNPARK : 0);
	case VGPUCTL_CKPT_LOCKED:
		return VGPUCTL_STEP_UNLOCK | (parked ? VGPUCTL_STEP_UNPARK : 0);
	case VGPUCTL_CKPT_RUNNING:
		return parked ? VGPUCTL_STEP_UNPARK : 0;
	default:
		return VGPUCTL_STEP_REFUSE;
	}
}
