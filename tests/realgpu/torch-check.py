#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""PyTorch checks of tests/realgpu/run, run bare and under libvgpu.

    torch-check.py matmul   a matmul on the GPU against the CPU's
    torch-check.py graph    a captured CUDA graph replayed with new inputs
    torch-check.py oom      1 GiB tensors until torch.cuda.OutOfMemoryError
                            (PYTORCH_CUDA_ALLOC_CONF as the caller set it)

Prints one line of key=value words that depend only on the results (the
run compares the bare line with the preloaded one); exits 1 when the check
failed, with the reason on that line.
"""
import os
import time
import sys

import torch


def matmul():
    n = int(os.environ.get("TORCH_CHECK_MATMUL_N", "1024"))  # the fake: 64
    torch.manual_seed(0)
    a = torch.randn(n, n, dtype=torch.float64)
    b = torch.randn(n, n, dtype=torch.float64)
    c = (a.cuda() @ b.cuda()).cpu()
    ok = torch.allclose(c, a @ b, rtol=1e-9, atol=1e-9)
    print(f"matmul={n}x{n} float64 match_cpu={ok}")
    return ok


def graph():
    torch.backends.cuda.matmul.allow_tf32 = False  # exact: the check is equality
    x = torch.zeros(4096, device="cuda")
    w = torch.eye(64, device="cuda") * 3
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):   # warm up outside the capture, as PyTorch asks
        for _ in range(3):
            y = (x * 2 + 1).view(64, 64) @ w
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = (x * 2 + 1).view(64, 64) @ w
    correct = 0
    for i in range(10):
        x.copy_(torch.arange(4096, device="cuda", dtype=torch.float32) + i)
        g.replay()
        torch.cuda.synchronize()
        want = ((torch.arange(4096, dtype=torch.float32) + i) * 2 + 1).view(64, 64) * 3
        correct += bool(torch.equal(y.cpu(), want))
    print(f"graph_replays=10 correct={correct}")
    return correct == 10


def oom():
    conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "") or "default"
    free, total = torch.cuda.mem_get_info()
    held = []
    try:
        for _ in range(4096):       # 4 TiB: more than any GPU has
            held.append(torch.empty(1 << 30, dtype=torch.uint8, device="cuda"))
    except torch.cuda.OutOfMemoryError:
        print(f"oom_at_gib={len(held)} free_gib={free / 2**30:.1f} "
              f"total_gib={total / 2**30:.1f} alloc_conf={conf}", flush=True)
        # the stand-in's steps read the charge and the driver's use meanwhile
        time.sleep(float(os.environ.get("TORCH_CHECK_HOLD", "0")))
        return True
    except Exception as e:          # any other error is a failure
        print(f"error={type(e).__name__} after_gib={len(held)} alloc_conf={conf}")
        return False
    print(f"error=no_OutOfMemoryError after_gib={len(held)} alloc_conf={conf}")
    return False


if __name__ == "__main__":
    checks = {"matmul": matmul, "graph": graph, "oom": oom}
    if len(sys.argv) != 2 or sys.argv[1] not in checks:
        sys.exit("usage: torch-check.py matmul|graph|oom")
    sys.exit(0 if checks[sys.argv[1]]() else 1)
