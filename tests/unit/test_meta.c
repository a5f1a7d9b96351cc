// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl's label and time parsers (ctl/lib/parse_meta.c): the
 * label key and value rules vgpu.ko also applies (label.c), their size
 * limits, "KEY=VALUE" splitting, and UTC time formatting. One line per
 * check: "PASS: meta: <what>" or "FAIL: meta: <what>: <detail>". Exits 1
 * if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE tests/unit/test_meta.c ctl/lib/parse_meta.c
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../ctl/lib/parse.h"
#include "../../uapi/vgpu.h"

#define VGPU_UNIT_SUITE "meta"
#include "result.h"

/* A string of @n copies of @c (n < 1024). */
static const char *rep(char c, size_t n)
{
	static char buf[4][1024];
	static int i;
	char *b = buf[i++ % 4];

	memset(b, c, n);
	b[n] = '\0';
	return b;
}

static void key_case(const char *key, bool want)
{
	char what[160];

	snprintf(what, sizeof(what), "key \"%.80s\"%s %s", key, strlen(key) > 80 ? "..." : "",
		 want ? "is valid" : "is rejected");
	result(vgpuctl_label_key_ok(key) == want, what, "got %d", !want);
}

static void value_case(const char *value, bool want)
{
	char what[160];

	snprintf(what, sizeof(what), "value \"%.60s\"%s (%zu bytes) %s", value,
		 strlen(value) > 60 ? "..." : "", strlen(value), want ? "is valid" : "is rejected");
	result(vgpuctl_label_value_ok(value) == want, what, "got %d", !want);
}

static void test_keys(void)
{
	static const char *const good[] = {
		"a", "A", "0", "team", "app.kubernetes.io/name", "io.kubernetes.cri.sandbox-id",
		"a_b", "a-b", "a.b", "a/b", "9lives", "x-",
	};
	static const char *const bad[] = {
		"", "-a", ".a", "/a", "_a", "a b", "a=b", "a:b", "é", "a\tb", "a\n", "a\"b",
		"a\\b", "a,b", "a*",
	};
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		key_case(good[i], true);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		key_case(bad[i], false);
	key_case(rep('k', VGPU_LABEL_KEY_LEN_MAX), true);
	key_case(rep('k', VGPU_LABEL_KEY_LEN_MAX + 1), false);
}

static void test_values(void)
{
	static const char *const good[] = {
		"", "v", "hello world", "a=b=c", "\"quoted\" \\ back", "~!@#$%^&*()", " ",
	};
	static const char *const bad[] = { "\t", "a\nb", "\x7f", "caf\xc3\xa9", "\x01" };
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		value_case(good[i], true);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		value_case(bad[i], false);
	value_case(rep('v', VGPU_LABEL_VALUE_LEN_MAX), true);
	value_case(rep('v', VGPU_LABEL_VALUE_LEN_MAX + 1), false);
}

static void split_case(const char *arg, int want, const char *wkey, const char *wvalue)
{
	char key[VGPU_LABEL_KEY_LEN_MAX + 1] = "untouched";
	char value[VGPU_LABEL_VALUE_LEN_MAX + 1] = "untouched";
	char what[160];
	int r = vgpuctl_parse_label(arg, key, value);

	snprintf(what, sizeof(what), "label \"%.60s\"%s %s", arg, strlen(arg) > 60 ? "..." : "",
		 want ? "is rejected" : "splits");
	if (want)
		result(r == want && !strcmp(key, "untouched") && !strcmp(value, "untouched"),
		       what, "returned %d (want %d), key \"%s\", value \"%s\"", r, want, key,
		       value);
	else
		result(!r && !strcmp(key, wkey) && !strcmp(value, wvalue), what,
		       "returned %d, key \"%s\", value \"%s\"", r, key, value);
}

static void test_split(void)
{
	char arg[600];

	split_case("team=ml", 0, "team", "ml");
	split_case("team=", 0, "team", "");
	split_case("a=b=c", 0, "a", "b=c");
	split_case("app.kubernetes.io/name=my app", 0, "app.kubernetes.io/name", "my app");
	split_case("team", -1, NULL, NULL);
	split_case("=ml", -1, NULL, NULL);
	split_case("", -1, NULL, NULL);
	split_case("-x=1", -1, NULL, NULL);
	split_case("a b=1", -1, NULL, NULL);
	split_case("k=tab\there", -2, NULL, NULL);
	snprintf(arg, sizeof(arg), "%s=v", rep('k', VGPU_LABEL_KEY_LEN_MAX));
	split_case(arg, 0, rep('k', VGPU_LABEL_KEY_LEN_MAX), "v");
	snprintf(arg, sizeof(arg), "%s=v", rep('k', VGPU_LABEL_KEY_LEN_MAX + 1));
	split_case(arg, -1, NULL, NULL);
	snprintf(arg, sizeof(arg), "k=%s", rep('v', VGPU_LABEL_VALUE_LEN_MAX));
	split_case(arg, 0, "k", rep('v', VGPU_LABEL_VALUE_LEN_MAX));
	snprintf(arg, sizeof(arg), "k=%s", rep('v', VGPU_LABEL_VALUE_LEN_MAX + 1));
	split_case(arg, -2, NULL, NULL);
}

static void time_case(uint64_t ns, const char *want)
{
	char out[48], what[96];

	vgpuctl_format_time(ns, out, sizeof(out));
	snprintf(what, sizeof(what), "time %llu is %s", (unsigned long long)ns, want);
	result(!strcmp(out, want), what, "got \"%s\"", out);
}

int main(void)
{
	test_keys();
	test_values();
	test_split();
	time_case(0, "1970-01-01T00:00:00.000Z");
	time_case(1795526476276907190ULL, "2026-11-24T13:21:16.276Z");
	time_case(999999999ULL, "1970-01-01T00:00:00.999Z");
	return failures ? 1 : 0;
}
