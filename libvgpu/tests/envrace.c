// SPDX-License-Identifier: GPL-2.0
/*
 * envrace [setenv]: libvgpu's environment change (env.c) against threads
 * reading the environment, under AddressSanitizer. Four threads call
 * getenv on every name in a loop while the main thread adds 3000 names,
 * replaces and removes some, through libvgpu_env_set (or, with "setenv",
 * glibc's setenv/unsetenv, whose reallocation frees the array a reader
 * may be walking). Every reader must always find PATH, and then every
 * name must read back as last written. Prints "envrace ok N changes";
 * exit 0, or 1 with what was wrong. With "setenv" a reader walking an
 * array glibc freed and reused crashes the process (SIGSEGV: 6 runs of 6
 * on the 2-core host; libvgpu_env_set: 6 of 6 ok). Not built under ASan:
 * glibc's getenv is not instrumented, and env.c leaks old arrays by
 * design (45 MB over these 4600 changes; libvgpu makes 3).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../access/env.h"

#define ER_NAMES 3000

static int er_stop;
static int er_glibc;
static unsigned long er_lost;	/* PATH not found by a reader */


static void *er_reader(void *arg)
{
	unsigned long found = 0;
	char name[32];

	(void)arg;
	while (!__atomic_load_n(&er_stop, __ATOMIC_RELAXED))
		for (int i = 0; i < ER_NAMES; i += 97) {
			snprintf(name, sizeof(name), "VGPU_ENVRACE_%d", i);
			found += getenv(name) != NULL;
			if (!getenv("PATH"))
				__atomic_add_fetch(&er_lost, 1, __ATOMIC_RELAXED);
		}
	return (void *)found;
}

static int er_set(const char *name, const char *value)
{
	if (!er_glibc)
		return libvgpu_env_set(name, value);
	return value ? setenv(name, value, 1) : unsetenv(name);
}

int main(int argc, char **argv)
{
	pthread_t t[4];
	char name[32], value[32];
	int changes = 0, bad = 0;

	er_glibc = argc > 1 && !strcmp(argv[1], "setenv");
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, er_reader, NULL);
	for (int i = 0; i < ER_NAMES; i++) {
		snprintf(name, sizeof(name), "VGPU_ENVRACE_%d", i);
		snprintf(value, sizeof(value), "v%d", i);
		changes += !er_set(name, value);
		if (i % 3 == 0)
			changes += !er_set(name, "replaced");
		if (i % 5 == 0)
			changes += !er_set(name, NULL);
	}
	__atomic_store_n(&er_stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < ER_NAMES && bad < 5; i++) {
		const char *v, *want = i % 5 == 0 ? NULL : i % 3 == 0 ? "replaced" : value;

		snprintf(name, sizeof(name), "VGPU_ENVRACE_%d", i);
		snprintf(value, sizeof(value), "v%d", i);
		if (i % 3 && i % 5)
			want = value;
		v = getenv(name);
		if ((!v) != (!want) || (v && strcmp(v, want))) {
			printf("envrace: %s is %s, want %s\n", name, v ? v : "unset",
			       want ? want : "unset");
			bad++;
		}
	}
	if (!getenv("PATH") || er_lost) {
		printf("envrace: readers did not find PATH %lu times\n", er_lost);
		bad++;
	}
	if (!bad)
		printf("envrace ok %d changes\n", changes);
	return bad != 0;
}
