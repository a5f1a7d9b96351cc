#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 17
# vm-boot: shared
# GPUs chosen per process at registration (issue #18 part 2, per-process
# form: VGPU_GPUS=auto:N, proc-register's gpus-auto), on a 4-GPU simgpu
# host: under spread a tenant's processes land on different GPUs, under
# binpack on the same; each sees only its chosen GPUs as devices 0..n-1;
# the module refuses charges on the others; a request larger than the
# tenant's GPUs, a malformed value or one from outside every tenant leaves
# the process without a device; vgpuctl ps shows the choice; a child reads
# the user's CUDA_VISIBLE_DEVICES, not the one libvgpu wrote for its parent,
# where it has a choice of its own or lacks its parent's GPUs.
suite=proc-gpus
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so

cat > /etc/simgpu.conf <<'CONF'
gpus = 4
CONF
check_out "gpu probe registers simgpu's 4 GPUs" "gpu 3" vgpuctl gpu probe
host=$(view-client list 2>&1)
uuid() { printf '%s\n' "$host" | sed -n "s/^cuda dev $1 uuid \([^ ]*\) .*/\1/p"; }
U0=$(uuid 0) U1=$(uuid 1) U2=$(uuid 2) U3=$(uuid 3)
check_out "the host sees 4 CUDA devices" "cuda count 4" echo "$host"

# chosen_json PID: the gpus_chosen of PID's first row in vgpuctl -j ps
chosen_json() {
	vgpuctl -j ps | tr -d ' \n' | sed 's/},{/}\n{/g' |
		sed -n "s/.*\"pid\":$1,.*\"gpus_chosen\":\([^}]*\)}.*/\1/p" | head -n 1
}
# chosen_plain PID: the CHOSEN column of PID's first row in vgpuctl ps
chosen_plain() { vgpuctl ps | awk -v p="$1" '$1 == p { print $NF; exit }'; }

mkdir -p $cg/t $cg/b $cg/r $cg/s
check "tenant t, unrestricted" vgpuctl tenant add t cgroup t vram-max 4G

# --- spread: a tenant's processes apart ---
check "gpu-policy spread" vgpuctl set gpu-policy spread
bg_hold t /tmp/p1 env VGPU_GPUS=auto:1 view-client alloc 0 16 && p1=$!
check_eq "spread: the first process's 16 MiB are on GPU 0 (simgpu's truth)" \
	"$((16 * M))" "$(truth /t 0)"
bg_hold t /tmp/p2 env VGPU_GPUS=auto:1 view-client alloc 0 16 && p2=$!
check_eq "spread: the second's on GPU 1, the GPU without a process" \
	"$((16 * M))" "$(truth /t 1)"
check_eq "spread: and GPU 0 still holds only the first's" "$((16 * M))" "$(truth /t 0)"
out=$(VGPU_GPUS=auto:1 /tmp/in_cg t view-client list 2>&1)
check_out "spread: a third process sees one CUDA device" "cuda count 1" echo "$out"
check_out "spread: it is GPU 2" "cuda dev 0 uuid $U2 " echo "$out"
check_out "spread: and one NVML device" "nvml count 1 count1 1" echo "$out"
out=$(VGPU_GPUS=auto:2 /tmp/in_cg t view-client list 2>&1)
check_out "spread: auto:2 sees two CUDA devices" "cuda count 2" echo "$out"
check_out "spread: GPU 2 (no process now) as device 0" "cuda dev 0 uuid $U2 " echo "$out"
check_eq "ps -j shows the first process's choice" "[0]" "$(chosen_json $p1)"
check_eq "ps shows the second's in CHOSEN" "1" "$(chosen_plain $p2)"

# Children of a registered process (view-client spawn): the parent's choice
# is GPU 2. A child with the inherited VGPU_GPUS chooses for itself (GPU 3)
# and reads the user's CUDA_VISIBLE_DEVICES, not the parent's GPU 2 that
# libvgpu wrote into it; a worker without VGPU_GPUS keeps its parent's GPU.
out=$(VGPU_GPUS=auto:1 /tmp/in_cg t view-client spawn view-client list 2>&1)
check_out "spread: a child with its parent's VGPU_GPUS sees one CUDA device" \
	"cuda count 1" echo "$out"
check_out "spread: the child's is GPU 3, its own (its parent holds GPU 2)" \
	"cuda dev 0 uuid $U3 " echo "$out"
out=$(CUDA_VISIBLE_DEVICES=0 VGPU_GPUS=auto:1 /tmp/in_cg t \
	view-client spawn view-client list 2>&1)
check_out "spread: with CUDA_VISIBLE_DEVICES=0, the child's device 0 is GPU 3" \
	"cuda dev 0 uuid $U3 " echo "$out"
out=$(VGPU_GPUS=auto:1 /tmp/in_cg t view-client spawn \
	env -u VGPU_GPUS view-client list 2>&1)
check_out "spread: a worker without VGPU_GPUS sees one CUDA device" \
	"cuda count 1" echo "$out"
check_out "spread: the worker's is its parent's GPU 2" "cuda dev 0 uuid $U2 " echo "$out"
check_out "spread: a child asking for all 4 GPUs sees 4 CUDA devices, not its parent's 1" \
	"cuda count 4" env VGPU_GPUS=auto:1 /tmp/in_cg t view-client spawn \
	env VGPU_GPUS=auto:4 view-client list

