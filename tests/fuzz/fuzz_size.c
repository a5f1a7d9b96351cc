// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of vgpuctl's SIZE parser (ctl/lib/parse.c,
 * vgpuctl_parse_size(): "4GiB", "1.5G", "512MiB", "4096"): every input is
 * an argument. Checks, beyond the sanitizers:
 * - it agrees with a second, plain reading of the grammar in 128-bit
 *   arithmetic (DIGITS [. 1-18 DIGITS] SUFFIX, floor of the exact value,
 *   refused past 2^64 - 1);
 * - what vgpuctl_format_size() prints of a value parses back to it, and
 *   prints the same again.
 */
#include <stdbool.h>

#include "../../ctl/lib/parse.h"
#include "fuzz.h"

static const struct { const char *name; unsigned int shift; } suffixes[] = {
	{ "", 0 }, { "B", 0 }, { "K", 10 }, { "Ki", 10 }, { "KiB", 10 }, { "KB", 10 },
	{ "M", 20 }, { "Mi", 20 }, { "MiB", 20 }, { "MB", 20 }, { "G", 30 }, { "Gi", 30 },
	{ "GiB", 30 }, { "GB", 30 }, { "T", 40 }, { "Ti", 40 }, { "TiB", 40 }, { "TB", 40 },
};

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The oracle: true and *out, or false for a SIZE the grammar refuses. */
static bool oracle(const char *s, uint64_t *out)
{
	unsigned __int128 ip = 0, frac = 0, den = 1, v;
	unsigned int nfrac = 0, i;

	if (!digit(*s))
		return false;
	for (; digit(*s); s++) {
		ip = ip * 10 + (unsigned int)(*s - '0');
		if (ip > UINT64_MAX)
			return false;
	}
	if (*s == '.') {
		if (!digit(*++s))
			return false;
		for (; digit(*s); s++, nfrac++) {
			if (nfrac == 18)
				return false;
			frac = frac * 10 + (unsigned int)(*s - '0');
			den *= 10;
		}
	}
	for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		if (strcmp(s, suffixes[i].name))
			continue;
		v = (ip << suffixes[i].shift) + (frac << suffixes[i].shift) / den;
		if (v > UINT64_MAX)
			return false;
		*out = (uint64_t)v;
		return true;
	}
	return false;
}

FUZZ_QUIET_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), out[32], again[32];
	uint64_t v = 0xdeadbeef, want = 0, back = 0;
	bool ok = !vgpuctl_parse_size(s, &v), good = oracle(s, &want);

	FUZZ_CHECK(ok == good, "\"%s\": parse %s, the grammar %s", s, ok ? "took it" : "refused it",
		   good ? "takes it" : "refuses it");
	if (!ok) {
		FUZZ_CHECK(v == 0xdeadbeef, "\"%s\" refused but *out changed", s);
	} else {
		FUZZ_CHECK(v == want, "\"%s\" is %llu, not %llu", s, (unsigned long long)v,
			   (unsigned long long)want);
		vgpuctl_format_size(v, out, sizeof(out));
		FUZZ_CHECK(!vgpuctl_parse_size(out, &back) && back == v,
			   "%llu prints as \"%s\", which parses to %llu", (unsigned long long)v, out,
			   (unsigned long long)back);
		vgpuctl_format_size(back, again, sizeof(again));
		FUZZ_CHECK(!strcmp(out, again), "\"%s\" prints again as \"%s\"", out, again);
	}
	free(s);
	return 0;
}
