# SPDX-License-Identifier: GPL-2.0
#
# vgpuctl's source files, listed once: ctl/Makefile builds vgpuctl and
# vgpu-nlsend from these lists, tests/fuzz/Makefile its harnesses, and
# tests/host/ctl.sh, metrics.sh and layers.sh read them with
#
#   make -s -C ctl -f sources.mk list-NAME     (paths from the top, sorted)
#
# A new file goes into VGPUCTL_SRCS, and into the layering table at the top
# of vgpuctl.h. Each unit test (tests/unit/test_NAME.c: UNIT_NAME) and fuzz
# harness (tests/fuzz/fuzz_NAME.c: FUZZ_NAME) links only the files it
# tests and those they call, down the layers; tests/host/layers.sh fails
# when a list holds more or less than that.

# Every file of vgpuctl, by folder, top to bottom: a folder's files call
# only their own folder's and those below (the table in vgpuctl.h).
VGPUCTL_SRCS := \
	cmd/main.c cmd/batch.c cmd/apply.c cmd/apply_diff.c cmd/apply_load.c cmd/hook.c \
	cmd/cdi.c cmd/agent.c cmd/metrics.c cmd/account.c cmd/monitor.c cmd/top.c cmd/proc.c cmd/tenant.c \
	cmd/tenant_final.c cmd/gpu.c cmd/probe.c cmd/host.c \
	ops/agent.c ops/agent_proc.c ops/hook_tenant.c ops/tenant_replace.c ops/tenant_suspend.c ops/tenant_send.c \
	enforce/backstop_show.c enforce/backstop.c enforce/placement.c enforce/backstop_read.c \
	enforce/backstop_nvml.c enforce/dmem.c enforce/cpuset.c enforce/ckpt_plan.c enforce/ckpt.c enforce/memroom.c \
	out/httpd_loop.c out/httpd_table.c out/httpd_conn.c out/httpd_listen.c out/httpd_tls.c \
	out/webconf.c out/webconf_yaml.c out/httpd_auth.c out/httpd.c out/acct_record.c \
	out/acct_state.c out/prom.c \
	conf/flavour.c conf/conf.c \
	oci/oci.c oci/oci_pod.c oci/oci_str.c oci/cgpath.c \
	obj/tenant_conf.c obj/tenant_procs.c obj/gpu_msg.c obj/tenant_print.c obj/snap.c obj/final.c \
	obj/tenant_state.c lib/util.c lib/print.c lib/json.c lib/parse.c lib/parse_id.c lib/parse_cgroup.c \
	lib/parse_sched.c lib/parse_meta.c lib/nl.c lib/file.c

# What tests/tools/vgpu-nlsend takes of them.
VGPU_NLSEND_SRCS := lib/nl.c

# What an error line (util.c's vgpuctl_error()) brings with it: the
# handle, the print path, the parsers the printers use.
VGPUCTL_BASE := lib/util.c lib/nl.c lib/print.c lib/json.c lib/parse.c lib/parse_meta.c lib/parse_sched.c

# The unit tests.
UNIT_parse := lib/parse.c lib/parse_id.c lib/parse_cgroup.c
UNIT_parse_sched := lib/parse_sched.c
UNIT_cpuset := enforce/cpuset.c
UNIT_meta := lib/parse_meta.c
UNIT_dmem := enforce/dmem.c
UNIT_memroom := enforce/memroom.c
UNIT_ckpt_plan := enforce/ckpt_plan.c
UNIT_batch := cmd/batch.c
# The reply printers, and what the backstop wants (backstop.c).
UNIT_print := obj/tenant_print.c obj/tenant_state.c obj/gpu_msg.c obj/final.c enforce/backstop.c enforce/backstop_read.c enforce/backstop_nvml.c \
	enforce/dmem.c lib/parse_id.c lib/parse_cgroup.c $(VGPUCTL_BASE)
# apply's reader and diff, with the parsers of the records' words.
UNIT_apply := cmd/apply_load.c cmd/apply_diff.c conf/conf.c conf/flavour.c cmd/host.c obj/tenant_conf.c obj/gpu_msg.c \
	lib/parse_id.c lib/parse_cgroup.c $(VGPUCTL_BASE)
UNIT_prom := out/prom.c obj/snap.c obj/final.c out/httpd.c lib/nl.c lib/parse.c
UNIT_account := out/acct_state.c out/acct_record.c obj/snap.c obj/final.c lib/nl.c lib/parse.c lib/parse_id.c lib/json.c

# The fuzz harnesses.
FUZZ_size := lib/parse.c
FUZZ_pct := lib/parse.c
FUZZ_cpulist := lib/parse.c
FUZZ_http := out/httpd.c out/httpd_conn.c out/httpd_tls.c out/httpd_auth.c out/webconf.c out/webconf_yaml.c \
	$(VGPUCTL_BASE)
FUZZ_oci_state := oci/oci.c oci/oci_str.c oci/oci_pod.c $(VGPUCTL_BASE)
FUZZ_oci_config := $(FUZZ_oci_state) oci/cgpath.c lib/parse_cgroup.c
FUZZ_conf := $(UNIT_apply)

# A list, as paths from the top of the tree, each file once.
list-%:
	@$(if $(strip $($*)),echo $(addprefix ctl/,$(sort $($*))),echo "ctl/sources.mk: no list $*" >&2; exit 1)

# The names of the lists with a prefix: names-UNIT_, names-FUZZ_.
names-%:
	@echo $(patsubst $*%,%,$(sort $(filter $*%,$(.VARIABLES))))
