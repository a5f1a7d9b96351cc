// SPDX-License-Identifier: GPL-2.0
/*
 * Copies and sets, synchronous and stream-ordered, in all their ABI
 * versions: legacy 32-bit (v1), _v2, and the per-thread default stream
 * variants (_ptds for synchronous, _ptsz for asynchronous calls).
 * Device memory is host memory underneath, so a copy is a memmove done
 * in stream order; it then holds the device's engine for its bytes at
 * copy_bw (engine.c), a memset for the bytes it writes, as DMA engines
 * and memset kernels take device time.
 */
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

enum { H = 0, D = 1 };

static void fill(void *dst, const struct sg_op *op)
{
	for (size_t i = 0; i < op->n; i++) {
		if (op->elsize == 1)
			((unsigned char *)dst)[i] = (unsigned char)op->val;
		else if (op->elsize == 2)
			((uint16_t *)dst)[i] = (uint16_t)op->val;
		else if (op->elsize == 4)
			((uint32_t *)dst)[i] = (uint32_t)op->val;
		else
			((uint64_t *)dst)[i] = op->val;
	}
}

/* Slice by slice, row by row: a 1D op is one row of one slice. */
void simgpu_move(const struct sg_op *op)
{
	size_t rows = op->rows ? op->rows : 1, slices = op->slices ? op->slices : 1;

	for (size_t z = 0; z < slices; z++) {
		for (size_t r = 0; r < rows; r++) {
			unsigned char *d = (unsigned char *)op->dst + z * op->dslice +
					   r * op->dpitch;
			const unsigned char *s = (const unsigned char *)op->src +
						 z * op->sslice + r * op->spitch;

			if (op->kind == SG_OP_COPY)
				memmove(d, s, op->n);
			else
				fill(d, op);
		}
	}
}

uint64_t simgpu_op_copy_ns(const struct sg_op *op)
{
	uint64_t row = op->kind == SG_OP_COPY ? op->n : op->n * (uint64_t)op->elsize;

	return simgpu_copy_ns(row * (op->rows ? op->rows : 1) * (op->slices ? op->slices : 1));
}

static CUresult check(int kind, const void *p, size_t n)
{
	return kind == D ? simgpu_dev_ptr((CUdeviceptr)(uintptr_t)p, n) : CUDA_SUCCESS;
}

/* Queue op on the stream; sync: wait for it (and what came before). */
CUresult simgpu_copy_issue(CUstream h, int ptds, int sync, struct sg_op *op)
{
	struct CUstream_st *s;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc || !op) {
		free(op);
		return rc ? rc : CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (sync) {
		int idle;

		pthread_mutex_lock(&simgpu_lk);
		idle = s->completed == s->submitted;
		pthread_mutex_unlock(&simgpu_lk);
		if (idle) {
			/* Nothing queued ahead of it: do it here, the device
			 * time from the call (the move is the host's time). */
			uint64_t t = simgpu_now_ns();

			simgpu_move(op);
			simgpu_engine_run(s->ctx->dev, simgpu_op_copy_ns(op), t);
			free(op);
			return CUDA_SUCCESS;
		}
	}
	rc = simgpu_stream_submit(s, op);
	if (!rc && sync)
		rc = simgpu_stream_sync(s);
	return rc;
}

static CUresult copy(void *dst, int dk, const void *src, int sk, size_t n,
		     CUstream h, int ptds, int sync)
{
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	if (!n)
		return CUDA_SUCCESS;
	if (!dst || !src)
		return CUDA_ERROR_INVALID_VALUE;
	rc = check(dk, dst, n);
	if (!rc)
		rc = check(sk, src, n);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_COPY);
	if (op) {
		op->dst = dst;
		op->src = src;
		op->n = n;
	}
	return simgpu_copy_issue(h, ptds, sync, op);
}

static CUresult set(CUdeviceptr dst, uint32_t val, int elsize, size_t n,
		    CUstream h, int ptds, int sync)
{
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	if (!n)
		return CUDA_SUCCESS;
	if ((uintptr_t)dst % (size_t)elsize)
		return CUDA_ERROR_INVALID_VALUE;
	rc = simgpu_dev_ptr(dst, n * (size_t)elsize);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_SET);
	if (op) {
		op->dst = (void *)(uintptr_t)dst;
		op->val = val;
		op->elsize = elsize;
		op->n = n;
	}
	return simgpu_copy_issue(h, ptds, sync, op);
}

#define P(x) ((void *)(uintptr_t)(x))

