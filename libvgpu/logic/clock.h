/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The monotonic clock in nanoseconds. Inline in a header of its own: the
 * pure logic (gate.c, queue.c) is linked alone into bench/gate-bench and
 * the unit tests, and capture.c's waits read the same clock.
 */
#ifndef VGPU_CLOCK_H
#define VGPU_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t libvgpu_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

#endif
