// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the HTTP server of vgpuctl metrics --listen: a
 * connection without TLS (ctl/out/httpd_conn.c) fed a request over a socket
 * pair and driven as httpd_loop.c drives one (vgpuctl_httpd_conn_init(),
 * vgpuctl_httpd_conn_step() on each event, vgpuctl_httpd_conn_checked()
 * once its password check is collected, vgpuctl_httpd_conn_release()),
 * the request judge (ctl/out/httpd.c, vgpuctl_httpd_judge()) and basic
 * authentication (vgpuctl_httpd_basic(), httpd_auth.c's check and checker
 * thread). The first byte of an input is how many bytes each send()
 * carries (its low 7 bits; 0: all at once) and, its top bit set, that the
 * server asks for basic authentication (one user, USER, with a bcrypt hash
 * of PASS at cost 04); the rest is the request. Checks, beyond the
 * sanitizers:
 * - an answer is one well-formed HTTP/1.1 response: a status the server
 *   gives, Content-Length the length of its body, Connection: close, and
 *   WWW-Authenticate with a 401;
 * - it is the judge's verdict on the bytes the connection took; with
 *   authentication, 400 and 431 as judged, else 401 unless the request's
 *   credentials are USER:PASS;
 * - 200 only for GET /metrics, with the metrics as body; 400 for any NUL
 *   byte; 431 only for 8192 bytes without the header's end;
 * - credentials taken from a request are printable, USER up to the first
 *   colon, from its one Authorization line, where their base64 is; that
 *   line "Authorization: Basic " and the base64 of USER:PASS, they are
 *   taken;
 * - a client that closes before its header ended gets nothing.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>

#include "../../ctl/out/httpd.h"
#include "../../ctl/out/webconf.h"
#include "fuzz.h"

#define BODY	"vgpu_fuzz 1\n"
#define USER	"prometheus"
#define PASS	"pass"
/* crypt(3) of PASS, setting $2y$04$vgpufuzz... (a cost of 04: a millisecond a check) */
#define HASH	"$2y$04$vgpufuzzvgpufuzzvgpufub1GYiBd4ROVasvNeXt1Z1izGYx.irue"
#define AUTH	0x80	/* of the first byte: with basic authentication */

static int body(FILE *f, void *arg)
{
	(void)arg;
	return fputs(BODY, f) < 0 ? -1 : 0;
}

static struct vgpuctl_webconf_user users[] = { { USER, HASH } };
static const struct vgpuctl_webconf wc = { .users = users, .nusers = 1 };
static const struct vgpuctl_httpd_server plain = { .fn = body };
/* With authentication: one checker thread for the run (its credentials
 * accepted remembered from one input to the next, as a server's are). */
static struct vgpuctl_httpd_server guarded = { .fn = body };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet();
	FUZZ_CHECK(!vgpuctl_httpd_auth_start(&wc, &guarded.auth) && guarded.auth,
		   "no basic authentication");
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

/* Padded base64 of the @n bytes at @in into @out (4 * ((@n + 2) / 3) + 1 bytes). */
static void b64_encode(const char *in, size_t n, char *out)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *u = (const unsigned char *)in;
	size_t i;

	for (i = 0; i < n; i += 3, out += 4) {
		unsigned int v = (unsigned int)u[i] << 16 | (i + 1 < n ? u[i + 1] << 8 : 0) |
				 (i + 2 < n ? u[i + 2] : 0);

		out[0] = b64[v >> 18];
		out[1] = b64[v >> 12 & 63];
		out[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		out[3] = i + 2 < n ? b64[v & 63] : '=';
	}
	*out = '\0';
}

/*
 * Whether the @n bytes @req (complete, without NUL) carry the credentials
 * USER:PASS, vgpuctl_httpd_basic()'s answer checked on the way: against
 * the Authorization lines of the header (up to a line that starts with
 * CR or LF), and one line "Authorization: Basic " and the base64 of
 * USER:PASS must be taken.
 */
