// SPDX-License-Identifier: GPL-2.0
/*
 * SIMGPU_SELFCALL=plt: some entry points call a sibling export instead of
 * simgpu's internal function, through the dynamic linker, as a driver
 * built without -Bsymbolic calls its own exports (an interposer such as
 * libvgpu then sees the inner call too):
 *   cuGetProcAddress        -> cuGetProcAddress_v2
 *   cuMemAlloc (legacy)     -> cuMemAlloc_v2
 *   cuMemAllocAsync(_ptsz)  -> cuMemAllocFromPoolAsync(_ptsz), with the
 *                              current pool of the stream's device
 * simgpu is compiled with GCC's default semantic interposition, so a call
 * to an exported (default-visibility) function from inside it goes through
 * its PLT. SIMGPU_SELFCALL=direct (the default) calls the internal
 * functions. NVML's nvmlInit and nvmlInit_v2 always call nvmlInitWithFlags
 * through the PLT. Any other value is reported once, and direct is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simgpu.h"

static int selfcall_read(void)
{
	const char *v = getenv("SIMGPU_SELFCALL");

	if (!v || !*v || !strcmp(v, "direct"))
		return 0;
	if (!strcmp(v, "plt"))
		return 1;
	fprintf(stderr, "simgpu: SIMGPU_SELFCALL=\"%s\" is not direct or plt; calling "
		"directly\n", v);
	return 0;
}

int simgpu_selfcall(void)
{
	static int mode = -1;
	int m = __atomic_load_n(&mode, __ATOMIC_ACQUIRE);

	if (m < 0) {
		m = selfcall_read();
		__atomic_store_n(&mode, m, __ATOMIC_RELEASE);
	}
	return m;
}
