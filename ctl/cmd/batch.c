// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl -b FILE (see batch.h): one command per line, as "ip -b" reads
 * them. A line is split into words at blanks; '...' and "..." quote (in
 * "...", \" and \\ escape), a backslash escapes the next character, a word
 * starting with '#' starts a comment, and a line ending in a backslash
 * continues on the next one. The first failing line stops the batch with
 * its exit status, after a line naming FILE:LINE (--force goes on).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "batch.h"
#include "../vgpuctl.h"

/* Append @n bytes of @s to @l's text (kept NUL-terminated). */
static int line_append(struct vgpuctl_batch_line *l, size_t len, const char *s, size_t n)
{
	if (len + n + 1 > l->cap) {
		size_t cap = (len + n + 1) * 2;
		char *b = realloc(l->buf, cap);

		if (!b)
			return -1;
		l->buf = b;
		l->cap = cap;
	}
	memcpy(l->buf + len, s, n);
	l->buf[len + n] = '\0';
	return 0;
}

/**
 * vgpuctl_batch_read() - read the next logical line of a batch file
 * @f: the file
 * @l: the line; start zeroed, free l->buf at the end
 *
 * The newline (and a carriage return before it) is dropped; a line ending
 * in an odd number of backslashes loses the last one and is joined with
 * the next. l->first is the number of its first physical line.
 *
 * Return: 1 when a line was read, 0 at the end of the file, -1 on a read
 * error or when out of memory (errno says which).
 */
int vgpuctl_batch_read(FILE *f, struct vgpuctl_batch_line *l)
{
	char *phys = NULL;
	size_t pcap = 0, len = 0, bs;
	bool any = false, more = true;
	ssize_t n;

	l->first = l->next + 1;
	while (more && (n = getline(&phys, &pcap, f)) >= 0) {
		any = true;
		l->next++;
		if (n && phys[n - 1] == '\n')
			n--;
		if (n && phys[n - 1] == '\r')
			n--;
		for (bs = 0; bs < (size_t)n && phys[n - 1 - bs] == '\\'; bs++)
			;
		more = bs % 2;
		if (line_append(l, len, phys, (size_t)n - more)) {
			free(phys);
			return -1;
		}
		len += (size_t)n - more;
	}
	free(phys);
	if (ferror(f))
		return -1;
	return any ? 1 : 0;
}

/* Copy a quoted part of a word from *rp to *wp; false if it never ends. */
static bool split_quoted(char **rp, char **wp)
{
	char q = **rp, *r = *rp + 1, *w = *wp;

	while (*r && *r != q) {
		if (q == '"' && *r == '\\' && (r[1] == '"' || r[1] == '\\'))
			r++;
		*w++ = *r++;
	}
	if (!*r)
		return false;
	*rp = r + 1;
	*wp = w;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/**
 * vgpuctl_batch_split() - split one line into words, in place
 * @line: the line (rewritten: the words are NUL-terminated inside it)
 * @argv: out: the words then NULL; room for strlen(@line) / 2 + 2 pointers
 * @err: out: what is wrong with the line, when it is
 *
 * Return: the number of words (0 for a blank or comment line), or -1.
 */
int vgpuctl_batch_split(char *line, char **argv, const char **err)
{
	char *r = line, *w = line;
	int argc = 0;

	for (;;) {
		while (is_blank(*r))
			r++;
		if (!*r || *r == '#')
			break;
		argv[argc++] = w;
		while (*r && !is_blank(*r)) {
			if (*r == '\'' || *r == '"') {
				if (!split_quoted(&r, &w)) {
					*err = "a quote is not closed";
					return -1;
				}
			} else if (*r == '\\' && r[1]) {
				r++;
				*w++ = *r++;
			} else {
				*w++ = *r++;
			}
		}
		/* w never passes r: ending the word cannot clobber what follows. */
		if (*r)
			r++;
		*w++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

/* Run one logical line; its exit status, after naming it when it failed. */
static int batch_line(const char *file, struct vgpuctl_batch_line *l, vgpuctl_batch_fn run)
{
	const char *err = NULL;
	char **argv;
	int argc, rc = VGPU_EXIT_OK;

	argv = malloc((strlen(l->buf) / 2 + 2) * sizeof(*argv));
	if (!argv) {
		fprintf(stderr, "Error: %s:%u: out of memory.\n", file, l->first);
		return VGPU_EXIT_ERR;
	}
	argc = vgpuctl_batch_split(l->buf, argv, &err);
	if (argc < 0) {
		fprintf(stderr, "Error: %s:%u: %s.\n", file, l->first, err);
		rc = VGPU_EXIT_USAGE;
	} else if (argc > 0 && argv[0][0] == '-') {
		fprintf(stderr, "Error: %s:%u: option \"%s\" on a line: options go before -b.\n",
			file, l->first, argv[0]);
		rc = VGPU_EXIT_USAGE;
	} else if (argc > 0) {
		rc = run(argc, argv);
		/* The command's output comes before the next one's errors. */
		fflush(stdout);
		if (rc)
			fprintf(stderr, "Error: %s:%u: the command failed (exit status %d).\n",
				file, l->first, rc);
	}
	free(argv);
	return rc;
}

/**
 * vgpuctl_batch() - run the commands of a batch file
 * @file: its path, or "-" for standard input
 * @force: go on after a failing line
 * @run: what runs one line's words
 *
 * Return: 0 when every line succeeded, else the exit status of the first
 * line that failed (1 when the file cannot be read).
 */
int vgpuctl_batch(const char *file, bool force, vgpuctl_batch_fn run)
{
	struct vgpuctl_batch_line l = { 0 };
	bool std = !strcmp(file, "-");
	FILE *f = std ? stdin : fopen(file, "r");
	int rc = VGPU_EXIT_OK, one, got;

	if (!f) {
		fprintf(stderr, "Error: cannot open batch file %s: %s.\n", file, strerror(errno));
		return VGPU_EXIT_ERR;
	}
	while ((got = vgpuctl_batch_read(f, &l)) > 0) {
		one = batch_line(file, &l, run);
		if (one && !rc)
			rc = one;
		if (one && !force)
			break;
	}
	if (got < 0) {
		fprintf(stderr, "Error: %s:%u: cannot read: %s.\n", file, l.next + 1, strerror(errno));
		if (!rc)
			rc = VGPU_EXIT_ERR;
	}
	free(l.buf);
	if (!std)
		fclose(f);
	return rc;
}
