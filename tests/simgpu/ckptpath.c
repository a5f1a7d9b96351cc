// SPDX-License-Identifier: GPL-2.0
/*
 * Where a simgpu process listens for checkpoint requests
 * (cuCheckpointProcess*, ckptsrv.c): a socket named by its host pid in the
 * state file's directory, which every process sharing the GPUs (a
 * container's too) must already see. The liveness scan removes the
 * sockets of processes that died without removing their own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "shm.h"

int simgpu_ckpt_path(pid_t pid, char *out, size_t len)
{
	const char *st = getenv("SIMGPU_STATE");
	const char *slash;
	int dirlen, n;

	if (!st || !*st)
		st = SG_DEFAULT_STATE;
	slash = strrchr(st, '/');
	dirlen = slash ? (int)(slash - st) : 1;
	n = snprintf(out, len, "%.*s/simgpu-ckpt.%d.sock", dirlen, slash ? st : ".",
		     (int)pid);
	if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(((struct sockaddr_un *)0)->sun_path))
		return -1;
	return 0;
}

void simgpu_ckpt_unlink(pid_t pid)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];

	if (!simgpu_ckpt_path(pid, path, sizeof(path)))
		unlink(path);
}
