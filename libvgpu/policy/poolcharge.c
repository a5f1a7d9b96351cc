// SPDX-License-Identifier: GPL-2.0
/*
 * Stream-ordered allocations are charged by what their pool reserves
 * (CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT), not per allocation: a pool
 * sub-allocates small allocations from chunks it reserved, and keeps freed
 * memory cached until a synchronisation releases what is above its release
 * threshold, or cuMemPoolTrimTo (Driver API reference, "Stream Ordered
 * Memory Allocator"). Each pool seen allocating has a record of what it is
 * charged, on the GPU of its location.
 *
 * An allocation (cuMemAllocAsync: the current pool of the stream's
 * device; cuMemAllocFromPoolAsync: the pool given), under one lock for
 * all pools (so that the reservation read around the real call shows this
 * allocation's growth only: a process's stream-ordered allocations are
 * serialised):
 *   1. re-read the reservation (what a release since gave back);
 *   2. charge ahead what the reservation may grow: nothing when the pool's
 *      unused reserved memory has room (USED_MEM_CURRENT + size <=
 *      reserved), else the size rounded up to the 2 MiB chunk;
 *   3. the real call; then re-read the reservation and charge exactly its
 *      growth (the ahead charge corrected). If the module refuses growth
 *      beyond the ahead charge, the allocation is freed, the stream
 *      synchronised and the pool trimmed back to what it is charged, and
 *      the call fails with CUDA_ERROR_OUT_OF_MEMORY.
 * Frees change nothing (the memory stays in the pool). The reservation is
 * re-read, and what it shrank given back, where the driver releases
 * memory: after cuStreamSynchronize, cuEventSynchronize and
 * cuCtxSynchronize (sync.c; one attribute query per pool charged), after
 * cuMemPoolTrimTo, and at cuMemPoolDestroy (what is still reserved then,
 * for allocations not yet freed, stays charged until the process ends).
 * cuDeviceSetMemPool / cuMemSetMemPool need no hook: the current pool is
 * asked of the driver at each cuMemAllocAsync. A host pool is not charged.
 * Without a pool to query (no cuMemPoolGetAttribute, or the stream's
 * device unknown), an allocation is charged rounded up to 2 MiB, given
 * back at its free (free.c).
 */
#include <pthread.h>
#include <stdlib.h>

#include "account.h"
#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "poolcharge.h"
#include "../logic/ptrmap.h"
#include "register.h"
#include "../state/state.h"
#include "../state/streamdev.h"

struct pool_rec {
	CUmemoryPool pool;
	int gpu;
	uint64_t charged;
};

static struct pool_rec *recs;
static size_t nrecs, caprecs;
static pthread_mutex_t pools_lk = PTHREAD_MUTEX_INITIALIZER;

static int attr(CUmemoryPool pool, CUmemPool_attribute a, uint64_t *v)
{
	vgpu_pfn_cuMemPoolGetAttribute get = REAL(cuMemPoolGetAttribute);
	cuuint64_t val = 0;

	if (!get || get(pool, a, &val))
		return -1;
	*v = val;
	return 0;
}

/* The record of pool (made, charged 0, if new); pools_lk held. */
static struct pool_rec *rec_get(CUmemoryPool pool, int gpu)
{
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].pool == pool)
			return &recs[i];
	if (nrecs == caprecs) {
		size_t ncap = caprecs ? caprecs * 2 : 16;
		struct pool_rec *n = realloc(recs, ncap * sizeof(*n));

		if (!n)
			return NULL;
		recs = n;
		caprecs = ncap;
	}
	recs[nrecs] = (struct pool_rec){ pool, gpu, 0 };
	__atomic_store_n(&nrecs, nrecs + 1, __ATOMIC_RELEASE);	/* read unlocked */
	return &recs[nrecs - 1];
}

/* The charge follows the reservation r; pools_lk held. Growth seen only
 * now (a pool that reserved before libvgpu followed it) is charged if the
 * module allows it, else logged. */
static void follow(struct pool_rec *rec, uint64_t r)
{
	if (r < rec->charged && vgpu_active()) {
		libvgpu_uncharge(&libvgpu_proc.charger, rec->gpu, rec->charged - r);
		rec->charged = r;
	} else if (r > rec->charged && vgpu_active()) {
		if (libvgpu_charge(&libvgpu_proc.charger, rec->gpu, r - rec->charged)) {
			libvgpu_log(VGPU_LOG_WARN, "a memory pool holds %llu bytes more than it "
				    "was charged and the module refused them",
				    (unsigned long long)(r - rec->charged));
			return;
		}
		libvgpu_charge_commit(&libvgpu_proc.charger, rec->gpu, r - rec->charged);
		rec->charged = r;
	}
}

static void reread(struct pool_rec *rec)
{
	uint64_t r;

	if (!attr(rec->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &r))
		follow(rec, r);
}

void libvgpu_pools_sync(void)
{
	if (!__atomic_load_n(&nrecs, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&pools_lk);
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].pool && recs[i].charged)
			reread(&recs[i]);
	pthread_mutex_unlock(&pools_lk);
}

void libvgpu_pool_reread(CUmemoryPool pool)
{
	pthread_mutex_lock(&pools_lk);
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].pool == pool)
			reread(&recs[i]);
	pthread_mutex_unlock(&pools_lk);
}

int libvgpu_pool_gpu(CUmemoryPool pool, CUstream h)
{
	struct vgpu_alloc a;

	if (libvgpu_ptrmap_get(VGPU_K_POOL, (uint64_t)(uintptr_t)pool, &a))
		return a.gpu;
	return libvgpu_stream_gpu(h);
}

