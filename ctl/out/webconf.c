// SPDX-License-Identifier: GPL-2.0
/*
 * The web configuration file (webconf.h): the keys of the
 * exporter-toolkit's format that vgpuctl serves, each checked. A key of
 * the format that vgpuctl does not implement is refused by name ("not
 * supported by vgpuctl"), never ignored: the file asked for something the
 * server would not do. Files are named relative to the configuration
 * file's directory, as the exporter-toolkit does, and must be readable at
 * start; the TLS ones are then loaded by httpd_tls.c.
 */
#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "../vgpuctl.h"
#include "webconf.h"

#define TLS "tls_server_config"
#define USERS "basic_auth_users"

/**
 * vgpuctl_webconf_error() - an error line naming the file and a line of it
 * @wc: the configuration (its path)
 * @line: the line
 * @fmt: the problem, without "Error: " and the final period
 *
 * Return: VGPU_EXIT_ERR.
 */
int vgpuctl_webconf_error(const struct vgpuctl_webconf *wc, unsigned int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	vgpuctl_error_where(wc->path, line);
	vgpuctl_error("%s", msg);
	vgpuctl_error_where(NULL, 0);
	return VGPU_EXIT_ERR;
}

/* @file as named in the configuration: relative to its directory. */
static char *resolve(const char *conf, const char *file)
{
	const char *slash = strrchr(conf, '/');
	char *out;

	if (file[0] == '/' || !slash)
		return strdup(file);
	if (asprintf(&out, "%.*s/%s", (int)(slash - conf), conf, file) < 0)
		return NULL;
	return out;
}

/* A file of tls_server_config: resolved into *@out, which must be unset. */
static int tls_file(struct vgpuctl_webconf *wc, const struct vgpuctl_ynode *n, char **out,
		    unsigned int *line)
{
	*out = resolve(wc->path, n->value);
	*line = n->line;
	return *out ? 0 : vgpuctl_error("%s", strerror(ENOMEM));
}

/* A TLS version's name; 0 when it is not one. */
static int tls_version(const struct vgpuctl_webconf *wc, const struct vgpuctl_ynode *n)
{
	if (!strcmp(n->value, "TLS12"))
		return VGPU_WEBCONF_TLS12;
	if (!strcmp(n->value, "TLS13"))
		return VGPU_WEBCONF_TLS13;
	if (!strcmp(n->value, "TLS10") || !strcmp(n->value, "TLS11"))
		vgpuctl_webconf_error(wc, n->line,
				      TLS ".%s: %s is not supported (TLS12 or TLS13)", n->key,
				      n->value);
	else
		vgpuctl_webconf_error(wc, n->line,
				      TLS ".%s: \"%s\" is not a TLS version (TLS12 or TLS13)",
				      n->key, n->value);
	return 0;
}

static int client_auth(struct vgpuctl_webconf *wc, const struct vgpuctl_ynode *n)
{
	if (!strcmp(n->value, "NoClientCert"))
		wc->client_auth = VGPU_WEBCONF_NO_CLIENT_CERT;
	else if (!strcmp(n->value, "VerifyClientCertIfGiven"))
		wc->client_auth = VGPU_WEBCONF_VERIFY_IF_GIVEN;
	else if (!strcmp(n->value, "RequireAndVerifyClientCert"))
		wc->client_auth = VGPU_WEBCONF_REQUIRE_AND_VERIFY;
	else if (!strcmp(n->value, "RequestClientCert") ||
		 !strcmp(n->value, "RequireAnyClientCert"))
		return vgpuctl_webconf_error(wc, n->line,
					     TLS ".client_auth_type: %s is not supported (it accepts any certificate: use RequireAndVerifyClientCert)",
					     n->value);
	else
		return vgpuctl_webconf_error(wc, n->line,
					     TLS ".client_auth_type: \"%s\" is not one of NoClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert",
					     n->value);
	return 0;
}

