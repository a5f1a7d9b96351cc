// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts: primary contexts (one per device, reference counted) and
 * regular ones, a per-thread stack of current contexts, synchronisation.
 * A context may be charged SIMGPU_CTX_VRAM bytes of VRAM while it lives.
 */
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"
#include "exporttab.h"

#define STACK_MAX 64

static __thread struct CUctx_st *stack[STACK_MAX];
static __thread int depth;

static struct CUctx_st primary[SG_MAX_GPUS];
static unsigned int primary_refs[SG_MAX_GPUS];
static uint64_t next_id = 1;
static pthread_mutex_t ctx_lk = PTHREAD_MUTEX_INITIALIZER;

int simgpu_ctx_valid(struct CUctx_st *ctx)
{
	return ctx && ctx->magic == SG_CTX_MAGIC && ctx->alive;
}

struct CUctx_st *simgpu_ctx_current(void)
{
	return depth ? stack[depth - 1] : NULL;
}

static int sg_primary_handle(const struct CUctx_st *c)
{
	uintptr_t p = (uintptr_t)c, base = (uintptr_t)primary;

	return p >= base && p < base + sizeof(primary) && (p - base) % sizeof(primary[0]) == 0;
}

CUresult simgpu_ctx_get(struct CUctx_st **out)
{
	struct CUctx_st *c;

	SG_INIT_CHECK();
	c = simgpu_ctx_current();
	if (!c)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!simgpu_ctx_valid(c))
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	*out = c;
	return CUDA_SUCCESS;
}

CUresult simgpu_ctx_start(struct CUctx_st *c, int dev, unsigned int flags, int prim)
{
	CUresult rc = simgpu_charge(dev, simgpu_cfg.ctx_vram);

	if (rc)
		return rc;
	memset(c, 0, sizeof(*c));
	c->magic = SG_CTX_MAGIC;
	c->dev = dev;
	c->flags = flags;
	c->primary = prim;
	c->charged = simgpu_cfg.ctx_vram;
	pthread_mutex_lock(&ctx_lk);
	c->id = next_id++;
	pthread_mutex_unlock(&ctx_lk);
	c->alive = 1;
	simgpu_ctx_count(dev, 1);
	return CUDA_SUCCESS;
}

void simgpu_ctx_stop(struct CUctx_st *c)
{
	sg_xt_cls_ctx_gone(c);	/* the runtime's state for it first */
	simgpu_ctx_sync(c);
	simgpu_stream_destroy_all(c);
	simgpu_mem_release_ctx(c);
	simgpu_module_release_ctx(c);
	simgpu_uncharge(c->dev, c->charged);
	simgpu_ctx_count(c->dev, -1);
	c->charged = 0;
	c->alive = 0;
	/* Drop it from this thread's stack (other threads find it dead). */
	for (int i = 0; i < depth; i++)
		if (stack[i] == c)
			stack[i] = NULL;
}

/* ---- primary contexts ---- */

CUresult simgpu_primary_retain(CUcontext *pctx, CUdevice dev)
{
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&ctx_lk);
	if (!primary[dev].alive) {
		unsigned int flags = primary[dev].flags;

		pthread_mutex_unlock(&ctx_lk);
		rc = simgpu_ctx_start(&primary[dev], dev, flags, 1);
		pthread_mutex_lock(&ctx_lk);
	}
	if (!rc) {
		primary_refs[dev]++;
		*pctx = &primary[dev];
	}
	pthread_mutex_unlock(&ctx_lk);
	return rc;
}

CUresult simgpu_primary_release(CUdevice dev)
{
	CUresult rc = simgpu_check_dev(dev);
	int stop = 0;

	if (rc)
		return rc;
	pthread_mutex_lock(&ctx_lk);
	if (!primary_refs[dev])
		rc = CUDA_ERROR_INVALID_CONTEXT;
	else if (!--primary_refs[dev])
		stop = 1;
	pthread_mutex_unlock(&ctx_lk);
	if (stop && primary[dev].alive)
		simgpu_ctx_stop(&primary[dev]);
	return rc;
}

/* The primary context's handle, neither retained nor started: the
 * runtime's CUDART_INTERFACE[2] (exporttab.c). The handle is the one
 * cuDevicePrimaryCtxRetain gives later. */
CUresult simgpu_primary_handle(CUcontext *pctx, CUdevice dev)
{
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = &primary[dev];
	return CUDA_SUCCESS;
}

SG_API CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	SG_GATE();
	return simgpu_primary_retain(pctx, dev);
}

SG_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
	SG_GATE();
	return simgpu_primary_release(dev);
}

SG_API CUresult cuDevicePrimaryCtxRelease(CUdevice dev)
{
	SG_GATE();
	return simgpu_primary_release(dev);
}

SG_API CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	pthread_mutex_lock(&ctx_lk);
	primary_refs[dev] = 0;
	pthread_mutex_unlock(&ctx_lk);
	if (primary[dev].alive)
		simgpu_ctx_stop(&primary[dev]);
	primary[dev].flags = 0;
	return CUDA_SUCCESS;
}

