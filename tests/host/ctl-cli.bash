# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by tests/host/ctl.sh: vgpuctl and vgpu-nlsend without the module
# (help, usage errors, exit statuses) and vgpuctl -b. Uses its run,
# expect_help, expect_error, pass, fail, oneline, probe_checks, nocap, $tmp,
# $cgmnt and $nomod.

# cli_checks SUITE VGPUCTL NLSEND: vgpuctl and vgpu-nlsend without the
# module (help, usage errors, exit statuses), in parts of one concern each.

# cli_help_checks SUITE VGPUCTL NLSEND: the help texts and the version.
cli_help_checks() {
	local s=$1 v=$2 n=$3
	expect_help "$s" "$v" help
	expect_help "$s" "$v" -h
	expect_help "$s" "$v" --help
	expect_help "$s" "$v" gpu help
	expect_help "$s" "$v" backstop help
	expect_help "$s" "$v" backstop sync help
	expect_help "$s" "$v" g help
	expect_help "$s" "$v" gpu add help
	expect_help "$s" "$v" tenant help
	expect_help "$s" "$v" t help
	expect_help "$s" "$v" tenant set help
	expect_help "$s" "$v" monitor help
	expect_help "$s" "$v" gpu probe help
	expect_help "$s" "$v" ps help
	expect_help "$s" "$v" show help
	expect_help "$s" "$v" set help
	expect_help "$s" "$v" -j set -h
	expect_help "$s" "$v" top help
	expect_help "$s" "$v" to -h
	expect_help "$s" "$v" -j top --help
	run "$v" help
	local o
	for o in "vgpuctl gpu probe" "vgpuctl ps" "vgpuctl show" "vgpuctl set default" \
		 "vgpuctl set monitor-group" "vgpuctl tenant replace" "vgpuctl tenant final ack SEQ" \
		 "label KEY=VALUE" "[ephemeral]" \
		 "vgpuctl top [-d SECONDS] [-n ITERATIONS]" "placement { manual | auto }" \
		 "exclusive { on | off }" "preemptible { on | off }" "vram-wait WAIT" \
		 "WAIT := seconds, 0-600"; do
		if grep -qF -- "$o" "$tmp/out"; then pass "$s" "help names $o"
		else fail "$s" "help names $o" "$(oneline "$tmp/out")"; fi
	done
	expect_help "$s" "$v" -j tenant help
	run "$v" -V
	if [ "$rc" -eq 0 ] && grep -q '^vgpuctl ' "$tmp/out"; then
		pass "$s" "vgpuctl -V prints the version"
	else
		fail "$s" "vgpuctl -V prints the version" "exit $rc: $(oneline "$tmp/out")"
	fi
}

# cli_gpu_checks SUITE VGPUCTL NLSEND: usage errors of the objects, gpu and backstop.
cli_gpu_checks() {
	local s=$1 v=$2 n=$3
	expect_error "$s" 2 'Error: missing OBJECT; try "vgpuctl help".' "$v"
	expect_error "$s" 2 'Error: unknown object "frob"; try "vgpuctl help".' "$v" frob
	expect_error "$s" 2 'Error: unknown option "-x"; try "vgpuctl help".' "$v" -x gpu show
	expect_error "$s" 2 'Error: unknown option "--frob"; try "vgpuctl help".' "$v" --frob gpu
	expect_error "$s" 2 'Error: unknown command "frob" for gpu; try "vgpuctl gpu help".' "$v" gpu frob
	expect_error "$s" 2 'Error: unknown command "frob" for tenant; try "vgpuctl tenant help".' "$v" tenant frob
	expect_error "$s" 2 'Error: missing INDEX for gpu add.' "$v" gpu add
	expect_error "$s" 2 'Error: invalid INDEX "64" for gpu add (0-63).' "$v" gpu add 64 vram 1G
	expect_error "$s" 2 'Error: invalid INDEX "-1" for gpu add (0-63).' "$v" gpu add -1 vram 1G
	expect_error "$s" 2 'Error: vram is required.' "$v" gpu add 0
	expect_error "$s" 2 'Error: vram is required.' "$v" gpu add 0 numa 0
	expect_error "$s" 2 'Error: invalid SIZE "8X" for vram.' "$v" gpu add 0 vram 8X
	expect_error "$s" 2 'Error: invalid SIZE "16777216T" for vram.' "$v" gpu add 0 vram 16777216T
	expect_error "$s" 2 'Error: missing value for vram.' "$v" gpu add 0 vram
	expect_error "$s" 2 'Error: duplicate key "vram" for gpu add.' "$v" gpu add 0 vram 1G vram 2G
	expect_error "$s" 2 'Error: invalid UUID "GPU-1" for uuid.' "$v" gpu add 0 vram 1G uuid GPU-1
	expect_error "$s" 2 'Error: invalid BUSID "3b:00.0" for pci.' "$v" gpu add 0 vram 1G pci 3b:00.0
	expect_error "$s" 2 'Error: invalid NODE "-2" for numa (-1 to 1023).' "$v" gpu add 0 vram 1G numa -2
	expect_error "$s" 2 'Error: unknown key "colour" for gpu add.' "$v" gpu add 0 vram 1G colour red
	expect_error "$s" 2 'Error: missing INDEX for gpu del.' "$v" gpu del
	expect_error "$s" 2 'Error: invalid INDEX "x" for gpu del (0-63).' "$v" gpu del x
	expect_error "$s" 2 'Error: unexpected argument "2" for gpu del.' "$v" gpu del 1 2
	expect_error "$s" 2 'Error: invalid INDEX "64" for gpu show (0-63).' "$v" gpu show 64
	expect_error "$s" 2 'Error: unexpected argument "2" for gpu show.' "$v" gpu list 1 2

	expect_error "$s" 2 'Error: missing COMMAND for backstop; try "vgpuctl backstop help".' "$v" backstop
	expect_error "$s" 2 'Error: unknown command "frob" for backstop; try "vgpuctl backstop help".' \
		"$v" backstop frob
	expect_error "$s" 2 'Error: unexpected argument "b" for backstop sync.' "$v" backstop sync a b
	expect_error "$s" 2 'Error: invalid NAME "a b" for backstop sync (1-63 printable characters, no spaces).' \
		"$v" backstop sync "a b"
}

