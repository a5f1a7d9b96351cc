// SPDX-License-Identifier: GPL-2.0
/*
 * Asks simgpu's cuGetExportTable what NVIDIA's runtime asks it, for the
 * host checks of tests/host/cudart.sh (which builds it, linked with
 * simgpu's libcuda.so):
 *   exporttab-client size UUIDHEX          the table's size header
 *   exporttab-client call UUIDHEX SLOT     call a slot with no arguments
 *                                          (a trap: the process aborts)
 *   exporttab-client integrity VERSION     INTEGRITY_CHECK[1] at VERSION
 * Each prints one line; the exit status is 0 when the driver answered
 * CUDA_SUCCESS.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int uuid(const char *hex, CUuuid *id)
{
	if (strlen(hex) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		id->bytes[i] = (char)b;
	}
	return 0;
}

static const void *table(const char *hex, CUresult *rc)
{
	const void *t = NULL;
	CUuuid id;

	if (uuid(hex, &id)) {
		fprintf(stderr, "bad uuid %s\n", hex);
		exit(2);
	}
	*rc = cuGetExportTable(&t, &id);
	return t;
}

int main(int argc, char **argv)
{
	CUresult rc = cuInit(0);
	const void *t;

	if (rc || argc < 3) {
		fprintf(stderr, "usage: exporttab-client size|call|integrity ... (cuInit %d)\n", rc);
		return 2;
	}
	if (!strcmp(argv[1], "size")) {
		t = table(argv[2], &rc);
		printf("size rc %d bytes %lu\n", (int)rc,
		       t ? (unsigned long)*(const uintptr_t *)t : 0UL);
	} else if (!strcmp(argv[1], "call") && argc == 4) {
		t = table(argv[2], &rc);
		if (rc || !t)
			return printf("call rc %d\n", (int)rc), 1;
		fflush(stdout);
		((void (*)(void))((void *const *)t)[atoi(argv[3])])();
		printf("call returned\n");
	} else if (!strcmp(argv[1], "integrity")) {
		uint64_t out[2] = { 0, 0 };
		CUresult (*check)(uint32_t, uint64_t, uint64_t *);

		t = table("d4082055bde6704b8d34ba123c66e1f2", &rc);
		if (rc || !t)
			return printf("integrity rc %d\n", (int)rc), 1;
		check = (CUresult (*)(uint32_t, uint64_t, uint64_t *))((void *const *)t)[1];
		rc = check((uint32_t)atoi(argv[2]), (uint64_t)time(NULL), out);
		printf("integrity rc %d\n", (int)rc);
	} else {
		return 2;
	}
	return rc ? 1 : 0;
}
