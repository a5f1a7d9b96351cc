/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A launch passing the compute gate (launchgate.c), for the launch
 * wrappers (launch.c, graph.c).
 */
#ifndef VGPU_LAUNCHGATE_H
#define VGPU_LAUNCHGATE_H

#include "../state/capture.h"
#include "../access/hooks.h"
#include "../state/state.h"

/* Before a launch on stream: the gate's fast path, inlined and without a
 * call; the rest (registration on first use, the GPU to find, the closed
 * gate) in libvgpu_launch_slow(). After it, vgpu_launch_done() with the
 * driver's answer: the mark, when due (queue.h). */
void libvgpu_launch_slow(void *stream);
static inline void vgpu_launch_gate(void *stream)
{
	/* Captured, the launch runs when its graph is launched (capture.c). */
	if (__builtin_expect(vgpu_capture_live(), 0) && libvgpu_capture_stream(stream))
		return;
	if (__builtin_expect(!vgpu_gate_pass(&libvgpu_gate, stream), 0))
		libvgpu_launch_slow(stream);
}
void libvgpu_launch_mark(CUresult rc);
static inline CUresult vgpu_launch_done(CUresult rc)
{
	if (__builtin_expect(libvgpu_gate_tls.mark != 0, 0))
		libvgpu_launch_mark(rc);
	return rc;
}

#endif
