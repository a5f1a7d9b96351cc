// SPDX-License-Identifier: GPL-2.0
/*
 * dlsym(RTLD_NEXT) must stay relative to its real caller under the
 * preload: prints in which object the next vgpu_next_target lies, seen
 * from this program and from libnext.so. The host test compares the
 * output with and without LD_PRELOAD=libvgpu.so (a dlsym that lost its
 * caller would search from libvgpu.so instead). The next vgpu_version
 * (libvgpu's own export) seen from this program is in libvgpu.so under
 * the preload; a dlsym searching from libvgpu.so itself finds none.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *vgpu_next_probe(void);

int vgpu_next_target(void)
{
	return 1;
}

static const char *obj(const void *p)
{
	Dl_info di;
	const char *s;

	if (!p)
		return "none";
	if (!dladdr(p, &di) || !di.dli_fname)
		return "?";
	s = strrchr(di.dli_fname, '/');
	return s ? s + 1 : di.dli_fname;
}

int main(void)
{
	printf("from main: %s, from libnext: %s, vgpu_version: %s\n",
	       obj(dlsym(RTLD_NEXT, "vgpu_next_target")), obj(vgpu_next_probe()),
	       obj(dlsym(RTLD_NEXT, "vgpu_version")));
	return 0;
}
