// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl cdi generate: the CDI spec (container-device-interface, spec
 * version 0.5.0, the newest Debian 12's podman 4.3 reads) of device kind
 * vgpu.io/tenant, one device per flavour of the configuration files
 * (conf.c, flavour.c). A container given vgpu.io/tenant=NAME gets:
 *
 * - the hooks: createRuntime "vgpuctl hook create-runtime QUOTAS..." with
 *   the flavour's words, and poststop "vgpuctl hook poststop";
 * - /dev/vgpu;
 * - libvgpu.so at /usr/lib/vgpu/libvgpu.so and, as /etc/ld.so.preload, a
 *   file that names it, both bind-mounted read-only.
 *
 * See Documentation/containers.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../conf/conf.h"
#include "../conf/flavour.h"
#include "../vgpuctl.h"

#ifndef VGPU_LIBDIR
#define VGPU_LIBDIR	"/usr/local/lib"
#endif
#ifndef VGPU_DATADIR
#define VGPU_DATADIR	"/usr/local/share/vgpu"
#endif

#define CDI_VERSION		"0.5.0"
#define CDI_KIND		"vgpu.io/tenant"
#define CDI_LIBVGPU		"/usr/lib/vgpu/libvgpu.so"
#define CDI_HOOK_TIMEOUT	10	/* seconds */
#define CONF_DEFAULT		"/etc/vgpu/vgpu.conf"

/**
 * vgpuctl_usage_cdi() - usage of the cdi object
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_cdi(FILE *f)
{
	fputs("Usage: vgpuctl cdi generate [config FILE] [output FILE] [vgpuctl PATH]\n"
	      "                            [libvgpu PATH] [preload PATH]\n"
	      "       vgpuctl cdi help\n"
	      "Writes the CDI spec of device kind " CDI_KIND ", one device per flavour\n"
	      "declared in FILE (default " CONF_DEFAULT ") and the conf.d/*.conf files\n"
	      "beside it, to output FILE (atomically; default: stdout). PATHs default to\n"
	      "this vgpuctl, " VGPU_LIBDIR "/libvgpu.so and " VGPU_DATADIR "/ld.so.preload.\n"
	      "FLAVOUR := flavour NAME [QUOTA VALUE]... (the quotas of tenant add)\n", f);
}

struct cdi_opts {
	const char *config, *output;
	char vgpuctl[PATH_MAX], libvgpu[PATH_MAX], preload[PATH_MAX];
};

/* @what's @path must be an absolute path to a regular file. */
static int check_file(const char *what, const char *path)
{
	struct stat st;

	if (path[0] != '/')
		return vgpuctl_usage_error("%s path \"%s\" is not absolute", what, path);
	if (stat(path, &st))
		return vgpuctl_error("%s %s: %s", what, path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return vgpuctl_error("%s %s is not a regular file", what, path);
	return 0;
}

/* The preload file must name the library where the spec mounts it. */
static int check_preload(const char *path)
{
	char line[256] = "";
	FILE *f = fopen(path, "re");
	int ret = 0;

	if (!f)
		return vgpuctl_error("preload %s: %s", path, strerror(errno));
	if (!fgets(line, sizeof(line), f) || strcmp(strtok(line, "\n") ?: "", CDI_LIBVGPU))
		ret = vgpuctl_error("preload %s does not name %s on its first line", path, CDI_LIBVGPU);
	fclose(f);
	return ret;
}

static int parse_opts(int argc, char **argv, struct cdi_opts *o)
{
	static const char *const keys[] = { "config", "output", "vgpuctl", "libvgpu", "preload" };
	const char *vals[5] = { NULL };
	size_t k;

	for (; argc > 0; argc -= 2, argv += 2) {
		for (k = 0; k < 5 && strcmp(argv[0], keys[k]); k++)
			;
		if (k == 5)
			return vgpuctl_usage_error("unknown key \"%s\" for cdi generate", argv[0]);
		if (argc < 2)
			return vgpuctl_usage_error("missing value for %s", argv[0]);
		if (vals[k])
			return vgpuctl_usage_error("duplicate key \"%s\" for cdi generate", argv[0]);
		vals[k] = argv[1];
	}
	o->config = vals[0] ? vals[0] : CONF_DEFAULT;
	o->output = vals[1];
	if (!vals[2] && !realpath("/proc/self/exe", o->vgpuctl))
		return vgpuctl_error("cannot find this vgpuctl's path: %s", strerror(errno));
	if ((vals[2] && snprintf(o->vgpuctl, PATH_MAX, "%s", vals[2]) >= PATH_MAX) ||
	    snprintf(o->libvgpu, PATH_MAX, "%s", vals[3] ?: VGPU_LIBDIR "/libvgpu.so") >= PATH_MAX ||
	    snprintf(o->preload, PATH_MAX, "%s", vals[4] ?: VGPU_DATADIR "/ld.so.preload") >= PATH_MAX)
		return vgpuctl_usage_error("path too long for cdi generate");
	return check_file("vgpuctl", o->vgpuctl) ?: check_file("libvgpu", o->libvgpu) ?:
	       check_file("preload", o->preload) ?: check_preload(o->preload);
}

static json_t *hook(const char *name, const char *path, const char *cmd,
		    int argc, char **argv)
{
	json_t *args = json_pack("[sss]", "vgpuctl", "hook", cmd);
	int i;

	for (i = 0; args && i < argc; i++)
		json_array_append_new(args, json_string(argv[i]));
	return json_pack("{s:s, s:s, s:o, s:i}", "hookName", name, "path", path,
			 "args", args, "timeout", CDI_HOOK_TIMEOUT);
}

static json_t *mount(const char *host, const char *ctr)
{
	return json_pack("{s:s, s:s, s:[ssss]}", "hostPath", host, "containerPath", ctr,
			 "options", "ro", "nosuid", "nodev", "bind");
}

/* The whole spec; NULL when out of memory. */
static json_t *build_spec(const struct cdi_opts *o, const struct vgpuctl_flavour *fl, size_t n)
{
	json_t *devices = json_array(), *spec;
	size_t i;

	for (i = 0; devices && i < n; i++)
		json_array_append_new(devices, json_pack("{s:s, s:{s:[o]}}", "name", fl[i].name,
			"containerEdits", "hooks",
			hook("createRuntime", o->vgpuctl, "create-runtime", fl[i].argc, fl[i].argv)));
	spec = json_pack("{s:s, s:s, s:o, s:{s:[{s:s}], s:[oo], s:[o]}}",
			 "cdiVersion", CDI_VERSION, "kind", CDI_KIND, "devices", devices,
			 "containerEdits",
			 "deviceNodes", "path", "/dev/vgpu",
			 "mounts", mount(o->libvgpu, CDI_LIBVGPU),
			 mount(o->preload, "/etc/ld.so.preload"),
			 "hooks", hook("poststop", o->vgpuctl, "poststop", 0, NULL));
	return spec;
}

/* Write @text to @path through a temporary file renamed over it. */
static int write_atomic(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	size_t len = strlen(text);
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof(tmp))
		return vgpuctl_usage_error("output path too long");
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return vgpuctl_error("cannot create %s: %s", tmp, strerror(errno));
	if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1 ||
	    fchmod(fd, 0644) || fsync(fd)) {
		int e = errno;

		close(fd);
		unlink(tmp);
		return vgpuctl_error("cannot write %s: %s", tmp, strerror(e));
	}
	close(fd);
	if (rename(tmp, path)) {
		int e = errno;

		unlink(tmp);
		return vgpuctl_error("cannot rename %s to %s: %s", tmp, path, strerror(e));
	}
	return 0;
}

