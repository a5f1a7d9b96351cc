// SPDX-License-Identifier: GPL-2.0
/* RTLD_NEXT from a library loaded after libvgpu (see nexttest.c). */
#include <dlfcn.h>

int vgpu_next_target(void)
{
	return 2;
}

void *vgpu_next_probe(void)
{
	return dlsym(RTLD_NEXT, "vgpu_next_target");
}
