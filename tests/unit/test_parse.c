// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl's pure parsers and formatters (ctl/lib/parse.c,
 * parse_id.c, parse_cgroup.c) and of the spec's tables (ctl/lib/spec_gen.h).
 * One line per check: "PASS: parse: <what>" or "FAIL: parse: <what>:
 * <detail>". Exits 1 if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE -I. tests/unit/test_parse.c ctl/lib/parse.c \
 *	ctl/lib/parse_id.c ctl/lib/parse_cgroup.c
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../ctl/lib/parse.h"
#include "../../ctl/lib/spec_gen.h"
#include "../../uapi/vgpu.h"

#define VGPU_UNIT_SUITE "parse"
#include "result.h"


/* SIZE */
static void size_ok(const char *s, uint64_t want)
{
	char what[128];
	uint64_t v = 0;
	int r = vgpuctl_parse_size(s, &v);

	snprintf(what, sizeof(what), "size \"%s\" is %" PRIu64, s, want);
	result(r == 0 && v == want, what, "returned %d, value %" PRIu64, r, v);
}

static void size_bad(const char *s)
{
	char what[128];
	uint64_t v = 12345;
	int r = vgpuctl_parse_size(s, &v);

	snprintf(what, sizeof(what), "size \"%s\" is rejected", s);
	result(r < 0 && v == 12345, what, "returned %d, value %" PRIu64, r, v);
}

static void test_size(void)
{
	static const char *const bad[] = {
		"", " ", "8X", "8 G", " 8G", "8G ", "-1", "-1G", "+1", "G", "8g",
		"8GiBs", "8Gb", "8iB", "1.", ".5G", "1..5G", "1.5.5G", "0x10",
		"16777216T", "16777216TiB", "18446744073709551616",
		"99999999999999999999999", "17179869184G", "1,5G", "1e3",
		"1.1234567890123456789G",
	};
	size_t i;

	size_ok("0", 0);
	size_ok("1", 1);
	size_ok("4096", 4096);
	size_ok("1B", 1);
	size_ok("1K", 1024);
	size_ok("1Ki", 1024);
	size_ok("1KiB", 1024);
	size_ok("1KB", 1024);
	size_ok("512M", 512ULL << 20);
	size_ok("512Mi", 512ULL << 20);
	size_ok("512MiB", 512ULL << 20);
	size_ok("512MB", 512ULL << 20);
	size_ok("8G", 8589934592ULL);
	size_ok("8Gi", 8589934592ULL);
	size_ok("8GiB", 8589934592ULL);
	size_ok("8GB", 8589934592ULL);
	size_ok("2T", 2ULL << 40);
	size_ok("2Ti", 2ULL << 40);
	size_ok("2TiB", 2ULL << 40);
	size_ok("2TB", 2ULL << 40);
	size_ok("1.5G", 1610612736ULL);
	size_ok("0.5K", 512);
	size_ok("1.5", 1);
	size_ok("0.1K", 102);		/* 102.4 rounds down */
	size_ok("0.001K", 1);		/* 1.024 */
	size_ok("0.0009K", 0);		/* 0.9216 */
	size_ok("1.999999999999999999", 1);
	size_ok("0.333333333333333333T", 366503875925ULL);	/* floor(2^40 / 3) */
	size_ok("007G", 7ULL << 30);
	size_ok("18446744073709551615", UINT64_MAX);
	size_ok("16777215T", 16777215ULL << 40);
	size_ok("16777215.999999999999999999T", UINT64_MAX);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		size_bad(bad[i]);
}

/* PCT */
static void pct_ok(const char *s, uint32_t want)
{
	char what[128];
	uint32_t v = 0;
	int r = vgpuctl_parse_pct(s, &v);

	snprintf(what, sizeof(what), "pct \"%s\" is %u bp", s, want);
	result(r == 0 && v == want, what, "returned %d, value %u", r, v);
}

static void pct_bad(const char *s)
{
	char what[128];
	uint32_t v = 777;
	int r = vgpuctl_parse_pct(s, &v);

	snprintf(what, sizeof(what), "pct \"%s\" is rejected", s);
	result(r < 0 && v == 777, what, "returned %d, value %u", r, v);
}

