// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl's cpuset writer (ctl/enforce/cpuset.c) against a fake
 * cgroup2 tree in a temporary directory: regular files stand for the
 * control files, and a link to /proc/version for a file that refuses to be
 * written. One line per check: "PASS: cpuset: <what>" or "FAIL: cpuset:
 * <what>: <detail>". Exits 1 if any check failed.
 *
 *   cc -std=c11 -D_GNU_SOURCE tests/unit/test_cpuset.c ctl/enforce/cpuset.c
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../ctl/enforce/cpuset.h"

#define VGPU_UNIT_SUITE "cpuset"
#include "result.h"

static char root[256];

static void die(const char *what)
{
	fprintf(stderr, "test_cpuset: %s: %s\n", what, strerror(errno));
	exit(2);
}

static const char *at(const char *rel)
{
	static char path[4][512];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s", root, rel);
	return path[i];
}

/* Write @content (exactly) to ROOT/@rel, replacing a link if there is one. */
static void put(const char *rel, const char *content)
{
	FILE *f;

	unlink(at(rel));
	f = fopen(at(rel), "w");
	if (!f || fputs(content, f) < 0 || fclose(f))
		die(rel);
}

static void refuse(const char *rel)
{
	unlink(at(rel));
	if (symlink("/proc/version", at(rel)))
		die(rel);
}

static char *get(const char *rel)
{
	static char buf[4][256];
	static int i;
	FILE *f = fopen(at(rel), "r");
	size_t n;

	i = (i + 1) % 4;
	if (!f)
		return strcpy(buf[i], "(missing)");
	n = fread(buf[i], 1, sizeof(buf[i]) - 1, f);
	buf[i][n] = '\0';
	fclose(f);
	return buf[i];
}

static void rm_tree(const char *rel)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", at(rel));
	if (system(cmd))
		die("rm");
}

/* ROOT/a/b: cpuset offered at the root, enabled nowhere yet. */
static void fresh_tree(void)
{
	rm_tree("a");
	if (mkdir(at("a"), 0755) || mkdir(at("a/b"), 0755))
		die("mkdir");
	put("cgroup.controllers", "cpuset cpu io memory pids\n");
	put("cgroup.subtree_control", "cpu memory\n");
	put("a/cgroup.subtree_control", "");
	put("a/b/cpuset.cpus", "");
	put("a/b/cpuset.mems", "");
}

static void expect(const char *what, const char *rel, const char *want)
{
	const char *got = get(rel);
	char w[256];

	snprintf(w, sizeof(w), "%s: %s", what, rel);
	result(!strcmp(got, want), w, "holds \"%s\", want \"%s\"", got, want);
}

static void test_writes(void)
{
	char err[512];
	int r;

	fresh_tree();
	r = vgpuctl_cpuset_apply(root, "/a/b", "2-3", "1", err, sizeof(err));
	result(r == VGPU_CPUSET_OK && !err[0], "apply returns OK", "returned %d (%s)", r, err);
	expect("the root's subtree gets +cpuset", "cgroup.subtree_control", "+cpuset\n");
	expect("the parent's subtree gets +cpuset", "a/cgroup.subtree_control", "+cpuset\n");
	expect("cpus written", "a/b/cpuset.cpus", "2-3\n");
	expect("mems written", "a/b/cpuset.mems", "1\n");

	fresh_tree();
	put("cgroup.subtree_control", "cpu cpuset memory\n");
	put("a/cgroup.subtree_control", "cpuset\n");
	put("a/b/cpuset.cpus", "2-3");		/* no newline: a rewrite would add one */
	r = vgpuctl_cpuset_apply(root, "//a/b/", "2-3", "", err, sizeof(err));
	result(r == VGPU_CPUSET_OK, "apply with every ancestor enabled", "returned %d (%s)", r, err);
	expect("an enabled ancestor is left alone", "cgroup.subtree_control", "cpu cpuset memory\n");
	expect("an enabled parent is left alone", "a/cgroup.subtree_control", "cpuset\n");
	expect("a value already in force is not rewritten", "a/b/cpuset.cpus", "2-3");
	expect("an empty mems inherits", "a/b/cpuset.mems", "");
	put("a/b/cpuset.mems", "0-1\n");
	r = vgpuctl_cpuset_apply(root, "/a/b", "", "", err, sizeof(err));
	expect("\"\" is written as an empty line (inherit)", "a/b/cpuset.cpus", "\n");
	expect("\"\" clears mems", "a/b/cpuset.mems", "\n");

	fresh_tree();
	put("a/b/cgroup.subtree_control", "");
	if (mkdir(at("a/b/c"), 0755))
		die("mkdir");
	put("a/b/c/cpuset.cpus", "");
	put("a/b/c/cpuset.mems", "");
	r = vgpuctl_cpuset_apply(root, "/a/b/c", "0", "0", err, sizeof(err));
	result(r == VGPU_CPUSET_OK, "a tenant three levels down", "returned %d (%s)", r, err);
	expect("every ancestor enabled", "a/b/cgroup.subtree_control", "+cpuset\n");
	expect("the cpus of the deepest cgroup", "a/b/c/cpuset.cpus", "0\n");
}

