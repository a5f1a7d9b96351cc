// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory. A device pointer is the address of a private anonymous
 * MAP_NORESERVE mapping, so copies and sets work and only touched pages
 * cost host memory; its size (rounded up to a 4 KiB page) is charged to
 * the GPU in the shared state. Every range handed out is kept in a
 * process-local registry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "simgpu.h"

static struct sg_range *ranges;
static size_t nranges, cap;

void *simgpu_map(size_t size, size_t align, int low32)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
	size_t len;
	uintptr_t p, a;
	void *m;

	if (low32)
		flags |= MAP_32BIT;
	if (align <= SG_PAGE) {
		m = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
		return m == MAP_FAILED ? NULL : m;
	}
	len = size + align;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	p = (uintptr_t)m;
	a = SG_ROUND(p, align);
	if (a > p)
		munmap(m, a - p);
	if (p + len > a + size)
		munmap((void *)(a + size), p + len - (a + size));
	return (void *)a;
}

void simgpu_unmap(void *p, size_t size)
{
	if (p && size)
		munmap(p, size);
}

static uint64_t sg_range_ids;	/* under simgpu_lk */

struct sg_range *simgpu_range_add(const struct sg_range *r)
{
	struct sg_range *out = NULL;

	pthread_mutex_lock(&simgpu_lk);
	if (nranges == cap) {
		size_t ncap = cap ? cap * 2 : 256;
		struct sg_range *n = realloc(ranges, ncap * sizeof(*n));

		if (!n)
			goto out;
		ranges = n;
		cap = ncap;
	}
	ranges[nranges] = *r;
	/* "Subsequent allocations do not reuse IDs from previous freed
	 * allocations" (cuPointerGetAttribute, CU_POINTER_ATTRIBUTE_BUFFER_ID). */
	ranges[nranges].id = ++sg_range_ids;
	out = &ranges[nranges++];
out:
	pthread_mutex_unlock(&simgpu_lk);
	return out;
}

/* exact: p must be a range's base; else any address inside one. */
struct sg_range *simgpu_range_find(uintptr_t p, int exact)
{
	for (size_t i = nranges; i-- > 0;) {
		struct sg_range *r = &ranges[i];

		if (exact ? r->base == p : (p >= r->base && p < r->base + r->mapsize))
			return r;
	}
	return NULL;
}

void simgpu_range_del(struct sg_range *r)
{
	*r = ranges[--nranges];
}

/* Is [p, p+n) inside memory handed out as device-accessible? */
CUresult simgpu_dev_ptr(CUdeviceptr p, size_t n)
{
	struct sg_range *r;
	CUresult rc = CUDA_SUCCESS;

	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)p, 0);
	if (!r || (r->kind == SG_MEM_POOL && !r->in_use) ||
	    (uintptr_t)p + n > r->base + r->mapsize)
		rc = CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

