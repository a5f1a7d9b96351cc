/* SPDX-License-Identifier: GPL-2.0 */
/* The memory policy follows the tenant's NUMA nodes (placement.c). */
#ifndef VGPU_PLACEMENT_H
#define VGPU_PLACEMENT_H

#include <stdint.h>

#include "../access/netlink.h"
#include "../state/state.h"

extern uint32_t libvgpu_placement_seen;	/* placement_seq of the cached answer */
/* At registration: seq read before proc-register, the reply's mems. */
void libvgpu_placement_start(uint32_t seq, const struct vgpu_reg *reg);
/* A slow path: refresh the placement if the page says it changed (one
 * VGPU_IOC_PLACEMENT), then bind this thread if it is not bound to it.
 * Called by name where a thread is slow anyway: a budget refill
 * (account.c), a wait at the closed gate (launchgate.c). */
void libvgpu_placement_sync(void);
void libvgpu_placement_reset(void);
/* The allocation fast path's check: one load of the page and a compare. */
static inline void vgpu_placement_poll(void)
{
	if (__builtin_expect(__atomic_load_n(&libvgpu_proc.page->placement_seq, __ATOMIC_RELAXED) !=
			     __atomic_load_n(&libvgpu_placement_seen, __ATOMIC_RELAXED), 0))
		libvgpu_placement_sync();
}

#endif
