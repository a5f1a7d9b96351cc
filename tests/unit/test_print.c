// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl's reply printing without the module: replies are
 * built with libnl as the kernel would send them and handed to the print
 * functions of tenant show (usage, placement, suspension), ps, show and
 * top, and the line that ends tenant suspend and resume; plain and
 * JSON output are compared whole. proc.c, host.c and top.c are included to
 * reach their static reply handlers. One line per check: "PASS: print: <what>" or "FAIL:
 * print: <what>: <detail>". Exits 1 if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE $(pkg-config --cflags libnl-genl-3.0 libcap) \
 *      -Ibuild/deps/cuda/include tests/unit/test_print.c \
 *      $(make -s -C ctl -f sources.mk list-UNIT_print) \
 *      $(pkg-config --libs libnl-genl-3.0 libcap) -ldl
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ctl/cmd/host.c"
#include "../../ctl/cmd/proc.c"
#include "../../ctl/cmd/top.c"
#include "../../ctl/enforce/backstop.h"
#include "../../ctl/obj/tenant_state.h"

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
	vgpuctl_print_init(json, false);
	cap = open_memstream(&buf, &len);
	vgpuctl_print_set_file(cap);
}

static const char *end(void)
{
	fclose(cap);
	vgpuctl_print_set_file(stdout);
	return buf;
}

/* The placement keys of a tenant that has none set. */
#define NO_PLACEMENT_JSON \
	"\"placement\":null,\"exclusive\":false,\"preemptible\":false,\"vram_wait_ns\":null,\"cpus_effective\":null,\"mems_effective\":null," \
	"\"state\":null,\"host_bytes\":null,\"suspended_ns\":null,\"resume_wait\":false,\"state_reason\":null"

/* The suspension keys of a tenant from a module that reports none, and a comma. */
#define NO_STATE_JSON \
	"\"state\":null,\"host_bytes\":null,\"suspended_ns\":null,\"resume_wait\":false,\"state_reason\":null,"

/* Print the tenant reply @msg (freed) and compare with @want. */
static void msg_case(const char *what, struct nl_msg *msg, bool json, bool lines,
		     const char *want)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1];
	const char *got;
	int r;

	begin(json);
	r = vgpuctl_tenant_parse(nlmsg_hdr(msg), tb);
	if (!r) {
		vgpuctl_print_obj_open(NULL);
		vgpuctl_tenant_print(nlmsg_hdr(msg), tb, lines);
		vgpuctl_print_obj_close();
	}
	/* end() may move buf: call it before buf is read. */
	got = end();
	result(!r && !strcmp(got, want), what, r ? "parse failed" : got, want);
	free(buf);
	nlmsg_free(msg);
}

static void tenant_case(const char *what, bool usage, bool json, bool lines, const char *want)
{
	msg_case(what, tenant(usage), json, lines, want);
}

/* A usage nest with the scheduler's counters. */
static void put_sched(struct nl_msg *msg, uint32_t gpu, uint64_t vram, uint64_t gpu_time,
		      uint64_t throttled, uint64_t grants)
{
	struct nlattr *n = nla_nest_start(msg, VGPU_A_TENANT_USAGE);

	nla_put_u32(msg, VGPU_A_USAGE_GPU, gpu);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_CURRENT, vram);
	nla_put_u64(msg, VGPU_A_USAGE_GPU_TIME_NS, gpu_time);
	nla_put_u64(msg, VGPU_A_USAGE_THROTTLED_NS, throttled);
	nla_put_u64(msg, VGPU_A_USAGE_GRANTS, grants);
	nla_nest_end(msg, n);
}

/* A tenant with placement auto, exclusive, and what is in force. */
static struct nl_msg *placed(uint32_t placement, uint32_t exclusive, bool effective)
{
	struct nl_msg *msg = tenant(false);

	nla_put_string(msg, VGPU_A_TENANT_CPUS, "0-3");
	nla_put_u32(msg, VGPU_A_TENANT_PLACEMENT, placement);
	nla_put_u32(msg, VGPU_A_TENANT_EXCLUSIVE, exclusive);
	if (effective) {
		nla_put_string(msg, VGPU_A_TENANT_CPUS_EFFECTIVE, "2-3");
		nla_put_string(msg, VGPU_A_TENANT_MEMS_EFFECTIVE, "1");
	}
	return msg;
}

#define TENANT_A_JSON(cpus) \
	"{\"name\":\"a\",\"id\":1,\"cgroup\":\"/a\",\"cgroup_id\":null," \
	"\"cgroup_removed\":false,\"ephemeral\":false,\"created\":null,\"labels\":{},\"vram_max\":8589934592,\"vram_min\":null," \
	"\"gpus\":null,\"weight\":null,\"compute_max\":null,\"priority\":null," \
	"\"cpus\":" cpus ",\"mems\":null,"

