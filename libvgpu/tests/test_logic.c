// SPDX-License-Identifier: GPL-2.0
/*
 * libvgpu's pure logic under ASan and UBSan: the allocation map, the
 * charging protocol against a simulated module, array sizes, the view
 * formula, netlink reply parsing, the hook table, the compute launch gate
 * against a fake gate page and a stub ioctl layer, the queue bound, the
 * node-list parser. One check, one line (check.h); exit status 1 on a
 * failure.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvml.h>	/* hooks.def's NVML 12.4+ rows are keyed on it */

#include "../logic/arraysize.h"
#include "../logic/charge.h"
#include "../logic/cvd.h"
#include "../logic/gate.h"
#include "../logic/gpureq.h"
#include "../access/netlink.h"
#include "../logic/nodelist.h"
#include "../logic/ptrmap.h"
#include "../logic/vmmref.h"
#include "../nvml/views.h"
#include "check.h"
#include "test_gate.h"

/* ---- the allocation map ---- */

#define MAP_THREADS 8
#define MAP_N 20000

static void *map_worker(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg << 40;

	for (int round = 0; round < 3; round++) {
		for (uint64_t i = 1; i <= MAP_N; i++) {
			struct vgpu_alloc a = { base + i * 4096, i, (void *)(uintptr_t)(i & 1),
						(int)(i % 4), VGPU_K_MEM }, old;

			if (libvgpu_ptrmap_put(&a, &old) != 0)
				return (void *)1;
		}
		for (uint64_t i = 1; i <= MAP_N; i++) {
			struct vgpu_alloc a;

			if (!libvgpu_ptrmap_take(VGPU_K_MEM, base + i * 4096, &a) || a.bytes != i)
				return (void *)2;
		}
	}
	return NULL;
}

static void test_ptrmap(void)
{
	static const char what[] =
		"allocation map (8 threads x 60000 put/take, kinds, replacement)";
	pthread_t t[MAP_THREADS];
	struct vgpu_alloc a = { 0x1000, 10, NULL, 0, VGPU_K_MEM }, old;
	int bad = 0;

	for (long i = 0; i < MAP_THREADS; i++)
		pthread_create(&t[i], NULL, map_worker, (void *)(i + 1));
	for (int i = 0; i < MAP_THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad |= r != NULL;
	}
	CHECK(!bad && libvgpu_ptrmap_count() == 0, what, "concurrent put/take lost entries");
	/* Same key, different kinds are different entries; a replace reports. */
	CHECK(libvgpu_ptrmap_put(&a, &old) == 0, what, "put");
	a.kind = VGPU_K_VMM;
	CHECK(libvgpu_ptrmap_put(&a, &old) == 0, what, "kinds collide");
	a.bytes = 20;
	CHECK(libvgpu_ptrmap_put(&a, &old) == 1 && old.bytes == 10, what, "replace");
	libvgpu_ptrmap_reset();
	PASSED(what);
}

/* One thread of NCCL-like traffic: retain and release a shared handle
 * while creating, mapping, unmapping and releasing handles of its own. */
static void *vref_worker(void *arg)
{
	uint64_t t = (uint64_t)(uintptr_t)arg, bad = 0;
	struct vgpu_vref g, buf[2], *m;

	for (uint64_t i = 0; i < 20000; i++) {
		uint64_t h = (t << 32) | i, va = (t << 40) | (i << 21);

		bad |= libvgpu_vref_get(0x5a) != 1;
		bad |= libvgpu_vref_create(h, 0, 2, &g) != 0;
		bad |= libvgpu_vref_map(va, 2, h, &g) != 1;
		bad |= libvgpu_vref_put(h, &g) != 1;
		bad |= libvgpu_vref_unmap_take(va, 2, buf, 2, &m) != 1;
		bad |= libvgpu_vref_put(m[0].handle, &g) != 2 || g.key != h;
		bad |= libvgpu_vref_put(0x5a, &g) != 1;
	}
	return bad ? (void *)1 : NULL;
}

