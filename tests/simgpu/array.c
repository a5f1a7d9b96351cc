// SPDX-License-Identifier: GPL-2.0
/*
 * CUDA arrays and mipmapped arrays. What matters is the VRAM they take:
 * width x height x depth (x layers) x channels x element size of the
 * format, summed over mip levels, rounded up to a 4 KiB page. A plain
 * array's contents are kept in host memory for the copies that reach it
 * (arraycopy.c, copybatch3d.c), linear: no texture layout is simulated.
 */
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

/*
 * Bits per texel and channel for a format value (all cuda.h versions).
 *
 * Deliberately a second copy of libvgpu's table (libvgpu/logic/arraysize.c),
 * not shared with it: simgpu is the driver whose VRAM the tests take as
 * the truth that libvgpu's charges are compared with (60-vram). With one
 * shared table a wrong entry would be wrong on both sides, charged and
 * allocated alike, and no test could see it; two tables written from
 * cuda.h each make a wrong entry in either a failing comparison.
 */
static unsigned int format_bits(unsigned int f)
{
	switch (f) {
	case 0x01: case 0x08: return 8;
	case 0x02: case 0x09: case 0x10: return 16;
	case 0x03: case 0x0a: case 0x20: return 32;
	case 0xc0: case 0xc6: return 8;
	case 0xc1: case 0xc7: case 0xc3: case 0xc9: return 16;
	case 0xc2: case 0xc8: case 0xc4: case 0xca: case 0x50: return 32;
	case 0xc5: case 0xcb: return 64;
	case 0x91: case 0x92: case 0x97: case 0x98: return 4;	/* BC1, BC4 */
	case 0x93: case 0x94: case 0x95: case 0x96: case 0x99: case 0x9a:
	case 0x9b: case 0x9c: case 0x9d: case 0x9e: return 8;	/* BC2/3/5/6H/7 */
	case 0xb0: return 12;					/* NV12 */
	case 0x9f: case 0xa1: return 24;			/* P010, P016 */
	case 0xa2: case 0xa5: return 16;			/* NV16, YUY2 */
	case 0xa3: case 0xa4: case 0xa6: case 0xa7: return 32;
	case 0xa8: case 0xa9: return 32;
	case 0xb1: return 64;
	case 0xb2: return 24;
	case 0xb3: return 48;
	default: return 0;
	}
}

static uint64_t level_bytes(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned int level)
{
	uint64_t w = d->Width >> level, h = d->Height >> level, z = d->Depth;
	unsigned int bits = format_bits((unsigned int)d->Format);

	if (!(d->Flags & CUDA_ARRAY3D_LAYERED))
		z >>= level;
	w = w ? w : 1;
	h = h ? h : 1;
	z = z ? z : 1;
	return (w * h * z * d->NumChannels * bits + 7) / 8;
}

static CUresult array_new(struct CUarray_st **out, const CUDA_ARRAY3D_DESCRIPTOR *d,
			  unsigned int levels)
{
	struct CUctx_st *ctx;
	struct CUarray_st *a;
	uint64_t bytes = 0;
	CUresult rc = simgpu_ctx_get(&ctx);

	if (rc)
		return rc;
	if (!out || !d || !d->Width || !format_bits((unsigned int)d->Format) ||
	    (d->NumChannels != 1 && d->NumChannels != 2 && d->NumChannels != 4) ||
	    !levels || levels > 32)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned int l = 0; l < levels; l++)
		bytes += level_bytes(d, l);
	bytes = SG_ROUND(bytes, SG_PAGE);
	a = calloc(1, sizeof(*a));
	if (!a)
		return CUDA_ERROR_OUT_OF_MEMORY;
	rc = simgpu_charge(ctx->dev, bytes);
	if (rc) {
		free(a);
		return rc;
	}
	a->magic = SG_ARRAY_MAGIC;
	a->dev = ctx->dev;
	a->charged = bytes;
	a->desc = *d;
	a->levels = (int)levels;
	*out = a;
	return CUDA_SUCCESS;
}

