/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The OCI hooks of vgpuctl (hook.c) and the tenant they make or drop
 * (hook_tenant.c): "vgpuctl hook create-runtime QUOTAS..." and
 * "vgpuctl hook poststop", named by the CDI spec of cdi.c.
 */
#ifndef VGPU_CTL_HOOK_H
#define VGPU_CTL_HOOK_H

#include <stdbool.h>

#include "../../uapi/vgpu.h"
#include "../lib/spec_gen.h"

/* The labels a hook puts on a tenant, at most. */
#define VGPU_HOOK_LABELS	4

struct tenant_conf;

/* The tenant of a container or a pod. */
struct vgpuctl_hook_tenant {
	char name[VGPU_NAME_LEN_MAX + 1];
	char cgroup[VGPU_PATH_LEN_MAX + 1];	/* relative to the cgroup2 mount */
	bool pod;				/* shared by a pod's containers */
	struct tenant_conf *conf;		/* its quotas, parsed once (hook.c);
						 * the labels go in at make */
	int nlabels;
	const char *label_key[VGPU_HOOK_LABELS];
	const char *label_value[VGPU_HOOK_LABELS];
};

int vgpuctl_hook_tenant_make(const struct vgpuctl_hook_tenant *t);
int vgpuctl_hook_tenant_drop(const char *name, const char *cgroup);

#endif /* VGPU_CTL_HOOK_H */
