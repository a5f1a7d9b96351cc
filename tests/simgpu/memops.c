// SPDX-License-Identifier: GPL-2.0
/*
 * Stream-ordered engine work that is not a copy: managed memory prefetch
 * (CUDA Driver API, "Unified Addressing": cuMemPrefetchAsync, _v2, and the
 * batches cuMemPrefetchBatchAsync, cuMemDiscardAndPrefetchBatchAsync) and
 * the stream memory operations ("Stream Memory Operations":
 * cuStreamWriteValue32/64, cuStreamWaitValue32/64, cuStreamBatchMemOp; v1,
 * _v2 and _ptsz).
 * A prefetch migrates its bytes, so it holds the engine for them at
 * copy_bw as a copy does (simgpu's managed memory stays where it is); a
 * write value is a 4 or 8 byte memset. A wait value blocks its stream, and
 * only its stream, until the condition on the word holds.
 */
#include <time.h>

#include "simgpu.h"

static CUresult managed(CUdeviceptr p, size_t n)
{
	struct sg_range *r;
	CUresult rc = CUDA_SUCCESS;

	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)p, 0);
	if (!r || r->kind != SG_MEM_MANAGED || (uintptr_t)p + n > r->base + r->size ||
	    (uintptr_t)p + n < (uintptr_t)p)
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

static CUresult prefetch(CUdeviceptr p, size_t n, CUstream h, int ptds)
{
	struct sg_op *op;
	CUresult rc;

	if (!n)
		return CUDA_ERROR_INVALID_VALUE;
	rc = managed(p, n);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_COPY);	/* in place: device time only */
	if (op) {
		op->dst = (void *)(uintptr_t)p;
		op->src = op->dst;
		op->n = n;
	}
	return simgpu_copy_issue(h, ptds, 0, op);
}

static CUresult prefetch_v1(CUdeviceptr p, size_t n, CUdevice dev, CUstream h, int ptds)
{
	SG_INIT_CHECK();
	if (dev != CU_DEVICE_CPU && simgpu_check_dev(dev))
		return CUDA_ERROR_INVALID_DEVICE;
	return prefetch(p, n, h, ptds);
}

static CUresult location(CUmemLocation loc)
{
	switch (loc.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return simgpu_check_dev(loc.id) ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

static CUresult prefetch_v2(CUdeviceptr p, size_t n, CUmemLocation loc, unsigned int flags,
			    CUstream h, int ptds)
{
	CUresult rc;

	SG_INIT_CHECK();
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;	/* reserved, must be 0 */
	rc = location(loc);
	return rc ? rc : prefetch(p, n, h, ptds);
}

/*
 * Batch prefetches ("Unified Addressing": cuMemPrefetchBatchAsync,
 * cuMemDiscardAndPrefetchBatchAsync, 13000, each with _ptsz). The whole
 * batch is checked first: flags "must be zero"; the stream "must not be
 * legacy NULL stream"; the location ranges as cuMemcpyBatchAsync's
 * attributes ("the first entry in prefetchLocIdxs must always be 0",
 * increasing, below count, "numPrefetchLocs must be lesser than or equal
 * to count"), each location as cuMemPrefetchAsync's; each range managed
 * memory. Each range is then a prefetch holding the engine for its
 * bytes. A discard and prefetch is one too: the discarded contents are
 * left as they are (the reference makes them indeterminate), and the
 * range is made resident at its location like a prefetch.
 */
static CUresult prefetch_batch(CUdeviceptr *p, size_t *n, size_t count, CUmemLocation *locs,
			       size_t *idx, size_t nlocs, unsigned long long flags, CUstream h,
			       int ptds)
{
	CUresult rc = CUDA_SUCCESS;

	SG_INIT_CHECK();
	if (!count || !p || !n || flags || h == CU_STREAM_LEGACY || (!h && !ptds) ||
	    !nlocs || nlocs > count || !locs || !idx || idx[0])
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t k = 0; k < nlocs && !rc; k++) {
		if ((k && idx[k] <= idx[k - 1]) || idx[k] >= count)
			return CUDA_ERROR_INVALID_VALUE;
		rc = location(locs[k]);
	}
	for (size_t i = 0; i < count && !rc; i++)
		rc = n[i] ? managed(p[i], n[i]) : CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < count && !rc; i++)
		rc = prefetch(p[i], n[i], h, ptds);
	return rc;
}