static void test_pct(void)
{
	static const char *const bad[] = {
		"", "%", "-1", "-0.5%", "101", "100.01", "100.5%", "37.555", "37.", ".5",
		"37.5%%", "37.5 %", " 37", "37x", "1e2", "4294967296", "0x10",
		"99999999999999999999",
	};
	size_t i;

	pct_ok("0", 0);
	pct_ok("0%", 0);
	pct_ok("37.5%", 3750);
	pct_ok("37.5", 3750);
	pct_ok("37.25%", 3725);
	pct_ok("0.01", 1);
	pct_ok("0.05%", 5);
	pct_ok("100", 10000);
	pct_ok("100%", 10000);
	pct_ok("100.0", 10000);
	pct_ok("100.00%", 10000);
	pct_ok("50%", 5000);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		pct_bad(bad[i]);
}

/* integers: weight, index, numa */
typedef int (*u32_parser)(const char *, uint32_t *);

static void u32_case(const char *name, u32_parser fn, const char *s, bool ok, uint32_t want)
{
	char what[128];
	uint32_t v = 4242;
	int r = fn(s, &v);

	snprintf(what, sizeof(what), "%s \"%s\" %s", name, s, ok ? "accepted" : "rejected");
	if (ok)
		result(r == 0 && v == want, what, "returned %d, value %u", r, v);
	else
		result(r < 0 && v == 4242, what, "returned %d, value %u", r, v);
}

static void numa_case(const char *s, bool ok, int32_t want)
{
	char what[128];
	int32_t v = 4242;
	int r = vgpuctl_parse_numa(s, &v);

	snprintf(what, sizeof(what), "numa \"%s\" %s", s, ok ? "accepted" : "rejected");
	if (ok)
		result(r == 0 && v == want, what, "returned %d, value %d", r, v);
	else
		result(r < 0 && v == 4242, what, "returned %d, value %d", r, v);
}

static void test_ints(void)
{
	static const char *const junk[] = {
		"", " ", "-1", "+1", "1 ", " 1", "1x", "0x1", "1.0", "4294967296",
		"18446744073709551616",
	};
	size_t i;

	u32_case("weight", vgpuctl_parse_weight, "1", true, 1);
	u32_case("weight", vgpuctl_parse_weight, "100", true, 100);
	u32_case("weight", vgpuctl_parse_weight, "10000", true, 10000);
	u32_case("weight", vgpuctl_parse_weight, "0", false, 0);
	u32_case("weight", vgpuctl_parse_weight, "10001", false, 0);
	u32_case("index", vgpuctl_parse_index, "0", true, 0);
	u32_case("index", vgpuctl_parse_index, "63", true, 63);
	u32_case("index", vgpuctl_parse_index, "007", true, 7);
	u32_case("index", vgpuctl_parse_index, "64", false, 0);
	u32_case("gpu count", vgpuctl_parse_gpu_count, "1", true, 1);
	u32_case("gpu count", vgpuctl_parse_gpu_count, "64", true, 64);
	u32_case("gpu count", vgpuctl_parse_gpu_count, "0", false, 0);
	u32_case("gpu count", vgpuctl_parse_gpu_count, "65", false, 0);
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		u32_case("weight", vgpuctl_parse_weight, junk[i], false, 0);
		u32_case("index", vgpuctl_parse_index, junk[i], false, 0);
		u32_case("gpu count", vgpuctl_parse_gpu_count, junk[i], false, 0);
	}
	numa_case("-1", true, -1);
	numa_case("0", true, 0);
	numa_case("1023", true, 1023);
	numa_case("1024", false, 0);
	numa_case("-2", false, 0);
	numa_case("-0", false, 0);
	numa_case("--1", false, 0);
	numa_case("", false, 0);
	numa_case("1x", false, 0);
	numa_case("99999999999999999999", false, 0);
}