# cli_tenant_checks SUITE VGPUCTL NLSEND: usage errors of tenant add and set.
cli_tenant_checks() {
	local s=$1 v=$2 n=$3
	expect_error "$s" 2 'Error: missing NAME for tenant add.' "$v" tenant add
	expect_error "$s" 2 'Error: cgroup is required.' "$v" tenant add a
	expect_error "$s" 2 'Error: cgroup is required.' "$v" tenant add a weight 5
	expect_error "$s" 2 'Error: invalid SIZE "8X" for vram-max.' "$v" tenant add a cgroup a vram-max 8X
	expect_error "$s" 2 'Error: unknown key "foo" for tenant add.' "$v" tenant add a cgroup a foo 1
	expect_error "$s" 2 'Error: missing value for weight.' "$v" tenant add a cgroup a weight
	expect_error "$s" 2 'Error: missing value for cgroup.' "$v" tenant add a cgroup
	expect_error "$s" 2 'Error: duplicate key "cgroup" for tenant add.' "$v" tenant add a cgroup a cgroup b
	expect_error "$s" 2 'Error: duplicate key "weight" for tenant add.' "$v" tenant add a cgroup a weight 1 weight 2
	expect_error "$s" 2 "Error: cgroup path must be under $cgmnt." "$v" tenant add a cgroup /tmp
	expect_error "$s" 2 "Error: cgroup path must be under $cgmnt." "$v" tenant add a cgroup ../x
	expect_error "$s" 2 'Error: invalid NAME "a b" for tenant add (1-63 printable characters, no spaces).' \
		"$v" tenant add "a b" cgroup a
	expect_error "$s" 2 "" "$v" tenant add "$(printf 'x%.0s' $(seq 64))" cgroup a
	expect_error "$s" 2 'Error: invalid N "0" for weight (1-10000).' "$v" tenant add a cgroup a weight 0
	expect_error "$s" 2 'Error: invalid N "10001" for weight (1-10000).' "$v" tenant add a cgroup a weight 10001
	expect_error "$s" 2 'Error: invalid PCT "101%" for compute-max (0-100, at most 2 decimals).' \
		"$v" tenant add a cgroup a compute-max 101%
	expect_error "$s" 2 'Error: invalid PCT "37.125" for compute-max (0-100, at most 2 decimals).' \
		"$v" tenant add a cgroup a compute-max 37.125
	expect_error "$s" 2 'Error: invalid PRIORITY "urgent" for priority (low, normal or high).' \
		"$v" tenant add a cgroup a priority urgent
	expect_error "$s" 2 'Error: invalid LIST "64" for gpus.' "$v" tenant add a cgroup a gpus 64
	expect_error "$s" 2 'Error: invalid LIST "3-1" for cpus.' "$v" tenant add a cgroup a cpus 3-1
	expect_error "$s" 2 'Error: invalid LIST "" for mems.' "$v" tenant add a cgroup a mems ""
	expect_error "$s" 2 'Error: invalid SIZE "none" for vram-max.' "$v" tenant add a cgroup a vram-max none
	expect_error "$s" 2 'Error: missing NAME for tenant set.' "$v" tenant set
	expect_error "$s" 2 'Error: tenant set needs at least one QUOTA VALUE or label.' "$v" tenant set a
}

