/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration files of vgpu: /etc/vgpu/vgpu.conf, then
 * /etc/vgpu/conf.d/\*.conf in name order. Each holds objects in vgpuctl's
 * own words, one per line:
 *
 *   # a comment (a word starting with '#' starts one, to the end of line)
 *   flavour small vram-max 8G compute-max 30 \
 *           priority normal
 *
 * A backslash at the very end of a line continues the object on the next
 * one. Words are separated by blanks and are never quoted; a word is
 * printable ASCII without quotes or backslashes. The first word is the
 * kind of object: gpu, host, tenant or flavour (conf.c refuses any other).
 *
 * The files set limits, so each must be owned by root and writable by
 * nobody else, and so must the conf.d directory; conf.c refuses them
 * otherwise, naming the file. Nothing is kept of a set that fails to load.
 *
 * Errors read "Error: FILE:LINE: message." (vgpuctl_conf_error()).
 */
#ifndef VGPU_CTL_CONF_H
#define VGPU_CTL_CONF_H

#include <stddef.h>

/* Largest configuration file conf.c reads, in bytes. */
#define VGPU_CONF_FILE_MAX	(1 << 20)
/* Most words of one object. */
#define VGPU_CONF_WORDS_MAX	256

/* One object of a configuration file. */
struct vgpuctl_conf_rec {
	const char *file;	/* the file it came from */
	unsigned int line;	/* its first line */
	int argc;		/* words, at least 1 */
	char **argv;		/* argv[0] is its kind */
};

/* A loaded set of files: records in file order, then line order. */
struct vgpuctl_conf {
	struct vgpuctl_conf_rec *recs;
	size_t n;
	/* What the records point into. */
	char **bufs;
	size_t nbufs;
};

int vgpuctl_conf_load(struct vgpuctl_conf *c, const char *main_file, const char *dir);
int vgpuctl_conf_load_files(struct vgpuctl_conf *c, char *const *files, size_t n);
int vgpuctl_conf_parse(struct vgpuctl_conf *c, const char *file, char *buf);
void vgpuctl_conf_free(struct vgpuctl_conf *c);
int vgpuctl_conf_error(const struct vgpuctl_conf_rec *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* VGPU_CTL_CONF_H */
