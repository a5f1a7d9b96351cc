// SPDX-License-Identifier: GPL-2.0
/*
 * cgroupns PROG [ARG...]: runs PROG in a new cgroup namespace rooted at
 * the caller's cgroup, as a container runtime starts a container (its
 * /proc/self/cgroup then says "0::/"). Busybox's unshare has no option
 * for it. Needs CAP_SYS_ADMIN. (_GNU_SOURCE: the Makefile's CPPFLAGS.)
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: cgroupns PROG [ARG...]\n");
		return 2;
	}
	if (unshare(CLONE_NEWCGROUP)) {
		fprintf(stderr, "cgroupns: unshare(CLONE_NEWCGROUP): %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "cgroupns: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
