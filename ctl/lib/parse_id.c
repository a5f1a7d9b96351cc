// SPDX-License-Identifier: GPL-2.0
/*
 * Pure parsers of the identifiers vgpuctl takes (see parse.h): GPU UUIDs,
 * PCI bus ids (checked, and normalised as sysfs and the kernel write
 * them) and tenant names. Kept apart from parse.c (numbers, sizes, lists)
 * with the same rules: no I/O, 0 or -1, *out untouched on error.
 */
#include <stdio.h>
#include <string.h>

#include "../../uapi/vgpu.h"
#include "parse.h"
#include "spec_gen.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Check that @s is exactly @n hex digits followed by @end; advance it. */
static bool hex_run(const char **s, unsigned int n, char end)
{
	const char *p = *s;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!is_xdigit(p[i]))
			return false;
	if (p[n] != end)
		return false;
	*s = p + n + (end ? 1 : 0);
	return true;
}

/**
 * vgpuctl_parse_uuid() - check an NVML GPU UUID
 * @s: "GPU-" and 8-4-4-4-12 hex digits (VGPU_UUID_LEN characters)
 *
 * Return: 0 when well formed, else -1.
 */
int vgpuctl_parse_uuid(const char *s)
{
	if (strncmp(s, "GPU-", 4))
		return -1;
	s += 4;
	if (!hex_run(&s, 8, '-') || !hex_run(&s, 4, '-') ||
	    !hex_run(&s, 4, '-') || !hex_run(&s, 4, '-') ||
	    !hex_run(&s, 12, '\0'))
		return -1;
	return 0;
}

/**
 * vgpuctl_parse_busid() - check a PCI bus id
 * @s: "DOMAIN:BB:DD.F", hex digits, a domain of 4 to 8 (as the kernel
 *     takes it: kmod/parse.c)
 *
 * Return: 0 when well formed, else -1.
 */
int vgpuctl_parse_busid(const char *s)
{
	size_t len = strlen(s);

	if (len < 12 || len > VGPU_CHECK_GPU_PCI_MAX_LEN)
		return -1;
	if (!hex_run(&s, len - 8, ':') || !hex_run(&s, 2, ':') ||
	    !hex_run(&s, 2, '.') || !hex_run(&s, 1, '\0'))
		return -1;
	return 0;
}

/* The value of a run of 1 to @max hex digits ending at @end; advance *s. */
static int hex_field(const char **s, unsigned int max, char end, unsigned long *out)
{
	const char *p = *s;
	unsigned long v = 0;
	unsigned int n;

	for (n = 0; is_xdigit(p[n]); n++) {
		if (n == max)
			return -1;
		v = v * 16 + (unsigned long)(is_digit(p[n]) ? p[n] - '0' :
					     (p[n] | 0x20) - 'a' + 10);
	}
	if (!n || p[n] != end)
		return -1;
	*s = p + n + (end ? 1 : 0);
	*out = v;
	return 0;
}

/**
 * vgpuctl_busid_norm() - a PCI bus id in the form sysfs and vgpu use
 * @s: DOMAIN:BB:DD.F in hex, either case, domain of 1 to 8 digits (NVML
 *     writes "00000000:3B:00.0")
 * @out: "0000:3b:00.0": lowercase, a domain of at least 4 digits, as the
 *     kernel and sysfs print it ("%04x": "10000:01:00.0")
 * @outlen: size of @out (17 is always enough)
 *
 * Return: 0, or -1 when @s is malformed or @out too small.
 */
int vgpuctl_busid_norm(const char *s, char *out, size_t outlen)
{
	unsigned long dom, bus, dev, fn;
	int n;

	if (hex_field(&s, 8, ':', &dom) || hex_field(&s, 2, ':', &bus) ||
	    hex_field(&s, 2, '.', &dev) || hex_field(&s, 1, '\0', &fn) ||
	    dev > 0x1f || fn > 7)
		return -1;
	n = snprintf(out, outlen, "%04lx:%02lx:%02lx.%lx", dom, bus, dev, fn);
	return n < 0 || (size_t)n >= outlen ? -1 : 0;
}

/**
 * vgpuctl_parse_name() - check a tenant name
 * @s: 1 to VGPU_NAME_LEN_MAX printable ASCII characters, no space
 *
 * Return: 0 when valid, else -1.
 */
int vgpuctl_parse_name(const char *s)
{
	size_t len = strlen(s), i;

	if (!len || len > VGPU_CHECK_TENANT_NAME_MAX_LEN)
		return -1;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return -1;
	return 0;
}
