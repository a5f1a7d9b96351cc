// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual memory management (cuMemCreate / cuMemMap / ...). A physical
 * allocation is a memfd charged to the GPU; a reservation is a PROT_NONE
 * MAP_NORESERVE range; cuMemMap maps the memfd into it and cuMemSetAccess
 * opens it for reading and writing. A physical allocation lives while a
 * reference to it does: its handle from cuMemCreate, each handle from
 * cuMemRetainAllocationHandle (each released by its own cuMemRelease) and
 * each mapping; the charge ends with the last one, as the CUDA Driver API
 * reference documents for cuMemRelease and cuMemUnmap.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simgpu.h"

struct sg_vmm {
	uint32_t magic;
	int dev;
	int fd;
	int refs;	/* cuMemCreate or import, each cuMemRetainAllocationHandle */
	int maps;
	int exp;	/* its entry in the shared exports (vmmshare.c), or -1 */
	size_t size;
	CUmemAllocationProp prop;
	struct sg_vmm *next_shared;	/* exported or imported ones */
};

struct sg_mapping {
	struct sg_mapping *next;
	uintptr_t va;
	size_t size;
	struct sg_vmm *h;
};

static struct sg_mapping *mappings;
static struct sg_vmm *shared_list;
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
	SG_GATE();
	(void)option;
	SG_INIT_CHECK();
	if (!granularity || !prop_ok(prop))
		return CUDA_ERROR_INVALID_VALUE;
	*granularity = SG_GRANULARITY;
	return CUDA_SUCCESS;
}

/* Called with vmm_lk held: free the allocation if no reference is left. */
static void vmm_put(struct sg_vmm *v)
{
	struct sg_vmm **pp;

	if (v->refs || v->maps)
		return;
	close(v->fd);	/* before the export's look for open descriptors */
	if (v->exp >= 0) {
		for (pp = &shared_list; *pp != v; pp = &(*pp)->next_shared)
			;
		*pp = v->next_shared;
		simgpu_state_lock();
		simgpu_export_hold(v->exp, simgpu_slot, 0);
		simgpu_state_unlock();
	} else {
		simgpu_uncharge(v->dev, v->size);
	}
	v->magic = 0;
	free(v);
}

SG_API CUresult cuMemCreate(CUmemGenericAllocationHandle *handle_out, size_t size,
			    const CUmemAllocationProp *prop, unsigned long long flags)
{
	SG_GATE();
	struct sg_vmm *v;
	CUresult rc;
	int fd;

	SG_INIT_CHECK();
	if (!handle_out || !prop_ok(prop) || !size || size % SG_GRANULARITY || flags)
		return CUDA_ERROR_INVALID_VALUE;
	/* Only POSIX file descriptors are shareable here (Linux). */
	if (prop->requestedHandleTypes & ~CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED;
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
	v->refs = 1;
	v->exp = -1;
	v->size = size;
	v->prop = *prop;
	*handle_out = (CUmemGenericAllocationHandle)(uintptr_t)v;
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemRelease(CUmemGenericAllocationHandle h)
{
	SG_GATE();
	struct sg_vmm *v;

	SG_INIT_CHECK();
	pthread_mutex_lock(&vmm_lk);
	v = handle(h);
	if (!v || !v->refs) {
		pthread_mutex_unlock(&vmm_lk);
		return CUDA_ERROR_INVALID_VALUE;
	}
	v->refs--;
	vmm_put(v);
	pthread_mutex_unlock(&vmm_lk);
	return CUDA_SUCCESS;
}

SG_API CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
						       CUmemGenericAllocationHandle h)
{
	SG_GATE();
	struct sg_vmm *v;
	CUresult rc = CUDA_ERROR_INVALID_VALUE;

	SG_INIT_CHECK();
	pthread_mutex_lock(&vmm_lk);
	v = handle(h);
	if (prop && v && v->refs) {
		*prop = v->prop;
		rc = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&vmm_lk);
	return rc;
}

/*
 * The handle of the allocation mapped at any address of a mapping, the
 * same value cuMemMap was given, with one more reference that its own
 * cuMemRelease drops; an address that is not mapped fails.
 */
SG_API CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle_out, void *addr)
{
	SG_GATE();
	uintptr_t va = (uintptr_t)addr;
	struct sg_mapping *m;

	SG_INIT_CHECK();
	if (!handle_out)
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&vmm_lk);
	for (m = mappings; m; m = m->next)
		if (va >= m->va && va < m->va + m->size)
			break;
	if (m) {
		m->h->refs++;
		*handle_out = (CUmemGenericAllocationHandle)(uintptr_t)m->h;
	}
	pthread_mutex_unlock(&vmm_lk);
	return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

SG_API CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
				    CUdeviceptr addr, unsigned long long flags)
{
	SG_GATE();
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
	SG_GATE();
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
	SG_GATE();
	struct sg_mapping *m;
	struct sg_vmm *v;
	uintptr_t va = (uintptr_t)ptr;

	SG_INIT_CHECK();
	if (flags || !size || va % SG_GRANULARITY || size % SG_GRANULARITY ||
	    offset % SG_GRANULARITY || !in_reservation(va, size))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&vmm_lk);
	v = handle(h);
	if (!v || !v->refs || offset + size > v->size) {
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
	SG_GATE();
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
	SG_GATE();
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
	SG_GATE();
	(void)location;
	SG_INIT_CHECK();
	if (!flags || !in_reservation((uintptr_t)ptr, 1))
		return CUDA_ERROR_INVALID_VALUE;
	*flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	return CUDA_SUCCESS;
}