/* One key of tls_server_config. */
static int tls_key(struct vgpuctl_webconf *wc, const struct vgpuctl_ynode *n)
{
	static const char *const unsupported[] = {
		"cert", "key", "client_ca", "client_allowed_sans", "cipher_suites",
		"prefer_server_cipher_suites", "curve_preferences",
	};
	size_t i;

	for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++)
		if (!strcmp(n->key, unsupported[i]))
			return vgpuctl_webconf_error(wc, n->line,
						     TLS ".%s: not supported by vgpuctl", n->key);
	if (n->map || n->list)
		return vgpuctl_webconf_error(wc, n->line,
					     TLS ".%s: a %s where a value was expected", n->key,
					     n->map ? "mapping" : "list");
	if (!n->value || !n->value[0])
		return vgpuctl_webconf_error(wc, n->line, TLS ".%s is empty", n->key);
	if (!strcmp(n->key, "cert_file"))
		return tls_file(wc, n, &wc->cert_file, &wc->cert_line);
	if (!strcmp(n->key, "key_file"))
		return tls_file(wc, n, &wc->key_file, &wc->key_line);
	if (!strcmp(n->key, "client_ca_file"))
		return tls_file(wc, n, &wc->client_ca_file, &wc->ca_line);
	if (!strcmp(n->key, "client_auth_type"))
		return client_auth(wc, n);
	if (!strcmp(n->key, "min_version"))
		return (wc->min_version = tls_version(wc, n)) ? 0 : VGPU_EXIT_ERR;
	if (!strcmp(n->key, "max_version"))
		return (wc->max_version = tls_version(wc, n)) ? 0 : VGPU_EXIT_ERR;
	return vgpuctl_webconf_error(wc, n->line, TLS ".%s: unknown key", n->key);
}

/* A file named in tls_server_config can be read. */
static int check_file(const struct vgpuctl_webconf *wc, const char *field, const char *path,
		      unsigned int line)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		if (fd >= 0)
			close(fd);
		return vgpuctl_webconf_error(wc, line,
					     TLS ".%s: cannot read %s: %s", field, path,
					     strerror(err));
	}
	close(fd);
	if (!S_ISREG(st.st_mode))
		return vgpuctl_webconf_error(wc, line,
					     TLS ".%s: %s is not a regular file", field, path);
	return 0;
}

/* tls_server_config: its keys, then what they need of each other. */
static int load_tls(struct vgpuctl_webconf *wc, const struct vgpuctl_ynode *tls)
{
	const struct vgpuctl_ynode *n;
	bool verify;
	int err = 0;

	if (tls->value || tls->list)
		return vgpuctl_webconf_error(wc, tls->line,
					     TLS ": a %s where a mapping was expected",
					     tls->list ? "list" : "value");
	wc->tls = true;
	for (n = tls->child; n && !err; n = n->next)
		err = tls_key(wc, n);
	if (err)
		return err;
	if (!wc->cert_file)
		return vgpuctl_webconf_error(wc, tls->line, TLS ".cert_file is missing");
	if (!wc->key_file)
		return vgpuctl_webconf_error(wc, tls->line, TLS ".key_file is missing");
	verify = wc->client_auth != VGPU_WEBCONF_NO_CLIENT_CERT;
	if (verify && !wc->client_ca_file)
		return vgpuctl_webconf_error(wc, tls->line,
					     TLS ".client_auth_type %s needs client_ca_file",
					     wc->client_auth == VGPU_WEBCONF_VERIFY_IF_GIVEN ?
					     "VerifyClientCertIfGiven" : "RequireAndVerifyClientCert");
	if (!verify && wc->client_ca_file)
		return vgpuctl_webconf_error(wc, wc->ca_line,
					     TLS ".client_ca_file needs client_auth_type RequireAndVerifyClientCert (or VerifyClientCertIfGiven)");
	if (wc->min_version > wc->max_version)
		return vgpuctl_webconf_error(wc, tls->line,
					     TLS ": min_version is above max_version");
	err = check_file(wc, "cert_file", wc->cert_file, wc->cert_line);
	if (!err)
		err = check_file(wc, "key_file", wc->key_file, wc->key_line);
	if (!err && wc->client_ca_file)
		err = check_file(wc, "client_ca_file", wc->client_ca_file, wc->ca_line);
	return err;
}

/**
 * vgpuctl_webconf_bcrypt_ok() - whether @hash is a bcrypt hash libxcrypt takes
 * @hash: "$2y$CC$" and 53 characters of ./A-Za-z0-9 (also $2a$, $2b$),
 *        cost CC 04-31
 *
 * libxcrypt is asked to hash with the same salt at cost 04 (a millisecond),
 * so a setting it would refuse at a scrape is refused at start.
 */