# cli_meta_checks SUITE VGPUCTL NLSEND: usage errors of labels, ephemeral,
# replace, final records, the host settings and probe.
cli_meta_checks() {
	local s=$1 v=$2 n=$3
	local badkey='Error: invalid label "%s" (KEY=VALUE, KEY: 1-63 letters, digits and ._/- starting with a letter or digit).'
	local k64 l17 l33 i
	k64=$(printf 'k%.0s' $(seq 64))
	# shellcheck disable=SC2059
	for l in team -x=1 "a b=1" =v "$k64=v" "a:b=c"; do
		expect_error "$s" 2 "$(printf "$badkey" "$l")" "$v" tenant add a cgroup a label "$l"
	done
	expect_error "$s" 2 'Error: invalid VALUE in label "k=a	b" (at most 255 printable ASCII characters).' \
		"$v" tenant add a cgroup a label "k=a	b"
	expect_error "$s" 2 "Error: invalid VALUE in label \"k=$(printf 'v%.0s' $(seq 256))\" (at most 255 printable ASCII characters)." \
		"$v" tenant set a label "k=$(printf 'v%.0s' $(seq 256))"
	expect_error "$s" 2 'Error: label "k=" has no value ("label KEY=" removes a label in tenant set).' \
		"$v" tenant add a cgroup a label k=
	expect_error "$s" 2 'Error: duplicate label "k" for tenant add.' "$v" tenant add a cgroup a label k=1 label k=2
	expect_error "$s" 2 'Error: duplicate label "k" for tenant set.' "$v" tenant set a label k=1 label k=
	expect_error "$s" 2 'Error: missing value for label.' "$v" tenant set a label
	l17="" l33=""
	for i in $(seq 17); do l17="$l17 label k$i=v"; done
	for i in $(seq 33); do l33="$l33 label k$i="; done
	# shellcheck disable=SC2086
	expect_error "$s" 2 'Error: too many labels for tenant add (at most 16).' "$v" tenant add a cgroup a $l17
	# shellcheck disable=SC2086
	expect_error "$s" 2 'Error: too many labels for tenant set (at most 32).' "$v" tenant set a $l33
	expect_error "$s" 2 'Error: duplicate key "ephemeral" for tenant add.' "$v" tenant add a cgroup a ephemeral ephemeral
	expect_error "$s" 2 'Error: unknown key "ephemeral" for tenant set.' "$v" tenant set a ephemeral
	expect_error "$s" 2 'Error: missing NAME for tenant replace.' "$v" tenant replace
	expect_error "$s" 2 'Error: cgroup is required.' "$v" tenant replace a weight 5
	expect_error "$s" 2 'Error: unknown key "none" for tenant replace.' "$v" tenant replace a cgroup a none 1
	expect_error "$s" 2 'Error: missing SEQ for tenant final ack.' "$v" tenant final ack
	for i in x -1 1x "" 18446744073709551616; do
		expect_error "$s" 2 "Error: invalid SEQ \"$i\" for tenant final ack (a final-seq)." \
			"$v" tenant final ack "$i"
	done
	expect_error "$s" 2 'Error: unexpected argument "2" for tenant final ack.' "$v" tenant final ack 1 2
	expect_error "$s" 2 'Error: unexpected argument "x" for tenant final show.' "$v" tenant final show x
	expect_error "$s" 2 'Error: unknown command "frob" for tenant final; try "vgpuctl tenant help".' \
		"$v" tenant final frob
	expect_error "$s" 2 'Error: missing value for monitor-group.' "$v" set monitor-group
	expect_error "$s" 2 'Error: invalid GROUP "no-such-group-x" for monitor-group (a group name or number, or none).' \
		"$v" set monitor-group no-such-group-x
	expect_error "$s" 2 'Error: invalid GROUP "4294967295" for monitor-group (a group name or number, or none).' \
		"$v" host set monitor-group 4294967295
	expect_error "$s" 2 'Error: duplicate key "monitor-group" for set.' "$v" set monitor-group 1 monitor-group 2
	expect_error "$s" 2 'Error: unknown command "frob" for host; try "vgpuctl host help".' "$v" host frob
	expect_error "$s" 2 'Error: unexpected argument "x" for show.' "$v" host show x
	expect_error "$s" 2 'Error: unknown key "cgroup" for tenant set.' "$v" tenant set a cgroup b
	expect_error "$s" 2 'Error: duplicate key "weight" for tenant set.' "$v" tenant set a weight none weight 2
	expect_error "$s" 2 'Error: missing value for mems.' "$v" tenant set a weight 2 mems
	expect_error "$s" 2 'Error: invalid SIZE "-1G" for vram-min.' "$v" tenant set a vram-min -1G
	expect_error "$s" 2 'Error: missing NAME for tenant del.' "$v" tenant del
	expect_error "$s" 2 'Error: unexpected argument "b" for tenant del.' "$v" tenant del a b
	expect_error "$s" 2 'Error: unexpected argument "b" for tenant show.' "$v" tenant show a b
	expect_error "$s" 2 'Error: unexpected argument "x" for monitor.' "$v" monitor x
	expect_error "$s" 2 'Error: unexpected argument "x" for ps.' "$v" ps x
	expect_error "$s" 2 'Error: unexpected argument "all" for ps.' "$v" -j ps all
	expect_error "$s" 2 'Error: unexpected argument "x" for show.' "$v" show x
	expect_error "$s" 2 'Error: missing KEY for set; try "vgpuctl set help".' "$v" set
	expect_error "$s" 2 'Error: unknown key "policy" for set.' "$v" set policy deny
	expect_error "$s" 2 'Error: missing value for default.' "$v" set default
	expect_error "$s" 2 'Error: invalid POLICY "maybe" for default (allow or deny).' "$v" set default maybe
	expect_error "$s" 2 'Error: invalid POLICY "Deny" for default (allow or deny).' "$v" set default Deny
	expect_error "$s" 2 'Error: duplicate key "default" for set.' "$v" set default allow default deny
	expect_error "$s" 2 'Error: unknown key "x" for set.' "$v" set default allow x
	expect_error "$s" 2 'Error: unexpected argument "x" for gpu probe.' "$v" gpu probe x
	expect_error "$s" 2 'Error: unexpected argument "--dry-run" for gpu probe.' "$v" gpu probe --dry-run --dry-run
	expect_error "$s" 2 'Error: unexpected argument "x" for gpu probe.' nocap "$v" gpu probe x
}

