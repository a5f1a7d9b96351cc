/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stream capture seen by libvgpu (capture.c): while a capture is live in
 * the process, work submitted to a capturing stream does not run (it
 * becomes a graph node), and synchronising calls may be illegal and would
 * invalidate the capture. The launch fast path reads one word
 * (libvgpu_captures); the rest is for slow paths.
 */
#ifndef VGPU_CAPTURE_H
#define VGPU_CAPTURE_H

/* Captures begun through libvgpu and not yet ended. */
extern int libvgpu_captures;

static inline int vgpu_capture_live(void)
{
	return __atomic_load_n(&libvgpu_captures, __ATOMIC_RELAXED) != 0;
}

/* Whether work on stream (CU_STREAM_PER_THREAD for a per-thread default
 * stream) would be captured rather than run: cuStreamIsCapturing, asked
 * only while a capture is live. The legacy stream while a blocking stream
 * captures counts as capturing: work on it is refused by the driver. */
int libvgpu_capture_stream(void *stream);

#endif