SG_API CUresult cuDevicePrimaryCtxReset(CUdevice dev)
{
	SG_GATE();
	return cuDevicePrimaryCtxReset_v2(dev);
}

SG_API CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	primary[dev].flags = flags;
	return CUDA_SUCCESS;
}

SG_API CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (primary[dev].alive)
		return CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE;
	return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

SG_API CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!flags || !active)
		return CUDA_ERROR_INVALID_VALUE;
	*flags = primary[dev].flags;
	*active = primary[dev].alive;
	return CUDA_SUCCESS;
}

/* ---- regular contexts ---- */

static CUresult ctx_create(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	struct CUctx_st *c;
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	if (depth >= STACK_MAX)
		return CUDA_ERROR_INVALID_CONTEXT;
	c = calloc(1, sizeof(*c));
	if (!c)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = simgpu_ctx_start(c, dev, flags, 0);
	if (rc) {
		free(c);
		return rc;
	}
	stack[depth++] = c;
	*pctx = c;
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	SG_GATE();
	return ctx_create(pctx, flags, dev);
}

SG_API CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
	SG_GATE();
#if CUDA_VERSION >= 12050
	if (simgpu_selfcall())
		return cuCtxCreate_v4(pctx, NULL, flags, dev);
#endif
	return ctx_create(pctx, flags, dev);
}

SG_API CUresult cuCtxCreate_v3(CUcontext *pctx, CUexecAffinityParam *paramsArray,
			       int numParams, unsigned int flags, CUdevice dev)
{
	SG_GATE();
	(void)paramsArray;
	if (numParams < 0)
		return CUDA_ERROR_INVALID_VALUE;
	return ctx_create(pctx, flags, dev);
}

#if CUDA_VERSION >= 12050
SG_API CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params,
			       unsigned int flags, CUdevice dev)
{
	SG_GATE();
	(void)params;
	return ctx_create(pctx, flags, dev);
}
#endif

