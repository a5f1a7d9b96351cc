// SPDX-License-Identifier: GPL-2.0
/*
 * The flavour objects of the configuration (see flavour.h): each name
 * valid and declared once, each quota word one tenant add accepts
 * (tenant.c parses them, so the two can never disagree).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flavour.h"
#include "../vgpuctl.h"

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/**
 * vgpuctl_flavour_name_valid() - whether a flavour name is acceptable
 * @name: 1-63 letters, digits, '_', '-' and '.', starting and ending with a
 *        letter or digit (a CDI device name, without the ':' CDI allows)
 *
 * Return: 0 when valid, -1 otherwise.
 */
int vgpuctl_flavour_name_valid(const char *name)
{
	size_t len = strlen(name), i;

	if (!len || len > VGPU_FLAVOUR_NAME_MAX || !is_alnum(name[0]) || !is_alnum(name[len - 1]))
		return -1;
	for (i = 1; i + 1 < len; i++)
		if (!is_alnum(name[i]) && name[i] != '_' && name[i] != '-' && name[i] != '.')
			return -1;
	return 0;
}

/* Check one flavour object; 0 or the exit status after an error line. */
static int check_flavour(const struct vgpuctl_conf_rec *r, const struct vgpuctl_flavour *seen,
			 size_t nseen)
{
	char what[VGPU_FLAVOUR_NAME_MAX + 16];
	size_t i;
	int ret;

	if (r->argc < 2)
		return vgpuctl_conf_error(r, "flavour needs a NAME");
	if (vgpuctl_flavour_name_valid(r->argv[1]))
		return vgpuctl_conf_error(r, "invalid flavour name \"%s\" (1-%d letters, digits, '_', '-' or '.', starting and ending with a letter or digit)",
					  r->argv[1], VGPU_FLAVOUR_NAME_MAX);
	for (i = 0; i < nseen; i++)
		if (!strcmp(seen[i].name, r->argv[1]))
			return vgpuctl_conf_error(r, "flavour \"%s\" is already declared at %s:%u",
						  r->argv[1], seen[i].rec->file, seen[i].rec->line);
	snprintf(what, sizeof(what), "flavour %s", r->argv[1]);
	vgpuctl_error_where(r->file, r->line);
	ret = vgpuctl_quotas_parse(what, r->argc - 2, r->argv + 2, NULL);
	vgpuctl_error_where(NULL, 0);
	return ret;
}

/**
 * vgpuctl_flavours() - the flavours declared in a configuration
 * @c: the loaded files
 * @out: a new array (free() it; its strings are @c's), NULL when none
 * @n: its length
 *
 * Objects of other kinds are left to their readers.
 *
 * Return: 0, or the exit status after an error line naming the file and
 * line of the first bad flavour.
 */
int vgpuctl_flavours(const struct vgpuctl_conf *c, struct vgpuctl_flavour **out, size_t *n)
{
	struct vgpuctl_flavour *fl = NULL, *more;
	size_t i, nfl = 0;
	int ret = 0;

	for (i = 0; i < c->n && !ret; i++) {
		const struct vgpuctl_conf_rec *r = &c->recs[i];

		if (strcmp(r->argv[0], "flavour"))
			continue;
		ret = check_flavour(r, fl, nfl);
		if (ret)
			break;
		more = realloc(fl, (nfl + 1) * sizeof(*fl));
		if (!more) {
			ret = vgpuctl_error("%s", strerror(ENOMEM));
			break;
		}
		fl = more;
		fl[nfl++] = (struct vgpuctl_flavour){
			.rec = r, .name = r->argv[1], .argc = r->argc - 2, .argv = r->argv + 2,
		};
	}
	if (ret) {
		free(fl);
		return ret;
	}
	*out = fl;
	*n = nfl;
	return 0;
}