static void test_priority(void)
{
	static const char *const names[] = { "low", "normal", "high" };
	uint32_t v, i;
	char what[64];

	for (i = 0; i < 3; i++) {
		v = 99;
		snprintf(what, sizeof(what), "priority \"%s\" is %u", names[i], i);
		result(!vgpuctl_parse_priority(names[i], &v) && v == i, what, "value %u", v);
		snprintf(what, sizeof(what), "priority %u is named \"%s\"", i, names[i]);
		result(vgpuctl_priority_name(i) && !strcmp(vgpuctl_priority_name(i), names[i]),
		       what, "got %s", vgpuctl_priority_name(i) ? vgpuctl_priority_name(i) : "NULL");
	}
	result(vgpuctl_parse_priority("urgent", &v) < 0, "priority \"urgent\" is rejected", "accepted");
	result(vgpuctl_parse_priority("", &v) < 0, "priority \"\" is rejected", "accepted");
	result(vgpuctl_parse_priority("High", &v) < 0, "priority \"High\" is rejected", "accepted");
	result(vgpuctl_parse_priority("1", &v) < 0, "priority \"1\" is rejected", "accepted");
	result(vgpuctl_priority_name(3) == NULL, "priority 3 has no name", "has one");
}

static void test_policy(void)
{
	static const char *const names[] = { "allow", "deny" };
	uint32_t v, i;
	char what[64];

	for (i = 0; i < 2; i++) {
		v = 99;
		snprintf(what, sizeof(what), "policy \"%s\" is %u", names[i], i);
		result(!vgpuctl_parse_policy(names[i], &v) && v == i, what, "value %u", v);
		snprintf(what, sizeof(what), "policy %u is named \"%s\"", i, names[i]);
		result(vgpuctl_policy_name(i) && !strcmp(vgpuctl_policy_name(i), names[i]),
		       what, "got %s", vgpuctl_policy_name(i) ? vgpuctl_policy_name(i) : "NULL");
	}
	result(VGPU_DEFAULT_POLICY_ALLOW == 0 && VGPU_DEFAULT_POLICY_DENY == 1,
	       "policy names follow enum vgpu_default_policy", "enum changed");
	v = 99;
	result(vgpuctl_parse_policy("Allow", &v) < 0 && v == 99, "policy \"Allow\" is rejected",
	       "accepted");
	result(vgpuctl_parse_policy("", &v) < 0, "policy \"\" is rejected", "accepted");
	result(vgpuctl_parse_policy("1", &v) < 0, "policy \"1\" is rejected", "accepted");
	result(vgpuctl_parse_policy("allow ", &v) < 0, "policy \"allow \" is rejected", "accepted");
	result(vgpuctl_policy_name(2) == NULL, "policy 2 has no name", "has one");
}

/*
 * The quota table of spec_gen.h against a copy kept here on purpose: the
 * generator check proves the header matches the spec, this proves the
 * spec still says what vgpuctl (and the kernel's uapi) were written for.
 */
