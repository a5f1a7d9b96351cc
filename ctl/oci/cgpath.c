// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup of a container, from its config.json's linux.cgroupsPath
 * (see oci.h). Two forms exist:
 *
 * - cgroupfs: a path, "/kubepods/besteffort/pod<UID>/<ID>", absolute from
 *   the cgroup2 root. A relative path (or none) is placed by the runtime
 *   where it chooses (runc: under its own cgroup's parent; crun: under the
 *   root), so for those the container's process tells: its
 *   /proc/PID/cgroup.
 * - systemd: "slice:prefix:name", a scope named prefix-name.scope in the
 *   slice, whose path expands as systemd does (a-b.slice lives in
 *   a.slice: /a.slice/a-b.slice); an empty slice is system.slice, and a
 *   name ending in .slice is itself the unit. This follows runc
 *   (libcontainer/cgroups/systemd: ExpandSlice, getUnitName) and crun.
 *
 * No I/O here: the callers read the files.
 */
#include <stdio.h>
#include <string.h>

#include "oci.h"
#include "../lib/parse.h"

static int copy(char *out, size_t outlen, const char *s)
{
	if (strlen(s) >= outlen)
		return -1;
	strcpy(out, s);
	return 0;
}

static int append(char *out, size_t outlen, const char *s, size_t n)
{
	size_t len = strlen(out);

	if (len + n >= outlen)
		return -1;
	memcpy(out + len, s, n);
	out[len + n] = '\0';
	return 0;
}

/* "a-b.slice" into "/a.slice/a-b.slice"; "-.slice" is the root. */
static int expand_slice(const char *slice, size_t n, char *out, size_t outlen)
{
	static const char sfx[] = ".slice";
	size_t base = n - (sizeof(sfx) - 1), i, start = 0;

	out[0] = '\0';
	if (n < sizeof(sfx) || strncmp(slice + base, sfx, sizeof(sfx) - 1) ||
	    memchr(slice, '/', n))
		return -1;
	if (base == 1 && slice[0] == '-')
		return 0;
	for (i = 0; i <= base; i++) {
		if (i < base && slice[i] != '-')
			continue;
		if (i == start)		/* "-a.slice", "a--b.slice", "a-.slice" */
			return -1;
		if (append(out, outlen, "/", 1) || append(out, outlen, slice, i) ||
		    append(out, outlen, sfx, sizeof(sfx) - 1))
			return -1;
		start = i + 1;
	}
	return 0;
}

/**
 * vgpuctl_cg_systemd() - the cgroup path of a systemd-form cgroupsPath
 * @spec: "slice:prefix:name" ("kubepods-besteffort-pod1.slice:cri-containerd:abc")
 * @out: "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod1.slice/cri-containerd-abc.scope"
 * @outlen: size of @out
 *
 * Return: 0, or -1 when @spec is malformed or @out too small.
 */
int vgpuctl_cg_systemd(const char *spec, char *out, size_t outlen)
{
	const char *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	const char *name = c2 ? c2 + 1 : NULL;
	size_t nlen, plen;

	if (!c2 || strchr(name, ':') || !*name || strchr(name, '/') ||
	    !strcmp(name, ".") || !strcmp(name, "..") || memchr(c1 + 1, '/', (size_t)(c2 - c1 - 1)))
		return -1;
	if (c1 == spec) {
		if (expand_slice("system.slice", strlen("system.slice"), out, outlen))
			return -1;
	} else if (expand_slice(spec, (size_t)(c1 - spec), out, outlen)) {
		return -1;
	}
	nlen = strlen(name);
	plen = (size_t)(c2 - c1 - 1);
	if (append(out, outlen, "/", 1))
		return -1;
	if (nlen > 6 && !strcmp(name + nlen - 6, ".slice"))
		return append(out, outlen, name, nlen);
	if (append(out, outlen, c1 + 1, plen) || append(out, outlen, "-", 1) ||
	    append(out, outlen, name, nlen) || append(out, outlen, ".scope", 6))
		return -1;
	return 0;
}

