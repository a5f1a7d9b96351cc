/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's integer types and arithmetic helpers that kmod/policy*.c
 * use, for compiling those files in userspace (kmod/policy.h). Each helper
 * has the kernel's meaning (include/linux/math64.h, minmax.h, math.h);
 * min()/max() check that both sides have one type, as the kernel's do.
 */
#ifndef VGPU_KSHIM_H
#define VGPU_KSHIM_H

#include <stdbool.h>

/* As the kernel's asm-generic/int-ll64.h: u64 is unsigned long long. */
typedef unsigned char u8;
typedef unsigned int u32;
typedef int s32;
typedef unsigned long long u64;
typedef long long s64;

#define U64_MAX (~0ULL)
#define S64_MAX ((s64)(U64_MAX >> 1))

#define vgpu_kshim_same(a, b) \
	_Static_assert(__builtin_types_compatible_p(__typeof__(a), __typeof__(b)), \
		       "min/max of different types")
#define min(a, b) ({ vgpu_kshim_same(a, b); __typeof__(a) _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max(a, b) ({ vgpu_kshim_same(a, b); __typeof__(a) _a = (a), _b = (b); _a > _b ? _a : _b; })
#define min_t(t, a, b) ({ t _a = (a), _b = (b); _a < _b ? _a : _b; })
#define max_t(t, a, b) ({ t _a = (a), _b = (b); _a > _b ? _a : _b; })
/* A power-of-two step, as the kernel's round_down() requires. */
#define round_down(x, y) ((x) & ~((__typeof__(x))((y) - 1)))

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif /* VGPU_KSHIM_H */
