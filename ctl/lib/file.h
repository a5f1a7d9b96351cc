/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files written so that a crash or a reader never sees half of them:
 * vgpuctl_file_replace() writes a new version beside the file and renames
 * it into place (node_exporter's textfile collector, account's state);
 * vgpuctl_file_append() appends and syncs (account's records).
 */
#ifndef VGPU_CTL_FILE_H
#define VGPU_CTL_FILE_H

#include <stddef.h>

int vgpuctl_file_replace(const char *path, const char *buf, size_t len);
int vgpuctl_file_append(int fd, const char *buf, size_t len);
int vgpuctl_file_sync_dir(const char *path);

#endif /* VGPU_CTL_FILE_H */
