/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The backstop below libvgpu: a tenant's vram-max and vram-min also set in
 * the driver (NVML's per-cgroup memory limits) or, without that, in the
 * kernel's dmem controller, so that a process that never loads libvgpu is
 * held to them too. Documentation/vram.md ("The backstop").
 *
 *   backstop_nvml.c  NVML, opened at run time: per-cgroup limits by UUID
 *   dmem.c           dmem.capacity, dmem.max, dmem.min (file I/O)
 *   backstop_read.c  the inventory and the tenants, read from vgpu.ko
 *   backstop.c       what a tenant wants on a GPU, applying it, the
 *                    "backstop sync" command and the hooks of tenant add,
 *                    set, replace, del and gpu add, probe
 *   backstop_show.c  the enforcement in force, for gpu show and tenant show
 */
#ifndef VGPU_CTL_BACKSTOP_H
#define VGPU_CTL_BACKSTOP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/attr.h>

#include "../../uapi/vgpu.h"
#include "../lib/nl.h"

/* No hard limit (NVML_DEVICE_MEMORY_LIMIT_MAX, and dmem's "max"). */
#define VGPU_BS_NONE	UINT64_MAX

/* What enforces a tenant's limits on a GPU below libvgpu. */
enum vgpu_bs_kind {
	VGPU_BS_LIBRARY,	/* nothing: libvgpu alone */
	VGPU_BS_DRIVER,		/* the driver's per-cgroup limits (NVML) */
	VGPU_BS_DMEM,		/* the dmem cgroup controller */
};

/* A GPU of the inventory. */
struct vgpu_bs_gpu {
	bool present;
	uint32_t index;
	char uuid[VGPU_UUID_LEN + 1];	/* "" when none */
	char pci[VGPU_PCI_LEN_MAX + 1];		/* "" when none */
	uint64_t vram;
};

/* What the backstop needs of a tenant. */
struct vgpu_bs_tenant {
	char name[VGPU_NAME_LEN_MAX + 1];
	char cgroup[VGPU_PATH_LEN_MAX + 1];	/* below the cgroup2 mount */
	bool removed;				/* cgroup-removed */
	bool has_max, has_min, has_gpus;
	uint64_t max, min, gpus;
};

/* Limits on one GPU: bytes; hard VGPU_BS_NONE and soft 0 are none. */
struct vgpu_bs_limits {
	uint64_t soft;
	uint64_t hard;
};

/* The quotas the backstop holds: a tenant set naming one re-applies it. */
#define VGPU_BACKSTOP_QUOTAS	(VGPU_QUOTA_VRAM_MAX | VGPU_QUOTA_VRAM_MIN | VGPU_QUOTA_GPUS)

/*
 * What a delete's backstop clears, read before the module forgets it: for
 * tenant del, the tenant (@n 1) and the inventory; for gpu del, every
 * tenant and the inventory with the GPU in it. The prepare step returns
 * it, the step after the delete takes it, the caller frees it.
 */
struct vgpuctl_bs_del {
	struct vgpu_bs_tenant *t;		/* @n of them */
	unsigned int n;
	struct vgpu_bs_gpu inv[VGPU_GPU_MAX];
};

/* What tenant show reads once for every tenant's backstop lines. */
struct vgpuctl_bs_show {
	bool ok;				/* inventory and mount read */
	struct vgpu_bs_gpu inv[VGPU_GPU_MAX];
	char mnt[VGPU_PATH_LEN_MAX + 1];
};

/* backstop.c */
int vgpuctl_backstop_after(struct vgpu_nl *nl, uint8_t cmd, const char *name, uint32_t seen,
			   const struct vgpuctl_bs_del *del);
void vgpuctl_backstop_want(const struct vgpu_bs_tenant *t, const struct vgpu_bs_gpu *g,
			   struct vgpu_bs_limits *out);
int vgpuctl_backstop_tenant(struct vgpu_nl *nl, const char *name, const char *done);
struct vgpuctl_bs_del *vgpuctl_backstop_prepare_del(struct vgpu_nl *nl, const char *name);
int vgpuctl_backstop_deleted(const char *name, const struct vgpuctl_bs_del *del);
int vgpuctl_backstop_gpu(struct vgpu_nl *nl, uint32_t index, const char *done);
struct vgpuctl_bs_del *vgpuctl_backstop_prepare_gpu_del(struct vgpu_nl *nl, uint32_t index);
int vgpuctl_backstop_gpu_deleted(uint32_t index, const struct vgpuctl_bs_del *del);
void vgpuctl_backstop_del_free(struct vgpuctl_bs_del *del);
int vgpuctl_cmd_backstop(int argc, char **argv);
void vgpuctl_usage_backstop(FILE *f);
/* Apply @want for tenant @t on GPU @g; 0, or -1 with @err filled. */
int vgpuctl_backstop_apply(const char *mnt, const struct vgpu_bs_tenant *t,
			   const struct vgpu_bs_gpu *g, const struct vgpu_bs_limits *want,
			   enum vgpu_bs_kind *kind, char *err, size_t errlen);

/* backstop_read.c */
int vgpuctl_bs_inventory(struct vgpu_nl *nl, struct vgpu_bs_gpu *inv);
int vgpuctl_bs_tenant_read(struct vgpu_nl *nl, const char *name, struct vgpu_bs_tenant *t);
int vgpuctl_bs_tenants(struct vgpu_nl *nl, struct vgpu_bs_tenant **out, unsigned int *n);
void vgpuctl_bs_tenant_from(struct nlattr **tb, struct vgpu_bs_tenant *t);
int vgpuctl_bs_mount(char *mnt, size_t len);

/* backstop_nvml.c */
bool vgpuctl_bs_nvml(void);
int vgpuctl_bs_nvml_get(const char *uuid, const char *dir, struct vgpu_bs_limits *l,
			const char **fail);
int vgpuctl_bs_nvml_set(const char *uuid, const char *dir, const struct vgpu_bs_limits *l,
			const char **fail);

/* backstop_show.c */
enum vgpu_bs_kind vgpuctl_backstop_kind(const struct vgpu_bs_gpu *g);
const char *vgpuctl_backstop_name(enum vgpu_bs_kind k);
void vgpuctl_backstop_print_gpu(struct nlattr **tb);
void vgpuctl_backstop_show_prepare(struct vgpuctl_bs_show *s);
void vgpuctl_backstop_print_tenant(const struct vgpuctl_bs_show *s, struct nlattr **tb);

#endif /* VGPU_CTL_BACKSTOP_H */
