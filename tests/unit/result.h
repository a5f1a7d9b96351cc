/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One check, one line, for the unit tests of vgpuctl's pieces: "PASS:
 * SUITE: what" or "FAIL: SUITE: what: detail", failures counted. Define
 * VGPU_UNIT_SUITE (a string) before including; main returns
 * failures ? 1 : 0.
 */
#ifndef VGPU_UNIT_RESULT_H
#define VGPU_UNIT_RESULT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int failures;

/* @what with control and non-ASCII bytes as \xNN: one check, one line. */
static void print_what(const char *what)
{
	for (; *what; what++) {
		unsigned char c = (unsigned char)*what;

		if (c < 0x20 || c >= 0x7f)
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

static void __attribute__((format(printf, 3, 4)))
result(bool ok, const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("%s: " VGPU_UNIT_SUITE ": ", ok ? "PASS" : "FAIL");
	print_what(what);
	if (ok) {
		putchar('\n');
		return;
	}
	failures++;
	fputs(": ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

#endif
