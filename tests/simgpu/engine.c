// SPDX-License-Identifier: GPL-2.0
/*
 * The shared device: VRAM charging and the execution engine. Each GPU has
 * one engine; a kernel holds it for its whole duration, a copy or memset
 * for its bytes at copy_bw (one engine for all work: the share tests
 * measure a tenant's device time, whatever the work). Waiters queue in
 * arrival order (across all processes), so contexts take turns kernel by
 * kernel. A kernel ends at its deadline whether or not the host thread
 * that runs it has woken yet (the next waiter takes the engine over then),
 * so host CPU load does not stretch device time. Time held is charged to
 * the process and its cgroup: the ground truth for share tests. A charge
 * also respects the hard limit of the process's cgroup, if one was set
 * through NVML (memlimit.c), and, with dmem = on, the kernel's dmem
 * controller (dmem.c).
 */
#include <errno.h>
#include <time.h>
#include <unistd.h>

#include "simgpu.h"

/* How long a waiter sleeps before it looks for dead holders again. */
#define WAIT_SLICE_NS 5000000ULL

/*
 * Whether the GPU has bytes free, and this process's cgroup may take them
 * under its hard limit (memlimit.c) when the driver has such limits. State
 * lock held.
 */
static int fits(int dev, uint64_t bytes)
{
	struct sg_gpu_shared *g = &simgpu_shm->gpus[dev];

	if (g->used + bytes > g->total || g->used + bytes < bytes)
		return 0;
	return !simgpu_cfg.memory_limits || simgpu_limit_allows(simgpu_slot, dev, bytes);
}

CUresult simgpu_charge(int ord, uint64_t bytes)
{
	int dev = simgpu_phys(ord);	/* the shared state's GPU */
	struct sg_gpu_shared *g = &simgpu_shm->gpus[dev];
	CUresult rc = CUDA_SUCCESS;

	if (!bytes)
		return CUDA_SUCCESS;
	/* The kernel's controller first, as a driver charges it before it
	 * takes the memory (dmem.c). */
	rc = simgpu_dmem_charge(dev, bytes);
	if (rc)
		return rc;
	simgpu_state_lock();
	if (!fits(dev, bytes)) {
		/* Maybe a dead process still holds memory: look now. */
		simgpu_state_reclaim(1);
		if (!fits(dev, bytes))
			rc = CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (!rc) {
		g->used += bytes;
		if (simgpu_slot >= 0)
			simgpu_shm->procs[simgpu_slot].bytes[dev] += bytes;
	}
	simgpu_state_unlock();
	if (rc)
		simgpu_dmem_uncharge(dev, bytes);
	return rc;
}

void simgpu_uncharge(int ord, uint64_t bytes)
{
	int dev = simgpu_phys(ord);	/* the shared state's GPU */
	struct sg_gpu_shared *g = &simgpu_shm->gpus[dev];

	if (!bytes)
		return;
	simgpu_state_lock();
	if (simgpu_slot >= 0 && simgpu_shm->procs[simgpu_slot].alive &&
	    simgpu_shm->procs[simgpu_slot].pid == simgpu_pid) {
		uint64_t *mine = &simgpu_shm->procs[simgpu_slot].bytes[dev];

		if (bytes > *mine)
			bytes = *mine;
		*mine -= bytes;
		g->used -= bytes <= g->used ? bytes : g->used;
	}
	simgpu_state_unlock();
	simgpu_dmem_uncharge(dev, bytes);
}

void simgpu_ctx_count(int ord, int delta)
{
	int dev = simgpu_phys(ord);	/* the shared state's GPU */
	simgpu_state_lock();
	/* Not once released at exit: NVIDIA's runtime releases its primary
	 * contexts in its own exit handlers, after simgpu's (as
	 * simgpu_uncharge). */
	if (simgpu_slot >= 0 && simgpu_shm->procs[simgpu_slot].alive &&
	    simgpu_shm->procs[simgpu_slot].pid == simgpu_pid)
		simgpu_shm->procs[simgpu_slot].ctxs[dev] += delta;
	simgpu_state_unlock();
}

void simgpu_sleep_until(uint64_t deadline)
{
	struct timespec ts = {
		(time_t)(deadline / 1000000000ULL), (long)(deadline % 1000000000ULL)
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int waiter_add(int dev, uint64_t seq)
{
	for (int i = 0; i < SG_MAX_WAITERS; i++) {
		if (!simgpu_shm->waiters[i].pid) {
			simgpu_shm->waiters[i].pid = simgpu_pid;
			simgpu_shm->waiters[i].gpu = dev;
			simgpu_shm->waiters[i].seq = seq;
			return i;
		}
	}
	return -1;
}

/* Lowest arrival number among the waiters for dev. */
static uint64_t first_waiter(int dev)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < SG_MAX_WAITERS; i++) {
		struct sg_waiter *w = &simgpu_shm->waiters[i];

		if (w->pid && w->gpu == dev && w->seq < best)
			best = w->seq;
	}
	return best;
}

/*
 * Take the engine for an ns-long kernel that was ready at ready_ns. It
 * starts when both it was ready and the engine was free, which may be
 * before this thread got here: the time a host thread takes to wake is not
 * device time. Returns the kernel's token.
 */
static uint64_t engine_acquire(int dev, uint64_t ns, uint64_t ready_ns)
{
	struct sg_gpu_shared *g = &simgpu_shm->gpus[dev];
	uint64_t seq;
	int slot;

	simgpu_state_lock();
	seq = ++simgpu_shm->seq;
	slot = waiter_add(dev, seq);
	for (;;) {
		uint64_t now = simgpu_now_ns(), wait = WAIT_SLICE_NS;
		uint32_t gen;

		if (slot >= 0 && (simgpu_shm->waiters[slot].pid != simgpu_pid ||
				  simgpu_shm->waiters[slot].seq != seq))
			slot = waiter_add(dev, seq);	/* reset or reclaimed */
		if ((!g->owner_pid || now >= g->owner_until) &&
		    (slot < 0 || first_waiter(dev) == seq)) {
			uint64_t start = ready_ns;

			if (g->owner_pid)	/* its kernel is over: take over */
				simgpu_engine_drop(dev, now, 1);
			if (slot >= 0)
				simgpu_shm->waiters[slot].pid = 0;
			if (start < g->free_since)
				start = g->free_since;
			if (start > now)
				start = now;
			if (start - g->free_since > g->max_idle_ns)
				g->max_idle_ns = start - g->free_since;
			g->owner_pid = simgpu_pid;
			g->owner_proc = simgpu_slot;
			g->owner_token = seq;
			g->owner_since = start;
			g->owner_until = start + ns;
			break;
		}
		if (slot < 0)
			slot = waiter_add(dev, seq);
		if (g->owner_pid && g->owner_until > now && g->owner_until - now < wait)
			wait = g->owner_until - now;
		gen = __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE);
		simgpu_state_unlock();
		simgpu_futex_wait(&g->gen, gen, wait);
		simgpu_state_lock();
	}
	simgpu_state_unlock();
	return seq;
}

