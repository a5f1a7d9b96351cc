// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual memory management. A physical allocation is charged once, at
 * cuMemCreate (its size is a multiple of the allocation granularity), to
 * the GPU of prop->location, and given back when its last reference goes
 * (vmmref.c): its handle, each handle cuMemRetainAllocationHandle (or an
 * import of its exported descriptor in this process) returns and each
 * mapping; cuMemRelease of a handle that is still mapped frees
 * nothing, as the CUDA Driver API reference says of cuMemRelease.
 * Reserving address space and setting access take no memory and are not
 * hooked. Physical allocations are not bound to a context. Memory located
 * on the host (not a device) is not charged. An allocation imported from
 * another process is charged to this one from its first mapping, for the
 * bytes mapped (cuMemImportFromShareableHandle below). An allocation
 * exported as a descriptor stays charged after its last handle and mapping
 * while that descriptor is open in this process (vmmfd.c): every VMM call
 * first gives back what closed descriptors no longer keep.
 */
#include <stdlib.h>
#include <sys/stat.h>

#include "../policy/account.h"
#include "../state/devmap.h"
#include "../access/hooks.h"
#include "../access/log.h"
#include "../policy/register.h"
#include "../state/state.h"
#include "../policy/vmmfd.h"
#include "../logic/vmmref.h"
#include "../access/nest.h"

/* The inventory GPU an allocation at loc is charged to, or VGPU_GPU_SKIP. */
static int vmm_gpu(const CUmemLocation *loc)
{
	static int warned;

	switch (loc->type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return libvgpu_dev_gpu(loc->id);
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		return VGPU_GPU_SKIP;	/* host memory: not VRAM */
	default:
		if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
			libvgpu_log(VGPU_LOG_WARN, "cuMemCreate with unknown location type %d: "
				    "not charged (logged once)", (int)loc->type);
		return VGPU_GPU_SKIP;
	}
}

/*
 * The last reference to a physical allocation went: give back its charge,
 * unless a descriptor it was exported as is still open here (the driver
 * keeps the memory for it).
 */
static void vmm_gone(const struct vgpu_vref *r)
{
	struct vgpu_alloc a = { r->key, r->bytes, NULL, r->gpu, VGPU_K_VMM };

	if (!r->bytes)	/* an import never mapped, never charged */
		return;
	if (r->fino && libvgpu_vfd_open(r->fdev, r->fino) && !libvgpu_vfd_keep(r))
		return;
	libvgpu_release(&a);
}

/* Whether VMM calls are followed; first, a check point for the charges
 * kept by exported descriptors. */
static int vmm_tracking(void)
{
	if (__atomic_load_n(&libvgpu_proc.state, __ATOMIC_ACQUIRE) != VGPU_ST_ACTIVE)
		return 0;
	libvgpu_vfd_check();
	return 1;
}

VGPU_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
				 const CUmemAllocationProp *prop, unsigned long long flags)
{
	VGPU_PASS_NESTED(cuMemCreate, (handle, size, prop, flags));
	vgpu_pfn_cuMemCreate real = REAL(cuMemCreate);
	struct vgpu_vref old;
	struct vgpu_tx tx;
	int gpu = VGPU_GPU_SKIP;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (prop && vgpu_active()) {
		libvgpu_vfd_check();	/* closed descriptors first */
		gpu = vmm_gpu(&prop->location);
	}
	rc = libvgpu_tx_begin(&tx, gpu, VGPU_ROUND(size, VGPU_PAGE));
	if (rc)
		return rc;
	rc = real(handle, size, prop, flags);
	if (rc || !handle || tx.gpu < 0) {
		libvgpu_tx_abort(&tx);
		return rc;
	}
	switch (libvgpu_vref_create((uint64_t)*handle, tx.gpu, tx.bytes, &old)) {
	case 1:
		/* The driver reused a handle freed behind our back. */
		vmm_gone(&old);
		break;
	case -1:
		libvgpu_log(VGPU_LOG_WARN, "out of memory recording a VMM allocation: its "
			    "%llu bytes stay charged until exit", (unsigned long long)tx.bytes);
		break;
	default:
		break;
	}
	/* Committed after the record exists: a release racing in from
	 * another thread finds it. */
	libvgpu_charge_commit(&libvgpu_proc.charger, tx.gpu, tx.bytes);
	return rc;
}

