// SPDX-License-Identifier: GPL-2.0
/*
 * Stream-ordered allocation: memory pools, as the Driver API reference
 * ("Stream Ordered Memory Allocator", CUmemPool_attribute, cuMemPoolTrimTo)
 * and the Programming Guide ("Stream Ordered Memory Allocator") describe
 * them. A pool reserves memory in chunks (2 MiB multiples, charged to the
 * pool's location) and sub-allocates from them in 4 KiB pages, so small
 * allocations share a chunk: RESERVED_MEM_CURRENT is what the chunks hold,
 * USED_MEM_CURRENT what is handed out. A free returns the pages to their
 * chunk; the pool keeps the chunk ("cached") until a synchronisation
 * (stream, event or context) releases empty chunks above the pool's
 * release threshold (default 0), or cuMemPoolTrimTo releases empty chunks
 * down to its argument. A pool's memory is on its location: a device
 * (charged to that GPU, whichever stream allocates: "the specified memory
 * pool may be from a device different than that of the specified
 * hStream"), or host memory (CU_MEM_LOCATION_TYPE_HOST, HOST_NUMA: charged
 * to no GPU), per cuMemPoolCreate's reference. Each allocation handed out
 * is a range of the registry (mem.c, not charged: its chunk is); chunks
 * are the pool's own.
 */
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

#define MAX_POOLS 256

struct sg_chunk {
	struct sg_chunk *next;
	uintptr_t base;
	uint64_t size;
	uint64_t used;		/* bytes handed out */
	uint8_t *pg;		/* per 4 KiB page: 1 handed out */
};

static struct CUmemPoolHandle_st *pools[MAX_POOLS];
static int npools;
static struct CUmemPoolHandle_st *defpool[SG_MAX_GPUS], *curpool[SG_MAX_GPUS];

static struct CUmemPoolHandle_st *pool_new(int dev, int is_default)
{
	struct CUmemPoolHandle_st *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->magic = SG_POOL_MAGIC;
	p->dev = dev;
	p->is_default = is_default;
	p->props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
	p->props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	p->props.location.id = dev;
	pthread_mutex_lock(&simgpu_lk);
	if (npools < MAX_POOLS)
		pools[npools++] = p;
	pthread_mutex_unlock(&simgpu_lk);
	return p;
}

static struct CUmemPoolHandle_st *dev_pool(int dev, int current)
{
	pthread_mutex_lock(&simgpu_lk);
	if (!defpool[dev]) {
		pthread_mutex_unlock(&simgpu_lk);
		struct CUmemPoolHandle_st *p = pool_new(dev, 1);

		pthread_mutex_lock(&simgpu_lk);
		if (!defpool[dev])
			defpool[dev] = p;
	}
	if (!curpool[dev])
		curpool[dev] = defpool[dev];
	pthread_mutex_unlock(&simgpu_lk);
	return current ? curpool[dev] : defpool[dev];
}

static int valid(struct CUmemPoolHandle_st *p)
{
	return p && p->magic == SG_POOL_MAGIC;
}

/* Host pools (dev < 0) hold no VRAM. */
static CUresult pool_charge(struct CUmemPoolHandle_st *p, uint64_t len)
{
	return p->dev < 0 ? CUDA_SUCCESS : simgpu_charge(p->dev, len);
}

static void pool_uncharge(struct CUmemPoolHandle_st *p, uint64_t len)
{
	if (p->dev >= 0)
		simgpu_uncharge(p->dev, len);
}

/* Give back empty chunks while the pool reserves more than keep, never
 * going below it (cuMemPoolTrimTo: "Otherwise the pool will be guaranteed
 * to have at least minBytesToKeep bytes reserved after the operation"). */
static void pool_release(struct CUmemPoolHandle_st *p, uint64_t keep)
{
	for (;;) {
		struct sg_chunk **pc, *c = NULL;

		pthread_mutex_lock(&simgpu_lk);
		if (p->reserved > keep)
			for (pc = &p->chunks; *pc; pc = &(*pc)->next)
				if (!(*pc)->used && p->reserved - (*pc)->size >= keep) {
					c = *pc;
					*pc = c->next;
					p->reserved -= c->size;
					break;
				}
		pthread_mutex_unlock(&simgpu_lk);
		if (!c)
			return;
		simgpu_unmap((void *)c->base, c->size);
		pool_uncharge(p, c->size);
		free(c->pg);
		free(c);
	}
}