bool vgpuctl_webconf_bcrypt_ok(const char *hash)
{
	static const char b64[] = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	struct crypt_data *cd;
	char setting[64];
	int cost;
	bool ok;

	if (strlen(hash) != 60 || strncmp(hash, "$2", 2) || !strchr("aby", hash[2]) ||
	    hash[3] != '$' || hash[4] < '0' || hash[4] > '3' || hash[5] < '0' || hash[5] > '9' ||
	    hash[6] != '$' || strspn(hash + 7, b64) != 53)
		return false;
	cost = (hash[4] - '0') * 10 + hash[5] - '0';
	if (cost < 4 || cost > 31)
		return false;
	cd = calloc(1, sizeof(*cd));
	if (!cd)
		return false;
	snprintf(setting, sizeof(setting), "%.4s04%s", hash, hash + 6);
	ok = crypt_rn("vgpu", setting, cd, sizeof(*cd)) && cd->output[0] == '$';
	free(cd);
	return ok;
}

/* basic_auth_users: user: bcrypt hash. */
static int load_users(struct vgpuctl_webconf *wc, const struct vgpuctl_ynode *users)
{
	const struct vgpuctl_ynode *n;
	struct vgpuctl_webconf_user *u;
	size_t count = 0;

	if (users->value || users->list)
		return vgpuctl_webconf_error(wc, users->line,
					     USERS ": a value where a mapping of USER: BCRYPT-HASH was expected");
	for (n = users->child; n; n = n->next)
		count++;
	if (!count)
		return vgpuctl_webconf_error(wc, users->line,
					     USERS " is empty (leave it out to serve without authentication)");
	wc->users = calloc(count, sizeof(*wc->users));
	if (!wc->users)
		return vgpuctl_error("%s", strerror(ENOMEM));
	for (n = users->child; n; n = n->next) {
		if (!n->key[0] || strchr(n->key, ':'))
			return vgpuctl_webconf_error(wc, n->line,
						     USERS ": \"%s\" is not a user name (not empty, no ':')",
						     n->key);
		if (n->map || n->list || !n->value)
			return vgpuctl_webconf_error(wc, n->line,
						     USERS ".%s: a bcrypt hash was expected", n->key);
		if (!vgpuctl_webconf_bcrypt_ok(n->value))
			return vgpuctl_webconf_error(wc, n->line,
						     USERS ".%s: not a bcrypt hash ($2y$, $2b$ or $2a$, a cost of 04-31, 53 characters of ./A-Za-z0-9: htpasswd -nBC 10 USER)",
						     n->key);
		u = &wc->users[wc->nusers++];
		u->name = strdup(n->key);
		u->hash = strdup(n->value);
		if (!u->name || !u->hash)
			return vgpuctl_error("%s", strerror(ENOMEM));
	}
	return 0;
}

/**
 * vgpuctl_webconf_load() - read and check a web configuration file
 * @path: the file
 * @wc: out: what it says (free with vgpuctl_webconf_free())
 *
 * Return: 0, or VGPU_EXIT_ERR after one error line naming the file, the
 * line and the key (@wc then holds nothing).
 */
int vgpuctl_webconf_load(const char *path, struct vgpuctl_webconf *wc)
{
	struct vgpuctl_ynode *root, *n;
	int err;

	memset(wc, 0, sizeof(*wc));
	wc->min_version = VGPU_WEBCONF_TLS12;
	wc->max_version = VGPU_WEBCONF_TLS13;
	err = vgpuctl_yaml_load(path, &root);
	if (err)
		return err;
	wc->path = strdup(path);
	if (!wc->path)
		err = vgpuctl_error("%s", strerror(ENOMEM));
	for (n = root->child; n && !err; n = n->next) {
		if (!strcmp(n->key, TLS))
			err = load_tls(wc, n);
		else if (!strcmp(n->key, USERS))
			err = load_users(wc, n);
		else if (!strcmp(n->key, "http_server_config") || !strcmp(n->key, "rate_limit"))
			err = vgpuctl_webconf_error(wc, n->line,
						    "%s: not supported by vgpuctl", n->key);
		else
			err = vgpuctl_webconf_error(wc, n->line, "%s: unknown key", n->key);
	}
	if (!err && !wc->tls && !wc->nusers)
		err = vgpuctl_webconf_error(wc, 1,
					    "neither " TLS " nor " USERS ": the file changes nothing");
	vgpuctl_yaml_free(root);
	if (err)
		vgpuctl_webconf_free(wc);
	return err;
}

/**
 * vgpuctl_webconf_free() - free what vgpuctl_webconf_load() gave
 * @wc: the configuration
 */
void vgpuctl_webconf_free(struct vgpuctl_webconf *wc)
{
	size_t i;

	for (i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	free(wc->cert_file);
	free(wc->key_file);
	free(wc->client_ca_file);
	free(wc->path);
	memset(wc, 0, sizeof(*wc));
}
