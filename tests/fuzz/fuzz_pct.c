// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of vgpuctl's percentage parser (ctl/lib/parse.c,
 * vgpuctl_parse_pct(): "50%", "37.5", "0.01%" into basis points). Checks,
 * beyond the sanitizers:
 * - it agrees with a second reading of the grammar (DIGITS [. 1-2
 *   DIGITS] [%], 0 to 100 %);
 * - what vgpuctl_format_pct() prints parses back to the same basis
 *   points, and prints the same again.
 */
#include <stdbool.h>

#include "../../ctl/lib/parse.h"
#include "fuzz.h"

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The oracle: true and *bp, or false for a percentage the grammar refuses. */
static bool oracle(const char *s, uint32_t *bp)
{
	unsigned long long ip = 0;
	unsigned int frac = 0, nfrac = 0;

	if (!digit(*s))
		return false;
	for (; digit(*s); s++)
		if ((ip = ip * 10 + (unsigned int)(*s - '0')) > 100)
			return false;
	if (*s == '.') {
		if (!digit(*++s))
			return false;
		for (; digit(*s); s++)
			if (++nfrac > 2)
				return false;
			else
				frac = frac * 10 + (unsigned int)(*s - '0');
		if (nfrac == 1)
			frac *= 10;
	}
	if (*s == '%')
		s++;
	if (*s || ip * 100 + frac > 10000)
		return false;
	*bp = (uint32_t)(ip * 100 + frac);
	return true;
}

FUZZ_QUIET_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), out[16], again[16];
	uint32_t bp = 0xdeadbeef, want = 0, back = 0;
	bool ok = !vgpuctl_parse_pct(s, &bp), good = oracle(s, &want);

	FUZZ_CHECK(ok == good, "\"%s\": parse %s, the grammar %s", s, ok ? "took it" : "refused it",
		   good ? "takes it" : "refuses it");
	if (!ok) {
		FUZZ_CHECK(bp == 0xdeadbeef, "\"%s\" refused but *bp changed", s);
	} else {
		FUZZ_CHECK(bp == want, "\"%s\" is %u bp, not %u", s, bp, want);
		vgpuctl_format_pct(bp, out, sizeof(out));
		FUZZ_CHECK(!vgpuctl_parse_pct(out, &back) && back == bp,
			   "%u bp prints as \"%s\", which parses to %u", bp, out, back);
		vgpuctl_format_pct(back, again, sizeof(again));
		FUZZ_CHECK(!strcmp(out, again), "\"%s\" prints again as \"%s\"", out, again);
	}
	free(s);
	return 0;
}