static void test_spec_quotas(void)
{
	static const struct { const char *name; uint32_t bit; int attr; } want[] = {
		{ "vram-max", VGPU_QUOTA_VRAM_MAX, VGPU_A_TENANT_VRAM_MAX },
		{ "vram-min", VGPU_QUOTA_VRAM_MIN, VGPU_A_TENANT_VRAM_MIN },
		{ "gpus", VGPU_QUOTA_GPUS, VGPU_A_TENANT_GPUS },
		{ "weight", VGPU_QUOTA_WEIGHT, VGPU_A_TENANT_WEIGHT },
		{ "compute-max", VGPU_QUOTA_COMPUTE_MAX, VGPU_A_TENANT_COMPUTE_MAX },
		{ "priority", VGPU_QUOTA_PRIORITY, VGPU_A_TENANT_PRIORITY },
		{ "cpus", VGPU_QUOTA_CPUS, VGPU_A_TENANT_CPUS },
		{ "mems", VGPU_QUOTA_MEMS, VGPU_A_TENANT_MEMS },
		{ "placement", VGPU_QUOTA_PLACEMENT, VGPU_A_TENANT_PLACEMENT },
		{ "exclusive", VGPU_QUOTA_EXCLUSIVE, VGPU_A_TENANT_EXCLUSIVE },
		{ "preemptible", VGPU_QUOTA_PREEMPTIBLE, VGPU_A_TENANT_PREEMPTIBLE },
		{ "vram-wait", VGPU_QUOTA_VRAM_WAIT, VGPU_A_TENANT_VRAM_WAIT },
	};
	uint32_t all = 0;
	size_t i, n = sizeof(want) / sizeof(want[0]);
	char what[96];

	result(VGPU_QUOTA_NBITS == n, "spec_gen.h has every quota", "%d, not %zu",
	       VGPU_QUOTA_NBITS, n);
	for (i = 0; i < n && i < VGPU_QUOTA_NBITS; i++) {
		const struct vgpu_spec_quota *q = &vgpu_spec_quotas[i];

		snprintf(what, sizeof(what), "quota bit %zu is %s", i, want[i].name);
		result(!strcmp(q->name, want[i].name) && q->bit == want[i].bit &&
		       q->bit == 1U << i && q->attr == want[i].attr, what,
		       "%s, bit 0x%x, attribute %d", q->name, q->bit, q->attr);
		all |= q->bit;
	}
	result(VGPU_QUOTA_ALL == all, "VGPU_QUOTA_ALL is every quota bit", "0x%x, not 0x%x",
	       VGPU_QUOTA_ALL, all);
	result(VGPU_CHECK_GPU_INDEX_MAX == 63 && VGPU_CHECK_TENANT_NAME_MAX_LEN == 63 &&
	       VGPU_CHECK_GPU_UUID_MAX_LEN == 40 && VGPU_CHECK_GPU_PCI_MAX_LEN == 16 &&
	       VGPU_CHECK_TENANT_WEIGHT_MIN == 1 && VGPU_CHECK_TENANT_WEIGHT_MAX == 10000 &&
	       VGPU_CHECK_GPU_NUMA_MAX == 1023 && VGPU_CHECK_TENANT_PREEMPTIBLE_MAX == 1 &&
	       VGPU_CHECK_TENANT_VRAM_WAIT_MAX == 600000,
	       "the spec's checks are those vgpuctl's usage texts name", "changed");
}

/* PCI bus ids as NVML writes them, normalised */
static void busid_case(const char *s, const char *want)
{
	char what[128], out[VGPU_PCI_LEN_MAX + 1] = "untouched";
	int r = vgpuctl_busid_norm(s, out, sizeof(out));

	if (want) {
		snprintf(what, sizeof(what), "bus id \"%s\" normalised to %s", s, want);
		result(r == 0 && !strcmp(out, want), what, "returned %d, \"%s\"", r, out);
		snprintf(what, sizeof(what), "normalised bus id %s is a valid BUSID", want);
		result(vgpuctl_parse_busid(out) == 0, what, "rejected");
	} else {
		snprintf(what, sizeof(what), "bus id \"%s\" is rejected", s);
		result(r < 0, what, "returned %d, \"%s\"", r, out);
	}
}

static void test_busid_norm(void)
{
	char small[12];

	busid_case("00000000:3B:00.0", "0000:3b:00.0");
	busid_case("00000000:01:00.0", "0000:01:00.0");
	busid_case("0000:AF:1F.7", "0000:af:1f.7");
	busid_case("0000:af:00.1", "0000:af:00.1");
	busid_case("0:1:0.0", "0000:01:00.0");
	busid_case("00010000:01:00.0", "10000:01:00.0");	/* as sysfs and the kernel */
	busid_case("10000:01:00.0", "10000:01:00.0");
	busid_case("0001:02:03.4", "0001:02:03.4");
	busid_case("", NULL);
	busid_case("3b:00.0", NULL);
	busid_case("000000000:3b:00.0", NULL);
	busid_case("0000:3b:00.8", NULL);
	busid_case("0000:3b:20.0", NULL);
	busid_case("0000:3b:00.0 ", NULL);
	busid_case("0000:3b:00", NULL);
	busid_case("0000:g0:00.0", NULL);
	busid_case("0000:100:00.0", NULL);
	result(vgpuctl_busid_norm("0000:3b:00.0", small, sizeof(small)) < 0,
	       "bus id normalisation refuses a short buffer", "accepted");
}