# cli_gpu_choice_checks SUITE VGPUCTL NLSEND: usage errors of gpu set, gpus
# auto and set gpu-policy (issue #18).
cli_gpu_choice_checks() {
	local s=$1 v=$2 n=$3
	expect_help "$s" "$v" gpu set help
	expect_error "$s" 2 'Error: missing INDEX for gpu set.' "$v" gpu set
	expect_error "$s" 2 'Error: invalid INDEX "64" for gpu set (0-63).' "$v" gpu set 64 state draining
	expect_error "$s" 2 'Error: missing KEY for gpu set (nvlink or state).' "$v" gpu set 0
	expect_error "$s" 2 'Error: unknown key "health" for gpu set.' "$v" gpu set 0 health bad
	expect_error "$s" 2 'Error: missing value for state.' "$v" gpu set 0 state
	expect_error "$s" 2 'Error: invalid STATE "sick" for state (healthy, unhealthy or draining).' \
		"$v" gpu set 0 state sick
	expect_error "$s" 2 'Error: invalid LIST "1-" for nvlink.' "$v" gpu set 0 nvlink 1-
	expect_error "$s" 2 'Error: invalid LIST "64" for nvlink.' "$v" gpu set 0 nvlink 64
	expect_error "$s" 2 'Error: duplicate key "state" for gpu set.' \
		"$v" gpu set 0 state draining state healthy
	expect_error "$s" 2 'Error: reason goes with state.' "$v" gpu set 0 reason "fan failure"
	expect_error "$s" 2 'Error: a healthy GPU has no reason.' "$v" gpu set 0 state healthy reason x
	expect_error "$s" 2 'Error: invalid TEXT for reason (1-127 printable characters).' \
		"$v" gpu set 0 state draining reason ""
	expect_error "$s" 2 'Error: invalid TEXT for reason (1-127 printable characters).' \
		"$v" gpu set 0 state draining reason "$(printf 'x%.0s' $(seq 128))"
	expect_error "$s" 2 'Error: invalid TEXT for reason (1-127 printable characters).' \
		"$v" gpu set 0 state draining reason "$(printf 'a\tb')"
	expect_error "$s" 2 'Error: missing COUNT for gpus auto.' "$v" tenant add a cgroup a gpus auto
	expect_error "$s" 2 'Error: invalid COUNT "0" for gpus auto (1-64).' "$v" tenant add a cgroup a gpus auto 0
	expect_error "$s" 2 'Error: invalid COUNT "65" for gpus auto (1-64).' "$v" tenant set a gpus auto 65
	expect_error "$s" 2 'Error: invalid COUNT "two" for gpus auto (1-64).' "$v" tenant set a gpus auto two
	expect_error "$s" 2 'Error: duplicate key "gpus" for tenant add.' \
		"$v" tenant add a cgroup a gpus 0 gpus auto 1
	expect_error "$s" 2 'Error: duplicate key "gpus" for tenant set.' "$v" tenant set a gpus auto 1 gpus 1
	expect_error "$s" 2 'Error: missing value for gpu-policy.' "$v" set gpu-policy
	expect_error "$s" 2 'Error: invalid POLICY "pack" for gpu-policy (binpack or spread).' \
		"$v" set gpu-policy pack
	expect_error "$s" 2 'Error: duplicate key "gpu-policy" for set.' \
		"$v" set gpu-policy spread gpu-policy binpack
	run "$v" help
	local o
	for o in "vgpuctl gpu set INDEX [nvlink { LIST | none }]" "gpus { LIST | auto COUNT }" \
		 "vgpuctl set gpu-policy { binpack | spread }"; do
		if grep -qF -- "$o" "$tmp/out"; then pass "$s" "help names $o"
		else fail "$s" "help names $o" "$(oneline "$tmp/out")"; fi
	done
}

