/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The result convention of libvgpu's logic tests, the one of the unit
 * tests (tests/unit/result.h): one check, one line, "PASS: libvgpu:
 * logic: what" or "FAIL: libvgpu: logic: what: detail", failures counted
 * in each file's `failures`. A check is a function: CHECK(cond, what,
 * fmt, ...) fails it (and returns) when cond is false; PASSED(what) at
 * its end passes it.
 */
#ifndef VGPU_TEST_CHECK_H
#define VGPU_TEST_CHECK_H

#define VGPU_UNIT_SUITE "libvgpu: logic"
#include "../../tests/unit/result.h"

#define CHECK(cond, what, ...) do { \
	if (!(cond)) { \
		result(false, what, __VA_ARGS__); \
		return; \
	} \
} while (0)

#define PASSED(what) result(true, what, "%s", "")

/* PASSED with what formatted (details known only at the end). */
#define PASSEDF(...) do { \
	char what_[512]; \
	snprintf(what_, sizeof(what_), __VA_ARGS__); \
	PASSED(what_); \
} while (0)

#endif
