// SPDX-License-Identifier: GPL-2.0
/*
 * The state of vgpuctl account (see acct.h), as a text file:
 *
 *   vgpu-account-state 1
 *   instance HEX16          (absent before the first cycle)
 *   cycle N
 *   final-seq N
 *   pending OFFSET LEN DEV INO   (only in STATE.next, see account.c)
 *   entry TENANT GPU END CREATED GPU_TIME THROTTLED GRANTS BYTE_S RESERVED_BYTE_S
 *         FAILURES OVERDRAFTS SCANS SUSPENDED NAME UUID|-      (one line each)
 *
 * An entry line without SCANS, or without SUSPENDED (written by a vgpuctl
 * that did not keep them), is read with those unknown: the next record
 * of the tenant on the GPU leaves vram_scans or suspended_ns out, and its
 * entry has them.
 *
 * A file that does not parse is refused with the line and the reason:
 * nothing is guessed.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "../lib/parse.h"

#define STATE_MAGIC	"vgpu-account-state 1"

/** vgpuctl_acct_state_find() - the entry of (@tenant, @gpu), or NULL. */
struct vgpu_acct_entry *vgpuctl_acct_state_find(const struct vgpu_acct_state *st,
						uint32_t tenant, uint32_t gpu)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (st->v[i].tenant == tenant && st->v[i].gpu == gpu)
			return &st->v[i];
	return NULL;
}