static bool credentials(const char *req, size_t n)
{
	static const char line_right[] = "Authorization: Basic cHJvbWV0aGV1czpwYXNz";
	char *s = fuzz_str((const uint8_t *)req, n), *out = malloc(VGPU_HTTPD_REQ_MAX), *enc;
	const char *colon, *nl, *only = NULL;
	size_t ulen = 0, len, i, keep, lines = 0, k = sizeof(line_right) - 1;
	bool right = false;

	FUZZ_CHECK(out, "out of memory");
	for (nl = strchr(s, '\n'); nl && nl[1] && nl[1] != '\r' && nl[1] != '\n';
	     nl = strchr(nl + 1, '\n'))
		if (!strncasecmp(nl + 1, "authorization:", 14) && ++lines == 1)
			only = nl + 1;
	if (!vgpuctl_httpd_basic(s, out, VGPU_HTTPD_REQ_MAX, &ulen)) {
		FUZZ_CHECK(lines == 1, "credentials \"%.40s\" from %zu Authorization lines", out,
			   lines);
		len = strlen(out);
		for (i = 0; i < len; i++)
			FUZZ_CHECK((unsigned char)out[i] >= 0x20 && out[i] != 0x7f,
				   "byte 0x%02x in the credentials", (unsigned char)out[i]);
		colon = strchr(out, ':');
		FUZZ_CHECK(colon && (size_t)(colon - out) == ulen, "user of %zu bytes in \"%.40s\"",
			   ulen, out);
		/* (the last group's unused bits may be anything: not compared) */
		enc = malloc(4 * ((len + 2) / 3) + 1);
		FUZZ_CHECK(enc, "out of memory");
		b64_encode(out, len, enc);
		keep = len % 3 ? strlen(enc) - 4 : strlen(enc);
		FUZZ_CHECK(memmem(only, strcspn(only, "\n"), enc, keep),
			   "credentials \"%.40s\" not in the Authorization line", out);
		free(enc);
		right = !strcmp(out, USER ":" PASS);
	}
	if (lines == 1 && !strncmp(only, line_right, k) &&
	    (only[k] == '\n' || (only[k] == '\r' && only[k + 1] == '\n')))
		FUZZ_CHECK(right, "\"%s\" not taken", line_right);
	free(out);
	free(s);
	return right;
}

