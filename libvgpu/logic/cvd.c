// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA_VISIBLE_DEVICES against a device view: which of the view's devices
 * a value chooses, whether a value is the user's or one libvgpu wrote for
 * a parent, and the value given to the driver. The driver's own rules
 * (CUDA Programming Guide, "CUDA Environment Variables"): a list of
 * indices or UUIDs, the first invalid entry ending it.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cvd.h"

/* The view's device an entry names, or -1: an index into the view, or a
 * UUID (or unique "GPU-" prefix) of the view. */
static int entry(const struct vgpu_cvd_view *view, const char *e, size_t len)
{
	int found = -1;

	if (len && isdigit((unsigned char)e[0])) {
		long v = 0;

		for (size_t i = 0; i < len; i++) {
			if (!isdigit((unsigned char)e[i]) || v > VGPU_GPU_MAX)
				return -1;
			v = v * 10 + (e[i] - '0');
		}
		return v < view->n ? (int)v : -1;
	}
	if (len < 5 || strncmp(e, "GPU-", 4))
		return -1;
	for (int v = 0; v < view->n; v++) {
		if (strncasecmp(view->uuid[v], e, len))
			continue;
		if (found >= 0)
			return -1;
		found = v;
	}
	return found;
}

int libvgpu_cvd_choose(const struct vgpu_cvd_view *view, const char *cvd, int *out)
{
	int n = 0;

	if (!cvd) {
		for (n = 0; n < view->n; n++)
			out[n] = n;
		return n;
	}
	while (n < view->n) {
		size_t len = strcspn(cvd, ",");
		const char *e = cvd;
		int v;

		while (len && isspace((unsigned char)*e)) {
			e++;
			len--;
		}
		while (len && isspace((unsigned char)e[len - 1]))
			len--;
		v = entry(view, e, len);
		for (int i = 0; v >= 0 && i < n; i++)
			if (out[i] == v)
				v = -1;
		if (v < 0)
			break;
		out[n++] = v;
		cvd += strcspn(cvd, ",");
		if (!*cvd++)
			break;
	}
	return n;
}

/* How many entries a value lists. */
static int entries(const char *cvd)
{
	int n = 1;

	for (; *cvd; cvd++)
		n += *cvd == ',';
	return n;
}

const char *libvgpu_cvd_source(const struct vgpu_cvd_view *view, int own,
			       const struct vgpu_cvd_env *env, int *from_user)
{
	int pick[VGPU_GPU_MAX];

	*from_user = 0;
	if (!env->cvd || !env->set || strcmp(env->cvd, env->set))
		return env->cvd;
	if (!own && (!view || libvgpu_cvd_choose(view, env->cvd, pick) == entries(env->cvd)))
		return env->cvd;
	*from_user = 1;
	return env->user;
}

void libvgpu_cvd_format(const struct vgpu_cvd_view *view, const int *pick, int n,
			char *buf, size_t size)
{
	size_t off = 0;

	snprintf(buf, size, "-1");
	for (int i = 0; i < n && off < size; i++)
		off += snprintf(buf + off, size - off, "%s%s", i ? "," : "", view->uuid[pick[i]]);
}
