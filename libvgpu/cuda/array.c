// SPDX-License-Identifier: GPL-2.0
/*
 * Arrays and mipmapped arrays: charged libvgpu_array_bytes() of their
 * descriptor (arraysize.c) on the current context's GPU before the real
 * call; given back at cuArrayDestroy / cuMipmappedArrayDestroy, or when
 * their context is destroyed.
 */
#include "../policy/account.h"
#include "../logic/arraysize.h"
#include "../access/hooks.h"
#include "../logic/ptrmap.h"
#include "../access/nest.h"

static CUresult array_new(void *real, int kind, CUarray *pa, const void *desc, uint64_t bytes)
{
	struct vgpu_tx tx;
	CUcontext ctx;
	CUresult rc;
	uint64_t key;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_tx_begin_cur(&tx, bytes, &ctx);
	if (rc)
		return rc;
	switch (kind) {
	case 1: rc = ((vgpu_pfn_cuArrayCreate)real)(pa, desc); break;
	case 2: rc = ((vgpu_pfn_cuArrayCreate_v2)real)(pa, desc); break;
	case 3: rc = ((vgpu_pfn_cuArray3DCreate)real)(pa, desc); break;
	default: rc = ((vgpu_pfn_cuArray3DCreate_v2)real)(pa, desc); break;
	}
	if (rc || !pa) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	key = (uint64_t)(uintptr_t)*pa;
	libvgpu_tx_commit(&tx, VGPU_K_ARRAY, key, ctx);
	return rc;
}

VGPU_EXPORT CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR_v1 *d)
{
	VGPU_PASS_NESTED(cuArrayCreate, (pHandle, d));
	uint64_t b = d ? libvgpu_array_bytes(d->Width, d->Height, 1, (unsigned int)d->Format,
					     d->NumChannels, 0, 1) : 0;

	return array_new((void *)REAL(cuArrayCreate), 1, pHandle, d, b);
}

VGPU_EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *d)
{
	VGPU_PASS_NESTED(cuArrayCreate_v2, (pHandle, d));
	uint64_t b = d ? libvgpu_array_bytes(d->Width, d->Height, 1, (unsigned int)d->Format,
					     d->NumChannels, 0, 1) : 0;

	return array_new((void *)REAL(cuArrayCreate_v2), 2, pHandle, d, b);
}

VGPU_EXPORT CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR_v1 *d)
{
	VGPU_PASS_NESTED(cuArray3DCreate, (pHandle, d));
	uint64_t b = d ? libvgpu_array_bytes(d->Width, d->Height, d->Depth, (unsigned int)d->Format,
					     d->NumChannels, !!(d->Flags & CUDA_ARRAY3D_LAYERED),
					     1) : 0;

	return array_new((void *)REAL(cuArray3DCreate), 3, pHandle, d, b);
}

VGPU_EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	VGPU_PASS_NESTED(cuArray3DCreate_v2, (pHandle, d));
	uint64_t b = d ? libvgpu_array_bytes(d->Width, d->Height, d->Depth, (unsigned int)d->Format,
					     d->NumChannels, !!(d->Flags & CUDA_ARRAY3D_LAYERED),
					     1) : 0;

	return array_new((void *)REAL(cuArray3DCreate_v2), 4, pHandle, d, b);
}

VGPU_EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
	VGPU_PASS_NESTED(cuArrayDestroy, (hArray));
	vgpu_pfn_cuArrayDestroy real = REAL(cuArrayDestroy);
	struct vgpu_alloc a;
	int taken;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	taken = libvgpu_take(VGPU_K_ARRAY, (uint64_t)(uintptr_t)hArray, &a);
	rc = real(hArray);
	libvgpu_free_done(taken, &a, rc);
	return rc;
}

VGPU_EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
					    const CUDA_ARRAY3D_DESCRIPTOR *d,
					    unsigned int numMipmapLevels)
{
	VGPU_PASS_NESTED(cuMipmappedArrayCreate, (pHandle, d, numMipmapLevels));
	vgpu_pfn_cuMipmappedArrayCreate real = REAL(cuMipmappedArrayCreate);
	uint64_t b = d ? libvgpu_array_bytes(d->Width, d->Height, d->Depth, (unsigned int)d->Format,
					     d->NumChannels, !!(d->Flags & CUDA_ARRAY3D_LAYERED),
					     numMipmapLevels) : 0;
	struct vgpu_tx tx;
	CUcontext ctx;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = libvgpu_tx_begin_cur(&tx, b, &ctx);
	if (rc)
		return rc;
	rc = real(pHandle, d, numMipmapLevels);
	if (rc || !pHandle) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	libvgpu_tx_commit(&tx, VGPU_K_MIPMAP, (uint64_t)(uintptr_t)*pHandle, ctx);
	return rc;
}

VGPU_EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray h)
{
	VGPU_PASS_NESTED(cuMipmappedArrayDestroy, (h));
	vgpu_pfn_cuMipmappedArrayDestroy real = REAL(cuMipmappedArrayDestroy);
	struct vgpu_alloc a;
	int taken;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	taken = libvgpu_take(VGPU_K_MIPMAP, (uint64_t)(uintptr_t)h, &a);
	rc = real(h);
	libvgpu_free_done(taken, &a, rc);
	return rc;
}
