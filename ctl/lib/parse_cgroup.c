// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 paths of vgpuctl's arguments (see parse.h): the cgroup2 mount
 * point from a mounts file, and a tenant's PATH, absolute or relative to
 * that mount, normalised lexically. Kept apart from parse.c; the only I/O
 * is reading the mounts file it is given.
 */
#include <stdio.h>
#include <string.h>

#include "parse.h"

/* Undo the octal escapes (\040 for space, ...) of /proc/self/mounts. */
static void unescape_mount(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

/**
 * vgpuctl_cgroup_mount() - find where cgroup v2 is mounted
 * @mounts_file: "/proc/self/mounts" (tests pass a fixture)
 * @out: the first cgroup2 mount point, or "/sys/fs/cgroup" if none is found
 * @outlen: size of @out
 *
 * Return: 0 when a cgroup2 mount was found, 1 when the default was used,
 * -1 when @out is too small.
 */
int vgpuctl_cgroup_mount(const char *mounts_file, char *out, size_t outlen)
{
	char line[8192], dir[4096], type[64];
	FILE *f = fopen(mounts_file, "re");
	int ret = 1;

	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%*s %4095s %63s", dir, type) != 2 ||
			    strcmp(type, "cgroup2"))
				continue;
			unescape_mount(dir);
			if (strlen(dir) >= outlen) {
				fclose(f);
				return -1;
			}
			strcpy(out, dir);
			ret = 0;
			break;
		}
		fclose(f);
	}
	if (ret == 1) {
		if (outlen < sizeof("/sys/fs/cgroup"))
			return -1;
		strcpy(out, "/sys/fs/cgroup");
	}
	return ret;
}

/*
 * Normalise an absolute path lexically into @out: collapse "//", drop "."
 * and resolve ".." (cgroupfs has no symlinks). Returns -2 on ".." above the
 * root, -1 when @out is too small.
 */
static int normalise_path(const char *in, char *out, size_t outlen)
{
	size_t pos = 0;

	if (outlen < 2)
		return -1;
	out[0] = '\0';
	while (*in) {
		const char *end;
		size_t n;

		while (*in == '/')
			in++;
		if (!*in)
			break;
		end = strchr(in, '/');
		n = end ? (size_t)(end - in) : strlen(in);
		if (n == 1 && in[0] == '.') {
			/* nothing */
		} else if (n == 2 && in[0] == '.' && in[1] == '.') {
			if (!pos)
				return -2;
			while (pos && out[pos - 1] != '/')
				pos--;
			pos--;	/* the '/' itself */
			out[pos] = '\0';
		} else {
			if (pos + 1 + n + 1 > outlen)
				return -1;
			out[pos++] = '/';
			memcpy(out + pos, in, n);
			pos += n;
			out[pos] = '\0';
		}
		in += n;
	}
	if (!pos)
		strcpy(out, "/");
	return 0;
}

/**
 * vgpuctl_cgroup_path() - turn a cgroup argument into the path the kernel takes
 * @mnt: the cgroup2 mount point ("/sys/fs/cgroup")
 * @arg: "/sys/fs/cgroup/team-a", "team-a", "/sys/fs/cgroup"
 * @out: path relative to the mount, with a leading slash ("/team-a", "/")
 * @outlen: size of @out; VGPU_PATH_LEN_MAX + 1 matches the kernel's limit
 *
 * The path is normalised lexically; existence is not checked.
 *
 * Return: 0, -1 when empty or too long, -2 when outside @mnt (absolute
 * elsewhere, or climbing above it with "..").
 */
int vgpuctl_cgroup_path(const char *mnt, const char *arg, char *out, size_t outlen)
{
	char nmnt[VGPU_PATH_LEN_MAX + 1], full[2 * (VGPU_PATH_LEN_MAX + 1)];
	size_t mlen;
	int ret;

	if (!*arg || normalise_path(mnt, nmnt, sizeof(nmnt)))
		return -1;
	if (arg[0] == '/') {
		ret = normalise_path(arg, full, sizeof(full));
		if (ret)
			return ret;
		mlen = strlen(nmnt);
		if (!strcmp(nmnt, "/"))
			mlen = 0;
		if (strncmp(full, nmnt, mlen) ||
		    (full[mlen] != '/' && full[mlen] != '\0'))
			return -2;
		if (!full[mlen])
			return snprintf(out, outlen, "/") < (int)outlen ? 0 : -1;
		if (strlen(full + mlen) >= outlen)
			return -1;
		strcpy(out, full + mlen);
		return 0;
	}
	/* Relative to the mount: normalise it as if it were rooted there. */
	if (strlen(arg) + 2 > sizeof(full))
		return -1;
	full[0] = '/';
	strcpy(full + 1, arg);
	return normalise_path(full, out, outlen);
}
