// SPDX-License-Identifier: GPL-2.0
/*
 * The one print path of vgpuctl (see print.h).
 */
#include <stdio.h>

#include "json.h"
#include "parse.h"
#include "print.h"

static struct {
	FILE *f;
	bool json;
	struct vgpu_json j;
	bool line_started;	/* plain: a word is already on this line */
	bool list_pending;	/* JSON: the array is due before the next object */
	bool list_open;		/* JSON: the array has been opened */
} pr;

/**
 * vgpuctl_print_init() - choose the output format of stdout
 * @json: JSON instead of plain lines
 * @pretty: indent the JSON
 */
void vgpuctl_print_init(bool json, bool pretty)
{
	pr.f = stdout;
	pr.json = json;
	vgpuctl_json_init(&pr.j, stdout, pretty);
	pr.line_started = false;
}

/**
 * vgpuctl_print_set_file() - send the output somewhere else than stdout
 * @f: a stream (a memory stream while a dump may still be retried)
 */
void vgpuctl_print_set_file(FILE *f)
{
	pr.f = f;
	pr.j.f = f;
}

/** vgpuctl_print_file() - where the output goes now. */
FILE *vgpuctl_print_file(void)
{
	return pr.f;
}

/** vgpuctl_print_json() - whether output is JSON. */
bool vgpuctl_print_json(void)
{
	return pr.json;
}

/**
 * vgpuctl_print_list_open() - start the array of a show command (JSON only)
 *
 * The "[" is written with the first object, so that a request that fails
 * before any reply prints nothing on stdout.
 */
void vgpuctl_print_list_open(void)
{
	pr.list_pending = pr.json;
	pr.list_open = false;
}

/**
 * vgpuctl_print_list_close() - end the array of a show command
 * @ok: the request succeeded (an empty array is printed if it had no reply)
 */
void vgpuctl_print_list_close(bool ok)
{
	if (pr.list_pending && ok) {
		vgpuctl_json_arr_open(&pr.j, NULL);
		pr.list_open = true;
	}
	if (pr.list_open)
		vgpuctl_json_arr_close(&pr.j);
	pr.list_pending = false;
	pr.list_open = false;
	fflush(pr.f);
}

/** vgpuctl_print_obj_open() - start an object (JSON) or a line (plain). */
void vgpuctl_print_obj_open(const char *jkey)
{
	if (!pr.json)
		return;
	if (pr.list_pending) {
		vgpuctl_json_arr_open(&pr.j, NULL);
		pr.list_pending = false;
		pr.list_open = true;
	}
	vgpuctl_json_obj_open(&pr.j, jkey);
}

/** vgpuctl_print_obj_close() - end the object or the line. */
void vgpuctl_print_obj_close(void)
{
	if (pr.json) {
		vgpuctl_json_obj_close(&pr.j);
	} else {
		fputc('\n', pr.f);
		pr.line_started = false;
	}
}

/**
 * vgpuctl_print_arr_open() - start an array member of the current object
 * @jkey: its key
 *
 * JSON only; plain output has no arrays (see vgpuctl_print_sub_open()).
 */
void vgpuctl_print_arr_open(const char *jkey)
{
	if (pr.json)
		vgpuctl_json_arr_open(&pr.j, jkey);
}

/** vgpuctl_print_arr_close() - end the array (JSON only). */
void vgpuctl_print_arr_close(void)
{
	if (pr.json)
		vgpuctl_json_arr_close(&pr.j);
}

/**
 * vgpuctl_print_sub_open() - start an element of an array of objects
 * @indent: plain output: the element goes on a line of its own, after the
 *          current one, starting with @indent
 *
 * JSON: an object in the array opened by vgpuctl_print_arr_open(). The line
 * of the last element is ended by vgpuctl_print_obj_close().
 */
void vgpuctl_print_sub_open(const char *indent)
{
	if (pr.json) {
		vgpuctl_json_obj_open(&pr.j, NULL);
		return;
	}
	fputc('\n', pr.f);
	fputs(indent, pr.f);
	pr.line_started = false;
}

/** vgpuctl_print_sub_close() - end the element. */
void vgpuctl_print_sub_close(void)
{
	if (pr.json)
		vgpuctl_json_obj_close(&pr.j);
}

