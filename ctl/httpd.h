/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP/1.x server for vgpuctl metrics --listen: GET /metrics only,
 * one connection at a time, requests of at most VGPU_HTTPD_REQ_MAX bytes
 * read within VGPU_HTTPD_TIMEOUT_MS, every connection closed after its
 * answer. No threads: poll() on the listening socket and the stop signals.
 */
#ifndef VGPU_CTL_HTTPD_H
#define VGPU_CTL_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define VGPU_HTTPD_REQ_MAX	8192
#define VGPU_HTTPD_TIMEOUT_MS	5000

/* Writes the body of GET /metrics to @f; 0, or < 0 for a 500 answer. */
typedef int (*vgpuctl_httpd_body_fn)(FILE *f, void *arg);

/* What the server answers a request (the status and why). */
struct vgpuctl_httpd_verdict {
	int status;		/* 200, 400, 404, 405, 431 */
	const char *reason;
};

struct vgpuctl_httpd_verdict vgpuctl_httpd_judge(const char *req, size_t len, bool complete);
int vgpuctl_httpd_listen(const char *addr, int *lfd);
int vgpuctl_httpd_serve(int lfd, int sfd, vgpuctl_httpd_body_fn fn, void *arg);

#endif /* VGPU_CTL_HTTPD_H */