# cli_placement_top_checks SUITE VGPUCTL NLSEND: placement keys and top.
cli_placement_top_checks() {
	local s=$1 v=$2 n=$3
	# Placement keys (issue #6).
	expect_error "$s" 2 'Error: invalid PLACEMENT "fixed" for placement (manual or auto).' \
		"$v" tenant add a cgroup a placement fixed
	expect_error "$s" 2 'Error: invalid PLACEMENT "Auto" for placement (manual or auto).' \
		"$v" tenant set a placement Auto
	expect_error "$s" 2 'Error: invalid PLACEMENT "none" for placement (manual or auto).' \
		"$v" tenant add a cgroup a placement none
	expect_error "$s" 2 'Error: invalid VALUE "yes" for exclusive (on or off).' \
		"$v" tenant add a cgroup a exclusive yes
	expect_error "$s" 2 'Error: invalid VALUE "1" for exclusive (on or off).' \
		"$v" tenant set a exclusive 1
	expect_error "$s" 2 'Error: invalid VALUE "none" for exclusive (on or off).' \
		"$v" tenant add a cgroup a exclusive none
	expect_error "$s" 2 'Error: missing value for exclusive.' "$v" tenant set a placement auto exclusive
	expect_error "$s" 2 'Error: duplicate key "placement" for tenant set.' \
		"$v" tenant set a placement auto placement none
	expect_error "$s" 2 'Error: duplicate key "exclusive" for tenant add.' \
		"$v" tenant add a cgroup a exclusive on exclusive off
	expect_error "$s" 2 'Error: unknown key "cpus-effective" for tenant set.' \
		"$v" tenant set a cpus-effective 0
	expect_error "$s" 2 'Error: invalid PLACEMENT "x" for placement (manual or auto).' \
		nocap "$v" tenant set a placement x

	# Preemption's quotas (issue 31): on|off, and seconds up to 600.
	expect_error "$s" 2 'Error: invalid VALUE "yes" for preemptible (on or off).' \
		"$v" tenant add a cgroup a preemptible yes
	expect_error "$s" 2 'Error: invalid VALUE "1" for preemptible (on or off).' \
		"$v" tenant set a preemptible 1
	expect_error "$s" 2 'Error: duplicate key "preemptible" for tenant set.' \
		"$v" tenant set a preemptible on preemptible none
	expect_error "$s" 2 'Error: missing value for vram-wait.' "$v" tenant set a preemptible on vram-wait
	expect_error "$s" 2 'Error: duplicate key "vram-wait" for tenant add.' \
		"$v" tenant add a cgroup a vram-wait 1 vram-wait 2
	for d in 601 600.001 -1 1.2345 .5 1. 30s 500ms 2m abc "" none 4294967.296; do
		expect_error "$s" 2 "Error: invalid WAIT \"$d\" for vram-wait (0-600 seconds, at most 3 decimals)." \
			"$v" tenant add a cgroup a vram-wait "$d"
	done
	expect_error "$s" 2 'Error: invalid WAIT "601" for vram-wait (0-600 seconds, at most 3 decimals).' \
		"$v" tenant set a vram-wait 601
	expect_error "$s" 2 'Error: invalid VALUE "maybe" for preemptible (on or off).' \
		"$v" hook create-runtime preemptible maybe

	# top (issue #5): usage errors exit 2 before anything is opened.
	expect_error "$s" 2 'Error: unexpected argument "x" for top.' "$v" top x
	expect_error "$s" 2 'Error: unexpected argument "-j" for top.' "$v" top -j
	expect_error "$s" 2 'Error: missing value for -d.' "$v" top -d
	expect_error "$s" 2 'Error: missing value for -n.' "$v" top -d 1 -n
	expect_error "$s" 2 'Error: duplicate option "-d" for top.' "$v" top -d 1 -d 2
	expect_error "$s" 2 'Error: duplicate option "--iterations" for top.' "$v" top -n 1 --iterations 2
	local d
	for d in 0 0.0 -1 1.2345 .5 1. 1s 86401 abc ""; do
		expect_error "$s" 2 "Error: invalid SECONDS \"$d\" for -d (0.001-86400, at most 3 decimals)." \
			"$v" top -d "$d"
	done
	expect_error "$s" 2 'Error: invalid SECONDS "0" for --delay (0.001-86400, at most 3 decimals).' \
		"$v" top --delay 0
	for d in 0 -1 x 4294967296 1.5; do
		expect_error "$s" 2 "Error: invalid ITERATIONS \"$d\" for -n (1-4294967295)." "$v" top -n "$d"
	done
}

