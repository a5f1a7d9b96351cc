// SPDX-License-Identifier: GPL-2.0
/*
 * nvml-limit: read or set a cgroup's per-cgroup memory limits in the
 * driver through NVML (libnvidia-ml.so.1, opened at run time), as
 * nvidia-smi memory-limits would: the tests' way to change the driver
 * behind vgpuctl's back.
 *
 *   nvml-limit get GPU DIR               "soft S hard H used U" (H "max")
 *   nvml-limit set GPU DIR SOFT HARD     HARD "max" for none
 *
 * GPU is NVML's index, DIR the cgroup's directory. Exit status 0, 1 with
 * "nvml-limit: FUNCTION: error N" on stderr when NVML refused, 2 on a
 * usage error.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvml.h>

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);

	if (!p) {
		fprintf(stderr, "nvml-limit: %s not found\n", name);
		exit(1);
	}
	return p;
}

static int usage(void)
{
	fputs("usage: nvml-limit get GPU DIR | nvml-limit set GPU DIR SOFT HARD|max\n", stderr);
	return 2;
}

static int failed(const char *fn, nvmlReturn_t rc)
{
	fprintf(stderr, "nvml-limit: %s: error %d\n", fn, (int)rc);
	return 1;
}

int main(int argc, char **argv)
{
	nvmlReturn_t (*init)(void), (*by_index)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*set)(nvmlDevice_t, nvmlSetMemoryLimits_v1_t *);
	nvmlReturn_t (*get)(nvmlDevice_t, nvmlGetMemoryLimits_v1_t *);
	nvmlDevice_t dev;
	nvmlReturn_t rc;
	void *h;

	if (argc < 4 || (strcmp(argv[1], "get") && strcmp(argv[1], "set")) ||
	    (!strcmp(argv[1], "set") && argc != 6) || (!strcmp(argv[1], "get") && argc != 4))
		return usage();
	h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	if (!h) {
		fprintf(stderr, "nvml-limit: %s\n", dlerror());
		return 1;
	}
	init = (nvmlReturn_t (*)(void))sym(h, "nvmlInit_v2");
	by_index = (nvmlReturn_t (*)(unsigned int, nvmlDevice_t *))
		sym(h, "nvmlDeviceGetHandleByIndex_v2");
	set = (nvmlReturn_t (*)(nvmlDevice_t, nvmlSetMemoryLimits_v1_t *))
		sym(h, "nvmlDeviceSetMemoryLimits_v1");
	get = (nvmlReturn_t (*)(nvmlDevice_t, nvmlGetMemoryLimits_v1_t *))
		sym(h, "nvmlDeviceGetMemoryLimits_v1");
	rc = init();
	if (rc)
		return failed("nvmlInit_v2", rc);
	rc = by_index((unsigned int)strtoul(argv[2], NULL, 10), &dev);
	if (rc)
		return failed("nvmlDeviceGetHandleByIndex_v2", rc);
	if (!strcmp(argv[1], "set")) {
		nvmlSetMemoryLimits_v1_t l = {
			.nameSpace = argv[3],
			.softLimit = strtoull(argv[4], NULL, 10),
			.hardLimit = strcmp(argv[5], "max") ? strtoull(argv[5], NULL, 10) :
				     NVML_DEVICE_MEMORY_LIMIT_MAX,
		};

		rc = set(dev, &l);
		return rc ? failed("nvmlDeviceSetMemoryLimits_v1", rc) : 0;
	} else {
		nvmlGetMemoryLimits_v1_t l = { .nameSpace = argv[3] };

		rc = get(dev, &l);
		if (rc)
			return failed("nvmlDeviceGetMemoryLimits_v1", rc);
		printf("soft %llu hard ", l.softLimit);
		if (l.hardLimit == NVML_DEVICE_MEMORY_LIMIT_MAX)
			printf("max");
		else
			printf("%llu", l.hardLimit);
		printf(" used %llu\n", l.currentUsed);
	}
	return 0;
}
