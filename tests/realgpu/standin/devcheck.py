# SPDX-License-Identifier: GPL-2.0
# The interposer's device path without libvgpu (tests/host/realgpu.sh runs
# it with the interposer built under ASan, whose runtime cannot be
# preloaded before libvgpu): open /dev/vgpu, map its two pages (a third
# offset refused with EINVAL), VGPU_IOC_MEMINFO (the one ioctl allowed
# before proc-register), an ioctl of another driver (ENOTTY), close.
# Prints "devcheck capacity C limit L"; exits non-zero with what failed.
import errno
import fcntl
import mmap
import os
import struct
import sys


def ioc(direction, kind, nr, size):
    return (direction << 30) | (size << 16) | (kind << 8) | nr


MEMINFO = ioc(3, 0xB7, 3, 40)  # _IOWR(VGPU_IOC_MAGIC, 3, struct vgpu_dev_meminfo)
fd = os.open("/dev/vgpu", os.O_RDWR | os.O_CLOEXEC)
page = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE, offset=0)
gate = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ, offset=4096)
try:
    mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ, offset=8192)
    sys.exit("devcheck: a map at offset 8192 succeeded")
except OSError as e:
    if e.errno != errno.EINVAL:
        sys.exit("devcheck: a map at offset 8192: %s, not EINVAL" % e)
buf = bytearray(40)
fcntl.ioctl(fd, MEMINFO, buf, True)
_, _, capacity, limit, _, _ = struct.unpack("=IIQQQQ", buf)
try:
    fcntl.ioctl(fd, ioc(3, 0x55, 1, 8), bytearray(8), True)
    sys.exit("devcheck: another driver's ioctl succeeded")
except OSError as e:
    if e.errno != errno.ENOTTY:
        sys.exit("devcheck: another driver's ioctl: %s, not ENOTTY" % e)
page.close()
gate.close()
os.close(fd)
if not capacity:
    sys.exit("devcheck: MEMINFO gave no capacity")
print("devcheck capacity %d limit %d" % (capacity, limit))
