// SPDX-License-Identifier: GPL-2.0
/*
 * The YAML of the web configuration file (webconf.h): a strict subset,
 * enough for the exporter-toolkit's format and nothing more.
 *
 *   - block mappings, nested by indentation with spaces (a tab there is
 *     refused); "{}" as an empty mapping;
 *   - scalars plain, 'single-quoted' ('' a quote) or "double-quoted"
 *     (escapes \" \\ \/ \t only), on one line; ~ and null are nothing;
 *   - comments from a '#' at a line's start or after a blank; a "---"
 *     first line; CRLF line ends.
 *
 * A list ("- x" items below a key, or "[...]") is not read: its key is
 * marked, for webconf.c to refuse by name. Refused here, naming the line:
 * a list anywhere else, a flow mapping that is not empty, an anchor, alias
 * or tag, a block scalar (| or >), a duplicate key, a plain scalar holding
 * ": ", a control character, a file over VGPU_WEBCONF_FILE_MAX bytes or
 * nested past VGPU_WEBCONF_DEPTH_MAX. What is not read here as YAML is
 * never guessed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include "../vgpuctl.h"
#include "webconf.h"

/* A line that holds something: its number, indent and text after it. */
struct yline {
	unsigned int no;
	int indent;
	char *text;
};

struct yparse {
	const char *path;
	struct yline *lines;
	size_t n;
};

/* An error at @line of @path; VGPU_EXIT_ERR. */
static int yerr(const char *path, unsigned int line, const char *what)
{
	vgpuctl_error_where(path, line);
	vgpuctl_error("%s", what);
	vgpuctl_error_where(NULL, 0);
	return VGPU_EXIT_ERR;
}

