# SPDX-License-Identifier: GPL-2.0
"""NOT PyTORCH: a fake `torch` for tests/host/realgpu.sh only.

It implements exactly what tests/realgpu/torch-check.py uses, so that
make check runs that script's logic and tests/realgpu/run's handling of
its output on simgpu, where PyTorch cannot run. Device memory is the
driver's (cuMemAlloc, or cuMemCreate/cuMemMap with PYTORCH_CUDA_ALLOC_CONF
expandable_segments:True), so that under libvgpu and the stand-in a
refusal at a tenant's limit is a real CUDA_ERROR_OUT_OF_MEMORY, raised as
torch.cuda.OutOfMemoryError. The arithmetic is done on the host in
Python, between real copies (cuMemcpyHtoD/DtoH); streams are handles only
(every copy is synchronous), and a "CUDA graph" replays the host
computations recorded while capturing. tests/realgpu/run sees
__vgpu_fake__ and labels every result it gives (torch=fake, the step id
with -faketorch), never as PyTorch's.

FAKETORCH_BREAK=oom-error (the tests' negative run): an allocation the
driver refuses raises RuntimeError, not OutOfMemoryError.
"""
import array
import os
import random

from . import _driver

__version__ = "0.0+vgpu.fake"
__vgpu_fake__ = True


class dtype:
    def __init__(self, name, code):
        self.name, self.code = name, code
        self.itemsize = array.array(code).itemsize

    def __repr__(self):
        return "torch." + self.name


float32 = dtype("float32", "f")
float64 = dtype("float64", "d")
uint8 = dtype("uint8", "B")

_rng = random.Random(0)


def manual_seed(seed):
    _rng.seed(seed)


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _round(vals, dt):
    """The values as dt holds them (float32 rounds)."""
    return array.array(dt.code, vals).tolist()


class _Mem:
    """Device memory of one tensor (views share it); freed with it."""

    def __init__(self, size):
        self.owned = False          # (until the allocation succeeds)
        self.ptr = _cuda_alloc(size) if size else 0
        self.owned = bool(size)

    def __del__(self):
        if self.owned:
            try:
                _driver.free(self.ptr)
            except Exception:
                pass


class Tensor:
    def __init__(self, shape, dt, device, vals=None, mem=None):
        self.shape, self.dtype, self.device = tuple(shape), dt, device
        if device == "cuda":
            self._mem = mem or _Mem(_numel(shape) * dt.itemsize)
            if vals is not None:
                self._store(vals)
        else:
            self._vals = _round(vals, dt) if vals is not None else [0] * _numel(shape)

    # -- values: a CPU tensor's list, a CUDA tensor's copied from the device
    def _values(self):
        if self.device != "cuda":
            return self._vals
        raw = _driver.dtoh(self._mem.ptr, _numel(self.shape) * self.dtype.itemsize)
        return array.array(self.dtype.code, raw).tolist()

    def _store(self, vals):
        _driver.htod(self._mem.ptr, array.array(self.dtype.code, vals).tobytes())

    def cuda(self):
        return Tensor(self.shape, self.dtype, "cuda", vals=self._values())

    def cpu(self):
        return Tensor(self.shape, self.dtype, "cpu", vals=self._values())

    def view(self, *shape):
        if _numel(shape) != _numel(self.shape):
            raise RuntimeError(f"view {shape} of {self.shape} (fake torch)")
        if self.device == "cuda":
            return Tensor(shape, self.dtype, "cuda", mem=self._mem)
        t = Tensor(shape, self.dtype, "cpu")
        t._vals = self._vals
        return t

    def copy_(self, src):
        _op(lambda s: s, [src], self.shape, self.dtype, out=self)
        return self

    def __mul__(self, k):
        return _op(lambda a: [v * k for v in a], [self], self.shape, self.dtype)

    def __add__(self, k):
        return _op(lambda a: [v + k for v in a], [self], self.shape, self.dtype)

    def __matmul__(self, other):
        (n, m), (m2, p) = self.shape, other.shape
        if m != m2 or self.device != other.device:
            raise RuntimeError(f"matmul {self.shape} @ {other.shape} (fake torch)")
        return _op(lambda a, b: _matmul(a, b, n, m, p), [self, other], (n, p), self.dtype)


def _matmul(a, b, n, m, p):
    cols = [b[j::p] for j in range(p)]
    return [sum(x * y for x, y in zip(a[i * m:(i + 1) * m], c)) for i in range(n) for c in cols]


def _op(fn, inputs, shape, dt, out=None):
    """out = fn(inputs' values), in dt; on CUDA tensors read and written
    through the device, and only recorded while a graph is captured."""
    dev = inputs[0].device
    if out is None:
        out = Tensor(shape, dt, dev)

    def run():
        vals = _round(fn(*[t._values() for t in inputs]), dt)
        if dev == "cuda":
            out._store(vals)
        else:
            out._vals = vals
    from . import cuda
    if dev == "cuda" and cuda._capturing is not None:
        cuda._capturing._ops.append(run)
    else:
        run()
    return out


def _make(shape, dt, device, vals):
    return Tensor(shape, dt or float32, "cuda" if device == "cuda" else "cpu", vals=vals)


def randn(*shape, dtype=None, device=None):
    return _make(shape, dtype, device, [_rng.gauss(0.0, 1.0) for _ in range(_numel(shape))])


def zeros(n, dtype=None, device=None):
    return _make((n,), dtype, device, [0] * n)


def eye(n, dtype=None, device=None):
    return _make((n, n), dtype, device, [1 if i % (n + 1) == 0 else 0 for i in range(n * n)])


def arange(n, dtype=None, device=None):
    return _make((n,), dtype, device, list(range(n)))


def empty(n, dtype=None, device=None):
    """Memory only, never touched (an allocation as PyTorch's)."""
    return _make((n,), dtype, device, None) if device == "cuda" else zeros(n, dtype)


def allclose(a, b, rtol=1e-05, atol=1e-08):
    return a.shape == b.shape and all(abs(x - y) <= atol + rtol * abs(y)
                                      for x, y in zip(a._values(), b._values()))


def equal(a, b):
    return a.shape == b.shape and a._values() == b._values()


# -- the allocator: plain cuMemAlloc, or expandable segments (a reserved
# range as large as the device, mapped as it grows; another when full)
_segment = {"base": 0, "size": 0, "used": 0}


def _expandable():
    conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")
    return "expandable_segments:True" in conf.split(",")


def _cuda_alloc(size):
    try:
        if not _expandable():
            return _driver.alloc(size)
        g = _driver.granularity()
        size = -(-size // g) * g
        seg = _segment
        if not seg["base"] or seg["used"] + size > seg["size"]:
            seg["size"] = max(-(-_driver.mem_get_info()[1] // g) * g, size)
            seg["base"], seg["used"] = _driver.reserve(seg["size"]), 0
        va = seg["base"] + seg["used"]
        _driver.create_and_map(va, size)
        seg["used"] += size
        return va
    except _driver.DriverError as e:
        if e.rc == _driver.CUDA_ERROR_OUT_OF_MEMORY and os.environ.get("FAKETORCH_BREAK") != "oom-error":
            from . import cuda
            raise cuda.OutOfMemoryError(f"CUDA out of memory: {size} bytes refused (fake torch)") from e
        raise


from . import backends, cuda  # noqa: E402 (they use the names above)
