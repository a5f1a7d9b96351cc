/* SPDX-License-Identifier: GPL-2.0 */
/* The tenant's view of a GPU's memory (views.c). */
#ifndef VGPU_VIEWS_H
#define VGPU_VIEWS_H

#include <stdint.h>

#include "../../uapi/vgpu_dev.h"

struct vgpu_view {
	uint64_t total, used, free;
};

/* 1 with *v filled when the tenant's view applies to inventory GPU gpu;
 * 0: show the driver's figures. */
int libvgpu_view(int gpu, struct vgpu_view *v);
/* The formula of uapi/vgpu_dev.h, never negative. */
static inline void vgpu_view_compute(const struct vgpu_dev_meminfo *mi, struct vgpu_view *v)
{
	uint64_t room;

	v->total = mi->limit < mi->capacity ? mi->limit : mi->capacity;
	v->used = mi->tenant_used;
	room = mi->room < v->total ? mi->room : v->total;
	v->free = room > v->used ? room - v->used : 0;
}

#endif