/* VMM references: a handle lives while its handle, retains and mappings do. */
static void test_vref(void)
{
	static const char what[] =
		"VMM references (release after map, retain, imports, ranges, 8 threads)";
	struct vgpu_vref g, buf[2], *m;
	size_t n, nm;

	libvgpu_vref_reset();
	CHECK(libvgpu_vref_create(0x10, 0, 48, &g) == 0, what, "create");
	CHECK(libvgpu_vref_map(0x100000, 48, 0x10, &g) == 1, what, "map");
	CHECK(libvgpu_vref_map(0x200000, 48, 0x99, &g) == 0, what, "map of an unknown handle");
	CHECK(libvgpu_vref_put(0x10, &g) == 1, what, "release while mapped frees nothing");
	CHECK(libvgpu_vref_get(0x10) == 1, what, "retain");
	CHECK(libvgpu_vref_put(0x10, &g) == 1, what, "release of the retained handle");
	n = libvgpu_vref_unmap_take(0x100000, 48, buf, 2, &m);
	CHECK(n == 1 && m == buf && buf[0].handle == 0x10, what, "unmap takes %zu", n);
	CHECK(libvgpu_vref_put(0x10, &g) == 2 && g.bytes == 48 && g.gpu == 0, what,
	      "the last reference gives the record back");
	CHECK(libvgpu_vref_put(0x10, &g) == 0, what, "gone");
	/* An imported handle: 0 bytes until its first mapping is charged. */
	{
		int32_t gpu = -1;

		CHECK(libvgpu_vref_create(0x20, 1, 0, &g) == 0 &&
		      libvgpu_vref_pending(0x20, &gpu) == 1 && gpu == 1, what, "import pending");
		CHECK(libvgpu_vref_claim(0x20, 32) == 1 && libvgpu_vref_claim(0x20, 32) == 0 &&
		      libvgpu_vref_pending(0x20, &gpu) == 0, what, "charged once");
		CHECK(libvgpu_vref_pending(0x10, &gpu) == 0 && libvgpu_vref_claim(0x10, 1) == 0,
		      what, "no record: nothing pending");
		CHECK(libvgpu_vref_put(0x20, &g) == 2 && g.bytes == 32, what,
		      "the import gives back what its mapping charged");
	}
	/* Segments grown one handle at a time, unmapped in one call. */
	for (uint64_t i = 0; i < 20; i++) {
		libvgpu_vref_create(0x1000 + i, 1, 2, &g);
		libvgpu_vref_map(0x4000000 + i * 2, 2, 0x1000 + i, &g);
		libvgpu_vref_put(0x1000 + i, &g);
	}
	n = libvgpu_vref_unmap_take(0x4000000 + 10, 20, buf, 2, &m);
	CHECK(n == 10 && m != buf, what, "a range unmap takes %zu of 10", n);
	libvgpu_vref_unmap_restore(m, n);
	free(m);
	n = libvgpu_vref_unmap_take(0x4000000, 40, buf, 2, &m);
	for (size_t i = 0; i < n; i++)
		CHECK(libvgpu_vref_put(m[i].handle, &g) == 2, what, "segment %zu", i);
	free(m);
	CHECK(n == 20 && libvgpu_vref_count(&nm) == 0 && nm == 0, what,
	      "%zu unmapped, %zu handles and %zu mappings left", n, libvgpu_vref_count(NULL), nm);
	/* 8 threads: the shared handle's count comes back to its creator's. */
	{
		pthread_t t[MAP_THREADS];
		int bad = 0;

		libvgpu_vref_create(0x5a, 0, 8, &g);
		for (long i = 0; i < MAP_THREADS; i++)
			pthread_create(&t[i], NULL, vref_worker, (void *)(i + 1));
		for (int i = 0; i < MAP_THREADS; i++) {
			void *r;

			pthread_join(t[i], &r);
			bad |= r != NULL;
		}
		CHECK(!bad && libvgpu_vref_put(0x5a, &g) == 2 && libvgpu_vref_count(&nm) == 0 &&
		      nm == 0, what, "8 threads of retain/release and map/unmap lost a reference");
	}
	libvgpu_vref_reset();
	PASSED(what);
}

