/* SPDX-License-Identifier: GPL-2.0 */
/* The GPU a stream-ordered allocation lands on (streamdev.c, pools.c). */
#ifndef VGPU_STREAMDEV_H
#define VGPU_STREAMDEV_H

#include "../access/hooks.h"

/* The inventory GPU of stream h's device (devmap.h's values); a default
 * stream (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) is the current
 * context's. */
int libvgpu_stream_gpu(CUstream h);
/* The CUdevice of stream h (a default stream: the current context's): 0,
 * or -1 when the driver cannot tell. */
int libvgpu_stream_device(CUstream h, CUdevice *dev);

#endif
