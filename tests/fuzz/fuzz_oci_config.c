// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of what vgpuctl's create-runtime hook takes of a
 * bundle's config.json (ctl/oci/oci.c, vgpuctl_oci_parse_config(); the pod's
 * identity, ctl/oci/oci_pod.c), then of the cgroup paths it computes from it
 * (ctl/oci/cgpath.c). Checks, beyond the sanitizers:
 * - a pod taken has a namespace, name and UID Kubernetes could give, and
 *   every pod annotation in the file (containerd's
 *   io.kubernetes.cri.sandbox-*, CRI-O's io.kubernetes.pod.*) says the
 *   same as what was taken: no family the runtime did not write can
 *   change the pod (Documentation/containers.md, "Pod identity");
 * - a container's cgroup is an absolute path without empty, "." or ".."
 *   components, under the root, whose parent is a prefix of it; a pod
 *   cgroup named after the UID names no other UID.
 */
#include <stdbool.h>

#include <jansson.h>

#include "../../ctl/oci/oci.h"
#include "../../ctl/lib/spec_gen.h"
#include "fuzz.h"

static const char *const keys[2][3] = {
	{ "io.kubernetes.cri.sandbox-namespace", "io.kubernetes.cri.sandbox-name",
	  "io.kubernetes.cri.sandbox-uid" },
	{ "io.kubernetes.pod.namespace", "io.kubernetes.pod.name", "io.kubernetes.pod.uid" },
};

FUZZ_QUIET_INITIALIZE

/* Every pod annotation of the file agrees with the pod taken. */
static void check_pod(const uint8_t *data, size_t size, const struct vgpuctl_oci *o)
{
	const char *taken[3] = { o->pod_ns, o->pod_name, o->pod_uid };
	json_t *cfg = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	json_t *ann = json_object_get(cfg, "annotations");
	int k, i, n = 0;

	FUZZ_CHECK(cfg, "taken, but jansson does not read it again");
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 3; i++) {
			json_t *v = json_object_get(ann, keys[k][i]);

			n += v != NULL;
			FUZZ_CHECK(!v || (o->pod_uid[0] && !strcmp(json_string_value(v), taken[i])),
				   "%s is \"%.64s\", the pod taken \"%.64s\"", keys[k][i],
				   json_string_value(v) ?: "(not a string)", taken[i]);
		}
	}
	FUZZ_CHECK(!o->pod_uid[0] || n >= 3, "a pod from %d annotations", n);
	for (const char *p = o->pod_ns; *p; p++)
		FUZZ_CHECK((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-',
			   "namespace \"%.64s\"", o->pod_ns);
	FUZZ_CHECK(!strpbrk(o->pod_name, "/@") && !strpbrk(o->pod_uid, "/@_"),
		   "name \"%.64s\", UID \"%.64s\"", o->pod_name, o->pod_uid);
	json_decref(cfg);
}

/* A path of the cgroup2 tree as the hooks send it. */
static void check_path(const char *p, const char *what)
{
	FUZZ_CHECK(p[0] == '/', "%s \"%.64s\" is not absolute", what, p);
	FUZZ_CHECK(!strcmp(p, "/") || (!strstr(p, "//") && !strstr(p, "/./") &&
				       !strstr(p, "/../") && p[strlen(p) - 1] != '/'),
		   "%s \"%.64s\" has an empty, . or .. component", what, p);
	FUZZ_CHECK(vgpuctl_cg_under(p, "/") && vgpuctl_cg_under(p, p), "%s \"%.64s\" not under itself", what, p);
}

static void check_cgroup(const struct vgpuctl_oci *o)
{
	char cg[VGPU_PATH_LEN_MAX + 1], parent[VGPU_PATH_LEN_MAX + 1], proc[VGPU_PATH_LEN_MAX + 1];

	snprintf(proc, sizeof(proc), "/kubepods/pod%.200s/ctr", o->pod_uid[0] ? o->pod_uid : "x");
	if (vgpuctl_cg_container(o->cgroups_path, proc, cg, sizeof(cg)))
		return;
	check_path(cg, "cgroup");
	if (vgpuctl_cg_parent(cg, parent, sizeof(parent)))
		return;
	FUZZ_CHECK(vgpuctl_cg_under(cg, parent), "\"%.64s\" is not below its parent \"%.64s\"", cg,
		   parent);
	if (o->pod_uid[0] && vgpuctl_cg_names_pod(parent, o->pod_uid)) {
		const char *base = strrchr(parent, '/') + 1;

		FUZZ_CHECK(strstr(base, "pod"), "\"%.64s\" names pod %.64s", parent, o->pod_uid);
		FUZZ_CHECK(!vgpuctl_cg_names_pod(parent, "x") || !strcmp(o->pod_uid, "x"),
			   "\"%.64s\" names pod %.64s and pod x", parent, o->pod_uid);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vgpuctl_oci o;

	memset(&o, 0, sizeof(o));
	if (vgpuctl_oci_parse_config((const char *)data, size, "config.json", &o))
		return 0;
	check_pod(data, size, &o);
	check_cgroup(&o);
	return 0;
}
