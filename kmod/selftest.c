// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: self-tests of the pure helpers, run at every module load.
 * They take microseconds; a failure stops the load.
 */
#include <linux/kernel.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "parse.h"
#include "vgpu.h"

static const struct {
	const char *s;
	bool ok;
} vgpu_uuid_cases[] = {
	{ "GPU-12345678-9abc-def0-1234-56789abcdef0", true },
	{ "GPU-ABCDEF01-2345-6789-ABCD-EF0123456789", true },
	{ "GPU-12345678-9abc-def0-1234-56789abcdef", false },	/* 39 chars */
	{ "GPU-12345678-9abc-def0-1234-56789abcdef01", false },	/* 41 chars */
	{ "gpu-12345678-9abc-def0-1234-56789abcdef0", false },
	{ "MIG-12345678-9abc-def0-1234-56789abcdef0", false },
	{ "GPU-1234567-89abc-def0-1234-56789abcdef0", false },
	{ "GPU-12345678-9abc-def0-1234-56789abcdeg0", false },
	{ "GPU-12345678x9abc-def0-1234-56789abcdef0", false },
	{ "", false },
};

static const struct {
	const char *s;
	const char *norm;	/* NULL: invalid */
} vgpu_pci_cases[] = {
	{ "0000:3b:00.0", "0000:3b:00.0" },
	{ "0000:3B:00.0", "0000:3b:00.0" },
	{ "00000000:3b:00.0", "0000:3b:00.0" },
	{ "0001abcd:FF:1f.7", "1abcd:ff:1f.7" },
	{ "000A:01:02.3", "000a:01:02.3" },
	{ "0000:3b:20.0", NULL },	/* device over 0x1f */
	{ "0000:3b:00.8", NULL },	/* function over 7 */
	{ "000:3b:00.0", NULL },
	{ "00000:3b:00.0", "0000:3b:00.0" },
	{ "1abcd:ff:1f.7", "1abcd:ff:1f.7" },	/* as sysfs prints it */
	{ "000000000:3b:00.0", NULL },
	{ "0000-3b:00.0", NULL },
	{ "0000:3b.00.0", NULL },
	{ "0000:3b:00:0", NULL },
	{ "0000:3g:00.0", NULL },
	{ "0000:3b:00.0 ", NULL },
	{ "3b:00.0", NULL },
	{ "", NULL },
};

static const struct {
	const char *s;
	bool ok;
} vgpu_name_cases[] = {
	{ "a", true },
	{ "team-a", true },
	{ "T_1.x@y!~", true },
	{ "123456789012345678901234567890123456789012345678901234567890123", true },
	{ "1234567890123456789012345678901234567890123456789012345678901234", false },
	{ "", false },
	{ "team a", false },
	{ "team\ta", false },
	{ "caf\xc3\xa9", false },
	{ "x\x7f", false },
};

/**
 * vgpu_selftest() - check the parsing helpers against known answers
 *
 * Return: 0, or -EINVAL after logging every case that failed.
 */
int vgpu_selftest(void)
{
	char out[VGPU_PCI_BUF_LEN];
	unsigned int i;
	int fails = 0;

	for (i = 0; i < ARRAY_SIZE(vgpu_uuid_cases); i++) {
		if (vgpu_uuid_valid(vgpu_uuid_cases[i].s) != vgpu_uuid_cases[i].ok) {
			pr_err("vgpu: selftest: uuid \"%s\"\n", vgpu_uuid_cases[i].s);
			fails++;
		}
	}

	for (i = 0; i < ARRAY_SIZE(vgpu_pci_cases); i++) {
		const char *norm = vgpu_pci_cases[i].norm;
		int err;

		strscpy(out, "unset", sizeof(out));
		err = vgpu_pci_normalise(vgpu_pci_cases[i].s, out);
		if (norm ? err || strcmp(out, norm) : !err || strcmp(out, "unset")) {
			pr_err("vgpu: selftest: pci \"%s\" gave %d \"%s\"\n",
			       vgpu_pci_cases[i].s, err, out);
			fails++;
		}
	}

	for (i = 0; i < ARRAY_SIZE(vgpu_name_cases); i++) {
		if (vgpu_name_valid(vgpu_name_cases[i].s) != vgpu_name_cases[i].ok) {
			pr_err("vgpu: selftest: name \"%s\"\n", vgpu_name_cases[i].s);
			fails++;
		}
	}

	return fails ? -EINVAL : 0;
}
