// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: syntax of the names and identifiers userspace hands in.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "compat.h"
#include "parse.h"

/**
 * vgpu_uuid_valid() - check a GPU UUID in NVML's form
 * @s: NUL-terminated string
 *
 * NVML writes UUIDs as "GPU-" and 8-4-4-4-12 hex digits, 40 characters
 * in all. Hex digits of either case are accepted; the prefix is literal.
 *
 * Return: true when @s has exactly that form.
 */
bool vgpu_uuid_valid(const char *s)
{
	unsigned int i;

	if (strnlen(s, VGPU_UUID_LEN + 1) != VGPU_UUID_LEN || strncmp(s, "GPU-", 4))
		return false;

	for (i = 4; i < VGPU_UUID_LEN; i++) {
		/* Dashes close the 8, 4, 4 and 4 digit groups. */
		if (i == 12 || i == 17 || i == 22 || i == 27) {
			if (s[i] != '-')
				return false;
		} else if (!isxdigit(s[i])) {
			return false;
		}
	}
	return true;
}

static int vgpu_hex_field(const char *s, unsigned int digits, u32 *val)
{
	unsigned int i;
	u32 v = 0;

	for (i = 0; i < digits; i++) {
		int d = hex_to_bin(s[i]);

		if (d < 0)
			return -EINVAL;
		v = (v << 4) | d;
	}
	*val = v;
	return 0;
}

/**
 * vgpu_pci_normalise() - parse a PCI bus id and write it in sysfs form
 * @s: NUL-terminated "DOMAIN:BB:DD.F", hex digits, a domain of 4 to 8
 *	("0000:3b:00.0", NVML's "00000000:3B:00.0", sysfs's "10000:01:00.0")
 * @out: receives the id as sysfs names the device, lowercase with a
 *	domain of at least 4 digits ("0000:3b:00.0", "10000:01:00.0")
 *
 * The device number must fit in 5 bits and the function in 3, as on the
 * PCI bus. @out is left untouched on error.
 *
 * Return: 0, or -EINVAL when @s is not a bus id.
 */
int vgpu_pci_normalise(const char *s, char out[VGPU_PCI_BUF_LEN])
{
	u32 domain, bus, dev, fn;
	unsigned int dlen;
	size_t len;

	len = strnlen(s, VGPU_PCI_LEN_MAX + 1);
	if (len < 12 || len > 16)
		return -EINVAL;
	dlen = len - 8;		/* ":BB:DD.F" */

	if (vgpu_hex_field(s, dlen, &domain) || s[dlen] != ':')
		return -EINVAL;
	s += dlen + 1;
	if (vgpu_hex_field(s, 2, &bus) || s[2] != ':')
		return -EINVAL;
	s += 3;
	if (vgpu_hex_field(s, 2, &dev) || s[2] != '.')
		return -EINVAL;
	s += 3;
	if (vgpu_hex_field(s, 1, &fn))
		return -EINVAL;
	if (dev > 0x1f || fn > 7)
		return -EINVAL;

	snprintf(out, VGPU_PCI_BUF_LEN, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
	return 0;
}

/**
 * vgpu_name_valid() - check a tenant name
 * @s: NUL-terminated string
 *
 * A name has 1 to VGPU_NAME_LEN_MAX characters, each a printable ASCII
 * character other than space (isgraph() in the C locale).
 *
 * Return: true when @s is a valid name.
 */
bool vgpu_name_valid(const char *s)
{
	size_t len = strnlen(s, VGPU_NAME_LEN_MAX + 1);
	size_t i;

	if (len < 1 || len > VGPU_NAME_LEN_MAX)
		return false;
	for (i = 0; i < len; i++) {
		if (!isascii(s[i]) || !isgraph(s[i]))
			return false;
	}
	return true;
}
