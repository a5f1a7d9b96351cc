#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 38
# vm-boot: shared
# Tenant labels, ephemeral tenants, the final records of deleted tenants,
# reserved byte-seconds, the module's instance id and the monitor group.
suite=final
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
ko=/lib/modules/$(uname -r)/extra/vgpu.ko
mkdir -p $cg/l $cg/e1 $cg/e2 $cg/keep $cg/r $cg/r2 $cg/out $cg/f
vgpuctl gpu add 0 vram 16G >/dev/null
vgpuctl gpu add 1 vram 8G >/dev/null

# json WHAT: the compact JSON of "vgpuctl -j WHAT...", on one line.
json() { vgpuctl -j "$@" | tr -d '\n'; }
# jnum KEY JSON: the first number after "KEY":
jnum() { printf '%s\n' "$2" | sed -n "s/^[^\"]*\"$1\":\([0-9]*\).*/\1/p; s/.*[,{]\"$1\":\([0-9]*\).*/\1/p" | head -n 1; }
# nlabels TENANT: how many labels it has.
nlabels() { json tenant show "$1" | sed 's/.*"labels":{\([^}]*\)}.*/\1/' | grep -o '":"' | wc -l; }
# wait_gone TENANT TENTHS: wait until the tenant is gone; prints the tenths waited.
wait_gone() {
	local t=0
	while vgpuctl tenant show "$1" >/dev/null 2>&1 && [ $t -lt "$2" ]; do
		sleep 0.1
		t=$((t + 1))
	done
	echo $t
}
# hold_in CGROUP OUT: a registered process in CGROUP, holding; its pid in $held.
hold_in() {
	bg_hold "$1" "$2" vgpu-devtest register alloc 0 "$3" hold 60
	held=$!
}

# --- labels ------------------------------------------------------------------
check "add with labels" vgpuctl tenant add l cgroup l weight 5 label team=ml \
	label app.kubernetes.io/name=my-app
check_out "labels in JSON, sorted by key" \
	'"labels":{"app.kubernetes.io/name":"my-app","team":"ml"}' json tenant show l
check_out "plain show: label k=v" "label app.kubernetes.io/name=my-app label team=ml" \
	vgpuctl tenant show l
check "set one label and remove another" vgpuctl tenant set l label team=infra \
	label app.kubernetes.io/name=
check_out "the set is visible, the removed one gone" '"labels":{"team":"infra"}' json tenant show l
check_out "quotas untouched by a label change" '"weight":5' json tenant show l
check "a value with spaces and quotes" vgpuctl tenant set l label note='a "b" c'
check_out "is escaped in JSON" '"note":"a \"b\" c"' json tenant show l
check "removing an absent label is no error" vgpuctl tenant set l label nothere=
args=""
for i in $(seq 14); do args="$args label k$i=v$i"; done
# shellcheck disable=SC2086
check "sixteen labels" vgpuctl tenant set l $args
check_eq "a tenant holds sixteen" 16 "$(nlabels l)"
check_fails "a seventeenth is refused by the kernel" "Error: too many labels (at most 16)." \
	vgpuctl tenant set l label k15=v
check "one request may remove one and add another to a full set" \
	vgpuctl tenant set l label k1= label k15=v
check_eq "still sixteen" 16 "$(nlabels l)"
before=$(json tenant show l | sed 's/.*"labels":\({[^}]*}\).*/\1/')
k64=$(printf 'k%.0s' $(seq 64))
v256=$(printf 'v%.0s' $(seq 256))
check_errno "kernel: a key starting with -" 22 \
	"label key must be 1-63 letters, digits and ._/- starting with a letter or digit" \
	tenant-set str:1=l nest:22 str:1=-x str:2=v end
check_errno "kernel: a key with a space" 22 \
	"label key must be 1-63 letters, digits and ._/- starting with a letter or digit" \
	tenant-set str:1=l nest:22 "str:1=a b" str:2=v end
check_errno "kernel: an empty key" 22 \
	"label key must be 1-63 letters, digits and ._/- starting with a letter or digit" \
	tenant-set str:1=l nest:22 str:1= str:2=v end
