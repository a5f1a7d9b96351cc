# SPDX-License-Identifier: GPL-2.0
"""NOT PyTORCH: the fake torch.cuda (see torch/__init__.py)."""
from . import _driver

_capturing = None


class OutOfMemoryError(RuntimeError):
    """As PyTorch's: a RuntimeError."""


def mem_get_info():
    return _driver.mem_get_info()


def synchronize():
    _driver.synchronize()


class Stream:
    """A handle only: the fake's copies are synchronous."""

    def wait_stream(self, other):
        pass


_current = Stream()


def current_stream():
    return _current


class stream:
    def __init__(self, s):
        self._s, self._prev = s, None

    def __enter__(self):
        global _current
        self._prev, _current = _current, self._s

    def __exit__(self, *exc):
        global _current
        _current = self._prev


class CUDAGraph:
    """The host computations recorded while capturing, replayed in order."""

    def __init__(self):
        self._ops = []

    def replay(self):
        for op in self._ops:
            op()


class graph:
    def __init__(self, g):
        self._g = g

    def __enter__(self):
        global _capturing
        _driver.synchronize()
        _capturing = self._g

    def __exit__(self, *exc):
        global _capturing
        _capturing = None
