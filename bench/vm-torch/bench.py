# SPDX-License-Identifier: GPL-2.0
# One process of bench/vm-torch.sh: how long "import torch" takes, then
# the first CUDA call (the runtime's start, the context), then a loop of N
# small in-place adds on a 4 KiB tensor, synchronised at the end; one line
# "import_ms I init_ms C op_us U" on stdout.
import sys
import time

t0 = time.monotonic()
import torch  # noqa: E402  (timed on purpose)

t1 = time.monotonic()
x = torch.zeros(1024, device="cuda")
torch.cuda.synchronize()
t2 = time.monotonic()
n = int(sys.argv[1])
for _ in range(20):
    x.add_(1)
torch.cuda.synchronize()
t3 = time.monotonic()
for _ in range(n):
    x.add_(1)
torch.cuda.synchronize()
t4 = time.monotonic()
print(f"import_ms {(t1 - t0) * 1e3:.0f} init_ms {(t2 - t1) * 1e3:.0f} "
      f"op_us {(t4 - t3) * 1e6 / n:.1f}")