static void engine_release(int dev, uint64_t token)
{
	struct sg_gpu_shared *g = &simgpu_shm->gpus[dev];

	simgpu_state_lock();
	if (g->owner_pid == simgpu_pid && g->owner_token == token)
		simgpu_engine_drop(dev, simgpu_now_ns(), 1);
	simgpu_state_unlock();
}

/*
 * A kernel, in two steps: begin takes the engine and returns the kernel's
 * device end (*token 0: nothing to finish); finish sleeps until then and
 * gives the engine up. Between the two the caller may publish the end.
 */
uint64_t simgpu_kernel_begin(int ord, uint64_t ns, uint64_t ready_ns, uint64_t *token)
{
	int dev = simgpu_phys(ord);	/* the shared state's GPU */
	struct sg_gpu_shared *g = &simgpu_shm->gpus[dev];
	uint64_t end;

	*token = 0;
	if (simgpu_exiting)
		return ready_ns;
	*token = engine_acquire(dev, ns, ready_ns);
	simgpu_state_lock();
	end = g->owner_token == *token ? g->owner_until : simgpu_now_ns() + ns;
	simgpu_state_unlock();
	return end;
}

void simgpu_kernel_finish(int ord, uint64_t token, uint64_t end)
{
	int dev = simgpu_phys(ord);	/* the shared state's GPU */
	if (!token)
		return;
	simgpu_sleep_until(end);
	engine_release(dev, token);
}

uint64_t simgpu_copy_ns(uint64_t bytes)
{
	uint64_t bw = simgpu_cfg.copy_bw ? simgpu_cfg.copy_bw : 1;

	/* bytes x 1e9 / bw without overflow for any size under 2^64 / 1e3 */
	return bytes / bw * 1000000000ULL + bytes % bw * 1000000000ULL / bw;
}

uint64_t simgpu_engine_run(int dev, uint64_t ns, uint64_t ready_ns)
{
	uint64_t token, end = simgpu_kernel_begin(dev, ns, ready_ns, &token);

	simgpu_kernel_finish(dev, token, end);
	return end;
}
