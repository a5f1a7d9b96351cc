// SPDX-License-Identifier: GPL-2.0
/*
 * The node-list parser (nodelist.h). The grammar is cpuset's list format
 * without strides: item (',' item)*, item = N | N '-' M with N <= M,
 * decimal. Pure, so that it runs under ASan/UBSan in the host tests.
 */
#include <errno.h>
#include <string.h>

#include "nodelist.h"

/* A decimal number at *p, at most max; advances *p. 0 or -errno. */
static int number(const char **p, unsigned int max, unsigned int *out)
{
	unsigned long v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return -ERANGE;
	}
	*p = s;
	*out = (unsigned int)v;
	return 0;
}

static int is_space(char c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

int libvgpu_nodelist_parse(const char *s, uint64_t *mask, unsigned int nbits)
{
	unsigned int words = (nbits + 63) / 64;
	const char *end;
	int n = 0, rc;

	memset(mask, 0, words * sizeof(*mask));
	if (!s || !nbits)
		return -EINVAL;
	end = s + strlen(s);
	while (end > s && is_space(end[-1]))
		end--;
	if (end == s)
		return 0;
	for (;;) {
		unsigned int a, b;

		rc = number(&s, nbits - 1, &a);
		if (rc)
			goto bad;
		b = a;
		if (*s == '-') {
			s++;
			rc = number(&s, nbits - 1, &b);
			if (rc)
				goto bad;
			if (b < a) {
				rc = -EINVAL;
				goto bad;
			}
		}
		for (unsigned int i = a; i <= b; i++) {
			uint64_t bit = 1ULL << (i % 64);

			if (!(mask[i / 64] & bit)) {
				mask[i / 64] |= bit;
				n++;
			}
		}
		if (s == end)
			return n;
		if (*s != ',') {
			rc = -EINVAL;
			goto bad;
		}
		s++;
	}
bad:
	memset(mask, 0, words * sizeof(*mask));
	return rc;
}

int libvgpu_nodelist_last(const uint64_t *mask, unsigned int nbits)
{
	for (int i = (int)nbits - 1; i >= 0; i--)
		if (mask[i / 64] & (1ULL << (i % 64)))
			return i;
	return -1;
}
