// SPDX-License-Identifier: GPL-2.0
/*
 * The container a hook runs for (see oci.h): its state from the runtime on
 * stdin (OCI runtime-spec, "State": ociVersion, id, status, pid, bundle,
 * annotations) and its bundle's config.json (linux.cgroupsPath and the
 * annotations), parsed with jansson; the pod it belongs to, from those
 * annotations, is oci_pod.c's. Every malformed field is refused with a
 * message that names it. The parsers take bytes (the fuzzers of
 * tests/fuzz call them); vgpuctl_oci_read() reads the files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "oci.h"
#include "../vgpuctl.h"

/* Read at most VGPU_OCI_JSON_MAX bytes of @f into a new buffer. */
static int read_all(FILE *f, const char *what, char **out, size_t *outlen)
{
	size_t len = 0, cap = 65536, n;
	char *buf = malloc(cap), *more;

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
		free(buf);
		return vgpuctl_error("cannot read %s: %s", what, strerror(errno));
	}
	*out = buf;
	*outlen = len;
	return 0;
}

/* Parse @len bytes of @buf, which must hold one JSON object. */
static int parse_json(const char *buf, size_t len, const char *what, json_t **out)
{
	json_error_t err;

	*out = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &err);
	if (!*out)
		return vgpuctl_error("%s is not valid JSON: %s (line %d, column %d)",
				     what, err.text, err.line, err.column);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return vgpuctl_error("%s is not a JSON object", what);
	}
	return 0;
}

static int read_state(json_t *st, struct vgpuctl_oci *o)
{
	static const char what[] = "the container state on stdin";
	json_t *pid = json_object_get(st, "pid");
	int ret;

	ret = vgpuctl_oci_get_str(st, "id", what, true, o->id, sizeof(o->id));
	if (!ret && !o->id[0])
		ret = vgpuctl_error("\"id\" in %s is empty", what);
	if (!ret)
		ret = vgpuctl_oci_get_str(st, "bundle", what, true, o->bundle, sizeof(o->bundle));
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

static int read_config(json_t *cfg, const char *what, struct vgpuctl_oci *o)
{
	json_t *linux_ = json_object_get(cfg, "linux"), *ann = json_object_get(cfg, "annotations");
	int ret = 0;

	if (linux_ && !json_is_object(linux_))
		return vgpuctl_error("\"linux\" in %s is not an object", what);
	if (linux_)
		ret = vgpuctl_oci_get_str(linux_, "cgroupsPath", what, false, o->cgroups_path,
					  sizeof(o->cgroups_path));
	if (ret)
		return ret;
	if (ann && !json_is_object(ann))
		return vgpuctl_error("\"annotations\" in %s is not an object", what);
	return ann ? vgpuctl_oci_pod(ann, what, o) : 0;
}

/**
 * vgpuctl_oci_parse_state() - a container's state, as a hook gets it
 * @buf: the JSON text (not NUL-terminated)
 * @len: its length
 * @o: cleared, then its id, pid and bundle filled in
 *
 * Return: 0, or VGPU_EXIT_ERR after an error line naming what is wrong.
 */
int vgpuctl_oci_parse_state(const char *buf, size_t len, struct vgpuctl_oci *o)
{
	static const char what[] = "the container state on stdin";
	json_t *st;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = parse_json(buf, len, what, &st);
	if (ret)
		return ret;
	ret = read_state(st, o);
	json_decref(st);
	return ret;
}

/**
 * vgpuctl_oci_parse_config() - what a hook takes of a bundle's config.json
 * @buf: the JSON text (not NUL-terminated)
 * @len: its length
 * @what: the file's path, for the error lines
 * @o: its cgroups_path and pod fields filled in (the rest untouched)
 *
 * Return: 0, or VGPU_EXIT_ERR after an error line naming what is wrong.
 */
int vgpuctl_oci_parse_config(const char *buf, size_t len, const char *what,
			     struct vgpuctl_oci *o)
{
	json_t *cfg;
	int ret;

	o->cgroups_path[0] = o->pod_ns[0] = o->pod_name[0] = o->pod_uid[0] = '\0';
	ret = parse_json(buf, len, what, &cfg);
	if (ret)
		return ret;
	ret = read_config(cfg, what, o);
	json_decref(cfg);
	return ret;
}

/* The whole of the regular file @path. */
static int read_file(const char *path, char **buf, size_t *len)
{
	struct stat sb;
	FILE *f;
	int fd, ret;

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
	ret = read_all(f, path, buf, len);
	fclose(f);
	return ret;
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
	char path[sizeof(o->bundle) + 16], *buf;
	size_t len;
	int ret;

	memset(o, 0, sizeof(*o));
	ret = read_all(state, "the container state on stdin", &buf, &len);
	if (ret)
		return ret;
	ret = vgpuctl_oci_parse_state(buf, len, o);
	free(buf);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/config.json", o->bundle);
	ret = read_file(path, &buf, &len);
	if (ret)
		return ret;
	ret = vgpuctl_oci_parse_config(buf, len, path, o);
	free(buf);
	return ret;
}
