/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the OCI hooks (hook.c) read of a container: its state, given by
 * the runtime on the hook's stdin, and its bundle's config.json (oci.c,
 * with jansson), the pod it belongs to among the config's annotations
 * (oci_pod.c); and the cgroup paths computed from them (cgpath.c, pure
 * functions).
 *
 * Paths of cgroups are relative to the cgroup2 mount, with a leading
 * slash ("/machine.slice/libpod-1234.scope"), as tenant add sends them.
 */
#ifndef VGPU_CTL_OCI_H
#define VGPU_CTL_OCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Largest container state or config.json read, in bytes. */
#define VGPU_OCI_JSON_MAX	(16 << 20)
/* Longest annotation value kept (a label value's limit). */
#define VGPU_OCI_VALUE_MAX	255

/* A container as its hooks see it. */
struct vgpuctl_oci {
	char id[VGPU_OCI_VALUE_MAX + 1];	/* the state's id */
	long pid;				/* the state's pid, 0 when absent */
	char bundle[4096];			/* the state's bundle directory */
	char cgroups_path[4096];		/* config.json's linux.cgroupsPath, or "" */
	/*
	 * The pod it belongs to, from the annotations of config.json that
	 * the runtimes set (oci_pod.c): all three set, or none.
	 */
	char pod_ns[VGPU_OCI_VALUE_MAX + 1];
	char pod_name[VGPU_OCI_VALUE_MAX + 1];
	char pod_uid[VGPU_OCI_VALUE_MAX + 1];
};

/* jansson's json_t, for the few that take one. */
struct json_t;

int vgpuctl_oci_read(FILE *state, struct vgpuctl_oci *o);
int vgpuctl_oci_parse_state(const char *buf, size_t len, struct vgpuctl_oci *o);
int vgpuctl_oci_parse_config(const char *buf, size_t len, const char *what,
			     struct vgpuctl_oci *o);
int vgpuctl_oci_get_str(struct json_t *obj, const char *key, const char *what, bool need,
			char *out, size_t outlen);

/* oci_pod.c */
int vgpuctl_oci_pod(struct json_t *ann, const char *what, struct vgpuctl_oci *o);

/* cgpath.c */
int vgpuctl_cg_systemd(const char *spec, char *out, size_t outlen);
int vgpuctl_cg_container(const char *cgroups_path, const char *proc_cg, char *out, size_t outlen);
int vgpuctl_cg_proc(const char *text, char *out, size_t outlen);
bool vgpuctl_cg_under(const char *path, const char *ancestor);
int vgpuctl_cg_parent(const char *path, char *out, size_t outlen);
bool vgpuctl_cg_names_pod(const char *path, const char *uid);

#endif /* VGPU_CTL_OCI_H */
