#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 21
# vm-series: 6.1
# (One kernel: it tests vgpuctl's reconciliation of a file with the
# module's tables, through requests every kernel's suites make.)
# vm-boot: shared
# vgpuctl apply: the files' tenants and host setting come up, a second run
# changes nothing, an edit changes only what was edited, a bad edit changes
# nothing and names its line, --dry-run changes nothing, --prune deletes
# an idle extra tenant and keeps one in use.
suite=apply
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
mkdir -p $cg/ta $cg/tb $cg/tc $cg/x1 $cg/x2 /tmp/apply
f=/tmp/apply/vgpu.conf
json() { vgpuctl -j "$@" | tr -d '\n'; }
# state: the tenants as JSON, less their usage (its byte-seconds grow).
state() { json tenant show | sed 's/"usage":\[[^]]*\]//g'; }
# names: the tenants the module holds, sorted, on one line.
names() { json tenant show | grep -o '"name":"[^"]*"' | sed 's/"name":"\(.*\)"/\1/' | sort | tr '\n' ' '; }

cat > $f <<'CONF'
# a comment
gpu 0 vram 16G
host default allow
tenant ta cgroup ta vram-max 4G weight 70 label team=a
tenant tb cgroup /sys/fs/cgroup/tb vram-max 2G vram-min 1G \
	priority high label team=b label tier=gold
tenant tc cgroup tc compute-max 50%
CONF

check_out "apply adds the files' tenants" "tenant add ta cgroup ta vram-max 4G" vgpuctl apply $f
check_eq "the module holds exactly the files' tenants" "ta tb tc " "$(names)"
check_out "tb got its quotas and labels" '"labels":{"team":"b","tier":"gold"}' json tenant show tb
check_out "tb: vram-min" '"vram_min":1073741824' json tenant show tb
check_out "the GPU was added" '"vram":17179869184' json gpu show 0
before=$(state)
check_out "a second apply changes nothing, and says so" "nothing to change" vgpuctl apply $f
check_eq "... and the module is as it was" "$before" "$(state)"
out=$(vgpuctl apply $f)
check_eq "... printing no change" "# nothing to change: the module holds what the files say" "$out"

# An edit: ta's weight, a label of tb removed; tc untouched.
sed -i 's/weight 70/weight 20/; s/ label tier=gold//' $f
tc_before=$(json tenant show tc)
check_out "dry run prints the set" "tenant set ta weight 20" vgpuctl apply --dry-run $f
check_out "dry run prints the label removal" "tenant set tb label tier=" vgpuctl apply --dry-run $f
check_out "dry run changes nothing" '"weight":70' json tenant show ta
out=$(vgpuctl apply $f)
check_eq "apply makes exactly the two changes" "tenant set ta weight 20
tenant set tb label tier=" "$out"
check_out "ta's weight changed" '"weight":20' json tenant show ta
check_out "tb lost the label" '"labels":{"team":"b"}' json tenant show tb
check_eq "tc is as it was" "$tc_before" "$(json tenant show tc)"

# Leaving a quota out clears it.
sed -i 's/ compute-max 50%//' $f
check_out "a quota left out is cleared" "tenant set tc compute-max none" vgpuctl apply $f
check_eq "tc has no compute-max" "" "$(json tenant show tc | grep -o '"compute_max":[0-9][0-9]*')"

# Preemption's quotas (issue 31): set by the file, changed, refused, cleared.
sed -i 's/^tenant tc cgroup tc$/tenant tc cgroup tc preemptible on vram-wait 30/' $f
out=$(vgpuctl apply $f)
check_eq "apply sets preemptible and vram-wait" "tenant set tc preemptible on vram-wait 30" "$out"
check_out "tc is preemptible" '"preemptible":true' json tenant show tc
check_out "tc waits 30 s" '"vram_wait_ns":30000000000' json tenant show tc
check_out "a second apply leaves them" "nothing to change" vgpuctl apply $f
sed -i 's/vram-wait 30$/vram-wait 2.5/' $f
out=$(vgpuctl apply $f)
check_eq "an edit of vram-wait sets it alone" "tenant set tc vram-wait 2.5" "$out"
check_out "tc waits 2.5 s" '"vram_wait_ns":2500000000' json tenant show tc
before=$(state)
sed -i 's/vram-wait 2.5$/vram-wait 601/' $f
check_fails "vram-wait 601 fails the apply, naming FILE:LINE" \
	"Error: $f:7: invalid WAIT \"601\" for vram-wait (0-600 seconds" vgpuctl apply $f
check_eq "... and nothing changed" "$before" "$(state)"
sed -i 's/ preemptible on vram-wait 601$//' $f
out=$(vgpuctl apply $f)
check_eq "left out, both are cleared" "tenant set tc preemptible none vram-wait none" "$out"
check_out "tc is not preemptible" '"preemptible":false' json tenant show tc
check_out "tc has no vram-wait" '"vram_wait_ns":null' json tenant show tc

# A bad edit: nothing changes, and the error names the file and line.
before=$(state)
cp $f /tmp/apply/good
sed -i 's/weight 20/weight 30/; s/vram-min 1G/vram-min lots/' $f
check_fails "a bad line fails the apply, naming FILE:LINE" "Error: $f:5: invalid SIZE \"lots\"" \
	vgpuctl apply $f
check_eq "... and nothing changed (not even the good edit)" "$before" "$(state)"
printf 'tenant ta cgroup x1\n' > /tmp/apply/dup.conf
check_fails "a tenant declared twice names both lines" \
	"/tmp/apply/dup.conf:1: tenant \"ta\" is already declared at /tmp/apply/good:4" \
	vgpuctl apply /tmp/apply/good /tmp/apply/dup.conf
printf 'tenant ta cgroup x1 weight 20\n' > /tmp/apply/moved.conf
check_fails "a tenant on another cgroup is an error, not a change" \
	"/tmp/apply/moved.conf:1: tenant \"ta\" is in the module on cgroup /ta, not /x1" \
	vgpuctl apply /tmp/apply/moved.conf
check_eq "... and nothing changed" "$before" "$(state)"
cp /tmp/apply/good $f

# --prune: x1 idle goes, x2 with a registered process stays.
vgpuctl tenant add x1 cgroup x1 >/dev/null
vgpuctl tenant add x2 cgroup x2 >/dev/null
# Emptied first: the job's own redirection may come after the wait began.
: > /tmp/apply/hold
(inside x2 register hold 60) >> /tmp/apply/hold &
held=$!
await "a holder in x2 starts" 100 grep -q holding /tmp/apply/hold
check_out "without --prune, extra tenants are left alone" "nothing to change" vgpuctl apply $f
check_eq "... both still there" "ta tb tc x1 x2 " "$(names)"
check_out "--prune --dry-run says it would delete x1" "tenant del x1" vgpuctl apply --dry-run --prune $f
check_eq "... and deletes nothing" "ta tb tc x1 x2 " "$(names)"
out=$(vgpuctl apply --prune $f)
check_eq "--prune deletes the idle one and says why it kept the other" "tenant del x1
# kept tenant x2: it has 1 registered process" "$out"
check_eq "... x2 stays" "ta tb tc x2 " "$(names)"
kill $held 2>/dev/null
wait $held 2>/dev/null

suite_end
