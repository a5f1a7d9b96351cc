// SPDX-License-Identifier: GPL-2.0
/*
 * cuPointerGetAttribute and cuPointerGetAttributes (CUDA Driver API
 * reference, "Unified Addressing"), answered from mem.c's registry of the
 * ranges this process was handed: device, managed, pool, graph, VMM
 * reserved and page-locked host memory. cuBLASLt dlsyms both from
 * libcuda.so.1 itself and fails to start without them.
 *
 * The value types are the ones NVIDIA's cuda-python binds per attribute
 * (cuda/bindings/_lib/utils.pxi): the booleans (SYNC_MEMOPS, IS_MANAGED,
 * IS_LEGACY_CUDA_IPC_CAPABLE, MAPPED, IS_HW_DECOMPRESS_CAPABLE) are one
 * byte, MEMORY_TYPE, IS_GPU_DIRECT_RDMA_CAPABLE and ACCESS_FLAGS unsigned
 * int, DEVICE_ORDINAL and LOCALITY_DOMAIN_ORDINAL int, BUFFER_ID,
 * ALLOWED_HANDLE_TYPES and MEMORY_BLOCK_ID unsigned long long, RANGE_SIZE
 * and MAPPING_SIZE size_t.
 */
#include <stdbool.h>
#include <string.h>

#include "simgpu.h"

/* What is known of one address: a copy of its range, or none. */
struct sg_ptr {
	int found;
	struct sg_range r;
	int mapped;			/* VMM: a mapping holds it */
	uintptr_t map_base;
	size_t map_size;
	unsigned long long htypes;
};

static void sg_ptr_lookup(CUdeviceptr p, struct sg_ptr *q)
{
	struct sg_range *r;
	int dev = -1;

	memset(q, 0, sizeof(*q));
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)p, 0);
	/* A pool's chunk not handed out is no allocation of the caller's. */
	if (r && !(r->kind == SG_MEM_POOL && !r->in_use)) {
		q->found = 1;
		q->r = *r;
	}
	pthread_mutex_unlock(&simgpu_lk);
	if (!q->found)
		return;
	if (q->r.kind != SG_MEM_VA) {
		q->mapped = 1;
		q->map_base = q->r.base;
		q->map_size = q->r.size;
	} else if (!simgpu_vmm_mapping((uintptr_t)p, &q->map_base, &q->map_size, &dev, &q->htypes)) {
		q->mapped = 1;
		q->r.dev = dev;
	}
}

static void put_bool(void *d, int v) { *(bool *)d = v != 0; }
static void put_uint(void *d, unsigned int v) { *(unsigned int *)d = v; }
static void put_int(void *d, int v) { *(int *)d = v; }
static void put_ull(void *d, unsigned long long v) { *(unsigned long long *)d = v; }
static void put_size(void *d, size_t v) { *(size_t *)d = v; }
static void put_ptr(void *d, uintptr_t v) { *(CUdeviceptr *)d = (CUdeviceptr)v; }

