// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl hook: the OCI runtime hooks that make a container's processes a
 * tenant (Documentation/containers.md).
 *
 *   create-runtime QUOTAS...  runs in the runtime's namespaces once the
 *       runtime has made the container's cgroup and its process waits in
 *       it, before the program starts: makes the tenant (ephemeral, on the
 *       container's cgroup, or for a Kubernetes pod on the pod's cgroup,
 *       shared by its containers) with the quotas of its arguments, which
 *       only the root-owned CDI spec sets. Any failure exits non-zero with
 *       one line on stderr, and the runtime does not start the container.
 *   poststop: deletes a plain container's tenant if nothing holds it.
 *
 * The container comes from the runtime (its state on stdin, its bundle's
 * config.json: oci.c); nothing in the container's environment or files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ops/hook.h"
#include "../oci/oci.h"
#include "../lib/parse.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_usage_hook() - usage of the hook object
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_hook(FILE *f)
{
	fputs("Usage: vgpuctl hook create-runtime [QUOTA VALUE]...\n"
	      "       vgpuctl hook poststop\n"
	      "       vgpuctl hook help\n"
	      "OCI runtime hooks, named by the CDI spec \"vgpuctl cdi generate\" writes;\n"
	      "they read the container's state on stdin. create-runtime makes the\n"
	      "container's tenant (a Kubernetes pod's, shared by its containers) with\n"
	      "the quotas of tenant add; poststop deletes a plain container's tenant.\n", f);
}

/* A plain container's tenant name: "ctr-" and its id, cut at 63. */
#define CTR_NAME_FMT	"ctr-%.59s"

/* The v2 cgroup of process @pid, from /proc/PID/cgroup. */
static int proc_cgroup(long pid, char *out, size_t outlen)
{
	char path[64], text[8192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cgroup", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return vgpuctl_error("cannot open %s (the container's process): %s", path,
				     strerror(errno));
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n < 0)
		return vgpuctl_error("cannot read %s: %s", path, strerror(errno));
	text[n] = '\0';
	if (vgpuctl_cg_proc(text, out, outlen))
		return vgpuctl_error("%s names no cgroup v2 path", path);
	return 0;
}

/*
 * The container's cgroup, from linux.cgroupsPath or, when that is
 * relative or absent, from its process; checked against the process's
 * cgroup when the process is known (@o->pid).
 */
static int container_cgroup(const struct vgpuctl_oci *o, char *cg, size_t len)
{
	char pcg[VGPU_PATH_LEN_MAX + 1];
	int ret;

	if (o->pid > 0) {
		ret = proc_cgroup(o->pid, pcg, sizeof(pcg));
		if (ret)
			return ret;
	}
	ret = vgpuctl_cg_container(o->cgroups_path, o->pid > 0 ? pcg : NULL, cg, len);
	if (ret == -2)
		return vgpuctl_error("linux.cgroupsPath is relative or absent and the state names no container process");
	if (ret)
		return vgpuctl_error("linux.cgroupsPath \"%s\" is neither a cgroup path nor slice:prefix:name",
				     o->cgroups_path);
	if (o->pid > 0 && !vgpuctl_cg_under(pcg, cg))
		return vgpuctl_error("the container's process %ld is in cgroup %s, not in %s (linux.cgroupsPath \"%s\")",
				     o->pid, pcg, cg, o->cgroups_path);
	return 0;
}

