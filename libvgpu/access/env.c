// SPDX-License-Identifier: GPL-2.0
/*
 * The environment as libvgpu changes it (devview.c: CUDA_VISIBLE_DEVICES
 * before the driver reads it), safely against other threads' getenv.
 *
 * glibc's setenv is not: adding a name reallocates the array it allocated
 * for an earlier addition and frees the old one, while getenv in another
 * thread may be walking it (glibc 2.36 does not lock getenv; POSIX calls
 * setenv not thread-safe). cuInit runs in programs whose other threads
 * already read the environment (Python's, PyTorch's). So each change here
 * builds a new array, copying the pointers of the current one and adding,
 * replacing or leaving out one entry, and publishes it with one release
 * store to environ. The old array and strings are never freed: a walk
 * that began on them finishes on valid memory. What leaks is a few hundred
 * bytes per change, and libvgpu changes the environment once per process
 * (three names). POSIX lets a program assign environ; glibc's setenv then
 * copies the array it finds instead of reallocating it. A setenv made by
 * another thread at the very same moment may still lose one of the two
 * changes, as two setenv calls without a common lock would.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"

extern char **environ;

int libvgpu_env_set(const char *name, const char *value)
{
	char **cur = __atomic_load_n(&environ, __ATOMIC_ACQUIRE), **next, *entry = NULL;
	size_t n = 0, len = strlen(name), k = 0;

	while (cur && cur[n])
		n++;
	if (value) {
		size_t vlen = strlen(value);

		entry = malloc(len + vlen + 2);
		if (!entry)
			return -1;
		memcpy(entry, name, len);
		entry[len] = '=';
		memcpy(entry + len + 1, value, vlen + 1);
	}
	next = malloc((n + 2) * sizeof(*next));
	if (!next) {
		free(entry);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (strncmp(cur[i], name, len) || cur[i][len] != '=')
			next[k++] = cur[i];
	if (entry)
		next[k++] = entry;
	next[k] = NULL;
	__atomic_store_n(&environ, next, __ATOMIC_RELEASE);
	return 0;
}