/* syntax checks returning 0/-1 */
static void syntax_case(const char *name, int (*fn)(const char *), const char *s, bool ok)
{
	char what[160];
	int r = fn(s);

	snprintf(what, sizeof(what), "%s \"%s\" %s", name, s, ok ? "accepted" : "rejected");
	result(ok ? r == 0 : r < 0, what, "returned %d", r);
}

static void test_syntax(void)
{
	char name63[64], name64[65];

	syntax_case("uuid", vgpuctl_parse_uuid, "GPU-0a1b2c3d-0000-4000-8000-000000000001", true);
	syntax_case("uuid", vgpuctl_parse_uuid, "GPU-ABCDEF01-abcd-ABCD-0123-456789abcdef", true);
	syntax_case("uuid", vgpuctl_parse_uuid, "", false);
	syntax_case("uuid", vgpuctl_parse_uuid, "GPU-", false);
	syntax_case("uuid", vgpuctl_parse_uuid, "gpu-0a1b2c3d-0000-4000-8000-000000000001", false);
	syntax_case("uuid", vgpuctl_parse_uuid, "0a1b2c3d-0000-4000-8000-000000000001", false);
	syntax_case("uuid", vgpuctl_parse_uuid, "GPU-0a1b2c3d-0000-4000-8000-00000000000g", false);
	syntax_case("uuid", vgpuctl_parse_uuid, "GPU-0a1b2c3d-0000-4000-8000-0000000000012", false);
	syntax_case("uuid", vgpuctl_parse_uuid, "GPU-0a1b2c3d-0000-4000-8000-00000000000", false);
	syntax_case("uuid", vgpuctl_parse_uuid, "GPU-0a1b2c3d0000-4000-8000-000000000001", false);
	syntax_case("uuid", vgpuctl_parse_uuid, "GPU-0a1b2c3d-0000-4000-8000-000000000001 ", false);

	syntax_case("busid", vgpuctl_parse_busid, "0000:3b:00.0", true);
	syntax_case("busid", vgpuctl_parse_busid, "0000:3B:1f.7", true);
	syntax_case("busid", vgpuctl_parse_busid, "00000000:86:00.0", true);
	syntax_case("busid", vgpuctl_parse_busid, "", false);
	syntax_case("busid", vgpuctl_parse_busid, "3b:00.0", false);
	syntax_case("busid", vgpuctl_parse_busid, "000:3b:00.0", false);
	syntax_case("busid", vgpuctl_parse_busid, "10000:3b:00.0", true);	/* sysfs above 0xffff */
	syntax_case("busid", vgpuctl_parse_busid, "000000000:3b:00.0", false);
	syntax_case("busid", vgpuctl_parse_busid, "0000:3b:00:0", false);
	syntax_case("busid", vgpuctl_parse_busid, "0000:3b:00.00", false);
	syntax_case("busid", vgpuctl_parse_busid, "0000:3g:00.0", false);
	syntax_case("busid", vgpuctl_parse_busid, "0000:3b:0.0", false);
	syntax_case("busid", vgpuctl_parse_busid, "0000:3b:00.0 ", false);
	syntax_case("busid", vgpuctl_parse_busid, "-000:3b:00.0", false);

	memset(name63, 'a', 63);
	name63[63] = '\0';
	memset(name64, 'a', 64);
	name64[64] = '\0';
	syntax_case("name", vgpuctl_parse_name, "team-a", true);
	syntax_case("name", vgpuctl_parse_name, "a", true);
	syntax_case("name", vgpuctl_parse_name, "A_b.c:d/e~!", true);
	syntax_case("name", vgpuctl_parse_name, name63, true);
	syntax_case("name", vgpuctl_parse_name, name64, false);
	syntax_case("name", vgpuctl_parse_name, "", false);
	syntax_case("name", vgpuctl_parse_name, "a b", false);
	syntax_case("name", vgpuctl_parse_name, "a\tb", false);
	syntax_case("name", vgpuctl_parse_name, "a\nb", false);
	syntax_case("name", vgpuctl_parse_name, "a\x7f", false);
	syntax_case("name", vgpuctl_parse_name, "caf\xc3\xa9", false);
}