check_errno "kernel: a value with a tab" 22 "label value must be at most 255 printable ASCII characters" \
	tenant-set str:1=l nest:22 str:1=k "str:2=$(printf 'a\tb')" end
check_errno "kernel: a label without a key" 22 "label key is required" \
	tenant-set str:1=l nest:22 str:2=v end
check_errno "kernel: a 64-byte key (policy)" 22 "" tenant-set str:1=l nest:22 "str:1=$k64" str:2=v end
check_errno "kernel: a 256-byte value (policy)" 22 "" tenant-set str:1=l nest:22 str:1=k "str:2=$v256" end
check_errno "kernel: an unknown attribute in a label (strict)" 22 "" \
	tenant-set str:1=l nest:22 str:1=k str:2=v str:3=x end
check_errno "kernel: a bad label after a good one changes nothing" 22 \
	"label key must be 1-63 letters, digits and ._/- starting with a letter or digit" \
	tenant-set str:1=l u32:8=9 nest:22 str:1=k1 str:2=v end nest:22 str:1=_ str:2=v end
check_eq "nothing changed after the refusals" "$before" \
	"$(json tenant show l | sed 's/.*"labels":\({[^}]*}\).*/\1/')"
check_out "and the weight with them" '"weight":5' json tenant show l
news=""
for i in $(seq 17); do news="$news nest:22 str:1=n$i str:2=v end"; done
# shellcheck disable=SC2086
check_errno "kernel: seventeen labels in tenant-new" 7 "too many labels (at most 16)" \
	tenant-new str:1=x str:3=/out $news
check_fails "and no tenant was made" "Error: unknown tenant." vgpuctl tenant show x
vgpuctl tenant set l label k2= label k3= >/dev/null
check "kernel: two labels of one key in a request" vgpu-nlsend tenant-set str:1=l \
	nest:22 str:1=dup str:2=first end nest:22 str:1=dup str:2=last end
check_out "the last wins" '"dup":"last"' json tenant show l
check "kernel: a label with no value attribute removes" vgpu-nlsend tenant-set str:1=l \
	nest:22 str:1=dup end
case $(json tenant show l) in
*'"dup"'*) fail "removed" "$(json tenant show l)" ;;
*) pass "removed" ;;
esac
check_out "created is in replies, in ns since the epoch" '"created":1' json tenant show l
c=$(jnum created "$(json tenant show l)")
now=$(date +%s)
if [ -n "$c" ] && [ $((c / 1000000000)) -le "$now" ] && [ $((c / 1000000000)) -ge $((now - 600)) ]; then
	pass "created is within the last minutes"
else
	fail "created is within the last minutes" "created $c, now $now s"
fi

# --- ephemeral tenants --------------------------------------------------------
check "add an ephemeral tenant" vgpuctl tenant add e1 cgroup e1 ephemeral label job=1
check_out "shown as ephemeral" '"ephemeral":true' json tenant show e1
check_out "plain says so" "ephemeral" vgpuctl tenant show e1
check "and a plain one" vgpuctl tenant add keep cgroup keep
hold_in e1 /tmp/e1 1M
echo "$held" > $cg/out/cgroup.procs
check "rmdir of the ephemeral tenant's cgroup, its process moved out" rmdir $cg/e1
check "rmdir of the plain tenant's cgroup" rmdir $cg/keep
sleep 2.5
check_out "an ephemeral tenant stays while its process is registered" '"cgroup_removed":true' \
	json tenant show e1
kill "$held"
wait "$held" 2>/dev/null
t=$(wait_gone e1 30)
if [ "$t" -lt 30 ]; then
	pass "deleted once its last process exited (after ${t}00 ms)"
else
	fail "deleted once its last process exited" "still there after 3 s"
fi
check "an ephemeral tenant with no process" vgpuctl tenant add e2 cgroup e2 ephemeral
sleep 1.5
check_out "stays while its cgroup exists" '"name":"e2"' json tenant show e2
rmdir $cg/e2
t=$(wait_gone e2 30)
if [ "$t" -lt 30 ]; then
	pass "deleted within the periodic look once its cgroup is removed (${t}00 ms)"
else
	fail "deleted within the periodic look once its cgroup is removed" "still there after 3 s"