static int cdi_generate(int argc, char **argv)
{
	static struct cdi_opts o;
	char dir[PATH_MAX], *text = NULL, *slash;
	struct vgpuctl_flavour *fl = NULL;
	struct vgpuctl_conf c;
	json_t *spec = NULL;
	size_t n = 0;
	int ret;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), "%s", o.config);
	slash = strrchr(dir, '/');
	if (slash)
		snprintf(slash + 1, sizeof(dir) - (size_t)(slash + 1 - dir), "conf.d");
	else
		snprintf(dir, sizeof(dir), "conf.d");
	ret = vgpuctl_conf_load(&c, o.config, dir);
	if (ret)
		return ret;
	ret = vgpuctl_flavours(&c, &fl, &n);
	if (!ret && !n)
		ret = vgpuctl_error("no flavour is declared in %s or %s/*.conf", o.config, dir);
	if (!ret) {
		spec = build_spec(&o, fl, n);
		text = spec ? json_dumps(spec, JSON_INDENT(2)) : NULL;
		if (!text)
			ret = vgpuctl_error("%s", strerror(ENOMEM));
	}
	if (!ret && o.output && strcmp(o.output, "-"))
		ret = write_atomic(o.output, text);
	else if (!ret)
		printf("%s\n", text);
	free(text);
	json_decref(spec);
	free(fl);
	vgpuctl_conf_free(&c);
	return ret;
}

/**
 * vgpuctl_cmd_cdi() - dispatch "vgpuctl cdi COMMAND ..."
 * @argc: arguments after "cdi"
 * @argv: argv[0] is the command
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_cdi(int argc, char **argv)
{
	if (argc < 1)
		return vgpuctl_usage_error("missing COMMAND for cdi; try \"vgpuctl cdi help\"");
	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_cdi(stdout);
		return VGPU_EXIT_OK;
	}
	if (!strcmp(argv[0], "generate"))
		return cdi_generate(argc - 1, argv + 1);
	return vgpuctl_usage_error("unknown command \"%s\" for cdi; try \"vgpuctl cdi help\"",
				   argv[0]);
}
