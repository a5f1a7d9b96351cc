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

#include "../access/hooks.h"

/* Captures begun through libvgpu and not yet ended. */
extern int libvgpu_captures;

static inline int vgpu_capture_live(void)
{
	return __atomic_load_n(&libvgpu_captures, __ATOMIC_RELAXED) != 0;
}

/* The stream a call with stream h made through a _ptsz entry point (or
 * not) goes to: CU_STREAM_PER_THREAD for the per-thread default stream. */
static inline void *vgpu_capture_key(CUstream h, int ptsz)
{
	return ptsz && !h ? (void *)CU_STREAM_PER_THREAD : (void *)h;
}

/* Whether work on stream (CU_STREAM_PER_THREAD for a per-thread default
 * stream) would be captured rather than run: cuStreamIsCapturing, asked
 * only while a capture is live. The legacy stream while a blocking stream
 * captures counts as capturing: work on it is refused by the driver. */
int libvgpu_capture_stream(void *stream);
/*
 * libvgpu's own calls that a capture begun meanwhile would see (capture.c,
 * "Beginning"): between libvgpu_capture_enter() and _leave(), no
 * cuStreamBeginCapture* of the process reaches the driver. enter() says 0,
 * and the call must not be made, while one is beginning. Keep the section
 * short: a beginning capture waits for it.
 */
int libvgpu_capture_enter(void);
void libvgpu_capture_leave(void);

/* The calling thread's capture mode set to RELAXED (its old mode into
 * *old; 0 if it could not be), and back: the queue bound's event calls,
 * "potentially unsafe" in the other modes, are legal in it whatever
 * captures other threads have live. */
int libvgpu_capture_relax(CUstreamCaptureMode *old);
void libvgpu_capture_unrelax(CUstreamCaptureMode old);

/* A forked child forgets the parent's captures (init.c). */
void libvgpu_capture_reset(void);

#endif
