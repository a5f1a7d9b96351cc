// SPDX-License-Identifier: GPL-2.0
/*
 * A program that never touches CUDA. Run under the preload, it prints what
 * it holds at exit: "fd N TARGET" for each descriptor, "threads N", and
 * "libvgpu loaded|absent" (so that a pass is not vacuous).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char path[300], target[256], line[512];
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");
	FILE *f;
	int loaded = 0;

	if (!d)
		return 1;
	while ((e = readdir(d))) {
		ssize_t n;

		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = 0;
		printf("fd %s %s\n", e->d_name, target);
	}
	closedir(d);
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "Threads:", 8))
			printf("threads %d\n", atoi(line + 8));
	if (f)
		fclose(f);
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "libvgpu.so"))
			loaded = 1;
	if (f)
		fclose(f);
	printf("libvgpu %s\n", loaded ? "loaded" : "absent");
	return 0;
}
