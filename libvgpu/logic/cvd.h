/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUDA_VISIBLE_DEVICES read against a device view (cvd.c): pure logic,
 * no environment, no state; devview.c gives it the view and the values.
 */
#ifndef VGPU_CVD_H
#define VGPU_CVD_H

#include <stddef.h>

#include "../../uapi/vgpu.h"

/* A device view: n GPUs' UUIDs, its devices 0..n-1. */
struct vgpu_cvd_view {
	int n;
	const char (*uuid)[VGPU_UUID_LEN + 1];
};

/*
 * The devices a CUDA_VISIBLE_DEVICES value chooses into out[] (room for
 * view->n), their count returned: every device when cvd is NULL, else its
 * entries in order, each an index into the view or a UUID (or unique
 * "GPU-" prefix) of it; as the driver does, the first invalid entry (or a
 * repeat) ends the list.
 */
int libvgpu_cvd_choose(const struct vgpu_cvd_view *view, const char *cvd, int *out);

/* The values a process finds: the variable, what libvgpu wrote for an
 * ancestor (VGPU_CVD_SET) and the user's value then (VGPU_CVD_USER); NULL
 * for unset. */
struct vgpu_cvd_env {
	const char *cvd, *set, *user;
};

/*
 * The value to read as the process's choice: cvd, unless it is what
 * libvgpu wrote for an ancestor (equal to set). Then it names the
 * ancestor's GPUs, kept by a process without a choice of its own (own 0)
 * while all are in its view (or it has no view, view NULL); otherwise the
 * user's value, and *from_user is set.
 */
const char *libvgpu_cvd_source(const struct vgpu_cvd_view *view, int own,
			       const struct vgpu_cvd_env *env, int *from_user);

/* The chosen devices' UUIDs, comma-separated, into buf (size at least
 * n * (VGPU_UUID_LEN + 1) + 3); "-1", which no driver takes, for none. */
void libvgpu_cvd_format(const struct vgpu_cvd_view *view, const int *pick, int n,
			char *buf, size_t size);

#endif
