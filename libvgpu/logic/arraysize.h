/* SPDX-License-Identifier: GPL-2.0 */
/* Bytes a CUDA array takes (arraysize.c). */
#ifndef VGPU_ARRAYSIZE_H
#define VGPU_ARRAYSIZE_H

#include <stdint.h>

/* Bits per element and channel of a CUarray_format value; 0 if unknown. */
unsigned int libvgpu_format_bits(unsigned int format);
/* Bytes of an array: width x height x depth (or layers) x channels x
 * element size, summed over levels (each level halves the extents, never
 * below 1; layers are not halved), rounded up to a 4 KiB page. 0 if the
 * format is unknown. */
uint64_t libvgpu_array_bytes(uint64_t width, uint64_t height, uint64_t depth,
			     unsigned int format, unsigned int channels, int layered,
			     unsigned int levels);

#endif
