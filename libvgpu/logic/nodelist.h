/* SPDX-License-Identifier: GPL-2.0 */
/* NUMA node lists as cpuset prints them ("0-1,3"), to bit masks. */
#ifndef VGPU_NODELIST_H
#define VGPU_NODELIST_H

#include <stdint.h>

/*
 * Parse s into mask (words of 64 bits, node n is bit n % 64 of word
 * n / 64, as struct vgpu_dev_placement), nbits bits long: the number of
 * nodes set (0 for an empty list), -EINVAL for a malformed list (empty
 * item, reversed range, stray character), -ERANGE for a node >= nbits.
 * Trailing white space (a newline) is allowed. mask is cleared first,
 * and left cleared on error.
 */
int libvgpu_nodelist_parse(const char *s, uint64_t *mask, unsigned int nbits);
/* The highest node set in mask, or -1. */
int libvgpu_nodelist_last(const uint64_t *mask, unsigned int nbits);

#endif
