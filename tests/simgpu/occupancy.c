// SPDX-License-Identifier: GPL-2.0
/*
 * Occupancy (CUDA Driver API reference, "Occupancy"): how many blocks of a
 * kernel fit on one multiprocessor, computed from the device attributes
 * simgpu reports (threads, blocks, registers and shared memory per
 * multiprocessor, shared memory reserved per block) and the kernel's
 * attributes (registers per thread, cuFuncGetAttribute). NVIDIA's runtime
 * answers cudaOccupancy* with these, and cuBLASLt asks
 * cuOccupancyAvailableDynamicSMemPerBlock when it starts
 * (Documentation/simgpu.md, "PyTorch on simgpu"). The model is simgpu's:
 * warps are allocated whole and registers per warp, no other granularity.
 *
 * The reference: a CUkernel may be passed as the CUfunction, "the context
 * to use for calculations will be the current context" (no current
 * context: CUDA_ERROR_INVALID_CONTEXT).
 */
#include "simgpu.h"

struct sg_occ {			/* one multiprocessor's room, and a block's */
	int threads, blocks, regs, smem, reserved, optin, kregs, sms;
};

static CUresult sg_occ_get(struct sg_occ *o, CUfunction f)
{
	struct CUctx_st *c;
	int d;

	SG_INIT_CHECK();
	c = simgpu_ctx_current();
	if (!c)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (simgpu_func_check(f))
		return CUDA_ERROR_INVALID_HANDLE;
	d = c->dev;
	cuDeviceGetAttribute(&o->threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d);
	cuDeviceGetAttribute(&o->blocks, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, d);
	cuDeviceGetAttribute(&o->regs, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, d);
	cuDeviceGetAttribute(&o->smem, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d);
	cuDeviceGetAttribute(&o->reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, d);
	cuDeviceGetAttribute(&o->optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d);
	cuDeviceGetAttribute(&o->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d);
	cuFuncGetAttribute(&o->kregs, CU_FUNC_ATTRIBUTE_NUM_REGS, f);
	return CUDA_SUCCESS;
}

static int sg_min(int a, int b)
{
	return a < b ? a : b;
}

/* Blocks of BS threads and DYN bytes of dynamic shared memory that fit
 * on one multiprocessor (0 when one block does not fit). */
static int sg_occ_blocks(const struct sg_occ *o, int bs, size_t dyn)
{
	int warps = (bs + 31) / 32, n;

	if (dyn > (size_t)o->optin)
		return 0;
	n = sg_min(o->blocks, o->threads / (warps * 32));
	if (o->kregs > 0)
		n = sg_min(n, o->regs / (o->kregs * warps * 32));
	return sg_min(n, (int)((size_t)o->smem / (dyn + (size_t)o->reserved)));
}

static CUresult sg_occ_active(int *num, CUfunction f, int bs, size_t dyn, unsigned int flags)
{
	struct sg_occ o;
	CUresult rc = sg_occ_get(&o, f);

	if (rc)
		return rc;
	if (!num || bs <= 0 || bs > 1024 || flags & ~(unsigned int)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
		return CUDA_ERROR_INVALID_VALUE;
	*num = sg_occ_blocks(&o, bs, dyn);
	return CUDA_SUCCESS;
}

SG_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
							   int blockSize, size_t dynamicSMemSize)
{
	SG_GATE();
	return sg_occ_active(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

SG_API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
		int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
	SG_GATE();
	return sg_occ_active(numBlocks, func, blockSize, dynamicSMemSize, flags);
}

/* "the maximum size of dynamic shared memory to allow numBlocks blocks
 * per SM": the multiprocessor's shared memory shared out, less what the
 * driver reserves per block, at most the opt-in maximum; 0 when that
 * many blocks do not fit at all. */
SG_API CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
							int numBlocks, int blockSize)
{
	SG_GATE();
	struct sg_occ o;
	CUresult rc = sg_occ_get(&o, func);
	size_t share;

	if (rc)
		return rc;
	if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0 || blockSize > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	*dynamicSmemSize = 0;
	if (sg_occ_blocks(&o, blockSize, 0) < numBlocks)
		return CUDA_SUCCESS;
	share = (size_t)o.smem / (size_t)numBlocks - (size_t)o.reserved;
	*dynamicSmemSize = share < (size_t)o.optin ? share : (size_t)o.optin;
	return CUDA_SUCCESS;
}

/* The block size (a multiple of the warp, at most blockSizeLimit, or
 * 1024 for 0) that keeps the most threads resident per multiprocessor,
 * the smallest on a tie; *minGridSize fills every multiprocessor. The
 * dynamic shared memory is the callback's for each size, else
 * dynamicSMemSize. */