static size_t swept;
static void sweep_cb(const struct vgpu_alloc *a, void *arg)
{
	(void)arg;
	swept += a->ctx == (void *)2;
}

static void test_ptrmap_ctx(void)
{
	static const char what[] = "allocation map: context sweep";
	struct vgpu_alloc old, a;
	size_t n;

	libvgpu_ptrmap_reset();
	for (uint64_t i = 1; i <= 5000; i++) {
		struct vgpu_alloc b = { i * 64, 1, (void *)(uintptr_t)(1 + (i % 2)), 0, VGPU_K_MEM };

		libvgpu_ptrmap_put(&b, &old);
	}
	n = libvgpu_ptrmap_take_ctx((void *)2, sweep_cb, NULL);
	CHECK(n == 2500 && swept == 2500 && libvgpu_ptrmap_count() == 2500, what,
	      "context sweep took %zu (%zu of the context), %zu left", n, swept,
	      libvgpu_ptrmap_count());
	for (uint64_t i = 1; i <= 5000; i++)
		CHECK(libvgpu_ptrmap_get(VGPU_K_MEM, i * 64, &a) == (int)(i % 2 == 0),
		      what, "entry %llu after the sweep", (unsigned long long)i);
	libvgpu_ptrmap_reset();
	PASSED(what);
}

/* ---- charging against a simulated module ---- */

struct fake_mod {
	pthread_mutex_t lk;
	struct vgpu_dev_page *page;
	uint64_t limit;		/* the tenant's vram-max */
	uint64_t charged;	/* bytes charged to the tenant: avail + used */
	uint64_t peak;
	uint64_t budget;	/* extra granted per CHARGE when far from the limit */
	unsigned long charges, releases, refusals;
};