/* The answer @a (@alen bytes) to the @n bytes @req the connection took. */
static void check_answer(const char *req, size_t n, const char *a, size_t alen, bool auth)
{
	bool complete = header_end(req, n);
	struct vgpuctl_httpd_verdict v = vgpuctl_httpd_judge(req, n, complete);
	const char *end = memmem(a, alen, "\r\n\r\n", 4), *cl;
	size_t blen;
	int status = 0, want = v.status;

	/* (the credentials of any complete request, whether asked for or not) */
	if (want != 400 && want != 431 && !credentials(req, n) && auth)
		want = 401;
	FUZZ_CHECK(end, "no end to the answer's head");
	FUZZ_CHECK(sscanf(a, "HTTP/1.1 %d ", &status) == 1, "status line \"%.40s\"", a);
	/* the head's lines, each with its CRLF */
	cl = memmem(a, (size_t)(end + 2 - a), "\r\nContent-Length: ", 18);
	FUZZ_CHECK(cl && sscanf(cl + 18, "%zu", &blen) == 1, "no Content-Length");
	FUZZ_CHECK(blen == alen - (size_t)(end + 4 - a), "Content-Length %zu, body of %zu", blen,
		   alen - (size_t)(end + 4 - a));
	FUZZ_CHECK(memmem(a, (size_t)(end + 2 - a), "\r\nConnection: close\r\n", 21),
		   "no Connection: close");
	FUZZ_CHECK(status == want, "answered %d, not %d (the judge's %d%s)", status, want,
		   v.status, auth ? ", with authentication" : "");
	FUZZ_CHECK(status == 200 || status == 400 || status == 404 || status == 405 ||
		   status == 431 || (auth && status == 401), "status %d", status);
	if (status == 401)
		FUZZ_CHECK(memmem(a, (size_t)(end + 2 - a), "\r\nWWW-Authenticate: Basic ", 26),
			   "401 without WWW-Authenticate");
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

/* A password check's end, as the loop's on_checked() takes it. */
struct checked {
	const struct vgpuctl_httpd_server *srv;
	struct vgpuctl_httpd_conn *c;
	enum vgpuctl_httpd_step step;
	int calls;
};

static void on_checked(struct vgpuctl_httpd_conn *c, bool ok, void *arg)
{
	struct checked *k = arg;

	FUZZ_CHECK(c == k->c && !c->check, "the check of another connection");
	k->calls++;
	k->step = vgpuctl_httpd_conn_checked(c, k->srv, ok);
}

/* Milliseconds of CLOCK_MONOTONIC. */
static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/*
 * @c waiting for its password check: the checker thread's verdict. The
 * wait is a poll that a signal may end early (EINTR): libFuzzer's
 * -timeout raises SIGALRM every timeout / 2 + 1 seconds, and poll is
 * never restarted after a handler (signal(7)). So it goes on to the end
 * of its 10 s.
 */
static enum vgpuctl_httpd_step wait_check(struct vgpuctl_httpd_conn *c,
					  const struct vgpuctl_httpd_server *srv)
{
	struct pollfd p = { .fd = -1, .events = POLLIN };
	struct checked k = { .srv = srv, .c = c };
	long long end = now_ms() + 10000, left;
	int r;

	FUZZ_CHECK(srv->auth && c->phase == VGPU_HTTPD_CHECKING && c->check,
		   "waiting, phase %d, without a check", c->phase);
	p.fd = vgpuctl_httpd_auth_fd(srv->auth);
	do {
		left = end - now_ms();
		r = poll(&p, 1, left > 0 ? (int)left : 0);
	} while (r < 0 && errno == EINTR);
	FUZZ_CHECK(r == 1, "no password check in 10 s (poll: %d, %s)", r,
		   r < 0 ? strerror(errno) : "timed out");
	vgpuctl_httpd_auth_collect(srv->auth, on_checked, &k);
	FUZZ_CHECK(k.calls == 1, "%d connections checked", k.calls);
	return k.step;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char answer[1 << 16];
	struct vgpuctl_httpd_conn c = { .fd = -1 };
	const struct vgpuctl_httpd_server *srv;
	enum vgpuctl_httpd_step step = VGPU_HTTPD_READ;
	const char *req = (const char *)data + 1;
	size_t n = size ? size - 1 : 0, chunk, sent = 0, alen = 0, took;
	char *copy;
	bool auth;
	int sv[2];

	if (!size)
		return 0;
	chunk = data[0] & ~AUTH ? data[0] & ~AUTH : n;
	auth = data[0] & AUTH;
	srv = auth ? &guarded : &plain;
	FUZZ_CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv),
		   "socketpair: %s", strerror(errno));
	c.fd = sv[1];
	FUZZ_CHECK(!vgpuctl_httpd_conn_init(&c, srv) && c.phase == VGPU_HTTPD_REQUEST,
		   "a plain connection starts in phase %d", c.phase);
	while (step == VGPU_HTTPD_READ && sent < n) {
		size_t k = n - sent < chunk ? n - sent : chunk;

		FUZZ_CHECK(send(sv[0], req + sent, k, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)k,
			   "send: %s", strerror(errno));
		sent += k;
		step = vgpuctl_httpd_conn_step(&c, srv);
	}
	took = sent < VGPU_HTTPD_REQ_MAX ? sent : VGPU_HTTPD_REQ_MAX;
	if (step == VGPU_HTTPD_READ) {
		/* Undecided: no end, no NUL, room left. The client goes away. */
		FUZZ_CHECK(!header_end(req, took) && !memchr(req, '\0', took) &&
			   took < VGPU_HTTPD_REQ_MAX, "still reading after %zu bytes", took);
		shutdown(sv[0], SHUT_WR);
		step = vgpuctl_httpd_conn_step(&c, srv);
		FUZZ_CHECK(step == VGPU_HTTPD_DONE, "a closed client: step %d", step);
		take(sv[0], answer, sizeof(answer), &alen);
		FUZZ_CHECK(!alen, "an answer of %zu bytes to a request never ended", alen);
	} else {
		if (step == VGPU_HTTPD_WAIT)
			step = wait_check(&c, srv);
		while (step == VGPU_HTTPD_WRITE) {
			FUZZ_CHECK(c.phase == VGPU_HTTPD_ANSWER, "writing in phase %d", c.phase);
			take(sv[0], answer, sizeof(answer), &alen);
			step = vgpuctl_httpd_conn_step(&c, srv);
		}
		FUZZ_CHECK(step == VGPU_HTTPD_DONE, "after the answer: step %d", step);
		take(sv[0], answer, sizeof(answer), &alen);
		/* The judge on an exact copy: nothing past @took may be read. */
		copy = malloc(took ? took : 1);
		memcpy(copy, req, took);
		check_answer(copy, took, answer, alen, auth);
		free(copy);
	}
	/* (closes sv[1]) */
	vgpuctl_httpd_conn_release(&c);
	close(sv[0]);
	return 0;
}