void simgpu_pool_trim_all(void)
{
	for (int i = 0; i < npools; i++) {
		struct CUmemPoolHandle_st *p = pools[i];

		if (p && p->reserved > p->threshold && p->reserved > p->used)
			pool_release(p, p->threshold);
	}
}

/* First fit of n free pages in c; the page index or -1. simgpu_lk held. */
static long chunk_fit(const struct sg_chunk *c, uint64_t n)
{
	uint64_t pages = c->size / SG_PAGE, run = 0;

	if (c->size - c->used < n * SG_PAGE)
		return -1;
	for (uint64_t i = 0; i < pages; i++) {
		run = c->pg[i] ? 0 : run + 1;
		if (run == n)
			return (long)(i + 1 - n);
	}
	return -1;
}

static void chunk_mark(struct sg_chunk *c, uint64_t first, uint64_t n, uint8_t v)
{
	memset(c->pg + first, v, n);
	if (v)
		c->used += n * SG_PAGE;
	else
		c->used -= n * SG_PAGE;
}

/* Hand out len bytes from a chunk with room; the address or 0. */
static uintptr_t pool_take(struct CUmemPoolHandle_st *p, uint64_t len)
{
	uintptr_t out = 0;

	pthread_mutex_lock(&simgpu_lk);
	for (struct sg_chunk *c = p->chunks; c && !out; c = c->next) {
		long first = chunk_fit(c, len / SG_PAGE);

		if (first < 0)
			continue;
		chunk_mark(c, (uint64_t)first, len / SG_PAGE, 1);
		out = c->base + (uint64_t)first * SG_PAGE;
	}
	if (out) {
		p->used += len;
		if (p->used > p->used_high)
			p->used_high = p->used;
	}
	pthread_mutex_unlock(&simgpu_lk);
	return out;
}

/* The pages of [base, base + len) go back to their chunk. */
static void pool_put(struct CUmemPoolHandle_st *p, uintptr_t base, uint64_t len)
{
	pthread_mutex_lock(&simgpu_lk);
	for (struct sg_chunk *c = p->chunks; c; c = c->next)
		if (base >= c->base && base < c->base + c->size) {
			chunk_mark(c, (base - c->base) / SG_PAGE, len / SG_PAGE, 0);
			p->used -= len;
			break;
		}
	pthread_mutex_unlock(&simgpu_lk);
}

