// SPDX-License-Identifier: GPL-2.0
/*
 * vgpuctl metrics: the Prometheus exposition (prom.c) of a snapshot
 * (snap.c), to stdout, to a file replaced atomically (node_exporter's
 * textfile collector), optionally every SECONDS, or served over HTTP
 * (httpd.c). Each scrape opens the family afresh, so a reloaded module is
 * found again; a module that does not answer gives vgpu_up 0.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "file.h"
#include "httpd.h"
#include "parse.h"
#include "prom.h"
#include "snap.h"
#include "vgpuctl.h"

/**
 * vgpuctl_usage_metrics() - usage of metrics
 * @f: stdout for "help", stderr otherwise
 */
void vgpuctl_usage_metrics(FILE *f)
{
	fputs("Usage: vgpuctl metrics [-o FILE [-i SECONDS]]\n"
	      "       vgpuctl metrics --listen ADDR:PORT\n"
	      "       vgpuctl metrics help\n"
	      "Prints vgpu's metrics in the Prometheus text format (0.0.4): per tenant and\n"
	      "GPU, VRAM, GPU time, throttled time, grants; per tenant, its quotas and\n"
	      "labels; per GPU, its capacity. Without CAP_NET_ADMIN (or the monitor group)\n"
	      "only the caller's own tenant. Documentation/metrics.md lists them.\n"
	      "-o FILE        replace FILE atomically (node_exporter's textfile collector:\n"
	      "               a FILE.prom in its --collector.textfile.directory)\n"
	      "-i SECONDS     with -o: again every SECONDS until SIGINT or SIGTERM\n"
	      "--listen ADDR:PORT  serve GET /metrics over HTTP (\":9400\": every address)\n", f);
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

static int serve(const char *addr)
{
	int lfd, sfd, ret = vgpuctl_httpd_listen(addr, &lfd);

	if (ret)
		return ret;
	ret = vgpuctl_stop_signals(&sfd);
	if (!ret) {
		ret = vgpuctl_httpd_serve(lfd, sfd, http_body, NULL);
		close(sfd);
	}
	close(lfd);
	return ret;
}

/* The options; 0 or VGPU_EXIT_USAGE. */
static int metrics_args(int argc, char **argv, const char **out, const char **listen,
			uint64_t *delay)
{
	int i;

	for (i = 0; i < argc; i += 2) {
		const char *o = argv[i];
		bool is_o = !strcmp(o, "-o") || !strcmp(o, "--output");
		bool is_i = !strcmp(o, "-i") || !strcmp(o, "--interval");
		bool is_l = !strcmp(o, "-l") || !strcmp(o, "--listen");

		if (!is_o && !is_i && !is_l)
			return vgpuctl_usage_error("unexpected argument \"%s\" for metrics", o);
		if ((is_o && *out) || (is_l && *listen) || (is_i && *delay))
			return vgpuctl_usage_error("duplicate option \"%s\" for metrics", o);
		if (i + 1 >= argc || !argv[i + 1][0])
			return vgpuctl_usage_error("missing value for %s", o);
		if (is_o)
			*out = argv[i + 1];
		else if (is_l)
			*listen = argv[i + 1];
		else if (vgpuctl_parse_seconds(argv[i + 1], delay))
			return vgpuctl_usage_error("invalid SECONDS \"%s\" for %s (0.001-%u, at most 3 decimals)",
						   argv[i + 1], o, VGPU_SECONDS_MAX);
	}
	if (*delay && !*out)
		return vgpuctl_usage_error("-i needs -o FILE");
	if (*out && *listen)
		return vgpuctl_usage_error("-o and --listen exclude each other");
	return 0;
}

/**
 * vgpuctl_cmd_metrics() - "vgpuctl metrics [-o FILE [-i SECONDS] | --listen ADDR:PORT]"
 * @argc: arguments after "metrics"
 * @argv: the options, or "help"
 *
 * Return: the exit status.
 */
int vgpuctl_cmd_metrics(int argc, char **argv)
{
	const char *out = NULL, *listen = NULL;
	uint64_t delay = 0;
	int ret;

	if (vgpuctl_is_help(argc, argv)) {
		vgpuctl_usage_metrics(stdout);
		return VGPU_EXIT_OK;
	}
	ret = metrics_args(argc, argv, &out, &listen, &delay);
	if (ret)
		return ret;
	if (listen)
		return serve(listen);
	if (out && delay)
		return file_loop(out, delay);
	if (out)
		return write_file(out);
	ret = write_metrics(stdout, NULL) ? VGPU_EXIT_ERR : VGPU_EXIT_OK;
	if (fflush(stdout) || ferror(stdout))
		return VGPU_EXIT_ERR;
	return ret;
}
