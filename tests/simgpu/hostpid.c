// SPDX-License-Identifier: GPL-2.0
/*
 * The pid the host knows a process by. NVIDIA's kernel driver records a
 * process as the initial pid namespace sees it, so NVML reports host pids
 * even to a process inside a container (Documentation/simgpu.md). simgpu
 * is a library inside the process: in a pid namespace of its own it asks
 * simgpu-pidd (pidd.c), which runs in the initial namespace and answers
 * with the pid the kernel gives it for the connection (SO_PEERCRED is
 * translated into the reader's namespace).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "shm.h"

/* PROC_PID_INIT_INO (include/linux/proc_ns.h): the initial pid namespace. */
#define SG_PIDNS_INIT_INO 0xEFFFFFFCUL

int simgpu_pidns_initial(void)
{
	static pid_t for_pid;	/* the answer is per process: fork, unshare */
	static int initial;
	struct stat st;

	if (for_pid != getpid()) {
		/* Without /proc/self/ns, assume no namespaces (old behaviour). */
		initial = stat("/proc/self/ns/pid", &st) || st.st_ino == SG_PIDNS_INIT_INO;
		for_pid = getpid();
	}
	return initial;
}

const char *simgpu_pidd_path(void)
{
	const char *p = getenv("SIMGPU_PIDD");

	return p && *p ? p : SG_DEFAULT_PIDD;
}

pid_t simgpu_host_pid(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { 2, 0 };
	int32_t pid = -1;
	int fd;

	if (simgpu_pidns_initial())
		return getpid();
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", simgpu_pidd_path());
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    read(fd, &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		pid = -1;
	close(fd);
	return pid > 0 ? pid : -1;
}