/* Reserve a chunk of at least len bytes: the reservation grows. */
static CUresult pool_grow(struct CUmemPoolHandle_st *p, uint64_t len)
{
	uint64_t size = SG_ROUND(len, SG_GRANULARITY);
	struct sg_chunk *c = calloc(1, sizeof(*c));
	CUresult rc;

	if (!c || !(c->pg = calloc(size / SG_PAGE, 1))) {
		free(c);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	rc = pool_charge(p, size);
	if (rc == CUDA_ERROR_OUT_OF_MEMORY) {
		pool_release(p, 0);	/* empty chunks too small */
		rc = pool_charge(p, size);
	}
	if (!rc && !(c->base = (uintptr_t)simgpu_map(size, SG_GRANULARITY, 0))) {
		pool_uncharge(p, size);
		rc = CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (rc) {
		free(c->pg);
		free(c);
		return rc;
	}
	c->size = size;
	pthread_mutex_lock(&simgpu_lk);
	c->next = p->chunks;
	p->chunks = c;
	p->reserved += size;
	if (p->reserved > p->reserved_high)
		p->reserved_high = p->reserved;
	pthread_mutex_unlock(&simgpu_lk);
	return CUDA_SUCCESS;
}

CUresult simgpu_pool_alloc(struct CUmemPoolHandle_st *p, size_t size, CUdeviceptr *out)
{
	uint64_t len = SG_ROUND((uint64_t)size, SG_PAGE);
	struct sg_range r = { 0 };
	CUresult rc;

	if (!size || !out)
		return CUDA_ERROR_INVALID_VALUE;
	r.base = pool_take(p, len);
	if (!r.base) {
		rc = pool_grow(p, len);
		if (rc)
			return rc;
		r.base = pool_take(p, len);
		if (!r.base)
			return CUDA_ERROR_OUT_OF_MEMORY;
	}
	r.size = size;
	r.mapsize = len;
	r.kind = SG_MEM_POOL;
	r.dev = p->dev < 0 ? 0 : p->dev;
	r.in_use = 1;
	r.pool = p;
	if (!simgpu_range_add(&r)) {
		pool_put(p, r.base, len);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*out = (CUdeviceptr)r.base;
	return CUDA_SUCCESS;
}

/* Runs in stream order: pool memory returns to its pool; other memory
 * (graph allocations, cuMemAlloc) is freed. */
void simgpu_pool_free_op(CUdeviceptr ptr)
{
	struct sg_range *r, copy;

	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)ptr, 1);
	if (r && r->kind == SG_MEM_POOL) {
		copy = *r;
		simgpu_range_del(r);
		pthread_mutex_unlock(&simgpu_lk);
		pool_put(copy.pool, copy.base, copy.mapsize);
		return;
	}
	pthread_mutex_unlock(&simgpu_lk);
	if (r)
		simgpu_mem_free(ptr);
}

/* ---- API ---- */

static CUresult alloc_async(CUdeviceptr *dptr, size_t size, struct CUmemPoolHandle_st *p,
			    CUstream h, int ptds)
{
	struct CUstream_st *s;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	if (!p)
		p = dev_pool(s->ctx->dev, 1);
	if (!valid(p))
		return CUDA_ERROR_INVALID_VALUE;
	if (!dptr || !size)
		return CUDA_ERROR_INVALID_VALUE;
	if (simgpu_capture_alloc(s, size, dptr, &rc))
		return rc;	/* an allocation node of the capture's graph */
	return simgpu_pool_alloc(p, size, dptr);
}

static CUresult free_async(CUdeviceptr dptr, CUstream h, int ptds)
{
	struct CUstream_st *s;
	struct sg_range *r;
	struct sg_op *op;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)dptr, 1);
	rc = (!r || (r->kind == SG_MEM_POOL && !r->in_use) || r->kind == SG_MEM_HOST ||
	      r->kind == SG_MEM_VA) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
	pthread_mutex_unlock(&simgpu_lk);
	if (rc)
		return rc;
	op = simgpu_op_new(SG_OP_POOL_FREE);
	if (!op)
		return CUDA_ERROR_OUT_OF_MEMORY;
	op->ptr = dptr;
	return simgpu_stream_submit(s, op);
}

/* SIMGPU_SELFCALL=plt: through the exported cuMemAllocFromPoolAsync, with
 * the current pool of the stream's device (selfcall.c). */
static CUresult alloc_async_selfcall(CUdeviceptr *dptr, size_t bytesize, CUstream h, int ptds)
{
	struct CUstream_st *s;
	CUresult rc = simgpu_stream_resolve(h, ptds, &s);

	if (rc)
		return rc;
	return ptds ? cuMemAllocFromPoolAsync_ptsz(dptr, bytesize, dev_pool(s->ctx->dev, 1), h)
		    : cuMemAllocFromPoolAsync(dptr, bytesize, dev_pool(s->ctx->dev, 1), h);
}

SG_API CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream h)
{
	SG_GATE();
	if (simgpu_selfcall())
		return alloc_async_selfcall(dptr, bytesize, h, 0);
	return alloc_async(dptr, bytesize, NULL, h, 0);
}

SG_API CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream h)
{
	SG_GATE();
	if (simgpu_selfcall())
		return alloc_async_selfcall(dptr, bytesize, h, 1);
	return alloc_async(dptr, bytesize, NULL, h, 1);
}
SG_API CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream h)
{ SG_GATE(); return pool ? alloc_async(dptr, bytesize, pool, h, 0) : CUDA_ERROR_INVALID_VALUE; }
SG_API CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream h)
{ SG_GATE(); return pool ? alloc_async(dptr, bytesize, pool, h, 1) : CUDA_ERROR_INVALID_VALUE; }
SG_API CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream h)
{ SG_GATE(); return free_async(dptr, h, 0); }
SG_API CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream h)
{ SG_GATE(); return free_async(dptr, h, 1); }

SG_API CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!pool)
		return CUDA_ERROR_INVALID_VALUE;
	*pool = dev_pool(dev, 0);
	return *pool ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

