#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 11
# vm-series: 7.3
# (One kernel: it tests libvgpu's device view.)
# vm-boot: shared
# The enforced device view (issue 18, part 1), on a 4-GPU simgpu host:
# GPUs 0,1 under one PCIe switch on NUMA node 0, GPUs 2,3 on node 1 with
# 4 NVLinks between them, and one NVLink between GPUs 1 and 2. A tenant
# with "gpus 2,3" sees exactly GPUs 2 and 3 as devices 0 and 1 in every
# CUDA and NVML enumeration (view-client list),
# nothing of GPUs 0 and 1; its CUDA_VISIBLE_DEVICES chooses among its own
# GPUs; allocations on its device 1 land on GPU 3 (simgpu's truth); a
# tenant without a gpus quota and the host see all four.
suite=view
. /tests/suite-lib.sh

cg=/sys/fs/cgroup
M=1048576
export LD_PRELOAD=/usr/lib/libvgpu.so

cat > /etc/simgpu.conf <<'EOF'
gpus = 4
numa_cpus = 2
gpu0.pci_path = 0/1
gpu1.pci_path = 0/1
gpu1.numa = 0
gpu2.pci_path = 1/2
gpu2.numa = 1
gpu3.pci_path = 1/3
gpu3.numa = 1
gpu2.nvlink = 3:4
gpu1.nvlink = 2:1
EOF
check_out "gpu probe registers simgpu's 4 GPUs" "gpu 3" vgpuctl gpu probe

# The host, outside every tenant: the driver's enumeration, GPUs 0..3.
host=$(view-client list 2>&1)
check_out "the host sees 4 CUDA devices" "cuda count 4" echo "$host"
check_out "and 4 NVML devices" "nvml count 4 count1 4" echo "$host"
uuid() { printf '%s\n' "$host" | sed -n "s/^cuda dev $1 uuid \([^ ]*\) .*/\1/p"; }
pci() { printf '%s\n' "$host" | sed -n "s/^cuda dev $1 uuid [^ ]* pci \([^ ]*\) .*/\1/p"; }
U0=$(uuid 0) U1=$(uuid 1) U2=$(uuid 2) U3=$(uuid 3)
check_out "the inventory's GPU 2 is the driver's device 2" "$U2" vgpuctl gpu show 2
check_out "the inventory's GPU 3 is the driver's device 3" "$U3" vgpuctl gpu show 3

mkdir -p $cg/t $cg/u
check "tenant t with gpus 2,3" vgpuctl tenant add t cgroup t gpus 2,3
out=$(/tmp/in_cg t view-client list 2>&1)
check_out "t: 2 CUDA devices" "cuda count 2" echo "$out"
check_out "t: CUDA device 0 is GPU 2 (UUID, PCI id, found by its PCI id)" \
	"cuda dev 0 uuid $U2 pci $(pci 2) bypci 0 peers 0,1" echo "$out"
check_out "t: CUDA device 1 is GPU 3, its NVLink peer device 0" \
	"cuda dev 1 uuid $U3 pci $(pci 3) bypci 1 peers 1,0" echo "$out"
check_out "t: 2 NVML devices (_v2 and unversioned count)" "nvml count 2 count1 2" echo "$out"
check_out "t: NVML index 0 is GPU 2 by index, UUID, serial, PCI id; nearest: its own 1" \
	"nvml index 0 uuid $U2 serial 1650923000002 pci " echo "$out"
check_out "t: NVML device 0 numbered 0 by every look-up" \
	"getindex 0 byuuid 0 byserial 0 bypci 0 byindex1 0 nearest 1" echo "$out"
check_out "t: NVML index 1 is GPU 3" "nvml index 1 uuid $U3 serial 1650923000003 pci " \
	echo "$out"
check_out "t: NVML device 1 numbered 1 by every look-up" \
	"getindex 1 byuuid 1 byserial 1 bypci 1 byindex1 1 nearest 1" echo "$out"
check_out "t: CPU 0's GPU set (GPUs 0, 1: not its own) is empty" "nvml gpuset cpu0 0" \
	echo "$out"
# GPU 2's NVLink to GPU 1 would name GPU 1 (its PCI id): in t it looks
# inactive; its 4 links to GPU 3 are active and name GPU 3.
# NVML's form of a PCI bus id (8-digit domain, upper case).
npci() { printf '0000%s' "$(pci $1)" | tr a-f A-F; }
hl=$(view-client links 2>&1)
check_eq "the host sees GPU 2's NVLink to GPU 1" 1 \
	"$(printf '%s\n' "$hl" | grep -c "^nvlink index 2 .* state 1 remote $(npci 1)$")"
tl=$(/tmp/in_cg t view-client links 2>&1)
check "t: no NVLink names GPU 1 or GPU 0 (PCI ids)" \
	sh -c '! printf "%s\n" "$1" | grep -q -e "$2" -e "$3"' _ "$tl" "$(npci 1)" "$(npci 0)"
