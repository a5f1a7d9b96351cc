// SPDX-License-Identifier: GPL-2.0
/*
 * The dmem reader and writer of vgpuctl (see dmem.h), after the kernel's
 * Documentation/admin-guide/cgroup-v2.rst ("DMEM"):
 *  - ROOT/dmem.capacity (root cgroup only): one line per region,
 *    "NAME BYTES"; a DRM driver names its regions "drm/PCI-BUS-ID/NAME"
 *    ("drm/0000:03:00.0/vram0");
 *  - CG/dmem.max, CG/dmem.min (every cgroup but the root, once "+dmem" is
 *    in the parent's cgroup.subtree_control): one line per region,
 *    "NAME BYTES" or "NAME max"; writing "NAME VALUE" sets one region.
 * A GPU's region is the one region whose second component is its PCI bus
 * id; none, or more than one, is no region (vgpu does not guess).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dmem.h"

/* Room for a root and a cgroup path of 4095 bytes each, and a file name. */
#define DMEM_PATH_MAX	(2 * 4096 + 64)
#define DMEM_LINE_MAX	512

/* Whether region NAME ("drm/0000:03:00.0/vram0") belongs to PCI device @pci. */
static int region_of(const char *name, const char *pci)
{
	const char *a = strchr(name, '/'), *b;
	size_t n = strlen(pci);

	if (!a)
		return 0;
	b = strchr(a + 1, '/');
	return b && (size_t)(b - a - 1) == n && !strncasecmp(a + 1, pci, n);
}

/**
 * vgpuctl_dmem_region() - the dmem region of a GPU
 * @root: the cgroup2 mount ("/sys/fs/cgroup")
 * @pci: the GPU's PCI bus id, as sysfs names it ("0000:03:00.0")
 * @out: the region's name
 * @outlen: its size
 *
 * Return: 1 when exactly one region of ROOT/dmem.capacity is the GPU's, 0
 * when none is (no controller: no file), -2 when several are.
 */
int vgpuctl_dmem_region(const char *root, const char *pci, char *out, size_t outlen)
{
	char path[DMEM_PATH_MAX], line[DMEM_LINE_MAX], name[DMEM_LINE_MAX];
	int found = 0;
	FILE *f;

	if (!pci || !*pci)
		return 0;
	snprintf(path, sizeof(path), "%s/dmem.capacity", root);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%511s", name) != 1 || !region_of(name, pci))
			continue;
		if (found++ == 0)
			snprintf(out, outlen, "%s", name);
	}
	fclose(f);
	return found > 1 ? -2 : found;
}

/* The value of @region in ROOT/CG/@file into @val; -errno, or -ENOENT for
 * a region the file does not list. */
static int read_value(const char *root, const char *cgroup, const char *file,
		      const char *region, uint64_t *val)
{
	char path[DMEM_PATH_MAX], line[DMEM_LINE_MAX], name[DMEM_LINE_MAX], v[32];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s/%s", root, cgroup, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (ret == -ENOENT && fgets(line, sizeof(line), f)) {
		char *end;

		if (sscanf(line, "%511s %31s", name, v) != 2 || strcmp(name, region))
			continue;
		if (!strcmp(v, "max")) {
			*val = VGPU_DMEM_MAX;
			ret = 0;
			continue;
		}
		errno = 0;
		*val = strtoull(v, &end, 10);
		ret = errno || *end || v[0] == '-' ? -EINVAL : 0;
	}
	fclose(f);
	return ret;
}

/**
 * vgpuctl_dmem_get() - a cgroup's dmem.min and dmem.max for a region
 * @root: the cgroup2 mount
 * @cgroup: the cgroup's path below it ("/a/b")
 * @region: the region (vgpuctl_dmem_region())
 * @min: bytes
 * @max: bytes, VGPU_DMEM_MAX for none
 *
 * Return: 0, or a negative errno (-ENOENT: no such file, that is no dmem
 * controller in the cgroup, or no such region).
 */
int vgpuctl_dmem_get(const char *root, const char *cgroup, const char *region,
		     uint64_t *min, uint64_t *max)
{
	int ret = read_value(root, cgroup, "dmem.max", region, max);

	return ret ? ret : read_value(root, cgroup, "dmem.min", region, min);
}

static int write_value(const char *root, const char *cgroup, const char *file,
		       const char *region, uint64_t val, char *err, size_t errlen)
{
	char path[DMEM_PATH_MAX];
	FILE *f;
	int e;

	snprintf(path, sizeof(path), "%s%s/%s", root, cgroup, file);
	f = fopen(path, "we");
	if (!f) {
		e = errno;
		snprintf(err, errlen, "cannot open %s: %s%s", path, strerror(e),
			 e == ENOENT ? " (is +dmem in its parent's cgroup.subtree_control?)" : "");
		return -e;
	}
	if (val == VGPU_DMEM_MAX)
		fprintf(f, "%s max\n", region);
	else
		fprintf(f, "%s %" PRIu64 "\n", region, val);
	e = ferror(f) ? EIO : 0;
	if (fclose(f) && !e)
		e = errno;
	if (e) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
		return -e;
	}
	return 0;
}

/**
 * vgpuctl_dmem_set() - write a cgroup's dmem.max and dmem.min for a region
 * @root: the cgroup2 mount
 * @cgroup: the cgroup's path below it
 * @region: the region
 * @min: bytes
 * @max: bytes, VGPU_DMEM_MAX for none
 * @err: what failed, for the message
 * @errlen: its size
 *
 * dmem.max first: a lower limit holds before a reservation can be raised
 * beside it.
 *
 * Return: 0 or a negative errno, with @err filled.
 */
int vgpuctl_dmem_set(const char *root, const char *cgroup, const char *region,
		     uint64_t min, uint64_t max, char *err, size_t errlen)
{
	int ret = write_value(root, cgroup, "dmem.max", region, max, err, errlen);

	return ret ? ret : write_value(root, cgroup, "dmem.min", region, min, err, errlen);
}
