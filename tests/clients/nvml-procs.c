// SPDX-License-Identifier: GPL-2.0
/*
 * nvml-procs: NVML's per-process views of GPU 0 (libnvidia-ml.so.1,
 * opened at run time as nvidia-smi does), one line:
 *
 *   compute P graphics P mps P graphics1 P mps2 P util P detail P all P util2 P
 *   bar1 total T used U free F
 *
 * each P the pids listed, comma-separated ("-": none): compute, graphics
 * and mps from the _v3 lists, graphics1 from the _v1 and mps2 from the _v2
 * layout, util from nvmlDeviceGetProcessUtilization (all samples); detail
 * (compute mode) and all (NVML_PROCESS_MODE_ALL) from
 * nvmlDeviceGetRunningProcessDetailList, util2 from
 * nvmlDeviceGetProcessesUtilizationInfo (NVML 12.4+; each sized first with
 * a NULL array, as NVIDIA documents). Exit status 0, 1 when NVML refused
 * (the call named on stderr).
 *
 * nvml-procs bad: the two NVML 12.4+ calls' answers to bad input, one line
 * of NVML return codes (what libvgpu must pass unchanged):
 *
 *   detail null R version R mode R entries-no-array R util2 null R version R no-array R
 */
#include <dlfcn.h>
#include <stddef.h>
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

/* Append " NAME pids" for n entries of size bytes, the pid at off. */
static void np_put_at(const char *name, const void *e, unsigned int n, size_t size, size_t off)
{
	printf(" %s ", name);
	if (!n)
		printf("-");
	for (unsigned int i = 0; i < n; i++) {
		unsigned int pid;

		memcpy(&pid, (const char *)e + i * size + off, sizeof(pid));
		printf("%s%u", i ? "," : "", pid);
	}
}

static void np_put(const char *name, const void *e, unsigned int n, size_t size)
{
	np_put_at(name, e, n, size, 0);
}

/* The detail list of one mode: sized with a NULL array, then read. */
static void np_detail(nvmlDevice_t d, const char *name, unsigned int mode)
{
	nvmlReturn_t (*f)(nvmlDevice_t, nvmlProcessDetailList_t *) =
		np_sym("nvmlDeviceGetRunningProcessDetailList");
	static nvmlProcessDetail_v1_t a[NP_MAX];
	nvmlProcessDetailList_t l = { .version = nvmlProcessDetailList_v1, .mode = mode };
	nvmlReturn_t rc = f(d, &l);

	if (rc != NVML_ERROR_INSUFFICIENT_SIZE)
		np_check("nvmlDeviceGetRunningProcessDetailList (size)", rc);
	l.procArray = a;
	l.numProcArrayEntries = NP_MAX;
	np_check("nvmlDeviceGetRunningProcessDetailList", f(d, &l));
	np_put_at(name, a, l.numProcArrayEntries, sizeof(a[0]), offsetof(nvmlProcessDetail_v1_t, pid));
}

/* The samples' newer form: sized with a NULL array, then read (all). */
static void np_util2(nvmlDevice_t d)
{
	nvmlReturn_t (*f)(nvmlDevice_t, nvmlProcessesUtilizationInfo_t *) =
		np_sym("nvmlDeviceGetProcessesUtilizationInfo");
	static nvmlProcessUtilizationInfo_v1_t a[NP_MAX];
	nvmlProcessesUtilizationInfo_t u = { .version = nvmlProcessesUtilizationInfo_v1 };
	nvmlReturn_t rc = f(d, &u);

	if (rc != NVML_ERROR_INSUFFICIENT_SIZE && rc != NVML_ERROR_NOT_FOUND)
		np_check("nvmlDeviceGetProcessesUtilizationInfo (size)", rc);
	u.procUtilArray = a;
	u.processSamplesCount = NP_MAX;
	rc = f(d, &u);
	if (rc == NVML_ERROR_NOT_FOUND)
		u.processSamplesCount = 0;
	else
		np_check("nvmlDeviceGetProcessesUtilizationInfo", rc);
	np_put_at("util2", a, u.processSamplesCount, sizeof(a[0]),
		  offsetof(nvmlProcessUtilizationInfo_v1_t, pid));
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

/* Bad input to the two NVML 12.4+ calls: NVML's return codes, one line. */
static int np_bad(nvmlDevice_t d)
{
	nvmlReturn_t (*f)(nvmlDevice_t, nvmlProcessDetailList_t *) =
		np_sym("nvmlDeviceGetRunningProcessDetailList");
	nvmlReturn_t (*g)(nvmlDevice_t, nvmlProcessesUtilizationInfo_t *) =
		np_sym("nvmlDeviceGetProcessesUtilizationInfo");
	nvmlProcessDetailList_t l = { .version = nvmlProcessDetailList_v1 + 1 };
	nvmlProcessesUtilizationInfo_t u = { .version = nvmlProcessesUtilizationInfo_v1 + 1 };

	printf("detail null %d", (int)f(d, NULL));
	printf(" version %d", (int)f(d, &l));
	l = (nvmlProcessDetailList_t){ .version = nvmlProcessDetailList_v1,
				       .mode = NVML_PROCESS_MODE_MAX };
	printf(" mode %d", (int)f(d, &l));
	l = (nvmlProcessDetailList_t){ .version = nvmlProcessDetailList_v1,
				       .numProcArrayEntries = 4 };
	printf(" entries-no-array %d", (int)f(d, &l));
	printf(" util2 null %d", (int)g(d, NULL));
	printf(" version %d", (int)g(d, &u));
	u = (nvmlProcessesUtilizationInfo_t){ .version = nvmlProcessesUtilizationInfo_v1,
					      .processSamplesCount = 4 };
	printf(" no-array %d\n", (int)g(d, &u));
	return 0;
}

int main(int argc, char **argv)
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
	if (argc > 1 && !strcmp(argv[1], "bad"))
		return np_bad(d);
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
	np_detail(d, "detail", NVML_PROCESS_MODE_COMPUTE);
	np_detail(d, "all", NVML_PROCESS_MODE_ALL);
	np_util2(d);
	np_check("nvmlDeviceGetBAR1MemoryInfo", bar1(d, &b));
	printf(" bar1 total %llu used %llu free %llu\n", b.bar1Total, b.bar1Used, b.bar1Free);
	return 0;
}
