// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl metrics: the Prometheus exposition (prom.c) of a snapshot
 * (snap.c), to stdout, to a file replaced atomically (node_exporter's
 * textfile collector), optionally every SECONDS, or served over HTTP
 * (httpd.h: on the loopback unless told otherwise, or a Unix socket; TLS
 * and basic authentication from a web configuration file, webconf.h). Each
 * scrape opens the family afresh, so a reloaded module is found again; a
 * module that does not answer gives vgpu_up 0.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/file.h"
#include "../out/httpd.h"
#include "../lib/parse.h"
#include "../out/prom.h"
#include "../obj/snap.h"
#include "../vgpuctl.h"
#include "../out/webconf.h"

/**
 * vgpuctl_usage_metrics() - usage of metrics
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_metrics(FILE *f)
{
	fputs("Usage: vgpuctl metrics [-o FILE [-i SECONDS]]\n"
	      "       vgpuctl metrics --listen ADDR [--web.config.file FILE]\n"
	      "                       [--socket-mode MODE] [--socket-group GROUP]\n"
	      "       vgpuctl metrics help\n"
	      "Prints vgpu's metrics in the Prometheus text format (0.0.4): per tenant and\n"
	      "GPU, VRAM, GPU time, throttled time, grants; per tenant, its quotas and\n"
	      "labels; per GPU, its capacity. Without CAP_NET_ADMIN (or the monitor group)\n"
	      "only the caller's own tenant. Documentation/metrics.md lists them.\n"
	      "-o FILE        replace FILE atomically (node_exporter's textfile collector:\n"
	      "               a FILE.prom in its --collector.textfile.directory)\n"
	      "-i SECONDS     with -o: again every SECONDS until SIGINT or SIGTERM\n"
	      "--listen ADDR  serve GET /metrics over HTTP: whoever connects reads every\n"
	      "               tenant's metrics. ADDR is PORT or :PORT (127.0.0.1, this\n"
	      "               host only), ADDR:PORT, [ADDR6]:PORT (0.0.0.0:PORT, [::]:PORT:\n"
	      "               every address), or unix:PATH (a Unix socket)\n"
	      "--web.config.file FILE  TLS (client certificates) and basic authentication,\n"
	      "               in the format of Prometheus' exporter-toolkit\n"
	      "--socket-mode MODE    unix:PATH's permissions (octal; default 0600)\n"
	      "--socket-group GROUP  unix:PATH's group\n", f);
}

/* The metrics, or vgpu_up 0 when the module cannot be read; 0 or -errno. */
static int write_metrics(FILE *f, void *arg)
{
	struct vgpu_snap s;
	struct vgpu_nl nl;
	int err;

	(void)arg;
	err = vgpuctl_nl_open(&nl);
	if (!err) {
		err = vgpuctl_snap_take(&nl, &s, VGPU_SNAP_GPUS | VGPU_SNAP_TENANTS |
					VGPU_SNAP_PROCS);
		if (!err)
			vgpuctl_prom_write(f, &s);
		vgpuctl_snap_free(&s);
	}
	if (err) {
		vgpuctl_nl_perror(&nl, err);
		vgpuctl_prom_write_down(f);
	}
	vgpuctl_nl_close(&nl);
	return err;
}

/* One exposition into @path; the exit status. */
static int write_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err, ret;

	if (!f)
		return vgpuctl_error("%s", strerror(errno));
	ret = write_metrics(f, NULL) ? VGPU_EXIT_ERR : VGPU_EXIT_OK;
	if (fclose(f)) {
		free(buf);
		return vgpuctl_error("%s", strerror(errno));
	}
	err = vgpuctl_file_replace(path, buf, len);
	free(buf);
	if (err)
		return vgpuctl_error("cannot write %s: %s", path, strerror(-err));
	return ret;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Every @delay ns until a stop signal; a failed write is reported and retried. */
static int file_loop(const char *path, uint64_t delay)
{
	struct pollfd p = { .events = POLLIN };
	uint64_t next = mono_ns(), t;
	int ret = vgpuctl_stop_signals(&p.fd);

	if (ret)
		return ret;
	for (;;) {
		write_file(path);
		next += delay;
		t = mono_ns();
		if (next < t)
			next = t;	/* a late round does not bunch the next ones */
		if (poll(&p, 1, (int)((next - t + 999999) / 1000000)) > 0)
			break;
	}
	close(p.fd);
	return VGPU_EXIT_OK;
}

/* An answer to GET /metrics: vgpu_up 0 when the module did not answer. */
static int http_body(FILE *f, void *arg)
{
	write_metrics(f, arg);
	return 0;
}

/* The options of metrics. */
struct metrics_opts {
	const char *out, *web_config, *mode, *group;
	uint64_t delay;
	struct vgpuctl_httpd_where where;
};

/* What a reader of the port must get through, in words. */
static void say_serving(const struct vgpuctl_httpd_listener *l, const struct vgpuctl_webconf *wc,
			const struct metrics_opts *o)
{
	fprintf(stderr, "vgpuctl metrics: serving /metrics on %s", l->name);
	if (l->path)
		fprintf(stderr, " (mode %04o)", o->where.mode);
	if (!wc->tls)
		fputs(", plain HTTP", stderr);
	else if (wc->client_auth == VGPU_WEBCONF_REQUIRE_AND_VERIFY)
		fputs(", TLS with client certificates", stderr);
	else
		fputs(", TLS", stderr);
	if (wc->nusers)
		fprintf(stderr, ", basic authentication (%zu user%s)", wc->nusers,
			wc->nusers == 1 ? "" : "s");
	else if (!wc->tls || wc->client_auth != VGPU_WEBCONF_REQUIRE_AND_VERIFY)
		fputs(", no authentication", stderr);
	fputs("\n", stderr);
}

