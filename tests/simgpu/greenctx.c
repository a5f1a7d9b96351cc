// SPDX-License-Identifier: GPL-2.0
/*
 * Green contexts, as the CUDA Driver API reference's "Green Contexts"
 * module describes them: a device's SM resource (cuDeviceGetDevResource)
 * is split into groups (cuDevSmResourceSplitByCount), a descriptor made of
 * groups of one split (cuDevResourceGenerateDesc), and a green context
 * created from it (cuGreenCtxCreate, CU_GREEN_CTX_DEFAULT_STREAM
 * required). Creating one retains the device's primary context, destroying
 * it releases that again. cuCtxFromGreenCtx gives the CUcontext that
 * stands for it (current with cuCtxSetCurrent/PushCurrent; cuCtxDestroy
 * refuses it). Each green context is a context of its own here: it takes
 * SIMGPU_CTX_VRAM of VRAM while it lives (what a real one takes is not
 * documented), and what was allocated in it is freed with it.
 *
 * SM partitions follow the compute capability 9.0+ guideline (minimum 8
 * SMs, multiples of 8; with CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING
 * minimum 2, multiples of 2). The SMs are not modelled otherwise: kernels
 * in a green context run as in any context of the device.
 */
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

#define SG_GREEN_MAGIC 0x6772656eu	/* "gren" */
#define SG_DESC_MAGIC 0x64657363u	/* "desc" */
#define SG_RES_MAGIC 0x72657363u	/* "resc" */

struct CUgreenCtx_st {
	uint32_t magic;
	int alive;
	int dev;
	unsigned int sms;
	struct CUctx_st ctx;
};

struct CUdevResourceDesc_st {
	uint32_t magic;
	int dev;
	unsigned int sms;
};

/* What simgpu keeps in a CUdevResource's internal padding. */
struct sg_res {
	uint32_t magic;
	int dev;
	uint64_t split;		/* the split it came from, 0: none */
};

static uint64_t next_split = 1;

static void res_fill(CUdevResource *r, int dev, unsigned int sms, uint64_t split, int fine)
{
	struct sg_res in = { SG_RES_MAGIC, dev, split };

	memset(r, 0, sizeof(*r));
	r->type = CU_DEV_RESOURCE_TYPE_SM;
	memcpy(r->_internal_padding, &in, sizeof(in));
	r->sm.smCount = sms;
	r->sm.minSmPartitionSize = fine ? 2 : 8;
	r->sm.smCoscheduledAlignment = fine ? 2 : 8;
}

/* A resource simgpu made: 0, or the error naming what is wrong. */
static CUresult res_check(const CUdevResource *r, struct sg_res *in)
{
	if (!r)
		return CUDA_ERROR_INVALID_VALUE;
	if (r->type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	memcpy(in, r->_internal_padding, sizeof(*in));
	return in->magic == SG_RES_MAGIC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

static int green_valid(struct CUgreenCtx_st *g)
{
	return g && g->magic == SG_GREEN_MAGIC;
}

SG_API CUresult cuDeviceGetDevResource(CUdevice dev, CUdevResource *res, CUdevResourceType type)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!res)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	res_fill(res, dev, (unsigned int)simgpu_cfg.gpu[simgpu_phys(dev)].sms, 0, 0);
	return CUDA_SUCCESS;
}