SG_API CUresult cuCtxDestroy_v2(CUcontext ctx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!simgpu_ctx_valid(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (ctx->primary || ctx->green)	/* green: cuGreenCtxDestroy */
		return CUDA_ERROR_INVALID_CONTEXT;
	simgpu_ctx_stop(ctx);
	/* Pop it if it is on top of this thread's stack. */
	while (depth && !stack[depth - 1])
		depth--;
	/* The object stays allocated (marked dead): stale handles held by
	 * other threads must fail cleanly rather than touch freed memory. */
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxDestroy(CUcontext ctx)
{
	SG_GATE();
	return cuCtxDestroy_v2(ctx);
}

SG_API CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!simgpu_ctx_valid(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (depth >= STACK_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	stack[depth++] = ctx;
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxPushCurrent(CUcontext ctx)
{
	SG_GATE();
	return cuCtxPushCurrent_v2(ctx);
}

SG_API CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!depth)
		return CUDA_ERROR_INVALID_CONTEXT;
	depth--;
	if (pctx)
		*pctx = stack[depth];
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxPopCurrent(CUcontext *pctx)
{
	SG_GATE();
	return cuCtxPopCurrent_v2(pctx);
}

SG_API CUresult cuCtxSetCurrent(CUcontext ctx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!ctx) {
		if (depth)
			depth--;
		return CUDA_SUCCESS;
	}
	/* A primary context not started yet may be made current: NVIDIA's
	 * runtime does so with the handle CUDART_INTERFACE[2] gave it
	 * (exporttab.c) and retains it after; calls that need the context
	 * find it destroyed until then (simgpu_ctx_get). */
	if (!simgpu_ctx_valid(ctx) && !sg_primary_handle(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (depth)
		stack[depth - 1] = ctx;
	else
		stack[depth++] = ctx;
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxGetCurrent(CUcontext *pctx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!pctx)
		return CUDA_ERROR_INVALID_VALUE;
	*pctx = simgpu_ctx_current();
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxGetDevice(CUdevice *device)
{
	SG_GATE();
	struct CUctx_st *c;
	CUresult rc;

	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	rc = simgpu_ctx_get(&c);
	if (rc)
		return rc;
	*device = c->dev;
	return CUDA_SUCCESS;
}

#if CUDA_VERSION >= 13000
SG_API CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!ctx)
		return cuCtxGetDevice(device);
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	if (!simgpu_ctx_valid(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	*device = ctx->dev;
	return CUDA_SUCCESS;
}
#endif

SG_API CUresult cuCtxSynchronize(void)
{
	SG_GATE();
	struct CUctx_st *c;
	CUresult rc = simgpu_ctx_get(&c);

	if (!rc)
		rc = simgpu_capture_sync_ctx(c);
	return rc ? rc : simgpu_ctx_sync(c);
}

#if CUDA_VERSION >= 13000
SG_API CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!ctx)
		return cuCtxSynchronize();
	if (!simgpu_ctx_valid(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	return simgpu_capture_sync_ctx(ctx) ?: simgpu_ctx_sync(ctx);
}
#endif

SG_API CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!version)
		return CUDA_ERROR_INVALID_VALUE;
	if (!ctx)
		ctx = simgpu_ctx_current();
	if (!simgpu_ctx_valid(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	*version = 3020;
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxGetFlags(unsigned int *flags)
{
	SG_GATE();
	struct CUctx_st *c;
	CUresult rc = simgpu_ctx_get(&c);

	if (rc)
		return rc;
	if (!flags)
		return CUDA_ERROR_INVALID_VALUE;
	*flags = c->flags;
	return CUDA_SUCCESS;
}

#if CUDA_VERSION >= 12000
SG_API CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!ctx)
		ctx = simgpu_ctx_current();
	if (!ctxId)
		return CUDA_ERROR_INVALID_VALUE;
	if (!simgpu_ctx_valid(ctx))
		return CUDA_ERROR_INVALID_CONTEXT;
	*ctxId = ctx->id;
	return CUDA_SUCCESS;
}
#endif

SG_API CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (leastPriority)
		*leastPriority = 0;
	if (greatestPriority)
		*greatestPriority = -5;
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit)
{
	SG_GATE();
	struct CUctx_st *c;
	CUresult rc = simgpu_ctx_get(&c);

	if (rc)
		return rc;
	if (!pvalue)
		return CUDA_ERROR_INVALID_VALUE;
	switch (limit) {
	case CU_LIMIT_STACK_SIZE: *pvalue = c->stack ? c->stack : SG_STACK; break;
	case CU_LIMIT_PRINTF_FIFO_SIZE: *pvalue = c->fifo ? c->fifo : SG_FIFO; break;
	case CU_LIMIT_MALLOC_HEAP_SIZE: *pvalue = c->heap ? c->heap : SG_HEAP; break;
	case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH: *pvalue = 2; break;
	case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT: *pvalue = 2048; break;
	case CU_LIMIT_MAX_L2_FETCH_GRANULARITY: *pvalue = 64; break;
	case CU_LIMIT_PERSISTING_L2_CACHE_SIZE: *pvalue = 0; break;
#if CUDA_VERSION >= 12050
	/* "A non-zero value indicates this CUDA context is a CIG-enabled
	 * context" (cuda.h, CUlimit): simgpu's never are. cuBLASLt asks at
	 * cublasLtCreate and fails with CUBLAS_STATUS_NOT_INITIALIZED if
	 * refused. */
	case CU_LIMIT_CIG_ENABLED: *pvalue = 0; break;
#endif
	default: return CUDA_ERROR_UNSUPPORTED_LIMIT;
	}
	return CUDA_SUCCESS;
}

/*
 * What the stack, printf FIFO and malloc heap take beyond their defaults
 * (which SIMGPU_CTX_VRAM covers): the stack is per thread
 * (CU_LIMIT_STACK_SIZE "controls the stack size in bytes of each GPU
 * thread", cuCtxSetLimit), for every thread the GPU can hold (2048 per SM).
 */
static uint64_t limits_extra(int dev, uint64_t stack, uint64_t fifo, uint64_t heap)
{
	uint64_t threads = (uint64_t)simgpu_cfg.gpu[dev].sms * 2048;
	uint64_t want = (stack ? stack : SG_STACK) * threads + (fifo ? fifo : SG_FIFO) +
			(heap ? heap : SG_HEAP);
	uint64_t base = SG_STACK * threads + SG_FIFO + SG_HEAP;

	return want > base ? SG_ROUND(want - base, SG_PAGE) : 0;
}

/* The context's memory grows or shrinks with the limits; a growth that
 * does not fit the GPU fails with CUDA_ERROR_OUT_OF_MEMORY, nothing changed. */
SG_API CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
	SG_GATE();
	struct CUctx_st *c;
	uint64_t s, f, h, before, after;
	CUresult rc = simgpu_ctx_get(&c);

	if (rc)
		return rc;
	if ((int)limit < 0 || (int)limit > 0x6)
		return CUDA_ERROR_UNSUPPORTED_LIMIT;
	s = c->stack;
	f = c->fifo;
	h = c->heap;
	switch (limit) {
	case CU_LIMIT_STACK_SIZE: s = value; break;
	case CU_LIMIT_PRINTF_FIFO_SIZE: f = value; break;
	case CU_LIMIT_MALLOC_HEAP_SIZE: h = value; break;
	default: return CUDA_SUCCESS;
	}
	before = limits_extra(c->dev, c->stack, c->fifo, c->heap);
	after = limits_extra(c->dev, s, f, h);
	if (after > before) {
		rc = simgpu_charge(c->dev, after - before);
		if (rc)
			return rc;
	} else if (after < before) {
		simgpu_uncharge(c->dev, before - after);
	}
	c->charged = c->charged - before + after;
	c->stack = s;
	c->fifo = f;
	c->heap = h;
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!pconfig)
		return CUDA_ERROR_INVALID_VALUE;
	*pconfig = CU_FUNC_CACHE_PREFER_NONE;
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
	SG_GATE();
	(void)config;
	SG_INIT_CHECK();
	return CUDA_SUCCESS;
}
