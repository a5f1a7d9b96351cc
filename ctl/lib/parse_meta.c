// SPDX-License-Identifier: GPL-2.0
/*
 * Pure parsers and formatters of a tenant's metadata: labels
 * ("KEY=VALUE", checked as vgpu.ko checks them) and times (ns since the
 * epoch, printed in UTC). See parse.h.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "parse.h"

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/**
 * vgpuctl_label_key_ok() - whether a string may be a label key
 * @key: the string
 *
 * Return: true for 1 to VGPU_LABEL_KEY_LEN_MAX letters, digits and
 * "._/-", the first a letter or a digit.
 */
bool vgpuctl_label_key_ok(const char *key)
{
	size_t i;

	if (!is_alnum(key[0]))
		return false;
	for (i = 0; key[i]; i++)
		if (i >= VGPU_LABEL_KEY_LEN_MAX || (!is_alnum(key[i]) && !strchr("._/-", key[i])))
			return false;
	return true;
}

/**
 * vgpuctl_label_value_ok() - whether a string may be a label value
 * @value: the string (empty allowed: it removes the key in tenant set)
 *
 * Return: true for at most VGPU_LABEL_VALUE_LEN_MAX printable ASCII
 * characters.
 */
bool vgpuctl_label_value_ok(const char *value)
{
	size_t i;

	for (i = 0; value[i]; i++)
		if (i >= VGPU_LABEL_VALUE_LEN_MAX || value[i] < 0x20 || value[i] > 0x7e)
			return false;
	return true;
}

/**
 * vgpuctl_parse_label() - split "KEY=VALUE" at the first '='
 * @s: the argument
 * @key: out, VGPU_LABEL_KEY_LEN_MAX + 1 bytes
 * @value: out, VGPU_LABEL_VALUE_LEN_MAX + 1 bytes; "" for "KEY="
 *
 * Return: 0; -1 without '=' or with a bad key, -2 with a bad value
 * (nothing written on error).
 */
int vgpuctl_parse_label(const char *s, char *key, char *value)
{
	char k[VGPU_LABEL_KEY_LEN_MAX + 1];
	const char *eq = strchr(s, '=');
	size_t klen;

	if (!eq)
		return -1;
	klen = (size_t)(eq - s);
	if (!klen || klen > VGPU_LABEL_KEY_LEN_MAX)
		return -1;
	memcpy(k, s, klen);
	k[klen] = '\0';
	if (!vgpuctl_label_key_ok(k))
		return -1;
	if (!vgpuctl_label_value_ok(eq + 1))
		return -2;
	memcpy(key, k, klen + 1);
	strcpy(value, eq + 1);
	return 0;
}

/**
 * vgpuctl_format_time() - a time as UTC to the millisecond
 * @ns: ns since the Unix epoch
 * @out: "2026-11-24T13:08:48.123Z"
 * @outlen: size of @out (32 is always enough)
 */
void vgpuctl_format_time(uint64_t ns, char *out, size_t outlen)
{
	time_t secs = (time_t)(ns / 1000000000ULL);
	unsigned int ms = (unsigned int)(ns % 1000000000ULL / 1000000);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || !strftime(out, outlen, "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(out, outlen, "%llu", (unsigned long long)ns);
		return;
	}
	snprintf(out + strlen(out), outlen - strlen(out), ".%03uZ", ms);
}
