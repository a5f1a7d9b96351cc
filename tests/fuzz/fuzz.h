/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer harnesses of tests/fuzz share: a check that stops
 * the run (libFuzzer keeps the input as a crash), a NUL-terminated copy
 * of an input, and quiet error lines.
 */
#ifndef VGPU_FUZZ_H
#define VGPU_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * An invariant the parser broke: one line on file descriptor 2 (where
 * libFuzzer and the sanitizers report; stderr the stream is quiet), then
 * abort(), which libFuzzer takes for a crash and saves the input of.
 */
#define FUZZ_CHECK(cond, ...)							\
	do {									\
		if (!(cond)) {							\
			dprintf(2, "FUZZ-CHECK %s:%d: %s: ", __FILE__, __LINE__, #cond); \
			dprintf(2, __VA_ARGS__);				\
			dprintf(2, "\n");					\
			abort();						\
		}								\
	} while (0)

/* @data as a C string (cut at its first NUL byte, as argv would be); free() it. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * vgpuctl's error lines go to the stream stderr: to /dev/null while
 * fuzzing (thousands of refusals a second), unless VGPU_FUZZ_VERBOSE is
 * set. Descriptor 2 stays, for the reports.
 */
static inline void fuzz_quiet(void)
{
	FILE *f;

	if (getenv("VGPU_FUZZ_VERBOSE"))
		return;
	f = fopen("/dev/null", "w");
	if (f)
		stderr = f;
}

/* The LLVMFuzzerInitialize of a harness that needs nothing but quiet. */
#define FUZZ_QUIET_INITIALIZE					\
	int LLVMFuzzerInitialize(int *argc, char ***argv)	\
	{							\
		(void)argc;					\
		(void)argv;					\
		fuzz_quiet();					\
		return 0;					\
	}

#endif /* VGPU_FUZZ_H */
