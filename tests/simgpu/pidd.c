// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu-pidd [SOCKET]: tells each process that connects its pid in the
 * initial pid namespace and its cgroup as the initial cgroup namespace
 * sees it (hostpid.c), the part of a kernel driver simgpu, a library,
 * cannot play from inside a container. The reply: the pid (int32), then
 * the cgroup's path, NUL-terminated ("" if unknown). Runs in the
 * foreground until killed; SOCKET defaults to $SIMGPU_PIDD or
 * /dev/shm/simgpu-pidd.sock, a path the containers must share.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shm.h"

/* The cgroup v2 path of host pid pid into out ("" if unknown). */
static void host_cgroup(int32_t pid, char *out, size_t len)
{
	char path[64], line[SG_CGROUP_LEN + 8];
	FILE *f;

	out[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::/", 4)) {
			line[strcspn(line, "\n")] = 0;
			/* A path too long to hold is unknown, not cut. */
			if (strlen(line + 3) < len)
				memcpy(out, line + 3, strlen(line + 3) + 1);
			break;
		}
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	const char *path = argc > 1 ? argv[1] : simgpu_pidd_path();
	int fd, c;

	if (!simgpu_pidns_initial()) {
		fprintf(stderr, "simgpu-pidd: must run in the initial pid namespace\n");
		return 1;
	}
	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "simgpu-pidd: socket path too long\n");
		return 1;
	}
	strcpy(a.sun_path, path);
	signal(SIGPIPE, SIG_IGN);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || chmod(path, 0666) ||
	    listen(fd, 64)) {
		fprintf(stderr, "simgpu-pidd: %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (;;) {
		struct ucred cr;
		socklen_t len = sizeof(cr);
		int32_t pid;

		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		/* The peer's pid as this (the initial) namespace sees it. */
		if (!getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cr, &len)) {
			char reply[sizeof(pid) + SG_CGROUP_LEN];
			size_t n;

			pid = cr.pid;
			memcpy(reply, &pid, sizeof(pid));
			host_cgroup(pid, reply + sizeof(pid), SG_CGROUP_LEN);
			n = sizeof(pid) + strlen(reply + sizeof(pid)) + 1;
			if (write(c, reply, n) != (ssize_t)n)
				fprintf(stderr, "simgpu-pidd: reply to %d lost\n", (int)pid);
		}
		close(c);
	}
}
