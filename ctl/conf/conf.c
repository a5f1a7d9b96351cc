// SPDX-License-Identifier: GPL-2.0
/*
 * The reader of vgpu's configuration files (see conf.h): a set of files
 * in, records of words out, each naming its file and line. What the
 * words mean is the business of whoever reads the records (flavour.c for
 * flavours; gpu, host and tenant objects are vgpuctl apply's).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "../vgpuctl.h"

/* The kinds of object a configuration file may hold. */
static const char *const conf_kinds[] = { "gpu", "host", "tenant", "flavour" };

/**
 * vgpuctl_conf_error() - report a bad record: "Error: FILE:LINE: message."
 * @r: the record
 * @fmt: the problem
 *
 * Return: VGPU_EXIT_USAGE.
 */
int vgpuctl_conf_error(const struct vgpuctl_conf_rec *r, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vgpuctl_error_where(r->file, r->line);
	vgpuctl_error("%s", msg);
	vgpuctl_error_where(NULL, 0);
	return VGPU_EXIT_USAGE;
}

/* Refuse a file or directory that someone other than root could change. */
static int check_owner(const char *path, const struct stat *st)
{
	if (st->st_uid != 0)
		return vgpuctl_error("%s is owned by uid %u, not root: vgpu reads limits only from root's files",
				     path, (unsigned int)st->st_uid);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return vgpuctl_error("%s is writable by its group or by others (mode %04o): vgpu reads limits only from files root alone can change",
				     path, (unsigned int)(st->st_mode & 07777));
	return 0;
}

