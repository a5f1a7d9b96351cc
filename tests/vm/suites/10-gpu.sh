#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 21
# vm-boot: shared
# GPU inventory: life cycle, output formats and every validation error.
suite=gpu
. /tests/suite-lib.sh

U0=GPU-0a1b2c3d-0000-4000-8000-000000000001
U1=GPU-0a1b2c3d-0000-4000-8000-000000000002

check "add gpu 0 with every attribute" \
	vgpuctl gpu add 0 vram 16G uuid $U0 pci 0000:3b:00.0 numa 0
check "add gpu 1 with a long PCI domain" \
	vgpuctl gpu add 1 vram 16GiB uuid $U1 pci 00000000:86:00.0 numa 1
check "add gpu 5 with only vram" vgpuctl gpu add 5 vram 1.5G
check_out "plain show lists gpu 0" "gpu 0 uuid $U0 pci 0000:3b:00.0 vram 16GiB numa 0" \
	vgpuctl gpu show
check_out "show one gpu" "pci 0000:86:00.0" vgpuctl gpu show 1
j=$(vgpuctl -j gpu show | tr -d ' \n')
check_eq "json of the inventory" \
	"[{\"index\":0,\"uuid\":\"$U0\",\"pci\":\"0000:3b:00.0\",\"vram\":17179869184,\"numa\":0,\"nvlink\":null,\"state\":\"healthy\",\"reason\":null,\"backstop\":\"none\"},{\"index\":1,\"uuid\":\"$U1\",\"pci\":\"0000:86:00.0\",\"vram\":17179869184,\"numa\":1,\"nvlink\":null,\"state\":\"healthy\",\"reason\":null,\"backstop\":\"none\"},{\"index\":5,\"uuid\":null,\"pci\":null,\"vram\":1610612736,\"numa\":null,\"nvlink\":null,\"state\":\"healthy\",\"reason\":null,\"backstop\":\"none\"}]" \
	"$j"
check_out "pretty json is indented" '  {' vgpuctl -j -p gpu show 0
check_out "one gpu as a one-element array" '"index":0' sh -c "vgpuctl -j gpu show 0 | tr -d ' \n'"

# Validation, through vgpuctl (message printed iproute2-style) ...
check_fails "duplicate index" "Error: GPU index already in use." \
	vgpuctl gpu add 0 vram 1G
check_fails "duplicate uuid" "Error: uuid already belongs to another GPU." \
	vgpuctl gpu add 2 vram 1G uuid $U0
check_fails "duplicate uuid, other case" "Error: uuid already belongs to another GPU." \
	vgpuctl gpu add 2 vram 1G uuid "$(echo $U0 | tr a-f A-F | sed s/^gpu/GPU/)"
check_fails "duplicate pci" "Error: pci bus id already belongs to another GPU." \
	vgpuctl gpu add 2 vram 1G pci 0000:3B:00.0
# a PCI domain above 0xffff, in the form sysfs and the kernel print it,
# whether given as NVML writes it (8 digits) or as sysfs does
check "pci domain above 0xffff, NVML's form" vgpuctl gpu add 7 vram 1G pci 00010000:01:00.0
check_out "shown as sysfs names it" "pci 10000:01:00.0" vgpuctl gpu show 7
check_fails "and the same bus id in sysfs's form is a duplicate" \
	"Error: pci bus id already belongs to another GPU." vgpuctl gpu add 8 vram 1G pci 10000:01:00.0
check "gpu 7 deleted" vgpuctl gpu del 7
check_fails "numa node offline" "Error: numa node is not online." \
	vgpuctl gpu add 2 vram 1G numa 7
check_fails "unknown gpu del" "Error: unknown GPU." vgpuctl gpu del 9
check_fails "unknown gpu show" "Error: unknown GPU." vgpuctl gpu show 9
check_fails "cli rejects a bad size" "Error:" vgpuctl gpu add 2 vram 12X
check_fails "cli rejects an index over 63" "Error:" vgpuctl gpu add 64 vram 1G
# ... and raw, so that the kernel's own checks are exercised.
check_errno "kernel: index required" 22 "GPU index is required" gpu-add u64:4=1024
check_errno "kernel: vram required" 22 "GPU vram is required" gpu-add u32:1=3
check_errno "kernel: bad uuid" 22 "uuid must be GPU- followed by 8-4-4-4-12 hex digits" \
	gpu-add u32:1=3 u64:4=1024 str:2=GPU-123
check_errno "kernel: uuid with a non-hex digit" 22 "uuid must be GPU- followed by 8-4-4-4-12 hex digits" \
	gpu-add u32:1=3 u64:4=1024 str:2=GPU-0a1b2c3d-0000-4000-8000-00000000000g
check_errno "kernel: bad pci" 22 "pci must be a bus id such as 0000:3b:00.0" \
	gpu-add u32:1=3 u64:4=1024 str:3=3b:00
check_errno "kernel: index above 63 (policy)" 34 "" gpu-add u32:1=64 u64:4=1024
check_errno "kernel: zero vram (policy)" 34 "" gpu-add u32:1=3 u64:4=0
check_errno "kernel: numa below -1 (policy)" 34 "" gpu-add u32:1=3 u64:4=1024 s32:5=-2
check_errno "kernel: unknown attribute (strict)" 22 "" gpu-add u32:1=3 u64:4=1024 u32:30=1
check_errno "kernel: del index required" 22 "GPU index is required" gpu-del
check_out "nothing half-added" "gpu 5" vgpuctl gpu show
n=$(vgpuctl gpu show | grep -c '^gpu ')
check_eq "the inventory holds three gpus" 3 "$n"

check "del gpu 5" vgpuctl gpu del 5
check_fails "gpu 5 is gone" "Error: unknown GPU." vgpuctl gpu show 5
check "gpu 5 can be added again" vgpuctl gpu add 5 vram 2G

# gpu probe of a GPU whose PCI domain is above 0xffff (VMD, Hyper-V):
# NVML (here simgpu's) writes its bus id "00010000:01:00.0", sysfs and the
# kernel "10000:01:00.0"; probe must match the two and add the GPU.
for i in $(vgpuctl gpu show | sed -n 's/^gpu \([0-9]*\) .*/\1/p'); do
	vgpuctl gpu del "$i"
done
printf 'gpus = 1\ngpu0.pci = 00010000:01:00.0\n' > /tmp/domain.conf
check_out "gpu probe adds a GPU with a PCI domain above 0xffff" "added gpu 0 uuid" \
	sh -c 'SIMGPU_CONFIG=/tmp/domain.conf vgpuctl gpu probe'
check_out "which the inventory holds as sysfs names it" "pci 10000:01:00.0" \
	vgpuctl gpu show 0
check_out "a second probe finds it there" "gpu 0 already present" \
	sh -c 'SIMGPU_CONFIG=/tmp/domain.conf vgpuctl gpu probe'
suite_end