fi
check_out "a plain tenant whose cgroup went stays, flagged" '"cgroup_removed":true' \
	json tenant show keep
f=$(json tenant final)
case $f in
*'"name":"e1","id":'*'"ephemeral":true,'*'"del_reason":"cgroup-removed"'*'"labels":{"job":"1"}'*)
	pass "the final record of e1: ephemeral, cgroup-removed, its labels" ;;
*) fail "the final record of e1: ephemeral, cgroup-removed, its labels" "$f" ;;
esac
if printf '%s' "$f" | grep -qE '"name":"e1".*"usage":\[\{"gpu":0,"vram_current":0,"vram_peak":[1-9]'; then
	pass "and its usage: nothing held, the process's peak"
else
	fail "and its usage: nothing held, the process's peak" "$f"
fi

# --- final records ------------------------------------------------------------
vgpuctl tenant add r cgroup r vram-min 1G gpus 0 priority high label cost-center=42 >/dev/null
hold_in r /tmp/r 64M
sleep 1
kill "$held"
wait "$held" 2>/dev/null
last=$(json tenant show r)
id_r=$(jnum id "$last")
seq_before=$(json tenant final | grep -o '"final_seq":[0-9]*' | tail -n 1 | cut -d: -f2)
check "delete the tenant" vgpuctl tenant del r
rec=$(json tenant final | sed 's/},{"final_seq"/}\n{"final_seq"/g' |
	grep '"name":"r"')
check_out "one record: seq, name, id, cgroup" \
	"\"final_seq\":$((seq_before + 1)),\"name\":\"r\",\"id\":$id_r,\"cgroup\":\"/r\",\"cgroup_id\":$(stat -c %i $cg/r)," \
	echo "$rec"
check_out "created as the tenant showed it" "\"created\":$(jnum created "$last")," echo "$rec"
check_out "why: admin" '"del_reason":"admin"' echo "$rec"
check_out "its quotas" '"vram_min":1073741824,"gpus":[0],"weight":null,"compute_max":null,"priority":"high"' \
	echo "$rec"
check_out "its labels" '"labels":{"cost-center":"42"}' echo "$rec"
d=$(jnum deleted "$rec")
if [ -n "$d" ] && [ "$d" -ge "$(jnum created "$rec")" ]; then
	pass "deleted after created"
else
	fail "deleted after created" "$rec"
fi
# The usage at deletion is the last shown, but for the reservation's
# integral, which grew in between.
# The usage array holds objects only, so it ends at the first ']'.
usage() { printf '%s\n' "$1" | sed 's/.*"usage":\(\[[^]]*\]\).*/\1/'; }
strip() { usage "$1" | sed 's/,"vram_reserved_byte_seconds":[0-9]*//g'; }
check_eq "usage equals the last tenant show (reservation integral aside)" "$(strip "$last")" \
	"$(strip "$rec")"
rs_last=$(printf '%s' "$last" | grep -o '"vram_reserved_byte_seconds":[0-9]*' | head -n 1 | cut -d: -f2)
rs_rec=$(printf '%s' "$rec" | grep -o '"vram_reserved_byte_seconds":[0-9]*' | head -n 1 | cut -d: -f2)
if [ -n "$rs_last" ] && [ -n "$rs_rec" ] && [ "$rs_rec" -ge "$rs_last" ] && [ "$rs_last" -gt 0 ]; then
	pass "the reservation integral only grew ($rs_last, then $rs_rec)"
else
	fail "the reservation integral only grew" "last $rs_last, record $rs_rec"
fi
vgpuctl tenant add f1 cgroup f >/dev/null && vgpuctl tenant del f1 >/dev/null
vgpuctl tenant add f2 cgroup f >/dev/null && vgpuctl tenant del f2 >/dev/null
seqs=$(json tenant final | grep -o '"final_seq":[0-9]*' | cut -d: -f2 | tr '\n' ' ')
check_eq "seqs increase by one, oldest first" "$(seq -s ' ' "${seqs%% *}" $((${seqs%% *} + 4))) " "$seqs"
check_out "plain: one line per record" "final-seq $((seq_before + 1)) tenant r id $id_r cgroup /r" \
	vgpuctl tenant final show