SG_API CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!pool)
		return CUDA_ERROR_INVALID_VALUE;
	*pool = dev_pool(dev, 1);
	return *pool ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

SG_API CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!valid(pool) || pool->dev != dev)
		return CUDA_ERROR_INVALID_VALUE;
	dev_pool(dev, 1);
	curpool[dev] = pool;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
	SG_GATE();
	CUresult rc;

	int dev = -1;	/* host memory */

	SG_INIT_CHECK();
	if (!pool || !props)
		return CUDA_ERROR_INVALID_VALUE;
	switch (props->location.type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		rc = simgpu_check_dev(props->location.id);
		if (rc)
			return CUDA_ERROR_INVALID_VALUE;
		dev = props->location.id;
		break;
	case CU_MEM_LOCATION_TYPE_HOST:
		/* Not IPC capable: handleTypes must be 0. */
		if (props->handleTypes)
			return CUDA_ERROR_INVALID_VALUE;
		break;
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
		if (props->location.id < 0)
			return CUDA_ERROR_INVALID_VALUE;
		break;
	default:	/* HOST_NUMA_CURRENT is refused at creation */
		return CUDA_ERROR_INVALID_VALUE;
	}
	*pool = pool_new(dev, 0);
	if (!*pool)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*pool)->props = *props;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!valid(pool) || pool->is_default)
		return CUDA_ERROR_INVALID_VALUE;
	pool_release(pool, 0);
	for (int i = 0; i < SG_MAX_GPUS; i++)
		if (curpool[i] == pool)
			curpool[i] = defpool[i];
	/* Chunks still in use stay valid until freed (then trimmed). */
	pool->threshold = 0;
	pool->is_default = -1;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!valid(pool))
		return CUDA_ERROR_INVALID_VALUE;
	pool_release(pool, minBytesToKeep);
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!valid(pool) || !value)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
		pool->threshold = *(cuuint64_t *)value;
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
		if (*(cuuint64_t *)value)
			return CUDA_ERROR_INVALID_VALUE;
		pool->reserved_high = pool->reserved;
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
		if (*(cuuint64_t *)value)
			return CUDA_ERROR_INVALID_VALUE;
		pool->used_high = pool->used;
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

SG_API CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value)
{
	SG_GATE();
	simgpu_pause_point("cuMemPoolGetAttribute");	/* before any lock */
	SG_INIT_CHECK();
	if (!valid(pool) || !value)
		return CUDA_ERROR_INVALID_VALUE;
	switch (attr) {
	case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
	case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
		*(int *)value = 1;
		return CUDA_SUCCESS;
	case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *(cuuint64_t *)value = pool->threshold; break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *(cuuint64_t *)value = pool->reserved; break;
	case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *(cuuint64_t *)value = pool->reserved_high; break;
	case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *(cuuint64_t *)value = pool->used; break;
	case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *(cuuint64_t *)value = pool->used_high; break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
	SG_GATE();
	SG_INIT_CHECK();
	return valid(pool) && (map || !count) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SG_API CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool pool, CUmemLocation *location)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!valid(pool) || !flags || !location)
		return CUDA_ERROR_INVALID_VALUE;
	*flags = location->id == pool->dev ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
					   : CU_MEM_ACCESS_FLAGS_PROT_NONE;
	return CUDA_SUCCESS;
}

#if CUDA_VERSION >= 13000
/* CUDA 13's location forms: device pools only; host locations' default
 * pools are not simulated. */
static CUresult loc_pool(CUmemoryPool *pool, CUmemLocation *loc, CUmemAllocationType type,
			 int current)
{
	SG_INIT_CHECK();
	if (!pool || !loc || type != CU_MEM_ALLOCATION_TYPE_PINNED)
		return CUDA_ERROR_INVALID_VALUE;
	if (loc->type != CU_MEM_LOCATION_TYPE_DEVICE)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (simgpu_check_dev(loc->id))
		return CUDA_ERROR_INVALID_DEVICE;
	*pool = dev_pool(loc->id, current);
	return *pool ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

SG_API CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool, CUmemLocation *loc,
				       CUmemAllocationType type)
{ SG_GATE(); return loc_pool(pool, loc, type, 0); }
SG_API CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *loc, CUmemAllocationType type)
{ SG_GATE(); return loc_pool(pool, loc, type, 1); }
#endif
