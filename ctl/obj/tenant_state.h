/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tenant's suspension state as vgpuctl reads it from a tenant reply or
 * event (tenant_state.c): read, printed (tenant show, monitor), and the
 * line that ends tenant suspend and tenant resume.
 */
#ifndef VGPU_CTL_TENANT_STATE_H
#define VGPU_CTL_TENANT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../uapi/vgpu.h"

struct nlattr;

/* What a tenant reply says of suspension; absent attributes read as 0. */
struct vgpuctl_tstate {
	bool has_state;		/* the module sent a state */
	uint32_t state;		/* enum vgpu_tenant_state */
	uint64_t host_bytes;
	uint64_t suspended_ns;
	bool resume_wait;
	char reason[VGPU_REASON_LEN_MAX + 1];	/* "" when none */
};

void vgpuctl_tstate_read(struct nlattr **tb, struct vgpuctl_tstate *s);
const char *vgpuctl_tstate_name(uint32_t state);
bool vgpuctl_tstate_is_suspended(uint32_t state);
void vgpuctl_tstate_print(const struct vgpuctl_tstate *s);
void vgpuctl_tstate_bytes(uint64_t b, char *out, size_t len);

/* How a tenant suspend or resume ended, for vgpuctl_tstate_result(). */
struct vgpuctl_tstate_end {
	const char *name;	/* the tenant */
	bool resume;		/* tenant resume, else tenant suspend */
	unsigned int procs;	/* its processes marked suspended */
	uint64_t elapsed_ns;	/* from the request to the end */
};
int vgpuctl_tstate_result(char *buf, size_t len, const struct vgpuctl_tstate_end *e,
			  const struct vgpuctl_tstate *s);

/* tenant_procs.c: a tenant's state and its processes, read from the module. */
struct vgpu_nl;
int vgpuctl_tstate_get(struct vgpu_nl *nl, const char *name, struct vgpuctl_tstate *s);

/* One registered process of a tenant (proc-get), its GPUs summed. */
struct vgpuctl_tproc {
	uint32_t pid;
	bool suspended;		/* the module holds it suspended (proc-set) */
	uint64_t vram;		/* device bytes it holds, all GPUs */
	uint64_t parked;	/* bytes it holds in host memory, all GPUs */
};
int vgpuctl_tenant_procs(struct vgpu_nl *nl, const char *name, struct vgpuctl_tproc **out,
			 size_t *n);

#endif
