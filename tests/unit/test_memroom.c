// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the agent's check of a tenant cgroup's memory room
 * (ctl/enforce/memroom.c): the parser of memory.max and memory.current,
 * then the reader against a fake cgroup2 tree in a temporary directory.
 * One line per check: "PASS: memroom: <what>" or "FAIL: memroom: <what>:
 * <detail>". Exits 1 if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE tests/unit/test_memroom.c ctl/enforce/memroom.c
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../ctl/enforce/memroom.h"

#define VGPU_UNIT_SUITE "memroom"
#include "result.h"

static char root[256];

static void die(const char *what)
{
	fprintf(stderr, "test_memroom: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void put(const char *rel, const char *content)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f || fputs(content, f) < 0 || fclose(f))
		die(rel);
}

static void mkd(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (mkdir(path, 0755))
		die(rel);
}

/* The parser: each case, its room and whether it is unlimited, or refused. */
static void test_parse(void)
{
	static const struct {
		const char *max, *cur;
		int ret;
		uint64_t room;
		bool unlimited;
	} c[] = {
		{ "max\n", "123\n", 0, 0, true },
		{ "max", "junk", 0, 0, true },		/* no limit: current is not needed */
		{ "1000\n", "400\n", 0, 600, false },
		{ "1000", "1000", 0, 0, false },
		{ "1000\n", "1500\n", 0, 0, false },	/* above the limit (reclaim lags) */
		{ "18446744073709551615\n", "0\n", 0, UINT64_MAX, false },
		{ "", "0\n", -1, 0, false },
		{ "-1\n", "0\n", -1, 0, false },
		{ "10 \n", "0\n", -1, 0, false },
		{ "10\n", "x\n", -1, 0, false },
		{ "maximum\n", "0\n", -1, 0, false },
		{ "18446744073709551616\n", "0\n", -1, 0, false },	/* overflows */
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char what[96];
		uint64_t room = 42;
		bool unl = false;
		int ret = vgpuctl_memroom_parse(c[i].max, c[i].cur, &room, &unl);

		snprintf(what, sizeof(what), "max \"%s\" current \"%s\"", c[i].max, c[i].cur);
		if (c[i].ret)
			result(ret == c[i].ret, what, "got %d, want refused", ret);
		else
			result(!ret && room == c[i].room && unl == c[i].unlimited, what,
			       "got %d room %" PRIu64 " unlimited %d, want room %" PRIu64
			       " unlimited %d", ret, room, unl, c[i].room, c[i].unlimited);
	}
}

/* The reader against a fake tree. */
static void test_read(void)
{
	char err[256] = "";
	uint64_t room = 0;
	bool unl = false;
	int ret;

	mkd("a");
	put("a/memory.max", "1073741824\n");
	put("a/memory.current", "73741824\n");
	ret = vgpuctl_memroom_read(root, "/a", &room, &unl, err, sizeof(err));
	result(!ret && room == 1000000000 && !unl, "a limited cgroup's room is max - current",
	       "got %d room %" PRIu64 " (%s)", ret, room, err);
	mkd("b");
	put("b/memory.max", "max\n");
	put("b/memory.current", "5\n");
	ret = vgpuctl_memroom_read(root, "b", &room, &unl, err, sizeof(err));
	result(!ret && unl, "memory.max \"max\" is no limit (a path without its slash too)",
	       "got %d unlimited %d (%s)", ret, unl, err);
	mkd("c");
	put("c/cgroup.procs", "");
	ret = vgpuctl_memroom_read(root, "/c", &room, &unl, err, sizeof(err));
	result(!ret && unl, "a cgroup without the memory controller has no limit",
	       "got %d unlimited %d (%s)", ret, unl, err);
	ret = vgpuctl_memroom_read(root, "/gone", &room, &unl, err, sizeof(err));
	result(ret == -1 && strstr(err, "/gone") && strstr(err, "memory.max"),
	       "a cgroup that is not there is an error naming it", "got %d: %s", ret, err);
	mkd("d");
	put("d/memory.max", "12x\n");
	put("d/memory.current", "5\n");
	ret = vgpuctl_memroom_read(root, "/d", &room, &unl, err, sizeof(err));
	result(ret == -1 && strstr(err, "malformed"), "a malformed memory.max is an error",
	       "got %d: %s", ret, err);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char cmd[600];

	snprintf(root, sizeof(root), "%s/test_memroom.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		die("mkdtemp");
	test_parse();
	test_read();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "test_memroom: could not remove %s\n", root);
	return failures ? 1 : 0;
}