/** vgpuctl_acct_state_add() - a new zeroed entry, or NULL when out of memory. */
struct vgpu_acct_entry *vgpuctl_acct_state_add(struct vgpu_acct_state *st)
{
	if (st->n == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 16;
		struct vgpu_acct_entry *v = realloc(st->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		st->v = v;
		st->cap = cap;
	}
	memset(&st->v[st->n], 0, sizeof(st->v[0]));
	return &st->v[st->n++];
}

/** vgpuctl_acct_state_del() - remove entry @e (the last one takes its place). */
void vgpuctl_acct_state_del(struct vgpu_acct_state *st, struct vgpu_acct_entry *e)
{
	*e = st->v[--st->n];
}

/** vgpuctl_acct_state_free() - free the entries and empty @st. */
void vgpuctl_acct_state_free(struct vgpu_acct_state *st)
{
	free(st->v);
	memset(st, 0, sizeof(*st));
}

/*
 * The counters of an entry line: 13 (SUSPENDED last), or 12 (SCANS last)
 * or 11 of an older vgpuctl.
 */
static int parse_counters(const char *line, struct vgpu_acct_entry *e, char *name, char *uuid)
{
	int end = 0;

	if (sscanf(line, "entry %" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %64s %41s%n", &e->tenant, &e->gpu, &e->end_ns,
		   &e->created, &e->c.gpu_time_ns, &e->c.throttled_ns, &e->c.grants,
		   &e->c.vram_byte_seconds, &e->c.vram_reserved_byte_seconds, &e->c.vram_failures,
		   &e->c.vram_overdrafts, &e->c.vram_scans, &e->c.suspended_ns, name, uuid,
		   &end) == 15 && !line[end])
		return 0;
	end = 0;
	e->c.suspended_ns = 0;
	e->c.no_suspended = true;
	if (sscanf(line, "entry %" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %64s %41s%n", &e->tenant, &e->gpu, &e->end_ns, &e->created,
		   &e->c.gpu_time_ns, &e->c.throttled_ns, &e->c.grants, &e->c.vram_byte_seconds,
		   &e->c.vram_reserved_byte_seconds, &e->c.vram_failures, &e->c.vram_overdrafts,
		   &e->c.vram_scans, name, uuid, &end) == 14 && !line[end])
		return 0;
	end = 0;
	e->c.vram_scans = 0;
	e->c.no_scans = true;
	if (sscanf(line, "entry %" SCNu32 " %" SCNu32 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %64s %41s%n", &e->tenant, &e->gpu, &e->end_ns, &e->created,
		   &e->c.gpu_time_ns, &e->c.throttled_ns, &e->c.grants, &e->c.vram_byte_seconds,
		   &e->c.vram_reserved_byte_seconds, &e->c.vram_failures, &e->c.vram_overdrafts,
		   name, uuid, &end) == 13 && !line[end])
		return 0;
	return -1;
}

static int parse_entry(const char *line, struct vgpu_acct_state *st)
{
	struct vgpu_acct_entry e = { 0 };
	char name[VGPU_NAME_LEN_MAX + 2], uuid[VGPU_UUID_LEN + 2];
	struct vgpu_acct_entry *n;

	if (parse_counters(line, &e, name, uuid) || vgpuctl_parse_name(name) ||
	    e.gpu >= VGPU_GPU_MAX || strlen(uuid) > VGPU_UUID_LEN)
		return -1;
	if (vgpuctl_acct_state_find(st, e.tenant, e.gpu))
		return -1;
	memcpy(e.name, name, strlen(name) + 1);	/* a valid NAME: at most 63 bytes */
	if (strcmp(uuid, "-"))
		memcpy(e.uuid, uuid, strlen(uuid) + 1);
	n = vgpuctl_acct_state_add(st);
	if (!n)
		return -1;
	*n = e;
	return 0;
}

static int parse_line(const char *line, struct vgpu_acct_state *st)
{
	struct vgpu_acct_pending *p = &st->pending;
	int end = 0;

	if (!strncmp(line, "entry ", 6))
		return parse_entry(line, st);
	if (sscanf(line, "instance %16" SCNx64 "%n", &st->instance, &end) == 1 && !line[end] &&
	    end == 25 && !st->has_instance) {
		st->has_instance = true;
		return 0;
	}
	if (sscanf(line, "cycle %" SCNu64 "%n", &st->cycle, &end) == 1 && !line[end])
		return 0;
	if (sscanf(line, "final-seq %" SCNu64 "%n", &st->final_seq, &end) == 1 && !line[end])
		return 0;
	if (sscanf(line, "pending %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 "%n",
		   &p->offset, &p->len, &p->dev, &p->ino, &end) == 4 && !line[end]) {
		p->set = true;
		return 0;
	}
	return -1;
}

/**
 * vgpuctl_acct_state_parse() - read a state file's text
 * @text: the file, NUL-terminated
 * @st: filled in (empty first); free it with vgpuctl_acct_state_free()
 * @why: out: the line that did not parse
 * @whylen: its size
 *
 * Return: 0, or -1 with @why set.
 */
int vgpuctl_acct_state_parse(const char *text, struct vgpu_acct_state *st,
			     char *why, size_t whylen)
{
	const char *p = text, *nl;
	char line[512];
	unsigned int no = 0;

	memset(st, 0, sizeof(*st));
	while (*p) {
		size_t len;

		nl = strchr(p, '\n');
		if (!nl) {
			snprintf(why, whylen, "line %u has no end (a truncated file)", no + 1);
			return -1;
		}
		len = (size_t)(nl - p);
		no++;
		if (len >= sizeof(line)) {
			snprintf(why, whylen, "line %u is too long", no);
			return -1;
		}
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl + 1;
		if (no == 1 ? strcmp(line, STATE_MAGIC) : parse_line(line, st)) {
			snprintf(why, whylen, "line %u is not valid: \"%.60s\"", no, line);
			vgpuctl_acct_state_free(st);
			return -1;
		}
	}
	if (!no) {
		snprintf(why, whylen, "the file is empty");
		return -1;
	}
	return 0;
}

/**
 * vgpuctl_acct_state_format() - the text of a state file
 * @st: the state
 * @len: out: its length
 *
 * Return: the text (free() it), or NULL when out of memory.
 */
char *vgpuctl_acct_state_format(const struct vgpu_acct_state *st, size_t *len)
{
	const struct vgpu_acct_pending *p = &st->pending;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	size_t i;

	if (!f)
		return NULL;
	fprintf(f, "%s\n", STATE_MAGIC);
	if (st->has_instance)
		fprintf(f, "instance %016" PRIx64 "\n", st->instance);
	fprintf(f, "cycle %" PRIu64 "\nfinal-seq %" PRIu64 "\n", st->cycle, st->final_seq);
	if (p->set)
		fprintf(f, "pending %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			p->offset, p->len, p->dev, p->ino);
	for (i = 0; i < st->n; i++) {
		const struct vgpu_acct_entry *e = &st->v[i];

		fprintf(f, "entry %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			" %" PRIu64 " %" PRIu64 " %s %s\n", e->tenant, e->gpu, e->end_ns, e->created,
			e->c.gpu_time_ns, e->c.throttled_ns, e->c.grants, e->c.vram_byte_seconds,
			e->c.vram_reserved_byte_seconds, e->c.vram_failures, e->c.vram_overdrafts,
			e->c.vram_scans, e->c.suspended_ns, e->name, e->uuid[0] ? e->uuid : "-");
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}
