// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of vgpuctl's list parser (ctl/lib/parse.c,
 * vgpuctl_parse_list(): cpulists "0-3,8", the cpus and mems of tenant add,
 * and GPU lists). Checks, beyond the sanitizers:
 * - it agrees with a second, plain reading of the grammar (ITEM[,ITEM]...,
 *   ITEM a number or an ascending range, none above the limit);
 * - vgpuctl_format_list() of the bitmap parses back to the same bitmap,
 *   and vgpuctl_parse_list_norm() of that canonical form is itself;
 * - vgpuctl_parse_gpus() is the list with 63 as its limit.
 */
#include <stdbool.h>

#include "../../ctl/lib/parse.h"
#include "fuzz.h"

#define WORDS	VGPU_LIST_WORDS

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* One number; false for none, or past 10^9 (above any limit). */
static bool number(const char **s, unsigned long *v)
{
	const char *start = *s;
	bool big = false;

	*v = 0;
	for (; digit(**s); (*s)++) {
		*v = *v * 10 + (unsigned int)(**s - '0');
		if (*v > 1000000000UL) {
			big = true;
			*v = 0;
		}
	}
	return *s > start && !big;
}

/* The oracle: true and @bits, or false for a list the grammar refuses. */
static bool oracle(const char *s, unsigned long max, uint64_t *bits)
{
	unsigned long a, b, i;

	memset(bits, 0, WORDS * sizeof(*bits));
	for (;;) {
		if (!number(&s, &a))
			return false;
		b = a;
		if (*s == '-' && (s++, !number(&s, &b)))
			return false;
		if (a > b || b > max)
			return false;
		for (i = a; i <= b; i++)
			bits[i / 64] |= 1ULL << (i % 64);
		if (!*s)
			return true;
		if (*s++ != ',')
			return false;
	}
}

FUZZ_QUIET_INITIALIZE

/* The bitmap @bits round-trips through its canonical form. */
static void round_trip(const char *s, const uint64_t *bits)
{
	static char out[48000], norm[48000];
	uint64_t back[WORDS];

	FUZZ_CHECK(!vgpuctl_format_list(bits, WORDS, out, sizeof(out)), "\"%s\": no room to print it", s);
	FUZZ_CHECK(!vgpuctl_parse_list(out, VGPU_LIST_CPU_MAX, back, WORDS) &&
		   !memcmp(back, bits, sizeof(back)), "\"%s\" prints as \"%s\", another list", s, out);
	FUZZ_CHECK(!vgpuctl_parse_list_norm(out, VGPU_LIST_CPU_MAX, norm, sizeof(norm)) &&
		   !strcmp(norm, out), "\"%s\" is canonical, but normalises to \"%s\"", out, norm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	uint64_t bits[WORDS], want[WORDS], mask = 0x5a5a;
	bool ok = !vgpuctl_parse_list(s, VGPU_LIST_CPU_MAX, bits, WORDS);
	bool good = oracle(s, VGPU_LIST_CPU_MAX, want);

	FUZZ_CHECK(ok == good, "\"%s\": parse %s, the grammar %s", s, ok ? "took it" : "refused it",
		   good ? "takes it" : "refuses it");
	if (ok) {
		FUZZ_CHECK(!memcmp(bits, want, sizeof(bits)), "\"%s\": another set of numbers", s);
		round_trip(s, bits);
	}
	ok = !vgpuctl_parse_gpus(s, &mask);
	good = oracle(s, VGPU_GPU_MAX - 1, want);
	FUZZ_CHECK(ok == good, "\"%s\" as GPUs: parse %s, the grammar %s", s,
		   ok ? "took it" : "refused it", good ? "takes it" : "refuses it");
	FUZZ_CHECK(ok ? mask == want[0] : mask == 0x5a5a, "\"%s\" as GPUs: mask %llx", s,
		   (unsigned long long)mask);
	free(s);
	return 0;
}
