// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu-pidd [SOCKET]: tells each process that connects its pid in the
 * initial pid namespace (hostpid.c), the part of a kernel driver simgpu,
 * a library, cannot play from inside a container. Runs in the foreground
 * until killed; SOCKET defaults to $SIMGPU_PIDD or /dev/shm/simgpu-pidd.sock,
 * a path the containers must share.
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
			pid = cr.pid;
			if (write(c, &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
				fprintf(stderr, "simgpu-pidd: reply to %d lost\n", (int)pid);
		}
		close(c);
	}
}
