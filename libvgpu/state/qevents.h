/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The queue bound's driver side (qevents.c): the process's queue
 * (queue.h) with the driver's event calls, configured from the
 * environment at registration.
 */
#ifndef VGPU_QEVENTS_H
#define VGPU_QEVENTS_H

#include "../logic/queue.h"

#define VGPU_MARK_DEFAULT 4	/* M */
#define VGPU_DEPTH_DEFAULT 4	/* K */
/* The queued device time M and K adapt to: well within the module's
 * default drain timeout; a thread records a mark at least every
 * 1/VGPU_QUEUE_DEFER_DIV of it (queue.h). */
#define VGPU_TARGET_US_DEFAULT 40000

/* The process's queue bound; ctx.c tells it of contexts going away. */
extern struct vgpu_queue libvgpu_queue;

/* M and K from VGPU_QUEUE_MARK, VGPU_QUEUE_DEPTH and VGPU_QUEUE_US
 * (registration): set in libvgpu_queue and the gate's mark_mask. */
void libvgpu_queue_config(void);

#endif