/**
 * vgpuctl_print_event_open() - start a monitor event
 * @event: "gpu-add", "tenant-new", ...
 * @jkey: key of the object that follows ("gpu", "tenant")
 *
 * JSON: {"event":"gpu-add","gpu":{ ... Plain: "[gpu-add] " ...
 */
void vgpuctl_print_event_open(const char *event, const char *jkey)
{
	if (pr.json) {
		vgpuctl_json_obj_open(&pr.j, NULL);
		vgpuctl_json_str(&pr.j, "event", event);
		vgpuctl_json_obj_open(&pr.j, jkey);
	} else {
		fprintf(pr.f, "[%s]", event);
		pr.line_started = true;
	}
}

/** vgpuctl_print_event_close() - end a monitor event, one line, flushed. */
void vgpuctl_print_event_close(void)
{
	if (pr.json) {
		vgpuctl_json_obj_close(&pr.j);
		vgpuctl_json_obj_close(&pr.j);
	} else {
		fputc('\n', pr.f);
		pr.line_started = false;
	}
	fflush(pr.f);
}

/* Plain: the separator and key before a value. */
static void plain_key(const char *pkey)
{
	if (pr.line_started)
		fputc(' ', pr.f);
	pr.line_started = true;
	if (pkey)
		fprintf(pr.f, "%s ", pkey);
}

/* Plain: a string with anything unprintable shown as \xNN. */
static void plain_str(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			fprintf(pr.f, "\\x%02x", c);
		else
			fputc(c, pr.f);
	}
}

/** vgpuctl_print_str() - a string value; @val NULL is absent. */
void vgpuctl_print_str(const char *jkey, const char *pkey, const char *val)
{
	if (pr.json) {
		vgpuctl_json_str(&pr.j, jkey, val);
	} else if (val) {
		plain_key(pkey);
		plain_str(val);
	}
}

/** vgpuctl_print_u64() - an unsigned integer value, absent unless @has. */
void vgpuctl_print_u64(const char *jkey, const char *pkey, bool has, uint64_t val)
{
	if (pr.json) {
		if (has)
			vgpuctl_json_u64(&pr.j, jkey, val);
		else
			vgpuctl_json_null(&pr.j, jkey);
	} else if (has) {
		plain_key(pkey);
		fprintf(pr.f, "%llu", (unsigned long long)val);
	}
}

/** vgpuctl_print_s64() - a signed integer value, absent unless @has. */
void vgpuctl_print_s64(const char *jkey, const char *pkey, bool has, int64_t val)
{
	if (pr.json) {
		if (has)
			vgpuctl_json_s64(&pr.j, jkey, val);
		else
			vgpuctl_json_null(&pr.j, jkey);
	} else if (has) {
		plain_key(pkey);
		fprintf(pr.f, "%lld", (long long)val);
	}
}

/** vgpuctl_print_size() - bytes: an integer in JSON, "16GiB" in plain. */
void vgpuctl_print_size(const char *jkey, const char *pkey, bool has, uint64_t val)
{
	char buf[32];

	if (pr.json) {
		vgpuctl_print_u64(jkey, pkey, has, val);
	} else if (has) {
		vgpuctl_format_size(val, buf, sizeof(buf));
		plain_key(pkey);
		fputs(buf, pr.f);
	}
}

/** vgpuctl_print_pct() - basis points: an integer in JSON, "37.5%" in plain. */
void vgpuctl_print_pct(const char *jkey, const char *pkey, bool has, uint32_t bp)
{
	char buf[16];

	if (pr.json) {
		vgpuctl_print_u64(jkey, pkey, has, bp);
	} else if (has) {
		vgpuctl_format_pct(bp, buf, sizeof(buf));
		plain_key(pkey);
		fputs(buf, pr.f);
	}
}

