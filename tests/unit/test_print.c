// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl's reply printing without the module: replies are
 * built with libnl as the kernel would send them and handed to the print
 * functions of tenant show (usage), ps and show; plain and JSON output are
 * compared whole. proc.c and host.c are included to reach their static
 * reply handlers. One line per check: "PASS: print: <what>" or "FAIL:
 * print: <what>: <detail>". Exits 1 if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE $(pkg-config --cflags libnl-genl-3.0 libcap) \
 *      tests/unit/test_print.c ctl/{tenant,print,json,parse,util,nl}.c \
 *      $(pkg-config --libs libnl-genl-3.0 libcap)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ctl/host.c"
#include "../../ctl/proc.c"

static int failures;

static void result(bool ok, const char *what, const char *got, const char *want)
{
	if (ok) {
		printf("PASS: print: %s\n", what);
		return;
	}
	failures++;
	printf("FAIL: print: %s: got \"", what);
	for (; *got; got++)
		fputs(*got == '\n' ? "\\n" : (char[2]){ *got, 0 }, stdout);
	printf("\", want \"");
	for (; *want; want++)
		fputs(*want == '\n' ? "\\n" : (char[2]){ *want, 0 }, stdout);
	printf("\"\n");
}

/* A reply of @cmd, as the kernel would send it. */
static struct nl_msg *reply(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, 0, 0, 0x20, 0, 0, cmd, VGPU_FAMILY_VERSION)) {
		fputs("out of memory\n", stderr);
		exit(2);
	}
	return msg;
}

static void put_usage(struct nl_msg *msg, uint32_t gpu, uint64_t cur, uint64_t peak,
		      uint64_t fail, uint64_t budget, uint64_t bs)
{
	struct nlattr *n = nla_nest_start(msg, VGPU_A_TENANT_USAGE);

	nla_put_u32(msg, VGPU_A_USAGE_GPU, gpu);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_CURRENT, cur);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_PEAK, peak);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_FAILURES, fail);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_BUDGET, budget);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_BYTE_SECONDS, bs);
	nla_nest_end(msg, n);
}

static struct nl_msg *tenant(bool usage)
{
	struct nl_msg *msg = reply(VGPU_CMD_TENANT_GET);

	nla_put_string(msg, VGPU_A_TENANT_NAME, "a");
	nla_put_u32(msg, VGPU_A_TENANT_ID, 1);
	nla_put_string(msg, VGPU_A_TENANT_CGROUP, "/a");
	if (usage) {
		put_usage(msg, 0, 1ULL << 30, 2ULL << 30, 3, 64ULL << 20, 123456);
		put_usage(msg, 1, 0, 4096, 0, 0, 0);
	}
	nla_put_u64(msg, VGPU_A_TENANT_VRAM_MAX, 8ULL << 30);
	return msg;
}

/* Output capture: everything the print path writes between begin and end. */
static char *buf;
static size_t len;
static FILE *cap;

static void begin(bool json)
{
	vgpu_print_init(json, false);
	cap = open_memstream(&buf, &len);
	vgpu_print_set_file(cap);
}

static const char *end(void)
{
	fclose(cap);
	vgpu_print_set_file(stdout);
	return buf;
}

static void tenant_case(const char *what, bool usage, bool json, bool lines, const char *want)
{
	struct nl_msg *msg = tenant(usage);
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];
	int r;

	begin(json);
	r = vgpu_tenant_parse(nlmsg_hdr(msg), tb);
	if (!r) {
		vgpu_print_obj_open(NULL);
		vgpu_tenant_print(nlmsg_hdr(msg), tb, lines);
		vgpu_print_obj_close();
	}
	result(!r && !strcmp(end(), want), what, r ? "parse failed" : buf, want);
	free(buf);
	nlmsg_free(msg);
}

static void test_tenant(void)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1], *n;
	struct nl_msg *msg;

	tenant_case("tenant show: one usage line per GPU", true, false, true,
		    "tenant a id 1 cgroup /a vram-max 8GiB\n"
		    "    gpu 0 vram 1GiB peak 2GiB budget 64MiB failures 3 byte-seconds 123456\n"
		    "    gpu 1 vram 0 peak 4KiB budget 0 failures 0 byte-seconds 0\n");
	tenant_case("tenant show: no usage, no usage line", false, false, true,
		    "tenant a id 1 cgroup /a vram-max 8GiB\n");
	tenant_case("monitor: usage left out of the event line", true, false, false,
		    "tenant a id 1 cgroup /a vram-max 8GiB\n");
	tenant_case("tenant show -j: usage array", true, true, true,
		    "{\"name\":\"a\",\"id\":1,\"cgroup\":\"/a\",\"cgroup_id\":null,"
		    "\"cgroup_removed\":false,\"vram_max\":8589934592,\"vram_min\":null,"
		    "\"gpus\":null,\"weight\":null,\"compute_max\":null,\"priority\":null,"
		    "\"cpus\":null,\"mems\":null,\"usage\":["
		    "{\"gpu\":0,\"vram_current\":1073741824,\"vram_peak\":2147483648,"
		    "\"vram_budget\":67108864,\"vram_failures\":3,\"vram_byte_seconds\":123456},"
		    "{\"gpu\":1,\"vram_current\":0,\"vram_peak\":4096,\"vram_budget\":0,"
		    "\"vram_failures\":0,\"vram_byte_seconds\":0}]}\n");
	tenant_case("tenant show -j: no usage is []", false, true, true,
		    "{\"name\":\"a\",\"id\":1,\"cgroup\":\"/a\",\"cgroup_id\":null,"
		    "\"cgroup_removed\":false,\"vram_max\":8589934592,\"vram_min\":null,"
		    "\"gpus\":null,\"weight\":null,\"compute_max\":null,\"priority\":null,"
		    "\"cpus\":null,\"mems\":null,\"usage\":[]}\n");

	msg = tenant(true);
	n = nla_nest_start(msg, VGPU_A_TENANT_USAGE);
	nla_put_u16(msg, VGPU_A_USAGE_GPU, 1);	/* a u32 of 2 bytes */
	nla_nest_end(msg, n);
	result(vgpu_tenant_parse(nlmsg_hdr(msg), tb) == -EPROTO,
	       "a malformed usage nest is refused", "accepted", "-EPROTO");
	nlmsg_free(msg);
}