SG_API CUresult cuMemPrefetchBatchAsync(CUdeviceptr *p, size_t *n, size_t count,
					CUmemLocation *locs, size_t *idx, size_t nlocs,
					unsigned long long flags, CUstream h)
{ SG_GATE(); return prefetch_batch(p, n, count, locs, idx, nlocs, flags, h, 0); }
SG_API CUresult cuMemPrefetchBatchAsync_ptsz(CUdeviceptr *p, size_t *n, size_t count,
					     CUmemLocation *locs, size_t *idx, size_t nlocs,
					     unsigned long long flags, CUstream h)
{ SG_GATE(); return prefetch_batch(p, n, count, locs, idx, nlocs, flags, h, 1); }
SG_API CUresult cuMemDiscardAndPrefetchBatchAsync(CUdeviceptr *p, size_t *n, size_t count,
						  CUmemLocation *locs, size_t *idx,
						  size_t nlocs, unsigned long long flags,
						  CUstream h)
{ SG_GATE(); return prefetch_batch(p, n, count, locs, idx, nlocs, flags, h, 0); }
SG_API CUresult cuMemDiscardAndPrefetchBatchAsync_ptsz(CUdeviceptr *p, size_t *n,
						       size_t count, CUmemLocation *locs,
						       size_t *idx, size_t nlocs,
						       unsigned long long flags, CUstream h)
{ SG_GATE(); return prefetch_batch(p, n, count, locs, idx, nlocs, flags, h, 1); }

SG_API CUresult cuMemPrefetchAsync(CUdeviceptr p, size_t n, CUdevice dev, CUstream h)
{ SG_GATE(); return prefetch_v1(p, n, dev, h, 0); }
SG_API CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr p, size_t n, CUdevice dev, CUstream h)
{ SG_GATE(); return prefetch_v1(p, n, dev, h, 1); }
SG_API CUresult cuMemPrefetchAsync_v2(CUdeviceptr p, size_t n, CUmemLocation loc,
				      unsigned int flags, CUstream h)
{ SG_GATE(); return prefetch_v2(p, n, loc, flags, h, 0); }
SG_API CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr p, size_t n, CUmemLocation loc,
					   unsigned int flags, CUstream h)
{ SG_GATE(); return prefetch_v2(p, n, loc, flags, h, 1); }

/* The word at addr: 4 or 8 bytes, naturally aligned, device memory. */
static CUresult word(CUdeviceptr addr, int size)
{
	if (!addr || addr % (CUdeviceptr)size)
		return CUDA_ERROR_INVALID_VALUE;
	return simgpu_dev_ptr(addr, (size_t)size);
}

static CUresult write_check(CUdeviceptr addr, int size, unsigned int flags)
{
	if (flags & ~(unsigned int)CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER)
		return CUDA_ERROR_INVALID_VALUE;
	return word(addr, size);
}

static CUresult wait_check(CUdeviceptr addr, int size, unsigned int flags)
{
	if ((flags & ~(unsigned int)CU_STREAM_WAIT_VALUE_FLUSH) > CU_STREAM_WAIT_VALUE_NOR)
		return CUDA_ERROR_INVALID_VALUE;
	return word(addr, size);
}

static CUresult write_value(CUstream h, CUdeviceptr addr, uint64_t val, int size,
			    unsigned int flags, int ptds)
{
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	rc = write_check(addr, size, flags);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_SET);
	if (op) {
		op->dst = (void *)(uintptr_t)addr;
		op->val = val;
		op->elsize = size;
		op->n = 1;
	}
	return simgpu_copy_issue(h, ptds, 0, op);
}

static CUresult wait_value(CUstream h, CUdeviceptr addr, uint64_t val, int size,
			   unsigned int flags, int ptds)
{
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	rc = wait_check(addr, size, flags);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_WAIT_VALUE);
	if (op) {
		op->dst = (void *)(uintptr_t)addr;
		op->val = val;
		op->elsize = size;
		op->flags = flags & ~(unsigned int)CU_STREAM_WAIT_VALUE_FLUSH;
	}
	return simgpu_copy_issue(h, ptds, 0, op);
}

/* The conditions as cuda.h's CUstreamWaitValue_flags state them. */
static int holds(const struct sg_op *op)
{
	uint64_t v = op->elsize == 8 ?
		__atomic_load_n((uint64_t *)op->dst, __ATOMIC_ACQUIRE) :
		__atomic_load_n((uint32_t *)op->dst, __ATOMIC_ACQUIRE);
	uint64_t mask = op->elsize == 8 ? UINT64_MAX : UINT32_MAX;

	switch (op->flags) {
	case CU_STREAM_WAIT_VALUE_GEQ:
		return op->elsize == 8 ? (int64_t)(v - op->val) >= 0 :
					 (int32_t)(uint32_t)(v - op->val) >= 0;
	case CU_STREAM_WAIT_VALUE_EQ:
		return v == op->val;
	case CU_STREAM_WAIT_VALUE_AND:
		return (v & op->val) != 0;
	default:	/* NOR */
		return (~(v | op->val) & mask) != 0;
	}
}