check_out "the host counts five kept" '"finals":5,"finals_dropped":0' json show
check "ack the first two" vgpuctl tenant final ack $((${seqs%% *} + 1))
check_eq "three left" 3 "$(json tenant final | grep -o '"final_seq"' | wc -l)"
check "ack again is no error" vgpuctl tenant final ack $((${seqs%% *} + 1))
check_errno "kernel: final-seq required" 22 "final-seq is required" tenant-final-del
# The bound: a small final_max, then more deletions than it holds.
check "final_max 1025 is refused" sh -c '! echo 1025 > /sys/module/vgpu/parameters/final_max'
check "final_max 0 is refused" sh -c '! echo 0 > /sys/module/vgpu/parameters/final_max'
check "final_max 3" sh -c 'echo 3 > /sys/module/vgpu/parameters/final_max'
for i in 1 2 3 4 5; do vgpuctl tenant add b$i cgroup f >/dev/null; vgpuctl tenant del b$i >/dev/null; done
check_out "three kept, five dropped (the oldest)" '"finals":3,"finals_dropped":5' json show
check_eq "the three newest are kept" '"b3""b4""b5"' \
	"$(json tenant final | grep -o '"name":"[^"]*"' | cut -d: -f2 | tr -d '\n')"
echo 1024 > /sys/module/vgpu/parameters/final_max

# --- reserved byte-seconds ----------------------------------------------------
check "a reservation on GPU 1 only" vgpuctl tenant add res cgroup r2 vram-min 1G gpus 1
check_out "a GPU with a reservation and no use is in usage" '"usage":[{"gpu":1,' json tenant show res
# rbs: GPU 1's reserved byte-seconds of tenant res.
rbs() { json tenant show res | grep -o '"vram_reserved_byte_seconds":[0-9]*' | cut -d: -f2; }
# rate WHAT BYTES: the integral grows by BYTES a second: lower bound from
# the inner window (after the first read, before the second), upper bound
# from the outer one, each widened by the 10 ms resolution of uptime.
rate() {
	local t0 t1 t2 t3 a b
	t0=$(uptime_ms); a=$(rbs); t1=$(uptime_ms)
	sleep 2
	t2=$(uptime_ms); b=$(rbs); t3=$(uptime_ms)
	if awk -v a="$a" -v b="$b" -v r="$2" -v lo=$((t2 - t1 - 10)) -v hi=$((t3 - t0 + 10)) \
		'BEGIN { d = b - a; exit !(d >= r * lo / 1000 - 1 && d <= r * hi / 1000 + 1) }'; then
		pass "$1 (grew $((b - a)) in $((t2 - t1))-$((t3 - t0)) ms)"
	else
		fail "$1" "grew $((b - a)) from $a in $((t2 - t1))-$((t3 - t0)) ms, want $2 a second"
	fi
}
rate "reserved byte-seconds grow at vram-min a second" 1073741824
check "double the reservation" vgpuctl tenant set res vram-min 2G
rate "then at the new vram-min" 2147483648
check "clear the reservation" vgpuctl tenant set res vram-min none
a=$(rbs); sleep 1; b=$(rbs)
check_eq "then they stay" "$a" "$b"
vgpuctl tenant set res vram-min 1G gpus none >/dev/null
out=$(usage "$(json tenant show res)" | grep -o '"gpu":[0-9]*' | tr '\n' ' ')
check_eq "without gpus, the reservation is on every GPU present" '"gpu":0 "gpu":1 ' "$out"

# --- the monitor group --------------------------------------------------------
echo 'mon:x:1001:1001::/:/bin/sh' >> /etc/passwd
echo 'other:x:1002:1002::/:/bin/sh' >> /etc/passwd
echo 'vgpumon:x:2000:mon' >> /etc/group
# as USER CGROUP CMD: run CMD as USER (with its supplementary groups) in CGROUP.
as() {
	local user=$1 dir=$2
	shift 2
	sh -c "echo \$\$ > $cg/$dir/cgroup.procs && exec su -s /bin/sh $user -c '$*'"
}
check_out "mon is in group 2000 (supplementary)" " 2000" as mon out id -G
check "set the monitor group by name" vgpuctl set monitor-group vgpumon
check_out "shown by name" "monitor-group vgpumon" vgpuctl show
check_out "and its gid" '"monitor_gid":2000,"monitor_group":"vgpumon"' json show
check_out "the module parameter follows" 2000 cat /sys/module/vgpu/parameters/monitor_gid
n_all=$(json tenant show | grep -o '"name":' | wc -l)
check_eq "a member reads every tenant" "$n_all" \
	"$(as mon out vgpuctl -j tenant show | tr -d '\n' | grep -o '"name":' | wc -l)"
check_out "and one by name" "tenant keep" as mon out vgpuctl tenant show keep
check_out "and the final records" '"name":"b5"' as mon out vgpuctl -j tenant final
check_out "and the host's counts" '"finals":3' as mon out vgpuctl -j show
hold_in l /tmp/lh 1M
check_out "and every process" "$held" as mon out vgpuctl ps
check_fails "a member cannot change a tenant (vgpuctl)" "CAP_NET_ADMIN" \
	as mon out vgpuctl tenant set l weight 1
for cmd in "tenant-set str:1=l u32:8=1" "tenant-del str:1=keep" "tenant-final-del u64:27=100" \
	   "host-set u32:6=4294967295" "tenant-new str:1=x str:3=/out"; do
	out=$(as mon out vgpu-nlsend $cmd 2>&1)
	case $out in
	*"errno=1 "*) pass "the kernel refuses a member's ${cmd%% *}" ;;
	*) fail "the kernel refuses a member's ${cmd%% *}" "$out" ;;
	esac
