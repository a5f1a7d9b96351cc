// SPDX-License-Identifier: GPL-2.0
/*
 * TLS for the HTTP server (httpd.h), with OpenSSL: the context built from
 * the web configuration (webconf.h) at start, every file loaded and
 * checked then (a certificate, a key that matches it, the client CAs), and
 * each connection's TLS over its non-blocking socket. A handshake is a
 * step like a read: SSL_accept() says whether it waits for the socket to
 * be readable or writable, and the loop waits for that, so a slow or
 * silent handshake holds only its own connection, within the same 5 s
 * deadline as the rest of the exchange. A client that speaks plain HTTP
 * to the TLS port fails its handshake and is closed: nothing is ever
 * served in plaintext there.
 *
 * No session is kept (no cache, no tickets): every connection is a full
 * handshake, and no state grows with the clients. Renegotiation is off.
 */
#include <stdint.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "httpd.h"
#include "../vgpuctl.h"
#include "webconf.h"

#define TLS "tls_server_config"

/* OpenSSL's first error (the most telling), for an error line. */
static const char *ssl_reason(void)
{
	unsigned long e = ERR_peek_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	return r ? r : "no reason given";
}

/* An encrypted key: refused rather than a passphrase asked for. */
static int no_passphrase(char *buf, int size, int rw, void *arg)
{
	(void)buf;
	(void)size;
	(void)rw;
	(void)arg;
	return -1;
}

/* The client CAs and the verification client_auth_type asks for. */
static int client_cas(SSL_CTX *ctx, const struct vgpuctl_webconf *wc)
{
	STACK_OF(X509_NAME) *names;
	int mode = SSL_VERIFY_PEER;

	if (!SSL_CTX_load_verify_locations(ctx, wc->client_ca_file, NULL))
		return vgpuctl_webconf_error(wc, wc->ca_line,
					     TLS ".client_ca_file: %s: no PEM certificate (%s)",
					     wc->client_ca_file, ssl_reason());
	names = SSL_load_client_CA_file(wc->client_ca_file);
	if (!names)
		return vgpuctl_webconf_error(wc, wc->ca_line,
					     TLS ".client_ca_file: %s: no PEM certificate (%s)",
					     wc->client_ca_file, ssl_reason());
	SSL_CTX_set_client_CA_list(ctx, names);
	if (wc->client_auth == VGPU_WEBCONF_REQUIRE_AND_VERIFY)
		mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
	SSL_CTX_set_verify(ctx, mode, NULL);
	return 0;
}

/* @ctx set up from @wc; 0 or the exit status after an error line. */
static int ctx_setup(SSL_CTX *ctx, const struct vgpuctl_webconf *wc)
{
	static const unsigned char sid[] = "vgpuctl-metrics";

	if (!SSL_CTX_set_min_proto_version(ctx, wc->min_version) ||
	    !SSL_CTX_set_max_proto_version(ctx, wc->max_version))
		return vgpuctl_error("%s: TLS versions: %s", wc->path, ssl_reason());
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET |
			    SSL_OP_CIPHER_SERVER_PREFERENCE);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_num_tickets(ctx, 0);
	SSL_CTX_set_session_id_context(ctx, sid, sizeof(sid) - 1);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
			 SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
	if (SSL_CTX_use_certificate_chain_file(ctx, wc->cert_file) != 1)
		return vgpuctl_webconf_error(wc, wc->cert_line,
					     TLS ".cert_file: %s: no PEM certificate (%s)",
					     wc->cert_file, ssl_reason());
	if (SSL_CTX_use_PrivateKey_file(ctx, wc->key_file, SSL_FILETYPE_PEM) != 1 &&
	    ERR_GET_REASON(ERR_peek_last_error()) != X509_R_KEY_VALUES_MISMATCH)
		return vgpuctl_webconf_error(wc, wc->key_line,
					     TLS ".key_file: %s: no unencrypted PEM private key (%s)",
					     wc->key_file, ssl_reason());
	/* (a key that does not match: refused above by OpenSSL 3, or here) */
	if (SSL_CTX_check_private_key(ctx) != 1)
		return vgpuctl_webconf_error(wc, wc->key_line,
					     TLS ".key_file: %s does not match cert_file %s",
					     wc->key_file, wc->cert_file);
	if (wc->client_ca_file)
		return client_cas(ctx, wc);
	return 0;
}

/**
 * vgpuctl_httpd_tls_ctx() - the TLS context of a web configuration
 * @wc: the configuration, with tls_server_config
 * @ctx: out: the context (free with vgpuctl_httpd_tls_ctx_free())
 *
 * Return: 0, or VGPU_EXIT_ERR after one error line naming the file, line
 * and key at fault.
 */