static void test_sched_placement(void)
{
	struct nlattr *n;
	struct nl_msg *msg;

	msg = tenant(false);
	put_sched(msg, 0, 1ULL << 30, 1234000000, 500000000, 12);
	put_sched(msg, 2, 0, 60010000000ULL, 999999, 0);
	msg_case("tenant show: gpu-time, throttled and grants on the usage line", msg,
		 false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB\n"
		 "    gpu 0 vram 1GiB gpu-time 1.234s throttled 0.5s grants 12\n"
		 "    gpu 2 vram 0 gpu-time 60.01s throttled 0s grants 0\n");
	msg = tenant(false);
	put_sched(msg, 0, 1ULL << 30, 1234000000, 500000000, 12);
	msg_case("tenant show -j: gpu_time_ns, throttled_ns, grants in ns and counts", msg,
		 true, true,
		 TENANT_A_JSON("null") NO_PLACEMENT_JSON ",\"usage\":["
		 "{\"gpu\":0,\"vram_current\":1073741824,\"vram_peak\":null,"
		 "\"vram_budget\":null,\"vram_failures\":null,\"vram_byte_seconds\":null,"
		 "\"gpu_time_ns\":1234000000,\"throttled_ns\":500000000,\"grants\":12,"
		 "\"vram_overdrafts\":null,\"vram_reserved_byte_seconds\":null,\"vram_scans\":null}]}\n");

	msg = tenant(false);
	n = nla_nest_start(msg, VGPU_A_TENANT_USAGE);
	nla_put_u32(msg, VGPU_A_USAGE_GPU, 0);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_OVERDRAFTS, 2);
	nla_nest_end(msg, n);
	msg_case("tenant show: overdrafts named when there are some", msg, false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB\n"
		 "    gpu 0 gpu-time 0s throttled 0s grants 0 overdrafts 2\n");
	msg = tenant(false);
	n = nla_nest_start(msg, VGPU_A_TENANT_USAGE);
	nla_put_u32(msg, VGPU_A_USAGE_GPU, 0);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_SCANS, 7);
	nla_nest_end(msg, n);
	msg_case("tenant show: scans named when there are some", msg, false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB\n"
		 "    gpu 0 gpu-time 0s throttled 0s grants 0 scans 7\n");
	msg = tenant(false);
	n = nla_nest_start(msg, VGPU_A_TENANT_USAGE);
	nla_put_u32(msg, VGPU_A_USAGE_GPU, 0);
	nla_put_u64(msg, VGPU_A_USAGE_VRAM_SCANS, 0);
	nla_nest_end(msg, n);
	msg_case("tenant show -j: vram_scans as a number, 0 included", msg, true, true,
		 TENANT_A_JSON("null") NO_PLACEMENT_JSON ",\"usage\":["
		 "{\"gpu\":0,\"vram_current\":null,\"vram_peak\":null,"
		 "\"vram_budget\":null,\"vram_failures\":null,\"vram_byte_seconds\":null,"
		 "\"gpu_time_ns\":0,\"throttled_ns\":0,\"grants\":0,"
		 "\"vram_overdrafts\":null,\"vram_reserved_byte_seconds\":null,\"vram_scans\":0}]}\n");
	msg = tenant(false);
	put_sched(msg, 0, 0, 0, 0, 0);
	msg_case("tenant show: none when the count is absent", msg, false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB\n"
		 "    gpu 0 vram 0 gpu-time 0s throttled 0s grants 0\n");

	msg_case("tenant show: placement auto exclusive and what is in force",
		 placed(VGPU_PLACEMENT_AUTO, 1, true), false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB cpus 0-3 placement auto exclusive"
		 " cpus-effective 2-3 mems-effective 1\n");
	msg_case("tenant show -j: placement, exclusive, cpus_effective, mems_effective",
		 placed(VGPU_PLACEMENT_AUTO, 1, true), true, true,
		 TENANT_A_JSON("\"0-3\"") "\"placement\":\"auto\",\"exclusive\":true,"
		 "\"preemptible\":false,\"vram_wait_ns\":null,"
		 "\"cpus_effective\":\"2-3\",\"mems_effective\":\"1\","
		 NO_STATE_JSON "\"usage\":[]}\n");
	msg_case("tenant show: manual, exclusive off: no exclusive word",
		 placed(VGPU_PLACEMENT_MANUAL, 0, false), false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB cpus 0-3 placement manual\n");
	msg_case("tenant show -j: exclusive 0 is false, absent effective lists null",
		 placed(VGPU_PLACEMENT_MANUAL, 0, false), true, true,
		 TENANT_A_JSON("\"0-3\"") "\"placement\":\"manual\",\"exclusive\":false,"
		 "\"preemptible\":false,\"vram_wait_ns\":null,"
		 "\"cpus_effective\":null,\"mems_effective\":null,"
		 NO_STATE_JSON "\"usage\":[]}\n");
	msg_case("tenant show -j: an unknown placement as its number",
		 placed(7, 1, false), true, true,
		 TENANT_A_JSON("\"0-3\"") "\"placement\":7,\"exclusive\":true,"
		 "\"preemptible\":false,\"vram_wait_ns\":null,"
		 "\"cpus_effective\":null,\"mems_effective\":null,"
		 NO_STATE_JSON "\"usage\":[]}\n");
}

