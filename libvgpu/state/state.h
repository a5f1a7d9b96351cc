/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process-wide state shared by libvgpu's units: the registration with
 * vgpu.ko (libvgpu_proc, defined and filled by register.c) and the compute
 * gate (libvgpu_gate, defined by gatedev.c), which the inlined launch fast
 * path reads. The functions over them are declared by each unit's header.
 */
#ifndef VGPU_STATE_H
#define VGPU_STATE_H

#include <pthread.h>
#include <stdint.h>

#include "../logic/charge.h"
#include "../logic/gate.h"
#include "../access/netlink.h"

enum vgpu_state {
	VGPU_ST_UNSET,		/* not yet asked (or a forked child) */
	VGPU_ST_ACTIVE,		/* registered: charge and enforce */
	VGPU_ST_PASS,		/* no module: pass everything through */
	VGPU_ST_DENIED,		/* no device: outside every tenant under host default
				 * deny, or a VGPU_GPUS request bad or refused */
};

struct vgpu_proc {
	int state;			/* enum vgpu_state, atomic */
	int nlfd, devfd;
	uint16_t family;
	struct vgpu_dev_page *page;
	const struct vgpu_dev_gate *gate;	/* read-only; NULL without one */
	struct vgpu_reg reg;
	int slot[VGPU_GPU_MAX];		/* inventory index -> reg.gpu[], or -1 */
	struct vgpu_charger charger;
	pthread_mutex_t nl_lk;		/* one request at a time on nlfd */
};

extern struct vgpu_proc libvgpu_proc;

/* The process's compute gate (gate.h); its ops are gatedev.c's. */
extern struct vgpu_gate libvgpu_gate;

/* The gate is on: registered with a gate page. */
static inline int vgpu_gating(void)
{
	return __atomic_load_n(&libvgpu_gate.gate, __ATOMIC_ACQUIRE) != NULL;
}

#endif
