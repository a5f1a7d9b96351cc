// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks that change the calling thread's current context:
 * cuCtxSetCurrent, cuCtxPushCurrent(_v2) and cuCtxPopCurrent(_v2). Each
 * passes the new current context to the context map (ctxmap.c), so that
 * a launch finds its GPU without asking the driver. Exports only hooks
 * (hooks.h).
 */
#include "../state/ctxmap.h"
#include "../access/hooks.h"
#include "../state/state.h"
#include "../access/nest.h"

/* cuCtxSetCurrent and cuCtxPushCurrent(_v2): ctx becomes current. */
static CUresult make_current(vgpu_pfn_cuCtxSetCurrent real, CUcontext ctx)
{
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(ctx);
	if (rc == CUDA_SUCCESS && vgpu_gating())
		libvgpu_ctx_became_current(ctx);
	return rc;
}

VGPU_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
	VGPU_PASS_NESTED(cuCtxSetCurrent, (ctx));
	return make_current(REAL(cuCtxSetCurrent), ctx);
}

VGPU_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx)
{
	VGPU_PASS_NESTED(cuCtxPushCurrent, (ctx));
	return make_current(REAL(cuCtxPushCurrent), ctx);
}

VGPU_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
	VGPU_PASS_NESTED(cuCtxPushCurrent_v2, (ctx));
	return make_current(REAL(cuCtxPushCurrent_v2), ctx);
}

static CUresult pop(vgpu_pfn_cuCtxPopCurrent_v2 real, CUcontext *pctx)
{
	vgpu_pfn_cuCtxGetCurrent cur = REAL(cuCtxGetCurrent);
	CUcontext c = NULL;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(pctx);
	if (rc == CUDA_SUCCESS && vgpu_gating()) {
		if (cur && !cur(&c))
			libvgpu_ctx_became_current(c);
		else
			libvgpu_ctx_unknown();	/* asked at the next launch */
	}
	return rc;
}

VGPU_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx)
{
	VGPU_PASS_NESTED(cuCtxPopCurrent, (pctx));
	return pop(REAL(cuCtxPopCurrent), pctx);
}

VGPU_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
	VGPU_PASS_NESTED(cuCtxPopCurrent_v2, (pctx));
	return pop(REAL(cuCtxPopCurrent_v2), pctx);
}
