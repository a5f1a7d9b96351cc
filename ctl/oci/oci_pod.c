// SPDX-License-Identifier: GPL-2.0
/*
 * The Kubernetes pod a container belongs to, from its config.json's
 * annotations (see oci.h; Documentation/containers.md, "Pod identity").
 *
 * Two families of annotations name a pod, each written by one runtime,
 * last, over anything of the same key:
 *
 * - containerd's CRI plugin: io.kubernetes.cri.sandbox-namespace, -name
 *   and -uid (pkg/cri/annotations; -uid since 1.6.11 and 1.7), after it
 *   has copied the pod's annotations that its pod_annotations globs pass;
 * - CRI-O: io.kubernetes.pod.namespace, .name and .uid, the container
 *   labels kubelet sets (pkg/kubelet/kuberuntime/labels.go), after it has
 *   copied all of the pod's own annotations (since 1.20, cri-o#4138).
 *
 * So either runtime's config.json may carry the other family as well, set
 * by the pod's author. The runtime's own family is always there and
 * right, but nothing in the file says which runtime wrote it. The pod is
 * therefore taken only when every key the two families both hold agrees:
 * a pod that names itself otherwise is refused, one that copies its true
 * names changes nothing. At least one family must be whole, and the
 * values must be what Kubernetes gives: a namespace is a DNS-1123 label,
 * a pod name a DNS-1123 subdomain (neither holds the '/' or '@' of the
 * tenant's name NAMESPACE/NAME@UID8) and a UID letters, digits and '-'
 * (a '_' would read as '-' in a systemd pod slice's name).
 */
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "oci.h"
#include "../vgpuctl.h"

enum { POD_NS, POD_NAME, POD_UID, POD_FIELDS };

/* The families, containerd's first: its is taken when both are whole. */
static const char *const pod_keys[2][POD_FIELDS] = {
	{ "io.kubernetes.cri.sandbox-namespace", "io.kubernetes.cri.sandbox-name",
	  "io.kubernetes.cri.sandbox-uid" },
	{ "io.kubernetes.pod.namespace", "io.kubernetes.pod.name", "io.kubernetes.pod.uid" },
};

/* What one family of a config.json holds. */
struct pod_family {
	bool has[POD_FIELDS];
	int n;
	char v[POD_FIELDS][VGPU_OCI_VALUE_MAX + 1];
};