static int fake_ioctl(void *ctx, unsigned long req, void *arg)
{
	struct fake_mod *m = ctx;
	struct vgpu_dev_charge *c = arg;
	struct vgpu_dev_gpu *g = &m->page->gpu[c->gpu];
	int rc = 0;

	pthread_mutex_lock(&m->lk);
	if (req == VGPU_IOC_CHARGE) {
		uint64_t extra = m->budget;

		m->charges++;
		if (m->charged + c->bytes > m->limit) {
			m->refusals++;
			rc = -ENOMEM;
		} else {
			if (m->charged + c->bytes + extra > m->limit)
				extra = 0;	/* near the limit: exact */
			m->charged += c->bytes + extra;
			__atomic_add_fetch(&g->avail, (int64_t)(c->bytes + extra), __ATOMIC_ACQ_REL);
			c->keep = extra;
		}
	} else if (req == VGPU_IOC_RELEASE) {
		int64_t a = __atomic_load_n(&g->avail, __ATOMIC_ACQUIRE);
		uint64_t take;

		m->releases++;
		/* As the module would: take at most what avail holds. */
		do {
			take = a > 0 ? ((uint64_t)a < c->bytes ? (uint64_t)a : c->bytes) : 0;
		} while (take && !__atomic_compare_exchange_n(&g->avail, &a, a - (int64_t)take, 0,
							      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
		m->charged -= take;
	}
	if (m->charged > m->peak)
		m->peak = m->charged;
	pthread_mutex_unlock(&m->lk);
	return rc;
}

static struct vgpu_dev_page page;
static struct fake_mod mod = { .lk = PTHREAD_MUTEX_INITIALIZER, .page = &page };
static struct vgpu_charger ch = { .page = &page, .ioctl = fake_ioctl, .ctx = &mod };

#define CH_THREADS 8
#define CH_ROUNDS 20000

static void *charge_worker(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	uint64_t held[16] = { 0 };
	long ok = 0;

	for (int r = 0; r < CH_ROUNDS; r++) {
		int k = rand_r(&seed) % 16;

		if (held[k]) {
			libvgpu_uncharge(&ch, 1, held[k]);
			held[k] = 0;
		} else {
			uint64_t b = (uint64_t)(rand_r(&seed) % 64 + 1) << 20;

			if (!libvgpu_charge(&ch, 1, b)) {
				if (rand_r(&seed) % 10 == 0) {
					libvgpu_charge_cancel(&ch, 1, b);	/* the driver failed */
				} else {
					libvgpu_charge_commit(&ch, 1, b);
					held[k] = b;
					ok++;
				}
			}
		}
	}
	for (int k = 0; k < 16; k++)
		if (held[k])
			libvgpu_uncharge(&ch, 1, held[k]);
	return (void *)ok;
}

static void test_charge(void)
{
	static const char what[] = "charging protocol";
	pthread_t t[CH_THREADS];
	long ok = 0;

	mod.limit = 2ULL << 30;
	mod.budget = 64ULL << 20;
	/* Exactness: a lone allocation up to the limit, then one byte more. */
	CHECK(libvgpu_charge(&ch, 0, mod.limit) == 0, what, "the whole limit refused");
	libvgpu_charge_commit(&ch, 0, mod.limit);
	CHECK(libvgpu_charge(&ch, 0, 1) == -ENOMEM, what, "over the limit accepted");
	libvgpu_uncharge(&ch, 0, mod.limit);
	CHECK(page.gpu[0].used == 0 && mod.charged == (uint64_t)page.gpu[0].avail, what,
	      "after the free: used %llu, avail %lld, charged %llu",
	      (unsigned long long)page.gpu[0].used, (long long)page.gpu[0].avail,
	      (unsigned long long)mod.charged);
	CHECK(page.gpu[0].avail == 0, what, "keep 0 (exact) but %lld bytes kept",
	      (long long)page.gpu[0].avail);
	/* The module taking the budget back at any time. */
	CHECK(libvgpu_charge(&ch, 0, 4096) == 0, what, "small charge");
	libvgpu_charge_commit(&ch, 0, 4096);
	__atomic_exchange_n(&page.gpu[0].avail, 0, __ATOMIC_ACQ_REL);
	libvgpu_uncharge(&ch, 0, 4096);
	CHECK(page.gpu[0].used == 0, what, "used after a taken budget");
	/* Concurrency: 8 threads, random sizes, the limit never passed. */
	mod.charged = (uint64_t)page.gpu[0].avail;
	for (long i = 0; i < CH_THREADS; i++)
		pthread_create(&t[i], NULL, charge_worker, (void *)(i + 1));
	for (int i = 0; i < CH_THREADS; i++) {
		void *r;

		pthread_join(t[i], &r);
		ok += (long)r;
	}
	CHECK(mod.peak <= mod.limit, what, "peak %llu over the limit %llu",
	      (unsigned long long)mod.peak, (unsigned long long)mod.limit);
	CHECK(page.gpu[1].used == 0, what, "%llu bytes still used",
	      (unsigned long long)page.gpu[1].used);
	CHECK(page.gpu[1].avail >= 0 && (uint64_t)page.gpu[1].avail <= 2 * mod.budget + (64ULL << 20),
	      what, "idle budget %lld after all frees", (long long)page.gpu[1].avail);
	PASSEDF("%s (exact at the limit, budget taken "
	       "back, 8 threads: %ld allocations, %lu CHARGE, %lu RELEASE, %lu refused, "
	       "peak %llu MiB of %llu)", what, ok, mod.charges, mod.releases, mod.refusals,
	       (unsigned long long)(mod.peak >> 20), (unsigned long long)(mod.limit >> 20));
}

/* ---- array sizes (as tests/simgpu/array.c) and views ---- */

static void test_sizes(void)
{
	static const char what[] = "array sizes and the tenant's view (no wrap)";
	struct vgpu_dev_meminfo mi = { .capacity = 16ULL << 30, .limit = 4ULL << 30,
				       .tenant_used = 5ULL << 30, .room = 10ULL << 30 };
	struct vgpu_view v;

	CHECK(libvgpu_array_bytes(1024, 1024, 0, CU_AD_FORMAT_FLOAT, 4, 0, 1) == 16ULL << 20,
	      what, "1024x1024 float4");
	CHECK(libvgpu_array_bytes(1, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1, 0, 1) == 4096,
	      what, "one byte is a page");
	/* 256x256 RGBA8 with 9 levels: sum of 4 * (256>>l)^2, page-rounded. */
	CHECK(libvgpu_array_bytes(256, 256, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4, 0, 9) ==
	      (4 * 87381 + 4095) / 4096 * 4096, what, "mipmap levels");
	/* Layered: layers are not halved. */
	CHECK(libvgpu_array_bytes(64, 64, 8, CU_AD_FORMAT_HALF, 1, 1, 2) ==
	      (64 * 64 * 8 * 2 + 32 * 32 * 8 * 2 + 4095) / 4096 * 4096, what, "layered");
	CHECK(libvgpu_array_bytes(64, 64, 0, 0x77, 1, 0, 1) == 0, what, "unknown format");
	vgpu_view_compute(&mi, &v);
	CHECK(v.total == 4ULL << 30 && v.used == 5ULL << 30 && v.free == 0, what,
	      "over the limit: free must be 0");
	mi.tenant_used = 1ULL << 30;
	mi.room = 2ULL << 30;
	vgpu_view_compute(&mi, &v);
	CHECK(v.free == 1ULL << 30, what, "room below the limit");
	mi.limit = UINT64_MAX;
	mi.room = mi.capacity;
	vgpu_view_compute(&mi, &v);
	CHECK(v.total == 16ULL << 30 && v.free == 15ULL << 30, what,
	      "unlimited: the capacity less the tenant's use");
	PASSED(what);
}

/* ---- netlink reply parsing ---- */

static size_t put(char *b, size_t off, uint16_t type, const void *d, size_t len)
{
	struct nlattr *a = (struct nlattr *)(b + off);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy(b + off + NLA_HDRLEN, d, len);
	return off + NLA_ALIGN(a->nla_len);
}

static void test_netlink(void)
{
	static const char what[] =
		"proc-register reply parsing (nested gpu entries, unlimited, denied, mems and cpus, truncated)";
	static char b[4096];
	static struct vgpu_reg r;
	uint32_t u;
	uint64_t q;
	size_t off = 0;

	u = 42;
	off = put(b, off, VGPU_A_PROC_PID, &u, 4);
	off = put(b, off, VGPU_A_PROC_TENANT, "team-a", 7);
	u = 3;
	off = put(b, off, VGPU_A_PROC_TENANT_ID, &u, 4);
	u = VGPU_DEFAULT_POLICY_DENY;
	off = put(b, off, VGPU_A_PROC_DEFAULT_POLICY, &u, 4);
	for (uint32_t i = 0; i < 2; i++) {
		size_t nest = off, in = off + NLA_HDRLEN;

		in = put(b, in, VGPU_A_PROC_GPU_INDEX, &i, 4);
		in = put(b, in, VGPU_A_PROC_GPU_UUID,
			 i ? "GPU-11111111-2222-3333-4444-555555555555"
			   : "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 41);
		q = 16ULL << 30;
		in = put(b, in, VGPU_A_PROC_GPU_VRAM, &q, 8);
		if (i == 0) {
			q = 1ULL << 30;
			in = put(b, in, VGPU_A_PROC_GPU_VRAM_MAX, &q, 8);
		} else {
			in = put(b, in, VGPU_A_PROC_GPU_DENIED, NULL, 0);
		}
		((struct nlattr *)(b + nest))->nla_type = VGPU_A_PROC_GPU | NLA_F_NESTED;
		((struct nlattr *)(b + nest))->nla_len = (uint16_t)(in - nest);
		off = in;
	}
	off = put(b, off, VGPU_A_PROC_MEMS, "0-1,3", 6);
	off = put(b, off, VGPU_A_PROC_CPUS, "0-15", 5);
	q = 0x5;
	off = put(b, off, VGPU_A_PROC_GPUS, &q, 8);
	libvgpu_nl_parse_reg(b, off, &r);
	CHECK(r.has_gpus && r.gpus == 0x5, what, "chosen gpus: has %d, mask %#llx",
	      r.has_gpus, (unsigned long long)r.gpus);
	CHECK(r.has_mems && !strcmp(r.mems, "0-1,3") && r.has_cpus && !strcmp(r.cpus, "0-15"),
	      what, "placement: mems \"%s\", cpus \"%s\"", r.mems, r.cpus);
	CHECK(r.pid == 42 && r.in_tenant && !strcmp(r.tenant, "team-a") && r.tenant_id == 3 &&
	      r.policy == VGPU_DEFAULT_POLICY_DENY && r.ngpu == 2, what, "header fields");
	CHECK(r.gpu[0].vram_max == 1ULL << 30 && !r.gpu[0].denied && r.gpu[0].vram == 16ULL << 30 &&
	      r.gpu[1].vram_max == UINT64_MAX && r.gpu[1].denied && r.gpu[1].index == 1 &&
	      !strcmp(r.gpu[1].uuid, "GPU-11111111-2222-3333-4444-555555555555"),
	      what, "gpu entries");
	/* Truncated input must not be read past. */
	libvgpu_nl_parse_reg(b, off - 3, &r);
	PASSED(what);
}

static void test_gpureq(void)
{
	static const char what[] = "VGPU_GPUS parsing (auto:N, bad values refused)";
	static const char *const bad[] = {
		"2", "auto", "auto:", "auto:0", "auto:65", "auto:-1", "auto: 2", "auto:+2",
		"auto:2x", "Auto:2", "auto:99999999999999999999", "all",
	};
	uint32_t n = 7;

	CHECK(!libvgpu_gpureq_parse(NULL, &n) && n == 0, what, "unset: n %u", n);
	CHECK(!libvgpu_gpureq_parse("", &n) && n == 0, what, "empty: n %u", n);
	CHECK(!libvgpu_gpureq_parse("auto:2", &n) && n == 2, what, "auto:2: n %u", n);
	CHECK(!libvgpu_gpureq_parse("auto:64", &n) && n == 64, what, "auto:64: n %u", n);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 7;
		CHECK(libvgpu_gpureq_parse(bad[i], &n) == -EINVAL && n == 0, what,
		      "\"%s\" accepted (n %u)", bad[i], n);
	}
	PASSED(what);
}

/* ---- CUDA_VISIBLE_DEVICES against a view ---- */

static const char cvd_uuid[3][VGPU_UUID_LEN + 1] = {
	"GPU-aaaa0000-0000-0000-0000-000000000000",
	"GPU-bbbb0000-0000-0000-0000-000000000000",
	"GPU-bbbc0000-0000-0000-0000-000000000000",
};

/* The choice of cvd in a 3-device view, as "1,0" ("" for none). */
static const char *cvd_pick(const char *cvd)
{
	static char buf[64];
	const struct vgpu_cvd_view view = { 3, cvd_uuid };
	int pick[3], n = libvgpu_cvd_choose(&view, cvd, pick);
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; i < n; i++)
		off += snprintf(buf + off, sizeof(buf) - off, "%s%d", i ? "," : "", pick[i]);
	return buf;
}

static void test_cvd(void)
{
	static const char what[] = "CUDA_VISIBLE_DEVICES against a view";
	static const char *const cases[][2] = {
		{ NULL, "0,1,2" }, { "1,0", "1,0" }, { " 2 , 0 ", "2,0" }, { "", "" },
		{ "3", "" }, { "0,3,1", "0" }, { "1,1,0", "1" }, { "GPU-BBBB", "1" },
		{ "GPU-bbb", "" }, { "GPU-aaaa0000-0000-0000-0000-000000000000,2", "0,2" },
		{ "GPU-cccc", "" }, { "MIG-x", "" }, { "0x1", "" }, { "99999999999999", "" },
		{ "0,1,2,0", "0,1,2" }, { "-1", "" },
	};
	const struct vgpu_cvd_view view = { 3, cvd_uuid }, one = { 1, cvd_uuid + 1 };
	const char *set = "GPU-bbbb0000-0000-0000-0000-000000000000";
	struct vgpu_cvd_env env = { set, set, "1" };
	int pick[2] = { 2, 0 }, user;
	char buf[3 * (VGPU_UUID_LEN + 1) + 3];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(!strcmp(cvd_pick(cases[i][0]), cases[i][1]), what, "\"%s\" chose \"%s\", not \"%s\"",
		      cases[i][0] ? cases[i][0] : "(unset)", cvd_pick(cases[i][0]), cases[i][1]);
	libvgpu_cvd_format(&view, pick, 2, buf, sizeof(buf));
	CHECK(!strcmp(buf, "GPU-bbbc0000-0000-0000-0000-000000000000,"
		      "GPU-aaaa0000-0000-0000-0000-000000000000"), what, "format: %s", buf);
	libvgpu_cvd_format(&view, pick, 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "-1"), what, "format of none: %s", buf);
	/* Whose value: a worker keeps its parent's GPUs while in its view. */
	CHECK(libvgpu_cvd_source(&view, 0, &env, &user) == set && !user, what, "worker, in view");
	CHECK(libvgpu_cvd_source(NULL, 0, &env, &user) == set && !user, what, "worker, no view");
	CHECK(!strcmp(libvgpu_cvd_source(&view, 1, &env, &user), "1") && user, what,
	      "own choice: the user's");
	env.set = env.cvd = "GPU-aaaa0000-0000-0000-0000-000000000000,GPU-bbbb";
	CHECK(libvgpu_cvd_source(&view, 0, &env, &user) == env.cvd && !user, what, "worker, both in view");
	CHECK(!strcmp(libvgpu_cvd_source(&one, 0, &env, &user), "1") && user, what,
	      "worker, one GPU out of its view: the user's");
	env.user = NULL;
	CHECK(!libvgpu_cvd_source(&one, 0, &env, &user) && user, what, "the user's, unset");
	env.cvd = "0";
	CHECK(!strcmp(libvgpu_cvd_source(&view, 1, &env, &user), "0") && !user, what,
	      "a value the process set itself is its own");
	env.set = NULL;
	CHECK(!strcmp(libvgpu_cvd_source(&view, 1, &env, &user), "0") && !user, what,
	      "no ancestor wrote one");
	PASSED(what);
}

