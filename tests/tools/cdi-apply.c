// SPDX-License-Identifier: GPL-2.0
/*
 * cdi-apply SPEC KIND=DEVICE < config.json > config.json
 *
 * What a CDI-enabled engine (podman, containerd, CRI-O) does for
 * "--device KIND=DEVICE", for the VM tests that run crun and runc without
 * an engine: the spec's containerEdits and the device's are merged into an
 * OCI config.json, as the CDI library (container-device-interface
 * pkg/cdi, ContainerEdits.Apply) does: env appended to process.env,
 * device nodes added to linux.devices (type, major and minor from the
 * host's node) with an allow rule in linux.resources.devices, mounts
 * appended to mounts, hooks appended to hooks.<hookName>.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <jansson.h>

static int die(const char *what)
{
	fprintf(stderr, "cdi-apply: %s\n", what);
	return 1;
}

/* obj[key], made an empty array or object (per @array) when absent. */
static json_t *member(json_t *obj, const char *key, int array)
{
	json_t *v = json_object_get(obj, key);

	if (!v) {
		v = array ? json_array() : json_object();
		json_object_set_new(obj, key, v);
	}
	return v;
}

static int add_node(json_t *cfg, json_t *node)
{
	const char *path = json_string_value(json_object_get(node, "path"));
	const char *host = json_string_value(json_object_get(node, "hostPath"));
	json_t *linux_ = member(cfg, "linux", 0);
	struct stat st;

	if (!path || stat(host ? host : path, &st) || !S_ISCHR(st.st_mode))
		return die("a device node is not a character device on this host");
	json_array_append_new(member(linux_, "devices", 1),
		json_pack("{s:s, s:s, s:I, s:I, s:i}", "path", path, "type", "c",
			  "major", (json_int_t)major(st.st_rdev), "minor", (json_int_t)minor(st.st_rdev),
			  "fileMode", 0666));
	json_array_append_new(member(member(linux_, "resources", 0), "devices", 1),
		json_pack("{s:b, s:s, s:I, s:I, s:s}", "allow", 1, "type", "c",
			  "major", (json_int_t)major(st.st_rdev), "minor", (json_int_t)minor(st.st_rdev),
			  "access", "rwm"));
	return 0;
}

static int apply(json_t *cfg, json_t *edits)
{
	json_t *v, *e, *h;
	size_t i;

	json_array_foreach(json_object_get(edits, "env"), i, v)
		json_array_append(member(member(cfg, "process", 0), "env", 1), v);
	json_array_foreach(json_object_get(edits, "deviceNodes"), i, v)
		if (add_node(cfg, v))
			return 1;
	json_array_foreach(json_object_get(edits, "mounts"), i, v)
		json_array_append_new(member(cfg, "mounts", 1),
			json_pack("{s:O, s:O, s:s, s:O}", "destination",
				  json_object_get(v, "containerPath"), "source",
				  json_object_get(v, "hostPath"), "type", "bind",
				  "options", json_object_get(v, "options")));
	json_array_foreach(json_object_get(edits, "hooks"), i, v) {
		const char *name = json_string_value(json_object_get(v, "hookName"));

		e = json_deep_copy(v);
		json_object_del(e, "hookName");
		h = member(member(cfg, "hooks", 0), name, 1);
		json_array_append_new(h, e);
	}
	return 0;
}

int main(int argc, char **argv)
{
	json_t *spec, *cfg, *dev = NULL, *v;
	const char *eq, *kind;
	json_error_t err;
	size_t i;

	if (argc != 3 || !(eq = strchr(argv[2], '=')))
		return die("usage: cdi-apply SPEC KIND=DEVICE < config.json > config.json");
	spec = json_load_file(argv[1], 0, &err);
	cfg = json_loadf(stdin, 0, &err);
	if (!spec || !cfg)
		return die(err.text);
	kind = json_string_value(json_object_get(spec, "kind"));
	if (!kind || strncmp(kind, argv[2], (size_t)(eq - argv[2])) || kind[eq - argv[2]])
		return die("the spec is not of that kind");
	json_array_foreach(json_object_get(spec, "devices"), i, v)
		if (!strcmp(json_string_value(json_object_get(v, "name")) ?: "", eq + 1))
			dev = v;
	if (!dev)
		return die("no such device in the spec");
	if (apply(cfg, json_object_get(spec, "containerEdits")) ||
	    apply(cfg, json_object_get(dev, "containerEdits")))
		return 1;
	json_dumpf(cfg, stdout, JSON_INDENT(1));
	putchar('\n');
	return 0;
}
