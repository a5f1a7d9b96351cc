// SPDX-License-Identifier: GPL-2.0
/*
 * dlsym and dlvsym interposition. NVIDIA's runtime dlopens libcuda.so.1
 * and dlsyms its bootstrap entry points (cuGetProcAddress_v2, ...) on that
 * handle, which never sees a preloaded definition. So libvgpu exports
 * dlsym and dlvsym: for a hooked name looked up in libcuda.so.1 or
 * libnvidia-ml.so.1 (or through RTLD_DEFAULT / RTLD_NEXT) they answer the
 * wrapper; everything else goes to the real function by a tail call, so
 * that the real one still sees its caller's return address (RTLD_NEXT is
 * relative to the caller). A look-up made while this thread is inside one
 * of libvgpu's wrappers is the driver's own (nest.h): it gets the real
 * answer, so that the driver keeps calling itself.
 *
 * The real functions are found by realdl.c. Exports only the two
 * interposers.
 */
#include <dlfcn.h>

#include "../access/hooks.h"
#include "../access/nest.h"
#include "../access/realdl.h"

/* By hand, not strncmp: ASan's runtime looks names up while it starts,
 * before its interceptor of strncmp works (realdl.c). */
static int maybe_hooked(const char *name)
{
	return name && ((name[0] == 'c' && name[1] == 'u') ||
			(name[0] == 'n' && name[1] == 'v' && name[2] == 'm' && name[3] == 'l'));
}

/*
 * A hooked name: returns 1 with *out the answer, 0 to let the real
 * function answer. r is the real answer for a specific handle.
 */
static int intercept(void *handle, int id, void *r, void **out)
{
	int lib = libvgpu_hooks[id].lib;

	if (handle == RTLD_DEFAULT || handle == RTLD_NEXT) {
		/* Without the real library loaded, answer as if we were not
		 * here: programs probe for CUDA this way. */
		*out = libvgpu_real_load(lib, 1) ? NULL : libvgpu_hooks[id].wrapper;
		return 1;
	}
	if (!r || libvgpu_real_load(lib, 1) || libvgpu_real[id] != r)
		return 0;
	*out = libvgpu_hooks[id].wrapper;
	return 1;
}

VGPU_EXPORT void *dlsym(void *restrict handle, const char *restrict name)
{
	void *out;
	int id;

	vgpu_dl_init();
	if (!libvgpu_in_wrapper() && maybe_hooked(name) &&
	    (id = libvgpu_hook_find(name)) >= 0) {
		void *r = NULL;

		if (handle != RTLD_DEFAULT && handle != RTLD_NEXT)
			r = libvgpu_real_dlsym(handle, name);
		if (intercept(handle, id, r, &out))
			return out;
		if (handle != RTLD_DEFAULT && handle != RTLD_NEXT)
			return r;
	}
	return libvgpu_real_dlsym(handle, name);	/* tail call: keeps the caller */
}

VGPU_EXPORT void *dlvsym(void *restrict handle, const char *restrict name,
			 const char *restrict version)
{
	void *out;
	int id;

	vgpu_dl_init();
	if (!libvgpu_in_wrapper() && maybe_hooked(name) &&
	    (id = libvgpu_hook_find(name)) >= 0) {
		void *r = NULL;

		if (handle != RTLD_DEFAULT && handle != RTLD_NEXT)
			r = libvgpu_real_dlvsym(handle, name, version);
		if (intercept(handle, id, r, &out))
			return out;
		if (handle != RTLD_DEFAULT && handle != RTLD_NEXT)
			return r;
	}
	return libvgpu_real_dlvsym(handle, name, version);	/* tail call */
}
