#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""nvml-used.py PID: the bytes NVML says PID uses on GPU 0 (its compute
process list), nothing when it is not listed. What nvidia-smi
--query-compute-apps reads, for the hosts without nvidia-smi (simgpu)."""
import ctypes
import sys


class Info(ctypes.Structure):   # nvmlProcessInfo_t (_v2 layout, the _v3 call's)
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong),
                ("gpuInstanceId", ctypes.c_uint), ("computeInstanceId", ctypes.c_uint)]


def main():
    pid = int(sys.argv[1])
    nvml = ctypes.CDLL("libnvidia-ml.so.1")
    dev, n = ctypes.c_void_p(), ctypes.c_uint(64)
    procs = (Info * 64)()
    if (nvml.nvmlInit_v2() or nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(dev)) or
            nvml.nvmlDeviceGetComputeRunningProcesses_v3(dev, ctypes.byref(n), procs)):
        sys.exit("nvml-used.py: NVML refused")
    for p in procs[:n.value]:
        if p.pid == pid:
            print(p.usedGpuMemory)


if __name__ == "__main__":
    main()
