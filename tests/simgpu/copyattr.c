// SPDX-License-Identifier: GPL-2.0
/*
 * Copies with attributes and fabric copies, as the CUDA Driver API
 * reference documents them, each with _ptsz:
 *
 * - cuMemcpyWithAttributesAsync (13020, "Memory Management") "performs
 *   asynchronous memory copy operation with the specified attributes",
 *   whose meaning is cuMemcpyBatchAsync's: cuMemcpyAsync's copy (copy.c)
 *   once the attribute is checked as a batch's are (NULL, or an invalid
 *   srcAccessOrder: CUDA_ERROR_INVALID_VALUE);
 * - cuMemcpy3DWithAttributesAsync (13020) "performs the copy operation
 *   specified in op", a CUDA_MEMCPY3D_BATCH_OP "as in
 *   cuMemcpy3DBatchAsync": one op of a 3D batch (copybatch3d.c), with its
 *   checks; flags "must be zero now".
 *   Neither names the legacy NULL stream (the batches refuse it): simgpu
 *   accepts it, as cuMemcpyAsync does;
 * - cuFabricCpyBatchAsync (13050, "Fabric Copy"): the whole batch is
 *   checked before a copy is queued: numOps non-zero, opList not NULL,
 *   flags "must be zero", each op's flags "must be 0", each operand a
 *   POINTER or a LOGICAL_ENDPOINT, each pointer within its allocation;
 *   the stream "must not be the legacy NULL stream"; else
 *   CUDA_ERROR_INVALID_VALUE. simgpu has no fabric, so no logical
 *   endpoint: an op with one is CUDA_ERROR_NOT_SUPPORTED ("returns
 *   CUDA_ERROR_NOT_SUPPORTED on all other configurations"). A
 *   pointer-to-pointer op is a 1D copy of its size, queued as a batch
 *   copy's (copybatch.c); a size of 0 is a no-op "while preserving its
 *   position", its operands still checked. "Copies within a batch are not
 *   guaranteed to execute in any specific order": simgpu's is one of them.
 */
#include <stdint.h>

#include "simgpu.h"

#if CUDA_VERSION >= 13020
static CUresult attr_check(const CUmemcpyAttributes *a)
{
	if (!a || a->srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_INVALID ||
	    a->srcAccessOrder > CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static CUresult copy_attr(CUdeviceptr dst, CUdeviceptr src, size_t n, CUmemcpyAttributes *a,
			  CUstream h, int ptds)
{
	SG_INIT_CHECK();
	return attr_check(a) ? CUDA_ERROR_INVALID_VALUE : simgpu_memcpy_async(dst, src, n, h, ptds);
}

static CUresult copy3d_attr(CUDA_MEMCPY3D_BATCH_OP *op, unsigned long long flags, CUstream h,
			    int ptds)
{
	SG_INIT_CHECK();
	if (!op || flags)
		return CUDA_ERROR_INVALID_VALUE;
	return simgpu_copy3d_op(op, h, ptds);
}

SG_API CUresult cuMemcpyWithAttributesAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
					    CUmemcpyAttributes *a, CUstream h)
{ SG_GATE(); return copy_attr(dst, src, n, a, h, 0); }
SG_API CUresult cuMemcpyWithAttributesAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n,
						 CUmemcpyAttributes *a, CUstream h)
{ SG_GATE(); return copy_attr(dst, src, n, a, h, 1); }
SG_API CUresult cuMemcpy3DWithAttributesAsync(CUDA_MEMCPY3D_BATCH_OP *op,
					      unsigned long long flags, CUstream h)
{ SG_GATE(); return copy3d_attr(op, flags, h, 0); }
SG_API CUresult cuMemcpy3DWithAttributesAsync_ptsz(CUDA_MEMCPY3D_BATCH_OP *op,
						   unsigned long long flags, CUstream h)
{ SG_GATE(); return copy3d_attr(op, flags, h, 1); }
#endif

#if CUDA_VERSION >= 13050
static CUresult fabric_check(const CUDA_FABRIC_COPY_BATCH_OP *op)
{
	const CUfabricCpyOperand *ends[2] = { &op->src, &op->dst };
	int endpoint = 0;
	CUresult rc;

	if (op->flags)
		return CUDA_ERROR_INVALID_VALUE;
	for (int i = 0; i < 2; i++) {
		if (ends[i]->type == CU_FABRIC_COPY_OPERAND_TYPE_LOGICAL_ENDPOINT)
			endpoint = 1;
		else if (ends[i]->type != CU_FABRIC_COPY_OPERAND_TYPE_POINTER)
			return CUDA_ERROR_INVALID_VALUE;
	}
	if (endpoint)
		return CUDA_ERROR_NOT_SUPPORTED;	/* no fabric */
	rc = simgpu_batch_operand(op->src.op.ptr.ptr, op->size);
	return rc ? rc : simgpu_batch_operand(op->dst.op.ptr.ptr, op->size);
}

static CUresult fabric(size_t n, CUDA_FABRIC_COPY_BATCH_OP *ops, unsigned long long flags,
		       CUstream h, int ptds)
{
	CUresult rc = CUDA_SUCCESS;

	SG_INIT_CHECK();
	if (!n || !ops || flags || h == CU_STREAM_LEGACY || (!h && !ptds))
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < n && !rc; i++)
		rc = fabric_check(&ops[i]);
	for (size_t i = 0; i < n && !rc; i++) {
		struct sg_op *op;

		if (!ops[i].size)
			continue;
		op = simgpu_op_new(SG_OP_COPY);
		if (op) {
			op->dst = (void *)(uintptr_t)ops[i].dst.op.ptr.ptr;
			op->src = (const void *)(uintptr_t)ops[i].src.op.ptr.ptr;
			op->n = ops[i].size;
		}
		rc = simgpu_copy_issue(h, ptds, 0, op);
	}
	return rc;
}

SG_API CUresult cuFabricCpyBatchAsync(size_t n, CUDA_FABRIC_COPY_BATCH_OP *ops,
				      unsigned long long flags, CUstream h)
{ SG_GATE(); return fabric(n, ops, flags, h, 0); }
SG_API CUresult cuFabricCpyBatchAsync_ptsz(size_t n, CUDA_FABRIC_COPY_BATCH_OP *ops,
					   unsigned long long flags, CUstream h)
{ SG_GATE(); return fabric(n, ops, flags, h, 1); }
#endif
