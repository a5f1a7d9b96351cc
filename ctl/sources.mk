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

# Every file of vgpuctl.
VGPUCTL_SRCS := main.c batch.c util.c nl.c parse.c parse_id.c parse_cgroup.c parse_sched.c \
	parse_meta.c json.c print.c gpu.c gpu_msg.c probe.c tenant.c tenant_send.c tenant_conf.c \
	tenant_replace.c tenant_print.c tenant_final.c final.c \
	placement.c cpuset.c backstop.c backstop_read.c backstop_show.c backstop_nvml.c dmem.c \
	proc.c host.c monitor.c top.c \
	snap.c prom.c httpd.c httpd_listen.c httpd_conn.c httpd_tls.c httpd_auth.c httpd_table.c \
	httpd_loop.c webconf.c webconf_yaml.c file.c metrics.c acct_state.c acct_record.c account.c \
	conf.c flavour.c cdi.c apply.c apply_load.c apply_diff.c oci.c oci_str.c oci_pod.c cgpath.c \
	hook.c hook_tenant.c

# What tests/tools/vgpu-nlsend takes of them.
VGPU_NLSEND_SRCS := nl.c

# What an error line (util.c's vgpuctl_error()) brings with it: the
# handle, the print path, the parsers the printers use.
VGPUCTL_BASE := util.c nl.c print.c json.c parse.c parse_meta.c parse_sched.c

# The unit tests.
UNIT_parse := parse.c parse_id.c parse_cgroup.c
UNIT_parse_sched := parse_sched.c
UNIT_cpuset := cpuset.c
UNIT_meta := parse_meta.c
UNIT_dmem := dmem.c
UNIT_batch := batch.c
# The reply printers, and what the backstop wants (backstop.c).
UNIT_print := tenant_print.c gpu_msg.c final.c backstop.c backstop_read.c backstop_nvml.c \
	dmem.c parse_id.c parse_cgroup.c $(VGPUCTL_BASE)
# apply's reader and diff, with the parsers of the records' words.
UNIT_apply := apply_load.c apply_diff.c conf.c flavour.c host.c tenant_conf.c gpu_msg.c \
	parse_id.c parse_cgroup.c $(VGPUCTL_BASE)
UNIT_prom := prom.c snap.c final.c httpd.c nl.c parse.c
UNIT_account := acct_state.c acct_record.c snap.c final.c nl.c parse.c parse_id.c json.c

# The fuzz harnesses.
FUZZ_size := parse.c
FUZZ_pct := parse.c
FUZZ_cpulist := parse.c
FUZZ_http := httpd.c httpd_conn.c httpd_tls.c httpd_auth.c webconf.c webconf_yaml.c \
	$(VGPUCTL_BASE)
FUZZ_oci_state := oci.c oci_str.c oci_pod.c $(VGPUCTL_BASE)
FUZZ_oci_config := $(FUZZ_oci_state) cgpath.c parse_cgroup.c
FUZZ_conf := $(UNIT_apply)

# A list, as paths from the top of the tree, each file once.
list-%:
	@$(if $(strip $($*)),echo $(addprefix ctl/,$(sort $($*))),echo "ctl/sources.mk: no list $*" >&2; exit 1)

# The names of the lists with a prefix: names-UNIT_, names-FUZZ_.
names-%:
	@echo $(patsubst $*%,%,$(sort $(filter $*%,$(.VARIABLES))))
