// SPDX-License-Identifier: GPL-2.0
/*
 * Green contexts (cuGreenCtxCreate, CUDA 12.4+) take context memory like
 * any context and are charged the same way (ctx.c): the process's own used
 * memory on the device just before and just after the real call, charged
 * to the device's GPU and bound to the CUcontext that cuCtxFromGreenCtx
 * gives for it (allocations made while it is current are bound to that
 * context too, and launches in it find its GPU through the context map).
 * A refused charge destroys the green context again and fails the call
 * with CUDA_ERROR_OUT_OF_MEMORY. cuGreenCtxDestroy gives everything back.
 *
 * The driver retains the device's primary context for each green context
 * and releases it at cuGreenCtxDestroy. libvgpu takes a primary reference
 * of its own (through its cuDevicePrimaryCtxRetain) just before the real
 * create and drops it just after the real destroy, so the primary
 * context is charged, once, while any green context of its device lives,
 * and the green context's measurement holds its own memory only.
 */
#include <pthread.h>
#include <stdlib.h>

#include "ctx.h"
#include "../state/ctxmap.h"
#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "../state/qevents.h"
#include "../policy/register.h"
#include "../state/state.h"
#include "greenctx.h"
#include "lazyload.h"
#include "../access/nest.h"

#if CUDA_VERSION >= 12040

/* The live green contexts: what cuGreenCtxDestroy needs afterwards. */
struct green {
	struct green *next;
	CUgreenCtx g;
	CUcontext c;
	CUdevice dev;
};

static struct green *vgpu_greens;
static pthread_mutex_t vgpu_green_lk = PTHREAD_MUTEX_INITIALIZER;

static void green_add(struct green *e)
{
	pthread_mutex_lock(&vgpu_green_lk);
	e->next = vgpu_greens;
	vgpu_greens = e;
	pthread_mutex_unlock(&vgpu_green_lk);
}

/* The entry of g, unlinked if take; NULL if not known. */
static struct green *green_find(CUgreenCtx g, int take)
{
	struct green **p, *e = NULL;

	pthread_mutex_lock(&vgpu_green_lk);
	for (p = &vgpu_greens; *p; p = &(*p)->next) {
		if ((*p)->g != g)
			continue;
		e = *p;
		if (take)
			*p = e->next;
		break;
	}
	pthread_mutex_unlock(&vgpu_green_lk);
	return e;
}

/* The green context *ph exists: charge it (e is then linked), or destroy
 * it again (e freed). */
static CUresult green_created(struct libvgpu_ctx_measure *m, CUgreenCtx *ph, struct green *e)
{
	vgpu_pfn_cuCtxFromGreenCtx from = REAL(cuCtxFromGreenCtx);
	vgpu_pfn_cuGreenCtxDestroy destroy = REAL(cuGreenCtxDestroy);
	CUcontext c = NULL;
	CUresult rc;

	if (!from || from(&c, *ph) || !c) {
		libvgpu_log(VGPU_LOG_INFO, "green context %p: no context for it, not charged",
			    (void *)*ph);
		c = NULL;
	} else {
		rc = libvgpu_ctx_measure_end(m, c);
		if (rc) {
			if (destroy)
				destroy(*ph);
			*ph = NULL;
			free(e);
			return rc;
		}
		libvgpu_ctx_note(c, m->gpu, 0);
		libvgpu_lazy_ctx_note(c);
	}
	e->g = *ph;
	e->c = c;
	e->dev = m->dev;
	green_add(e);
	return CUDA_SUCCESS;
}

VGPU_EXPORT CUresult cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev,
				      unsigned int flags)
{
	VGPU_PASS_NESTED(cuGreenCtxCreate, (phCtx, desc, dev, flags));
	vgpu_pfn_cuGreenCtxCreate real = REAL(cuGreenCtxCreate);
	struct libvgpu_ctx_measure m;
	struct green *e;
	CUcontext prim;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (!phCtx)
		return real(phCtx, desc, dev, flags);	/* the driver's error */
	/* The primary context first: charged on its own (see above). */
	rc = libvgpu_primary_retain(&prim, dev);
	if (rc)
		return rc;
	e = calloc(1, sizeof(*e));
	rc = e ? libvgpu_ctx_measure_start(&m, dev) : CUDA_ERROR_OUT_OF_MEMORY;
	if (!rc)
		rc = real(phCtx, desc, dev, flags);
	if (!rc)
		rc = green_created(&m, phCtx, e);	/* e linked or freed */
	else
		free(e);
	if (rc)
		libvgpu_primary_release(dev);
	return rc;
}

VGPU_EXPORT CUresult cuGreenCtxDestroy(CUgreenCtx hCtx)
{
	VGPU_PASS_NESTED(cuGreenCtxDestroy, (hCtx));
	vgpu_pfn_cuGreenCtxDestroy real = REAL(cuGreenCtxDestroy);
	struct green *e;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	e = green_find(hCtx, 0);
	if (e && e->c && vgpu_active())	/* its queue-bound events, while it exists */
		libvgpu_queue_ctx_gone(&libvgpu_queue, e->c, 1);
	rc = real(hCtx);
	if (rc != CUDA_SUCCESS || !(e = green_find(hCtx, 1)))
		return rc;
	if (e->c && vgpu_active())
		libvgpu_ctx_gone(e->c);
	libvgpu_primary_release(e->dev);	/* our reference */
	free(e);
	return rc;
}

#endif

/* In a forked child (init.c): the green contexts were the parent's. */
void libvgpu_green_reset(void)
{
	struct green *e = vgpu_greens, *next;

	pthread_mutex_init(&vgpu_green_lk, NULL);
	for (; e; e = next) {
		next = e->next;
		free(e);
	}
	vgpu_greens = NULL;
}
