// SPDX-License-Identifier: GPL-2.0
/*
 * The room a tenant's cgroup has left in memory (memroom.h): what the
 * host copy of a checkpointed process will be charged to, since the copy
 * is the process's own memory. memory.max "max" is no limit; a cgroup
 * without the memory controller has no limit either.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memroom.h"

/* One decimal number and an optional newline; -1 otherwise. */
static int parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (errno || (*end && strcmp(end, "\n")))
		return -1;
	return 0;
}

/**
 * vgpuctl_memroom_parse() - the room from the two files' contents
 * @max: memory.max's text ("max\n" or a number of bytes)
 * @current: memory.current's text
 * @room: out: max - current, 0 when current is above max
 * @unlimited: out: max is "max" (then @room is 0)
 *
 * Return: 0, or -1 when either is malformed.
 */
int vgpuctl_memroom_parse(const char *max, const char *current, uint64_t *room,
			  bool *unlimited)
{
	uint64_t m, c;

	*room = 0;
	*unlimited = false;
	if (!strcmp(max, "max") || !strcmp(max, "max\n")) {
		*unlimited = true;
		return 0;
	}
	if (parse_u64(max, &m) || parse_u64(current, &c))
		return -1;
	*room = c < m ? m - c : 0;
	return 0;
}

/* The first line of ROOT/CGROUP/FILE into @buf; -errno. */
static int read_file(const char *root, const char *cgroup, const char *file, char *buf,
		     size_t len)
{
	char path[4200];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s/%s", root, cgroup[0] == '/' ? cgroup + 1 : cgroup,
		 file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

/**
 * vgpuctl_memroom_read() - the room of a cgroup's memory
 * @root: where cgroup2 is mounted ("/sys/fs/cgroup")
 * @cgroup: the tenant's cgroup, as the module names it ("/team-a")
 * @room: out: memory.max - memory.current
 * @unlimited: out: no limit (memory.max "max", or no memory controller)
 * @err: out: why not, when it fails
 * @len: its size
 *
 * Return: 0, or -1 with @err set.
 */
int vgpuctl_memroom_read(const char *root, const char *cgroup, uint64_t *room,
			 bool *unlimited, char *err, size_t len)
{
	char max[64], cur[64];
	int e;

	*room = 0;
	*unlimited = false;
	e = read_file(root, cgroup, "memory.max", max, sizeof(max));
	if (e == -ENOENT) {
		/* The root cgroup, or no memory controller: nothing limits it. */
		if (!read_file(root, cgroup, "cgroup.procs", cur, sizeof(cur)) ||
		    !strcmp(cgroup, "/") || !cgroup[0]) {
			*unlimited = true;
			return 0;
		}
	}
	if (!e)
		e = read_file(root, cgroup, "memory.current", cur, sizeof(cur));
	if (e) {
		snprintf(err, len, "cannot read %s's memory.max and memory.current: %s", cgroup,
			 strerror(-e));
		return -1;
	}
	if (vgpuctl_memroom_parse(max, cur, room, unlimited)) {
		snprintf(err, len, "%s's memory.max or memory.current is malformed", cgroup);
		return -1;
	}
	return 0;
}
