// SPDX-License-Identifier: GPL-2.0
/*
 * The tenant's device view. A tenant with a `gpus` quota (some inventory
 * GPUs denied to it) sees exactly its own GPUs, in inventory order, as
 * devices 0..n-1, and nothing of the others. CUDA: before the real cuInit
 * libvgpu sets CUDA_VISIBLE_DEVICES to their UUIDs, so the driver itself
 * enumerates only them, in that order, and every device-taking call needs
 * no translation; the tenant's own CUDA_VISIBLE_DEVICES is read first as a
 * choice among its devices (indices into the view, or UUIDs of its GPUs;
 * as the driver does, the first invalid entry ends the list). Children
 * inherit the rewritten variable, which reads the same (UUIDs of the
 * tenant's GPUs) when their libvgpu translates it again. NVML ignores the
 * variable: nvmlview.c maps its enumeration onto the view. Without a
 * quota, outside every tenant or without the module: no view, the
 * driver's enumeration as is.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "devview.h"
#include "log.h"
#include "register.h"
#include "state.h"

static struct {
	int on;
	int n;
	char uuid[VGPU_GPU_MAX][VGPU_UUID_LEN + 1];
} vgpu_devview;

void libvgpu_devview_build(const struct vgpu_reg *reg)
{
	int denied = 0;

	vgpu_devview.n = 0;
	for (int i = 0; i < reg->ngpu; i++)
		denied += reg->gpu[i].denied;
	vgpu_devview.on = reg->in_tenant && denied;
	if (!vgpu_devview.on)
		return;
	/* Inventory order: by index, whatever the reply's order. */
	for (uint32_t idx = 0; idx < VGPU_GPU_MAX; idx++)
		for (int i = 0; i < reg->ngpu; i++)
			if (reg->gpu[i].index == idx && !reg->gpu[i].denied)
				memcpy(vgpu_devview.uuid[vgpu_devview.n++], reg->gpu[i].uuid,
				       VGPU_UUID_LEN + 1);
}

int libvgpu_devview_on(void)
{
	return vgpu_active() && vgpu_devview.on;
}

int libvgpu_devview_count(void)
{
	return vgpu_devview.n;
}

const char *libvgpu_devview_uuid(int v)
{
	return vgpu_devview.uuid[v];
}

int libvgpu_devview_find(const char *uuid)
{
	for (int v = 0; v < vgpu_devview.n; v++)
		if (!strcasecmp(vgpu_devview.uuid[v], uuid))
			return v;
	return -1;
}

/* The view's device an entry of CUDA_VISIBLE_DEVICES names, or -1: an
 * index into the view, or a UUID (or unique "GPU-" prefix) of the view. */
static int entry(const char *e, size_t len)
{
	int found = -1;

	if (len && isdigit((unsigned char)e[0])) {
		long v = 0;

		for (size_t i = 0; i < len; i++) {
			if (!isdigit((unsigned char)e[i]) || v > VGPU_GPU_MAX)
				return -1;
			v = v * 10 + (e[i] - '0');
		}
		return v < vgpu_devview.n ? (int)v : -1;
	}
	if (len < 5 || strncmp(e, "GPU-", 4))
		return -1;
	for (int v = 0; v < vgpu_devview.n; v++) {
		if (strncasecmp(vgpu_devview.uuid[v], e, len))
			continue;
		if (found >= 0)
			return -1;
		found = v;
	}
	return found;
}

/* The tenant's choice (cvd, or every device when NULL) into out[]. */
static int choose(const char *cvd, int *out)
{
	int n = 0;

	if (!cvd) {
		for (n = 0; n < vgpu_devview.n; n++)
			out[n] = n;
		return n;
	}
	while (n < vgpu_devview.n) {
		size_t len = strcspn(cvd, ",");
		const char *e = cvd;
		int v;

		while (len && isspace((unsigned char)*e)) {
			e++;
			len--;
		}
		while (len && isspace((unsigned char)e[len - 1]))
			len--;
		v = entry(e, len);
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

void libvgpu_devview_cuda_env(void)
{
	char val[VGPU_GPU_MAX * (VGPU_UUID_LEN + 1) + 1];
	const char *cvd;
	int pick[VGPU_GPU_MAX], n;
	size_t off = 0;

	if (!libvgpu_devview_on())
		return;
	cvd = getenv("CUDA_VISIBLE_DEVICES");
	n = choose(cvd, pick);
	for (int i = 0; i < n; i++) {
		memcpy(val + off, vgpu_devview.uuid[pick[i]], strlen(vgpu_devview.uuid[pick[i]]));
		off += strlen(vgpu_devview.uuid[pick[i]]);
		val[off++] = i + 1 < n ? ',' : 0;
	}
	/* No device: an entry no driver takes, so none is visible. */
	if (!n)
		strcpy(val, "-1");
	libvgpu_log(VGPU_LOG_INFO, "device view: %d of the tenant's %d GPUs (CUDA_VISIBLE_DEVICES "
		    "%s%s%s): the driver gets CUDA_VISIBLE_DEVICES=%s", n, vgpu_devview.n,
		    cvd ? "\"" : "", cvd ? cvd : "unset", cvd ? "\"" : "", val);
	setenv("CUDA_VISIBLE_DEVICES", val, 1);
}
