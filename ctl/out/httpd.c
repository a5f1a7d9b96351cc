// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP server of vgpuctl metrics --listen (see httpd.h): what to
 * answer a request, and the credentials it carries. The serving is in
 * httpd_loop.c, a connection's exchange in httpd_conn.c.
 */
#include <string.h>
#include <strings.h>

#include "httpd.h"

/**
 * vgpuctl_httpd_judge() - what to answer a request
 * @req: the bytes received
 * @len: how many
 * @complete: the header ends within them (an empty line)
 *
 * Return: 400 for a request with a NUL byte (decided at once, complete or
 * not: no HTTP header holds one), 431 for a request that did not end
 * within VGPU_HTTPD_REQ_MAX bytes, 400 for a malformed request line, 405
 * for a method other than GET, 404 for a path other than /metrics (a query
 * string is ignored), else 200.
 */
struct vgpuctl_httpd_verdict vgpuctl_httpd_judge(const char *req, size_t len, bool complete)
{
	const char *eol = memchr(req, '\n', len), *sp1, *sp2;
	size_t plen;

	if (memchr(req, '\0', len))
		return (struct vgpuctl_httpd_verdict){ 400, "NUL byte in the request" };
	if (!complete)
		return (struct vgpuctl_httpd_verdict){ 431, "request over 8192 bytes" };
	sp1 = eol ? memchr(req, ' ', (size_t)(eol - req)) : NULL;
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp2 || sp1 == req || sp2 == sp1 + 1 || (size_t)(eol - sp2) < 9 ||
	    strncmp(sp2 + 1, "HTTP/1.", 7))
		return (struct vgpuctl_httpd_verdict){ 400, "malformed request line" };
	if (sp1 - req != 3 || strncmp(req, "GET", 3))
		return (struct vgpuctl_httpd_verdict){ 405, "only GET is served" };
	plen = strcspn(sp1 + 1, "? ");
	if (plen != 8 || strncmp(sp1 + 1, "/metrics", 8))
		return (struct vgpuctl_httpd_verdict){ 404, "only /metrics is served" };
	return (struct vgpuctl_httpd_verdict){ 200, "" };
}

/* The value of @v's one base64 character, or -1. */
static int b64_value(char v)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *p = v ? strchr(b64, v) : NULL;

	return p ? (int)(p - b64) : -1;
}

/* Strict base64 (padded) of @n bytes at @in into @out; its length, or -1. */
static long b64_decode(const char *in, size_t n, char *out, size_t size)
{
	size_t i, o = 0, pad = 0;
	int v[4], k;

	if (!n || n % 4 || n / 4 * 3 >= size)
		return -1;
	if (in[n - 1] == '=')
		pad = in[n - 2] == '=' ? 2 : 1;
	for (i = 0; i < n; i += 4) {
		for (k = 0; k < 4; k++) {
			v[k] = i + (size_t)k >= n - pad ? 0 : b64_value(in[i + (size_t)k]);
			if (v[k] < 0)
				return -1;
		}
		out[o++] = (char)(v[0] << 2 | v[1] >> 4);
		out[o++] = (char)((v[1] & 15) << 4 | v[2] >> 2);
		out[o++] = (char)((v[2] & 3) << 6 | v[3]);
	}
	return (long)(o - pad);
}

/**
 * vgpuctl_httpd_basic() - the credentials of a request's basic authentication
 * @req: the request, NUL-terminated, its header complete
 * @out: out: "USER:PASSWORD", decoded and NUL-terminated
 * @size: @out's size
 * @user_len: out: the length of USER
 *
 * Return: 0; -1 when the header holds no "Authorization: Basic TOKEN"
 * line, more than one Authorization line, or a TOKEN that is not padded
 * base64 of USER:PASSWORD without control characters.
 */
int vgpuctl_httpd_basic(const char *req, char *out, size_t size, size_t *user_len)
{
	const char *nl = strchr(req, '\n'), *found = NULL, *v, *colon;
	size_t n;
	long len, i;

	for (; nl && nl[1] && nl[1] != '\r' && nl[1] != '\n'; nl = strchr(nl + 1, '\n')) {
		if (strncasecmp(nl + 1, "authorization:", 14))
			continue;
		if (found)
			return -1;
		found = nl + 15;
	}
	if (!found)
		return -1;
	v = found + strspn(found, " \t");
	if (strncasecmp(v, "basic", 5) || (v[5] != ' ' && v[5] != '\t'))
		return -1;
	v += 5 + strspn(v + 5, " \t");
	n = strcspn(v, " \t\r\n");
	if (v[n + strspn(v + n, " \t")] != '\r' && v[n + strspn(v + n, " \t")] != '\n')
		return -1;
	len = b64_decode(v, n, out, size);
	if (len < 0)
		return -1;
	out[len] = '\0';
	for (i = 0; i < len; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			return -1;
	colon = memchr(out, ':', (size_t)len);
	if (!colon)
		return -1;
	*user_len = (size_t)(colon - out);
	return 0;
}