static bool is_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* A DNS-1123 label: [a-z0-9]([-a-z0-9]*[a-z0-9])?, of @n bytes of @s. */
static bool dns_label_n(const char *s, size_t n)
{
	if (!n || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
		return false;
	for (size_t i = 1; i + 1 < n; i++)
		if (!is_lower_alnum(s[i]) && s[i] != '-')
			return false;
	return true;
}

/* A DNS-1123 subdomain: labels joined by '.', 253 bytes at most. */
static bool dns_subdomain(const char *s)
{
	size_t len = strlen(s);
	const char *dot;

	if (!len || len > 253)
		return false;
	for (; (dot = strchr(s, '.')); s = dot + 1)
		if (!dns_label_n(s, (size_t)(dot - s)))
			return false;
	return dns_label_n(s, strlen(s));
}

static bool pod_uid_ok(const char *s)
{
	size_t len = strlen(s);

	if (!len || len > 64)
		return false;
	for (; *s; s++)
		if (!is_lower_alnum(*s) && !(*s >= 'A' && *s <= 'Z') && *s != '-')
			return false;
	return true;
}

/* @v as an error line may show it: "?" for each byte not printable ASCII. */
static const char *shown(const char *v, char *buf, size_t n)
{
	size_t i;

	for (i = 0; v[i] && i + 1 < n; i++)
		buf[i] = v[i] >= 0x20 && v[i] <= 0x7e ? v[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* Read family @k of @ann into @f. */
static int read_family(struct json_t *ann, int k, const char *what, struct pod_family *f)
{
	int i, ret;

	f->n = 0;
	for (i = 0; i < POD_FIELDS; i++) {
		f->has[i] = json_object_get(ann, pod_keys[k][i]) != NULL;
		f->n += f->has[i];
		ret = vgpuctl_oci_get_str(ann, pod_keys[k][i], what, false, f->v[i],
					  sizeof(f->v[i]));
		if (ret)
			return ret;
	}
	return 0;
}

/* Every key of family @o (other) that @t (taken) holds too must agree. */
static int check_agree(const struct pod_family fam[2], int t, const char *what)
{
	char a[VGPU_OCI_VALUE_MAX + 1], b[VGPU_OCI_VALUE_MAX + 1];
	int o = !t, i;

	for (i = 0; i < POD_FIELDS; i++) {
		if (!fam[o].has[i] || !strcmp(fam[o].v[i], fam[t].v[i]))
			continue;
		/* containerd's key first, whichever was taken */
		return vgpuctl_error("%s: the pod annotations disagree: %s is \"%s\" but %s is \"%s\" (containerd sets io.kubernetes.cri.sandbox-*, CRI-O io.kubernetes.pod.*: the other was copied from the pod's own annotations)",
				     what, pod_keys[0][i], shown(fam[0].v[i], a, sizeof(a)),
				     pod_keys[1][i], shown(fam[1].v[i], b, sizeof(b)));
	}
	return 0;
}

/* The values of family @k, @f, are ones Kubernetes gives. */
static int check_values(const struct pod_family *f, int k, const char *what)
{
	char b[VGPU_OCI_VALUE_MAX + 1];

	if (!f->v[POD_NS][0] || !f->v[POD_NAME][0] || !f->v[POD_UID][0])
		return vgpuctl_error("%s has an empty pod annotation (%s, %s or %s)", what,
				     pod_keys[k][POD_NS], pod_keys[k][POD_NAME], pod_keys[k][POD_UID]);
	if (!dns_label_n(f->v[POD_NS], strlen(f->v[POD_NS])) || strlen(f->v[POD_NS]) > 63)
		return vgpuctl_error("%s: %s \"%s\" is not a Kubernetes namespace (a DNS-1123 label: 1-63 lowercase letters, digits and '-')",
				     what, pod_keys[k][POD_NS], shown(f->v[POD_NS], b, sizeof(b)));
	if (!dns_subdomain(f->v[POD_NAME]))
		return vgpuctl_error("%s: %s \"%s\" is not a Kubernetes pod name (a DNS-1123 subdomain: 1-253 lowercase letters, digits, '-' and '.')",
				     what, pod_keys[k][POD_NAME], shown(f->v[POD_NAME], b, sizeof(b)));
	if (!pod_uid_ok(f->v[POD_UID]))
		return vgpuctl_error("%s: %s \"%s\" is not a pod UID (1-64 letters, digits and '-')",
				     what, pod_keys[k][POD_UID], shown(f->v[POD_UID], b, sizeof(b)));
	return 0;
}

/**
 * vgpuctl_oci_pod() - the pod of a container, from its annotations
 * @ann: config.json's "annotations" object
 * @what: the file's path, for the error lines
 * @o: its pod_ns, pod_name and pod_uid set, or left "" when no pod
 *     annotation is there (a plain container)
 *
 * Return: 0, or VGPU_EXIT_ERR after an error line: neither family whole,
 * the two disagreeing, or a value Kubernetes never gives.
 */
int vgpuctl_oci_pod(struct json_t *ann, const char *what, struct vgpuctl_oci *o)
{
	struct pod_family fam[2];
	int t, ret;

	ret = read_family(ann, 0, what, &fam[0]) ?: read_family(ann, 1, what, &fam[1]);
	if (ret)
		return ret;
	if (!fam[0].n && !fam[1].n)
		return 0;
	t = fam[0].n == POD_FIELDS ? 0 : 1;
	if (fam[t].n != POD_FIELDS) {
		t = fam[0].n >= fam[1].n ? 0 : 1;
		return vgpuctl_error("%s has only some of the pod annotations %s, %s and %s", what,
				     pod_keys[t][POD_NS], pod_keys[t][POD_NAME], pod_keys[t][POD_UID]);
	}
	ret = check_agree(fam, t, what) ?: check_values(&fam[t], t, what);
	if (ret)
		return ret;
	strcpy(o->pod_ns, fam[t].v[POD_NS]);
	strcpy(o->pod_name, fam[t].v[POD_NAME]);
	strcpy(o->pod_uid, fam[t].v[POD_UID]);
	return 0;
}
