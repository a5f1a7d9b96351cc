// SPDX-License-Identifier: GPL-2.0
/*
 * What the process holds on a device, and its growth across a driver
 * call (moved here from ctx.c and ctxgrow.c so that lazyload.c, below the
 * wrappers that call it, can measure too): ctx.c measures contexts with
 * libvgpu_dev_used, ctxgrow.c and lazyload.c code and limits with
 * libvgpu_grow_start / libvgpu_grow_end.
 */
#include <errno.h>
#include <pthread.h>
#include <unistd.h>

#include "growth.h"
#include "../policy/account.h"
#include "../state/devmap.h"
#include "../state/state.h"
#include "../access/log.h"
#include "../logic/ptrmap.h"
#include "../policy/register.h"

static int vgpu_nvml_state;	/* 0 untried, 1 usable, -1 not */
static pthread_mutex_t vgpu_nvml_lk = PTHREAD_MUTEX_INITIALIZER;

/* In a forked child (ctx.c's reset): whether NVML answers is kept. */
void libvgpu_growth_reset(void)
{
	pthread_mutex_init(&vgpu_nvml_lk, NULL);
}

static int nvml_ready(void)
{
	int st = __atomic_load_n(&vgpu_nvml_state, __ATOMIC_ACQUIRE);
	vgpu_pfn_nvmlInit_v2 init;

	if (st)
		return st > 0;
	pthread_mutex_lock(&vgpu_nvml_lk);
	if (!vgpu_nvml_state) {
		init = REAL(nvmlInit_v2);
		vgpu_nvml_state = init && init() == NVML_SUCCESS ? 1 : -1;
		if (vgpu_nvml_state < 0)
			libvgpu_log(VGPU_LOG_INFO, "NVML unavailable: contexts are measured "
				    "with cuMemGetInfo where possible");
	}
	st = vgpu_nvml_state;
	pthread_mutex_unlock(&vgpu_nvml_lk);
	return st > 0;
}

/* What this process holds on the NVML device h; 0 on success. NVML names
 * processes by their pid in the initial pid namespace, which the module
 * told us at registration (getpid() differs in a container). */
static int own_used(nvmlDevice_t h, uint64_t *used)
{
	vgpu_pfn_nvmlDeviceGetComputeRunningProcesses_v3 list =
		REAL(nvmlDeviceGetComputeRunningProcesses_v3);
	nvmlProcessInfo_t p[256];
	unsigned int n = 256, i;
	unsigned int me = vgpu_active() ? libvgpu_proc.reg.host_pid : (unsigned int)getpid();

	if (!list || list(h, &n, p) != NVML_SUCCESS)
		return -1;
	*used = 0;
	for (i = 0; i < n; i++) {
		if (p[i].pid != me)
			continue;
		if (p[i].usedGpuMemory == (unsigned long long)NVML_VALUE_NOT_AVAILABLE)
			return -1;
		*used = p[i].usedGpuMemory;
	}
	return 0;
}

/* Used bytes of CUDA device dev, this process's where NVML tells them,
 * else the whole device's; 0 on success (also ctxgrow.c's measure). */
int libvgpu_dev_used(CUdevice dev, uint64_t *used)
{
	vgpu_pfn_cuDeviceGetUuid_v2 uuidf = REAL(cuDeviceGetUuid_v2);
	CUuuid u;

	if (nvml_ready() && uuidf && !uuidf(&u, dev)) {
		vgpu_pfn_nvmlDeviceGetHandleByUUID byuuid = REAL(nvmlDeviceGetHandleByUUID);
		vgpu_pfn_nvmlDeviceGetMemoryInfo info = REAL(nvmlDeviceGetMemoryInfo);
		char s[VGPU_UUID_LEN + 1];
		nvmlDevice_t h;
		nvmlMemory_t m;

		libvgpu_uuid_str(&u, s);
		if (byuuid && !byuuid(s, &h) && !own_used(h, used))
			return 0;
		if (byuuid && info && !byuuid(s, &h) && !info(h, &m)) {
			*used = m.used;
			return 0;
		}
	}
	{
		vgpu_pfn_cuCtxGetDevice getdev = REAL(cuCtxGetDevice);
		vgpu_pfn_cuMemGetInfo_v2 mi = REAL(cuMemGetInfo_v2);
		CUdevice d;
		size_t f, t;

		if (getdev && mi && !getdev(&d) && d == dev && !mi(&f, &t)) {
			*used = t - f;
			return 0;
		}
	}
	return -1;
}

void libvgpu_grow_start(struct libvgpu_growth *g)
{
	vgpu_pfn_cuCtxGetDevice getdev = REAL(cuCtxGetDevice);

	g->gpu = VGPU_GPU_SKIP;
	if (!vgpu_active() || !getdev || getdev(&g->dev))
		return;
	g->gpu = libvgpu_cur_gpu(&g->ctx);
	if (g->gpu >= 0 && libvgpu_dev_used(g->dev, &g->before))
		g->gpu = VGPU_GPU_SKIP;
}

/* Charge the growth since grow_start to (kind, key), or give back what
 * it shrank (at most what the entry holds): 0, or -ENOMEM (refused). */
int libvgpu_grow_end(struct libvgpu_growth *g, uint32_t kind, uint64_t key)
{
	struct vgpu_alloc a;
	struct vgpu_tx tx;
	uint64_t after;

	if (g->gpu < 0 || libvgpu_dev_used(g->dev, &after) || after == g->before)
		return 0;
	if (!libvgpu_ptrmap_take(kind, key, &a))
		a = (struct vgpu_alloc){ key, 0, g->ctx, g->gpu, kind };
	if (after > g->before) {
		if (libvgpu_tx_begin(&tx, g->gpu, after - g->before)) {
			if (a.bytes)
				libvgpu_put_back(&a);
			return -ENOMEM;
		}
		libvgpu_tx_keep(&tx);
		a.bytes += after - g->before;
	} else {
		uint64_t d = g->before - after < a.bytes ? g->before - after : a.bytes;

		libvgpu_uncharge(&libvgpu_proc.charger, a.gpu, d);
		a.bytes -= d;
	}
	if (a.bytes)
		libvgpu_put_back(&a);
	return 0;
}
