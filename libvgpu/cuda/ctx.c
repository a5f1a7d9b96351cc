// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts take VRAM of their own (hundreds of MiB on NVIDIA GPUs;
 * SIMGPU_CTX_VRAM under simgpu). libvgpu measures what a context really
 * took, the device's used memory just before and just after its creation,
 * and charges that once the context exists (a refused charge destroys the
 * context again and fails the call with CUDA_ERROR_OUT_OF_MEMORY). The
 * process's own used memory is read through NVML's running-process list
 * (which needs no context), so other processes allocating at the same
 * moment do not disturb it; where NVML does not give a process's usage,
 * the device's used memory is read instead (NVML, else cuMemGetInfo in a
 * context of the same device already current), which other processes can
 * disturb; the measurement is clamped at 0. Without either, the context is
 * not charged (logged).
 *
 * cuCtxDestroy gives back the context's charge and the charges of every
 * allocation bound to it (cuMemAlloc, pitch, managed, arrays, graph
 * memory): the driver frees them with it. The primary context is charged
 * at its first retain and given back when its last reference is released
 * or it is reset.
 */
#include <string.h>
#include <unistd.h>

#include "../policy/account.h"
#include "ctx.h"
#include "growth.h"
#include "lazyload.h"
#include "../state/ctxmap.h"
#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "../logic/ptrmap.h"
#include "../state/qevents.h"
#include "../policy/register.h"
#include "../state/state.h"
#include "../access/nest.h"

#define VGPU_PRIMARY_MAX 256

static int vgpu_prim_refs[VGPU_PRIMARY_MAX];
static CUcontext vgpu_prim_ctx[VGPU_PRIMARY_MAX];

/* Before creating a context on dev: 0, or CUDA_ERROR_OUT_OF_MEMORY if the
 * process may not use the GPU at all. */
CUresult libvgpu_ctx_measure_start(struct libvgpu_ctx_measure *m, CUdevice dev)
{
	struct vgpu_tx probe;
	CUresult rc;

	m->ok = 0;
	m->gpu = VGPU_GPU_SKIP;
	m->dev = dev;
	if (!vgpu_active())
		return libvgpu_ensure() == VGPU_ST_DENIED ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_SUCCESS;
	m->gpu = libvgpu_dev_gpu(dev);
	/* A zero charge only routes: refuses denied GPUs and deny default. */
	rc = libvgpu_tx_begin(&probe, m->gpu, 0);
	if (rc)
		return rc;
	if (m->gpu >= 0)
		m->ok = !libvgpu_dev_used(dev, &m->before);
	return CUDA_SUCCESS;
}

/* After the context c was created: charge what it took. */
CUresult libvgpu_ctx_measure_end(struct libvgpu_ctx_measure *m, CUcontext c)
{
	struct vgpu_tx tx;
	uint64_t after = 0, took = 0;
	CUresult rc;

	if (m->gpu < 0)
		return CUDA_SUCCESS;
	if (m->ok && !libvgpu_dev_used(m->dev, &after) && after > m->before)
		took = after - m->before;
	if (!m->ok)
		libvgpu_log(VGPU_LOG_INFO, "cannot measure the new context on device %d: "
			    "not charged", m->dev);
	rc = libvgpu_tx_begin(&tx, m->gpu, took);
	if (rc)
		return rc;
	libvgpu_tx_commit(&tx, VGPU_K_CTX, (uint64_t)(uintptr_t)c, NULL);
	libvgpu_log(VGPU_LOG_DEBUG, "context %p on GPU %d: %llu bytes", (void *)c, m->gpu,
		    (unsigned long long)took);
	return CUDA_SUCCESS;
}

/* A context is gone: its own charge and everything bound to it. */
void libvgpu_ctx_gone(CUcontext c)
{
	struct vgpu_alloc a;

	if (libvgpu_ptrmap_take(VGPU_K_CTX, (uint64_t)(uintptr_t)c, &a))
		libvgpu_release(&a);
	libvgpu_ptrmap_take_ctx(c, libvgpu_release_cb, NULL);
	libvgpu_devmap_reset();	/* the handle may come back for another device */
	libvgpu_ctx_forget(c);
	libvgpu_lazy_ctx_gone(c);
}

