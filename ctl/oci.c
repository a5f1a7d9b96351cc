// SPDX-License-Identifier: GPL-2.0
/*
 * The container a hook runs for (see oci.h): its state from the runtime on
 * stdin (OCI runtime-spec, "State": ociVersion, id, status, pid, bundle,
 * annotations) and its bundle's config.json (linux.cgroupsPath and the
 * annotations), parsed with jansson. Every malformed field is refused
 * with a message that names it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "oci.h"
#include "vgpuctl.h"

/* The pod annotations: containerd's, then CRI-O's. */
static const struct pod_keys {
	const char *ns, *name, *uid, *ctr;
} pod_keys[] = {
	{ "io.kubernetes.cri.sandbox-namespace", "io.kubernetes.cri.sandbox-name",
	  "io.kubernetes.cri.sandbox-uid", "io.kubernetes.cri.container-name" },
	{ "io.kubernetes.pod.namespace", "io.kubernetes.pod.name",
	  "io.kubernetes.pod.uid", "io.kubernetes.container.name" },
};

/* Read at most VGPU_OCI_JSON_MAX bytes of @f and parse them. */
static int load_json(FILE *f, const char *what, json_t **out)
{
	size_t len = 0, cap = 65536, n;
	json_error_t err;
	char *buf = malloc(cap), *more;
	int ret = 0;

	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			if (cap >= VGPU_OCI_JSON_MAX) {
				free(buf);
				return vgpuctl_error("%s is larger than %d bytes", what, VGPU_OCI_JSON_MAX);
			}
			more = realloc(buf, cap * 2);
			if (!more)
				free(buf);
			buf = more;
			cap *= 2;
		}
	}
	if (!buf)
		return vgpuctl_error("%s", strerror(ENOMEM));
	if (ferror(f)) {
		ret = vgpuctl_error("cannot read %s: %s", what, strerror(errno));
		goto out;
	}
	*out = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	if (!*out)
		ret = vgpuctl_error("%s is not valid JSON: %s (line %d, column %d)",
				    what, err.text, err.line, err.column);
	else if (!json_is_object(*out)) {
		json_decref(*out);
		ret = vgpuctl_error("%s is not a JSON object", what);
	}
out:
	free(buf);
	return ret;
}

/* Copy the string member @key of @obj into @out; absent is fine unless @need. */
static int get_str(json_t *obj, const char *key, const char *what, bool need,
		   char *out, size_t outlen)
{
	json_t *v = json_object_get(obj, key);
	const char *s;

	out[0] = '\0';
	if (!v && !need)
		return 0;
	if (!v)
		return vgpuctl_error("%s has no \"%s\"", what, key);
	if (!json_is_string(v))
		return vgpuctl_error("\"%s\" in %s is not a string", key, what);
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v))
		return vgpuctl_error("\"%s\" in %s holds a NUL character", key, what);
	if (strlen(s) >= outlen)
		return vgpuctl_error("\"%s\" in %s is longer than %zu bytes", key, what, outlen - 1);
	strcpy(out, s);
	return 0;
}

static int read_state(json_t *st, struct vgpuctl_oci *o)
{
	static const char what[] = "the container state on stdin";
	json_t *pid = json_object_get(st, "pid");
	int ret;

	ret = get_str(st, "id", what, true, o->id, sizeof(o->id));
	if (!ret && !o->id[0])
		ret = vgpuctl_error("\"id\" in %s is empty", what);
	if (!ret)
		ret = get_str(st, "bundle", what, true, o->bundle, sizeof(o->bundle));
	if (!ret && o->bundle[0] != '/')
		ret = vgpuctl_error("\"bundle\" in %s is not an absolute path: \"%s\"", what, o->bundle);
	if (ret)
		return ret;
	if (pid && (!json_is_integer(pid) || json_integer_value(pid) < 0 ||
		    json_integer_value(pid) > 0x7fffffff))
		return vgpuctl_error("\"pid\" in %s is not a process id", what);
	o->pid = pid ? (long)json_integer_value(pid) : 0;
	return 0;
}

/* The pod annotations: all three of one runtime's, or none at all. */
static int read_pod(json_t *ann, const char *what, struct vgpuctl_oci *o)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < sizeof(pod_keys) / sizeof(pod_keys[0]) && !ret; i++) {
		const struct pod_keys *k = &pod_keys[i];
		int have = !!json_object_get(ann, k->ns) + !!json_object_get(ann, k->name) +
			   !!json_object_get(ann, k->uid);

		if (!have)
			continue;
		if (have != 3)
			return vgpuctl_error("%s has only some of the pod annotations %s, %s and %s",
					     what, k->ns, k->name, k->uid);
		ret = get_str(ann, k->ns, what, true, o->pod_ns, sizeof(o->pod_ns));
		if (!ret)
			ret = get_str(ann, k->name, what, true, o->pod_name, sizeof(o->pod_name));
		if (!ret)
			ret = get_str(ann, k->uid, what, true, o->pod_uid, sizeof(o->pod_uid));
		if (!ret)
			ret = get_str(ann, k->ctr, what, false, o->ctr_name, sizeof(o->ctr_name));
		if (!ret && (!o->pod_ns[0] || !o->pod_name[0] || !o->pod_uid[0]))
			ret = vgpuctl_error("%s has an empty pod annotation (%s, %s or %s)",
					    what, k->ns, k->name, k->uid);
		break;
	}
	return ret;
}

static int read_config(json_t *cfg, const char *what, struct vgpuctl_oci *o)
{
	json_t *linux_ = json_object_get(cfg, "linux"), *ann = json_object_get(cfg, "annotations");
	int ret = 0;

	if (linux_ && !json_is_object(linux_))
		return vgpuctl_error("\"linux\" in %s is not an object", what);
	if (linux_)
		ret = get_str(linux_, "cgroupsPath", what, false, o->cgroups_path,
			      sizeof(o->cgroups_path));
	if (ret)
		return ret;
	if (ann && !json_is_object(ann))
		return vgpuctl_error("\"annotations\" in %s is not an object", what);
	return ann ? read_pod(ann, what, o) : 0;
}

/**
 * vgpuctl_oci_read() - read a hook's container: its state, then its config
 * @state: the state (the hook's stdin)
 * @o: filled in
 *
 * Return: 0, or VGPU_EXIT_ERR after an error line naming what is wrong.
 */
int vgpuctl_oci_read(FILE *state, struct vgpuctl_oci *o)
{
	char path[sizeof(o->bundle) + 16];
	json_t *st = NULL, *cfg = NULL;
	struct stat sb;
	FILE *f;
	int fd, ret;

	memset(o, 0, sizeof(*o));
	ret = load_json(state, "the container state on stdin", &st);
	if (!ret)
		ret = read_state(st, o);
	json_decref(st);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/config.json", o->bundle);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return vgpuctl_error("cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return vgpuctl_error("%s is not a regular file", path);
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return vgpuctl_error("cannot read %s: %s", path, strerror(errno));
	}
	ret = load_json(f, path, &cfg);
	fclose(f);
	if (!ret)
		ret = read_config(cfg, path, o);
	json_decref(cfg);
	return ret;
}
