// SPDX-License-Identifier: GPL-2.0
/*
 * The deprecated launches (CUDA Driver API, "Execution Control
 * [DEPRECATED]": cuFuncSetBlockShape, cuFuncSetSharedSize, cuParamSetSize,
 * cuParamSeti, cuParamSetf, cuParamSetv, cuLaunch, cuLaunchGrid,
 * cuLaunchGridAsync; "Execution Control": cuLaunchCooperativeKernelMultiDevice).
 *
 * cuLaunch and cuLaunchGrid(Async) use the function's state that the
 * others set: "the block shape, dynamic shared memory size, and parameter
 * information must be set ... prior to calling this function". simgpu
 * keeps that state on the function: the block shape (unset: the launch is
 * CUDA_ERROR_INVALID_VALUE), the shared size, and a parameter space of
 * SG_PARAM_SPACE bytes whose first cuParamSetSize bytes are the kernel's
 * arguments (a simgpu_spin kernel's duration is the first 8). cuLaunch is
 * a 1 x 1 x 1 grid, cuLaunchGrid a grid_width x grid_height one, both on
 * the current context's NULL stream; cuLaunchGridAsync on hStream. A bad
 * function is CUDA_ERROR_INVALID_VALUE for the launches and the cuParam
 * calls (the only argument error they document), CUDA_ERROR_INVALID_HANDLE
 * for cuFuncSetBlockShape and cuFuncSetSharedSize.
 *
 * cuLaunchCooperativeKernelMultiDevice checks what the reference requires
 * of its list: at least one entry, flags among
 * CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE/POST_LAUNCH_SYNC, each
 * entry's stream created ("the NULL stream or CU_STREAM_LEGACY or
 * CU_STREAM_PER_THREAD cannot be used"), "no two kernels ... launched on
 * the same device", and grid, block and shared size the same for all
 * (CUDA_ERROR_INVALID_VALUE; a bad function CUDA_ERROR_INVALID_HANDLE);
 * then one kernel per entry on its stream. Without
 * CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC "the kernel
 * won't begin execution on any GPU until all prior work in all the
 * specified streams has completed", without ..._NO_POST_LAUNCH_SYNC "any
 * subsequent work pushed in any of the specified streams will not begin
 * execution until the kernels on all GPUs have completed": each stream
 * records an internal event that every other stream waits for, before
 * the kernels and after them (such events are never freed, as no
 * simgpu event is).
 */
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

static CUresult func_state(CUfunction f, CUresult bad)
{
	SG_INIT_CHECK();
	if (!simgpu_ctx_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	return simgpu_func_check(f) ? bad : CUDA_SUCCESS;
}

SG_API CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z)
{
	SG_GATE();
	CUresult rc = func_state(f, CUDA_ERROR_INVALID_HANDLE);

	if (rc)
		return rc;
	if (x <= 0 || y <= 0 || z <= 0 || (int64_t)x * y * z > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&f->mod->lk);
	f->bx = (unsigned int)x;
	f->by = (unsigned int)y;
	f->bz = (unsigned int)z;
	pthread_mutex_unlock(&f->mod->lk);
	return CUDA_SUCCESS;
}

SG_API CUresult cuFuncSetSharedSize(CUfunction f, unsigned int bytes)
{
	SG_GATE();
	CUresult rc = func_state(f, CUDA_ERROR_INVALID_HANDLE);

	if (!rc)
		__atomic_store_n(&f->shmem, bytes, __ATOMIC_RELAXED);
	return rc;
}

SG_API CUresult cuParamSetSize(CUfunction f, unsigned int numbytes)
{
	SG_GATE();
	CUresult rc = func_state(f, CUDA_ERROR_INVALID_VALUE);

	if (rc)
		return rc;
	if (numbytes > SG_PARAM_SPACE)
		return CUDA_ERROR_INVALID_VALUE;
	__atomic_store_n(&f->psize, numbytes, __ATOMIC_RELAXED);
	return CUDA_SUCCESS;
}

static CUresult param_set(CUfunction f, int offset, const void *ptr, unsigned int numbytes)
{
	CUresult rc = func_state(f, CUDA_ERROR_INVALID_VALUE);

	if (rc)
		return rc;
	if (offset < 0 || (!ptr && numbytes) || numbytes > SG_PARAM_SPACE ||
	    (unsigned int)offset > SG_PARAM_SPACE - numbytes)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&f->mod->lk);
	if (numbytes)
		memcpy(f->param + offset, ptr, numbytes);
	pthread_mutex_unlock(&f->mod->lk);
	return CUDA_SUCCESS;
}

SG_API CUresult cuParamSetv(CUfunction f, int offset, void *ptr, unsigned int numbytes)
{
	SG_GATE();
	return param_set(f, offset, ptr, numbytes);
}

SG_API CUresult cuParamSeti(CUfunction f, int offset, unsigned int value)
{
	SG_GATE();
	return param_set(f, offset, &value, sizeof(value));
}

SG_API CUresult cuParamSetf(CUfunction f, int offset, float value)
{
	SG_GATE();
	return param_set(f, offset, &value, sizeof(value));
}

