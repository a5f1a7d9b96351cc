// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual memory management (cuMemCreate / cuMemMap / ...). A physical
 * allocation is a memfd charged to the GPU; a reservation is a PROT_NONE
 * MAP_NORESERVE range; cuMemMap maps the memfd into it and cuMemSetAccess
 * opens it for reading and writing. The charge ends when the handle is
 * released and no mapping of it is left, as with the real driver.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "simgpu.h"

struct sg_vmm {
	uint32_t magic;
	int dev;
	int fd;
	int released;
	int maps;
	size_t size;
	CUmemAllocationProp prop;
};

struct sg_mapping {
	struct sg_mapping *next;
	uintptr_t va;
	size_t size;
	struct sg_vmm *h;
};

static struct sg_mapping *mappings;
static pthread_mutex_t vmm_lk = PTHREAD_MUTEX_INITIALIZER;

static struct sg_vmm *handle(CUmemGenericAllocationHandle h)
{
	struct sg_vmm *v = (struct sg_vmm *)(uintptr_t)h;

	return v && v->magic == SG_VMM_MAGIC ? v : NULL;
}

static int prop_ok(const CUmemAllocationProp *prop)
{
	return prop && prop->type == CU_MEM_ALLOCATION_TYPE_PINNED &&
	       prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
	       prop->location.id >= 0 && prop->location.id < simgpu_nvis;
}

SG_API CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
					      CUmemAllocationGranularity_flags option)
{
	(void)option;
	SG_INIT_CHECK();
	if (!granularity || !prop_ok(prop))
		return CUDA_ERROR_INVALID_VALUE;
	*granularity = SG_GRANULARITY;
	return CUDA_SUCCESS;
}

/* Called with vmm_lk held: the last reference is gone. */
static void vmm_put(struct sg_vmm *v)
{
	if (!v->released || v->maps)
		return;
	simgpu_uncharge(v->dev, v->size);
	close(v->fd);
	v->magic = 0;
	free(v);
}

