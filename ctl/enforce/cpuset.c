// SPDX-License-Identifier: GPL-2.0
/*
 * The cpuset writer of vgpuctl (see cpuset.h).
 *
 * For a tenant whose cgroup is ROOT/a/b, vgpuctl_cpuset_apply():
 *  1. checks that ROOT/cgroup.controllers lists cpuset;
 *  2. adds +cpuset to the cgroup.subtree_control of ROOT and ROOT/a where
 *     it is not listed yet (the controller must be enabled in every
 *     ancestor for ROOT/a/b to have cpuset files);
 *  3. writes cpuset.cpus, then cpuset.mems, of ROOT/a/b ("" inherits; for
 *     a cgroup with processes, which the kernel will not empty, the
 *     parent's effective list is written instead).
 * With "" for both and no cpuset files in ROOT/a/b, there is nothing to
 * do (and no need for the controller).
 * If a step fails, what the earlier ones changed is put back (the previous
 * cpuset.cpus, then -cpuset in the subtree_control files it enabled,
 * deepest first), so that a failure leaves the tree as it was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpuset.h"

/* Room for a root and a cgroup path of 4095 bytes each, and a file name. */
#define CPUSET_PATH_MAX	(2 * 4096 + 64)
/* Largest control file read (a cpuset list of 8192 CPUs one by one). */
#define CPUSET_FILE_MAX	65536

struct writer {
	const char *root;	/* without trailing '/' ("" for "/") */
	const char *cgroup;	/* "/a/b" */
	size_t clen;		/* its length, trailing '/' left out */
	char *err;
	size_t errlen;
	size_t *enabled;	/* cgroup prefix lengths of the ancestors enabled */
	size_t nenabled;
};

static void set_err(struct writer *w, const char *verb, const char *path, int e)
{
	snprintf(w->err, w->errlen, "cannot %s %s: %s", verb, path, strerror(e));
}

/* ROOT + the first @len bytes of the cgroup path + "/" + @file. */
static void path_of(const struct writer *w, size_t len, const char *file, char *out)
{
	snprintf(out, CPUSET_PATH_MAX, "%s%.*s%s%s", w->root, (int)len, w->cgroup,
		 file ? "/" : "", file ? file : "");
}

/* Read a control file whole, trailing white space dropped. */
static int read_ctl(const char *path, char **out)
{
	char *buf = malloc(CPUSET_FILE_MAX);
	size_t len = 0;
	ssize_t n;
	int fd, e;

	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(buf);
		return -e;
	}
	while (len < CPUSET_FILE_MAX - 1) {
		n = read(fd, buf + len, CPUSET_FILE_MAX - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			free(buf);
			return -e;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == CPUSET_FILE_MAX - 1) {
		free(buf);
		return -EFBIG;
	}
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' || buf[len - 1] == '\t'))
		len--;
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Write @val and a newline in one write(), as cgroupfs wants it. */
static int write_ctl(const char *path, const char *val)
{
	size_t len = strlen(val);
	char *buf = malloc(len + 2);
	ssize_t n;
	int fd, e = 0;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, val, len);
	buf[len++] = '\n';
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		free(buf);
		return -e;
	}
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		e = errno;
	else if ((size_t)n != len)
		e = EIO;
	if (close(fd) && !e)
		e = errno;
	free(buf);
	return -e;
}

/* Whether the white-space separated words of @s include @word. */
static bool has_word(const char *s, const char *word)
{
	size_t wl = strlen(word);

	while (*s) {
		size_t n;

		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		n = strcspn(s, " \t\n");
		if (n == wl && !strncmp(s, word, n))
			return true;
		s += n;
	}
	return false;
}

/* Step 1: the root must offer the controller. */
static int check_controller(struct writer *w)
{
	char path[CPUSET_PATH_MAX], *s;
	bool ok;
	int r;

	path_of(w, 0, "cgroup.controllers", path);
	r = read_ctl(path, &s);
	if (r == -ENOENT) {
		snprintf(w->err, w->errlen, "the cpuset controller is not available on this host");
		return -1;
	}
	if (r) {
		set_err(w, "read", path, -r);
		return -1;
	}
	ok = has_word(s, "cpuset");
	free(s);
	if (!ok) {
		snprintf(w->err, w->errlen, "the cpuset controller is not available on this host");
		return -1;
	}
	return 0;
}

/* Put back what step 2 enabled, deepest first (best effort). */
static void disable_enabled(struct writer *w)
{
	char path[CPUSET_PATH_MAX];

	while (w->nenabled) {
		path_of(w, w->enabled[--w->nenabled], "cgroup.subtree_control", path);
		write_ctl(path, "-cpuset");
	}
}

/* Step 2: enable cpuset in the subtree_control of every ancestor. */
static int enable_ancestors(struct writer *w)
{
	char path[CPUSET_PATH_MAX], *s;
	size_t i, n = w->clen;
	bool listed;
	int r;

	w->enabled = malloc((n + 1) * sizeof(*w->enabled));
	if (!w->enabled) {
		snprintf(w->err, w->errlen, "%s", strerror(ENOMEM));
		return -1;
	}
	/* Each '/' ends the path of an ancestor: "" (the root), "/a", ... */
	for (i = 0; i < n; i++) {
		if (w->cgroup[i] != '/' || (i && w->cgroup[i - 1] == '/'))
			continue;
		path_of(w, i, "cgroup.subtree_control", path);
		r = read_ctl(path, &s);
		if (r) {
			set_err(w, "read", path, -r);
			goto fail;
		}
		listed = has_word(s, "cpuset");
		free(s);
		if (listed)
			continue;
		r = write_ctl(path, "+cpuset");
		if (r) {
			set_err(w, "write", path, -r);
			goto fail;
		}
		w->enabled[w->nenabled++] = i;
	}
	return 0;
fail:
	disable_enabled(w);
	return -1;
}