# The module itself refuses the other GPUs (vgpu-devtest charges directly).
out=$( (inside t gpus-auto 1 register try charge 0 1M charge 2 1M) 2>&1)
check_out "devtest's choice is GPU 2, in the reply" "gpus=0x4 " echo "$out"
check_eq "the reply marks GPUs 0, 1 and 3 denied, 2 not" "0 1 3" \
	"$(printf '%s\n' "$out" | awk '/^gpu index=/ && / denied=1/ { sub("index=", "", $2); printf "%s%s", s, $2; s = " " }')"
case $out in
*"charge errno=EACCES"*"charge gpu=2 "*) pass "a charge on a foreign GPU is refused (EACCES), on its own granted" ;;
*) fail "a charge on a foreign GPU is refused (EACCES), on its own granted" "$out" ;;
esac
kill -9 $p1 $p2 2>/dev/null
wait 2>/dev/null

# --- refusals: the process gets no device, never every GPU ---
check_fails "auto:5 on 4 GPUs: no device (cuInit 100)" "cuInit: error 100" \
	env VGPU_GPUS=auto:5 /tmp/in_cg t view-client list
check_fails "auto:5: libvgpu says why" \
	"VGPU_GPUS=auto:5 refused: more GPUs than the tenant has healthy and allowed" \
	env VGPU_GPUS=auto:5 /tmp/in_cg t view-client list
check_out "auto:5: the module's message" \
	"errno=ENOSPC msg=gpus-auto asks for more GPUs than the tenant has healthy and allowed" \
	inside t gpus-auto 5 try register
check_out "auto:65: refused by the netlink policy" "register errno=ERANGE" \
	inside t gpus-auto 65 try register
check_fails "VGPU_GPUS=auto:x: no device" "cuInit: error 100" \
	env VGPU_GPUS=auto:x /tmp/in_cg t view-client list
check_fails "VGPU_GPUS=auto:x: one line naming the value" \
	'VGPU_GPUS="auto:x" is not auto:N with N from 1 to 64' \
	env VGPU_GPUS=auto:x /tmp/in_cg t view-client list
check_fails "outside every tenant: no device" "cuInit: error 100" \
	env VGPU_GPUS=auto:1 view-client list
check_out "outside every tenant: the module's message" \
	"errno=EPERM msg=gpus-auto needs a tenant: the process is outside every tenant" \
	vgpu-devtest gpus-auto 1 try register

# --- binpack: together ---
check "gpu-policy binpack" vgpuctl set gpu-policy binpack
check "tenant b, unrestricted" vgpuctl tenant add b cgroup b
bg_hold b /tmp/p3 env VGPU_GPUS=auto:1 view-client alloc 0 16 && p3=$!
bg_hold b /tmp/p4 env VGPU_GPUS=auto:1 view-client alloc 0 16 && p4=$!
check_eq "binpack: both processes' 16 MiB on GPU 0" "$((32 * M))" "$(truth /b 0)"
out=$(VGPU_GPUS=auto:1 /tmp/in_cg b view-client list 2>&1)
check_out "binpack: a third sees one device" "cuda count 1" echo "$out"
check_out "binpack: GPU 0, with the others" "cuda dev 0 uuid $U0 " echo "$out"
check_eq "binpack: ps -j shows [0] for the second" "[0]" "$(chosen_json $p4)"
kill -9 $p3 $p4 2>/dev/null
wait 2>/dev/null

# --- a restricted tenant: the choice among its own GPUs ---
check "tenant r with gpus 1,2" vgpuctl tenant add r cgroup r gpus 1,2
out=$(VGPU_GPUS=auto:1 /tmp/in_cg r view-client list 2>&1)
check_out "r: auto:1 gets GPU 1 of its 1,2" "cuda dev 0 uuid $U1 " echo "$out"
check_out "r: one device" "cuda count 1" echo "$out"
check_fails "r: auto:3 from its 2 GPUs: no device" \
	"VGPU_GPUS=auto:3 refused" env VGPU_GPUS=auto:3 /tmp/in_cg r view-client list
check_out "r: without VGPU_GPUS, both of its GPUs" "cuda count 2" /tmp/in_cg r view-client list
bg_hold r /tmp/p5 view-client alloc 0 16 && p5=$!
check_eq "a process without a request shows - in CHOSEN" "-" "$(chosen_plain $p5)"
check_eq "and null in gpus_chosen" "null" "$(chosen_json $p5)"
kill -9 $p5 2>/dev/null
wait 2>/dev/null
# A worker moved to a tenant without its parent's GPU: the parent in r with
# CUDA_VISIBLE_DEVICES=1 (GPU 2); the worker, in s (gpus 0,3), reads the
# user's 1 within its own view: GPU 3.
check "tenant s with gpus 0,3" vgpuctl tenant add s cgroup s gpus 0,3
out=$(CUDA_VISIBLE_DEVICES=1 /tmp/in_cg r view-client spawn /tmp/in_cg s view-client list 2>&1)
check_out "a worker moved from r to s sees one CUDA device" "cuda count 1" echo "$out"
check_out "the worker's is GPU 3, s's device 1 (the user's CUDA_VISIBLE_DEVICES=1)" \
	"cuda dev 0 uuid $U3 " echo "$out"

rm -f /etc/simgpu.conf
suite_end
