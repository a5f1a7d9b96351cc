// SPDX-License-Identifier: GPL-2.0
/*
 * VGPU_GPUS=auto:N: a process asks vgpu.ko to choose N of its tenant's
 * GPUs when it registers (proc-register's gpus-auto); the module denies
 * it the others and libvgpu's device view shows only the chosen ones.
 * Pure parsing, also under ASan/UBSan in test-logic-asan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../uapi/vgpu.h"
#include "gpureq.h"

int libvgpu_gpureq_parse(const char *v, uint32_t *n)
{
	static const char pfx[] = "auto:";
	unsigned long k;
	char *end;

	*n = 0;
	if (!v || !*v)
		return 0;
	if (strncmp(v, pfx, sizeof(pfx) - 1))
		return -EINVAL;
	v += sizeof(pfx) - 1;
	/* strtoul would take a sign or leading blanks: digits only. */
	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	k = strtoul(v, &end, 10);
	if (errno || *end || k < 1 || k > VGPU_GPU_MAX)
		return -EINVAL;
	*n = (uint32_t)k;
	return 0;
}
