#!/bin/sh
# In the VM (k8s/vmtest/run): two NVLinked 16 GiB GPUs, then the test.
set -e
vgpuctl gpu add 0 vram 16G uuid GPU-00000000-0000-4000-8000-000000000000 pci 0000:3b:00.0 numa 0
vgpuctl gpu add 1 vram 16G uuid GPU-11111111-0000-4000-8000-000000000000 pci 0000:5e:00.0 numa 1
vgpuctl gpu set 0 nvlink 1
if /extra/driver.test -test.run TestVgpuctlEndToEnd -test.v; then
	echo "PASS: k8s-vm: the driver against vgpu.ko and vgpuctl"
else
	echo "FAIL: k8s-vm: the driver against vgpu.ko and vgpuctl"
	exit 1
fi