static CUresult created(struct libvgpu_ctx_measure *m, CUresult rc, CUcontext *pctx)
{
	vgpu_pfn_cuCtxDestroy_v2 destroy = REAL(cuCtxDestroy_v2);

	if (rc || !pctx)
		return rc;
	rc = libvgpu_ctx_measure_end(m, *pctx);
	if (rc && destroy) {
		destroy(*pctx);
		*pctx = NULL;
	} else if (!rc) {
		libvgpu_ctx_note(*pctx, m->gpu, 1);	/* created current */
		libvgpu_lazy_ctx_note(*pctx);
	}
	return rc;
}

/* cuCtxCreate and cuCtxCreate_v2, which take the same arguments. */
static CUresult create(vgpu_pfn_cuCtxCreate_v2 real, CUcontext *pctx, unsigned int flags,
		       CUdevice dev)
{
	struct libvgpu_ctx_measure m;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_ctx_measure_start(&m, dev);
	return rc ? rc : created(&m, real(pctx, flags, dev), pctx);
}

VGPU_EXPORT CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	VGPU_PASS_NESTED(cuCtxCreate, (pctx, flags, dev));
	return create(REAL(cuCtxCreate), pctx, flags, dev);
}

VGPU_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	VGPU_PASS_NESTED(cuCtxCreate_v2, (pctx, flags, dev));
	return create(REAL(cuCtxCreate_v2), pctx, flags, dev);
}

VGPU_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
				    int numParams, unsigned int flags, CUdevice dev)
{
	VGPU_PASS_NESTED(cuCtxCreate_v3, (pctx, paramsArray, numParams, flags, dev));
	vgpu_pfn_cuCtxCreate_v3 real = REAL(cuCtxCreate_v3);
	struct libvgpu_ctx_measure m;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_ctx_measure_start(&m, dev);
	return rc ? rc : created(&m, real(pctx, paramsArray, numParams, flags, dev), pctx);
}

#if CUDA_VERSION >= 12050
VGPU_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *ctxCreateParams,
				    unsigned int flags, CUdevice dev)
{
	VGPU_PASS_NESTED(cuCtxCreate_v4, (pctx, ctxCreateParams, flags, dev));
	vgpu_pfn_cuCtxCreate_v4 real = REAL(cuCtxCreate_v4);
	struct libvgpu_ctx_measure m;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_ctx_measure_start(&m, dev);
	return rc ? rc : created(&m, real(pctx, ctxCreateParams, flags, dev), pctx);
}
#endif

static CUresult destroy(vgpu_pfn_cuCtxDestroy_v2 real, CUcontext ctx)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (vgpu_active())	/* its queue-bound events, while it exists */
		libvgpu_queue_ctx_gone(&libvgpu_queue, ctx, 1);
	rc = real(ctx);
	if (rc == CUDA_SUCCESS && vgpu_active())
		libvgpu_ctx_gone(ctx);
	return rc;
}

VGPU_EXPORT CUresult cuCtxDestroy(CUcontext ctx)
{
	VGPU_PASS_NESTED(cuCtxDestroy, (ctx));
	return destroy(REAL(cuCtxDestroy), ctx);
}

VGPU_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
	VGPU_PASS_NESTED(cuCtxDestroy_v2, (ctx));
	return destroy(REAL(cuCtxDestroy_v2), ctx);
}

