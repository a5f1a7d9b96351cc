// SPDX-License-Identifier: GPL-2.0
/*
 * Batches of 3D copies (CUDA Driver API, "Memory Management":
 * cuMemcpy3DBatchAsync, 12080 with failIdx, _v2 of 13000 without, each
 * with _ptsz). The whole batch is checked before any copy is queued, as
 * the reference documents it: flags "must be zero now"; the stream "must
 * not be default NULL stream"; each op's extent (in elements) "must not
 * be zero"; a pointer operand's rowLength and layerHeight are zero
 * (tightly packed) or at least the extent's width and height; "for
 * pointer-to-pointer copies, the element size is considered to be 1",
 * for a copy with a CUDA array it is the array's, and two arrays' "must
 * match"; an array operand's offset plus the extent lies within the
 * array (level 0 of its descriptor); "each memcopy operation ... must
 * have a valid srcAccessOrder". A bad one is CUDA_ERROR_INVALID_VALUE
 * and, where the call has one, *failIdx names the op at fault (SIZE_MAX
 * when no one op is). Each op is then one stream operation of depth
 * slices of height rows (copy.c moves them) holding the engine for its
 * bytes; "copies within a batch are not guaranteed to execute in any
 * specific order", so simgpu's order is one of the allowed ones.
 */
#include <stdint.h>

#include "simgpu.h"

/* One operand, resolved: its first byte and its pitches in bytes. */
struct side3 {
	unsigned char *p;
	size_t pitch, slice;
};

/* The element size of op's copy (*el), from its array operands. */
static CUresult elsize(const CUDA_MEMCPY3D_BATCH_OP *op, size_t *el)
{
	const CUmemcpy3DOperand *ends[2] = { &op->src, &op->dst };
	unsigned char *data;
	size_t e;

	*el = 0;
	for (int i = 0; i < 2; i++) {
		if (ends[i]->type == CU_MEMCPY_OPERAND_TYPE_POINTER)
			continue;
		if (ends[i]->type != CU_MEMCPY_OPERAND_TYPE_ARRAY ||
		    simgpu_array_data(ends[i]->op.array.array, &data, &e) || (*el && e != *el))
			return CUDA_ERROR_INVALID_VALUE;
		*el = e;
	}
	if (!*el)
		*el = 1;	/* pointer to pointer */
	return CUDA_SUCCESS;
}

static CUresult side(const CUmemcpy3DOperand *o, const CUextent3D *x, size_t el,
		     struct side3 *sd)
{
	size_t rowlen, layer, w, h, z;
	unsigned char *data;
	const CUoffset3D *off;

	if (o->type == CU_MEMCPY_OPERAND_TYPE_POINTER) {
		rowlen = o->op.ptr.rowLength ? o->op.ptr.rowLength : x->width;
		layer = o->op.ptr.layerHeight ? o->op.ptr.layerHeight : x->height;
		if (rowlen < x->width || layer < x->height)
			return CUDA_ERROR_INVALID_VALUE;
		sd->p = (unsigned char *)(uintptr_t)o->op.ptr.ptr;
		sd->pitch = rowlen * el;
		sd->slice = layer * sd->pitch;
		return simgpu_batch_operand(o->op.ptr.ptr, (x->depth - 1) * sd->slice +
					    (x->height - 1) * sd->pitch + x->width * el);
	}
	if (simgpu_array_data(o->op.array.array, &data, &el))
		return CUDA_ERROR_INVALID_VALUE;
	simgpu_array_extent(o->op.array.array, &w, &h, &z);
	off = &o->op.array.offset;
	if (off->x > w || x->width > w - off->x || off->y > h || x->height > h - off->y ||
	    off->z > z || x->depth > z - off->z)
		return CUDA_ERROR_INVALID_VALUE;
	sd->pitch = w * el;
	sd->slice = h * sd->pitch;
	sd->p = data + off->z * sd->slice + off->y * sd->pitch + off->x * el;
	return CUDA_SUCCESS;
}

static CUresult check(const CUDA_MEMCPY3D_BATCH_OP *op, struct side3 *s, struct side3 *d,
		      size_t *el)
{
	const CUextent3D *x = &op->extent;
	CUresult rc;

	if (!x->width || !x->height || !x->depth ||
	    op->srcAccessOrder == CU_MEMCPY_SRC_ACCESS_ORDER_INVALID ||
	    op->srcAccessOrder > CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
		return CUDA_ERROR_INVALID_VALUE;
	rc = elsize(op, el);
	if (!rc)
		rc = side(&op->src, x, *el, s);
	if (!rc)
		rc = side(&op->dst, x, *el, d);
	return rc;
}

/* One op, checked, then queued on h (cuMemcpy3DWithAttributesAsync's
 * too, copyattr.c). */
CUresult simgpu_copy3d_op(const CUDA_MEMCPY3D_BATCH_OP *op, CUstream h, int ptds)
{
	struct side3 s, d;
	struct sg_op *o;
	size_t el;
	CUresult rc = check(op, &s, &d, &el);

	if (rc)
		return rc;
	o = simgpu_op_new(SG_OP_COPY);
	if (o) {
		o->dst = d.p;
		o->src = s.p;
		o->n = op->extent.width * el;
		o->rows = op->extent.height;
		o->dpitch = d.pitch;
		o->spitch = s.pitch;
		o->slices = op->extent.depth;
		o->dslice = d.slice;
		o->sslice = s.slice;
	}
	return simgpu_copy_issue(h, ptds, 0, o);
}

static CUresult batch3d(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail,
			unsigned long long flags, CUstream h, int ptds)
{
	struct side3 s, d;
	size_t el, bad = SIZE_MAX;
	CUresult rc = CUDA_SUCCESS;

	SG_INIT_CHECK();
	if (fail)
		*fail = SIZE_MAX;
	if (!n || !ops || flags || h == CU_STREAM_LEGACY || (!h && !ptds))
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < n && !rc; i++) {
		rc = check(&ops[i], &s, &d, &el);
		if (rc)
			bad = i;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		rc = simgpu_copy3d_op(&ops[i], h, ptds);
		if (rc)
			bad = i;
	}
	if (rc && fail)
		*fail = bad;
	return rc;
}

SG_API CUresult cuMemcpy3DBatchAsync(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail,
				     unsigned long long flags, CUstream h)
{ SG_GATE(); return batch3d(n, ops, fail, flags, h, 0); }
SG_API CUresult cuMemcpy3DBatchAsync_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops, size_t *fail,
					  unsigned long long flags, CUstream h)
{ SG_GATE(); return batch3d(n, ops, fail, flags, h, 1); }
SG_API CUresult cuMemcpy3DBatchAsync_v2(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops,
					unsigned long long flags, CUstream h)
{ SG_GATE(); return batch3d(n, ops, NULL, flags, h, 0); }
SG_API CUresult cuMemcpy3DBatchAsync_v2_ptsz(size_t n, CUDA_MEMCPY3D_BATCH_OP *ops,
					     unsigned long long flags, CUstream h)
{ SG_GATE(); return batch3d(n, ops, NULL, flags, h, 1); }