/* Read the whole of @path into a new NUL-terminated buffer. */
static int read_file(const char *path, char **out)
{
	struct stat st;
	ssize_t n;
	size_t len = 0;
	char *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return vgpuctl_error("cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st)) {
		ret = vgpuctl_error("cannot stat %s: %s", path, strerror(errno));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = vgpuctl_error("%s is not a regular file", path);
		goto out_close;
	}
	ret = check_owner(path, &st);
	if (ret)
		goto out_close;
	if (st.st_size > VGPU_CONF_FILE_MAX) {
		ret = vgpuctl_error("%s is larger than %d bytes", path, VGPU_CONF_FILE_MAX);
		goto out_close;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		ret = vgpuctl_error("%s", strerror(ENOMEM));
		goto out_close;
	}
	while (len < (size_t)st.st_size &&
	       (n = read(fd, buf + len, (size_t)st.st_size - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = vgpuctl_error("cannot read %s: %s", path, strerror(errno));
			free(buf);
			goto out_close;
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (strlen(buf) != len) {
		ret = vgpuctl_error("%s holds a NUL byte: not a text file", path);
		free(buf);
		goto out_close;
	}
	*out = buf;
out_close:
	close(fd);
	return ret;
}

static int add_rec(struct vgpuctl_conf *c, const char *file, unsigned int line,
		   char **words, int nwords)
{
	struct vgpuctl_conf_rec *recs, *r;
	size_t i;

	recs = realloc(c->recs, (c->n + 1) * sizeof(*recs));
	if (!recs)
		return vgpuctl_error("%s", strerror(ENOMEM));
	c->recs = recs;
	r = &recs[c->n];
	r->file = file;
	r->line = line;
	r->argc = nwords;
	r->argv = calloc((size_t)nwords + 1, sizeof(char *));
	if (!r->argv)
		return vgpuctl_error("%s", strerror(ENOMEM));
	memcpy(r->argv, words, (size_t)nwords * sizeof(char *));
	c->n++;
	for (i = 0; i < sizeof(conf_kinds) / sizeof(conf_kinds[0]); i++)
		if (!strcmp(words[0], conf_kinds[i]))
			return 0;
	return vgpuctl_conf_error(r, "unknown object \"%s\" (gpu, host, tenant or flavour)",
				  words[0]);
}

/*
 * Split one physical line into words in place, appending them to @words.
 * Sets *cont when the line ends with a backslash. Returns 0 or the exit
 * status after an error line.
 */
static int split_line(const struct vgpuctl_conf_rec *where, char *s,
		      char **words, int *nwords, bool *cont)
{
	char *end = s + strlen(s);

	/* A comment runs to the end of the line; then blanks go. */
	for (char *p = s; *p; p++) {
		if (*p == '#' && (p == s || *(p - 1) == ' ' || *(p - 1) == '\t')) {
			end = p;
			break;
		}
	}
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*cont = end > s && end[-1] == '\\';
	if (*cont)
		end--;
	*end = '\0';
	for (char *p = s; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == ' ' || ch == '\t') {
			*p = '\0';
			continue;
		}
		if (ch == '"' || ch == '\'')
			return vgpuctl_conf_error(where, "quotes are not supported: words are separated by blanks and never quoted");
		if (ch == '\\')
			return vgpuctl_conf_error(where, "a backslash may only end a line, to continue it on the next");
		if (ch < 0x21 || ch > 0x7e)
			return vgpuctl_conf_error(where, "character 0x%02x is not printable ASCII", ch);
		if (p == s || p[-1] == '\0') {
			if (*nwords >= VGPU_CONF_WORDS_MAX)
				return vgpuctl_conf_error(where, "more than %d words in one object",
							  VGPU_CONF_WORDS_MAX);
			words[(*nwords)++] = p;
		}
	}
	return 0;
}

/**
 * vgpuctl_conf_parse() - cut the text of one file into records
 * @c: the records are appended to it
 * @file: the file's name, which the records keep (not copied)
 * @buf: its text, NUL-terminated; cut into words in place, and kept by
 *       the records
 *
 * The loaders call it on what they read; the fuzzer of tests/fuzz on
 * bytes of its own.
 *
 * Return: 0, or the exit status after an error line naming FILE:LINE.
 */
int vgpuctl_conf_parse(struct vgpuctl_conf *c, const char *file, char *buf)
{
	char *words[VGPU_CONF_WORDS_MAX];
	struct vgpuctl_conf_rec where = { .file = file };
	unsigned int line = 0, first = 0;
	int nwords = 0, ret;
	bool cont = false;
	char *p = buf;

	while (*p) {
		char *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		where.line = ++line;
		if (!nwords)
			first = line;
		ret = split_line(&where, p, words, &nwords, &cont);
		if (ret)
			return ret;
		if (!cont && nwords) {
			ret = add_rec(c, file, first, words, nwords);
			if (ret)
				return ret;
			nwords = 0;
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	if (cont)
		return vgpuctl_conf_error(&where, "the last line ends with a backslash: no line follows to continue it");
	return 0;
}

/* Read @path; a missing one is fine when @optional. */
static int load_one(struct vgpuctl_conf *c, const char *path, bool optional)
{
	char *buf = NULL, **bufs, *name;
	int ret;

	if (optional && access(path, F_OK) && errno == ENOENT)
		return 0;
	ret = read_file(path, &buf);
	if (ret)
		return ret;
	name = strdup(path);
	bufs = realloc(c->bufs, (c->nbufs + 2) * sizeof(*bufs));
	if (!name || !bufs) {
		free(name);
		free(buf);
		if (bufs)
			c->bufs = bufs;
		return vgpuctl_error("%s", strerror(ENOMEM));
	}
	c->bufs = bufs;
	bufs[c->nbufs++] = name;
	bufs[c->nbufs++] = buf;
	return vgpuctl_conf_parse(c, name, buf);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_conf_name(const char *n)
{
	size_t len = strlen(n);

	return n[0] != '.' && len > 5 && !strcmp(n + len - 5, ".conf");
}

/* The *.conf files of @dir, in name order; none when it does not exist. */
static int load_dir(struct vgpuctl_conf *c, const char *dir)
{
	char **names = NULL, path[4096];
	size_t n = 0, i;
	struct dirent *e;
	struct stat st;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d && errno == ENOENT)
		return 0;
	if (!d)
		return vgpuctl_error("cannot open %s: %s", dir, strerror(errno));
	if (fstat(dirfd(d), &st))
		ret = vgpuctl_error("cannot stat %s: %s", dir, strerror(errno));
	if (!ret)
		ret = check_owner(dir, &st);
	while (!ret && (e = readdir(d))) {
		char **more;

		if (!is_conf_name(e->d_name))
			continue;
		more = realloc(names, (n + 1) * sizeof(*names));
		if (!more || !(more[n] = strdup(e->d_name))) {
			names = more ? more : names;
			ret = vgpuctl_error("%s", strerror(ENOMEM));
			break;
		}
		names = more;
		n++;
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n && !ret; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= sizeof(path))
			ret = vgpuctl_error("%s/%s: path too long", dir, names[i]);
		else
			ret = load_one(c, path, false);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

/**
 * vgpuctl_conf_load() - read the configuration: a file, then a directory
 * @c: filled with the records (zeroed first); free with vgpuctl_conf_free()
 * @main_file: "/etc/vgpu/vgpu.conf"; may be missing
 * @dir: "/etc/vgpu/conf.d", whose *.conf files are read in name order; may
 *       be missing, or NULL
 *
 * Return: 0, or the exit status after an error line (nothing is kept).
 */
int vgpuctl_conf_load(struct vgpuctl_conf *c, const char *main_file, const char *dir)
{
	int ret;

	memset(c, 0, sizeof(*c));
	ret = load_one(c, main_file, true);
	if (!ret && dir)
		ret = load_dir(c, dir);
	if (ret)
		vgpuctl_conf_free(c);
	return ret;
}

/**
 * vgpuctl_conf_load_files() - read the named files, which must all exist
 * @c: filled with the records (zeroed first); free with vgpuctl_conf_free()
 * @files: their paths, read in this order
 * @n: how many
 *
 * Return: 0, or the exit status after an error line (nothing is kept).
 */
int vgpuctl_conf_load_files(struct vgpuctl_conf *c, char *const *files, size_t n)
{
	size_t i;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < n && !ret; i++)
		ret = load_one(c, files[i], false);
	if (ret)
		vgpuctl_conf_free(c);
	return ret;
}

/** vgpuctl_conf_free() - release what vgpuctl_conf_load() kept. */
void vgpuctl_conf_free(struct vgpuctl_conf *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->recs[i].argv);
	for (i = 0; i < c->nbufs; i++)
		free(c->bufs[i]);
	free(c->recs);
	free(c->bufs);
	memset(c, 0, sizeof(*c));
}