/* LIST */
static void list_ok(const char *s, unsigned int max, const char *want)
{
	char what[160], out[VGPU_LIST_LEN_MAX + 1] = "untouched";
	int r = vgpuctl_parse_list_norm(s, max, out, sizeof(out));

	snprintf(what, sizeof(what), "list \"%s\" (max %u) is \"%s\"", s, max, want);
	result(r == 0 && !strcmp(out, want), what, "returned %d, \"%s\"", r, out);
}

static void list_bad(const char *s, unsigned int max)
{
	char what[160], out[VGPU_LIST_LEN_MAX + 1] = "untouched";
	int r = vgpuctl_parse_list_norm(s, max, out, sizeof(out));

	snprintf(what, sizeof(what), "list \"%s\" (max %u) is rejected", s, max);
	result(r < 0, what, "returned %d, \"%s\"", r, out);
}

static void gpus_case(const char *s, bool ok, uint64_t want)
{
	char what[128];
	uint64_t v = 0xdead;
	int r = vgpuctl_parse_gpus(s, &v);

	snprintf(what, sizeof(what), "gpus \"%s\" %s", s, ok ? "accepted" : "rejected");
	if (ok)
		result(r == 0 && v == want, what, "returned %d, mask %#" PRIx64, r, v);
	else
		result(r < 0 && v == 0xdead, what, "returned %d, mask %#" PRIx64, r, v);
}

static void test_list(void)
{
	static const char *const bad[] = {
		"", ",", "0,", ",0", "0,,1", "-", "-1", "1-", "3-0", "0-3-5", "0 -3",
		"0, 1", " 0", "0 ", "a", "0x1", "1.5", "0-3,8x", "99999999999999999999",
		"0-18446744073709551616",
	};
	char out[8], big[VGPU_LIST_LEN_MAX * 4];
	size_t i, pos = 0;
	uint64_t bits[2] = { 0, 0 };

	list_ok("0", VGPU_LIST_CPU_MAX, "0");
	list_ok("0-3,8", VGPU_LIST_CPU_MAX, "0-3,8");
	list_ok("8,0-3", VGPU_LIST_CPU_MAX, "0-3,8");
	list_ok("0,1,2,3", VGPU_LIST_CPU_MAX, "0-3");
	list_ok("0-3,2-5", VGPU_LIST_CPU_MAX, "0-5");
	list_ok("3-3", VGPU_LIST_CPU_MAX, "3");
	list_ok("1,1,1", VGPU_LIST_CPU_MAX, "1");
	list_ok("0-8191", VGPU_LIST_CPU_MAX, "0-8191");
	list_ok("63,64", VGPU_LIST_CPU_MAX, "63-64");
	list_ok("1023", VGPU_LIST_NODE_MAX, "1023");
	list_bad("1024", VGPU_LIST_NODE_MAX);
	list_bad("8192", VGPU_LIST_CPU_MAX);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		list_bad(bad[i], VGPU_LIST_CPU_MAX);
	/* Every other CPU up to 8190: valid, but too long once normalised. */
	for (i = 0; i <= 8190 && pos < sizeof(big) - 8; i += 2)
		pos += (size_t)snprintf(big + pos, sizeof(big) - pos, "%s%zu", i ? "," : "", i);
	list_bad(big, VGPU_LIST_CPU_MAX);

	gpus_case("0", true, 1);
	gpus_case("0-1", true, 3);
	gpus_case("0,3", true, 9);
	gpus_case("63", true, 1ULL << 63);
	gpus_case("0-63", true, UINT64_MAX);
	gpus_case("64", false, 0);
	gpus_case("0-64", false, 0);
	gpus_case("", false, 0);
	gpus_case("1-0", false, 0);
	gpus_case("-1", false, 0);

	bits[0] = 0xf | (1ULL << 8);
	result(!vgpuctl_format_list(bits, 2, out, sizeof(out)) && !strcmp(out, "0-3,8"),
	       "format list 0-3,8", "got \"%s\"", out);
	bits[0] = 0;
	result(!vgpuctl_format_list(bits, 2, out, sizeof(out)) && !strcmp(out, ""),
	       "format empty list", "got \"%s\"", out);
	bits[0] = 0x5555;
	result(vgpuctl_format_list(bits, 2, out, sizeof(out)) < 0,
	       "format list too long for its buffer fails", "got \"%s\"", out);
	bits[0] = 1ULL << 63;
	bits[1] = 1;
	result(!vgpuctl_format_list(bits, 2, out, sizeof(out)) && !strcmp(out, "63-64"),
	       "format list across words", "got \"%s\"", out);
}