/** vgpuctl_print_mask() - GPU bit mask: array of indexes in JSON, "0-1,3" in plain. */
void vgpuctl_print_mask(const char *jkey, const char *pkey, bool has, uint64_t mask)
{
	char buf[256];
	unsigned int i;

	if (pr.json) {
		if (!has) {
			vgpuctl_json_null(&pr.j, jkey);
			return;
		}
		vgpuctl_json_arr_open(&pr.j, jkey);
		for (i = 0; i < 64; i++)
			if (mask & (1ULL << i))
				vgpuctl_json_u64(&pr.j, NULL, i);
		vgpuctl_json_arr_close(&pr.j);
	} else if (has) {
		vgpuctl_format_list(&mask, 1, buf, sizeof(buf));
		plain_key(pkey);
		fputs(mask ? buf : "(none)", pr.f);
	}
}

/** vgpuctl_print_flag() - a boolean: true/false in JSON, @ptext when true in plain. */
void vgpuctl_print_flag(const char *jkey, const char *ptext, bool val)
{
	if (pr.json) {
		vgpuctl_json_bool(&pr.j, jkey, val);
	} else if (val) {
		plain_key(NULL);
		fputs(ptext, pr.f);
	}
}

/** vgpuctl_print_ns() - nanoseconds: an integer in JSON, "1.234s" in plain. */
void vgpuctl_print_ns(const char *jkey, const char *pkey, bool has, uint64_t ns)
{
	char buf[32];

	if (pr.json) {
		vgpuctl_print_u64(jkey, pkey, has, ns);
	} else if (has) {
		vgpuctl_format_ns(ns, buf, sizeof(buf));
		plain_key(pkey);
		fputs(buf, pr.f);
	}
}

/**
 * vgpuctl_print_fixed() - a decimal number with @decimals digits after the point
 * @jkey: JSON key (a number there, without @unit)
 * @pkey: plain key
 * @has: absent unless set
 * @val: the value
 * @decimals: digits after the point, 0 to 9
 * @unit: plain only, appended to the number ("%", "s"), or NULL
 */
void vgpuctl_print_fixed(const char *jkey, const char *pkey, bool has, double val,
			 int decimals, const char *unit)
{
	if (pr.json) {
		if (has)
			vgpuctl_json_fixed(&pr.j, jkey, val, decimals);
		else
			vgpuctl_json_null(&pr.j, jkey);
	} else if (has) {
		plain_key(pkey);
		fprintf(pr.f, "%.*f%s", decimals, val, unit ? unit : "");
	}
}

/**
 * vgpuctl_print_map_open() - start an object member whose keys are data
 * @jkey: its key ("labels")
 *
 * JSON only; in plain output its members are words of the current line.
 */
void vgpuctl_print_map_open(const char *jkey)
{
	if (pr.json)
		vgpuctl_json_obj_open(&pr.j, jkey);
}

/** vgpuctl_print_map_close() - end the member object (JSON only). */
void vgpuctl_print_map_close(void)
{
	if (pr.json)
		vgpuctl_json_obj_close(&pr.j);
}

/**
 * vgpuctl_print_label() - one label: "key":"value" in the map opened by
 *	vgpuctl_print_map_open(), "label key=value" in plain output
 * @key: label key
 * @value: label value
 */
void vgpuctl_print_label(const char *key, const char *value)
{
	if (pr.json) {
		vgpuctl_json_str(&pr.j, key, value);
		return;
	}
	plain_key("label");
	plain_str(key);
	fputc('=', pr.f);
	plain_str(value);
}

/**
 * vgpuctl_print_time() - a time in ns since the epoch: an integer in
 *	JSON, UTC to the millisecond in plain ("2026-11-24T13:08:48.123Z")
 */
void vgpuctl_print_time(const char *jkey, const char *pkey, bool has, uint64_t ns)
{
	char buf[48];

	if (pr.json) {
		vgpuctl_print_u64(jkey, pkey, has, ns);
	} else if (has) {
		vgpuctl_format_time(ns, buf, sizeof(buf));
		plain_key(pkey);
		fputs(buf, pr.f);
	}
}

/**
 * vgpuctl_print_hex64() - an identifier: 16 hex digits, a string in JSON
 *	(a u64 does not survive JSON readers that use doubles)
 */
void vgpuctl_print_hex64(const char *jkey, const char *pkey, bool has, uint64_t val)
{
	char buf[17];

	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)val);
	vgpuctl_print_str(jkey, pkey, has ? buf : NULL);
}