static CUresult array_free(struct CUarray_st *a)
{
	SG_INIT_CHECK();
	if (!a || a->magic != SG_ARRAY_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	a->magic = 0;
	simgpu_uncharge(a->dev, a->charged);
	free(a->data);
	free(a);
	return CUDA_SUCCESS;
}

/*
 * An array's contents for copies (arraycopy.c, copybatch3d.c): level 0's
 * elements, rows of Width, Height rows (1 when 0) a slice, Depth slices
 * (1 when 0), allocated on the first copy. A plain array only (not a
 * mipmapped one); *elsize: bytes an element (at least 1).
 */
CUresult simgpu_array_data(struct CUarray_st *a, unsigned char **data, size_t *elsize)
{
	const CUDA_ARRAY3D_DESCRIPTOR *d;
	uint64_t bytes;

	if (!a || a->magic != SG_ARRAY_MAGIC || a->levels != 1)
		return CUDA_ERROR_INVALID_VALUE;
	d = &a->desc;
	*elsize = (size_t)d->NumChannels * format_bits((unsigned int)d->Format) / 8;
	if (!*elsize)
		*elsize = 1;
	bytes = level_bytes(d, 0);
	pthread_mutex_lock(&simgpu_lk);
	if (!a->data)
		a->data = calloc(1, bytes ? bytes : 1);
	*data = a->data;
	pthread_mutex_unlock(&simgpu_lk);
	return *data ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

/* Elements of a row, rows of a slice, slices of level 0. */
void simgpu_array_extent(const struct CUarray_st *a, size_t *w, size_t *h, size_t *z)
{
	*w = a->desc.Width;
	*h = a->desc.Height ? a->desc.Height : 1;
	*z = a->desc.Depth ? a->desc.Depth : 1;
}

SG_API CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	SG_GATE();
	return array_new(pHandle, d, 1);
}

SG_API CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *d)
{
	SG_GATE();
	CUDA_ARRAY3D_DESCRIPTOR d3 = { 0 };

	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	d3.Width = d->Width;
	d3.Height = d->Height;
	d3.Format = d->Format;
	d3.NumChannels = d->NumChannels;
	return array_new(pHandle, &d3, 1);
}

SG_API CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *d)
{
	SG_GATE();
	CUDA_ARRAY3D_DESCRIPTOR d3 = { 0 };

	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	d3.Width = d->Width;
	d3.Height = d->Height;
	d3.Format = d->Format;
	d3.NumChannels = d->NumChannels;
	return array_new(pHandle, &d3, 1);
}

SG_API CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *d)
{
	SG_GATE();
	CUDA_ARRAY3D_DESCRIPTOR d3 = { 0 };

	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	d3.Width = d->Width;
	d3.Height = d->Height;
	d3.Depth = d->Depth;
	d3.Format = d->Format;
	d3.NumChannels = d->NumChannels;
	d3.Flags = d->Flags;
	return array_new(pHandle, &d3, 1);
}

SG_API CUresult cuArrayDestroy(CUarray a)
{
	SG_GATE();
	if (a && a->levels != 1)
		return CUDA_ERROR_INVALID_HANDLE;
	return array_free(a);
}

SG_API CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray a)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!a || a->magic != SG_ARRAY_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	*d = a->desc;
	return CUDA_SUCCESS;
}

SG_API CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *d, CUarray a)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!a || a->magic != SG_ARRAY_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	if (!d)
		return CUDA_ERROR_INVALID_VALUE;
	d->Width = a->desc.Width;
	d->Height = a->desc.Height;
	d->Format = a->desc.Format;
	d->NumChannels = a->desc.NumChannels;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
				       const CUDA_ARRAY3D_DESCRIPTOR *d,
				       unsigned int numMipmapLevels)
{
	SG_GATE();
	struct CUarray_st *a;
	CUresult rc;

	if (!pHandle)
		return CUDA_ERROR_INVALID_VALUE;
	rc = array_new(&a, d, numMipmapLevels);
	if (!rc) {
		a->levels = (int)numMipmapLevels + 1000;	/* mark as mipmapped */
		*pHandle = (CUmipmappedArray)(void *)a;
	}
	return rc;
}

SG_API CUresult cuMipmappedArrayDestroy(CUmipmappedArray h)
{
	SG_GATE();
	struct CUarray_st *a = (struct CUarray_st *)(void *)h;

	if (!a || a->magic != SG_ARRAY_MAGIC || a->levels < 1000)
		return CUDA_ERROR_INVALID_HANDLE;
	return array_free(a);
}
