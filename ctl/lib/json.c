// SPDX-License-Identifier: GPL-2.0
/*
 * A small streaming JSON writer (see json.h). A top-level value is
 * followed by a newline when it closes, so that each one is a line of its
 * own in compact mode (vgpuctl monitor -j prints one object per line).
 */
#include <math.h>

#include "json.h"

/**
 * vgpuctl_json_init() - start a writer
 * @j: the writer
 * @f: where the text goes
 * @pretty: indent by two spaces, one member per line
 */
void vgpuctl_json_init(struct vgpu_json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->pretty = pretty;
	j->depth = 0;
	j->has_members[0] = false;
}

static void indent(struct vgpu_json *j)
{
	int i;

	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator, indentation and key of the next member. */
static void member(struct vgpu_json *j, const char *key)
{
	if (j->depth) {
		if (j->has_members[j->depth])
			fputc(',', j->f);
		j->has_members[j->depth] = true;
		indent(j);
	}
	if (key) {
		vgpuctl_json_escape(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

/* Newline after a complete top-level value. */
static void value_done(struct vgpu_json *j)
{
	if (!j->depth)
		fputc('\n', j->f);
}

/**
 * vgpuctl_json_escape() - write a JSON string literal, quotes included
 * @f: the stream
 * @s: bytes (UTF-8 passes through; control characters are escaped)
 */
void vgpuctl_json_escape(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(f, "\\u%04x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

static void open_container(struct vgpu_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < VGPU_JSON_DEPTH_MAX)
		j->depth++;
	j->has_members[j->depth] = false;
}

static void close_container(struct vgpu_json *j, char c)
{
	bool had = j->has_members[j->depth];

	if (j->depth)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
	value_done(j);
}

/** vgpuctl_json_obj_open() - open an object (@key NULL inside arrays). */
void vgpuctl_json_obj_open(struct vgpu_json *j, const char *key)
{
	open_container(j, key, '{');
}

/** vgpuctl_json_obj_close() - close the innermost object. */
void vgpuctl_json_obj_close(struct vgpu_json *j)
{
	close_container(j, '}');
}

/** vgpuctl_json_arr_open() - open an array (@key NULL inside arrays). */
void vgpuctl_json_arr_open(struct vgpu_json *j, const char *key)
{
	open_container(j, key, '[');
}

/** vgpuctl_json_arr_close() - close the innermost array. */
void vgpuctl_json_arr_close(struct vgpu_json *j)
{
	close_container(j, ']');
}

/** vgpuctl_json_str() - a string member; @val NULL writes null. */
void vgpuctl_json_str(struct vgpu_json *j, const char *key, const char *val)
{
	member(j, key);
	if (val)
		vgpuctl_json_escape(j->f, val);
	else
		fputs("null", j->f);
	value_done(j);
}

/** vgpuctl_json_u64() - an unsigned integer member. */
void vgpuctl_json_u64(struct vgpu_json *j, const char *key, uint64_t val)
{
	member(j, key);
	fprintf(j->f, "%llu", (unsigned long long)val);
	value_done(j);
}

/** vgpuctl_json_s64() - a signed integer member. */
void vgpuctl_json_s64(struct vgpu_json *j, const char *key, int64_t val)
{
	member(j, key);
	fprintf(j->f, "%lld", (long long)val);
	value_done(j);
}

/**
 * vgpuctl_json_fixed() - a number member with @decimals digits after the point
 *
 * Not finite values (which JSON cannot write) are written as null.
 */
void vgpuctl_json_fixed(struct vgpu_json *j, const char *key, double val, int decimals)
{
	member(j, key);
	if (isfinite(val))
		fprintf(j->f, "%.*f", decimals, val);
	else
		fputs("null", j->f);
	value_done(j);
}

/** vgpuctl_json_bool() - a true/false member. */
void vgpuctl_json_bool(struct vgpu_json *j, const char *key, bool val)
{
	member(j, key);
	fputs(val ? "true" : "false", j->f);
	value_done(j);
}

/** vgpuctl_json_null() - a null member. */
void vgpuctl_json_null(struct vgpu_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
	value_done(j);
}