void libvgpu_pool_gone(CUmemoryPool pool)
{
	pthread_mutex_lock(&pools_lk);
	for (size_t i = 0; i < nrecs; i++)
		if (recs[i].pool == pool) {
			/* Its handle may be reused: what stays reserved is the
			 * process's until it ends (a record of no pool). */
			recs[i].pool = NULL;
			if (!recs[i].charged) {
				recs[i] = recs[nrecs - 1];
				__atomic_store_n(&nrecs, nrecs - 1, __ATOMIC_RELEASE);
			}
			break;
		}
	pthread_mutex_unlock(&pools_lk);
}

/* The growth was refused: undo the allocation and its reservation. */
static CUresult refuse(struct pool_rec *rec, CUdeviceptr p, CUstream h)
{
	vgpu_pfn_cuMemFreeAsync fr = REAL(cuMemFreeAsync);
	vgpu_pfn_cuStreamSynchronize sync = REAL(cuStreamSynchronize);
	vgpu_pfn_cuMemPoolTrimTo trim = REAL(cuMemPoolTrimTo);

	if (fr && !fr(p, h) && sync)
		sync(h);
	if (trim)
		trim(rec->pool, rec->charged);
	reread(rec);
	return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult call(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream h,
		     void *real, int from_pool)
{
	if (from_pool)
		return ((vgpu_pfn_cuMemAllocFromPoolAsync)real)(dptr, size, pool, h);
	return ((vgpu_pfn_cuMemAllocAsync)real)(dptr, size, h);
}

/* Charged by the pool's reservation; pools_lk held. */
static CUresult by_reserve(struct pool_rec *rec, CUdeviceptr *dptr, size_t size,
			   CUstream h, void *real, int from_pool)
{
	uint64_t used, r, grow;
	struct vgpu_tx tx;
	CUresult rc;

	reread(rec);
	if (attr(rec->pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used))
		used = UINT64_MAX;
	grow = used <= rec->charged && rec->charged - used >= VGPU_ROUND(size, VGPU_PAGE) ?
	       0 : VGPU_ROUND(size, VGPU_CHUNK);
	rc = libvgpu_tx_begin(&tx, rec->gpu, grow);
	if (rc)
		return rc;
	tx.gpu = rec->gpu;	/* routed, even with nothing charged ahead */
	tx.bytes = grow;
	rc = call(dptr, size, rec->pool, h, real, from_pool);
	if (rc || !dptr) {
		libvgpu_tx_abort(&tx);
		reread(rec);	/* the driver may have released to make room */
		return rc;
	}
	if (attr(rec->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &r))
		r = rec->charged + grow;	/* keep what was charged ahead */
	grow = r > rec->charged ? r - rec->charged : 0;
	if (libvgpu_tx_adjust(&tx, grow)) {
		libvgpu_log(VGPU_LOG_INFO, "refused %llu bytes of pool growth on GPU %d",
			    (unsigned long long)grow, rec->gpu);
		libvgpu_tx_abort(&tx);
		return refuse(rec, *dptr, h);
	}
	libvgpu_tx_keep(&tx);
	rec->charged += grow;
	follow(rec, r);		/* a release during the call */
	return CUDA_SUCCESS;
}

/* No pool to follow: each allocation charged rounded up to 2 MiB. */
static CUresult by_chunk(int gpu, CUdeviceptr *dptr, size_t size, CUmemoryPool pool,
			 CUstream h, void *real, int from_pool)
{
	struct vgpu_tx tx;
	CUresult rc = libvgpu_tx_begin(&tx, gpu, VGPU_ROUND(size, VGPU_CHUNK));

	if (rc)
		return rc;
	rc = call(dptr, size, pool, h, real, from_pool);
	if (rc || !dptr) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	libvgpu_tx_commit(&tx, VGPU_K_MEM, (uint64_t)*dptr, NULL);
	return rc;
}

CUresult libvgpu_pool_alloc(CUdeviceptr *dptr, size_t size, CUmemoryPool pool, CUstream h,
			    void *real, int from_pool)
{
	vgpu_pfn_cuDeviceGetMemPool getpool = REAL(cuDeviceGetMemPool);
	struct pool_rec *rec = NULL;
	CUdevice dev;
	CUresult rc;
	uint64_t r;
	int gpu;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	libvgpu_ensure();	/* the device look-ups need the registration */
	if (from_pool) {
		gpu = libvgpu_pool_gpu(pool, h);
	} else if (!libvgpu_stream_device(h, &dev)) {
		gpu = libvgpu_dev_gpu(dev);
		if (!getpool || getpool(&pool, dev))
			pool = NULL;
	} else {
		gpu = libvgpu_stream_gpu(h);
	}
	if (!pool || gpu < 0 || !vgpu_active() ||
	    attr(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &r))
		return by_chunk(gpu, dptr, size, pool, h, real, from_pool);
	pthread_mutex_lock(&pools_lk);
	rec = rec_get(pool, gpu);
	rc = rec ? by_reserve(rec, dptr, size, h, real, from_pool)
		 : CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_unlock(&pools_lk);
	return rc;
}

/* In a forked child (init.c): the pools' charges were the parent's
 * registration's; the child's pools are charged from its own records. */
void libvgpu_poolcharge_reset(void)
{
	pthread_mutex_init(&pools_lk, NULL);
	free(recs);
	recs = NULL;
	caprecs = 0;
	__atomic_store_n(&nrecs, 0, __ATOMIC_RELEASE);
}
