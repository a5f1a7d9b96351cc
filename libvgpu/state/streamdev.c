// SPDX-License-Identifier: GPL-2.0
/*
 * The device of a stream, for cuMemAllocAsync: the driver allocates from
 * the current pool of the stream's device, whatever context is current
 * (there may be none). Asked of the driver with cuStreamGetDevice (CUDA
 * 12.8) or else cuStreamGetCtx, then that context's device (pushed and
 * popped with the real functions, so the current-context tracking of
 * curctx.c never sees it). The default streams stand for the current
 * context's. The compute gate asks the same for a launch's stream (its
 * GPU cached per thread, gatedev.c); a stream destroyed makes every
 * thread ask again, since the handle may return as another GPU's stream.
 */
#include "ctxmap.h"
#include "devmap.h"
#include "../access/hooks.h"
#include "../access/nest.h"
#include "streamdev.h"

static int default_stream(CUstream h)
{
	return !h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD;
}

/* The device of a context that may not be current. */
static CUresult ctx_device(CUcontext c, CUdevice *dev)
{
	vgpu_pfn_cuCtxPushCurrent_v2 push = REAL(cuCtxPushCurrent_v2);
	vgpu_pfn_cuCtxPopCurrent_v2 pop = REAL(cuCtxPopCurrent_v2);
	vgpu_pfn_cuCtxGetDevice get = REAL(cuCtxGetDevice);
	CUcontext popped;
	CUresult rc;

	if (!push || !pop || !get)
		return CUDA_ERROR_NOT_FOUND;
	rc = push(c);
	if (rc)
		return rc;
	rc = get(dev);
	pop(&popped);
	return rc;
}

int libvgpu_stream_device(CUstream h, CUdevice *dev)
{
	vgpu_pfn_cuStreamGetCtx getctx = REAL(cuStreamGetCtx);
	vgpu_pfn_cuCtxGetDevice cur = REAL(cuCtxGetDevice);
	CUcontext c = NULL;

	if (default_stream(h))
		return !cur || cur(dev) ? -1 : 0;
#if CUDA_VERSION >= 12080
	vgpu_pfn_cuStreamGetDevice getdev = REAL(cuStreamGetDevice);

	if (getdev && getdev(h, dev) == CUDA_SUCCESS)
		return 0;
#endif
	if (!getctx || getctx(h, &c) || !c || ctx_device(c, dev))
		return -1;
	return 0;
}

int libvgpu_stream_gpu(CUstream h)
{
	CUcontext c = NULL;
	CUdevice dev;

	if (default_stream(h))
		return libvgpu_cur_gpu(&c);
	if (libvgpu_stream_device(h, &dev))
		return VGPU_GPU_SKIP;	/* a bad stream: the driver answers */
	return libvgpu_dev_gpu(dev);
}

#define DESTROY(sym)							\
VGPU_EXPORT CUresult sym(CUstream hStream)				\
{									\
	VGPU_PASS_NESTED(sym, (hStream));				\
	vgpu_pfn_##sym real = REAL(sym);				\
	CUresult rc;							\
									\
	if (!real)							\
		return CUDA_ERROR_NOT_INITIALIZED;			\
	rc = real(hStream);						\
	if (rc == CUDA_SUCCESS)						\
		libvgpu_ctxmap_stale();					\
	return rc;							\
}

DESTROY(cuStreamDestroy)
DESTROY(cuStreamDestroy_v2)
