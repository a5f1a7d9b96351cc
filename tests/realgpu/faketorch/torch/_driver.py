# SPDX-License-Identifier: GPL-2.0
"""The CUDA driver API for the fake torch, through ctypes.

Entry points are found as NVIDIA's runtime finds them: cuGetProcAddress
(flags 0, CUDA 12.0's versions), so that under libvgpu they are its
wrappers only if its cuGetProcAddress hands them out (simgpu's
SIMGPU_PROCADDR=distinct answers with entry points of its own, as
NVIDIA's driver does). The primary context of device 0, as the runtime's.
"""
import ctypes
from ctypes import POINTER, byref, c_int, c_size_t, c_uint, c_uint64, c_void_p

CUDA_ERROR_OUT_OF_MEMORY = 2
_VERSION = 12000
_lib = None
_fns = {}


class DriverError(RuntimeError):
    def __init__(self, name, rc):
        super().__init__(f"CUDA driver error {rc} in {name} (fake torch)")
        self.rc = rc


def _load():
    global _lib
    if _lib is not None:
        return
    lib = ctypes.CDLL("libcuda.so.1")
    lib.cuInit.argtypes = [c_uint]
    _check("cuInit", lib.cuInit(0))
    _lib = lib
    ctx, dev = c_void_p(), c_int()
    call("cuDeviceGet", byref(dev), 0)
    call("cuDevicePrimaryCtxRetain", byref(ctx), dev)
    call("cuCtxSetCurrent", ctx)


def _check(name, rc):
    if rc != 0:
        raise DriverError(name, rc)


def _fn(name):
    if name not in _fns:
        gpa = _lib.cuGetProcAddress_v2
        gpa.argtypes = [ctypes.c_char_p, POINTER(c_void_p), c_int, c_uint64, POINTER(c_int)]
        pfn, status = c_void_p(), c_int()
        _check("cuGetProcAddress(" + name + ")",
               gpa(name.encode(), byref(pfn), _VERSION, 0, byref(status)))
        if not pfn.value:
            raise DriverError("cuGetProcAddress(" + name + ")", -1)
        # (every argument is passed as a ctypes object: no argtypes needed)
        _fns[name] = ctypes.CFUNCTYPE(c_int)(pfn.value)
    return _fns[name]


def call(name, *args):
    """name(args), raising DriverError on any result but CUDA_SUCCESS."""
    _load()
    _check(name, _fn(name)(*args))


def alloc(size):
    p = c_uint64()
    call("cuMemAlloc", byref(p), c_size_t(size))
    return p.value


def free(ptr):
    call("cuMemFree", c_uint64(ptr))


def htod(ptr, data):
    buf = ctypes.create_string_buffer(data, len(data))
    call("cuMemcpyHtoD", c_uint64(ptr), buf, c_size_t(len(data)))


def dtoh(ptr, size):
    buf = ctypes.create_string_buffer(size)
    call("cuMemcpyDtoH", buf, c_uint64(ptr), c_size_t(size))
    return buf.raw


def mem_get_info():
    free_b, total = c_size_t(), c_size_t()
    call("cuMemGetInfo", byref(free_b), byref(total))
    return free_b.value, total.value


def synchronize():
    call("cuCtxSynchronize")


class _Location(ctypes.Structure):
    _fields_ = [("type", c_int), ("id", c_int)]


class _AllocFlags(ctypes.Structure):
    _fields_ = [("compressionType", ctypes.c_ubyte), ("gpuDirectRDMACapable", ctypes.c_ubyte),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 4)]


class _Prop(ctypes.Structure):        # CUmemAllocationProp
    _fields_ = [("type", c_int), ("requestedHandleTypes", c_int), ("location", _Location),
                ("win32HandleMetaData", c_void_p), ("allocFlags", _AllocFlags)]


class _Access(ctypes.Structure):      # CUmemAccessDesc
    _fields_ = [("location", _Location), ("flags", c_int)]


def _prop():
    p = _Prop()
    p.type = 1                      # CU_MEM_ALLOCATION_TYPE_PINNED
    p.location.type = 1             # CU_MEM_LOCATION_TYPE_DEVICE, device 0
    return p


def granularity():
    g = c_size_t()
    call("cuMemGetAllocationGranularity", byref(g), byref(_prop()), 0)
    return g.value


def reserve(size):
    p = c_uint64()
    call("cuMemAddressReserve", byref(p), c_size_t(size), c_size_t(0), c_uint64(0), c_uint64(0))
    return p.value


def create_and_map(va, size):
    """Physical memory of size bytes mapped read-write at va (VMM)."""
    h = c_uint64()
    call("cuMemCreate", byref(h), c_size_t(size), byref(_prop()), c_uint64(0))
    call("cuMemMap", c_uint64(va), c_size_t(size), c_size_t(0), h, c_uint64(0))
    acc = _Access()
    acc.location.type, acc.flags = 1, 3   # device 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE
    call("cuMemSetAccess", c_uint64(va), c_size_t(size), byref(acc), c_size_t(1))
    call("cuMemRelease", h)         # the mapping keeps it