# cli_module_checks SUITE VGPUCTL NLSEND: what needs the module, CAP_NET_ADMIN, and vgpu-nlsend's usage.
cli_module_checks() {
	local s=$1 v=$2 n=$3
	if [ -d /sys/module/vgpu ]; then
		echo "# note: vgpu is loaded on this host; module-not-loaded checks replaced"
		run "$v" gpu show
		if [ "$rc" -eq 0 ]; then pass "$s" "gpu show with the module loaded"
		else fail "$s" "gpu show with the module loaded" "exit $rc: $(oneline "$tmp/err")"; fi
	else
		expect_error "$s" 1 "$nomod" "$v" gpu show
		expect_error "$s" 1 "$nomod" "$v" gpu show 3
		expect_error "$s" 1 "$nomod" "$v" -j gpu show
		expect_error "$s" 1 "$nomod" "$v" -p tenant show
		expect_error "$s" 1 "$nomod" "$v" tenant list team-a
		expect_error "$s" 1 "$nomod" "$v" monitor
		expect_error "$s" 1 "$nomod" "$v" m
		expect_error "$s" 1 "$nomod" "$v" ps
		expect_error "$s" 1 "$nomod" "$v" -j ps
		expect_error "$s" 1 "$nomod" "$v" show
		expect_error "$s" 1 "$nomod" "$v" -p show
		expect_error "$s" 1 "$nomod" "$v" top -n 2 -d 0.2
		expect_error "$s" 1 "$nomod" "$v" -j top -n 1 -d 0.001
		expect_error "$s" 1 "$nomod" "$v" to
		if has_net_admin; then
			expect_error "$s" 1 "$nomod" "$v" set default deny
			if [ "${#simgpu_env[@]}" -gt 0 ]; then
				expect_error "$s" 1 "$nomod" env "${simgpu_env[@]}" "$v" gpu probe
			fi
			expect_error "$s" 1 "$nomod" "$v" gpu add 0 vram 1G
			expect_error "$s" 1 "$nomod" "$v" tenant add a cgroup a vram-max 1.5G gpus 0-1 cpus 0-3,8
			expect_error "$s" 1 "$nomod" "$v" tenant set a vram-max none weight 5
			expect_error "$s" 1 "$nomod" "$v" tenant add a cgroup a placement auto exclusive on
			expect_error "$s" 1 "$nomod" "$v" tenant set a placement none exclusive off cpus none
			expect_error "$s" 1 "$nomod" "$v" tenant add a cgroup a preemptible on vram-wait 0.5
			expect_error "$s" 1 "$nomod" "$v" tenant set a preemptible none vram-wait 600
			expect_error "$s" 1 "$nomod" "$v" tenant del a
		fi
		expect_error "$s" 1 "$nomod" "$n" gpu-get
		expect_error "$s" 1 "$nomod" "$n" -d tenant-get
		expect_error "$s" 1 "$nomod" "$n" -d proc-get
		expect_error "$s" 1 "$nomod" "$n" host-get
		expect_error "$s" 1 "$nomod" "$n" host-set u32:1=1
		expect_error "$s" 1 "$nomod" "$n" proc-register u32:4=3
	fi

	# Without CAP_NET_ADMIN a mutation is refused before anything is sent
	# (tested by dropping the capability, since the tests run as root).
	if nocap true 2> /dev/null; then
		local msg="Error: this command needs CAP_NET_ADMIN (run it as root)."
		expect_error "$s" 1 "$msg" nocap "$v" gpu add 0 vram 1G
		expect_error "$s" 1 "$msg" nocap "$v" gpu del 0
		expect_error "$s" 1 "$msg" nocap "$v" tenant add a cgroup a
		expect_error "$s" 1 "$msg" nocap "$v" tenant set a weight 3
		expect_error "$s" 1 "$msg" nocap "$v" tenant set a placement auto exclusive on
		[ -d /sys/module/vgpu ] || expect_error "$s" 1 "$nomod" nocap "$v" top -n 1
		expect_error "$s" 1 "$msg" nocap "$v" tenant del a
		expect_error "$s" 1 "$msg" nocap "$v" set default deny
		expect_error "$s" 1 "$msg" nocap "$v" gpu probe
		[ -d /sys/module/vgpu ] || expect_error "$s" 1 "$nomod" nocap "$v" ps
		[ -d /sys/module/vgpu ] || expect_error "$s" 1 "$nomod" nocap "$v" show
		expect_error "$s" 2 'Error: missing value for default.' nocap "$v" set default
		[ -d /sys/module/vgpu ] || expect_error "$s" 1 "$nomod" nocap "$v" gpu show
		expect_error "$s" 2 'Error: vram is required.' nocap "$v" gpu add 0
	else
		echo "# note: cannot drop CAP_NET_ADMIN here (setpriv); privilege checks not run"
	fi

	expect_error "$s" 2 "" "$n"
	expect_error "$s" 2 "" "$n" frob
	expect_error "$s" 2 "" "$n" gpu-get u32:1
	expect_error "$s" 2 "" "$n" gpu-get x32:1=1
	expect_error "$s" 2 "" "$n" gpu-get u32:1=4294967296
	expect_error "$s" 2 "" "$n" gpu-get bin:1=abc
}