static void test_skips(void)
{
	char err[512];
	int r;

	fresh_tree();
	put("cgroup.controllers", "cpu memory\n");	/* not even offered */
	unlink(at("a/b/cpuset.cpus"));
	unlink(at("a/b/cpuset.mems"));
	r = vgpuctl_cpuset_apply(root, "/a/b", "", "", err, sizeof(err));
	result(r == VGPU_CPUSET_OK && !err[0], "nothing to restrict and no cpuset files: OK",
	       "returned %d (%s)", r, err);
	expect("the controller is not enabled for nothing", "cgroup.subtree_control",
	       "cpu memory\n");
	r = vgpuctl_cpuset_apply(root, "/a/b", "1", "", err, sizeof(err));
	result(r == -1, "but a CPU to restrict to needs the controller", "returned %d", r);

	fresh_tree();
	r = vgpuctl_cpuset_apply(root, "/a/gone", "1", "0", err, sizeof(err));
	result(r == VGPU_CPUSET_GONE, "a removed cgroup is GONE", "returned %d (%s)", r, err);
	expect("nothing enabled for a removed cgroup", "cgroup.subtree_control", "cpu memory\n");
	r = vgpuctl_cpuset_apply(root, "/", "1", "0", err, sizeof(err));
	result(r == VGPU_CPUSET_ROOT, "the root cgroup is ROOT", "returned %d (%s)", r, err);
	expect("nothing enabled for the root cgroup", "cgroup.subtree_control", "cpu memory\n");
}

static void expect_err(const char *what, int r, const char *err, const char *want)
{
	result(r == -1 && !strncmp(err, want, strlen(want)), what,
	       "returned %d, error \"%s\", want \"%s...\"", r, err, want);
}

static void test_failures(void)
{
	char err[512], want[512];
	int r;

	fresh_tree();
	put("cgroup.controllers", "cpu io memory pids\n");
	r = vgpuctl_cpuset_apply(root, "/a/b", "1", "0", err, sizeof(err));
	expect_err("no cpuset in cgroup.controllers", r, err,
		   "the cpuset controller is not available on this host");
	expect("nothing enabled without the controller", "cgroup.subtree_control", "cpu memory\n");
	expect("nothing written without the controller", "a/b/cpuset.cpus", "");
	put("cgroup.controllers", "cpusetx cpu\n");
	r = vgpuctl_cpuset_apply(root, "/a/b", "1", "0", err, sizeof(err));
	expect_err("\"cpusetx\" is not cpuset", r, err,
		   "the cpuset controller is not available on this host");
	unlink(at("cgroup.controllers"));
	r = vgpuctl_cpuset_apply(root, "/a/b", "1", "0", err, sizeof(err));
	expect_err("no cgroup.controllers (not cgroup2)", r, err,
		   "the cpuset controller is not available on this host");

	/* The parent's subtree_control refuses: the root's is put back. */
	fresh_tree();
	refuse("a/cgroup.subtree_control");
	r = vgpuctl_cpuset_apply(root, "/a/b", "1", "0", err, sizeof(err));
	snprintf(want, sizeof(want), "cannot write %s/a/cgroup.subtree_control: ", root);
	expect_err("a subtree_control that refuses names the file", r, err, want);
	expect("the root's +cpuset is taken back", "cgroup.subtree_control", "-cpuset\n");
	expect("no cpus written after a refused subtree_control", "a/b/cpuset.cpus", "");

	/* cpuset.cpus refuses: nothing else written, ancestors put back. */
	fresh_tree();
	put("a/b/cpuset.mems", "0\n");
	refuse("a/b/cpuset.cpus");
	r = vgpuctl_cpuset_apply(root, "/a/b", "1", "1", err, sizeof(err));
	snprintf(want, sizeof(want), "cannot write %s/a/b/cpuset.cpus: ", root);
	expect_err("a refused cpuset.cpus names the file", r, err, want);
	expect("mems untouched after refused cpus", "a/b/cpuset.mems", "0\n");
	expect("the parent's +cpuset is taken back", "a/cgroup.subtree_control", "-cpuset\n");
	expect("the root's +cpuset is taken back too", "cgroup.subtree_control", "-cpuset\n");

	/* cpuset.mems refuses after cpus was written: cpus is put back. */
	fresh_tree();
	put("cgroup.subtree_control", "cpuset\n");
	put("a/cgroup.subtree_control", "cpuset\n");
	put("a/b/cpuset.cpus", "0-1");
	refuse("a/b/cpuset.mems");
	r = vgpuctl_cpuset_apply(root, "/a/b", "2-3", "1", err, sizeof(err));
	snprintf(want, sizeof(want), "cannot write %s/a/b/cpuset.mems: ", root);
	expect_err("a refused cpuset.mems names the file", r, err, want);
	expect("the previous cpus are written back", "a/b/cpuset.cpus", "0-1\n");
	expect("an ancestor enabled before stays so", "a/cgroup.subtree_control", "cpuset\n");

	/* A file that cannot be read: nothing written. */
	fresh_tree();
	unlink(at("a/b/cpuset.cpus"));
	r = vgpuctl_cpuset_apply(root, "/a/b", "1", "0", err, sizeof(err));
	snprintf(want, sizeof(want), "cannot read %s/a/b/cpuset.cpus: No such file or directory",
		 root);
	expect_err("a missing cpuset.cpus is an error", r, err, want);
	expect("and its ancestors are put back", "a/cgroup.subtree_control", "-cpuset\n");
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(root, sizeof(root), "%s/vgpu-cpuset.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(root))
		die("mkdtemp");
	test_writes();
	test_skips();
	test_failures();
	rm_tree("");
	return failures ? 1 : 0;
}