CUresult libvgpu_primary_retain(CUcontext *pctx, CUdevice dev)
{
	vgpu_pfn_cuDevicePrimaryCtxRetain real = REAL(cuDevicePrimaryCtxRetain);
	vgpu_pfn_cuDevicePrimaryCtxRelease_v2 rel = REAL(cuDevicePrimaryCtxRelease_v2);
	struct libvgpu_ctx_measure m;
	int first;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (dev < 0 || dev >= VGPU_PRIMARY_MAX || !vgpu_active())
		return real(pctx, dev);
	rc = libvgpu_ctx_measure_start(&m, dev);
	if (rc)
		return rc;
	first = __atomic_fetch_add(&vgpu_prim_refs[dev], 1, __ATOMIC_ACQ_REL) == 0;
	rc = real(pctx, dev);
	if (rc || !pctx) {
		__atomic_sub_fetch(&vgpu_prim_refs[dev], 1, __ATOMIC_ACQ_REL);
		return rc;
	}
	libvgpu_ctx_note(*pctx, m.gpu, 0);
	libvgpu_lazy_ctx_note(*pctx);
	if (!first)
		return rc;
	vgpu_prim_ctx[dev] = *pctx;
	rc = libvgpu_ctx_measure_end(&m, *pctx);
	if (rc) {
		__atomic_sub_fetch(&vgpu_prim_refs[dev], 1, __ATOMIC_ACQ_REL);
		if (rel)
			rel(dev);
		*pctx = NULL;
	}
	return rc;
}

/* Before a release (reset: 0) or a reset of dev's primary context that
 * destroys it: its queue-bound events, while it exists. */
static void primary_going(CUdevice dev, int reset)
{
	CUcontext c;

	if (dev < 0 || dev >= VGPU_PRIMARY_MAX || !vgpu_active())
		return;
	c = vgpu_prim_ctx[dev];
	if (c && (reset || __atomic_load_n(&vgpu_prim_refs[dev], __ATOMIC_ACQUIRE) == 1))
		libvgpu_queue_ctx_gone(&libvgpu_queue, c, 1);
}

static void primary_gone(CUdevice dev, int reset)
{
	CUcontext c;

	if (dev < 0 || dev >= VGPU_PRIMARY_MAX || !vgpu_active())
		return;
	if (reset)
		__atomic_store_n(&vgpu_prim_refs[dev], 0, __ATOMIC_RELEASE);
	else if (__atomic_load_n(&vgpu_prim_refs[dev], __ATOMIC_ACQUIRE) <= 0 ||
		 __atomic_sub_fetch(&vgpu_prim_refs[dev], 1, __ATOMIC_ACQ_REL) > 0)
		return;
	c = vgpu_prim_ctx[dev];
	if (c)
		libvgpu_ctx_gone(c);
}

/* A release (@reset 0) or reset of a primary context through @real. */
static CUresult primary_end(CUresult (*real)(CUdevice), CUdevice dev, int reset)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	primary_going(dev, reset);
	rc = real(dev);
	if (rc == CUDA_SUCCESS)
		primary_gone(dev, reset);
	return rc;
}

VGPU_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
	VGPU_PASS_NESTED(cuDevicePrimaryCtxRelease, (dev));
	return primary_end(REAL(cuDevicePrimaryCtxRelease), dev, 0);
}

CUresult libvgpu_primary_release(CUdevice dev)
{
	return primary_end(REAL(cuDevicePrimaryCtxRelease_v2), dev, 0);
}

VGPU_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	VGPU_PASS_NESTED(cuDevicePrimaryCtxRetain, (pctx, dev));
	return libvgpu_primary_retain(pctx, dev);
}

VGPU_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	VGPU_PASS_NESTED(cuDevicePrimaryCtxRelease_v2, (dev));
	return libvgpu_primary_release(dev);
}

VGPU_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
	VGPU_PASS_NESTED(cuDevicePrimaryCtxReset, (dev));
	return primary_end(REAL(cuDevicePrimaryCtxReset), dev, 1);
}

VGPU_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	VGPU_PASS_NESTED(cuDevicePrimaryCtxReset_v2, (dev));
	return primary_end(REAL(cuDevicePrimaryCtxReset_v2), dev, 1);
}

/* In a forked child (init.c): the parent's primary contexts are not the
 * child's (its own are retained, measured and charged anew); whether NVML
 * answers is kept, the library being the same. */
void libvgpu_ctx_reset(void)
{
	libvgpu_growth_reset();
	libvgpu_lazy_reset();
	memset(vgpu_prim_refs, 0, sizeof(vgpu_prim_refs));
	memset(vgpu_prim_ctx, 0, sizeof(vgpu_prim_ctx));
}
