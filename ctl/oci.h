/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the OCI hooks (hook.c) read of a container: its state, given by
 * the runtime on the hook's stdin, and its bundle's config.json (oci.c,
 * with jansson); and the cgroup paths computed from them (cgpath.c, pure
 * functions that tests/unit/test_cgpath.c checks one by one).
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
	 * The pod it belongs to, from the CRI annotations of config.json
	 * (containerd's io.kubernetes.cri.sandbox-*, CRI-O's
	 * io.kubernetes.pod.*): all three set, or none.
	 */
	char pod_ns[VGPU_OCI_VALUE_MAX + 1];
	char pod_name[VGPU_OCI_VALUE_MAX + 1];
	char pod_uid[VGPU_OCI_VALUE_MAX + 1];
	char ctr_name[VGPU_OCI_VALUE_MAX + 1];	/* the container's name in the pod, or "" */
};

int vgpuctl_oci_read(FILE *state, struct vgpuctl_oci *o);

/* cgpath.c */
int vgpuctl_cg_systemd(const char *spec, char *out, size_t outlen);
int vgpuctl_cg_container(const char *cgroups_path, const char *proc_cg, char *out, size_t outlen);
int vgpuctl_cg_proc(const char *text, char *out, size_t outlen);
bool vgpuctl_cg_under(const char *path, const char *ancestor);
int vgpuctl_cg_parent(const char *path, char *out, size_t outlen);
bool vgpuctl_cg_names_pod(const char *path, const char *uid);

#endif /* VGPU_CTL_OCI_H */