/* A tenant with the preemption quotas: preemptible @pre, vram-wait @ms ms. */
static struct nl_msg *preempt(uint32_t pre, uint32_t ms)
{
	struct nl_msg *msg = tenant(false);

	nla_put_u32(msg, VGPU_A_TENANT_PREEMPTIBLE, pre);
	nla_put_u32(msg, VGPU_A_TENANT_VRAM_WAIT, ms);
	return msg;
}

/* preemptible and vram-wait: a word and seconds in plain, bool and ns in JSON. */
static void test_preempt_quotas(void)
{
	msg_case("tenant show: preemptible, vram-wait in seconds",
		 preempt(1, 30500), false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB preemptible vram-wait 30.5s\n");
	msg_case("tenant show: preemptible off: no word; vram-wait 0 is shown",
		 preempt(0, 0), false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB vram-wait 0s\n");
	msg_case("tenant show: vram-wait's maximum, 600 s",
		 preempt(0, 600000), false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB vram-wait 600s\n");
	msg_case("tenant show -j: preemptible true, vram_wait_ns",
		 preempt(1, 1), true, true,
		 TENANT_A_JSON("null") "\"placement\":null,\"exclusive\":false,"
		 "\"preemptible\":true,\"vram_wait_ns\":1000000,"
		 "\"cpus_effective\":null,\"mems_effective\":null,"
		 NO_STATE_JSON "\"usage\":[]}\n");
	msg_case("tenant show -j: vram-wait 0 is 0, not null",
		 preempt(0, 0), true, true,
		 TENANT_A_JSON("null") "\"placement\":null,\"exclusive\":false,"
		 "\"preemptible\":false,\"vram_wait_ns\":0,"
		 "\"cpus_effective\":null,\"mems_effective\":null,"
		 NO_STATE_JSON "\"usage\":[]}\n");
}

/* A tenant reply with suspension: @state, and what goes with it. */
static struct nl_msg *suspended(uint32_t state, uint64_t host, uint64_t ns, bool wait,
				const char *reason)
{
	struct nl_msg *msg = tenant(false);

	nla_put_u32(msg, VGPU_A_TENANT_STATE, state);
	nla_put_u64(msg, VGPU_A_TENANT_HOST_BYTES, host);
	nla_put_u64(msg, VGPU_A_TENANT_SUSPENDED_NS, ns);
	if (wait)
		nla_put_flag(msg, VGPU_A_TENANT_RESUME_WAIT);
	if (reason)
		nla_put_string(msg, VGPU_A_TENANT_STATE_REASON, reason);
	return msg;
}

/* One line of tenant suspend or resume: @st at the end, @want and its status. */
static void result_case(const char *what, bool resume, unsigned int procs, uint32_t state,
			uint64_t host, const char *reason, const char *want, int want_ret)
{
	struct vgpuctl_tstate s = { .has_state = true, .state = state, .host_bytes = host };
	struct vgpuctl_tstate_end e = {
		.name = "a", .resume = resume, .procs = procs, .elapsed_ns = 3100000000ULL,
	};
	char line[512];
	int ret;

	if (reason)
		snprintf(s.reason, sizeof(s.reason), "%s", reason);
	ret = vgpuctl_tstate_result(line, sizeof(line), &e, &s);
	result(ret == want_ret && !strcmp(line, want), what, line, want);
}

/* The suspension state in tenant show, and the line that ends suspend and resume. */
static void test_tstate(void)
{
	msg_case("tenant show: a suspended tenant's state, host bytes, time and reason",
		 suspended(VGPU_TENANT_STATE_SUSPENDED, 12ULL << 30, 3100000000ULL, true,
			   "pid 9: lock timed out after 10000 ms"), false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB state suspended host-bytes 12GiB"
		 " suspended 3.1s resume-wait state-reason pid 9: lock timed out after 10000 ms\n");
	msg_case("tenant show: a running tenant says nothing of suspension",
		 suspended(VGPU_TENANT_STATE_RUNNING, 0, 0, false, NULL), false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB\n");
	msg_case("tenant show: a running tenant's time suspended before",
		 suspended(VGPU_TENANT_STATE_RUNNING, 0, 2000000000ULL, false, ""), false, true,
		 "tenant a id 1 cgroup /a vram-max 8GiB suspended 2s\n");
	msg_case("tenant show -j: the suspension keys",
		 suspended(VGPU_TENANT_STATE_RESUMING, 1024, 5, false, NULL), true, true,
		 TENANT_A_JSON("null") "\"placement\":null,\"exclusive\":false,"
		 "\"preemptible\":false,\"vram_wait_ns\":null,"
		 "\"cpus_effective\":null,\"mems_effective\":null,\"state\":\"resuming\","
		 "\"host_bytes\":1024,\"suspended_ns\":5,\"resume_wait\":false,"
		 "\"state_reason\":null,\"usage\":[]}\n");
	msg_case("tenant show -j: a state this vgpuctl does not know, as its number",
		 suspended(9, 0, 0, false, NULL), true, true,
		 TENANT_A_JSON("null") "\"placement\":null,\"exclusive\":false,"
		 "\"preemptible\":false,\"vram_wait_ns\":null,"
		 "\"cpus_effective\":null,\"mems_effective\":null,\"state\":9,"
		 "\"host_bytes\":0,\"suspended_ns\":0,\"resume_wait\":false,"
		 "\"state_reason\":null,\"usage\":[]}\n");
	result_case("suspend: suspended, processes, host memory, time", false, 2,
		    VGPU_TENANT_STATE_SUSPENDED, 12ULL << 30, NULL,
		    "tenant a suspended: 2 processes, 12.0 GiB in host memory, 3.1 s", 0);
	result_case("suspend: one process, and those left running", false, 1,
		    VGPU_TENANT_STATE_SUSPENDED, 1536ULL << 20, "pid 7: lock timed out after 10000 ms",
		    "tenant a suspended: 1 process, 1.5 GiB in host memory, 3.1 s; left running:"
		    " pid 7: lock timed out after 10000 ms", 0);
	result_case("suspend: ended running, the agent's reason, an error", false, 0,
		    VGPU_TENANT_STATE_RUNNING, 0, "pid 7: cannot be checkpointed",
		    "tenant a was not suspended: pid 7: cannot be checkpointed", 1);
	result_case("suspend: ended running without a reason", false, 0,
		    VGPU_TENANT_STATE_RUNNING, 0, NULL,
		    "tenant a was not suspended: no process was checkpointed", 1);
	result_case("resume: resumed, the time", true, 0, VGPU_TENANT_STATE_RUNNING, 0, NULL,
		    "tenant a resumed after 3.1 s", 0);
	result_case("resume: resumed with the agent's reason", true, 0, VGPU_TENANT_STATE_RUNNING,
		    0, "pid 7: cuCheckpointProcessRestore: CUDA_ERROR_OUT_OF_MEMORY",
		    "tenant a resumed after 3.1 s; pid 7: cuCheckpointProcessRestore:"
		    " CUDA_ERROR_OUT_OF_MEMORY", 0);
	result_case("suspend: small sizes in bytes", false, 1, VGPU_TENANT_STATE_SUSPENDED, 100,
		    NULL, "tenant a suspended: 1 process, 100 B in host memory, 3.1 s", 0);
}

static void test_tenant(void)
{
	struct nlattr *tb[VGPU_A_TENANT_MAX + 1], *n;
	struct nl_msg *msg;

	tenant_case("tenant show: one usage line per GPU", true, false, true,
		    "tenant a id 1 cgroup /a vram-max 8GiB\n"
		    "    gpu 0 vram 1GiB peak 2GiB budget 64MiB failures 3 byte-seconds 123456"
		    " gpu-time 0s throttled 0s grants 0\n"
		    "    gpu 1 vram 0 peak 4KiB budget 0 failures 0 byte-seconds 0"
		    " gpu-time 0s throttled 0s grants 0\n");
	tenant_case("tenant show: no usage, no usage line", false, false, true,
		    "tenant a id 1 cgroup /a vram-max 8GiB\n");
	tenant_case("monitor: usage left out of the event line", true, false, false,
		    "tenant a id 1 cgroup /a vram-max 8GiB\n");
	tenant_case("tenant show -j: usage array", true, true, true,
		    "{\"name\":\"a\",\"id\":1,\"cgroup\":\"/a\",\"cgroup_id\":null,"
		    "\"cgroup_removed\":false,\"ephemeral\":false,\"created\":null,\"labels\":{},\"vram_max\":8589934592,\"vram_min\":null,"
		    "\"gpus\":null,\"weight\":null,\"compute_max\":null,\"priority\":null,"
		    "\"cpus\":null,\"mems\":null," NO_PLACEMENT_JSON ",\"usage\":["
		    "{\"gpu\":0,\"vram_current\":1073741824,\"vram_peak\":2147483648,"
		    "\"vram_budget\":67108864,\"vram_failures\":3,\"vram_byte_seconds\":123456,"
		    "\"gpu_time_ns\":0,\"throttled_ns\":0,\"grants\":0,\"vram_overdrafts\":null,\"vram_reserved_byte_seconds\":null,\"vram_scans\":null},"
		    "{\"gpu\":1,\"vram_current\":0,\"vram_peak\":4096,\"vram_budget\":0,"
		    "\"vram_failures\":0,\"vram_byte_seconds\":0,"
		    "\"gpu_time_ns\":0,\"throttled_ns\":0,\"grants\":0,\"vram_overdrafts\":null,\"vram_reserved_byte_seconds\":null,\"vram_scans\":null}]}\n");
	tenant_case("tenant show -j: no usage is []", false, true, true,
		    "{\"name\":\"a\",\"id\":1,\"cgroup\":\"/a\",\"cgroup_id\":null,"
		    "\"cgroup_removed\":false,\"ephemeral\":false,\"created\":null,\"labels\":{},\"vram_max\":8589934592,\"vram_min\":null,"
		    "\"gpus\":null,\"weight\":null,\"compute_max\":null,\"priority\":null,"
		    "\"cpus\":null,\"mems\":null," NO_PLACEMENT_JSON ",\"usage\":[]}\n");

	msg = tenant(true);
	n = nla_nest_start(msg, VGPU_A_TENANT_USAGE);
	nla_put_u16(msg, VGPU_A_USAGE_GPU, 1);	/* a u32 of 2 bytes */
	nla_nest_end(msg, n);
	result(vgpuctl_tenant_parse(nlmsg_hdr(msg), tb) == -EPROTO,
	       "a malformed usage nest is refused", "accepted", "-EPROTO");
	nlmsg_free(msg);
}

/* chosen: the GPUs the module chose for the process, 0 for none. */
static struct nl_msg *proc(uint32_t pid, const char *tenant, int ngpus, uint64_t chosen)
{
	struct nl_msg *msg = reply(VGPU_CMD_PROC_GET);
	struct nlattr *n;
	int i;

	nla_put_u32(msg, VGPU_A_PROC_PID, pid);
	if (tenant) {
		nla_put_string(msg, VGPU_A_PROC_TENANT, tenant);
		nla_put_u32(msg, VGPU_A_PROC_TENANT_ID, 7);
	}
	if (chosen)	/* and suspended, with 3 GiB parked */
		nla_put_u64(msg, VGPU_A_PROC_GPUS, chosen);
	if (chosen)
		nla_put_flag(msg, VGPU_A_PROC_SUSPENDED);
	for (i = 0; i < ngpus; i++) {
		n = nla_nest_start(msg, VGPU_A_PROC_GPU);
		nla_put_u32(msg, VGPU_A_PROC_GPU_INDEX, (uint32_t)i);
		nla_put_u64(msg, VGPU_A_PROC_GPU_VRAM_USED, (uint64_t)(i + 1) << 30);
		nla_put_u64(msg, VGPU_A_PROC_GPU_VRAM_BUDGET, (uint64_t)i << 20);
		if (chosen)
			nla_put_u64(msg, VGPU_A_PROC_GPU_VRAM_PARKED, 3ULL << 30);
		nla_nest_end(msg, n);
	}
	return msg;
}

static void ps_case(const char *what, bool json, const char *want)
{
	struct nl_msg *m[3] = {
		proc(4242, "training", 2, 0), proc(7, NULL, 0, 0), proc(1234567, "a", 1, 0x5),
	};
	int i, r = 0;

	begin(json);
	vgpuctl_print_list_open();
	for (i = 0; i < 3; i++)
		r |= ps_one(nlmsg_hdr(m[i]), NULL);
	ps_done(r == 0);
	vgpuctl_print_list_close(r == 0);
	end();	/* before buf is read: it may move it */
	result(!r && !strcmp(buf, want), what, r ? "ps_one failed" : buf, want);
	free(buf);
	for (i = 0; i < 3; i++)
		nlmsg_free(m[i]);
}

static void test_ps(void)
{
	ps_case("ps: a row per process and GPU, - outside tenants and GPUs, chosen GPUs, parked",
		false,
		"PID      TENANT    GPU  VRAM  BUDGET  PARKED  CHOSEN\n"
		"4242     training  0    1GiB  0       -       -\n"
		"4242     training  1    2GiB  1MiB    -       -\n"
		"7        -         -    0     0       -       -\n"
		"1234567  a         0    1GiB  0       3GiB    0,2\n");
	ps_case("ps -j: flat objects, null tenant, gpu and chosen GPUs, suspended and parked", true,
		"[{\"pid\":4242,\"tenant\":\"training\",\"gpu\":0,\"vram\":1073741824,\"vram_budget\":0,"
		"\"suspended\":false,\"vram_parked\":0,\"gpus_chosen\":null},"
		"{\"pid\":4242,\"tenant\":\"training\",\"gpu\":1,\"vram\":2147483648,\"vram_budget\":1048576,"
		"\"suspended\":false,\"vram_parked\":0,\"gpus_chosen\":null},"
		"{\"pid\":7,\"tenant\":null,\"gpu\":null,\"vram\":0,\"vram_budget\":0,"
		"\"suspended\":false,\"vram_parked\":0,\"gpus_chosen\":null},"
		"{\"pid\":1234567,\"tenant\":\"a\",\"gpu\":0,\"vram\":1073741824,\"vram_budget\":0,"
		"\"suspended\":true,\"vram_parked\":3221225472,\"gpus_chosen\":[0,2]}]\n");

	begin(false);
	vgpuctl_print_list_open();
	ps_done(true);
	vgpuctl_print_list_close(true);
	end();
	result(!strcmp(buf, "PID  TENANT  GPU  VRAM  BUDGET  PARKED  CHOSEN\n"),
	       "ps: no process, the header", buf, "PID  TENANT  GPU  VRAM  BUDGET  PARKED  CHOSEN\n");
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
	end();	/* before buf is read: it may move it */
	result(!r && !strcmp(buf, want), what, r ? "host_show_one failed" : buf, want);
	free(buf);
	nlmsg_free(msg);
}

/* show with the module's gpu-policy (absent above: an older module). */
static void gpu_policy_case(uint32_t gpu_policy, bool json, const char *want)
{
	struct nl_msg *msg = reply(VGPU_CMD_HOST_GET);
	char what[64];
	int r;

	nla_put_u32(msg, VGPU_A_HOST_DEFAULT_POLICY, VGPU_DEFAULT_POLICY_ALLOW);
	nla_put_u32(msg, VGPU_A_HOST_PROCS, 3);
	nla_put_u32(msg, VGPU_A_HOST_GPU_POLICY, gpu_policy);
	begin(json);
	r = host_show_one(nlmsg_hdr(msg), NULL);
	end();
	snprintf(what, sizeof(what), "show%s: gpu-policy %u", json ? " -j" : "", gpu_policy);
	result(!r && !strcmp(buf, want), what, r ? "host_show_one failed" : buf, want);
	free(buf);
	nlmsg_free(msg);
}

static void test_host(void)
{
	host_case("show: default allow procs 3", false, VGPU_DEFAULT_POLICY_ALLOW,
		  "default allow procs 3\n");
	host_case("show: default deny", false, VGPU_DEFAULT_POLICY_DENY, "default deny procs 3\n");
	host_case("show -j: one object", true, VGPU_DEFAULT_POLICY_ALLOW,
		  "{\"default\":\"allow\",\"procs\":3,\"instance_id\":null,\"loaded\":null,\"finals\":null,\"finals_dropped\":null}\n");
	host_case("show -j: an unknown policy as its number", true, 9,
		  "{\"default\":9,\"procs\":3,\"instance_id\":null,\"loaded\":null,\"finals\":null,\"finals_dropped\":null}\n");
	gpu_policy_case(VGPU_GPU_POLICY_SPREAD, false, "default allow procs 3 gpu-policy spread\n");
	gpu_policy_case(VGPU_GPU_POLICY_BINPACK, true,
			"{\"default\":\"allow\",\"procs\":3,\"instance_id\":null,\"loaded\":null,"
			"\"gpu_policy\":\"binpack\",\"finals\":null,\"finals_dropped\":null}\n");
	gpu_policy_case(7, false, "default allow procs 3 gpu-policy 7\n");
}

/* A tenant reply for top: @id, @name, quotas, and usage on GPU @gpu (-1: none). */
static struct nl_msg *top_tenant(uint32_t id, const char *name, int gpu, uint64_t gpu_time,
				 uint64_t throttled)
{
	struct nl_msg *msg = reply(VGPU_CMD_TENANT_GET);

	nla_put_string(msg, VGPU_A_TENANT_NAME, name);
	nla_put_u32(msg, VGPU_A_TENANT_ID, id);
	if (id == 2) {
		nla_put_u32(msg, VGPU_A_TENANT_WEIGHT, 300);
		nla_put_u32(msg, VGPU_A_TENANT_COMPUTE_MAX, 5000);
		nla_put_u32(msg, VGPU_A_TENANT_PRIORITY, VGPU_PRIORITY_HIGH);
		nla_put_u64(msg, VGPU_A_TENANT_VRAM_MAX, 8ULL << 30);
		nla_put_u32(msg, VGPU_A_TENANT_STATE, VGPU_TENANT_STATE_SUSPENDED);
		nla_put_flag(msg, VGPU_A_TENANT_RESUME_WAIT);
	}
	if (id == 1)
		nla_put_u32(msg, VGPU_A_TENANT_STATE, VGPU_TENANT_STATE_RUNNING);
	if (gpu >= 0)
		put_sched(msg, (uint32_t)gpu, 1ULL << 30, gpu_time, throttled, 1);
	if (id == 1)	/* a second GPU, idle */
		put_sched(msg, 1, 0, 500000000, 0, 1);
	return msg;
}

static void collect(struct top_sample *s, struct nl_msg *msg)
{
	if (top_collect(nlmsg_hdr(msg), s))
		result(false, "top: collect a reply", "failed", "0");
	nlmsg_free(msg);
}

/* Two dumps one second apart: prev at t=1s, cur at t=2s (elapsed 2s). */
static void samples(struct top_sample *prev, struct top_sample *cur)
{
	memset(prev, 0, sizeof(*prev));
	memset(cur, 0, sizeof(*cur));
	collect(prev, top_tenant(2, "b", 0, 1000000000, 0));
	collect(prev, top_tenant(1, "a", 0, 0, 0));
	collect(prev, top_tenant(3, "c", -1, 0, 0));
	prev->t = 1000000000;
	sort_key(prev);
	collect(cur, top_tenant(2, "b", 0, 1250000000, 500000000));
	collect(cur, top_tenant(4, "d", 0, 100000000, 0));	/* new: counts from 0 */
	collect(cur, top_tenant(1, "a", 0, 500000000, 0));
	collect(cur, top_tenant(3, "c", -1, 0, 0));
	cur->t = 2000000000;
}

static void top_case(const char *what, bool json, bool tty, unsigned long block,
		     const char *want)
{
	struct top_sample prev, cur;
	int r;

	samples(&prev, &cur);
	begin(json);
	r = top_print(&prev, &cur, 2000000000, tty, block);
	end();	/* before buf is read: it may move it */
	result(!r && !strcmp(buf, want), what, r ? "top_print failed" : buf, want);
	free(buf);
	free(prev.v);
	free(cur.v);
}

#define TOP_TABLE \
	"TENANT  GPU  SHARE  THROTTLED  WEIGHT  COMPUTE-MAX  PRIORITY  VRAM  VRAM-MAX  STATE\n" \
	"a       0    50.0%  0.0%       100     -            normal    1GiB  -         running\n" \
	"a       1    0.0%   0.0%       100     -            normal    0     -         running\n" \
	"b       0    25.0%  50.0%      300     50%          high      1GiB  8GiB      suspended(wait)\n" \
	"c       -    0.0%   0.0%       100     -            normal    0     -         -\n" \
	"d       0    10.0%  0.0%       100     -            normal    1GiB  -         -\n"

static void test_top(void)
{
	struct top_sample empty = { 0 }, none = { .t = 1000 };

	top_case("top: a block with its header, by name then GPU", false, false, 0,
		 "vgpuctl top: elapsed 2.000s interval 1.000s tenants 4\n" TOP_TABLE);
	top_case("top: later blocks after a blank line", false, false, 1,
		 "\nvgpuctl top: elapsed 2.000s interval 1.000s tenants 4\n" TOP_TABLE);
	top_case("top on a terminal: the screen cleared, no blank line", false, true, 3,
		 "\033[H\033[2Jvgpuctl top: elapsed 2.000s interval 1.000s tenants 4\n"
		 TOP_TABLE);
	top_case("top -j: one object per interval on a line", true, false, 1,
		 "{\"elapsed_s\":2.000,\"interval_s\":1.000,\"tenants\":["
		 "{\"name\":\"a\",\"id\":1,\"gpu\":0,\"share\":50.00,\"throttled\":0.00,"
		 "\"weight\":100,\"compute_max\":null,\"priority\":\"normal\","
		 "\"vram_current\":1073741824,\"vram_max\":null,\"state\":\"running\","
		 "\"resume_wait\":false},"
		 "{\"name\":\"a\",\"id\":1,\"gpu\":1,\"share\":0.00,\"throttled\":0.00,"
		 "\"weight\":100,\"compute_max\":null,\"priority\":\"normal\","
		 "\"vram_current\":0,\"vram_max\":null,\"state\":\"running\","
		 "\"resume_wait\":false},"
		 "{\"name\":\"b\",\"id\":2,\"gpu\":0,\"share\":25.00,\"throttled\":50.00,"
		 "\"weight\":300,\"compute_max\":5000,\"priority\":\"high\","
		 "\"vram_current\":1073741824,\"vram_max\":8589934592,"
		 "\"state\":\"suspended\",\"resume_wait\":true},"
		 "{\"name\":\"c\",\"id\":3,\"gpu\":null,\"share\":0.00,\"throttled\":0.00,"
		 "\"weight\":100,\"compute_max\":null,\"priority\":\"normal\","
		 "\"vram_current\":0,\"vram_max\":null,\"state\":null,\"resume_wait\":false},"
		 "{\"name\":\"d\",\"id\":4,\"gpu\":0,\"share\":10.00,\"throttled\":0.00,"
		 "\"weight\":100,\"compute_max\":null,\"priority\":\"normal\","
		 "\"vram_current\":1073741824,\"vram_max\":null,\"state\":null,"
		 "\"resume_wait\":false}]}\n");

	begin(false);
	top_print(&empty, &none, 1000, false, 0);
	end();
	result(!strcmp(buf, "vgpuctl top: elapsed 0.000s interval 0.000s tenants 0\n"
		       "TENANT  GPU  SHARE  THROTTLED  WEIGHT  COMPUTE-MAX  PRIORITY  VRAM  VRAM-MAX  STATE\n"),
	       "top: no tenant, the headers", buf, "headers only");
	free(buf);
	begin(true);
	top_print(&empty, &none, 1000, false, 0);
	end();
	result(!strcmp(buf, "{\"elapsed_s\":0.000,\"interval_s\":0.000,\"tenants\":[]}\n"),
	       "top -j: no tenant, an empty array", buf, "{...,\"tenants\":[]}");
	free(buf);
}

/* One check of vgpuctl_backstop_want(): @t on @g must want @soft, @hard. */
static void want_check(const char *what, const struct vgpu_bs_tenant *t,
		       const struct vgpu_bs_gpu *g, uint64_t soft, uint64_t hard)
{
	struct vgpu_bs_limits l;
	char got[64], want[64];

	vgpuctl_backstop_want(t, g, &l);
	snprintf(got, sizeof(got), "soft %llu hard %llu", (unsigned long long)l.soft,
		 (unsigned long long)l.hard);
	snprintf(want, sizeof(want), "soft %llu hard %llu", (unsigned long long)soft,
		 (unsigned long long)hard);
	result(!strcmp(got, want), what, got, want);
}

/* What a tenant wants held below libvgpu on a GPU (backstop.c). */
static void test_backstop_want(void)
{
	struct vgpu_bs_gpu g0 = { .present = true, .index = 0, .vram = 16ULL << 30 };
	struct vgpu_bs_gpu g1 = { .present = true, .index = 1, .vram = 1ULL << 30 };
	struct vgpu_bs_tenant t = { .name = "a", .cgroup = "/a" };

	want_check("backstop: no quota, no limit", &t, &g0, 0, VGPU_BS_NONE);
	t.has_max = t.has_min = true;
	t.max = 64ULL << 20;
	t.min = 32ULL << 20;
	want_check("backstop: vram-max is the hard limit, vram-min the soft one", &t, &g0,
		   32ULL << 20, 64ULL << 20);
	t.max = 4ULL << 30;
	t.min = 2ULL << 30;
	want_check("backstop: both at most the GPU's VRAM", &t, &g1, 1ULL << 30, 1ULL << 30);
	t.max = 16ULL << 20;
	want_check("backstop: the soft limit never above the hard one", &t, &g0,
		   16ULL << 20, 16ULL << 20);
	t.has_gpus = true;
	t.gpus = 1ULL << 1;
	want_check("backstop: none on a GPU outside gpus", &t, &g0, 0, VGPU_BS_NONE);
	want_check("backstop: the limits on a GPU inside gpus", &t, &g1, 16ULL << 20, 16ULL << 20);
}

int main(void)
{
	test_backstop_want();
	test_tenant();
	test_tstate();
	test_sched_placement();
	test_preempt_quotas();
	test_top();
	test_ps();
	test_host();
	return failures ? 1 : 0;
}