/*
 * The shareable handle of an allocation created with
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR in its requestedHandleTypes: a
 * new descriptor of the memfd backing it (an int, as the type says), which
 * the caller closes. It is a reference of its own (vmmshare.c): from the
 * first export on, the allocation's memory is counted in the shared state.
 */
SG_API CUresult cuMemExportToShareableHandle(void *shareable, CUmemGenericAllocationHandle h,
					     CUmemAllocationHandleType type,
					     unsigned long long flags)
{
	SG_GATE();
	struct sg_vmm *v;
	struct stat st;
	CUresult rc = CUDA_SUCCESS;
	int fd;

	SG_INIT_CHECK();
	if (!shareable || flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&vmm_lk);
	v = handle(h);
	if (!v || !v->refs || !(v->prop.requestedHandleTypes & type)) {
		pthread_mutex_unlock(&vmm_lk);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (v->exp < 0) {
		if (fstat(v->fd, &st))
			rc = CUDA_ERROR_OPERATING_SYSTEM;
		if (!rc) {
			simgpu_state_lock();
			v->exp = simgpu_export_add((uint64_t)st.st_dev, (uint64_t)st.st_ino,
						   v->dev, v->size, simgpu_slot);
			simgpu_state_unlock();
			if (v->exp < 0)
				rc = CUDA_ERROR_OUT_OF_MEMORY;
		}
		if (!rc) {
			v->next_shared = shared_list;
			shared_list = v;
		}
	}
	fd = rc ? -1 : fcntl(v->fd, F_DUPFD_CLOEXEC, 0);
	if (!rc && fd < 0)
		rc = CUDA_ERROR_OPERATING_SYSTEM;
	if (!rc)
		*(int *)shareable = fd;
	pthread_mutex_unlock(&vmm_lk);
	return rc;
}

/*
 * A handle to the allocation an exported descriptor refers to, in this or
 * another process: a new reference, released with cuMemRelease. A process
 * that holds the allocation already gets the same handle with one more
 * reference (the reference allows either). The importer is attributed
 * the allocation's bytes while it holds a reference, as the creator is;
 * the GPU counts them once (vmmshare.c).
 */
SG_API CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle_out,
					       void *os_handle, CUmemAllocationHandleType type)
{
	SG_GATE();
	int fd = (int)(intptr_t)os_handle, idx = -1;
	struct sg_vmm *v;
	struct stat st;

	SG_INIT_CHECK();
	if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (!handle_out || fstat(fd, &st))
		return CUDA_ERROR_INVALID_VALUE;
	pthread_mutex_lock(&vmm_lk);
	simgpu_state_lock();
	idx = simgpu_export_find((uint64_t)st.st_dev, (uint64_t)st.st_ino);
	for (v = idx >= 0 ? shared_list : NULL; v; v = v->next_shared)
		if (v->exp == idx)
			break;
	if (idx >= 0 && !v)
		simgpu_export_hold(idx, simgpu_slot, 1);
	simgpu_state_unlock();
	if (v) {
		v->refs++;
		goto out;
	}
	v = idx >= 0 ? calloc(1, sizeof(*v)) : NULL;
	if (v)
		v->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (!v || v->fd < 0) {
		free(v);
		if (idx >= 0) {
			simgpu_state_lock();
			simgpu_export_hold(idx, simgpu_slot, 0);
			simgpu_state_unlock();
		}
		pthread_mutex_unlock(&vmm_lk);
		return idx < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_OUT_OF_MEMORY;
	}
	v->magic = SG_VMM_MAGIC;
	v->refs = 1;
	v->exp = idx;
	v->size = (size_t)st.st_size;
	simgpu_state_lock();
	v->dev = simgpu_shm->exports[idx].gpu;
	simgpu_state_unlock();
	v->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	v->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	v->prop.location.id = v->dev;
	v->prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	v->next_shared = shared_list;
	shared_list = v;
out:
	*handle_out = (CUmemGenericAllocationHandle)(uintptr_t)v;
	pthread_mutex_unlock(&vmm_lk);
	return CUDA_SUCCESS;
}

/* Call fn on the backing memfd and size of every mapped physical
 * allocation (once per mapping), vmm_lk held (checkpoint.c). */
int simgpu_vmm_each_mapped(int (*fn)(int fd, size_t size, void *arg), void *arg)
{
	int rc = 0;

	pthread_mutex_lock(&vmm_lk);
	for (struct sg_mapping *m = mappings; m && !rc; m = m->next)
		rc = fn(m->h->fd, m->h->size, arg);
	pthread_mutex_unlock(&vmm_lk);
	return rc;
}

/* The mapping that holds va: its start, size, device and the handle
 * types its allocation may be exported as; 0, or -1 when va is not
 * mapped (pointer.c's CU_POINTER_ATTRIBUTE_MAPPING_* and MAPPED). */
int simgpu_vmm_mapping(uintptr_t va, uintptr_t *base, size_t *size, int *dev,
		       unsigned long long *htypes)
{
	int rc = -1;

	pthread_mutex_lock(&vmm_lk);
	for (struct sg_mapping *m = mappings; m; m = m->next) {
		if (va < m->va || va >= m->va + m->size)
			continue;
		*base = m->va;
		*size = m->size;
		*dev = m->h->dev;
		*htypes = (unsigned long long)m->h->prop.requestedHandleTypes;
		rc = 0;
		break;
	}
	pthread_mutex_unlock(&vmm_lk);
	return rc;
}
