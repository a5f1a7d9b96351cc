/* SPDX-License-Identifier: GPL-2.0 */
/* The C library's real dlsym and dlvsym (realdl.c). */
#ifndef VGPU_REALDL_H
#define VGPU_REALDL_H

typedef void *(*vgpu_dlsym_fn)(void *, const char *);
typedef void *(*vgpu_dlvsym_fn)(void *, const char *, const char *);

/* Set once by libvgpu_dl_load(); NULL if not found. The interposers (dlsym.c)
 * call them by tail calls, which keeps their caller's return address. */
extern vgpu_dlsym_fn libvgpu_real_dlsym;
extern vgpu_dlvsym_fn libvgpu_real_dlvsym;

/* Find them (once). */
void libvgpu_dl_load(void);
static inline void vgpu_dl_init(void)
{
	if (__builtin_expect(!__atomic_load_n(&libvgpu_real_dlsym, __ATOMIC_ACQUIRE), 0))
		libvgpu_dl_load();
}
/* The real dlsym. */
void *libvgpu_dlsym(void *handle, const char *name);

#endif