int vgpuctl_httpd_tls_ctx(const struct vgpuctl_webconf *wc, SSL_CTX **ctx)
{
	SSL_CTX *c = SSL_CTX_new(TLS_server_method());
	int err;

	if (!c)
		return vgpuctl_error("TLS: %s", ssl_reason());
	err = ctx_setup(c, wc);
	ERR_clear_error();
	if (err) {
		SSL_CTX_free(c);
		return err;
	}
	*ctx = c;
	return 0;
}

/** vgpuctl_httpd_tls_ctx_free() - free a TLS context (or NULL). */
void vgpuctl_httpd_tls_ctx_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}

/**
 * vgpuctl_httpd_tls_open() - TLS on a new connection
 * @c: the connection, just accepted
 * @ctx: the context
 *
 * Return: 0, or -1 when out of memory.
 */
int vgpuctl_httpd_tls_open(struct vgpuctl_httpd_conn *c, SSL_CTX *ctx)
{
	c->tls = SSL_new(ctx);
	if (!c->tls || !SSL_set_fd(c->tls, c->fd)) {
		SSL_free(c->tls);
		c->tls = NULL;
		return -1;
	}
	SSL_set_accept_state(c->tls);
	return 0;
}

/* What @r, the return of an SSL call on @c, means: > 0 kept, else -1
 * with *@again set (not yet), or 0 (the connection is done). */
static int outcome(struct vgpuctl_httpd_conn *c, int r, enum vgpuctl_httpd_step *again)
{
	if (r > 0)
		return r;
	switch (SSL_get_error(c->tls, r)) {
	case SSL_ERROR_WANT_READ:
		*again = VGPU_HTTPD_READ;
		return -1;
	case SSL_ERROR_WANT_WRITE:
		*again = VGPU_HTTPD_WRITE;
		return -1;
	default:
		/* (a fatal error: no close_notify may follow) */
		SSL_set_quiet_shutdown(c->tls, 1);
		ERR_clear_error();
		return 0;
	}
}

/**
 * vgpuctl_httpd_tls_accept() - go on with @c's handshake
 * @c: a connection in VGPU_HTTPD_HANDSHAKE
 * @again: out: what it waits for, when not done
 *
 * Return: 1 when done, -1 when it waits (*@again), 0 when it failed (a
 * client that does not speak TLS, a client certificate missing or not
 * verified, a version refused).
 */
int vgpuctl_httpd_tls_accept(struct vgpuctl_httpd_conn *c, enum vgpuctl_httpd_step *again)
{
	ERR_clear_error();
	return outcome(c, SSL_accept(c->tls), again);
}

/**
 * vgpuctl_httpd_tls_recv() - read what has come of @c's request
 * @c: the connection
 * @buf: where
 * @n: at most
 * @again: out: what it waits for, when nothing came
 *
 * Return: the bytes read, -1 when it waits (*@again), 0 when the client
 * closed or failed.
 */
ssize_t vgpuctl_httpd_tls_recv(struct vgpuctl_httpd_conn *c, void *buf, size_t n,
			       enum vgpuctl_httpd_step *again)
{
	ERR_clear_error();
	return outcome(c, SSL_read(c->tls, buf, n > INT32_MAX ? INT32_MAX : (int)n), again);
}

/**
 * vgpuctl_httpd_tls_send() - send what the socket takes of @buf
 * @c: the connection
 * @buf: the rest of the answer (the same again after a wait)
 * @n: its length
 * @again: out: what it waits for, when nothing was sent
 *
 * Return: the bytes sent, -1 when it waits (*@again), 0 when the client
 * went away.
 */
ssize_t vgpuctl_httpd_tls_send(struct vgpuctl_httpd_conn *c, const void *buf, size_t n,
			       enum vgpuctl_httpd_step *again)
{
	ERR_clear_error();
	return outcome(c, SSL_write(c->tls, buf, n > INT32_MAX ? INT32_MAX : (int)n), again);
}

/**
 * vgpuctl_httpd_tls_end() - say close_notify after a whole answer
 * @c: the connection, its answer sent
 *
 * Once, not waited for: the connection is closed next.
 */
void vgpuctl_httpd_tls_end(struct vgpuctl_httpd_conn *c)
{
	ERR_clear_error();
	SSL_shutdown(c->tls);
	ERR_clear_error();
}

/** vgpuctl_httpd_tls_free() - free @c's TLS (its socket is closed after). */
void vgpuctl_httpd_tls_free(struct vgpuctl_httpd_conn *c)
{
	SSL_free(c->tls);
	c->tls = NULL;
}
