// SPDX-License-Identifier: GPL-2.0
/*
 * The pid and cgroup the host knows a process by. NVIDIA's kernel driver
 * records a process as the initial pid namespace sees it, so NVML reports
 * host pids even to a process inside a container (Documentation/simgpu.md),
 * and, being in the kernel, it sees the task's real cgroup, which is what
 * its per-cgroup memory limits (memlimit.c) are set on from the host.
 * simgpu is a library inside the process: in a pid or cgroup namespace of
 * its own (a container's: there /proc/self/cgroup says "/") it asks
 * simgpu-pidd (pidd.c), which runs in the initial namespaces and answers
 * with the pid the kernel gives it for the connection (SO_PEERCRED is
 * translated into the reader's namespace) and that pid's cgroup.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "shm.h"

/* PROC_PID_INIT_INO and PROC_CGROUP_INIT_INO (include/linux/proc_ns.h):
 * the initial pid and cgroup namespaces. */
#define SG_PIDNS_INIT_INO 0xEFFFFFFCUL
#define SG_CGROUPNS_INIT_INO 0xEFFFFFFBUL

/* Whether namespace file ns of this process is the initial one. Without
 * /proc/self/ns, assume no namespaces (old behaviour). */
static int ns_initial(const char *ns, unsigned long ino)
{
	struct stat st;

	return stat(ns, &st) || st.st_ino == ino;
}

int simgpu_pidns_initial(void)
{
	static pid_t for_pid;	/* the answer is per process: fork, unshare */
	static int initial;

	if (for_pid != getpid()) {
		initial = ns_initial("/proc/self/ns/pid", SG_PIDNS_INIT_INO);
		for_pid = getpid();
	}
	return initial;
}

const char *simgpu_pidd_path(void)
{
	const char *p = getenv("SIMGPU_PIDD");

	return p && *p ? p : SG_DEFAULT_PIDD;
}

pid_t simgpu_host_pid(char *cg, size_t len)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct timeval tv = { 2, 0 };
	int cg_initial = ns_initial("/proc/self/ns/cgroup", SG_CGROUPNS_INIT_INO);
	int32_t pid = -1;
	size_t got = 0;
	ssize_t n;
	int fd;

	cg[0] = 0;
	if (simgpu_pidns_initial() && cg_initial)
		return getpid();
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return simgpu_pidns_initial() ? getpid() : -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", simgpu_pidd_path());
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    read(fd, &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		pid = -1;
	/* Then the cgroup, NUL-terminated; an older pidd sends none. */
	while (pid > 0 && got + 1 < len && (n = read(fd, cg + got, len - 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	cg[got] = 0;
	/* Ours is the host's view already; or the answer is none or cut. */
	if (cg_initial || !got || cg[got - 1] || cg[0] != '/')
		cg[0] = 0;
	if (simgpu_pidns_initial())
		return getpid();
	return pid > 0 ? pid : -1;
}
