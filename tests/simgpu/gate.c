// SPDX-License-Identifier: GPL-2.0
/*
 * The call gate behind cuCheckpointProcessLock: every exported driver
 * entry point passes it (SG_GATE(), simgpu.h) on the way in and out. The
 * driver API reference says a lock "will block further CUDA API calls"
 * and that with timeoutMs, if "the timeout is reached the process will be
 * left in the RUNNING state": so a lock closes the gate to new calls, then
 * waits for the calls already inside to leave; if they do not leave in
 * time it opens the gate again and fails. Calls a call makes to other
 * exports (SIMGPU_SELFCALL=plt, legacy forms) are inside already and pass.
 */
#include <errno.h>
#include <stdatomic.h>
#include <time.h>

#include "simgpu.h"

static __thread int depth;		/* this thread's gated calls, nested */
static atomic_int active;		/* threads inside a gated call */
static atomic_int closed;		/* 1 while locked or locking */
static pthread_mutex_t gate_lk = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;

static void gate_wake(void)
{
	pthread_mutex_lock(&gate_lk);
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&gate_lk);
}

struct sg_gate_tok simgpu_gate_enter(void)
{
	struct sg_gate_tok t = { 0 };

	if (depth++ > 0)
		return t;
	t.outer = 1;
	for (;;) {
		/* Announce, then look: a locker that closed the gate after we
		 * announced waits for us; one before, we see (seq_cst). */
		atomic_fetch_add(&active, 1);
		if (!atomic_load(&closed))
			return t;
		if (atomic_fetch_sub(&active, 1) == 1)
			gate_wake();
		pthread_mutex_lock(&gate_lk);
		while (atomic_load(&closed))
			pthread_cond_wait(&gate_cv, &gate_lk);
		pthread_mutex_unlock(&gate_lk);
	}
}

void simgpu_gate_leave(struct sg_gate_tok *t)
{
	depth--;
	if (t->outer && atomic_fetch_sub(&active, 1) == 1 && atomic_load(&closed))
		gate_wake();
}

void simgpu_gate_inside(void)
{
	depth = 1;	/* a simgpu thread that is never to block at the gate */
}

/* Close the gate and wait for the calls inside to leave: 0, or -1 when
 * timeout_ms (0: none) passed first (the gate is open again). */
int simgpu_gate_lock(unsigned int timeout_ms)
{
	struct timespec ts;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&gate_lk);
	atomic_store(&closed, 1);
	while (atomic_load(&active) > 0 && !rc) {
		if (!timeout_ms)
			pthread_cond_wait(&gate_cv, &gate_lk);
		else if (pthread_cond_timedwait(&gate_cv, &gate_lk, &ts) == ETIMEDOUT &&
			 atomic_load(&active) > 0)
			rc = -1;
	}
	if (rc) {
		atomic_store(&closed, 0);
		pthread_cond_broadcast(&gate_cv);
	}
	pthread_mutex_unlock(&gate_lk);
	return rc;
}

void simgpu_gate_unlock(void)
{
	pthread_mutex_lock(&gate_lk);
	atomic_store(&closed, 0);
	pthread_cond_broadcast(&gate_cv);
	pthread_mutex_unlock(&gate_lk);
}