CUresult simgpu_mem_alloc(CUdeviceptr *out, size_t size, enum sg_mem_kind kind,
			  int low32)
{
	struct sg_range r = { 0 };
	struct CUctx_st *ctx;
	uint64_t charge;
	void *p;
	CUresult rc = simgpu_ctx_get(&ctx);

	if (rc)
		return rc;
	if (!out || !size)
		return CUDA_ERROR_INVALID_VALUE;
	charge = SG_ROUND((uint64_t)size, SG_PAGE);
	rc = simgpu_charge(ctx->dev, charge);
	if (rc)
		return rc;
	p = simgpu_map(charge, SG_PAGE, low32);
	if (!p || (low32 && (uintptr_t)p + charge > 0xffffffffULL)) {
		if (p)
			simgpu_unmap(p, charge);
		simgpu_uncharge(ctx->dev, charge);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	r.base = (uintptr_t)p;
	r.size = size;
	r.mapsize = charge;
	r.kind = kind;
	r.dev = ctx->dev;
	r.charged = charge;
	r.ctx = ctx;
	if (!simgpu_range_add(&r)) {
		simgpu_unmap(p, charge);
		simgpu_uncharge(ctx->dev, charge);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*out = (CUdeviceptr)r.base;
	return CUDA_SUCCESS;
}

CUresult simgpu_mem_free(CUdeviceptr p)
{
	struct sg_range *r, copy;

	SG_INIT_CHECK();
	if (!p)
		return CUDA_SUCCESS;
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)p, 1);
	if (!r || (r->kind != SG_MEM_DEVICE && r->kind != SG_MEM_MANAGED &&
		   r->kind != SG_MEM_POOL && r->kind != SG_MEM_GRAPH) ||
	    (r->kind == SG_MEM_POOL && !r->in_use)) {
		pthread_mutex_unlock(&simgpu_lk);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (r->kind == SG_MEM_POOL) {
		pthread_mutex_unlock(&simgpu_lk);
		/* cuMemFree on pool memory: free it now (synchronously). */
		simgpu_pool_free_op(p);
		return CUDA_SUCCESS;
	}
	copy = *r;
	if (r->kind == SG_MEM_GRAPH)
		r->charged = 0;		/* the VA stays with its graph */
	else
		simgpu_range_del(r);
	pthread_mutex_unlock(&simgpu_lk);
	if (copy.kind != SG_MEM_GRAPH) {
		simgpu_unmap((void *)copy.base, copy.mapsize);
		simgpu_uncharge(copy.dev, copy.charged);
	} else {
		/* its memory stays in the device's graph reserve */
		simgpu_graphmem_put(copy.dev, copy.charged);
	}
	return CUDA_SUCCESS;
}

/* The context is being destroyed: everything allocated in it goes. */
void simgpu_mem_release_ctx(struct CUctx_st *ctx)
{
	for (;;) {
		struct sg_range copy;
		int found = 0;

		pthread_mutex_lock(&simgpu_lk);
		for (size_t i = 0; i < nranges; i++) {
			if (ranges[i].ctx == ctx && ranges[i].kind != SG_MEM_HOST &&
			    ranges[i].kind != SG_MEM_VA) {
				copy = ranges[i];
				simgpu_range_del(&ranges[i]);
				found = 1;
				break;
			}
		}
		pthread_mutex_unlock(&simgpu_lk);
		if (!found)
			break;
		simgpu_unmap((void *)copy.base, copy.mapsize);
		if (copy.kind == SG_MEM_GRAPH)
			simgpu_graphmem_put(copy.dev, copy.charged);
		else
			simgpu_uncharge(copy.dev, copy.charged);
	}
}

/* cuMemAlloc_v2's work, for it and the newer variant (not through the
 * export, which a preloaded library may interpose). */
static CUresult mem_alloc_device(CUdeviceptr *dptr, size_t bytesize)
{
	CUresult rc = simgpu_capture_unsafe();	/* not stream-ordered */

	if (rc)
		return rc;
	return simgpu_mem_alloc(dptr, bytesize, SG_MEM_DEVICE, 0);
}

SG_API CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
	SG_GATE();
	return mem_alloc_device(dptr, bytesize);
}

/* A variant of cuMemAlloc newer than every header (SIMGPU_PROCADDR_NEWER,
 * procaddr.c): not exported, so only cuGetProcAddress hands it out, and
 * nothing preloaded can wrap it by name. Behaves as cuMemAlloc_v2. */
CUresult simgpu_mem_alloc_newer(CUdeviceptr *dptr, size_t bytesize)
{
	SG_GATE();
	return mem_alloc_device(dptr, bytesize);
}

SG_API CUresult cuMemFree_v2(CUdeviceptr dptr)
{
	SG_GATE();
	return simgpu_mem_free(dptr);
}

