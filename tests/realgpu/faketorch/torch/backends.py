# SPDX-License-Identifier: GPL-2.0
"""NOT PyTORCH: the fake torch.backends (what torch-check.py sets)."""
from types import SimpleNamespace

cuda = SimpleNamespace(matmul=SimpleNamespace(allow_tf32=False))