static CUresult legacy_launch(CUfunction f, int gw, int gh, CUstream h)
{
	unsigned char buf[SG_PARAM_SPACE];
	size_t size;
	void *extra[] = {
		CU_LAUNCH_PARAM_BUFFER_POINTER, buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
		CU_LAUNCH_PARAM_END
	};
	unsigned int bx, by, bz;
	CUresult rc = func_state(f, CUDA_ERROR_INVALID_VALUE);

	if (rc)
		return rc;
	if (gw <= 0 || gh <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&f->mod->lk);
	bx = f->bx;
	by = f->by;
	bz = f->bz;
	size = f->psize;
	memcpy(buf, f->param, sizeof(buf));
	pthread_mutex_unlock(&f->mod->lk);
	if (!bx)
		return CUDA_ERROR_INVALID_VALUE;	/* no cuFuncSetBlockShape */
	return simgpu_launch(f, (unsigned int)gw, (unsigned int)gh, 1, bx, by, bz, h, NULL,
			     extra, 0);
}

SG_API CUresult cuLaunch(CUfunction f)
{
	SG_GATE();
	return legacy_launch(f, 1, 1, NULL);
}

SG_API CUresult cuLaunchGrid(CUfunction f, int grid_width, int grid_height)
{
	SG_GATE();
	return legacy_launch(f, grid_width, grid_height, NULL);
}

SG_API CUresult cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height, CUstream h)
{
	SG_GATE();
	return legacy_launch(f, grid_width, grid_height, h);
}

static int same_shape(const CUDA_LAUNCH_PARAMS *a, const CUDA_LAUNCH_PARAMS *b)
{
	return a->gridDimX == b->gridDimX && a->gridDimY == b->gridDimY &&
	       a->gridDimZ == b->gridDimZ && a->blockDimX == b->blockDimX &&
	       a->blockDimY == b->blockDimY && a->blockDimZ == b->blockDimZ &&
	       a->sharedMemBytes == b->sharedMemBytes;
}

static CUresult multi_check(const CUDA_LAUNCH_PARAMS *l, unsigned int n, unsigned int flags)
{
	unsigned int known = CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC |
			     CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC;
	int used[SG_MAX_GPUS] = { 0 };

	if (!l || !n || n > (unsigned int)simgpu_nvis || (flags & ~known))
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned int i = 0; i < n; i++) {
		struct CUstream_st *s;
		CUstream h = l[i].hStream;
		CUresult rc;

		if (simgpu_func_check(l[i].function))
			return CUDA_ERROR_INVALID_HANDLE;
		if (!h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD ||
		    !same_shape(&l[i], &l[0]))
			return CUDA_ERROR_INVALID_VALUE;
		rc = simgpu_stream_resolve(h, 0, &s);
		if (rc)
			return rc;
		if (used[s->ctx->dev]++)
			return CUDA_ERROR_INVALID_VALUE;	/* two on one device */
	}
	return CUDA_SUCCESS;
}

static CUresult queue_event(struct CUstream_st *s, enum sg_op_kind kind, struct CUevent_st *ev)
{
	struct sg_op *op = simgpu_op_new(kind);

	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->ev = ev;
	op->seq = 1;
	return simgpu_stream_submit(s, op);
}

/* Every entry's stream waits for what the others have queued so far. */
static CUresult sync_across(const CUDA_LAUNCH_PARAMS *l, unsigned int n)
{
	struct CUevent_st *ev[SG_MAX_GPUS];
	CUresult rc = CUDA_SUCCESS;

	for (unsigned int i = 0; i < n && !rc; i++) {
		ev[i] = calloc(1, sizeof(*ev[i]));
		if (!ev[i])
			return CUDA_ERROR_OUT_OF_MEMORY;
		ev[i]->magic = SG_EVENT_MAGIC;
		ev[i]->flags = CU_EVENT_DISABLE_TIMING;
		ev[i]->recorded = 1;
		rc = queue_event(l[i].hStream, SG_OP_RECORD, ev[i]);
	}
	for (unsigned int i = 0; i < n && !rc; i++)
		for (unsigned int j = 0; j < n && !rc; j++)
			if (j != i)
				rc = queue_event(l[i].hStream, SG_OP_WAIT, ev[j]);
	return rc;
}

SG_API CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *l, unsigned int n,
						     unsigned int flags)
{
	SG_GATE();
	CUresult rc;

	SG_INIT_CHECK();
	rc = multi_check(l, n, flags);
	if (!rc && !(flags & CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC))
		rc = sync_across(l, n);
	for (unsigned int i = 0; i < n && !rc; i++)
		rc = simgpu_launch(l[i].function, l[i].gridDimX, l[i].gridDimY, l[i].gridDimZ,
				   l[i].blockDimX, l[i].blockDimY, l[i].blockDimZ, l[i].hStream,
				   l[i].kernelParams, NULL, 0);
	if (!rc && !(flags & CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_POST_LAUNCH_SYNC))
		rc = sync_across(l, n);
	return rc;
}