# cli_suspend_checks SUITE VGPUCTL NLSEND: tenant suspend and resume, and the
# agent: help, usage errors, the privilege check, the module and the driver.
cli_suspend_checks() {
	local s=$1 v=$2 verb arg o
	expect_help "$s" "$v" agent help
	expect_help "$s" "$v" tenant suspend help
	run "$v" help
	for o in "vgpuctl tenant { suspend | resume } NAME [wait SECS | nowait]" \
		 "vgpuctl agent [lock-timeout MS]"; do
		if grep -qF -- "$o" "$tmp/out"; then pass "$s" "help names $o"
		else fail "$s" "help names $o" "$(oneline "$tmp/out")"; fi
	done
	for verb in suspend resume; do
		expect_error "$s" 2 "Error: missing NAME for tenant $verb." "$v" tenant "$verb"
		expect_error "$s" 2 "Error: invalid NAME \"a b\" for tenant $verb (1-63 printable characters, no spaces)." \
			"$v" tenant "$verb" "a b"
		expect_error "$s" 2 "Error: missing SECS after \"wait\" for tenant $verb." \
			"$v" tenant "$verb" a wait
		for arg in 0 -1 1.0001 x 86401 1s ""; do
			expect_error "$s" 2 "Error: invalid wait \"$arg\" for tenant $verb: want seconds, 0.001 to 86400." \
				"$v" tenant "$verb" a wait "$arg"
		done
		expect_error "$s" 2 "Error: unexpected argument \"now\" for tenant $verb." \
			"$v" tenant "$verb" a now
		expect_error "$s" 2 "Error: unexpected argument \"b\" for tenant $verb." \
			"$v" tenant "$verb" a nowait b
	done
	expect_error "$s" 2 'Error: unexpected argument "frob" for agent.' "$v" agent frob
	expect_error "$s" 2 'Error: missing MS after "lock-timeout" for agent.' "$v" agent lock-timeout
	for arg in -1 x 3600001 1.5 ""; do
		expect_error "$s" 2 "Error: invalid lock-timeout \"$arg\" for agent: want milliseconds, 0 to 3600000." \
			"$v" agent lock-timeout "$arg"
	done
	expect_error "$s" 2 'Error: unexpected argument "x" for agent.' "$v" agent lock-timeout 5 x
	if nocap true 2> /dev/null; then
		o="Error: this command needs CAP_NET_ADMIN (run it as root)."
		expect_error "$s" 1 "$o" nocap "$v" tenant suspend a
		expect_error "$s" 1 "$o" nocap "$v" tenant resume a nowait
		expect_error "$s" 1 "$o" nocap "$v" agent
	fi
	has_net_admin || return 0
	if [ ! -d /sys/module/vgpu ]; then
		expect_error "$s" 1 "$nomod" "$v" tenant suspend a
		expect_error "$s" 1 "$nomod" "$v" tenant resume a wait 0.5
		expect_error "$s" 1 "$nomod" "$v" tenant suspend a nowait
	fi
	# The agent without libcuda.so.1, then with simgpu's (its checkpoint
	# API found, the module next).
	if ! ldconfig -p 2> /dev/null | grep -q 'libcuda\.so\.1 '; then
		expect_error "$s" 1 "" "$v" agent
		if grep -qF 'agent: cannot open libcuda.so.1 (the NVIDIA driver)' "$tmp/err"; then
			pass "$s" "agent without libcuda.so.1 says so"
		else
			fail "$s" "agent without libcuda.so.1 says so" "$(oneline "$tmp/err")"
		fi
	fi
	if [ "${#simgpu_env[@]}" -gt 0 ] && [ -f tests/simgpu/libcuda.so.1 ] &&
	   [ ! -d /sys/module/vgpu ]; then
		expect_error "$s" 1 "$nomod" env "${simgpu_env[@]}" "$v" agent lock-timeout 100
	fi
}