/*
 * Write @val to the cgroup's @file. The kernel (6.1) refuses to empty the
 * cpuset of a cgroup that has processes (ENOSPC), so "" (inherit) then
 * becomes the parent's effective list, which is what inheriting gives.
 */
static int write_list(struct writer *w, const char *path, const char *file,
		      const char *val)
{
	char ppath[CPUSET_PATH_MAX], eff[64];
	char *pval = NULL;
	size_t plen = w->clen;
	int r = write_ctl(path, val);

	if (r != -ENOSPC || *val)
		return r;
	while (plen && w->cgroup[plen - 1] != '/')
		plen--;
	if (plen)
		plen--;			/* the parent, without its trailing '/' */
	snprintf(eff, sizeof(eff), "%s.effective", file);
	path_of(w, plen, eff, ppath);
	if (read_ctl(ppath, &pval))
		return r;
	r = write_ctl(path, pval);
	free(pval);
	return r;
}

/* Step 3: cpuset.cpus, then cpuset.mems; the previous cpus back on failure. */
static int write_cpuset(struct writer *w, const char *cpus, const char *mems)
{
	char cpath[CPUSET_PATH_MAX], mpath[CPUSET_PATH_MAX];
	char *old_cpus = NULL, *old_mems = NULL;
	size_t n = w->clen;
	bool cpus_written = false;
	int r, ret = -1;

	path_of(w, n, "cpuset.cpus", cpath);
	path_of(w, n, "cpuset.mems", mpath);
	r = read_ctl(cpath, &old_cpus);
	if (r) {
		set_err(w, "read", cpath, -r);
		goto out;
	}
	r = read_ctl(mpath, &old_mems);
	if (r) {
		set_err(w, "read", mpath, -r);
		goto out;
	}
	if (strcmp(old_cpus, cpus)) {
		r = write_list(w, cpath, "cpuset.cpus", cpus);
		if (r) {
			set_err(w, "write", cpath, -r);
			goto out;
		}
		cpus_written = true;
	}
	if (strcmp(old_mems, mems)) {
		r = write_list(w, mpath, "cpuset.mems", mems);
		if (r) {
			set_err(w, "write", mpath, -r);
			if (cpus_written)
				write_ctl(cpath, old_cpus);
			goto out;
		}
	}
	ret = 0;
out:
	free(old_cpus);
	free(old_mems);
	return ret;
}

/**
 * vgpuctl_cpuset_apply() - give a cgroup the CPUs and nodes of its tenant
 * @root: the cgroup2 mount point ("/sys/fs/cgroup", or a test's fake tree)
 * @cgroup: the tenant's cgroup relative to @root, with a leading slash
 *          ("/team-a"), as the module reports it
 * @cpus: the CPU list to write to cpuset.cpus; "" for the parent's CPUs
 * @mems: the node list to write to cpuset.mems; "" for the parent's nodes
 * @err: receives the reason of a failure ("cannot write
 *       /sys/fs/cgroup/x/cpuset.cpus: Invalid argument"), without the
 *       "Error: " and the final period
 * @errlen: size of @err
 *
 * A value equal to what the file holds already is not written again, and
 * when @cpus and @mems are both "" and the cgroup has no cpuset files (the
 * controller is not enabled above it), nothing is done: its processes
 * inherit their parent's CPUs and nodes already.
 *
 * Return: VGPU_CPUSET_OK; VGPU_CPUSET_GONE when the cgroup directory does
 * not exist and VGPU_CPUSET_ROOT for the root cgroup (nothing is touched
 * in either case); or -1 with @err set and the tree as it was.
 */
int vgpuctl_cpuset_apply(const char *root, const char *cgroup, const char *cpus,
			 const char *mems, char *err, size_t errlen)
{
	struct writer w = { .cgroup = cgroup, .err = err, .errlen = errlen };
	char path[CPUSET_PATH_MAX], rbuf[4097];
	size_t rlen = strlen(root);
	struct stat st;
	int ret;

	if (errlen)
		err[0] = '\0';
	while (rlen && root[rlen - 1] == '/')
		rlen--;
	if (rlen >= sizeof(rbuf) || cgroup[0] != '/' || strlen(cgroup) > 4096) {
		snprintf(err, errlen, "cgroup path too long or not absolute: %s", cgroup);
		return -1;
	}
	memcpy(rbuf, root, rlen);
	rbuf[rlen] = '\0';
	w.root = rbuf;
	w.clen = strlen(cgroup);
	while (w.clen && cgroup[w.clen - 1] == '/')
		w.clen--;
	if (!w.clen)
		return VGPU_CPUSET_ROOT;
	path_of(&w, w.clen, NULL, path);
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return VGPU_CPUSET_GONE;
	/* Nothing to restrict, no cpuset files: it inherits already. */
	path_of(&w, w.clen, "cpuset.cpus", path);
	if (!*cpus && !*mems && stat(path, &st) && errno == ENOENT)
		return VGPU_CPUSET_OK;
	ret = check_controller(&w);
	if (!ret)
		ret = enable_ancestors(&w);
	if (!ret) {
		ret = write_cpuset(&w, cpus, mems);
		if (ret)
			disable_enabled(&w);
	}
	free(w.enabled);
	return ret;
}
