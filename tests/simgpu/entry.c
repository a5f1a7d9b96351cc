// SPDX-License-Identifier: GPL-2.0
/*
 * Distinct entry points for cuGetProcAddress (SIMGPU_PROCADDR=distinct).
 * NVIDIA's documentation of cuGetProcAddress promises the address of the
 * requested driver function, not that this address is the library's
 * exported symbol; a driver may hand out internal entry points. In this
 * mode simgpu does so: every function cuGetProcAddress can answer gets a
 * small jump stub of its own in an anonymous executable mapping, so the
 * answer behaves as the export but is not its address. Built once, all at
 * once (the mapping is never writable and executable at the same time).
 * A stub is 16 bytes: on x86-64 "movabs $fn, %r11; jmp *%r11" (49 bb
 * <fn, 8 bytes> 41 ff e3, int3 padding), on arm64 "ldr x16, #8; br x16"
 * then fn; libvgpu's hookcheck decodes them to name what an answer is
 * (simgpu exports driver names only).
 *
 * The stubs jump to simgpu's own definitions: the addresses in procaddr.c's
 * table are bound by the dynamic linker, so under an LD_PRELOADed libvgpu
 * they are libvgpu's wrappers of the hooked names, which would hide a
 * wrapper-less answer. glibc's dlsym on simgpu's own handle (which does
 * not see preloaded definitions) finds them by name.
 *
 *   SIMGPU_PROCADDR=exports (default) | distinct
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "simgpu.h"

#define SG_STUB_BYTES 16

static void *const *sg_targets;	/* the table's addresses, index i -> stub i */
static unsigned char *sg_stubs;
static size_t sg_nstubs;

/* Writes a stub jumping to fn at p; 0 when this architecture has none. */
static int write_stub(unsigned char *p, void *fn)
{
	uint64_t a = (uint64_t)(uintptr_t)fn;

#if defined(__x86_64__)
	static const unsigned char head[] = { 0x49, 0xbb };	/* movabs $a, %r11 */
	static const unsigned char tail[] = { 0x41, 0xff, 0xe3 };	/* jmp *%r11 */

	memset(p, 0xcc, SG_STUB_BYTES);
	memcpy(p, head, 2);
	memcpy(p + 2, &a, 8);
	memcpy(p + 10, tail, 3);
	return 1;
#elif defined(__aarch64__)
	static const uint32_t code[] = { 0x58000050, 0xd61f0200 };	/* ldr x16, #8; br x16 */

	memcpy(p, code, 8);
	memcpy(p + 8, &a, 8);
	return 1;
#else
	(void)p;
	(void)a;
	return 0;
#endif
}

static int mode_distinct(void)
{
	const char *v = getenv("SIMGPU_PROCADDR");

	if (!v || !*v || !strcmp(v, "exports"))
		return 0;
	if (!strcmp(v, "distinct"))
		return 1;
	fprintf(stderr, "simgpu: SIMGPU_PROCADDR=\"%s\" is not exports or distinct; "
		"answering exports\n", v);
	return 0;
}

typedef void *(*dlsym_fn)(void *, const char *);

/* glibc's dlsym, not an interposer's: by version, relative to simgpu. */
static dlsym_fn libc_dlsym(void)
{
	static const char *const vers[] = { "GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17" };

	for (size_t i = 0; i < sizeof(vers) / sizeof(vers[0]); i++) {
		void *f = dlvsym(RTLD_NEXT, "dlsym", vers[i]);

		if (f)
			return (dlsym_fn)f;
	}
	return NULL;
}

/* simgpu's own definition of the function fn is bound to, or fn. */
static void *own_definition(void *self, dlsym_fn real, void *fn)
{
	Dl_info di;
	void *own;

	if (!self || !real || !dladdr(fn, &di) || !di.dli_sname)
		return fn;
	own = real(self, di.dli_sname);
	return own ? own : fn;
}

int sg_entry_build(void *const *fns, size_t n)
{
	size_t len = n * SG_STUB_BYTES;
	void *self = NULL;
	unsigned char *m;
	dlsym_fn real;
	Dl_info di;

	if (!mode_distinct() || !n)
		return 0;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		goto fail;
	self = dladdr((void *)&sg_entry_build, &di) ?
		dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	real = libc_dlsym();
	for (size_t i = 0; i < n; i++) {
		if (!write_stub(m + i * SG_STUB_BYTES, own_definition(self, real, fns[i]))) {
			munmap(m, len);
			if (self)
				dlclose(self);
			fprintf(stderr, "simgpu: SIMGPU_PROCADDR=distinct: no stubs for this "
				"architecture; answering exports\n");
			return -1;
		}
	}
	__builtin___clear_cache((char *)m, (char *)m + len);
	if (mprotect(m, len, PROT_READ | PROT_EXEC)) {
		munmap(m, len);
		if (self)
			dlclose(self);
		goto fail;
	}
	if (self)
		dlclose(self);
	sg_targets = fns;
	sg_stubs = m;
	sg_nstubs = n;
	return 0;
fail:
	fprintf(stderr, "simgpu: SIMGPU_PROCADDR=distinct: cannot map the stubs: %m; "
		"answering exports\n");
	return -1;
}

void *sg_entry_point(void *fn)
{
	for (size_t i = 0; i < sg_nstubs; i++)
		if (sg_targets[i] == fn)
			return sg_stubs + i * SG_STUB_BYTES;
	return fn;
}
