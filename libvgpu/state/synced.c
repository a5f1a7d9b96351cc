// SPDX-License-Identifier: GPL-2.0
/*
 * The page's per-GPU bound and synced for the process's waits on its own
 * work (sync.c's hooks, the gate's drain): see sync.c for why.
 */
#include "ctxmap.h"
#include "../access/hooks.h"
#include "state.h"
#include "synced.h"

/* The GPU the calling thread's synchronisation waits on, or -1 (no gate,
 * or a GPU outside the inventory). */
static int sync_gpu(void)
{
	int g;

	if (!__atomic_load_n(&libvgpu_gate.gate, __ATOMIC_ACQUIRE))
		return -1;
	g = libvgpu_current_gpu();
	return g >= 0 && g < VGPU_DEV_GPUS ? g : -1;
}

int libvgpu_sync_begin(uint64_t *launches)
{
	int g = sync_gpu();

	if (g < 0)
		return -1;
	*launches = __atomic_load_n(&libvgpu_gate.page->gpu[g].launches, __ATOMIC_RELAXED);
	__atomic_fetch_add(&libvgpu_gate.page->gpu[g].bound, 1, __ATOMIC_RELAXED);
	return g;
}

void libvgpu_sync_complete(int g, uint64_t launches)
{
	uint64_t *synced = (uint64_t *)&libvgpu_gate.page->gpu[g].synced;
	uint64_t old = __atomic_load_n(synced, __ATOMIC_RELAXED);

	while (old < launches &&
	       !__atomic_compare_exchange_n(synced, &old, launches, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

void libvgpu_sync_end(int g, uint64_t launches, int whole, CUresult rc)
{
	if (g < 0)
		return;
	__atomic_fetch_sub(&libvgpu_gate.page->gpu[g].bound, 1, __ATOMIC_RELAXED);
	if (whole && rc == CUDA_SUCCESS)
		libvgpu_sync_complete(g, launches);
}
