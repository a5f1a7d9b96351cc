/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A call into one of libvgpu's exports while the same thread is already
 * inside one comes from below: libvgpu never calls its own exports, so it
 * is the driver (or NVML) calling one of its own exported entry points
 * through the dynamic linker, as a library built without -Bsymbolic does
 * (libcuda's cuGetProcAddress calling cuGetProcAddress_v2, a legacy entry
 * point calling its newer form). The outer wrapper already charges, gates
 * and maps the operation; the inner one goes straight to the real
 * function, before any lock, once or wait of libvgpu's, so a driver that
 * calls back can neither deadlock on libvgpu's state nor be charged twice.
 *
 * Every exported wrapper begins with VGPU_PASS_NESTED(symbol, (arguments))
 * (tests/tools/nest-check proves it of every HOOK row); the depth falls
 * again at every return through the cleanup attribute.
 */
#ifndef VGPU_NEST_H
#define VGPU_NEST_H

#include "hooks.h"

extern __thread unsigned int libvgpu_nest __attribute__((tls_model("initial-exec")));

static inline unsigned int libvgpu_nest_enter(void)
{
	return ++libvgpu_nest;
}

static inline void libvgpu_nest_exit(unsigned int *depth)
{
	(void)depth;
	libvgpu_nest--;
}

/* Inside one of libvgpu's wrappers (dlsym.c: a look-up made by the driver
 * while libvgpu called it). */
static inline int libvgpu_in_wrapper(void)
{
	return libvgpu_nest > 0;
}

#define VGPU_PASS_NESTED(sym, args)						\
	unsigned int vgpu_depth_ __attribute__((cleanup(libvgpu_nest_exit))) =	\
		libvgpu_nest_enter();						\
	if (__builtin_expect(vgpu_depth_ > 1, 0)) {				\
		vgpu_pfn_##sym vgpu_nested_real_ = REAL(sym);			\
										\
		if (vgpu_nested_real_)						\
			return vgpu_nested_real_ args;				\
	}

/* The launch fast path (engine.h): a nested call passes, but the frame is
 * not marked, so that the real call stays a tail call; its slow path
 * marks the frame with VGPU_NEST_MARK. A driver calling back from inside
 * a fast-path launch meets a wrapper that holds no lock and charges
 * nothing: at worst a launch counted twice in the page. */
#define VGPU_PASS_NESTED_HOT(real, args)					\
	if (__builtin_expect(libvgpu_nest > 0, 0) && (real))			\
		return (real) args

#define VGPU_NEST_MARK()							\
	unsigned int vgpu_depth_ __attribute__((cleanup(libvgpu_nest_exit), unused)) = \
		libvgpu_nest_enter()

#endif
