// SPDX-License-Identifier: GPL-2.0
/*
 * The application waiting for its own GPU work: cuCtxSynchronize (and the
 * 13.0 form that takes a context), cuStreamSynchronize(_ptsz) and
 * cuEventSynchronize, on the GPU of the thread's current context.
 *
 * While a thread waits in one, the process is busy on the GPU though it
 * does not launch: the page's bound counts the thread, so the module does
 * not take its tenant for an idle holder (the queue bound counts its own
 * waits the same way, launchgate.c). When a whole-context synchronisation
 * returns, every launch the process made on the GPU before it is
 * complete: the page's synced is raised to that count. The module then
 * knows the process has nothing queued there, and when it revokes the
 * grant of a tenant that finished its work it hands the GPU over at once
 * instead of waiting drain_timeout_us for a drain that never comes.
 *
 * A synchronisation is also where memory pools release what they hold
 * above their release threshold: the charged pools are re-read
 * (poolcharge.c), as are the devices' graph memory reserves (graphmem.c).
 * It is also a check point for VMM charges kept by
 * exported descriptors (vmmfd.c): those whose descriptors were closed are
 * given back.
 */
#include "../policy/graphmem.h"
#include "../access/hooks.h"
#include "../access/nest.h"
#include "../policy/poolcharge.h"
#include "../state/synced.h"
#include "../policy/vmmfd.h"

#define SYNC(sym, params, args, whole)						\
VGPU_EXPORT CUresult sym params							\
{										\
	VGPU_PASS_NESTED(sym, args);						\
	vgpu_pfn_##sym real = REAL(sym);					\
	uint64_t launches = 0;							\
	CUresult rc;								\
	int g;									\
										\
	if (!real)								\
		return CUDA_ERROR_NOT_INITIALIZED;				\
	g = libvgpu_sync_begin(&launches);						\
	rc = real args;								\
	libvgpu_sync_end(g, launches, whole, rc);					\
	libvgpu_pools_sync();	/* pools release above their threshold */	\
	libvgpu_graphmem_sync();						\
	libvgpu_vfd_check();	/* closed exported descriptors */	\
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
