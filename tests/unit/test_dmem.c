// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl's dmem reader and writer (ctl/enforce/dmem.c) against a
 * fake cgroup2 tree in a temporary directory: regular files stand for the
 * control files (a write replaces the whole file, where the kernel would
 * update one region: the checks read back what was written). One line per
 * check: "PASS: dmem: <what>" or "FAIL: dmem: <what>: <detail>". Exits 1
 * if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE tests/unit/test_dmem.c ctl/enforce/dmem.c
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../ctl/enforce/dmem.h"

#define VGPU_UNIT_SUITE "dmem"
#include "result.h"

static char root[256];

static void die(const char *what)
{
	fprintf(stderr, "test_dmem: %s: %s\n", what, strerror(errno));
	exit(2);
}

static const char *at(const char *rel)
{
	static char path[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", root, rel);
	return path[i];
}

static void put(const char *rel, const char *content)
{
	FILE *f = fopen(at(rel), "w");

	if (!f || fputs(content, f) < 0 || fclose(f))
		die(rel);
}

static const char *get(const char *rel)
{
	static char buf[256];
	FILE *f = fopen(at(rel), "r");
	size_t n;

	if (!f)
		return "(missing)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_regions(void)
{
	char r[128] = "";
	int n;

	n = vgpuctl_dmem_region(root, "0000:03:00.0", r, sizeof(r));
	result(n == 0, "no dmem.capacity: no region", "got %d", n);
	put("dmem.capacity", "drm/0000:03:00.0/vram0 8514437120\n"
	    "drm/0000:04:00.0/vram0 17179869184\ndrm/0000:04:00.0/stolen 1048576\n"
	    "drm/0000:0a:00.0/vram0 1073741824\nttm/system 4294967296\n");
	n = vgpuctl_dmem_region(root, "0000:03:00.0", r, sizeof(r));
	result(n == 1 && !strcmp(r, "drm/0000:03:00.0/vram0"), "a GPU's one region is found",
	       "got %d \"%s\"", n, r);
	n = vgpuctl_dmem_region(root, "0000:0A:00.0", r, sizeof(r));
	result(n == 1 && !strcmp(r, "drm/0000:0a:00.0/vram0"), "the bus id is matched in any case",
	       "got %d \"%s\"", n, r);
	n = vgpuctl_dmem_region(root, "0000:03:00.1", r, sizeof(r));
	result(n == 0, "another function of the device is no match", "got %d", n);
	n = vgpuctl_dmem_region(root, "0000:04:00.0", r, sizeof(r));
	result(n == -2, "two regions of one GPU are not guessed between", "got %d", n);
	n = vgpuctl_dmem_region(root, "", r, sizeof(r));
	result(n == 0, "a GPU without a bus id has no region", "got %d", n);
}

static void test_values(void)
{
	const char *reg = "drm/0000:03:00.0/vram0";
	uint64_t min = 1, max = 1;
	char err[256] = "";
	int ret;

	if (mkdir(at("a"), 0755))
		die("mkdir");
	ret = vgpuctl_dmem_get(root, "/a", reg, &min, &max);
	result(ret == -ENOENT, "no dmem files: -ENOENT", "got %d", ret);
	ret = vgpuctl_dmem_set(root, "/nosuch", reg, 0, 1, err, sizeof(err));
	result(ret == -ENOENT && strstr(err, "+dmem in its parent's cgroup.subtree_control"),
	       "a cgroup without dmem files: the message says what to enable", "%d %s", ret, err);
	put("a/dmem.max", "drm/0000:04:00.0/vram0 max\ndrm/0000:03:00.0/vram0 max\n");
	put("a/dmem.min", "drm/0000:03:00.0/vram0 0\n");
	ret = vgpuctl_dmem_get(root, "/a", reg, &min, &max);
	result(!ret && !min && max == VGPU_DMEM_MAX, "\"max\" reads as no limit",
	       "%d %" PRIu64 " %" PRIu64, ret, min, max);
	ret = vgpuctl_dmem_set(root, "/a", reg, 33554432, 67108864, err, sizeof(err));
	result(!ret && !strcmp(get("a/dmem.max"), "drm/0000:03:00.0/vram0 67108864\n") &&
	       !strcmp(get("a/dmem.min"), "drm/0000:03:00.0/vram0 33554432\n"),
	       "max and min written as \"REGION BYTES\"", "%d %s", ret, err);
	ret = vgpuctl_dmem_get(root, "/a", reg, &min, &max);
	result(!ret && min == 33554432 && max == 67108864, "and read back",
	       "%d %" PRIu64 " %" PRIu64, ret, min, max);
	ret = vgpuctl_dmem_set(root, "/a", reg, 0, VGPU_DMEM_MAX, err, sizeof(err));
	result(!ret && !strcmp(get("a/dmem.max"), "drm/0000:03:00.0/vram0 max\n"),
	       "no limit is written as \"max\"", "%d %s", ret, err);
	put("a/dmem.max", "drm/0000:03:00.0/vram0 12x\n");
	ret = vgpuctl_dmem_get(root, "/a", reg, &min, &max);
	result(ret == -EINVAL, "a value that is no number is refused", "got %d", ret);
	put("a/dmem.max", "drm/0000:09:00.0/vram0 max\n");
	ret = vgpuctl_dmem_get(root, "/a", reg, &min, &max);
	result(ret == -ENOENT, "a region the file does not list: -ENOENT", "got %d", ret);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char cmd[600];

	snprintf(root, sizeof(root), "%s/vgpu-dmem.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		die("mkdtemp");
	test_regions();
	test_values();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		die("rm");
	return failures ? 1 : 0;
}