SG_API CUresult cuMemCreate(CUmemGenericAllocationHandle *handle_out, size_t size,
			    const CUmemAllocationProp *prop, unsigned long long flags)
{
	struct sg_vmm *v;
	CUresult rc;
	int fd;

	SG_INIT_CHECK();
	if (!handle_out || !prop_ok(prop) || !size || size % SG_GRANULARITY || flags)
		return CUDA_ERROR_INVALID_VALUE;
	rc = simgpu_charge(prop->location.id, size);
	if (rc)
		return rc;
	fd = memfd_create("simgpu-vmm", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size)) {
		if (fd >= 0)
			close(fd);
		simgpu_uncharge(prop->location.id, size);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		close(fd);
		simgpu_uncharge(prop->location.id, size);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	v->magic = SG_VMM_MAGIC;
	v->dev = prop->location.id;
	v->fd = fd;
	v->size = size;
	v->prop = *prop;
	*handle_out = (CUmemGenericAllocationHandle)(uintptr_t)v;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemRelease(CUmemGenericAllocationHandle h)
{
	struct sg_vmm *v;

	SG_INIT_CHECK();
	pthread_mutex_lock(&vmm_lk);
	v = handle(h);
	if (!v || v->released) {
		pthread_mutex_unlock(&vmm_lk);
		return CUDA_ERROR_INVALID_VALUE;
	}
	v->released = 1;
	vmm_put(v);
	pthread_mutex_unlock(&vmm_lk);
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
						       CUmemGenericAllocationHandle h)
{
	struct sg_vmm *v = handle(h);

	SG_INIT_CHECK();
	if (!prop || !v)
		return CUDA_ERROR_INVALID_VALUE;
	*prop = v->prop;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
				    CUdeviceptr addr, unsigned long long flags)
{
	struct sg_range r = { 0 };
	void *m;

	(void)addr;	/* a hint only */
	SG_INIT_CHECK();
	if (!ptr || !size || size % SG_GRANULARITY || flags ||
	    (alignment & (alignment - 1)))
		return CUDA_ERROR_INVALID_VALUE;
	if (alignment < SG_GRANULARITY)
		alignment = SG_GRANULARITY;
	m = simgpu_map(size, alignment, 0);
	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	mprotect(m, size, PROT_NONE);
	r.base = (uintptr_t)m;
	r.size = size;
	r.mapsize = size;
	r.kind = SG_MEM_VA;
	r.dev = -1;
	if (!simgpu_range_add(&r)) {
		munmap(m, size);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*ptr = (CUdeviceptr)r.base;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
	struct sg_range *r;

	SG_INIT_CHECK();
	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find((uintptr_t)ptr, 1);
	if (!r || r->kind != SG_MEM_VA || r->size != size) {
		pthread_mutex_unlock(&simgpu_lk);
		return CUDA_ERROR_INVALID_VALUE;
	}
	simgpu_range_del(r);
	pthread_mutex_unlock(&simgpu_lk);
	munmap((void *)(uintptr_t)ptr, size);
	return CUDA_SUCCESS;
}

static int in_reservation(uintptr_t va, size_t size)
{
	struct sg_range *r;
	int ok;

	pthread_mutex_lock(&simgpu_lk);
	r = simgpu_range_find(va, 0);
	ok = r && r->kind == SG_MEM_VA && va + size <= r->base + r->size;
	pthread_mutex_unlock(&simgpu_lk);
	return ok;
}

SG_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			 CUmemGenericAllocationHandle h, unsigned long long flags)
{
	struct sg_mapping *m;
	struct sg_vmm *v;
	uintptr_t va = (uintptr_t)ptr;

	SG_INIT_CHECK();
	if (flags || !size || va % SG_GRANULARITY || size % SG_GRANULARITY ||
	    offset % SG_GRANULARITY || !in_reservation(va, size))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&vmm_lk);
	v = handle(h);
	if (!v || v->released || offset + size > v->size) {
		pthread_mutex_unlock(&vmm_lk);
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (m = mappings; m; m = m->next) {
		if (va < m->va + m->size && m->va < va + size) {
			pthread_mutex_unlock(&vmm_lk);
			return CUDA_ERROR_ALREADY_MAPPED;
		}
	}
	m = calloc(1, sizeof(*m));
	if (!m || mmap((void *)va, size, PROT_NONE, MAP_SHARED | MAP_FIXED, v->fd,
		       (off_t)offset) == MAP_FAILED) {
		free(m);
		pthread_mutex_unlock(&vmm_lk);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	m->va = va;
	m->size = size;
	m->h = v;
	m->next = mappings;
	mappings = m;
	v->maps++;
	pthread_mutex_unlock(&vmm_lk);
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	struct sg_mapping **pp, *m;
	uintptr_t va = (uintptr_t)ptr, end = va + size;
	int found = 0;

	SG_INIT_CHECK();
	if (!size || !in_reservation(va, size))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&vmm_lk);
	/* Every mapping must lie wholly inside or outside the range. */
	for (m = mappings; m; m = m->next)
		if (m->va < end && va < m->va + m->size &&
		    (m->va < va || m->va + m->size > end)) {
			pthread_mutex_unlock(&vmm_lk);
			return CUDA_ERROR_INVALID_VALUE;
		}
	for (pp = &mappings; (m = *pp);) {
		if (m->va >= va && m->va + m->size <= end) {
			*pp = m->next;
			mmap((void *)m->va, m->size, PROT_NONE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
			m->h->maps--;
			vmm_put(m->h);
			free(m);
			found = 1;
			continue;
		}
		pp = &m->next;
	}
	pthread_mutex_unlock(&vmm_lk);
	return found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SG_API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
	uintptr_t va = (uintptr_t)ptr;
	int prot = PROT_NONE;

	SG_INIT_CHECK();
	if (!size || !desc || !count || !in_reservation(va, size))
		return CUDA_ERROR_INVALID_VALUE;
	for (size_t i = 0; i < count; i++) {
		if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
		    desc[i].location.id < 0 || desc[i].location.id >= simgpu_nvis)
			return CUDA_ERROR_INVALID_DEVICE;
		if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
			prot = PROT_READ | PROT_WRITE;
		else if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ && prot == PROT_NONE)
			prot = PROT_READ;
	}
	pthread_mutex_lock(&vmm_lk);
	for (struct sg_mapping *m = mappings; m; m = m->next)
		if (m->va < va + size && va < m->va + m->size) {
			uintptr_t a = m->va > va ? m->va : va;
			uintptr_t b = m->va + m->size < va + size ? m->va + m->size : va + size;

			mprotect((void *)a, b - a, prot);
		}
	pthread_mutex_unlock(&vmm_lk);
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)
{
	(void)location;
	SG_INIT_CHECK();
	if (!flags || !in_reservation((uintptr_t)ptr, 1))
		return CUDA_ERROR_INVALID_VALUE;
	*flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	return CUDA_SUCCESS;
}