/* Attributes whose value is the same for every range kind simgpu has. */
static CUresult sg_ptr_fixed(const struct sg_ptr *q, CUpointer_attribute a, void *d)
{
	switch (a) {
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
		/* cuPointerSetAttribute is not offered: never set. */
		put_bool(d, 0);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
		put_ull(d, q->r.id);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE:
		put_uint(d, 0);
		return CUDA_SUCCESS;
#if CUDA_VERSION >= 11010
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
		put_uint(d, CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE);
		return CUDA_SUCCESS;
#endif
#if CUDA_VERSION >= 11070
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
		put_ull(d, q->r.id);
		return CUDA_SUCCESS;
#endif
#if CUDA_VERSION >= 12080
	case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE:
		put_bool(d, 0);
		return CUDA_SUCCESS;
#endif
#if CUDA_VERSION >= 13000
	case CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL:
		/* "-1 if the allocation is not localized to a locality domain" */
		put_int(d, -1);
		return CUDA_SUCCESS;
#endif
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

/* One attribute of a known range (q->found). */
static CUresult sg_ptr_attr(const struct sg_ptr *q, CUpointer_attribute a, void *d, CUdeviceptr p)
{
	int host = q->r.kind == SG_MEM_HOST, managed = q->r.kind == SG_MEM_MANAGED;

	switch (a) {
	case CU_POINTER_ATTRIBUTE_CONTEXT:
		*(CUcontext *)d = q->r.ctx;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
		/* Managed memory is device memory that IS_MANAGED flags. */
		put_uint(d, host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
		/* One address space: the device pointer is ptr itself. */
		put_ptr(d, (uintptr_t)p);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
		/* Only host and managed memory have a host address. */
		if (!host && !managed)
			return CUDA_ERROR_INVALID_VALUE;
		*(void **)d = (void *)(uintptr_t)p;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
		put_bool(d, managed);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
		put_int(d, q->r.dev < 0 ? 0 : q->r.dev);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
		/* cudaIpcGetMemHandle takes cuMemAlloc's memory only. */
		put_bool(d, q->r.kind == SG_MEM_DEVICE);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
		put_ptr(d, q->r.base);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
		put_size(d, q->r.size);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPED:
		put_bool(d, q->mapped);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
		put_ull(d, q->htypes);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE:
		*(CUmemoryPool *)d = q->r.kind == SG_MEM_POOL ? q->r.pool : NULL;
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
		put_size(d, q->mapped ? q->map_size : 0);
		return CUDA_SUCCESS;
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
		*(void **)d = q->mapped ? (void *)q->map_base : NULL;
		return CUDA_SUCCESS;
	default:
		return sg_ptr_fixed(q, a, d);
	}
}

SG_API CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr)
{
	SG_GATE();
	struct sg_ptr q;

	SG_INIT_CHECK();
	if (!data)
		return CUDA_ERROR_INVALID_VALUE;
	sg_ptr_lookup(ptr, &q);
	/* "If ptr was not allocated by, mapped by, or registered with a
	 * CUcontext which uses unified virtual addressing then
	 * CUDA_ERROR_INVALID_VALUE is returned." */
	if (!q.found)
		return CUDA_ERROR_INVALID_VALUE;
	if (attribute == CU_POINTER_ATTRIBUTE_DEVICE_POINTER && !simgpu_ctx_current())
		return CUDA_ERROR_INVALID_CONTEXT;
	return sg_ptr_attr(&q, attribute, data, ptr);
}

/* cuPointerGetAttributes' value for an address that is no CUDA pointer:
 * "the attributes are assigned default NULL values"; the device ordinal
 * is CU_DEVICE_INVALID, as cudaPointerGetAttributes reports it. */
static CUresult sg_ptr_none(CUpointer_attribute a, void *d)
{
	switch (a) {
	case CU_POINTER_ATTRIBUTE_CONTEXT: *(CUcontext *)d = NULL; break;
	case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
	case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: put_ptr(d, 0); break;
	case CU_POINTER_ATTRIBUTE_HOST_POINTER:
	case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR: *(void **)d = NULL; break;
	case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: *(CUmemoryPool *)d = NULL; break;
	case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: put_int(d, CU_DEVICE_INVALID); break;
	case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
	case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: put_size(d, 0); break;
	case CU_POINTER_ATTRIBUTE_BUFFER_ID:
	case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: put_ull(d, 0); break;
	case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
	case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: put_uint(d, 0); break;
#if CUDA_VERSION >= 11010
	case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS: put_uint(d, 0); break;
#endif
#if CUDA_VERSION >= 11070
	case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID: put_ull(d, 0); break;
#endif
#if CUDA_VERSION >= 13000
	case CU_POINTER_ATTRIBUTE_LOCALITY_DOMAIN_ORDINAL: put_int(d, -1); break;
#endif
	case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS:
	case CU_POINTER_ATTRIBUTE_IS_MANAGED:
	case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE:
	case CU_POINTER_ATTRIBUTE_MAPPED: put_bool(d, 0); break;
	default:
		return sg_ptr_fixed(&(struct sg_ptr){ 0 }, a, d) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
	}
	return CUDA_SUCCESS;
}

SG_API CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes,
				       void **data, CUdeviceptr ptr)
{
	SG_GATE();
	struct sg_ptr q;
	CUresult rc = CUDA_SUCCESS;

	SG_INIT_CHECK();
	if (!numAttributes || !attributes || !data)
		return CUDA_ERROR_INVALID_VALUE;
	for (unsigned int i = 0; i < numAttributes; i++)
		if (!data[i])
			return CUDA_ERROR_INVALID_VALUE;
	sg_ptr_lookup(ptr, &q);
	for (unsigned int i = 0; i < numAttributes && !rc; i++) {
		/* P2P_TOKENS is not among the attributes it supports. */
		if (attributes[i] == CU_POINTER_ATTRIBUTE_P2P_TOKENS)
			rc = CUDA_ERROR_INVALID_VALUE;
		else if (q.found && (attributes[i] != CU_POINTER_ATTRIBUTE_HOST_POINTER ||
				     q.r.kind == SG_MEM_HOST || q.r.kind == SG_MEM_MANAGED))
			rc = sg_ptr_attr(&q, attributes[i], data[i], ptr);
		else if (q.found)	/* device memory: no host address, NULL */
			*(void **)data[i] = NULL;
		else
			rc = sg_ptr_none(attributes[i], data[i]);
	}
	return rc;
}