/* ---- synchronous copies ---- */
#define SYNC_COPIES(sfx, ptds, dptr_t, size_t_)				\
SG_API CUresult cuMemcpyHtoD##sfx(dptr_t dst, const void *src, size_t_ n)	\
{ SG_GATE(); return copy(P(dst), D, src, H, n, NULL, ptds, 1); }			\
SG_API CUresult cuMemcpyDtoH##sfx(void *dst, dptr_t src, size_t_ n)	\
{ SG_GATE(); return copy(dst, H, P(src), D, n, NULL, ptds, 1); }			\
SG_API CUresult cuMemcpyDtoD##sfx(dptr_t dst, dptr_t src, size_t_ n)	\
{ SG_GATE(); return copy(P(dst), D, P(src), D, n, NULL, ptds, 1); }

SYNC_COPIES(, 0, CUdeviceptr_v1, unsigned int)
SYNC_COPIES(_v2, 0, CUdeviceptr, size_t)
SYNC_COPIES(_v2_ptds, 1, CUdeviceptr, size_t)

/* ---- asynchronous copies ---- */
#define ASYNC_COPIES(sfx, ptds, dptr_t, size_t_)			\
SG_API CUresult cuMemcpyHtoDAsync##sfx(dptr_t dst, const void *src, size_t_ n, CUstream h) \
{ SG_GATE(); return copy(P(dst), D, src, H, n, h, ptds, 0); }			\
SG_API CUresult cuMemcpyDtoHAsync##sfx(void *dst, dptr_t src, size_t_ n, CUstream h) \
{ SG_GATE(); return copy(dst, H, P(src), D, n, h, ptds, 0); }			\
SG_API CUresult cuMemcpyDtoDAsync##sfx(dptr_t dst, dptr_t src, size_t_ n, CUstream h) \
{ SG_GATE(); return copy(P(dst), D, P(src), D, n, h, ptds, 0); }

ASYNC_COPIES(, 0, CUdeviceptr_v1, unsigned int)
ASYNC_COPIES(_v2, 0, CUdeviceptr, size_t)
ASYNC_COPIES(_v2_ptsz, 1, CUdeviceptr, size_t)

/* ---- unified copies ---- */
/* cuMemcpyAsync's copy, for copyattr.c too (not through the exported,
 * interposable names). */
CUresult simgpu_memcpy_async(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h, int ptds)
{
	return copy(P(dst), H, P(src), H, n, h, ptds, 0);
}

SG_API CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n)
{ SG_GATE(); return copy(P(dst), H, P(src), H, n, NULL, 0, 1); }
SG_API CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n)
{ SG_GATE(); return copy(P(dst), H, P(src), H, n, NULL, 1, 1); }
SG_API CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h)
{ SG_GATE(); return simgpu_memcpy_async(dst, src, n, h, 0); }
SG_API CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream h)
{ SG_GATE(); return simgpu_memcpy_async(dst, src, n, h, 1); }

/* ---- sets ---- */
#define SYNC_SETS(sfx, ptds, dptr_t, size_t_)				\
SG_API CUresult cuMemsetD8##sfx(dptr_t dst, unsigned char v, size_t_ n)	\
{ SG_GATE(); return set(dst, v, 1, n, NULL, ptds, 1); }				\
SG_API CUresult cuMemsetD16##sfx(dptr_t dst, unsigned short v, size_t_ n)	\
{ SG_GATE(); return set(dst, v, 2, n, NULL, ptds, 1); }				\
SG_API CUresult cuMemsetD32##sfx(dptr_t dst, unsigned int v, size_t_ n)	\
{ SG_GATE(); return set(dst, v, 4, n, NULL, ptds, 1); }

SYNC_SETS(, 0, CUdeviceptr_v1, unsigned int)
SYNC_SETS(_v2, 0, CUdeviceptr, size_t)
SYNC_SETS(_v2_ptds, 1, CUdeviceptr, size_t)

#define ASYNC_SETS(sfx, ptds)						\
SG_API CUresult cuMemsetD8Async##sfx(CUdeviceptr dst, unsigned char v, size_t n, CUstream h) \
{ SG_GATE(); return set(dst, v, 1, n, h, ptds, 0); }				\
SG_API CUresult cuMemsetD16Async##sfx(CUdeviceptr dst, unsigned short v, size_t n, CUstream h) \
{ SG_GATE(); return set(dst, v, 2, n, h, ptds, 0); }				\
SG_API CUresult cuMemsetD32Async##sfx(CUdeviceptr dst, unsigned int v, size_t n, CUstream h) \
{ SG_GATE(); return set(dst, v, 4, n, h, ptds, 0); }

ASYNC_SETS(, 0)
ASYNC_SETS(_ptsz, 1)
