// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA devices to inventory GPUs. A CUDA ordinal depends on
 * CUDA_VISIBLE_DEVICES and the driver's ordering; the inventory's index
 * does not. They meet on the UUID: cuDeviceGetUuid(_v2), printed in NVML's
 * form, against the uuids of the proc-register reply. Answers are cached
 * per ordinal, and per thread for the current context.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "devmap.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "state.h"

#define VGPU_DEVS 256
#define VGPU_DEV_UNKNOWN (-100)

static int vgpu_devmap[VGPU_DEVS];
static unsigned int vgpu_devmap_gen = 1;	/* 0 never matches a thread's cache */

static __thread CUcontext vgpu_tls_ctx;
static __thread int vgpu_tls_gpu;
static __thread unsigned int vgpu_tls_gen;

__attribute__((constructor)) static void devmap_init(void)
{
	for (int i = 0; i < VGPU_DEVS; i++)
		vgpu_devmap[i] = VGPU_DEV_UNKNOWN;
}

void libvgpu_devmap_reset(void)
{
	for (int i = 0; i < VGPU_DEVS; i++)
		__atomic_store_n(&vgpu_devmap[i], VGPU_DEV_UNKNOWN, __ATOMIC_RELAXED);
	__atomic_add_fetch(&vgpu_devmap_gen, 1, __ATOMIC_RELEASE);
}

void libvgpu_uuid_str(const CUuuid *u, char out[VGPU_UUID_LEN + 1])
{
	const unsigned char *b = (const unsigned char *)u->bytes;

	snprintf(out, VGPU_UUID_LEN + 1,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10],
		 b[11], b[12], b[13], b[14], b[15]);
}

int libvgpu_uuid_gpu(const char *uuid)
{
	for (int i = 0; i < libvgpu_proc.reg.ngpu; i++)
		if (!strcasecmp(libvgpu_proc.reg.gpu[i].uuid, uuid))
			return (int)libvgpu_proc.reg.gpu[i].index;
	return VGPU_GPU_NONE;
}

int libvgpu_dev_gpu(CUdevice dev)
{
	vgpu_pfn_cuDeviceGetUuid_v2 get2;
	vgpu_pfn_cuDeviceGetUuid get1;
	char s[VGPU_UUID_LEN + 1];
	CUuuid u;
	int g;

	if (dev < 0 || __atomic_load_n(&libvgpu_proc.state, __ATOMIC_ACQUIRE) != VGPU_ST_ACTIVE)
		return VGPU_GPU_SKIP;
	if (dev < VGPU_DEVS) {
		g = __atomic_load_n(&vgpu_devmap[dev], __ATOMIC_RELAXED);
		if (g != VGPU_DEV_UNKNOWN)
			return g;
	}
	get2 = REAL(cuDeviceGetUuid_v2);
	get1 = REAL(cuDeviceGetUuid);
	if ((get2 ? get2(&u, dev) : get1 ? get1(&u, dev) : CUDA_ERROR_NOT_FOUND) != CUDA_SUCCESS)
		return VGPU_GPU_SKIP;
	libvgpu_uuid_str(&u, s);
	g = libvgpu_uuid_gpu(s);
	if (g == VGPU_GPU_NONE)
		libvgpu_log(VGPU_LOG_INFO, "CUDA device %d (%s) is not in the vgpu inventory: "
			    "host default %s", dev, s,
			    libvgpu_proc.reg.policy == VGPU_DEFAULT_POLICY_DENY ? "deny" : "allow");
	else
		libvgpu_log(VGPU_LOG_DEBUG, "CUDA device %d is inventory GPU %d (%s)", dev, g, s);
	if (dev < VGPU_DEVS)
		__atomic_store_n(&vgpu_devmap[dev], g, __ATOMIC_RELAXED);
	return g;
}

int libvgpu_cur_gpu(CUcontext *ctx)
{
	vgpu_pfn_cuCtxGetCurrent cur = REAL(cuCtxGetCurrent);
	vgpu_pfn_cuCtxGetDevice getdev = REAL(cuCtxGetDevice);
	unsigned int gen = __atomic_load_n(&vgpu_devmap_gen, __ATOMIC_ACQUIRE);
	CUcontext c = NULL;
	CUdevice dev;
	int g;

	*ctx = NULL;
	if (__atomic_load_n(&libvgpu_proc.state, __ATOMIC_ACQUIRE) != VGPU_ST_ACTIVE)
		return VGPU_GPU_SKIP;
	if (!cur || !getdev || cur(&c) || !c)
		return VGPU_GPU_SKIP;
	*ctx = c;
	if (c == vgpu_tls_ctx && gen == vgpu_tls_gen)
		return vgpu_tls_gpu;
	if (getdev(&dev))
		return VGPU_GPU_SKIP;
	g = libvgpu_dev_gpu(dev);
	if (g != VGPU_GPU_SKIP) {
		vgpu_tls_ctx = c;
		vgpu_tls_gpu = g;
		vgpu_tls_gen = gen;
	}
	return g;
}
