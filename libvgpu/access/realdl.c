// SPDX-License-Identifier: GPL-2.0
/*
 * The C library's own dlsym and dlvsym, for dlsym.c's interposers and for
 * resolving the driver (hooks.c). Any reference to dlsym or dlvsym from
 * this library binds to its own exported definitions. So the real dlvsym
 * is found in the C library's own symbol table (dl_iterate_phdr, ELF
 * dynamic symbols), and the real dlsym is dlvsym(RTLD_NEXT, "dlsym",
 * "GLIBC_2.34"), falling back to "GLIBC_2.2.5". There is no recursion
 * guard that could answer NULL: nothing here calls the exported dlsym.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>

#include "realdl.h"

vgpu_dlsym_fn libvgpu_real_dlsym;
vgpu_dlvsym_fn libvgpu_real_dlvsym;
static pthread_once_t vgpu_dl_once = PTHREAD_ONCE_INIT;

struct vgpu_elf_find {
	const char *name;
	const void *self;
	void *out;
};

/*
 * No string function of the C library here: ASan's runtime calls dlsym
 * while it starts, before its interceptors of strcmp and the like can
 * reach the real ones (they call through NULL then), and a program built
 * with ASan loads that runtime before libvgpu.
 */
static int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static int has_prefix(const char *s, const char *prefix)
{
	while (*prefix)
		if (*s++ != *prefix++)
			return 0;
	return 1;
}

static const char *base_name(const char *path)
{
	const char *base = path;

	for (; *path; path++)
		if (*path == '/')
			base = path + 1;
	return base;
}

static uintptr_t dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) p)
{
	/* glibc relocates some dynamic entries in place; others are offsets. */
	return p < info->dlpi_addr ? info->dlpi_addr + p : p;
}

static size_t gnu_hash_count(const uint32_t *h)
{
	uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
	const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(h + 4) + bloom);
	const uint32_t *chain = buckets + nbuckets;
	uint32_t max = 0;

	for (uint32_t b = 0; b < nbuckets; b++)
		if (buckets[b] > max)
			max = buckets[b];
	if (max < symoffset)
		return symoffset;
	while (!(chain[max - symoffset] & 1))
		max++;
	return (size_t)max + 1;
}

static int elf_find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct vgpu_elf_find *f = data;
	const char *base = base_name(info->dlpi_name);
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const ElfW(Half) *versym = NULL;
	const uint32_t *hash = NULL, *gnuhash = NULL;
	const ElfW(Dyn) *dyn = NULL;
	size_t n;

	(void)size;
	if ((const void *)info->dlpi_addr == f->self ||
	    (!has_prefix(base, "libc.so") && !has_prefix(base, "libdl.so")))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return 0;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB: symtab = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
		case DT_STRTAB: strtab = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
		case DT_VERSYM: versym = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
		case DT_HASH: hash = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
		case DT_GNU_HASH: gnuhash = (const void *)dyn_ptr(info, dyn->d_un.d_ptr); break;
		default: break;
		}
	}
	if (!symtab || !strtab || (!hash && !gnuhash))
		return 0;
	n = hash ? hash[1] : gnu_hash_count(gnuhash);
	for (size_t i = 1; i < n; i++) {
		const ElfW(Sym) *s = &symtab[i];

		if (s->st_shndx == SHN_UNDEF || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
		    !str_eq(strtab + s->st_name, f->name))
			continue;
		/* The default version (not hidden) when there are several. */
		if (versym && (versym[i] & 0x8000) && f->out)
			continue;
		f->out = (void *)(info->dlpi_addr + s->st_value);
		if (!versym || !(versym[i] & 0x8000))
			return 1;
	}
	return f->out != NULL;
}

static void *elf_find(const char *name)
{
	struct vgpu_elf_find f = { name, NULL, NULL };
	Dl_info di;

	if (dladdr((void *)&elf_find, &di))
		f.self = di.dli_fbase;
	dl_iterate_phdr(elf_find_cb, &f);
	return f.out;
}

static void vgpu_dl_resolve(void)
{
	libvgpu_real_dlvsym = (vgpu_dlvsym_fn)elf_find("dlvsym");
	if (libvgpu_real_dlvsym) {
		libvgpu_real_dlsym = (vgpu_dlsym_fn)libvgpu_real_dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
		if (!libvgpu_real_dlsym)
			libvgpu_real_dlsym = (vgpu_dlsym_fn)libvgpu_real_dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	}
	if (!libvgpu_real_dlsym)
		libvgpu_real_dlsym = (vgpu_dlsym_fn)elf_find("dlsym");
}

void libvgpu_dl_load(void)
{
	pthread_once(&vgpu_dl_once, vgpu_dl_resolve);
}

void *libvgpu_dlsym(void *handle, const char *name)
{
	vgpu_dl_init();
	return libvgpu_real_dlsym ? libvgpu_real_dlsym(handle, name) : NULL;
}
