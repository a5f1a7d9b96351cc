// SPDX-License-Identifier: GPL-2.0
/*
 * nvml-procs: NVML's per-process views of GPU 0 (libnvidia-ml.so.1,
 * opened at run time as nvidia-smi does), one line:
 *
 *   compute P graphics P mps P graphics1 P mps2 P util P bar1 total T used U free F
 *
 * each P the pids listed, comma-separated ("-": none): compute, graphics
 * and mps from the _v3 lists, graphics1 from the _v1 and mps2 from the _v2
 * layout, util from nvmlDeviceGetProcessUtilization (all samples). Exit
 * status 0, 1 when NVML refused (the call named on stderr).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvml.h>

#define NP_MAX 64

static void *np_lib;

static void *np_sym(const char *name)
{
	void *p = dlsym(np_lib, name);

	if (!p) {
		fprintf(stderr, "nvml-procs: %s not found\n", name);
		exit(1);
	}
	return p;
}

static void np_check(const char *what, nvmlReturn_t rc)
{
	if (rc != NVML_SUCCESS) {
		fprintf(stderr, "nvml-procs: %s: error %d\n", what, (int)rc);
		exit(1);
	}
}

/* Append " NAME pids" for n entries of size bytes, pid first. */
static void np_put(const char *name, const void *e, unsigned int n, size_t size)
{
	printf(" %s ", name);
	if (!n)
		printf("-");
	for (unsigned int i = 0; i < n; i++) {
		unsigned int pid;

		memcpy(&pid, (const char *)e + i * size, sizeof(pid));
		printf("%s%u", i ? "," : "", pid);
	}
}

/* One process list through the named function (the entries' size given). */
static void np_list(nvmlDevice_t d, const char *name, const char *fn, size_t size)
{
	nvmlReturn_t (*f)(nvmlDevice_t, unsigned int *, void *) = np_sym(fn);
	static char buf[NP_MAX * sizeof(nvmlProcessInfo_t)];
	unsigned int n = NP_MAX;

	np_check(fn, f(d, &n, buf));
	np_put(name, buf, n, size);
}

int main(void)
{
	nvmlReturn_t (*init)(void), (*handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*util)(nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned int *,
			     unsigned long long);
	nvmlReturn_t (*bar1)(nvmlDevice_t, nvmlBAR1Memory_t *);
	nvmlProcessUtilizationSample_t s[NP_MAX];
	nvmlBAR1Memory_t b;
	unsigned int n = NP_MAX;
	nvmlDevice_t d;
	nvmlReturn_t rc;

	np_lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!np_lib) {
		fprintf(stderr, "nvml-procs: %s\n", dlerror());
		return 1;
	}
	init = np_sym("nvmlInit_v2");
	handle = np_sym("nvmlDeviceGetHandleByIndex_v2");
	util = np_sym("nvmlDeviceGetProcessUtilization");
	bar1 = np_sym("nvmlDeviceGetBAR1MemoryInfo");
	np_check("nvmlInit_v2", init());
	np_check("nvmlDeviceGetHandleByIndex_v2", handle(0, &d));
	np_list(d, "compute", "nvmlDeviceGetComputeRunningProcesses_v3", sizeof(nvmlProcessInfo_t));
	np_list(d, "graphics", "nvmlDeviceGetGraphicsRunningProcesses_v3", sizeof(nvmlProcessInfo_t));
	np_list(d, "mps", "nvmlDeviceGetMPSComputeRunningProcesses_v3", sizeof(nvmlProcessInfo_t));
	np_list(d, "graphics1", "nvmlDeviceGetGraphicsRunningProcesses", sizeof(nvmlProcessInfo_v1_t));
	np_list(d, "mps2", "nvmlDeviceGetMPSComputeRunningProcesses_v2", sizeof(nvmlProcessInfo_v2_t));
	rc = util(d, s, &n, 0);
	if (rc == NVML_ERROR_NOT_FOUND)
		n = 0;
	else
		np_check("nvmlDeviceGetProcessUtilization", rc);
	np_put("util", s, n, sizeof(s[0]));
	np_check("nvmlDeviceGetBAR1MemoryInfo", bar1(d, &b));
	printf(" bar1 total %llu used %llu free %llu\n", b.bar1Total, b.bar1Used, b.bar1Free);
	return 0;
}
