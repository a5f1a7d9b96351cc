// SPDX-License-Identifier: GPL-2.0
/*
 * Copies to and from 1D CUDA arrays (CUDA Driver API, "Memory
 * Management": cuMemcpyHtoA, cuMemcpyAtoH, cuMemcpyDtoA, cuMemcpyAtoD,
 * cuMemcpyAtoA, cuMemcpyHtoAAsync, cuMemcpyAtoHAsync) in their legacy
 * (v1), _v2 and per-thread default stream (_v2_ptds, _v2_ptsz) forms. An
 * array's offset and ByteCount are bytes into its level-0 contents
 * (array.c keeps them, linear); the range must lie within the array's
 * size from its descriptor. Documented constraints: cuMemcpyAtoD's
 * destination "must be naturally aligned with the CUDA array elements"
 * and its ByteCount "evenly divisible by the array element size";
 * cuMemcpyAtoA's arrays' elements "must be the same size; and count must
 * be evenly divisible by that size". A bad array, range or pointer is
 * CUDA_ERROR_INVALID_VALUE (the only argument error the synchronous
 * forms document), a bad stream CUDA_ERROR_INVALID_HANDLE. Each copy is
 * one stream operation holding the engine for its bytes (copy.c), on the
 * stream's GPU: the current context's for the synchronous forms.
 */
#include "simgpu.h"

/* The bytes [off, off + n) of array a, checked. */
static CUresult span(CUarray a, size_t off, size_t n, unsigned char **p, size_t *elsize)
{
	unsigned char *data;
	size_t w, h, z, total;
	CUresult rc = simgpu_array_data(a, &data, elsize);

	if (rc)
		return rc;
	simgpu_array_extent(a, &w, &h, &z);
	total = w * h * z * *elsize;
	if (off > total || n > total - off)
		return CUDA_ERROR_INVALID_VALUE;
	*p = data + off;
	return CUDA_SUCCESS;
}

enum { HOST, DEV, ARR };

struct end {
	int kind;
	const void *p;		/* HOST, DEV */
	CUarray a;		/* ARR */
	size_t off;
};

static CUresult resolve(const struct end *e, size_t n, const void **out, size_t *elsize)
{
	unsigned char *p = NULL;
	CUresult rc;

	*elsize = 0;
	if (e->kind == ARR) {
		rc = span(e->a, e->off, n, &p, elsize);
		*out = p;
		return rc;
	}
	if (!e->p)
		return CUDA_ERROR_INVALID_VALUE;
	*out = e->p;
	if (e->kind == DEV && simgpu_dev_ptr((CUdeviceptr)(uintptr_t)e->p, n))
		return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

static CUresult acopy(const struct end *dst, const struct end *src, size_t n, CUstream h,
		      int ptds, int sync)
{
	const void *d, *s;
	size_t de, se;
	struct sg_op *op;
	CUresult rc;

	SG_INIT_CHECK();
	rc = resolve(dst, n, &d, &de);
	if (!rc)
		rc = resolve(src, n, &s, &se);
	if (rc)
		return rc;
	if (dst->kind == ARR && src->kind == ARR && (de != se || n % de))
		return CUDA_ERROR_INVALID_VALUE;	/* cuMemcpyAtoA */
	if (dst->kind == DEV && src->kind == ARR && (n % se || (uintptr_t)d % se))
		return CUDA_ERROR_INVALID_VALUE;	/* cuMemcpyAtoD */
	if (!n)
		return CUDA_SUCCESS;
	op = simgpu_op_new(SG_OP_COPY);
	if (op) {
		op->dst = (void *)(uintptr_t)d;
		op->src = s;
		op->n = n;
	}
	return simgpu_copy_issue(h, ptds, sync, op);
}

#define P(x) ((const void *)(uintptr_t)(x))
#define A(a, o) (&(struct end){ ARR, NULL, (a), (o) })
#define H(p) (&(struct end){ HOST, (p), NULL, 0 })
#define D(p) (&(struct end){ DEV, P(p), NULL, 0 })

#define SYNC_ARRAY(sfx, ptds, dptr_t, size_t_)					\
SG_API CUresult cuMemcpyHtoA##sfx(CUarray a, size_t_ off, const void *src, size_t_ n)	\
{ SG_GATE(); return acopy(A(a, off), H(src), n, NULL, ptds, 1); }				\
SG_API CUresult cuMemcpyAtoH##sfx(void *dst, CUarray a, size_t_ off, size_t_ n)	\
{ SG_GATE(); return acopy(H(dst), A(a, off), n, NULL, ptds, 1); }				\
SG_API CUresult cuMemcpyDtoA##sfx(CUarray a, size_t_ off, dptr_t src, size_t_ n)	\
{ SG_GATE(); return acopy(A(a, off), D(src), n, NULL, ptds, 1); }				\
SG_API CUresult cuMemcpyAtoD##sfx(dptr_t dst, CUarray a, size_t_ off, size_t_ n)	\
{ SG_GATE(); return acopy(D(dst), A(a, off), n, NULL, ptds, 1); }				\
SG_API CUresult cuMemcpyAtoA##sfx(CUarray d, size_t_ doff, CUarray s, size_t_ soff,	\
				  size_t_ n)					\
{ SG_GATE(); return acopy(A(d, doff), A(s, soff), n, NULL, ptds, 1); }

SYNC_ARRAY(, 0, CUdeviceptr_v1, unsigned int)
SYNC_ARRAY(_v2, 0, CUdeviceptr, size_t)
SYNC_ARRAY(_v2_ptds, 1, CUdeviceptr, size_t)

#define ASYNC_ARRAY(sfx, ptds, size_t_)						\
SG_API CUresult cuMemcpyHtoAAsync##sfx(CUarray a, size_t_ off, const void *src,	\
				       size_t_ n, CUstream h)			\
{ SG_GATE(); return acopy(A(a, off), H(src), n, h, ptds, 0); }				\
SG_API CUresult cuMemcpyAtoHAsync##sfx(void *dst, CUarray a, size_t_ off, size_t_ n,	\
				       CUstream h)				\
{ SG_GATE(); return acopy(H(dst), A(a, off), n, h, ptds, 0); }

ASYNC_ARRAY(, 0, unsigned int)
ASYNC_ARRAY(_v2, 0, size_t)
ASYNC_ARRAY(_v2_ptsz, 1, size_t)