/**
 * vgpuctl_cg_container() - the cgroup a container's runtime made for it
 * @cgroups_path: linux.cgroupsPath, "" when absent
 * @proc_cg: the container process's cgroup (vgpuctl_cg_proc()), or NULL
 *           when it is not known
 * @out: the path
 * @outlen: size of @out
 *
 * Return: 0; -1 when @cgroups_path is malformed or @out too small; -2 when
 * the path is relative or absent and @proc_cg is NULL.
 */
int vgpuctl_cg_container(const char *cgroups_path, const char *proc_cg, char *out, size_t outlen)
{
	if (cgroups_path[0] == '/')
		return vgpuctl_cgroup_path("/", cgroups_path, out, outlen) ? -1 : 0;
	if (strchr(cgroups_path, ':'))
		return vgpuctl_cg_systemd(cgroups_path, out, outlen);
	if (!proc_cg)
		return -2;
	return copy(out, outlen, proc_cg);
}

/**
 * vgpuctl_cg_proc() - the cgroup v2 path in the text of /proc/PID/cgroup
 * @text: the file's lines ("0::/machine.slice/x.scope\n", v1 lines too)
 * @out: the path
 * @outlen: size of @out
 *
 * Return: 0, or -1 when there is no "0::" line or it does not fit.
 */
int vgpuctl_cg_proc(const char *text, char *out, size_t outlen)
{
	const char *p = text;

	while (p && *p) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > 3 && !strncmp(p, "0::/", 4)) {
			if (n - 3 >= outlen)
				return -1;
			memcpy(out, p + 3, n - 3);
			out[n - 3] = '\0';
			return 0;
		}
		p = end ? end + 1 : NULL;
	}
	return -1;
}

/** vgpuctl_cg_under() - whether @path is @ancestor or a cgroup below it. */
bool vgpuctl_cg_under(const char *path, const char *ancestor)
{
	size_t n = strlen(ancestor);

	if (!strcmp(ancestor, "/"))
		return path[0] == '/';
	return !strncmp(path, ancestor, n) && (path[n] == '\0' || path[n] == '/');
}

/**
 * vgpuctl_cg_parent() - the parent of a cgroup
 * @path: "/kubepods/pod1/abc"
 * @out: "/kubepods/pod1"
 * @outlen: size of @out
 *
 * Return: 0, or -1 for the root (it has none) or when @out is too small.
 */
int vgpuctl_cg_parent(const char *path, char *out, size_t outlen)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash || !strcmp(path, "/"))
		return -1;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= outlen)
		return -1;
	memcpy(out, path, n);
	out[n] = '\0';
	return 0;
}

/**
 * vgpuctl_cg_names_pod() - whether a cgroup is the one kubelet made for a pod
 * @path: the cgroup; its last component must name the pod's UID, as
 *        kubelet's do: "pod<UID>" (cgroupfs) or
 *        "kubepods-<qos>-pod<UID with '_' for '-'>.slice" (systemd)
 * @uid: the pod's UID
 *
 * Return: true when it does.
 */
bool vgpuctl_cg_names_pod(const char *path, const char *uid)
{
	const char *base = strrchr(path, '/');
	char want[VGPU_OCI_VALUE_MAX + 8], alt[VGPU_OCI_VALUE_MAX + 8];
	size_t i, n;

	if (!base || !*uid || strlen(uid) > VGPU_OCI_VALUE_MAX)
		return false;
	base++;
	n = (size_t)snprintf(want, sizeof(want), "pod%s", uid);
	strcpy(alt, want);
	for (i = 0; i < n; i++)
		if (alt[i] == '-')
			alt[i] = '_';
	if (!strcmp(base, want))
		return true;
	n = strlen(base);
	if (n > 6 && !strcmp(base + n - 6, ".slice")) {
		size_t an = strlen(alt);

		return n - 6 >= an + 1 && !strncmp(base + n - 6 - an, alt, an) &&
		       base[n - 7 - an] == '-';
	}
	return false;
}
