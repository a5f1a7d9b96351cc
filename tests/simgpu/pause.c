// SPDX-License-Identifier: GPL-2.0
/*
 * A test's pause inside a driver call (Documentation/simgpu.md, "Pausing
 * inside a call"): with SIMGPU_PAUSE_IN naming the function and
 * SIMGPU_PAUSE_FILE a path, the call creates PATH.paused on entry and
 * waits until PATH exists, before it takes any of simgpu's locks. A test
 * thereby holds a caller (libvgpu) inside the call, with whatever the
 * caller holds around it, for as long as it needs: to fork meanwhile, for
 * instance. The environment is read at every call, so a program may set
 * it for one call and a forked child may clear it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "simgpu.h"

void simgpu_pause_point(const char *fn)
{
	const char *in = getenv("SIMGPU_PAUSE_IN"), *path = getenv("SIMGPU_PAUSE_FILE");
	struct timespec nap = { 0, 10000000L };
	char mark[4096];
	int fd;

	if (!in || !path || strcmp(in, fn) || !path[0])
		return;
	snprintf(mark, sizeof(mark), "%s.paused", path);
	fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	while (access(path, F_OK))
		nanosleep(&nap, NULL);
}
