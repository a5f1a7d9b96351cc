// SPDX-License-Identifier: GPL-2.0
/*
 * The hook table (generated from hooks.def) and the real functions behind
 * it. libvgpu takes its real functions from a handle of its own:
 * dlopen(libcuda.so.1, RTLD_LAZY | RTLD_NOLOAD), else RTLD_LAZY, and the
 * real dlsym. Nothing is resolved until a wrapper or a look-up needs it.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "realdl.h"
#include "hooks.h"
#include "nest.h"
#include "log.h"

/* Programs still call entry points nvml.h marks deprecated
 * (nvmlDeviceGetHandleBySerial since NVML 13.0): they stay wrapped while
 * drivers export them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
const struct vgpu_hook libvgpu_hooks[VGPU_HOOK_COUNT] = {
#define HOOK(lib, sym, base, ret, params) \
	[VGPU_HOOK_##sym] = { #sym, #base, VGPU_LIB_##lib, (void *)&sym },
#define NEED(lib, sym, ret, params) [VGPU_HOOK_##sym] = { #sym, NULL, VGPU_LIB_##lib, NULL },
#include "../hooks.def"
};
#pragma GCC diagnostic pop

void *libvgpu_real[VGPU_HOOK_COUNT];
__thread unsigned int libvgpu_nest __attribute__((tls_model("initial-exec")));

const char *const libvgpu_lib_names[VGPU_LIB_COUNT] = {
	[VGPU_LIB_CU] = "libcuda.so.1",
	[VGPU_LIB_NV] = "libnvidia-ml.so.1",
};

static int vgpu_loaded[VGPU_LIB_COUNT];	/* 1 once resolved (release/acquire) */
static void *vgpu_handle[VGPU_LIB_COUNT];
static pthread_mutex_t vgpu_load_lk = PTHREAD_MUTEX_INITIALIZER;

int libvgpu_real_load(int lib, int noload)
{
	void *h;

	if (__atomic_load_n(&vgpu_loaded[lib], __ATOMIC_ACQUIRE))
		return 0;
	/* dlopen outside our lock: it may run constructors that call us. */
	h = dlopen(libvgpu_lib_names[lib], RTLD_LAZY | RTLD_NOLOAD);
	if (!h && !noload)
		h = dlopen(libvgpu_lib_names[lib], RTLD_LAZY);
	if (!h)
		return -1;
	pthread_mutex_lock(&vgpu_load_lk);
	if (!vgpu_loaded[lib]) {
		vgpu_handle[lib] = h;
		h = NULL;
		for (int i = 0; i < VGPU_HOOK_COUNT; i++)
			if (libvgpu_hooks[i].lib == lib)
				__atomic_store_n(&libvgpu_real[i],
						 libvgpu_dlsym(vgpu_handle[lib], libvgpu_hooks[i].name),
						 __ATOMIC_RELAXED);
		__atomic_store_n(&vgpu_loaded[lib], 1, __ATOMIC_RELEASE);
		libvgpu_log(VGPU_LOG_DEBUG, "resolved %s", libvgpu_lib_names[lib]);
	}
	pthread_mutex_unlock(&vgpu_load_lk);
	if (h)
		dlclose(h);	/* another thread won: drop our reference */
	return 0;
}

void *libvgpu_real_get(int id)
{
	int lib = libvgpu_hooks[id].lib;

	if (!__atomic_load_n(&vgpu_loaded[lib], __ATOMIC_ACQUIRE) &&
	    libvgpu_real_load(lib, 0))
		return NULL;
	return libvgpu_real[id];
}

void *libvgpu_hook_wrap(int lib, void *fn)
{
	if (!fn || libvgpu_real_load(lib, 1))
		return fn;
	for (int i = 0; i < VGPU_HOOK_COUNT; i++)
		if (libvgpu_hooks[i].wrapper && libvgpu_hooks[i].lib == lib && libvgpu_real[i] == fn)
			return libvgpu_hooks[i].wrapper;
	return fn;
}

int libvgpu_hook_find(const char *name)
{
	for (int i = 0; i < VGPU_HOOK_COUNT; i++)
		if (libvgpu_hooks[i].wrapper && !strcmp(libvgpu_hooks[i].name, name))
			return i;
	return -1;
}

int libvgpu_hook_is_wrapper(const void *p)
{
	for (int i = 0; i < VGPU_HOOK_COUNT; i++)
		if (libvgpu_hooks[i].wrapper == p)
			return 1;
	return 0;
}

/* In a forked child (init.c): only the lock. The real functions found
 * are the child's too (the same address space, the same libraries). */
void libvgpu_hooks_reset(void)
{
	pthread_mutex_init(&vgpu_load_lk, NULL);
}
