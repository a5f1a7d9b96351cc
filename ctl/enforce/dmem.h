/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dmem cgroup controller (Linux 6.14+) as vgpuctl uses it: a GPU's
 * region in ROOT/dmem.capacity, and a cgroup's dmem.max and dmem.min for
 * it. Plain file I/O under a cgroup2 tree whose root is a parameter:
 * tests/unit/test_dmem.c runs it against a fake tree in a temporary
 * directory.
 */
#ifndef VGPU_CTL_DMEM_H
#define VGPU_CTL_DMEM_H

#include <stddef.h>
#include <stdint.h>

/* A dmem value that is no limit ("max" in the files). */
#define VGPU_DMEM_MAX	UINT64_MAX

int vgpuctl_dmem_region(const char *root, const char *pci, char *out, size_t outlen);
int vgpuctl_dmem_get(const char *root, const char *cgroup, const char *region,
		     uint64_t *min, uint64_t *max);
int vgpuctl_dmem_set(const char *root, const char *cgroup, const char *region,
		     uint64_t min, uint64_t max, char *err, size_t errlen);

#endif /* VGPU_CTL_DMEM_H */
