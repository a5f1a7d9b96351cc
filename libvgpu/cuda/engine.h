/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The two shapes of an engine work wrapper (launch.c, copy.c, copyarray.c):
 * ENGINE, an asynchronous call on a stream, a kernel launch or a copy (the
 * inlined fast path, then a tail call to the driver); ENGINE_SYNC, a
 * synchronous one, gated, then the thread counted in the page's bound
 * while the driver works (synced.h). stream: what the gate takes for the
 * GPU (launchgate.h); ST(h) a stream argument, ST_PT(h) one of a _ptsz or
 * _ptds form, whose 0 is the thread's per-thread default stream.
 */
#ifndef VGPU_ENGINE_H
#define VGPU_ENGINE_H

#include "../access/hooks.h"
#include "../policy/launchgate.h"
#include "../access/nest.h"
#include "lazyload.h"
#include "../state/state.h"
#include "../state/synced.h"

/* Asynchronous: a launch, or work gated exactly as one. func: the
 * launched CUfunction (NULL for a copy): a library's kernel not yet
 * measured in a context leaves the fast path (lazyload.h). */
#define ENGINE_F(sym, params, args, stream, func)				\
static __attribute__((noinline)) CUresult sym##_slow params			\
{										\
	VGPU_NEST_MARK();							\
	vgpu_pfn_##sym real = REAL(sym);					\
	CUresult lz;								\
										\
	if (!real)								\
		return CUDA_ERROR_NOT_INITIALIZED;				\
	if (vgpu_lazy_pending(func) && (lz = libvgpu_lazy_use(func)))		\
		return lz;							\
	libvgpu_launch_slow(stream);						\
	return vgpu_launch_done(real args);					\
}										\
										\
VGPU_EXPORT CUresult sym params							\
{										\
	vgpu_pfn_##sym real = (vgpu_pfn_##sym)					\
		__atomic_load_n(&libvgpu_real[VGPU_HOOK_##sym], __ATOMIC_RELAXED);	\
										\
	VGPU_PASS_NESTED_HOT(real, args);					\
	if (__builtin_expect(real && !vgpu_lazy_pending(func) &&		\
			     vgpu_gate_pass(&libvgpu_gate, stream), 1))		\
		return real args;						\
	return sym##_slow args;							\
}
#define ENGINE(sym, params, args, stream) ENGINE_F(sym, params, args, stream, NULL)

/* Synchronous: gated, then the thread counted busy while it copies. */
#define ENGINE_SYNC(sym, params, args, stream)					\
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
	vgpu_launch_gate(stream);						\
	g = libvgpu_sync_begin(&launches);					\
	rc = vgpu_launch_done(real args);					\
	libvgpu_sync_end(g, launches, 0, rc);					\
	return rc;								\
}

#define ST(h) ((void *)(h))
#define ST_PT(h) ((void *)((h) ? (h) : CU_STREAM_PER_THREAD))

#endif