/* Labels are printable ASCII; so must be what the hook copies into one. */
static int check_label(const char *key, const char *v)
{
	for (const char *p = v; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return vgpuctl_error("the %s of the container (\"%s\") is not printable ASCII",
					     key, v);
	return 0;
}

/* A pod's tenant: on the pod's cgroup, "NAMESPACE/NAME@UID8", labelled. */
static int pod_tenant(const struct vgpuctl_oci *o, const char *cg, struct vgpuctl_hook_tenant *t)
{
	char full[2 * VGPU_OCI_VALUE_MAX + 2];
	int ret;

	if (vgpuctl_cg_parent(cg, t->cgroup, sizeof(t->cgroup)) || !strcmp(t->cgroup, "/"))
		return vgpuctl_error("the container's cgroup %s has no pod cgroup above it", cg);
	if (!vgpuctl_cg_names_pod(t->cgroup, o->pod_uid))
		return vgpuctl_error("cgroup %s, above the container's, is not pod %s's: kubelet names it after the pod's UID",
				     t->cgroup, o->pod_uid);
	ret = check_label("pod namespace", o->pod_ns) ?: check_label("pod name", o->pod_name) ?:
	      check_label("pod UID", o->pod_uid);
	if (ret)
		return ret;
	/* Cut so that the UID's first 8 characters always fit in 63. */
	snprintf(full, sizeof(full), "%s/%s", o->pod_ns, o->pod_name);
	snprintf(t->name, sizeof(t->name), "%.54s@%.8s", full, o->pod_uid);
	t->pod = true;
	t->nlabels = 3;
	t->label_key[0] = "namespace";
	t->label_value[0] = o->pod_ns;
	t->label_key[1] = "pod";
	t->label_value[1] = o->pod_name;
	t->label_key[2] = "pod-uid";
	t->label_value[2] = o->pod_uid;
	return 0;
}

/* A plain container's tenant: on its own cgroup, "ctr-ID". */
static int plain_tenant(const struct vgpuctl_oci *o, const char *cg, struct vgpuctl_hook_tenant *t)
{
	int ret = check_label("id", o->id);

	if (ret)
		return ret;
	snprintf(t->name, sizeof(t->name), CTR_NAME_FMT, o->id);
	snprintf(t->cgroup, sizeof(t->cgroup), "%s", cg);
	t->nlabels = 1;
	t->label_key[0] = "container";
	t->label_value[0] = o->id;
	return 0;
}

/* The tenant of the container @o: its name, cgroup and labels. */
static int which_tenant(const struct vgpuctl_oci *o, const char *cg, struct vgpuctl_hook_tenant *t)
{
	int ret = o->pod_uid[0] ? pod_tenant(o, cg, t) : plain_tenant(o, cg, t);

	if (!ret && vgpuctl_parse_name(t->name))
		return vgpuctl_error("the container's tenant name \"%s\" is not a valid NAME", t->name);
	return ret;
}

static int hook_create_runtime(int argc, char **argv)
{
	static struct vgpuctl_oci o;
	struct vgpuctl_hook_tenant t = { .pod = false };
	char mnt[VGPU_PATH_LEN_MAX + 1], cg[VGPU_PATH_LEN_MAX + 1];
	char dir[2 * (VGPU_PATH_LEN_MAX + 1)];
	struct stat st;
	int ret;

	/* The words are parsed here, once; the tenant operation takes them so. */
	ret = vgpuctl_quotas_parse("hook create-runtime", argc, argv, &t.conf);
	if (!ret)
		ret = vgpuctl_oci_read(stdin, &o);
	if (!ret)
		ret = container_cgroup(&o, cg, sizeof(cg));
	if (!ret && vgpuctl_cgroup_mount("/proc/self/mounts", mnt, sizeof(mnt)) < 0)
		ret = vgpuctl_error("cannot find the cgroup2 mount point");
	if (!ret) {
		snprintf(dir, sizeof(dir), "%s%s", strcmp(mnt, "/") ? mnt : "", cg);
		if (stat(dir, &st) || !S_ISDIR(st.st_mode))
			ret = vgpuctl_error("the container's cgroup %s does not exist (linux.cgroupsPath \"%s\")",
					    dir, o.cgroups_path);
	}
	if (!ret)
		ret = which_tenant(&o, cg, &t);
	if (!ret)
		ret = vgpuctl_hook_tenant_make(&t);
	free(t.conf);
	return ret;
}

static int hook_poststop(int argc, char **argv)
{
	static struct vgpuctl_oci o;
	char cg[VGPU_PATH_LEN_MAX + 1], name[VGPU_NAME_LEN_MAX + 1];
	bool known;
	int ret;

	if (argc > 0)
		return vgpuctl_usage_error("unexpected argument \"%s\" for hook poststop", argv[0]);
	ret = vgpuctl_oci_read(stdin, &o);
	if (ret)
		return ret;
	/* A pod's tenant stays for the pod's other containers. */
	if (o.pod_uid[0])
		return VGPU_EXIT_OK;
	if (check_label("id", o.id))
		return VGPU_EXIT_ERR;
	snprintf(name, sizeof(name), CTR_NAME_FMT, o.id);
	known = !vgpuctl_cg_container(o.cgroups_path, NULL, cg, sizeof(cg));
	return vgpuctl_hook_tenant_drop(name, known ? cg : NULL);
}

/**
 * vgpuctl_cmd_hook() - dispatch "vgpuctl hook COMMAND ..."
 * @argc: arguments after "hook"
 * @argv: argv[0] is the command
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_hook(int argc, char **argv)
{
	if (argc < 1)
		return vgpuctl_usage_error("missing COMMAND for hook; try \"vgpuctl hook help\"");
	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_hook(stdout);
		return VGPU_EXIT_OK;
	}
	if (!strcmp(argv[0], "create-runtime"))
		return hook_create_runtime(argc - 1, argv + 1);
	if (!strcmp(argv[0], "poststop"))
		return hook_poststop(argc - 1, argv + 1);
	return vgpuctl_usage_error("unknown command \"%s\" for hook; try \"vgpuctl hook help\"",
				   argv[0]);
}
