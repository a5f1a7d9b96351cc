// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic replacement and synced appends (see file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "file.h"

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t r;

	while (len) {
		r = write(fd, buf, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		buf += r;
		len -= (size_t)r;
	}
	return 0;
}

/**
 * vgpuctl_file_sync_dir() - sync the directory of @path (a rename in it)
 * @path: a file's path
 *
 * Return: 0 or a negative errno.
 */
int vgpuctl_file_sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd, err = 0;

	if (!copy)
		return -ENOMEM;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return -errno;
	if (fsync(fd))
		err = -errno;
	close(fd);
	return err;
}

/**
 * vgpuctl_file_replace() - replace @path by @buf, atomically and durably
 * @path: the file
 * @buf: its new content
 * @len: its length
 *
 * Written to a hidden temporary file in the same directory (".NAME.XXXXXX",
 * which no "*.prom" glob matches), synced, given mode 0644 and renamed over
 * @path; then the directory is synced.
 *
 * Return: 0, or a negative errno (the old file is untouched).
 */
int vgpuctl_file_replace(const char *path, const char *buf, size_t len)
{
	char *tmp;
	const char *base;
	size_t dlen;
	int fd, err;

	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dlen = (size_t)(base - path);
	tmp = malloc(dlen + strlen(base) + 9);
	if (!tmp)
		return -ENOMEM;
	sprintf(tmp, "%.*s.%s.XXXXXX", (int)dlen, path, base);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = write_all(fd, buf, len);
	if (!err && fchmod(fd, 0644))
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	else
		err = vgpuctl_file_sync_dir(path);
out:
	free(tmp);
	return err;
}

/**
 * vgpuctl_file_append() - append @buf to @fd (opened O_APPEND) and sync it
 * @fd: the file
 * @buf: bytes
 * @len: how many
 *
 * Return: 0, or a negative errno.
 */
int vgpuctl_file_append(int fd, const char *buf, size_t len)
{
	int err = write_all(fd, buf, len);

	if (!err && fdatasync(fd))
		err = -errno;
	return err;
}
