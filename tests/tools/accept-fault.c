// SPDX-License-Identifier: GPL-2.0
/*
 * tests/tools/accept-fault.c: accept() errors on demand, for
 * tests/host/metrics.sh. Linked into a test build of vgpuctl with
 * -Wl,--wrap=accept4: the first calls fail with the errors named, in
 * order, by $VGPU_ACCEPT_FAULTS ("ENOBUFS,ENOMEM,EPROTO"), each said on
 * stderr ("accept-fault: ENOBUFS"); the pending connection stays queued,
 * as after a real failure. The calls after them are the real accept4().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>

int __real_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags);
int __wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags);

static const struct {
	const char *name;
	int err;
} faults[] = {
	{ "EMFILE", EMFILE }, { "ENFILE", ENFILE }, { "ENOBUFS", ENOBUFS },
	{ "ENOMEM", ENOMEM }, { "EPROTO", EPROTO }, { "EPERM", EPERM },
	{ "ECONNABORTED", ECONNABORTED }, { "EINVAL", EINVAL },
};

int __wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	static const char *next;
	static int started;
	size_t n, i;

	if (!started) {
		started = 1;
		next = getenv("VGPU_ACCEPT_FAULTS");
	}
	while (next && *next) {
		n = strcspn(next, ",");
		for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
			if (strlen(faults[i].name) == n && !strncmp(next, faults[i].name, n))
				break;
		next += n + (next[n] == ',');
		if (i == sizeof(faults) / sizeof(faults[0]))
			continue;	/* an unknown name: skipped */
		fprintf(stderr, "accept-fault: %s\n", faults[i].name);
		errno = faults[i].err;
		return -1;
	}
	return __real_accept4(fd, sa, len, flags);
}