/*
 * The web configuration, its TLS and authentication, all checked before
 * the socket is opened: a bad one serves nothing. Then until a stop signal.
 */
static int serve(const struct metrics_opts *o)
{
	struct vgpuctl_httpd_server srv = { .fn = http_body };
	struct vgpuctl_httpd_listener l;
	struct vgpuctl_webconf wc = { 0 };
	int sfd, ret = 0;

	if (o->web_config)
		ret = vgpuctl_webconf_load(o->web_config, &wc);
	if (!ret && wc.tls)
		ret = vgpuctl_httpd_tls_ctx(&wc, &srv.tls);
	if (!ret)
		ret = vgpuctl_httpd_auth_start(&wc, &srv.auth);
	if (!ret)
		ret = vgpuctl_httpd_listen(&o->where, &l);
	if (!ret) {
		ret = vgpuctl_stop_signals(&sfd);
		if (!ret) {
			say_serving(&l, &wc, o);
			ret = vgpuctl_httpd_serve(l.fd, sfd, &srv);
			close(sfd);
		}
		vgpuctl_httpd_unlisten(&l);
	}
	vgpuctl_httpd_auth_stop(srv.auth);
	vgpuctl_httpd_tls_ctx_free(srv.tls);
	vgpuctl_webconf_free(&wc);
	return ret;
}

/* What the options say of one another, and of the Unix socket's. */
static int metrics_check(struct metrics_opts *o)
{
	const char *addr = o->where.addr;
	char *end;
	long mode;

	if (o->delay && !o->out)
		return vgpuctl_usage_error("-i needs -o FILE");
	if (o->out && addr)
		return vgpuctl_usage_error("-o and --listen exclude each other");
	if (o->web_config && !addr)
		return vgpuctl_usage_error("--web.config.file needs --listen");
	if ((o->mode || o->group) && (!addr || strncmp(addr, "unix:", 5)))
		return vgpuctl_usage_error("--socket-mode and --socket-group need --listen unix:PATH");
	o->where.mode = 0600;
	if (o->mode) {
		errno = 0;
		mode = strtol(o->mode, &end, 8);
		if (errno || *end || end == o->mode || o->mode[0] == '-' || mode > 0777)
			return vgpuctl_usage_error("invalid MODE \"%s\" for --socket-mode (octal permissions, e.g. 0660)",
						   o->mode);
		o->where.mode = (unsigned int)mode;
	}
	if (o->group) {
		if (vgpuctl_host_parse_group(o->group, &o->where.gid) || !strcmp(o->group, "none"))
			return vgpuctl_usage_error("invalid GROUP \"%s\" for --socket-group (a group name or number)",
						   o->group);
		o->where.has_gid = true;
	}
	return 0;
}

/* The option @o names, and its slot in @m; NULL for none. */
static const char **option_slot(struct metrics_opts *m, const char *o)
{
	if (!strcmp(o, "-o") || !strcmp(o, "--output"))
		return &m->out;
	if (!strcmp(o, "-l") || !strcmp(o, "--listen"))
		return &m->where.addr;
	if (!strcmp(o, "--web.config.file"))
		return &m->web_config;
	if (!strcmp(o, "--socket-mode"))
		return &m->mode;
	if (!strcmp(o, "--socket-group"))
		return &m->group;
	return NULL;
}

/* The options; 0 or VGPU_EXIT_USAGE. */
static int metrics_args(int argc, char **argv, struct metrics_opts *m)
{
	int i;

	for (i = 0; i < argc; i += 2) {
		const char *o = argv[i], **slot = option_slot(m, o);
		bool is_i = !strcmp(o, "-i") || !strcmp(o, "--interval");

		if (!slot && !is_i)
			return vgpuctl_usage_error("unexpected argument \"%s\" for metrics", o);
		if ((slot && *slot) || (is_i && m->delay))
			return vgpuctl_usage_error("duplicate option \"%s\" for metrics", o);
		if (i + 1 >= argc || !argv[i + 1][0])
			return vgpuctl_usage_error("missing value for %s", o);
		if (slot)
			*slot = argv[i + 1];
		else if (vgpuctl_parse_seconds(argv[i + 1], &m->delay))
			return vgpuctl_usage_error("invalid SECONDS \"%s\" for %s (0.001-%u, at most 3 decimals)",
						   argv[i + 1], o, VGPU_SECONDS_MAX);
	}
	return metrics_check(m);
}

/**
 * vgpuctl_cmd_metrics() - "vgpuctl metrics [-o FILE [-i SECONDS] | --listen ADDR ...]"
 * @argc: arguments after "metrics"
 * @argv: the options, or "help"
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_metrics(int argc, char **argv)
{
	struct metrics_opts m = { 0 };
	int ret;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_metrics(stdout);
		return VGPU_EXIT_OK;
	}
	ret = metrics_args(argc, argv, &m);
	if (ret)
		return ret;
	if (m.where.addr)
		return serve(&m);
	if (m.out && m.delay)
		return file_loop(m.out, m.delay);
	if (m.out)
		return write_file(m.out);
	ret = write_metrics(stdout, NULL) ? VGPU_EXIT_ERR : VGPU_EXIT_OK;
	if (fflush(stdout) || ferror(stdout))
		return VGPU_EXIT_ERR;
	return ret;
}
