// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the agent's plan for one process (ctl/enforce/ckpt_plan.c):
 * every phase, driver state and parked flag against the steps it must
 * take, so that an agent stopped after any step, and started again, takes
 * the process on from there. One line per check: "PASS: ckpt_plan: <what>"
 * or "FAIL: ckpt_plan: <what>: <detail>". Exits 1 if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE tests/unit/test_ckpt_plan.c ctl/enforce/ckpt_plan.c
 */
#include <stdio.h>

#include "../../ctl/enforce/ckpt.h"

#define VGPU_UNIT_SUITE "ckpt_plan"
#include "result.h"

#define ROOM	VGPUCTL_STEP_ROOM
#define LOCK	VGPUCTL_STEP_LOCK
#define CKPT	VGPUCTL_STEP_CHECKPOINT
#define RESTORE	VGPUCTL_STEP_RESTORE
#define UNLOCK	VGPUCTL_STEP_UNLOCK
#define PARK	VGPUCTL_STEP_PARK
#define UNPARK	VGPUCTL_STEP_UNPARK
#define REFUSE	VGPUCTL_STEP_REFUSE

static const struct {
	const char *what;
	bool resume;
	int state;
	bool parked;
	unsigned int want;
} cases[] = {
	{ "suspend, running: room, lock, checkpoint, park", false, VGPUCTL_CKPT_RUNNING, false,
	  ROOM | LOCK | CKPT | PARK },
	{ "suspend, locked (stopped after the lock): room, checkpoint, park", false,
	  VGPUCTL_CKPT_LOCKED, false, ROOM | CKPT | PARK },
	{ "suspend, checkpointed (stopped before proc-set): park", false,
	  VGPUCTL_CKPT_CHECKPOINTED, false, PARK },
	{ "suspend, parked: nothing", false, VGPUCTL_CKPT_CHECKPOINTED, true, 0 },
	{ "suspend, parked whatever the driver says: nothing", false, VGPUCTL_CKPT_RUNNING, true,
	  0 },
	{ "suspend, failed: refused", false, VGPUCTL_CKPT_FAILED, false, REFUSE },
	{ "suspend, a checkpoint under way: refused", false, VGPUCTL_CKPT_CHECKPOINTING, false,
	  REFUSE },
	{ "suspend, a restore under way: refused", false, VGPUCTL_CKPT_RESTORING, false, REFUSE },
	{ "suspend, a state this agent does not know: refused", false, 42, false, REFUSE },
	{ "resume, checkpointed and parked: restore, unlock, unpark", true,
	  VGPUCTL_CKPT_CHECKPOINTED, true, RESTORE | UNLOCK | UNPARK },
	{ "resume, locked and parked (stopped after the restore): unlock, unpark", true,
	  VGPUCTL_CKPT_LOCKED, true, UNLOCK | UNPARK },
	{ "resume, running and parked (stopped after the unlock): unpark", true,
	  VGPUCTL_CKPT_RUNNING, true, UNPARK },
	{ "resume, running, not parked: nothing", true, VGPUCTL_CKPT_RUNNING, false, 0 },
	{ "resume, checkpointed, never parked (stopped before proc-set): restore, unlock", true,
	  VGPUCTL_CKPT_CHECKPOINTED, false, RESTORE | UNLOCK },
	{ "resume, locked, never parked (stopped after the lock): unlock", true,
	  VGPUCTL_CKPT_LOCKED, false, UNLOCK },
	{ "resume, failed: refused", true, VGPUCTL_CKPT_FAILED, true, REFUSE },
	{ "resume, a restore under way: refused", true, VGPUCTL_CKPT_RESTORING, true, REFUSE },
	{ "resume, a state this agent does not know: refused", true, -1, false, REFUSE },
};

/* The steps, in their order, as words. */
static const char *words(unsigned int plan)
{
	static const char *const name[] = {
		"room", "lock", "checkpoint", "restore", "unlock", "park", "unpark", "refuse",
	};
	static char buf[128];
	size_t n = 0, i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(name) / sizeof(name[0]); i++)
		if (plan & (1u << i))
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? " " : "", name[i]);
	return n ? buf : "nothing";
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int got = vgpuctl_ckpt_plan(cases[i].resume, cases[i].state,
						     cases[i].parked);
		char want[128];

		snprintf(want, sizeof(want), "%s", words(cases[i].want));
		result(got == cases[i].want, cases[i].what, "got %s, want %s", words(got), want);
	}
	/* Whatever the state, a suspension never restores or unparks, a resume
	 * never locks, checkpoints or parks. */
	for (int resume = 0; resume < 2; resume++) {
		unsigned int bad = resume ? ROOM | LOCK | CKPT | PARK : RESTORE | UNPARK;
		bool ok = true;

		for (int st = -1; st <= 6; st++)
			for (int parked = 0; parked < 2; parked++)
				ok &= !(vgpuctl_ckpt_plan(resume, st, parked) & bad);
		result(ok, resume ? "a resume never locks, checkpoints or parks" :
		       "a suspension never restores or unparks", "a step of the other phase");
	}
	return failures ? 1 : 0;
}