/* ---- the hook table ---- */

struct row {
	const char *lib, *name, *base;
};

static const struct row rows[] = {
#define HOOK(lib, sym, base, ret, params) { #lib, #sym, #base },
#include "../hooks.def"
};

static void test_table(void)
{
	static const char what[] = "hook table";
	size_t n = sizeof(rows) / sizeof(rows[0]);

	for (size_t i = 0; i < n; i++) {
		CHECK(!strncmp(rows[i].name, rows[i].base, strlen(rows[i].base)) ||
		      !strcmp(rows[i].base, "cuGetProcAddress"), what,
		      "%s: base %s is not its stem", rows[i].name, rows[i].base);
		CHECK(!strcmp(rows[i].lib, "CU") ? !strncmp(rows[i].name, "cu", 2)
						  : !strncmp(rows[i].name, "nvml", 4),
		      what, "%s in the wrong library", rows[i].name);
		for (size_t j = i + 1; j < n; j++)
			CHECK(strcmp(rows[i].name, rows[j].name), what, "%s twice", rows[i].name);
	}
	PASSEDF("%s (%zu rows: unique, bases are stems)", what, n);
}

int main(void)
{
	test_gpureq();
	test_cvd();
	test_ptrmap();
	test_ptrmap_ctx();
	test_vref();
	test_charge();
	test_sizes();
	test_netlink();
	test_table();
	int gate = test_gate_all(), queue = test_queue_all();

	return gate || queue || failures ? 1 : 0;
}
