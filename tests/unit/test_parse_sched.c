// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the scheduling and placement parsers of vgpuctl
 * (ctl/lib/parse_sched.c). One line per check: "PASS: parse_sched: <what>" or
 * "FAIL: parse_sched: <what>: <detail>". Exits 1 if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE tests/unit/test_parse_sched.c ctl/lib/parse_sched.c
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../../ctl/lib/parse.h"
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

static void ms_case(const char *s, uint32_t max, int want_ret, uint32_t want)
{
	char what[128];
	uint32_t v = 12345;
	int r = vgpuctl_parse_ms(s, max, &v);

	snprintf(what, sizeof(what), "ms \"%s\" (max %" PRIu32 ") %s", s, max,
		 want_ret ? "is rejected" : "parses");
	result(r == want_ret && v == (want_ret ? 12345 : want), what,
	       "returned %d, value %" PRIu32, r, v);
}

/* vram-wait's SECS: zero is a value, the maximum is the caller's. */
static void test_ms(void)
{
	static const char *const bad[] = {
		"", "0.0001", "1.2345", "-1", "+1", ".5", "1.", "1s", "500ms", "2m",
		" 1", "1 ", "1e3", "600.001", "601", "4294967.296", "99999999999999999999",
		"1,5", "0x10", "none",
	};
	size_t i;

	ms_case("0", 600000, 0, 0);
	ms_case("0.000", 600000, 0, 0);
	ms_case("0.001", 600000, 0, 1);
	ms_case("0.5", 600000, 0, 500);
	ms_case("30", 600000, 0, 30000);
	ms_case("2.25", 600000, 0, 2250);
	ms_case("600", 600000, 0, 600000);
	ms_case("600.000", 600000, 0, 600000);
	ms_case("4294967.295", UINT32_MAX, 0, UINT32_MAX);
	ms_case("1", 999, -1, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ms_case(bad[i], 600000, -1, 0);
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

/* gpu-policy and GPU state names: the spec's, exactly; bad ones untouched. */
static void test_gpu_enums(void)
{
	static const char *const bad[] = { "", "Binpack", "spread ", "pack", "0", "healthy" };
	static const char *const bad_state[] = { "", "Healthy", "drain", "ok", "1", "binpack" };
	uint32_t v;
	size_t i;

	v = 77;
	result(!vgpuctl_parse_gpu_policy("binpack", &v) && v == VGPU_GPU_POLICY_BINPACK,
	       "gpu-policy \"binpack\" parses", "value %u", v);
	result(!vgpuctl_parse_gpu_policy("spread", &v) && v == VGPU_GPU_POLICY_SPREAD,
	       "gpu-policy \"spread\" parses", "value %u", v);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[64];

		v = 77;
		snprintf(what, sizeof(what), "gpu-policy \"%s\" is rejected", bad[i]);
		result(vgpuctl_parse_gpu_policy(bad[i], &v) && v == 77, what, "value %u", v);
	}
	v = 77;
	result(!vgpuctl_parse_gpu_state("draining", &v) && v == VGPU_GPU_STATE_DRAINING,
	       "state \"draining\" parses", "value %u", v);
	result(!vgpuctl_parse_gpu_state("unhealthy", &v) && v == VGPU_GPU_STATE_UNHEALTHY,
	       "state \"unhealthy\" parses", "value %u", v);
	result(!vgpuctl_parse_gpu_state("healthy", &v) && v == VGPU_GPU_STATE_HEALTHY,
	       "state \"healthy\" parses", "value %u", v);
	for (i = 0; i < sizeof(bad_state) / sizeof(bad_state[0]); i++) {
		char what[64];

		v = 77;
		snprintf(what, sizeof(what), "state \"%s\" is rejected", bad_state[i]);
		result(vgpuctl_parse_gpu_state(bad_state[i], &v) && v == 77, what, "value %u", v);
	}
	result(!strcmp(vgpuctl_gpu_policy_name(VGPU_GPU_POLICY_SPREAD), "spread") &&
	       !vgpuctl_gpu_policy_name(2), "gpu-policy names, NULL past the last", "%s", "wrong answer");
	result(!strcmp(vgpuctl_gpu_state_name(VGPU_GPU_STATE_DRAINING), "draining") &&
	       !vgpuctl_gpu_state_name(3), "state names, NULL past the last", "%s", "wrong answer");
}

/* state-reason: 1-127 printable ASCII bytes, spaces allowed. */
static void test_reason(void)
{
	char long_ok[VGPU_REASON_LEN_MAX + 1], too_long[VGPU_REASON_LEN_MAX + 2];

	memset(long_ok, 'x', sizeof(long_ok) - 1);
	long_ok[sizeof(long_ok) - 1] = '\0';
	memset(too_long, 'x', sizeof(too_long) - 1);
	too_long[sizeof(too_long) - 1] = '\0';
	result(!vgpuctl_parse_reason("fan failure"), "reason with a space is accepted", "%s", "wrong answer");
	result(!vgpuctl_parse_reason("~"), "reason of one character is accepted", "%s", "wrong answer");
	result(!vgpuctl_parse_reason(long_ok), "reason of 127 bytes is accepted", "%s", "wrong answer");
	result(vgpuctl_parse_reason(too_long), "reason of 128 bytes is rejected", "%s", "wrong answer");
	result(vgpuctl_parse_reason(""), "empty reason is rejected", "%s", "wrong answer");
	result(vgpuctl_parse_reason("a\tb"), "reason with a tab is rejected", "%s", "wrong answer");
	result(vgpuctl_parse_reason("caf\xc3\xa9"), "reason with UTF-8 is rejected", "%s", "wrong answer");
}

int main(void)
{
	test_placement();
	test_onoff();
	test_seconds();
	test_ms();
	test_format_ns();
	test_gpu_enums();
	test_reason();
	return failures ? 1 : 0;
}
