// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the scheduling and placement parsers of vgpuctl
 * (ctl/parse_sched.c). One line per check: "PASS: parse_sched: <what>" or
 * "FAIL: parse_sched: <what>: <detail>". Exits 1 if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE tests/unit/test_parse_sched.c ctl/parse_sched.c
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../ctl/parse.h"
#include "../../uapi/vgpu.h"

#define VGPU_UNIT_SUITE "parse_sched"
#include "result.h"


static void placement_case(const char *s, int want_ret, uint32_t want)
{
	char what[128];
	uint32_t v = 77;
	int r = vgpuctl_parse_placement(s, &v);

	snprintf(what, sizeof(what), "placement \"%s\" %s", s, want_ret ? "is rejected" : "parses");
	result(r == want_ret && v == (want_ret ? 77 : want), what, "returned %d, value %u", r, v);
}

static void test_placement(void)
{
	static const char *const bad[] = {
		"", "Manual", "AUTO", "auto ", " auto", "automatic", "man", "0", "1", "none",
	};
	size_t i;

	placement_case("manual", 0, VGPU_PLACEMENT_MANUAL);
	placement_case("auto", 0, VGPU_PLACEMENT_AUTO);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		placement_case(bad[i], -1, 0);
	result(!strcmp(vgpuctl_placement_name(VGPU_PLACEMENT_MANUAL), "manual") &&
	       !strcmp(vgpuctl_placement_name(VGPU_PLACEMENT_AUTO), "auto") &&
	       !vgpuctl_placement_name(2), "placement names, NULL when unknown", "mismatch");
}

static void onoff_case(const char *s, int want_ret, bool want)
{
	char what[128];
	bool v = true;
	int r;

	/* Start from the opposite of the answer, to see it written. */
	v = !want;
	r = vgpuctl_parse_onoff(s, &v);
	snprintf(what, sizeof(what), "on/off \"%s\" %s", s, want_ret ? "is rejected" : "parses");
	result(r == want_ret && v == (want_ret ? !want : want), what, "returned %d, value %d",
	       r, v);
}

static void test_onoff(void)
{
	static const char *const bad[] = {
		"", "On", "OFF", "1", "0", "yes", "no", "true", "on ", "o", "none",
	};
	size_t i;

	onoff_case("on", 0, true);
	onoff_case("off", 0, false);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		onoff_case(bad[i], -1, false);
}

static void seconds_case(const char *s, int want_ret, uint64_t want)
{
	char what[128];
	uint64_t v = 12345;
	int r = vgpuctl_parse_seconds(s, &v);

	snprintf(what, sizeof(what), "seconds \"%s\" %s", s, want_ret ? "is rejected" : "parses");
	result(r == want_ret && v == (want_ret ? 12345 : want), what,
	       "returned %d, value %" PRIu64, r, v);
}

static void test_seconds(void)
{
	static const char *const bad[] = {
		"", "0", "0.0", "0.000", "0.0001", "1.2345", "-1", "+1", ".5", "1.", "1s",
		" 1", "1 ", "1e3", "86400.001", "86401", "99999999999999999999", "1,5", "0x10",
	};
	size_t i;

	seconds_case("1", 0, 1000000000ULL);
	seconds_case("0.2", 0, 200000000ULL);
	seconds_case("0.25", 0, 250000000ULL);
	seconds_case("2.500", 0, 2500000000ULL);
	seconds_case("0.001", 0, 1000000ULL);
	seconds_case("007", 0, 7000000000ULL);
	seconds_case("86400", 0, 86400000000000ULL);
	seconds_case("86400.000", 0, 86400000000000ULL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		seconds_case(bad[i], -1, 0);
}

static void ns_case(uint64_t ns, const char *want)
{
	char what[128], buf[32];

	vgpuctl_format_ns(ns, buf, sizeof(buf));
	snprintf(what, sizeof(what), "%" PRIu64 " ns prints as %s", ns, want);
	result(!strcmp(buf, want), what, "got \"%s\"", buf);
}

static void test_format_ns(void)
{
	ns_case(0, "0s");
	ns_case(999999, "0s");
	ns_case(1000000, "0.001s");
	ns_case(500000000, "0.5s");
	ns_case(1234000000, "1.234s");
	ns_case(1234999999, "1.234s");
	ns_case(1230000000, "1.23s");
	ns_case(12000000000ULL, "12s");
	ns_case(60010000000ULL, "60.01s");
	ns_case(UINT64_MAX, "18446744073.709s");
}

int main(void)
{
	test_placement();
	test_onoff();
	test_seconds();
	test_format_ns();
	return failures ? 1 : 0;
}
