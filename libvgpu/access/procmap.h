/* SPDX-License-Identifier: GPL-2.0 */
/* cuGetProcAddress look-ups mapped to HOOK rows by name (procmap.c). */
#ifndef VGPU_PROCMAP_H
#define VGPU_PROCMAP_H

/* The driver's answer for (name, version, flags), or NULL. */
typedef void *(*vgpu_procmap_ask)(const char *name, int version,
				  unsigned long long flags, void *ctx);

/*
 * The HOOK row (enum vgpu_hook_id) that the driver's answer for
 * (name, version, flags) is a variant of; -1 when name is not hooked;
 * VGPU_PROCMAP_UNMAPPED when it is but the headers cannot say which
 * variant the answer is (it must not be handed back unwrapped). answer is
 * what the driver gave; ask may be called for another name, or for the
 * headers' CUDA_VERSION, to compare with it.
 */
#define VGPU_PROCMAP_UNMAPPED (-2)
int libvgpu_procmap_find(const char *name, int version, unsigned long long flags,
			 void *answer, vgpu_procmap_ask ask, void *ctx);

#endif