done
check_eq "the records are all still there" 3 "$(json tenant final | grep -o '"final_seq"' | wc -l)"
out=$(as other l vgpuctl -j tenant show | tr -d '\n')
case $out in
'[{"name":"l",'*) case $out in *keep*) fail "outside the group: only its own tenant" "$out" ;;
	*) pass "outside the group: only its own tenant" ;; esac ;;
*) fail "outside the group: only its own tenant" "$out" ;;
esac
check_fails "outside the group: no final records" \
	"final records need CAP_NET_ADMIN or the monitor group" as other l vgpuctl tenant final
check_out "outside the group: no host counts" '"procs":null,' as other l vgpuctl -j show
case $(as other out vgpuctl ps) in
*"$held"*) fail "outside the group: no other tenant's process" "sees $held" ;;
*) pass "outside the group: no other tenant's process" ;;
esac
kill "$held"
wait "$held" 2>/dev/null
check "no monitor group" vgpuctl set monitor-group none
check_fails "then a former member reads finals no more" "monitor group" \
	as mon out vgpuctl tenant final
check "the group by number through the module parameter" \
	sh -c 'echo 2000 > /sys/module/vgpu/parameters/monitor_gid'
check_out "and it counts" '"name":"b5"' as mon out vgpuctl -j tenant final

# --- instance id, unload and reload -------------------------------------------
h1=$(json show)
id1=$(printf '%s' "$h1" | sed -n 's/.*"instance_id":"\([0-9a-f]*\)".*/\1/p')
check_eq "the instance id is 16 hex digits" 16 "${#id1}"
mkdir -p $cg/e3
vgpuctl tenant add e3 cgroup e3 ephemeral label x=y >/dev/null
check "rmmod with final records, labels and an ephemeral tenant" rmmod vgpu
check "insmod with final_max=2 monitor_gid=2000" insmod $ko final_max=2 monitor_gid=2000
check_eq "final_max is 2" 2 "$(cat /sys/module/vgpu/parameters/final_max)"
check_out "monitor_gid from the parameter" '"monitor_gid":2000' json show
id2=$(json show | sed -n 's/.*"instance_id":"\([0-9a-f]*\)".*/\1/p')
if [ ${#id2} -eq 16 ] && [ "$id2" != "$id1" ]; then
	pass "a new instance id after reload ($id1, then $id2)"
else
	fail "a new instance id after reload" "$id1, then $id2"
fi
check_out "no final record after reload" '"finals":0,"finals_dropped":0' json show
check_out "the load time is in ns since the epoch" '"loaded":1' json show
check "insmod refuses final_max=2000" sh -c "rmmod vgpu && ! insmod $ko final_max=2000 2>/dev/null"
insmod $ko
suite_end
