// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the HTTP server of vgpuctl metrics --listen: a
 * connection (ctl/httpd_conn.c) fed a request over a socket pair, and the
 * request judge (ctl/httpd.c, vgpuctl_httpd_judge()). The first byte of an
 * input is how many bytes each send() carries (0: all at once), the rest
 * the request. Checks, beyond the sanitizers:
 * - an answer is one well-formed HTTP/1.1 response: a status the server
 *   gives, Content-Length the length of its body, Connection: close;
 * - it is the judge's verdict on the bytes the connection took;
 * - 200 only for GET /metrics, with the metrics as body; 400 for any NUL
 *   byte; 431 only for 8192 bytes without the header's end;
 * - a client that closes before its header ended gets nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <unistd.h>

#include <sys/socket.h>

#include "../../ctl/httpd.h"
#include "fuzz.h"

#define BODY	"vgpu_fuzz 1\n"

static int body(FILE *f, void *arg)
{
	(void)arg;
	return fputs(BODY, f) < 0 ? -1 : 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	return 0;
}

/* All that has come of the answer on @fd so far, appended to @out. */
static void take(int fd, char *out, size_t cap, size_t *len)
{
	ssize_t r;

	while (*len < cap && (r = recv(fd, out + *len, cap - *len, MSG_DONTWAIT)) > 0)
		*len += (size_t)r;
	FUZZ_CHECK(*len < cap, "an answer of %zu bytes or more", cap);
}

static bool header_end(const char *p, size_t n)
{
	return memmem(p, n, "\r\n\r\n", 4) || memmem(p, n, "\n\n", 2);
}

/* The answer @a (@alen bytes) to the @n bytes @req the connection took. */
static void check_answer(const char *req, size_t n, const char *a, size_t alen)
{
	bool complete = header_end(req, n);
	struct vgpuctl_httpd_verdict v = vgpuctl_httpd_judge(req, n, complete);
	const char *end = memmem(a, alen, "\r\n\r\n", 4), *cl;
	size_t blen;
	int status = 0;

	FUZZ_CHECK(end, "no end to the answer's head");
	FUZZ_CHECK(sscanf(a, "HTTP/1.1 %d ", &status) == 1, "status line \"%.40s\"", a);
	/* the head's lines, each with its CRLF */
	cl = memmem(a, (size_t)(end + 2 - a), "\r\nContent-Length: ", 18);
	FUZZ_CHECK(cl && sscanf(cl + 18, "%zu", &blen) == 1, "no Content-Length");
	FUZZ_CHECK(blen == alen - (size_t)(end + 4 - a), "Content-Length %zu, body of %zu", blen,
		   alen - (size_t)(end + 4 - a));
	FUZZ_CHECK(memmem(a, (size_t)(end + 2 - a), "\r\nConnection: close\r\n", 21),
		   "no Connection: close");
	FUZZ_CHECK(status == v.status, "answered %d, the judge says %d", status, v.status);
	FUZZ_CHECK(status == 200 || status == 400 || status == 404 || status == 405 || status == 431,
		   "status %d", status);
	if (status == 200)
		FUZZ_CHECK(n > 13 && !memcmp(req, "GET /metrics", 12) &&
			   (req[12] == ' ' || req[12] == '?') &&
			   blen == strlen(BODY) && !memcmp(end + 4, BODY, blen),
			   "200 for \"%.40s\"", req);
	if (memchr(req, '\0', n))
		FUZZ_CHECK(status == 400, "%d for a request with a NUL byte", status);
	if (status == 431)
		FUZZ_CHECK(n == VGPU_HTTPD_REQ_MAX && !complete, "431 after %zu bytes", n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char answer[1 << 16];
	struct vgpuctl_httpd_conn c = { .fd = -1 };
	enum vgpuctl_httpd_step step = VGPU_HTTPD_READ;
	const char *req = (const char *)data + 1;
	size_t n = size ? size - 1 : 0, chunk, sent = 0, alen = 0, took;
	char *copy;
	int sv[2];

	if (!size)
		return 0;
	chunk = data[0] ? data[0] : n;
	FUZZ_CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), "socketpair: %s",
		   strerror(errno));
	c.fd = sv[1];
	while (step == VGPU_HTTPD_READ && sent < n) {
		size_t k = n - sent < chunk ? n - sent : chunk;

		FUZZ_CHECK(send(sv[0], req + sent, k, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)k,
			   "send: %s", strerror(errno));
		sent += k;
		step = vgpuctl_httpd_conn_read(&c, body, NULL);
	}
	took = sent < VGPU_HTTPD_REQ_MAX ? sent : VGPU_HTTPD_REQ_MAX;
	if (step == VGPU_HTTPD_READ) {
		/* Undecided: no end, no NUL, room left. The client goes away. */
		FUZZ_CHECK(!header_end(req, took) && !memchr(req, '\0', took) &&
			   took < VGPU_HTTPD_REQ_MAX, "still reading after %zu bytes", took);
		shutdown(sv[0], SHUT_WR);
		step = vgpuctl_httpd_conn_read(&c, body, NULL);
		FUZZ_CHECK(step == VGPU_HTTPD_DONE, "a closed client: step %d", step);
		take(sv[0], answer, sizeof(answer), &alen);
		FUZZ_CHECK(!alen, "an answer of %zu bytes to a request never ended", alen);
	} else {
		while (step == VGPU_HTTPD_WRITE) {
			take(sv[0], answer, sizeof(answer), &alen);
			step = vgpuctl_httpd_conn_write(&c);
		}
		take(sv[0], answer, sizeof(answer), &alen);
		/* The judge on an exact copy: nothing past @took may be read. */
		copy = malloc(took ? took : 1);
		memcpy(copy, req, took);
		check_answer(copy, took, answer, alen);
		free(copy);
	}
	free(c.buf);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