/* formatters */
static void test_format(void)
{
	static const struct { uint64_t v; const char *s; } sizes[] = {
		{ 0, "0" }, { 1, "1" }, { 1000, "1000" }, { 1024, "1KiB" },
		{ 1536, "1536" }, { 1ULL << 20, "1MiB" }, { 512ULL << 20, "512MiB" },
		{ 1610612736ULL, "1536MiB" }, { 16ULL << 30, "16GiB" },
		{ 3ULL << 40, "3TiB" }, { 1ULL << 50, "1024TiB" },
		{ UINT64_MAX, "18446744073709551615" },
	};
	static const struct { uint32_t bp; const char *s; } pcts[] = {
		{ 0, "0%" }, { 1, "0.01%" }, { 5, "0.05%" }, { 50, "0.5%" },
		{ 3750, "37.5%" }, { 3725, "37.25%" }, { 5000, "50%" }, { 10000, "100%" },
	};
	char buf[32], what[96];
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		vgpuctl_format_size(sizes[i].v, buf, sizeof(buf));
		snprintf(what, sizeof(what), "format size %" PRIu64 " as %s", sizes[i].v, sizes[i].s);
		result(!strcmp(buf, sizes[i].s), what, "got \"%s\"", buf);
	}
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		uint32_t back = 0;

		vgpuctl_format_pct(pcts[i].bp, buf, sizeof(buf));
		snprintf(what, sizeof(what), "format %u bp as %s", pcts[i].bp, pcts[i].s);
		result(!strcmp(buf, pcts[i].s), what, "got \"%s\"", buf);
		snprintf(what, sizeof(what), "%s parses back to %u bp", pcts[i].s, pcts[i].bp);
		result(!vgpuctl_parse_pct(buf, &back) && back == pcts[i].bp, what, "got %u", back);
	}
}

/* cgroup paths */
static void cg_case(const char *mnt, const char *arg, int want_ret, const char *want)
{
	char what[256], out[VGPU_PATH_LEN_MAX + 1] = "";
	int r = vgpuctl_cgroup_path(mnt, arg, out, sizeof(out));

	snprintf(what, sizeof(what), "cgroup \"%s\" under %s %s%s", arg, mnt,
		 want_ret ? "is rejected" : "sends ", want_ret ? "" : want);
	result(r == want_ret && (want_ret || !strcmp(out, want)), what,
	       "returned %d, \"%s\"", r, out);
}

