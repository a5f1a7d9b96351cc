/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flavours: named quota sets an admin declares in the configuration files
 * (conf.h), one "flavour NAME [QUOTA VALUE]..." object each, with exactly
 * the quota words "tenant add" takes. A container asks for one by name
 * (the CDI device vgpu.io/tenant=NAME, cdi.c) and its tenant gets them.
 */
#ifndef VGPU_CTL_FLAVOUR_H
#define VGPU_CTL_FLAVOUR_H

#include <stddef.h>

#include "conf.h"

/* Longest flavour name (it names a CDI device, and a tenant may carry it). */
#define VGPU_FLAVOUR_NAME_MAX	63

struct vgpuctl_flavour {
	const struct vgpuctl_conf_rec *rec;	/* where it was declared */
	const char *name;
	int argc;				/* its QUOTA VALUE words */
	char **argv;
};

int vgpuctl_flavour_name_valid(const char *name);
int vgpuctl_flavours(const struct vgpuctl_conf *c, struct vgpuctl_flavour **out, size_t *n);

#endif /* VGPU_CTL_FLAVOUR_H */