VGPU_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
	VGPU_PASS_NESTED(cuMemRelease, (handle));
	vgpu_pfn_cuMemRelease real = REAL(cuMemRelease);
	struct vgpu_vref gone;
	int put = 0;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (vmm_tracking())
		put = libvgpu_vref_put((uint64_t)handle, &gone);
	rc = real(handle);
	if (put == 2 && rc == CUDA_SUCCESS)
		vmm_gone(&gone);
	else if (put == 2)
		libvgpu_vref_restore(&gone);
	else if (put == 1 && rc != CUDA_SUCCESS)
		libvgpu_vref_get((uint64_t)handle);
	return rc;
}

VGPU_EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
	VGPU_PASS_NESTED(cuMemRetainAllocationHandle, (handle, addr));
	vgpu_pfn_cuMemRetainAllocationHandle real = REAL(cuMemRetainAllocationHandle);
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(handle, addr);
	if (rc == CUDA_SUCCESS && handle && vmm_tracking())
		libvgpu_vref_get((uint64_t)*handle);
	return rc;
}

/*
 * A descriptor exported from a recorded handle: its file's identity goes
 * on the record, so that the charge outlives the handle's last reference
 * while the descriptor is open (vmm_gone). Other handle types are not
 * descriptors this process can be seen holding: not followed.
 */
VGPU_EXPORT CUresult cuMemExportToShareableHandle(void *shareable,
						  CUmemGenericAllocationHandle handle,
						  CUmemAllocationHandleType type,
						  unsigned long long flags)
{
	VGPU_PASS_NESTED(cuMemExportToShareableHandle, (shareable, handle, type, flags));
	vgpu_pfn_cuMemExportToShareableHandle real = REAL(cuMemExportToShareableHandle);
	struct stat st;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(shareable, handle, type, flags);
	if (rc == CUDA_SUCCESS && shareable && type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR &&
	    vmm_tracking() && !fstat(*(int *)shareable, &st))
		libvgpu_vref_export((uint64_t)handle, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	return rc;
}

/* A handle imported from a descriptor of a file whose charge is kept for
 * it (this process exported it and released every reference): the kept
 * record is the handle's again, charged as it was. 1, or 0. */
static int vmm_import_kept(CUmemGenericAllocationHandle handle, void *os_handle,
			   CUmemAllocationHandleType type)
{
	struct vgpu_vref r, old;
	struct stat st;

	if (type != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR ||
	    fstat((int)(intptr_t)os_handle, &st) ||
	    !libvgpu_vfd_take((uint64_t)st.st_dev, (uint64_t)st.st_ino, &r))
		return 0;
	r.key = (uint64_t)handle;
	r.handle = (uint64_t)handle;
	if (libvgpu_vref_insert(&r, &old) == 1)
		vmm_gone(&old);
	return 1;
}

/*
 * An imported handle the process holds already (the driver may return the
 * handle of an allocation this process created or imported, simgpu does)
 * is one more reference to it. Any other is recorded uncharged: no driver
 * call tells its size, so its first mapping charges the mapped bytes
 * (cuMemMap below); the memory is then charged to the creator and to each
 * importer that maps it (Documentation/vram.md, "VMM allocations"), and
 * stays charged to an importer that keeps the descriptor it imported from
 * open past its last handle and mapping, as to the exporter.
 */
VGPU_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle,
						    void *os_handle,
						    CUmemAllocationHandleType type)
{
	VGPU_PASS_NESTED(cuMemImportFromShareableHandle, (handle, os_handle, type));
	vgpu_pfn_cuMemImportFromShareableHandle real = REAL(cuMemImportFromShareableHandle);
	vgpu_pfn_cuMemGetAllocationPropertiesFromHandle props =
		REAL(cuMemGetAllocationPropertiesFromHandle);
	CUmemAllocationProp prop;
	struct vgpu_vref old;
	int gpu = VGPU_GPU_SKIP;
	struct stat st;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	rc = real(handle, os_handle, type);
	if (rc != CUDA_SUCCESS || !handle || !vmm_tracking() ||
	    libvgpu_vref_get((uint64_t)*handle) || vmm_import_kept(*handle, os_handle, type))
		return rc;
	if (props && props(&prop, *handle) == CUDA_SUCCESS)
		gpu = vmm_gpu(&prop.location);
	if (gpu < 0)
		return rc;
	switch (libvgpu_vref_create((uint64_t)*handle, gpu, 0, &old)) {
	case 1:
		vmm_gone(&old);
		break;
	case -1:
		libvgpu_log(VGPU_LOG_WARN, "out of memory recording an imported VMM "
			    "allocation: it is not charged");
		break;
	default:
		break;
	}
	/* A descriptor it was imported from, kept open, keeps it too. */
	if (type == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR &&
	    !fstat((int)(intptr_t)os_handle, &st))
		libvgpu_vref_export((uint64_t)*handle, (uint64_t)st.st_dev, (uint64_t)st.st_ino);
	return rc;
}