static void test_cgroup(void)
{
	const char *m = "/sys/fs/cgroup";
	char tmpl[] = "/tmp/test_parse.XXXXXX", out[256], *long_path;
	FILE *f;
	int fd, r;

	cg_case(m, "/sys/fs/cgroup/team-a", 0, "/team-a");
	cg_case(m, "team-a", 0, "/team-a");
	cg_case(m, "/sys/fs/cgroup", 0, "/");
	cg_case(m, "/sys/fs/cgroup/", 0, "/");
	cg_case(m, "/sys/fs/cgroup/a/b/", 0, "/a/b");
	cg_case(m, "//sys//fs/cgroup//a//b", 0, "/a/b");
	cg_case(m, "/sys/fs/cgroup/./a/../b", 0, "/b");
	cg_case(m, "a/b/../c", 0, "/a/c");
	cg_case(m, "./a", 0, "/a");
	cg_case(m, ".", 0, "/");
	cg_case(m, "team a", 0, "/team a");
	cg_case("/sys/fs/cgroup/", "/sys/fs/cgroup/x", 0, "/x");
	cg_case("/sys/fs/cgroup/unified", "/sys/fs/cgroup/unified/x", 0, "/x");
	cg_case("/", "/team-a", 0, "/team-a");
	cg_case(m, "/tmp", -2, "");
	cg_case(m, "/sys/fs/cgroupx/a", -2, "");
	cg_case(m, "/sys/fs", -2, "");
	cg_case(m, "/sys/fs/cgroup/..", -2, "");
	cg_case(m, "/sys/fs/cgroup/../cgroup/a", 0, "/a");
	cg_case(m, "..", -2, "");
	cg_case(m, "a/../..", -2, "");
	cg_case(m, "/..", -2, "");
	cg_case(m, "", -1, "");
	long_path = malloc(VGPU_PATH_LEN_MAX + 2);
	if (long_path) {
		memset(long_path, 'a', VGPU_PATH_LEN_MAX + 1);
		long_path[VGPU_PATH_LEN_MAX + 1] = '\0';
		cg_case(m, long_path, -1, "");
		long_path[VGPU_PATH_LEN_MAX - 1] = '\0';	/* "/" + 4094 = 4095 */
		r = vgpuctl_cgroup_path(m, long_path, out, sizeof(out));
		result(r == -1, "cgroup path longer than the buffer is rejected", "returned %d", r);
		free(long_path);
	}

	fd = mkstemp(tmpl);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		result(false, "cgroup mount fixture", "cannot create %s", tmpl);
		return;
	}
	fputs("proc /proc proc rw 0 0\n"
	      "tmpfs /sys/fs/cgroup tmpfs rw 0 0\n"
	      "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n"
	      "cgroup2 /sys/fs/my\\040cgroup cgroup2 rw 0 0\n"
	      "cgroup2 /other cgroup2 rw 0 0\n", f);
	fclose(f);
	r = vgpuctl_cgroup_mount(tmpl, out, sizeof(out));
	result(r == 0 && !strcmp(out, "/sys/fs/my cgroup"),
	       "cgroup2 mount found, octal escapes undone", "returned %d, \"%s\"", r, out);
	r = vgpuctl_cgroup_mount(tmpl, out, 8);
	result(r == -1, "cgroup2 mount too long for the buffer fails", "returned %d", r);
	f = fopen(tmpl, "w");
	if (f) {
		fputs("proc /proc proc rw 0 0\ncgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n", f);
		fclose(f);
	}
	r = vgpuctl_cgroup_mount(tmpl, out, sizeof(out));
	result(r == 1 && !strcmp(out, "/sys/fs/cgroup"),
	       "no cgroup2 mount: default /sys/fs/cgroup", "returned %d, \"%s\"", r, out);
	unlink(tmpl);
	r = vgpuctl_cgroup_mount(tmpl, out, sizeof(out));
	result(r == 1 && !strcmp(out, "/sys/fs/cgroup"),
	       "unreadable mounts file: default /sys/fs/cgroup", "returned %d, \"%s\"", r, out);
}

static void test_matches(void)
{
	result(vgpuctl_matches("g", "gpu"), "\"g\" abbreviates gpu", "no");
	result(vgpuctl_matches("gpu", "gpu"), "\"gpu\" matches gpu", "no");
	result(vgpuctl_matches("ten", "tenant"), "\"ten\" abbreviates tenant", "no");
	result(!vgpuctl_matches("gpus", "gpu"), "\"gpus\" does not match gpu", "it does");
	result(!vgpuctl_matches("", "gpu"), "\"\" does not match gpu", "it does");
	result(!vgpuctl_matches("x", "gpu"), "\"x\" does not match gpu", "it does");
}

int main(void)
{
	test_size();
	test_pct();
	test_ints();
	test_priority();
	test_policy();
	test_spec_quotas();
	test_busid_norm();
	test_syntax();
	test_list();
	test_format();
	test_cgroup();
	test_matches();
	return failures ? 1 : 0;
}
