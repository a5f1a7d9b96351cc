/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The web configuration file of vgpuctl metrics --listen
 * (--web.config.file FILE): the format of Prometheus' exporter-toolkit,
 * of which vgpuctl reads a subset (Documentation/metrics.md, "Who reads
 * the port"):
 *
 *   tls_server_config:
 *     cert_file: server.crt          # relative: to FILE's directory
 *     key_file: server.key
 *     client_auth_type: RequireAndVerifyClientCert
 *     client_ca_file: clients-ca.crt
 *     min_version: TLS13
 *   basic_auth_users:
 *     prometheus: $2y$10$...         # bcrypt (htpasswd -nBC 10 "" | tr -d ':\n')
 *
 *   webconf_yaml.c  the YAML it is written in: block mappings of scalars
 *   webconf.c       what the keys mean, checked
 *
 * Anything else (an unknown or unsupported key, a list, a flow
 * mapping other than {}, an anchor, a tag, a block scalar, a bad
 * value, a file that cannot be read) is one error line, "Error:
 * FILE:LINE: ...", and the server does not start.
 */
#ifndef VGPU_CTL_WEBCONF_H
#define VGPU_CTL_WEBCONF_H

#include <stdbool.h>
#include <stddef.h>

/* Largest web configuration file read, in bytes. */
#define VGPU_WEBCONF_FILE_MAX	(64 << 10)
/* Deepest nesting of mappings (the format needs 2). */
#define VGPU_WEBCONF_DEPTH_MAX	4

/* One entry of a mapping: KEY: VALUE, or KEY: and a nested mapping. */
struct vgpuctl_ynode {
	char *key;
	char *value;		/* a scalar; NULL: a mapping, or nothing (null) */
	bool map;		/* a mapping ("{}" or indented entries below) */
	bool list;		/* a list (not read: refused by its key) */
	unsigned int line;
	struct vgpuctl_ynode *child;	/* a mapping's entries, in file order */
	struct vgpuctl_ynode *next;
};

int vgpuctl_yaml_load(const char *path, struct vgpuctl_ynode **root);
void vgpuctl_yaml_free(struct vgpuctl_ynode *n);

/* client_auth_type */
enum vgpuctl_webconf_client {
	VGPU_WEBCONF_NO_CLIENT_CERT,
	VGPU_WEBCONF_VERIFY_IF_GIVEN,		/* VerifyClientCertIfGiven */
	VGPU_WEBCONF_REQUIRE_AND_VERIFY,	/* RequireAndVerifyClientCert */
};

/* TLS versions, as OpenSSL numbers them (TLS1_2_VERSION, TLS1_3_VERSION). */
#define VGPU_WEBCONF_TLS12	0x0303
#define VGPU_WEBCONF_TLS13	0x0304

/* A user of basic_auth_users. */
struct vgpuctl_webconf_user {
	char *name;
	char *hash;		/* bcrypt: $2a$, $2b$ or $2y$ */
};

/* A web configuration file, checked. */
struct vgpuctl_webconf {
	char *path;
	bool tls;			/* tls_server_config given */
	char *cert_file, *key_file, *client_ca_file;	/* resolved paths */
	unsigned int cert_line, key_line, ca_line;	/* where they were named */
	enum vgpuctl_webconf_client client_auth;
	int min_version, max_version;	/* VGPU_WEBCONF_TLS12 or 13 */
	struct vgpuctl_webconf_user *users;
	size_t nusers;			/* 0: no basic authentication */
};

int vgpuctl_webconf_load(const char *path, struct vgpuctl_webconf *wc);
void vgpuctl_webconf_free(struct vgpuctl_webconf *wc);
bool vgpuctl_webconf_bcrypt_ok(const char *hash);
int vgpuctl_webconf_error(const struct vgpuctl_webconf *wc, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* VGPU_CTL_WEBCONF_H */