check_eq "t: its device 0 (GPU 2) has the 4 active NVLinks to GPU 3, none to GPU 1" 4 \
	"$(printf '%s\n' "$tl" | grep -c "^nvlink index 0 .* state 1 remote $(npci 3)$")"
# simgpu's GPUs have NVML_NVLINK_MAX_LINKS links, the unused ones inactive.
hoff=$(printf '%s\n' "$hl" | grep -c "^nvlink index 2 .* state 0 remote ERR$")
check_eq "t: ... and one more inactive link with no far end than the host's GPU 2" \
	$((hoff + 1)) "$(printf '%s\n' "$tl" | grep -c "^nvlink index 0 .* state 0 remote ERR$")"
case $out in
*"$U0"*|*"$U1"*|*1650923000000*|*1650923000001*) leak=yes ;;
*) leak=no ;;
esac
check_eq "t: no UUID or serial of GPU 0 or 1 anywhere" "no" "$leak"

check_fails "t: NVML by GPU 0's UUID: Not Found, as for an absent GPU" "nvml-uuid: error 6" \
	/tmp/in_cg t view-client nvml-uuid "$U0"
check_fails "t: NVML by GPU 1's serial: Not Found" "nvml-serial: error 6" \
	/tmp/in_cg t view-client nvml-serial 1650923000001
check_fails "t: NVML by GPU 0's PCI bus id: Not Found" "nvml-pci: error 6" \
	/tmp/in_cg t view-client nvml-pci "$(pci 0)"
check_fails "t: CUDA by GPU 1's PCI bus id: CUDA_ERROR_INVALID_DEVICE (101)" \
	"cuDeviceGetByPCIBusId: error 101" /tmp/in_cg t view-client cuda-pci "$(pci 1)"
check_out "t: CUDA by GPU 3's PCI bus id: device 1" "cuda-pci dev 1" \
	/tmp/in_cg t view-client cuda-pci "$(pci 3)"

# CUDA_VISIBLE_DEVICES of the tenant's own: among its GPUs.
out=$(CUDA_VISIBLE_DEVICES=1 /tmp/in_cg t view-client list 2>&1)
check_out "t, CUDA_VISIBLE_DEVICES=1: one CUDA device" "cuda count 1" echo "$out"
check_out "t, CUDA_VISIBLE_DEVICES=1: it is GPU 3" "cuda dev 0 uuid $U3 " echo "$out"
check_out "t, CUDA_VISIBLE_DEVICES=1: NVML (which ignores it) still shows 2" \
	"nvml count 2 count1 2" echo "$out"
out=$(CUDA_VISIBLE_DEVICES="$U3" /tmp/in_cg t view-client list 2>&1)
check_out "t, CUDA_VISIBLE_DEVICES=GPU 3's UUID: one device" "cuda count 1" echo "$out"
check_out "t, CUDA_VISIBLE_DEVICES=GPU 3's UUID: GPU 3" "cuda dev 0 uuid $U3 " echo "$out"
check_out "t, CUDA_VISIBLE_DEVICES=1,0: GPUs 3 then 2" "cuda dev 1 uuid $U2 " \
	env CUDA_VISIBLE_DEVICES=1,0 /tmp/in_cg t view-client list
check_fails "t, CUDA_VISIBLE_DEVICES=GPU 0's UUID: no device (cuInit 100)" \
	"cuInit: error 100" env CUDA_VISIBLE_DEVICES="$U0" /tmp/in_cg t view-client list
check_fails "t, CUDA_VISIBLE_DEVICES=2 (past its 2 devices): no device" \
	"cuInit: error 100" env CUDA_VISIBLE_DEVICES=2 /tmp/in_cg t view-client list
out=$(CUDA_VISIBLE_DEVICES=1 /tmp/in_cg t view-client exec view-client list 2>&1)
check_out "t, CUDA_VISIBLE_DEVICES=1, a child of an initialised process: one device" \
	"cuda count 1" echo "$out"
check_out "t, CUDA_VISIBLE_DEVICES=1, that child: GPU 3" "cuda dev 0 uuid $U3 " echo "$out"

# Allocations on the tenant's device 1 land on GPU 3.
bg_hold t /tmp/hold view-client alloc 1 64 && h=$!
check_eq "t: 64 MiB on device 1 are on GPU 3 (simgpu's truth)" "$((64 * M))" "$(truth /t 3)"
check_eq "t: and nothing on GPU 2" "0" "$(truth /t 2)"
check_eq "t: nor on GPU 1" "0" "$(truth /t 1)"
check_eq "t: vgpu accounts them to GPU 3" "$((64 * M))" "$(usage t 3 vram_current)"
kill -9 $h 2>/dev/null
wait 2>/dev/null

check "tenant u without a gpus quota" vgpuctl tenant add u cgroup u vram-max 1G
out=$(/tmp/in_cg u view-client list 2>&1)
check_out "u: all 4 CUDA devices" "cuda count 4" echo "$out"
check_out "u: in the driver's order" "cuda dev 3 uuid $U3 " echo "$out"
check_out "u: all 4 NVML devices" "nvml count 4 count1 4" echo "$out"

rm -f /etc/simgpu.conf
suite_end
