/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpuctl apply: the state the configuration files ask for (apply_load.c
 * reads it from conf.c's records with the parsers of gpu add, set and
 * tenant add), the state the module holds (apply.c reads it), and the
 * changes from one to the other (apply_diff.c), kept apart from netlink
 * so that the unit tests can diff plain structures.
 */
#ifndef VGPU_CTL_APPLY_H
#define VGPU_CTL_APPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../conf/conf.h"
#include "../obj/tenant.h"
#include "../vgpuctl.h"

struct apply_tenant {
	char name[VGPU_NAME_LEN_MAX + 1];
	char cgroup[VGPU_PATH_LEN_MAX + 1];	/* as the kernel holds it */
	struct tenant_conf q;	/* quotas, labels and ephemeral */
	uint32_t id;		/* module: its id, for the process dump */
	unsigned int procs;	/* module: registered processes */
	const struct vgpuctl_conf_rec *rec;	/* files: where it is declared */
};

struct apply_gpu {
	struct vgpuctl_gpu_add g;
	const struct vgpuctl_conf_rec *rec;	/* files only */
};

/* What the files ask for, or what the module holds. */
struct apply_state {
	const struct vgpuctl_conf_rec *probe;	/* files: a "gpu probe" line */
	struct apply_gpu *gpus;
	size_t ngpus;
	bool has_policy, has_gid;
	uint32_t policy, gid;
	const struct vgpuctl_conf_rec *policy_rec, *gid_rec;
	struct apply_tenant *tenants;
	size_t ntenants;
};

enum apply_kind { APPLY_HOST, APPLY_GPU_ADD, APPLY_TENANT_DEL, APPLY_TENANT_ADD,
		  APPLY_TENANT_SET, APPLY_KEEP };

/* One change: @words says it in vgpuctl's words, the rest does it. */
struct apply_change {
	enum apply_kind kind;
	char words[4096];
	const struct apply_tenant *t;	/* tenant add, del, keep */
	const struct apply_gpu *gpu;
	bool policy, gid;		/* host: what to set */
	struct tenant_conf set;		/* tenant set: only what differs */
};

struct apply_plan {
	struct apply_change *c;
	size_t n;
};

int vgpuctl_apply_load(const struct vgpuctl_conf *conf, const char *mnt, struct apply_state *want);
int vgpuctl_apply_diff(const struct apply_state *want, const struct apply_state *have,
		       bool prune, struct apply_plan *plan);
void vgpuctl_apply_state_free(struct apply_state *s);
void vgpuctl_apply_plan_free(struct apply_plan *p);

#endif /* VGPU_CTL_APPLY_H */