/* The whole file, NUL-terminated; 0 or the exit status after an error line. */
static int read_all(const char *path, char **out)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return vgpuctl_error("cannot read the web configuration %s: %s", path,
				     strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > VGPU_WEBCONF_FILE_MAX) {
		close(fd);
		return vgpuctl_error("the web configuration %s is not a regular file of at most %d bytes",
				     path, VGPU_WEBCONF_FILE_MAX);
	}
	buf = malloc(VGPU_WEBCONF_FILE_MAX + 2);
	while (buf && (r = read(fd, buf + len, VGPU_WEBCONF_FILE_MAX + 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	if (!buf || len > VGPU_WEBCONF_FILE_MAX) {
		free(buf);
		return vgpuctl_error("cannot read the web configuration %s: %s", path,
				     buf ? "it grew past the limit" : strerror(ENOMEM));
	}
	if (memchr(buf, '\0', len)) {
		free(buf);
		return vgpuctl_error("the web configuration %s holds a NUL byte", path);
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

/* Cut @buf into the lines that hold something; 0 or the exit status. */
static int split_lines(struct yparse *y, char *buf)
{
	unsigned int no = 0;
	char *s = buf, *eol, *t;

	if (!strncmp(s, "\xef\xbb\xbf", 3))
		s += 3;				/* a UTF-8 byte order mark */
	for (; *s; s = eol) {
		eol = s + strcspn(s, "\n");
		if (*eol)
			*eol++ = '\0';
		no++;
		if (*s && s[strlen(s) - 1] == '\r')
			s[strlen(s) - 1] = '\0';
		for (t = s; *t; t++)
			if ((unsigned char)*t < 0x20 && *t != '\t')
				return yerr(y->path, no, "a control character");
		t = s + strspn(s, " \t");
		if (!*t || *t == '#' || (!y->n && !strcmp(s, "---")))
			continue;
		if (s[strspn(s, " ")] == '\t')
			return yerr(y->path, no, "a tab in the indentation (YAML indents with spaces)");
		y->lines[y->n++] = (struct yline){ no, (int)(strspn(s, " ")), s + strspn(s, " ") };
	}
	return 0;
}

/* Strip a comment (from a blank then '#') and trailing blanks of plain @s. */
static void plain_end(char *s)
{
	char *h;
	size_t n;

	for (h = s; (h = strchr(h, '#')); h++)
		if (h > s && (h[-1] == ' ' || h[-1] == '\t')) {
			*h = '\0';
			break;
		}
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
}

/*
 * A quoted scalar at *@s: unquoted in place (it only shrinks), *@s moved
 * past its closing quote; NULL with @why set when it is malformed.
 */
static char *unquote(char **s, const char **why)
{
	char q = **s, *in = *s + 1, *out = *s, *start = *s;

	for (; *in; in++) {
		if (*in == q && q == '\'' && in[1] == '\'') {
			*out++ = *in++;
		} else if (*in == q) {
			*out = '\0';
			*s = in + 1;
			return start;
		} else if (*in == '\\' && q == '"') {
			in++;
			if (*in == 't')
				*out++ = '\t';
			else if (*in == '"' || *in == '\\' || *in == '/')
				*out++ = *in;
			else {
				*why = "an escape other than \\\" \\\\ \\/ \\t in a double-quoted scalar";
				return NULL;
			}
		} else {
			*out++ = *in;
		}
	}
	*why = "a quoted scalar not closed on its line";
	return NULL;
}

/* Past a quoted scalar: only blanks or a comment may follow. */
static bool rest_empty(const char *s)
{
	s += strspn(s, " \t");
	return !*s || *s == '#';
}

/* The key of @l's entry, unquoted; *@rest what follows its ':'. */
static char *parse_key(const struct yparse *y, struct yline *l, char **rest)
{
	char *s = l->text, *k, *colon;
	const char *why = NULL;

	if (*s == '"' || *s == '\'') {
		k = unquote(&s, &why);
		if (!k)
			return yerr(y->path, l->no, why), NULL;
		if (*s != ':' || (s[1] && s[1] != ' ' && s[1] != '\t'))
			return yerr(y->path, l->no, "expected KEY: VALUE"), NULL;
		*rest = s + 1;
		return k;
	}
	if (strchr("?:,[]{}#&*!|>%@`", *s))
		return yerr(y->path, l->no,
			    "flow collections, anchors, aliases, tags and complex keys are not supported"),
		       NULL;
	for (colon = s; (colon = strchr(colon, ':')); colon++)
		if (!colon[1] || colon[1] == ' ' || colon[1] == '\t')
			break;
	if (!colon)
		return yerr(y->path, l->no, "expected KEY: VALUE"), NULL;
	*colon = '\0';
	*rest = colon + 1;
	if (strstr(s, " #") || strstr(s, "\t#"))
		return yerr(y->path, l->no, "expected KEY: VALUE"), NULL;
	plain_end(s);
	return s;
}

/* @n's value from @s, what follows the key's ':'; 0 or the exit status. */
static int parse_value(const struct yparse *y, struct yline *l, char *s,
		       struct vgpuctl_ynode *n)
{
	const char *why = NULL;

	s += strspn(s, " \t");
	if (!*s || *s == '#')
		return 0;
	if (*s == '"' || *s == '\'') {
		n->value = unquote(&s, &why);
		if (!n->value)
			return yerr(y->path, l->no, why);
		return rest_empty(s) ? 0 : yerr(y->path, l->no, "text after a quoted scalar");
	}
	if (*s == '{') {
		s += 1 + strspn(s + 1, " ");
		if (*s != '}' || !rest_empty(s + 1))
			return yerr(y->path, l->no, "a flow mapping other than {}: not supported");
		n->map = true;
		return 0;
	}
	if (*s == '[') {
		n->list = true;		/* (its items are not read) */
		return 0;
	}
	if (*s == '-' && (!s[1] || s[1] == ' '))
		return yerr(y->path, l->no, "a list: not supported here");
	if (strchr("&*!|>%@`", *s))
		return yerr(y->path, l->no,
			    "flow mappings, anchors, aliases, tags and block scalars are not supported");
	plain_end(s);
	if (strstr(s, ": ") || strstr(s, ":\t"))
		return yerr(y->path, l->no, "a plain scalar holding \": \" (quote it)");
	if (strcmp(s, "~") && strcmp(s, "null") && strcmp(s, "Null") && strcmp(s, "NULL"))
		n->value = s;
	return 0;
}

static int parse_map(struct yparse *y, size_t *i, int indent, struct vgpuctl_ynode *parent,
		     int depth);
static bool is_item(const char *text);

/*
 * The block list of @n from line *@i, at @key_indent's level or below:
 * its items, and what they hold, passed over; @n marked a list.
 */
static int skip_list(struct yparse *y, size_t *i, struct vgpuctl_ynode *n, int key_indent)
{
	int ind = y->lines[*i].indent;

	n->list = true;
	while (*i < y->n && (y->lines[*i].indent > ind ||
			     (y->lines[*i].indent == ind && is_item(y->lines[*i].text))))
		(*i)++;
	if (*i < y->n && y->lines[*i].indent > key_indent)
		return yerr(y->path, y->lines[*i].no, "unexpected indentation");
	return 0;
}

/* Whether @text is a block list's item ("- ..."). */
static bool is_item(const char *text)
{
	return text[0] == '-' && (!text[1] || text[1] == ' ');
}

/* The entry of line *@i into @parent (after @tail), and its nested mapping. */
static int parse_entry(struct yparse *y, size_t *i, struct vgpuctl_ynode *parent,
		       struct vgpuctl_ynode ***tail, int depth)
{
	struct yline *l = &y->lines[*i];
	struct vgpuctl_ynode *n, *o;
	char *rest, *key;

	if (is_item(l->text)) {
		vgpuctl_error_where(y->path, l->no);
		vgpuctl_error("%s%sa list (\"- ...\"): not supported", depth ? parent->key : "",
			      depth ? ": " : "");
		vgpuctl_error_where(NULL, 0);
		return VGPU_EXIT_ERR;
	}
	key = parse_key(y, l, &rest);
	if (!key)
		return VGPU_EXIT_ERR;
	for (o = parent->child; o; o = o->next)
		if (!strcmp(o->key, key))
			return yerr(y->path, l->no, "a duplicate key");
	n = calloc(1, sizeof(*n));
	if (!n)
		return vgpuctl_error("%s", strerror(ENOMEM));
	n->key = key;
	n->line = l->no;
	**tail = n;
	*tail = &n->next;
	if (parse_value(y, l, rest, n))
		return VGPU_EXIT_ERR;
	(*i)++;
	if (*i < y->n && !n->value && !n->map && !n->list && is_item(y->lines[*i].text) &&
	    y->lines[*i].indent >= l->indent)
		return skip_list(y, i, n, l->indent);
	if (*i >= y->n || y->lines[*i].indent <= l->indent)
		return 0;
	if (n->value || n->map || n->list)
		return yerr(y->path, y->lines[*i].no, "unexpected indentation");
	if (depth >= VGPU_WEBCONF_DEPTH_MAX)
		return yerr(y->path, y->lines[*i].no, "nested too deep");
	n->map = true;
	return parse_map(y, i, y->lines[*i].indent, n, depth + 1);
}

/* The entries at @indent from line *@i on, into @parent. */
static int parse_map(struct yparse *y, size_t *i, int indent, struct vgpuctl_ynode *parent,
		     int depth)
{
	struct vgpuctl_ynode **tail = &parent->child;
	int err;

	while (*i < y->n && y->lines[*i].indent >= indent) {
		if (y->lines[*i].indent > indent)
			return yerr(y->path, y->lines[*i].no, "unexpected indentation");
		err = parse_entry(y, i, parent, &tail, depth);
		if (err)
			return err;
	}
	if (*i < y->n && depth == 0)
		return yerr(y->path, y->lines[*i].no, "unexpected indentation");
	return 0;
}

/**
 * vgpuctl_yaml_load() - read a YAML file of block mappings (see above)
 * @path: the file
 * @root: out: a mapping whose entries are the file's top level (its
 *        key is the file's text, which the others point into; free it
 *        with vgpuctl_yaml_free())
 *
 * Return: 0, or VGPU_EXIT_ERR after one error line.
 */
int vgpuctl_yaml_load(const char *path, struct vgpuctl_ynode **root)
{
	struct yparse y = { .path = path };
	struct vgpuctl_ynode *r;
	char *buf = NULL;
	size_t i = 0, nl;
	int err = read_all(path, &buf);

	if (err)
		return err;
	for (nl = 1, i = 0; buf[i]; i++)
		nl += buf[i] == '\n';
	y.lines = calloc(nl, sizeof(*y.lines));
	r = calloc(1, sizeof(*r));
	if (!y.lines || !r) {
		free(y.lines);
		free(r);
		free(buf);
		return vgpuctl_error("%s", strerror(ENOMEM));
	}
	r->map = true;
	r->key = buf;			/* the text every node points into */
	i = 0;
	err = split_lines(&y, buf);
	if (!err && y.n && y.lines[0].indent)
		err = yerr(path, y.lines[0].no, "unexpected indentation");
	if (!err)
		err = parse_map(&y, &i, 0, r, 0);
	free(y.lines);
	if (err) {
		vgpuctl_yaml_free(r);
		return err;
	}
	*root = r;
	return 0;
}

static void free_nodes(struct vgpuctl_ynode *n)
{
	struct vgpuctl_ynode *next;

	for (; n; n = next) {
		next = n->next;
		free_nodes(n->child);
		free(n);
	}
}

/**
 * vgpuctl_yaml_free() - free what vgpuctl_yaml_load() gave
 * @root: its root, or NULL
 */
void vgpuctl_yaml_free(struct vgpuctl_ynode *root)
{
	if (!root)
		return;
	free_nodes(root->child);
	free(root->key);
	free(root);
}
