// SPDX-License-Identifier: GPL-2.0
/*
 * The private export tables' logic under ASan/UBSan (part of
 * test-logic-asan): MD2 against RFC 1319's test suite, the tables' size
 * headers, context-local storage and its destructor at a reset, the
 * primary context handle, the integrity check's version gate. NVIDIA's
 * runtime itself is run by tests/host/cudart.sh.
 */
#include <stdio.h>
#include <string.h>

#include "simgpu.h"
#include "exporttab.h"

static int xt_fails;

static void xt_check(int ok, const char *what, const char *detail)
{
	printf("%s: simgpu: asan: %s%s%s\n", ok ? "PASS" : "FAIL", what, ok ? "" : ": ", ok ? "" : detail);
	xt_fails += !ok;
}

static void xt_md2_tests(void)
{
	static const struct { const char *in, *hex; } v[] = {	/* RFC 1319, A.5 */
		{ "", "8350e5a3e24c153df2275c9f80692773" },
		{ "abc", "da853b0d3f88d99b30283a69e6ded6bb" },
		{ "message digest", "ab4f496bfb2a530b219ff33031fe06b0" },
		{ "12345678901234567890123456789012345678901234567890123456789012345678901234567890",
		  "d5976f79d83d3a0dc9806c3c66f3efd8" },
	};
	char got[33], detail[96] = "";
	int ok = 1;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		unsigned char d[16];

		sg_xt_md2(v[i].in, strlen(v[i].in), d);
		for (int j = 0; j < 16; j++)
			sprintf(got + 2 * j, "%02x", d[j]);
		if (strcmp(got, v[i].hex)) {
			ok = 0;
			snprintf(detail, sizeof(detail), "MD2(\"%.20s\") = %s", v[i].in, got);
		}
	}
	xt_check(ok, "export tables: MD2 gives RFC 1319's test suite", detail);
}

static int xt_destroyed;

static void xt_dtor(CUcontext ctx, void *key, void *value)
{
	(void)ctx;
	xt_destroyed += key == (void *)1 && value == (void *)2;
}

static void xt_cls_tests(void)
{
	CUcontext h = NULL, c = NULL;
	void *v = NULL;
	CUresult r0, r1, r2;
	char detail[96];
	int ok;

	/* The handle of CUDART_INTERFACE[2]: made current, not yet started. */
	ok = !cuCtxSetCurrent(NULL) && !simgpu_primary_handle(&h, 0) && !cuCtxSetCurrent(h);
	r0 = cuMemAlloc_v2((CUdeviceptr *)&v, 4096);
	r1 = sg_xt_cls_put(NULL, (void *)1, (void *)2, xt_dtor);
	ok = ok && !cuDevicePrimaryCtxRetain(&c, 0) && c == h;
	snprintf(detail, sizeof(detail), "alloc before retain %d, put %d", (int)r0, (int)r1);
	xt_check(ok && r0 == CUDA_ERROR_CONTEXT_IS_DESTROYED && r1 == CUDA_ERROR_INVALID_CONTEXT,
		 "export tables: a primary context handle made current before it is retained", detail);
	r0 = sg_xt_cls_get(&v, NULL, (void *)1);
	r1 = sg_xt_cls_put(NULL, (void *)1, (void *)2, xt_dtor);
	r2 = sg_xt_cls_get(&v, c, (void *)1);
	snprintf(detail, sizeof(detail), "get %d, put %d, get %d value %p", (int)r0, (int)r1,
		 (int)r2, v);
	xt_check(r0 == CUDA_ERROR_INVALID_HANDLE && !r1 && !r2 && v == (void *)2,
		 "export tables: context-local storage put and get (NULL: the current context)", detail);
	/* The reset also takes the context off this thread's stack. */
	ok = !cuDevicePrimaryCtxReset_v2(0) && xt_destroyed == 1 &&
	     sg_xt_cls_get(&v, NULL, (void *)1) == CUDA_ERROR_INVALID_CONTEXT;
	ok = ok && !cuDevicePrimaryCtxRetain(&c, 0) && !cuCtxSetCurrent(c) &&
	     sg_xt_cls_get(&v, NULL, (void *)1) == CUDA_ERROR_INVALID_HANDLE &&
	     !sg_xt_cls_put(NULL, (void *)3, NULL, NULL) && !sg_xt_cls_delete(c, (void *)3) &&
	     sg_xt_cls_delete(c, (void *)3) == CUDA_ERROR_INVALID_HANDLE &&
	     !cuDevicePrimaryCtxRelease_v2(0) && !cuCtxSetCurrent(NULL);
	snprintf(detail, sizeof(detail), "destructor calls %d", xt_destroyed);
	xt_check(ok, "export tables: a reset calls the destructor once and empties the storage; delete",
		 detail);
}

int simgpu_exporttab_tests(void)
{
	const void *t = NULL;
	CUuuid id;
	uint64_t out[2];

	xt_md2_tests();
	memcpy(id.bytes, sg_xt_defs[SG_XT_CUDART].id, 16);
	xt_check(!cuGetExportTable(&t, &id) && t && *(const uintptr_t *)t == 13 * sizeof(void *) &&
		 t == (const void *)sg_xt_table(SG_XT_CUDART),
		 "export tables: CUDART_INTERFACE is served with its size header", "bad table");
	memset(id.bytes, 0, 16);
	t = (const void *)1;
	xt_check(cuGetExportTable(&t, &id) == CUDA_ERROR_INVALID_VALUE && !t,
		 "export tables: an unknown id is refused", "served");
	xt_check(!sg_xt_integrity(13052, 1, out) && sg_xt_integrity(13042, 1, out) ==
		 CUDA_ERROR_NOT_SUPPORTED && !sg_xt_integrity(13022, 1, out) &&
		 !sg_xt_integrity(13002, 1, out) &&
		 sg_xt_integrity(12082, 1, out) == CUDA_ERROR_NOT_SUPPORTED &&
		 !sg_xt_integrity(13050, 1, out) && out[0] == 0x3341181C03CB675CULL,
		 "export tables: the integrity check serves 13.5, 13.2 and 13.0 (cuBLAS's), refuses 13.4 and 12.8",
		 "wrong answers");
	xt_cls_tests();
	return xt_fails;
}