void simgpu_wait_value(const struct sg_op *op)
{
	struct timespec poll = { 0, 50000 };	/* 50 us */

	while (!holds(op) && !simgpu_exiting)
		nanosleep(&poll, NULL);
}

#define MEMOPS(sfx, ptds)							\
SG_API CUresult cuStreamWriteValue32##sfx(CUstream h, CUdeviceptr a, cuuint32_t v,	\
					  unsigned int f)			\
{ SG_GATE(); return write_value(h, a, v, 4, f, ptds); }					\
SG_API CUresult cuStreamWriteValue64##sfx(CUstream h, CUdeviceptr a, cuuint64_t v,	\
					  unsigned int f)			\
{ SG_GATE(); return write_value(h, a, v, 8, f, ptds); }					\
SG_API CUresult cuStreamWaitValue32##sfx(CUstream h, CUdeviceptr a, cuuint32_t v,	\
					 unsigned int f)			\
{ SG_GATE(); return wait_value(h, a, v, 4, f, ptds); }					\
SG_API CUresult cuStreamWaitValue64##sfx(CUstream h, CUdeviceptr a, cuuint64_t v,	\
					 unsigned int f)			\
{ SG_GATE(); return wait_value(h, a, v, 8, f, ptds); }

MEMOPS(, 0)
MEMOPS(_ptsz, 1)
MEMOPS(_v2, 0)
MEMOPS(_v2_ptsz, 1)

/* An operation of a batch: its check, or (run) its submission. */
static CUresult batch_op(CUstream h, const CUstreamBatchMemOpParams *p, int ptds, int run)
{
	const struct CUstreamMemOpWaitValueParams_st *wt = &p->waitValue;
	const struct CUstreamMemOpWriteValueParams_st *wr = &p->writeValue;

	switch (p->operation) {
	case CU_STREAM_MEM_OP_WAIT_VALUE_32:
		return run ? wait_value(h, wt->address, wt->value, 4, wt->flags, ptds) :
			     wait_check(wt->address, 4, wt->flags);
	case CU_STREAM_MEM_OP_WAIT_VALUE_64:
		return run ? wait_value(h, wt->address, wt->value64, 8, wt->flags, ptds) :
			     wait_check(wt->address, 8, wt->flags);
	case CU_STREAM_MEM_OP_WRITE_VALUE_32:
		return run ? write_value(h, wr->address, wr->value, 4, wr->flags, ptds) :
			     write_check(wr->address, 4, wr->flags);
	case CU_STREAM_MEM_OP_WRITE_VALUE_64:
		return run ? write_value(h, wr->address, wr->value64, 8, wr->flags, ptds) :
			     write_check(wr->address, 8, wr->flags);
	case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
		/* one host memory: nothing to flush (flags must be 0) */
		return p->flushRemoteWrites.flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
	case CU_STREAM_MEM_OP_BARRIER:
		/* a stream's operations already run one after the other */
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* All operations checked first, so that a bad one queues nothing. */
static CUresult batch(CUstream h, unsigned int count, CUstreamBatchMemOpParams *ops,
		      unsigned int flags, int ptds, int v2)
{
	CUresult rc = CUDA_SUCCESS;

	SG_INIT_CHECK();
	if (flags || (count && !ops))
		return CUDA_ERROR_INVALID_VALUE;	/* flags: reserved, 0 */
	for (unsigned int i = 0; i < count && !rc; i++) {
		/* barriers: "only supported in the _v2 API" (cuda.h) */
		if (!v2 && ops[i].operation == CU_STREAM_MEM_OP_BARRIER)
			return CUDA_ERROR_INVALID_VALUE;
		rc = batch_op(h, &ops[i], ptds, 0);
	}
	for (unsigned int i = 0; i < count && !rc; i++)
		rc = batch_op(h, &ops[i], ptds, 1);
	return rc;
}

SG_API CUresult cuStreamBatchMemOp(CUstream h, unsigned int n, CUstreamBatchMemOpParams *p,
				   unsigned int f)
{ SG_GATE(); return batch(h, n, p, f, 0, 0); }
SG_API CUresult cuStreamBatchMemOp_ptsz(CUstream h, unsigned int n,
					CUstreamBatchMemOpParams *p, unsigned int f)
{ SG_GATE(); return batch(h, n, p, f, 1, 0); }
SG_API CUresult cuStreamBatchMemOp_v2(CUstream h, unsigned int n, CUstreamBatchMemOpParams *p,
				      unsigned int f)
{ SG_GATE(); return batch(h, n, p, f, 0, 1); }
SG_API CUresult cuStreamBatchMemOp_v2_ptsz(CUstream h, unsigned int n,
					   CUstreamBatchMemOpParams *p, unsigned int f)
{ SG_GATE(); return batch(h, n, p, f, 1, 1); }
