/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The references that keep a VMM physical allocation (cuMemCreate) alive:
 * its handle, each retained handle (cuMemRetainAllocationHandle) and each
 * mapping (cuMemMap). The allocation is charged once, at cuMemCreate, and
 * given back when the last reference goes (vmm.c).
 */
#ifndef VGPU_VMMREF_H
#define VGPU_VMMREF_H

#include <stddef.h>
#include <stdint.h>

/* A handle's record (key: the handle) or a mapping's (key: its address). */
struct vgpu_vref {
	uint64_t key;
	uint64_t bytes;		/* handle: charged; mapping: mapped */
	uint64_t handle;	/* mapping: the handle it maps */
	int32_t gpu;		/* handle: charged on this GPU */
	uint32_t refs;		/* handle: references; mapping: 1; 0: empty slot */
	uint64_t fdev, fino;	/* handle: its exported descriptor's file, or 0 */
};

/* Record a new handle with one reference. A stale record of the same
 * handle (freed behind our back) goes to *old and 1 is returned; -1: no
 * memory; 0 otherwise. */
int libvgpu_vref_create(uint64_t handle, int32_t gpu, uint64_t bytes, struct vgpu_vref *old);
/* One more reference to handle: 1, or 0 when it is not recorded. */
int libvgpu_vref_get(uint64_t handle);
/* One reference less: 0 when not recorded, 1 when references remain,
 * 2 when that was the last (the record is removed into *gone). */
int libvgpu_vref_put(uint64_t handle, struct vgpu_vref *gone);
/* Undo a put that returned 2 (the driver refused the release). */
void libvgpu_vref_restore(const struct vgpu_vref *gone);
/* A mapping of a recorded handle at [va, va + bytes): it takes a
 * reference. 1; 0 when the handle is not recorded; -1: no memory for the
 * mapping (the reference is taken for good); 2: a stale mapping at va was
 * replaced and its handle's last reference went into *gone. */
int libvgpu_vref_map(uint64_t va, uint64_t bytes, uint64_t handle, struct vgpu_vref *gone);
/* Take out the mappings lying in [va, va + bytes) (their references are
 * still held): the count; *out is buf, or an allocated array when more
 * than cap (free it), or NULL with a count of 0 when there is no memory. */
size_t libvgpu_vref_unmap_take(uint64_t va, uint64_t bytes, struct vgpu_vref *buf,
			       size_t cap, struct vgpu_vref **out);
/* Put back mappings taken out (the driver refused the unmap). */
void libvgpu_vref_unmap_restore(const struct vgpu_vref *m, size_t n);
/* handle was exported as a descriptor of the file (fdev, ino): 1, or 0
 * when it is not recorded. */
int libvgpu_vref_export(uint64_t handle, uint64_t fdev, uint64_t ino);
/* Record again a handle kept by its descriptor (vmmfd.c): as create. */
int libvgpu_vref_insert(const struct vgpu_vref *r, struct vgpu_vref *old);
/* An imported handle is recorded with 0 bytes until its first mapping is
 * charged: 1 and its GPU in *gpu when handle is such a record, else 0. */
int libvgpu_vref_pending(uint64_t handle, int32_t *gpu);
/* Set the bytes of such a record: 1, or 0 when it is not one (any more). */
int libvgpu_vref_claim(uint64_t handle, uint64_t bytes);
/* Forget everything (a forked child; tests). */
void libvgpu_vref_reset(void);
size_t libvgpu_vref_count(size_t *mappings);

#endif