SG_API CUresult cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nbGroups,
					    const CUdevResource *input, CUdevResource *remaining,
					    unsigned int useFlags, unsigned int minCount)
{
	SG_GATE();
	int fine = !!(useFlags & CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING);
	unsigned int step = fine ? 2 : 8, per, groups, n, i;
	struct sg_res in;
	uint64_t split;
	CUresult rc;

	SG_INIT_CHECK();
	if (!nbGroups || (useFlags & ~3u))
		return CUDA_ERROR_INVALID_VALUE;
	rc = res_check(input, &in);
	if (rc)
		return rc;
	if (minCount > input->sm.smCount)
		return CUDA_ERROR_INVALID_VALUE;
	per = minCount > step ? (minCount + step - 1) / step * step : step;
	groups = per <= input->sm.smCount ? input->sm.smCount / per : 0;
	if (!result) {
		*nbGroups = groups;
		return CUDA_SUCCESS;
	}
	n = *nbGroups < groups ? *nbGroups : groups;
	split = __atomic_fetch_add(&next_split, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		res_fill(&result[i], in.dev, per, split, fine);
	if (remaining)
		res_fill(remaining, in.dev, input->sm.smCount - n * per, split, fine);
	*nbGroups = n;
	return CUDA_SUCCESS;
}

SG_API CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc, CUdevResource *resources,
					  unsigned int nbResources)
{
	SG_GATE();
	struct CUdevResourceDesc_st *d;
	struct sg_res first, in;
	unsigned int sms = 0, i;
	CUresult rc;

	SG_INIT_CHECK();
	if (!phDesc || !resources || !nbResources)
		return CUDA_ERROR_INVALID_VALUE;
	for (i = 0; i < nbResources; i++) {
		rc = res_check(&resources[i], i ? &in : &first);
		if (rc)
			return rc;
		/* One device; several resources only from one split. */
		if (i && (in.dev != first.dev || !in.split || in.split != first.split))
			return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
		sms += resources[i].sm.smCount;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return CUDA_ERROR_OUT_OF_MEMORY;
	d->magic = SG_DESC_MAGIC;
	d->dev = first.dev;
	d->sms = sms;
	*phDesc = d;
	return CUDA_SUCCESS;
}

SG_API CUresult cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev,
				 unsigned int flags)
{
	SG_GATE();
	struct CUgreenCtx_st *g;
	CUcontext prim;
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!phCtx || !desc || desc->magic != SG_DESC_MAGIC || desc->dev != dev ||
	    flags != CU_GREEN_CTX_DEFAULT_STREAM)
		return CUDA_ERROR_INVALID_VALUE;
	g = calloc(1, sizeof(*g));
	if (!g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = simgpu_primary_retain(&prim, dev);
	if (!rc) {
		rc = simgpu_ctx_start(&g->ctx, dev, 0, 0);
		if (rc)
			simgpu_primary_release(dev);
	}
	if (rc) {
		free(g);
		return rc;
	}
	g->ctx.green = g;
	g->magic = SG_GREEN_MAGIC;
	g->alive = 1;
	g->dev = dev;
	g->sms = desc->sms;
	*phCtx = g;
	return CUDA_SUCCESS;
}

SG_API CUresult cuGreenCtxDestroy(CUgreenCtx hCtx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!green_valid(hCtx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!hCtx->alive)
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	hCtx->alive = 0;
	simgpu_ctx_stop(&hCtx->ctx);
	simgpu_primary_release(hCtx->dev);
	/* The object stays allocated (marked dead) for stale handles. */
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!pContext)
		return CUDA_ERROR_INVALID_VALUE;
	if (!green_valid(hCtx) || !hCtx->alive)
		return CUDA_ERROR_INVALID_CONTEXT;
	*pContext = &hCtx->ctx;
	return CUDA_SUCCESS;
}

SG_API CUresult cuGreenCtxGetDevResource(CUgreenCtx hCtx, CUdevResource *res,
					 CUdevResourceType type)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!green_valid(hCtx) || !hCtx->alive)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!res)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	res_fill(res, hCtx->dev, hCtx->sms, 0, 0);
	return CUDA_SUCCESS;
}

SG_API CUresult cuCtxGetDevResource(CUcontext hCtx, CUdevResource *res, CUdevResourceType type)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!simgpu_ctx_valid(hCtx))
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!res)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	res_fill(res, hCtx->dev, hCtx->green ? hCtx->green->sms :
		 (unsigned int)simgpu_cfg.gpu[simgpu_phys(hCtx->dev)].sms, 0, 0);
	return CUDA_SUCCESS;
}

/* A stream of the green context: flags must be CU_STREAM_NON_BLOCKING. */
SG_API CUresult cuGreenCtxStreamCreate(CUstream *phStream, CUgreenCtx greenCtx,
				       unsigned int flags, int priority)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!green_valid(greenCtx) || !greenCtx->alive)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!phStream || flags != CU_STREAM_NON_BLOCKING)
		return CUDA_ERROR_INVALID_VALUE;
	return simgpu_stream_create(&greenCtx->ctx, phStream, flags, priority);
}