/*
 * The first mapping of an imported handle (recorded with 0 bytes) charges
 * what it maps before the real call; a refusal fails the map with
 * CUDA_ERROR_OUT_OF_MEMORY, nothing mapped.
 */
VGPU_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
			      CUmemGenericAllocationHandle handle, unsigned long long flags)
{
	VGPU_PASS_NESTED(cuMemMap, (ptr, size, offset, handle, flags));
	vgpu_pfn_cuMemMap real = REAL(cuMemMap);
	struct vgpu_tx tx = { VGPU_GPU_SKIP, 0 };
	struct vgpu_vref gone;
	int32_t gpu;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (vmm_tracking() && libvgpu_vref_pending((uint64_t)handle, &gpu)) {
		rc = libvgpu_tx_begin(&tx, gpu, VGPU_ROUND(size, VGPU_PAGE));
		if (rc)
			return rc;
	}
	rc = real(ptr, size, offset, handle, flags);
	if (tx.gpu >= 0) {
		/* Another thread's first mapping may have been charged. */
		if (rc == CUDA_SUCCESS && libvgpu_vref_claim((uint64_t)handle, tx.bytes))
			libvgpu_charge_commit(&libvgpu_proc.charger, tx.gpu, tx.bytes);
		else
			libvgpu_tx_abort(&tx);
	}
	if (rc != CUDA_SUCCESS || !vmm_tracking())
		return rc;
	switch (libvgpu_vref_map((uint64_t)ptr, size, (uint64_t)handle, &gone)) {
	case 2:
		vmm_gone(&gone);
		break;
	case -1:
		libvgpu_log(VGPU_LOG_WARN, "out of memory recording a VMM mapping: its "
			    "allocation stays charged until exit");
		break;
	default:
		break;
	}
	return rc;
}

/*
 * The mappings in the range are taken out before the real unmap (so that
 * a mapping made at the same address by another thread right after it
 * cannot be confused), their references dropped after it succeeded, put
 * back when it failed.
 */
VGPU_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
	VGPU_PASS_NESTED(cuMemUnmap, (ptr, size));
	vgpu_pfn_cuMemUnmap real = REAL(cuMemUnmap);
	struct vgpu_vref buf[8], *m = buf, gone;
	size_t n = 0;
	CUresult rc;

	if (!real)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (vmm_tracking())
		n = libvgpu_vref_unmap_take((uint64_t)ptr, size, buf, 8, &m);
	rc = real(ptr, size);
	if (rc != CUDA_SUCCESS) {
		libvgpu_vref_unmap_restore(m, n);
	} else {
		for (size_t i = 0; i < n; i++)
			if (libvgpu_vref_put(m[i].handle, &gone) == 2)
				vmm_gone(&gone);
	}
	if (m != buf)
		free(m);
	return rc;
}
