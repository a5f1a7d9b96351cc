/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpuctl -b FILE: run one vgpuctl command per line of FILE, as "ip -b"
 * does (batch.c). The reading and splitting are apart from the loop so
 * that the unit tests (tests/unit/test_batch.c) reach them without netlink.
 */
#ifndef VGPU_CTL_BATCH_H
#define VGPU_CTL_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One logical line of a batch file: physical lines joined by "\". */
struct vgpuctl_batch_line {
	char *buf;		/* the joined text, NUL-terminated */
	size_t cap;		/* its allocation */
	unsigned int first;	/* the number of its first physical line */
	unsigned int next;	/* the number of the next physical line to read */
};

int vgpuctl_batch_read(FILE *f, struct vgpuctl_batch_line *l);
int vgpuctl_batch_split(char *line, char **argv, const char **err);

/* What runs one command: the words of a line, as main() would see them. */
typedef int (*vgpuctl_batch_fn)(int argc, char **argv);
int vgpuctl_batch(const char *file, bool force, vgpuctl_batch_fn run);

#endif /* VGPU_CTL_BATCH_H */