cli_checks() {
	cli_help_checks "$@"
	cli_suspend_checks "$@"
	cli_gpu_checks "$@"
	cli_tenant_checks "$@"
	cli_meta_checks "$@"
	cli_placement_top_checks "$@"
	cli_gpu_choice_checks "$@"
	probe_checks "$1" "$2"
	batch_checks "$1" "$2"
	cli_module_checks "$@"
}

# expect_batch SUITE WHAT WANT_RC USAGES ERR CMD...: CMD exits WANT_RC, prints
# USAGES "Usage: vgpuctl" lines (the help lines that ran) and stderr is
# exactly ERR (lines joined by "|", "" for nothing).
expect_batch() {
	local suite=$1 what=$2 want_rc=$3 usages=$4 err=$5 got
	shift 5
	run "$@"
	got=$(grep -c '^Usage: vgpuctl' "$tmp/out")
	if [ "$rc" -ne "$want_rc" ]; then
		fail "$suite" "$what" "exit $rc: $(oneline "$tmp/err")"
	elif [ "$got" -ne "$usages" ]; then
		fail "$suite" "$what" "$got help texts printed, not $usages"
	elif [ "$(tr '\n' '|' < "$tmp/err" | sed 's/|$//')" != "$err" ]; then
		fail "$suite" "$what" "stderr: $(oneline "$tmp/err")"
	else
		pass "$suite" "$what"
	fi
}

# batch_checks SUITE VGPUCTL: vgpuctl -b FILE without the module (lines of
# help and of usage errors; tests/unit/test_batch.c has the splitting).
batch_checks() {
	local s=$1 v=$2 f=$tmp/batch
	expect_error "$s" 2 'Error: missing FILE for -b.' "$v" -b
	expect_error "$s" 2 'Error: missing FILE for -b.' "$v" -j --batch
	expect_error "$s" 1 'Error: cannot open batch file /nonexistent/b: No such file or directory.' \
		"$v" -b /nonexistent/b
	expect_error "$s" 2 'Error: unexpected argument "gpu" after -b FILE.' "$v" -b /dev/null gpu
	expect_error "$s" 2 'Error: --force goes with -b FILE.' "$v" --force gpu show
	expect_batch "$s" "-b of an empty file succeeds, printing nothing" 0 0 "" "$v" -b /dev/null
	printf '# set-up\n\nps help\n  gpu help   # the GPUs\ntenant \\\n  help\n' > "$f"
	expect_batch "$s" "-b runs every line, skipping comments and blank lines" 0 3 "" "$v" -b "$f"
	printf 'ps help\n\nfrob\ngpu help\n' > "$f"
	expect_batch "$s" "-b stops at the first failing line with its status, naming FILE:LINE" 2 1 \
		"Error: unknown object \"frob\"; try \"vgpuctl help\".|Error: $f:3: the command failed (exit status 2)." \
		"$v" -b "$f"
	expect_batch "$s" "--force -b runs the lines after a failing one" 2 2 \
		"Error: unknown object \"frob\"; try \"vgpuctl help\".|Error: $f:3: the command failed (exit status 2)." \
		"$v" --force -b "$f"
	printf 'ps help\ntenant add "a b" cgroup x\nshow help\n' > "$f"
	expect_batch "$s" "-b - reads standard input; a quoted word is one argument" 2 1 \
		'Error: invalid NAME "a b" for tenant add (1-63 printable characters, no spaces).|Error: -:2: the command failed (exit status 2).' \
		sh -c '"$1" -b - < "$2"' sh "$v" "$f"
	printf 'ps help\ngpu add 0 vram "1G\nshow help\n' > "$f"
	expect_batch "$s" "-b refuses an unclosed quote, naming its line" 2 1 \
		"Error: $f:2: a quote is not closed." "$v" -b "$f"
	printf -- '-j gpu show\n' > "$f"
	expect_batch "$s" "-b refuses an option on a line" 2 0 \
		"Error: $f:1: option \"-j\" on a line: options go before -b." "$v" -b "$f"
	if [ ! -d /sys/module/vgpu ]; then
		printf 'gpu help\ngpu show\n' > "$f"
		expect_batch "$s" "-b: a line the module would answer fails with status 1" 1 1 \
			"$nomod|Error: $f:2: the command failed (exit status 1)." "$v" -j -b "$f"
		# Each line parses afresh: nothing of the line before is left.
		printf 'tenant add a cgroup a weight 5\ntenant replace b cgroup b weight 5\n%s\n%s\n' \
			'tenant add c cgroup c weight 5 label k=v' 'tenant set c weight 5' > "$f"
		expect_batch "$s" "--force -b: each tenant line is checked on its own" 1 0 \
			"$nomod|Error: $f:1: the command failed (exit status 1).|$nomod|Error: $f:2: the command failed (exit status 1).|$nomod|Error: $f:3: the command failed (exit status 1).|$nomod|Error: $f:4: the command failed (exit status 1)." \
			"$v" --force -b "$f"
	fi
}
