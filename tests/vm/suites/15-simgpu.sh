#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vm-usual: 3
# vm-boot: shared
# simgpu is the VM's system driver: found by the dynamic loader without any
# environment, two 16 GiB GPUs by default, shared by every process.
suite=simgpu
. /tests/suite-lib.sh

check "libcuda.so.1 is where the loader looks" test -e /usr/lib/x86_64-linux-gnu/libcuda.so.1
check "libnvidia-ml.so.1 too" test -e /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1
check_eq "no driver variable in the environment" "" "$(env | grep -E '^(LD_LIBRARY_PATH|SIMGPU_)' || true)"
check_out "cuInit succeeds via dlopen" "init ok" simgpu-client init
check_out "GPU 0 has 16 GiB" "total 17179869184" simgpu-client device 0 , info
check_out "GPU 1 has 16 GiB" "total 17179869184" simgpu-client device 1 , info
check_out "NVML sees the same GPU" "total 17179869184" simgpu-client nvml
# memory is shared by all processes of the host
simgpu-client alloc 12G , sleep 600000 > /tmp/holder 2>&1 &
holder=$!
# Until it has allocated (a loaded machine took over a second).
for i in $(seq 1 600); do
	grep -q '^alloc .* ok' /tmp/holder && break
	sleep 0.1
done
check_out "a second process sees the first one's allocation" "free 4294967296" simgpu-client info
check_out "and cannot take more than is left" "CUDA_ERROR_OUT_OF_MEMORY" sh -c 'simgpu-client alloc 5G; true'
kill -9 $holder
wait $holder 2>/dev/null
check_out "kill -9 gives the memory back" "free 17179869184" simgpu-client info
check_out "an unprivileged user shares the same device" "free 17179869184" \
	su -s /bin/sh nobody -c "simgpu-client info"
suite_end