SG_API CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
				   size_t Height, unsigned int ElementSizeBytes)
{
	SG_GATE();
	size_t pitch;

	if (!pPitch || !WidthInBytes || !Height ||
	    (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
		return CUDA_ERROR_INVALID_VALUE;
	pitch = SG_ROUND(WidthInBytes, 512);
	if (Height > SIZE_MAX / pitch)
		return CUDA_ERROR_OUT_OF_MEMORY;
	*pPitch = pitch;
	return simgpu_mem_alloc(dptr, pitch * Height, SG_MEM_DEVICE, 0);
}

SG_API CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
	SG_GATE();
	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
		return CUDA_ERROR_INVALID_VALUE;
	return simgpu_mem_alloc(dptr, bytesize, SG_MEM_MANAGED, 0);
}

SG_API CUresult cuMemGetInfo_v2(size_t *free_, size_t *total)
{
	SG_GATE();
	struct CUctx_st *ctx;
	struct sg_gpu_shared *g;
	CUresult rc = simgpu_ctx_get(&ctx);

	if (rc)
		return rc;
	if (!free_ || !total)
		return CUDA_ERROR_INVALID_VALUE;
	g = &simgpu_shm->gpus[simgpu_phys(ctx->dev)];
	simgpu_state_lock();
	simgpu_export_scan(1);	/* exported memory whose descriptors closed */
	*total = g->total;
	*free_ = g->used < g->total ? g->total - g->used : 0;
	simgpu_state_unlock();
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
	SG_GATE();
	struct sg_range *r;
	CUresult rc = CUDA_SUCCESS;

	SG_INIT_CHECK();
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)dptr, 0);
	if (!r || r->kind == SG_MEM_HOST || (uintptr_t)dptr >= r->base + r->size) {
		rc = CUDA_ERROR_NOT_FOUND;
	} else {
		if (pbase)
			*pbase = (CUdeviceptr)r->base;
		if (psize)
			*psize = r->size;
	}
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}

/* ---- page-locked host memory: host RAM, never VRAM ---- */

SG_API CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
	SG_GATE();
	struct sg_range r = { 0 };
	size_t len;
	void *p;

	(void)Flags;
	SG_INIT_CHECK();
	if (!pp || !bytesize)
		return CUDA_ERROR_INVALID_VALUE;
	len = SG_ROUND(bytesize, SG_PAGE);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return CUDA_ERROR_OUT_OF_MEMORY;
	r.base = (uintptr_t)p;
	r.size = bytesize;
	r.mapsize = len;
	r.kind = SG_MEM_HOST;
	r.ctx = simgpu_ctx_current();
	if (!simgpu_range_add(&r)) {
		munmap(p, len);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*pp = p;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
	SG_GATE();
	return cuMemHostAlloc(pp, bytesize, 0);
}

SG_API CUresult cuMemFreeHost(void *p)
{
	SG_GATE();
	struct sg_range *r, copy;

	SG_INIT_CHECK();
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)p, 1);
	if (!r || r->kind != SG_MEM_HOST) {
		pthread_mutex_unlock(&simgpu_lk);
		return CUDA_ERROR_INVALID_VALUE;
	}
	copy = *r;
	simgpu_range_del(r);
	pthread_mutex_unlock(&simgpu_lk);
	munmap((void *)copy.base, copy.mapsize);
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
	SG_GATE();
	struct sg_range *r;

	SG_INIT_CHECK();
	if (!pdptr || Flags)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)p, 0);
	pthread_mutex_unlock(&simgpu_lk);
	if (!r || r->kind != SG_MEM_HOST)
		return CUDA_ERROR_INVALID_VALUE;
	*pdptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
	SG_GATE();
	(void)Flags;
	SG_INIT_CHECK();
	return p && bytesize ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SG_API CUresult cuMemHostUnregister(void *p)
{
	SG_GATE();
	SG_INIT_CHECK();
	return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* Call fn on every range, simgpu_lk held (checkpoint.c's inventory). */
int simgpu_range_each(int (*fn)(const struct sg_range *r, void *arg), void *arg)
{
	int rc = 0;

	pthread_mutex_lock(&simgpu_lk);
	for (size_t i = 0; i < nranges && !rc; i++)
		rc = fn(&ranges[i], arg);
	pthread_mutex_unlock(&simgpu_lk);
	return rc;
}
