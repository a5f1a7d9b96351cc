/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CHECK(cond, what, fmt, ...) for libvgpu's logic tests: when cond is
 * false, print "FAIL: libvgpu: logic: what: detail", set the including
 * file's `failed` and return from the test function.
 */
#ifndef VGPU_TEST_CHECK_H
#define VGPU_TEST_CHECK_H

#include <stdio.h>

#define CHECK(cond, what, ...) do { \
	if (!(cond)) { \
		printf("FAIL: libvgpu: logic: %s: ", what); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		failed = 1; \
		return; \
	} \
} while (0)

#endif