static CUresult sg_occ_potential(int *minGrid, int *bsOut, CUfunction f, CUoccupancyB2DSize b2d,
				 size_t dyn, int limit, unsigned int flags)
{
	struct sg_occ o;
	CUresult rc = sg_occ_get(&o, f);
	int best = 0, bestn = 0;

	if (rc)
		return rc;
	if (!minGrid || !bsOut || limit < 0 || flags & ~(unsigned int)CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)
		return CUDA_ERROR_INVALID_VALUE;
	limit = limit == 0 || limit > 1024 ? 1024 : limit;
	for (int bs = 32; bs <= limit; bs += 32) {
		int n = sg_occ_blocks(&o, bs, b2d ? b2d(bs) : dyn);

		if (n * bs > bestn * best) {
			best = bs;
			bestn = n;
		}
	}
	*bsOut = best;
	*minGrid = bestn * o.sms;
	return CUDA_SUCCESS;
}

SG_API CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
		CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit)
{
	SG_GATE();
	return sg_occ_potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
				dynamicSMemSize, blockSizeLimit, 0);
}

SG_API CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize,
		CUfunction func, CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
		int blockSizeLimit, unsigned int flags)
{
	SG_GATE();
	return sg_occ_potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
				dynamicSMemSize, blockSizeLimit, flags);
}

#if CUDA_VERSION >= 11070
/* Clusters (sm_90): "By default this function will always return a value
 * that's portable on future hardware" (8 blocks on sm_90, cuda.h's
 * CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED), more "if the
 * kernel function allows non-portable cluster sizes": 16 here, H100's.
 * A required size set with cuKernelSetAttribute is the answer. */
static int sg_occ_cluster_max(struct CUfunc_st *f, int *required)
{
	int w, h, d, nonport;

	pthread_mutex_lock(&f->mod->lk);
	w = f->kattr[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH];
	h = f->kattr[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT];
	d = f->kattr[CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH];
	nonport = f->kattr[CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED];
	pthread_mutex_unlock(&f->mod->lk);
	*required = w > 0 && h > 0 && d > 0 ? w * h * d : 0;
	return nonport ? 16 : 8;
}

/* The config's cluster size (its CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION),
 * 0 if none, and the blocks of its shape that fit on one multiprocessor. */
static CUresult sg_occ_config(const CUlaunchConfig *cfg, const struct sg_occ *o, int *csize, int *per_sm)
{
	uint64_t bs;

	if (!cfg || (cfg->numAttrs && !cfg->attrs))
		return CUDA_ERROR_INVALID_VALUE;
	bs = (uint64_t)cfg->blockDimX * cfg->blockDimY * cfg->blockDimZ;
	if (!bs || bs > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	*csize = 0;
	for (unsigned int i = 0; i < cfg->numAttrs; i++)
		if (cfg->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
			*csize = (int)(cfg->attrs[i].value.clusterDim.x * cfg->attrs[i].value.clusterDim.y *
				       cfg->attrs[i].value.clusterDim.z);
	*per_sm = sg_occ_blocks(o, (int)bs, cfg->sharedMemBytes);
	return CUDA_SUCCESS;
}

/* The two cluster queries' common part: the kernel's occupancy, the
 * config's cluster size (csize) and blocks per SM, the kernel's required
 * cluster size and the largest allowed; OUT is the caller's result. */
static CUresult sg_occ_cluster(const void *out, CUfunction func, const CUlaunchConfig *config,
			       struct sg_occ *o, int *csize, int *per_sm, int *required, int *max)
{
	CUresult rc = sg_occ_get(o, func);

	if (!rc && !out)
		rc = CUDA_ERROR_INVALID_VALUE;
	if (!rc)
		rc = sg_occ_config(config, o, csize, per_sm);
	if (!rc)
		*max = sg_occ_cluster_max(func, required);
	return rc;
}

SG_API CUresult cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction func, const CUlaunchConfig *config)
{
	SG_GATE();
	struct sg_occ o;
	int csize, per_sm, required, max;
	CUresult rc = sg_occ_cluster(clusterSize, func, config, &o, &csize, &per_sm, &required, &max);

	if (rc)
		return rc;
	*clusterSize = per_sm ? (required ? required : max) : 0;
	return CUDA_SUCCESS;
}

/* "the maximum number of clusters that could co-exist on the target
 * device": simgpu's multiprocessors hold their blocks, whole clusters of
 * them, with no further grouping (GPCs are not modelled). The size is the
 * config's or the kernel's required one; neither is CUDA_ERROR_INVALID_
 * VALUE, as the reference says ("the cluster size must be specified"). */
SG_API CUresult cuOccupancyMaxActiveClusters(int *numClusters, CUfunction func, const CUlaunchConfig *config)
{
	SG_GATE();
	struct sg_occ o;
	int csize, per_sm, required, max;
	CUresult rc = sg_occ_cluster(numClusters, func, config, &o, &csize, &per_sm, &required, &max);

	if (rc)
		return rc;
	if ((required && csize && csize != required) || (!required && !csize))
		return CUDA_ERROR_INVALID_VALUE;
	csize = required ? required : csize;
	*numClusters = csize <= max ? per_sm * o.sms / csize : 0;
	return CUDA_SUCCESS;
}
#endif
