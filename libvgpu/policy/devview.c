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
 * inherit the rewritten variable; what libvgpu wrote and the user's own
 * value go with it (VGPU_CVD_SET, VGPU_CVD_USER), so a child that has a
 * choice of its own (VGPU_GPUS) reads the user's value within its own view,
 * and a worker without one keeps its parent's devices. NVML ignores the
 * variable: nvmlview.c maps its enumeration onto the view. Without a
 * quota, outside every tenant or without the module: no view, the
 * driver's enumeration as is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../logic/cvd.h"
#include "devview.h"
#include "../access/env.h"
#include "../access/log.h"
#include "../state/state.h"

static struct {
	int on;
	int own;	/* the process asked for GPUs of its own (VGPU_GPUS) */
	int n;
	char uuid[VGPU_GPU_MAX][VGPU_UUID_LEN + 1];
} vgpu_devview;

void libvgpu_devview_build(const struct vgpu_reg *reg, int own)
{
	int denied = 0;

	vgpu_devview.n = 0;
	vgpu_devview.own = own;
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

int libvgpu_devview_built(void)
{
	return vgpu_devview.on;
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

/* Sets CUDA_VISIBLE_DEVICES to val, keeping the user's value (user, NULL
 * when unset) and val beside it for children (libvgpu_cvd_source()).
 * Through env.c: other threads may be reading the environment. */
static void cvd_write(const char *user, const char *val)
{
	if (libvgpu_env_set("VGPU_CVD_USER", user) || libvgpu_env_set("VGPU_CVD_SET", val) ||
	    libvgpu_env_set("CUDA_VISIBLE_DEVICES", val))
		libvgpu_log(VGPU_LOG_ERROR, "device view: out of memory writing the environment: "
			    "the driver may see more GPUs than the tenant's");
}

void libvgpu_devview_cuda_env(void)
{
	const struct vgpu_cvd_view view = { vgpu_devview.n, vgpu_devview.uuid };
	const struct vgpu_cvd_env env = {
		getenv("CUDA_VISIBLE_DEVICES"), getenv("VGPU_CVD_SET"), getenv("VGPU_CVD_USER"),
	};
	char val[VGPU_GPU_MAX * (VGPU_UUID_LEN + 1) + 3];
	char copy[sizeof(val) + 64];
	const char *cvd;
	int pick[VGPU_GPU_MAX], n, user;

	/* cuInit registered first (init.c): read, do not register. */
	if (__atomic_load_n(&libvgpu_proc.state, __ATOMIC_ACQUIRE) != VGPU_ST_ACTIVE)
		return;
	cvd = libvgpu_cvd_source(vgpu_devview.on ? &view : NULL, vgpu_devview.own, &env, &user);
	/* A copy: what cvd points into may be replaced below. */
	if (cvd)
		snprintf(copy, sizeof(copy), "%s", cvd);
	if (!vgpu_devview.on) {
		/* Every GPU its own (auto:N of all): the user's value as is. */
		if (user)
			libvgpu_env_set("CUDA_VISIBLE_DEVICES", cvd ? copy : NULL);
		return;
	}
	n = libvgpu_cvd_choose(&view, cvd, pick);
	libvgpu_cvd_format(&view, pick, n, val, sizeof(val));
	libvgpu_log(VGPU_LOG_INFO, "device view: %d of the tenant's %d GPUs (CUDA_VISIBLE_DEVICES "
		    "%s%s%s%s): the driver gets CUDA_VISIBLE_DEVICES=%s", n, vgpu_devview.n,
		    cvd ? "\"" : "", cvd ? copy : "unset", cvd ? "\"" : "",
		    user ? ", the user's, under what libvgpu wrote for a parent" : "", val);
	cvd_write(cvd ? copy : NULL, val);
}
