// SPDX-License-Identifier: GPL-2.0
/*
 * Batch copies (CUDA Driver API, "Memory Management": cuMemcpyBatchAsync,
 * 12080 with failIdx, _v2 of 13000 without, each with _ptsz). The whole
 * batch is checked before any copy is queued: the attribute ranges
 * (attrsIdxs[0] is 0, increasing, below count; numAttrs at most count),
 * each attribute's source access order, each operand, and the stream,
 * which "must not be legacy NULL stream"; a bad one is
 * CUDA_ERROR_INVALID_VALUE and, where the call has one, *failIdx names
 * the copy at fault (SIZE_MAX when no one copy is). The copies then run in
 * stream order, each a 1D copy holding the engine for its bytes (copy.c);
 * "there are no ordering guarantees for copies within a batch", so
 * simgpu's order is one of the allowed ones.
 */
#include <stdint.h>

#include "simgpu.h"

/* An operand: device memory must hold n bytes from p; host memory is not
 * simgpu's to check (copybatch3d.c too). */
CUresult simgpu_batch_operand(CUdeviceptr p, size_t n)
{
	struct sg_range *r;
	CUresult rc = CUDA_SUCCESS;

	if (!p)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)p, 0);
	if (r && (uintptr_t)p + n > r->base + r->mapsize)
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

static CUresult attrs_check(const CUmemcpyAttributes *attrs, const size_t *idx, size_t n,
			    size_t count)
{
	if (!n || n > count || !attrs || !idx || idx[0])
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t k = 0; k < n; k++) {
		if ((k && idx[k] <= idx[k - 1]) || idx[k] >= count)
			return CUDA_ERROR_INVALID_VALUE;
		if (attrs[k].srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_INVALID ||
		    attrs[k].srcAccessOrder > CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
			return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

static CUresult batch(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
		      CUmemcpyAttributes *attrs, size_t *idx, size_t nattrs, size_t *fail,
		      CUstream h, int ptds)
{
	size_t bad = SIZE_MAX;
	CUresult rc;

	SG_INIT_CHECK();
	if (fail)
		*fail = SIZE_MAX;
	if (!count || !dsts || !srcs || !sizes || h == CU_STREAM_LEGACY || (!h && !ptds))
		return CUDA_ERROR_INVALID_VALUE;
	rc = attrs_check(attrs, idx, nattrs, count);
	for (size_t i = 0; i < count && !rc; i++) {
		rc = simgpu_batch_operand(dsts[i], sizes[i]);
		if (!rc)
			rc = simgpu_batch_operand(srcs[i], sizes[i]);
		if (rc)
			bad = i;
	}
	for (size_t i = 0; i < count && !rc; i++) {
		struct sg_op *op;

		if (!sizes[i])
			continue;
		op = simgpu_op_new(SG_OP_COPY);
		if (op) {
			op->dst = (void *)(uintptr_t)dsts[i];
			op->src = (const void *)(uintptr_t)srcs[i];
			op->n = sizes[i];
		}
		rc = simgpu_copy_issue(h, ptds, 0, op);
		if (rc)
			bad = i;
	}
	if (rc && fail)
		*fail = bad;
	return rc;
}

SG_API CUresult cuMemcpyBatchAsync(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count,
				   CUmemcpyAttributes *a, size_t *ai, size_t na, size_t *fail,
				   CUstream h)
{ SG_GATE(); return batch(d, s, n, count, a, ai, na, fail, h, 0); }
SG_API CUresult cuMemcpyBatchAsync_ptsz(CUdeviceptr *d, CUdeviceptr *s, size_t *n,
					size_t count, CUmemcpyAttributes *a, size_t *ai,
					size_t na, size_t *fail, CUstream h)
{ SG_GATE(); return batch(d, s, n, count, a, ai, na, fail, h, 1); }
SG_API CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *d, CUdeviceptr *s, size_t *n, size_t count,
				      CUmemcpyAttributes *a, size_t *ai, size_t na, CUstream h)
{ SG_GATE(); return batch(d, s, n, count, a, ai, na, NULL, h, 0); }
SG_API CUresult cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *d, CUdeviceptr *s, size_t *n,
					   size_t count, CUmemcpyAttributes *a, size_t *ai,
					   size_t na, CUstream h)
{ SG_GATE(); return batch(d, s, n, count, a, ai, na, NULL, h, 1); }
