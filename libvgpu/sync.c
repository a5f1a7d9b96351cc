// SPDX-License-Identifier: GPL-2.0
/*
 * The application waiting for its own GPU work: cuCtxSynchronize (and the
 * 13.0 form that takes a context), cuStreamSynchronize(_ptsz) and
 * cuEventSynchronize, on the GPU of the thread's current context.
 *
 * While a thread waits in one, the process is busy on the GPU though it
 * does not launch: the page's bound counts the thread, so the module does
 * not take its tenant for an idle holder (the queue bound counts its own
 * waits the same way, current.c). When a whole-context synchronisation
 * returns, every launch the process made on the GPU before it is
 * complete: the page's synced is raised to that count. The module then
 * knows the process has nothing queued there, and when it revokes the
 * grant of a tenant that finished its work it hands the GPU over at once
 * instead of waiting drain_timeout_us for a drain that never comes.
 */
#include "state.h"

/* The GPU the calling thread's synchronisation waits on, or -1 (no gate,
 * or a GPU outside the inventory). */
static int sync_gpu(void)
{
	int g;

	if (!__atomic_load_n(&vgpu_gate.gate, __ATOMIC_ACQUIRE))
		return -1;
	g = vgpu_current_gpu();
	return g >= 0 && g < VGPU_DEV_GPUS ? g : -1;
}

int vgpu_sync_begin(uint64_t *launches)
{
	int g = sync_gpu();

	if (g < 0)
		return -1;
	*launches = __atomic_load_n(&vgpu_gate.page->gpu[g].launches, __ATOMIC_RELAXED);
	__atomic_fetch_add(&vgpu_gate.page->gpu[g].bound, 1, __ATOMIC_RELAXED);
	return g;
}

void vgpu_sync_complete(int g, uint64_t launches)
{
	uint64_t *synced = (uint64_t *)&vgpu_gate.page->gpu[g].synced;
	uint64_t old = __atomic_load_n(synced, __ATOMIC_RELAXED);

	while (old < launches &&
	       !__atomic_compare_exchange_n(synced, &old, launches, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void vgpu_sync_end(int g, uint64_t launches, int whole, CUresult rc)
{
	if (g < 0)
		return;
	__atomic_fetch_sub(&vgpu_gate.page->gpu[g].bound, 1, __ATOMIC_RELAXED);
	if (whole && rc == CUDA_SUCCESS)
		vgpu_sync_complete(g, launches);
}

#define SYNC(sym, params, args, whole)						\
VGPU_EXPORT CUresult sym params							\
{										\
	vgpu_pfn_##sym real = REAL(sym);					\
	uint64_t launches = 0;							\
	CUresult rc;								\
	int g;									\
										\
	if (!real)								\
		return CUDA_ERROR_NOT_INITIALIZED;				\
	g = vgpu_sync_begin(&launches);						\
	rc = real args;								\
	vgpu_sync_end(g, launches, whole, rc);					\
	return rc;								\
}

SYNC(cuCtxSynchronize, (void), (), 1)
#if CUDA_VERSION >= 13000
/* Another context than the current one: its GPU may be another; counted
 * as busy on the current one's, and not as a whole synchronisation. */
SYNC(cuCtxSynchronize_v2, (CUcontext ctx), (ctx), !ctx)
#endif
SYNC(cuStreamSynchronize, (CUstream hStream), (hStream), 0)
SYNC(cuStreamSynchronize_ptsz, (CUstream hStream), (hStream), 0)
SYNC(cuEventSynchronize, (CUevent hEvent), (hEvent), 0)
