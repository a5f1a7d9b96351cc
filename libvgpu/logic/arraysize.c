// SPDX-License-Identifier: GPL-2.0
/*
 * The size of an array, as the driver charges it (and as simgpu does,
 * tests/simgpu/array.c): texels x channels x bits per channel of the
 * format, summed over mip levels, page-rounded. Block-compressed and video
 * formats count their average bits per texel.
 *
 * The format table is deliberately not shared with simgpu's copy: simgpu
 * is the ground truth the tests compare libvgpu's charges with, and a
 * wrong entry in a shared table would be wrong on both sides unseen.
 */
#include "arraysize.h"

unsigned int libvgpu_format_bits(unsigned int f)
{
	switch (f) {
	case 0x01: case 0x08: return 8;				/* (UN)SIGNED_INT8 */
	case 0x02: case 0x09: case 0x10: return 16;		/* INT16, HALF */
	case 0x03: case 0x0a: case 0x20: return 32;		/* INT32, FLOAT */
	case 0xc0: case 0xc6: return 8;				/* UNORM/SNORM_INT8X1 */
	case 0xc1: case 0xc7: case 0xc3: case 0xc9: return 16;
	case 0xc2: case 0xc8: case 0xc4: case 0xca: case 0x50: return 32;
	case 0xc5: case 0xcb: return 64;
	case 0x91: case 0x92: case 0x97: case 0x98: return 4;	/* BC1, BC4 */
	case 0x93: case 0x94: case 0x95: case 0x96: case 0x99: case 0x9a:
	case 0x9b: case 0x9c: case 0x9d: case 0x9e: return 8;	/* BC2/3/5/6H/7 */
	case 0xb0: return 12;					/* NV12 */
	case 0x9f: case 0xa1: return 24;			/* P010, P016 */
	case 0xa2: case 0xa5: return 16;			/* NV16, YUY2 */
	case 0xa3: case 0xa4: case 0xa6: case 0xa7: return 32;
	case 0xa8: case 0xa9: return 32;
	case 0xb1: return 64;
	case 0xb2: return 24;
	case 0xb3: return 48;
	default: return 0;
	}
}

uint64_t libvgpu_array_bytes(uint64_t width, uint64_t height, uint64_t depth,
			     unsigned int format, unsigned int channels, int layered,
			     unsigned int levels)
{
	unsigned int bits = libvgpu_format_bits(format);
	uint64_t total = 0;

	if (!bits || !levels || levels > 32)
		return 0;
	for (unsigned int l = 0; l < levels; l++) {
		uint64_t w = width >> l, h = height >> l, z = layered ? depth : depth >> l;

		w = w ? w : 1;
		h = h ? h : 1;
		z = z ? z : 1;
		total += (w * h * z * channels * bits + 7) / 8;
	}
	return (total + 4095) / 4096 * 4096;
}