static struct nl_msg *proc(uint32_t pid, const char *tenant, int ngpus)
{
	struct nl_msg *msg = reply(VGPU_CMD_PROC_GET);
	struct nlattr *n;
	int i;

	nla_put_u32(msg, VGPU_A_PROC_PID, pid);
	if (tenant) {
		nla_put_string(msg, VGPU_A_PROC_TENANT, tenant);
		nla_put_u32(msg, VGPU_A_PROC_TENANT_ID, 7);
	}
	for (i = 0; i < ngpus; i++) {
		n = nla_nest_start(msg, VGPU_A_PROC_GPU);
		nla_put_u32(msg, VGPU_A_PROC_GPU_INDEX, (uint32_t)i);
		nla_put_u64(msg, VGPU_A_PROC_GPU_VRAM_USED, (uint64_t)(i + 1) << 30);
		nla_put_u64(msg, VGPU_A_PROC_GPU_VRAM_BUDGET, (uint64_t)i << 20);
		nla_nest_end(msg, n);
	}
	return msg;
}

static void ps_case(const char *what, bool json, const char *want)
{
	struct nl_msg *m[3] = {
		proc(4242, "training", 2), proc(7, NULL, 0), proc(1234567, "a", 1),
	};
	int i, r = 0;

	begin(json);
	vgpu_print_list_open();
	for (i = 0; i < 3; i++)
		r |= ps_one(nlmsg_hdr(m[i]), NULL);
	ps_done(r == 0);
	vgpu_print_list_close(r == 0);
	result(!r && !strcmp(end(), want), what, r ? "ps_one failed" : buf, want);
	free(buf);
	for (i = 0; i < 3; i++)
		nlmsg_free(m[i]);
}

static void test_ps(void)
{
	ps_case("ps: a row per process and GPU, - outside tenants and GPUs", false,
		"PID      TENANT    GPU  VRAM  BUDGET\n"
		"4242     training  0    1GiB  0\n"
		"4242     training  1    2GiB  1MiB\n"
		"7        -         -    0     0\n"
		"1234567  a         0    1GiB  0\n");
	ps_case("ps -j: flat objects, null tenant and gpu", true,
		"[{\"pid\":4242,\"tenant\":\"training\",\"gpu\":0,\"vram\":1073741824,\"vram_budget\":0},"
		"{\"pid\":4242,\"tenant\":\"training\",\"gpu\":1,\"vram\":2147483648,\"vram_budget\":1048576},"
		"{\"pid\":7,\"tenant\":null,\"gpu\":null,\"vram\":0,\"vram_budget\":0},"
		"{\"pid\":1234567,\"tenant\":\"a\",\"gpu\":0,\"vram\":1073741824,\"vram_budget\":0}]\n");

	begin(false);
	vgpu_print_list_open();
	ps_done(true);
	vgpu_print_list_close(true);
	result(!strcmp(end(), "PID  TENANT  GPU  VRAM  BUDGET\n"), "ps: no process, the header",
	       buf, "PID  TENANT  GPU  VRAM  BUDGET\n");
	free(buf);
}

static void host_case(const char *what, bool json, uint32_t policy, const char *want)
{
	struct nl_msg *msg = reply(VGPU_CMD_HOST_GET);
	int r;

	nla_put_u32(msg, VGPU_A_HOST_DEFAULT_POLICY, policy);
	nla_put_u32(msg, VGPU_A_HOST_PROCS, 3);
	begin(json);
	r = host_show_one(nlmsg_hdr(msg), NULL);
	result(!r && !strcmp(end(), want), what, r ? "host_show_one failed" : buf, want);
	free(buf);
	nlmsg_free(msg);
}

static void test_host(void)
{
	host_case("show: default allow procs 3", false, VGPU_DEFAULT_POLICY_ALLOW,
		  "default allow procs 3\n");
	host_case("show: default deny", false, VGPU_DEFAULT_POLICY_DENY, "default deny procs 3\n");
	host_case("show -j: one object", true, VGPU_DEFAULT_POLICY_ALLOW,
		  "{\"default\":\"allow\",\"procs\":3}\n");
	host_case("show -j: an unknown policy as its number", true, 9,
		  "{\"default\":9,\"procs\":3}\n");
}

int main(void)
{
	test_tenant();
	test_ps();
	test_host();
	return failures ? 1 : 0;
}
