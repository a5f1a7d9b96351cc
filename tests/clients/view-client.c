// SPDX-License-Identifier: GPL-2.0
/*
 * view-client: every way CUDA and NVML enumerate devices, for the device
 * view's tests (libvgpu's devview.c). libcuda.so.1 and libnvidia-ml.so.1
 * are opened at run time and their functions found with dlsym, as
 * frameworks do (a preloaded libvgpu answers with its wrappers).
 *
 *   view-client list          one line per enumeration, see below
 *   view-client cuda-pci ID   cuDeviceGetByPCIBusId: "cuda-pci dev D" or error
 *   view-client nvml-uuid U   nvmlDeviceGetHandleByUUID: "nvml-uuid index I" or error
 *   view-client nvml-serial S nvmlDeviceGetHandleBySerial: the same
 *   view-client nvml-pci ID   nvmlDeviceGetHandleByPciBusId_v2: the same
 *   view-client alloc DEV N   allocate N MiB on CUDA device DEV, print
 *                             "holding", sleep until killed
 *   view-client links         every NVLink of every NVML device:
 *                             "nvlink index I link L state 0|1 remote P|ERR"
 *   view-client exec CMD...   cuInit, then exec CMD (a child of a process
 *                             whose CUDA is initialised)
 *   view-client spawn CMD...  cuInit, then run CMD in a child while this
 *                             process stays registered; exits with CMD's
 *                             status
 *
 * list prints:
 *   cuda count N
 *   cuda dev D uuid U pci P bypci D2 peers X,Y..   (cuDeviceCanAccessPeer 0/1 per device)
 *   nvml count N count1 N1                          (_v2 and unversioned)
 *   nvml index I uuid U serial S pci P getindex I2 byuuid I3 byserial I4 bypci I5
 *        byindex1 I6 nearest N7
 *   nvml gpuset cpu0 N
 * (the by* numbers: nvmlDeviceGetIndex of the handle found; nearest: the
 * count of nvmlDeviceGetTopologyNearestGpus at NVML_TOPOLOGY_SYSTEM).
 * An error prints "NAME: error CODE" on stderr and exits 1.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>
#include <nvml.h>

/* nvmlDeviceGetHandleBySerial, deprecated since NVML 13.0, is enumerated
 * on purpose: programs still call it and the view must answer it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void *vc_cu, *vc_nv;

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	if (!p) {
		fprintf(stderr, "view-client: %s not found\n", name);
		exit(1);
	}
	return p;
}

#define CU(name) ((__typeof__(&name))sym(vc_cu, #name))
#define NV(name) ((__typeof__(&name))sym(vc_nv, #name))

static void need(const char *what, int rc)
{
	if (rc) {
		fprintf(stderr, "view-client: %s: error %d\n", what, rc);
		exit(1);
	}
}

static void cuda_list(void)
{
	CUuuid u;
	char pci[32];
	int n, peer;
	CUdevice d, d2;

	need("cuInit", CU(cuInit)(0));
	need("cuDeviceGetCount", CU(cuDeviceGetCount)(&n));
	printf("cuda count %d\n", n);
	for (int i = 0; i < n; i++) {
		const unsigned char *b = (const unsigned char *)u.bytes;

		need("cuDeviceGet", CU(cuDeviceGet)(&d, i));
		need("cuDeviceGetUuid_v2", CU(cuDeviceGetUuid_v2)(&u, d));
		need("cuDeviceGetPCIBusId", CU(cuDeviceGetPCIBusId)(pci, sizeof(pci), d));
		need("cuDeviceGetByPCIBusId", CU(cuDeviceGetByPCIBusId)(&d2, pci));
		printf("cuda dev %d uuid GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		       "%02x%02x%02x%02x%02x%02x pci %s bypci %d peers", i, b[0], b[1], b[2],
		       b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
		       b[14], b[15], pci, d2);
		for (int j = 0; j < n; j++) {
			need("cuDeviceCanAccessPeer", CU(cuDeviceCanAccessPeer)(&peer, d, j));
			printf("%s%d", j ? "," : " ", peer);
		}
		printf("\n");
	}
}

static unsigned int nv_index(nvmlDevice_t d)
{
	unsigned int i;

	need("nvmlDeviceGetIndex", NV(nvmlDeviceGetIndex)(d, &i));
	return i;
}

static void nvml_one(unsigned int i)
{
	char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE], serial[NVML_DEVICE_SERIAL_BUFFER_SIZE];
	nvmlDevice_t d, byuuid, byserial, bypci, byindex1;
	unsigned int nearest = 0;
	nvmlPciInfo_t pci;

	need("nvmlDeviceGetHandleByIndex_v2", NV(nvmlDeviceGetHandleByIndex_v2)(i, &d));
	need("nvmlDeviceGetUUID", NV(nvmlDeviceGetUUID)(d, uuid, sizeof(uuid)));
	need("nvmlDeviceGetSerial", NV(nvmlDeviceGetSerial)(d, serial, sizeof(serial)));
	need("nvmlDeviceGetPciInfo_v3", NV(nvmlDeviceGetPciInfo_v3)(d, &pci));
	need("nvmlDeviceGetHandleByUUID", NV(nvmlDeviceGetHandleByUUID)(uuid, &byuuid));
	need("nvmlDeviceGetHandleBySerial", NV(nvmlDeviceGetHandleBySerial)(serial, &byserial));
	need("nvmlDeviceGetHandleByPciBusId_v2",
	     NV(nvmlDeviceGetHandleByPciBusId_v2)(pci.busId, &bypci));
	need("nvmlDeviceGetHandleByIndex", NV(nvmlDeviceGetHandleByIndex)(i, &byindex1));
	need("nvmlDeviceGetTopologyNearestGpus",
	     NV(nvmlDeviceGetTopologyNearestGpus)(d, NVML_TOPOLOGY_SYSTEM, &nearest, NULL));
	printf("nvml index %u uuid %s serial %s pci %s getindex %u byuuid %u byserial %u "
	       "bypci %u byindex1 %u nearest %u\n", i, uuid, serial, pci.busId, nv_index(d),
	       nv_index(byuuid), nv_index(byserial), nv_index(bypci), nv_index(byindex1),
	       nearest);
}

static void nvml_list(void)
{
	unsigned int n, n1, set = 0;

	need("nvmlInit_v2", NV(nvmlInit_v2)());
	need("nvmlDeviceGetCount_v2", NV(nvmlDeviceGetCount_v2)(&n));
	need("nvmlDeviceGetCount", NV(nvmlDeviceGetCount)(&n1));
	printf("nvml count %u count1 %u\n", n, n1);
	for (unsigned int i = 0; i < n; i++)
		nvml_one(i);
	need("nvmlSystemGetTopologyGpuSet", NV(nvmlSystemGetTopologyGpuSet)(0, &set, NULL));
	printf("nvml gpuset cpu0 %u\n", set);
}

static int nvml_find(const char *how, const char *arg)
{
	nvmlDevice_t d;
	nvmlReturn_t rc;

	need("nvmlInit_v2", NV(nvmlInit_v2)());
	if (!strcmp(how, "nvml-uuid"))
		rc = NV(nvmlDeviceGetHandleByUUID)(arg, &d);
	else if (!strcmp(how, "nvml-serial"))
		rc = NV(nvmlDeviceGetHandleBySerial)(arg, &d);
	else
		rc = NV(nvmlDeviceGetHandleByPciBusId_v2)(arg, &d);
	need(how, rc);
	printf("%s index %u\n", how, nv_index(d));
	return 0;
}

/* Every NVLink of every device NVML shows: its state and far end. */
static int nvml_links(void)
{
	unsigned int n;

	need("nvmlInit_v2", NV(nvmlInit_v2)());
	need("nvmlDeviceGetCount_v2", NV(nvmlDeviceGetCount_v2)(&n));
	for (unsigned int i = 0; i < n; i++) {
		nvmlDevice_t d;

		need("nvmlDeviceGetHandleByIndex_v2", NV(nvmlDeviceGetHandleByIndex_v2)(i, &d));
		for (unsigned int l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
			nvmlEnableState_t on;
			nvmlPciInfo_t pci;
			nvmlReturn_t rc = NV(nvmlDeviceGetNvLinkState)(d, l, &on);

			if (rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED)
				break;	/* past the device's links */
			need("nvmlDeviceGetNvLinkState", rc);
			rc = NV(nvmlDeviceGetNvLinkRemotePciInfo_v2)(d, l, &pci);
			printf("nvlink index %u link %u state %d remote %s\n", i, l,
			       on == NVML_FEATURE_ENABLED, rc ? "ERR" : pci.busId);
		}
	}
	return 0;
}

static _Noreturn void alloc(int dev, size_t mib)
{
	CUcontext c;
	CUdeviceptr p;
	CUdevice d;

	need("cuInit", CU(cuInit)(0));
	need("cuDeviceGet", CU(cuDeviceGet)(&d, dev));
	need("cuDevicePrimaryCtxRetain", CU(cuDevicePrimaryCtxRetain)(&c, d));
	need("cuCtxSetCurrent", CU(cuCtxSetCurrent)(c));
	need("cuMemAlloc_v2", CU(cuMemAlloc_v2)(&p, mib << 20));
	printf("holding %zu MiB on device %d\n", mib, dev);
	fflush(stdout);
	for (;;)
		pause();
}

/* cuInit, then CMD in a child, waited for: its exit status. */
static int spawn(char **cmd)
{
	int st;
	pid_t pid;

	need("cuInit", CU(cuInit)(0));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("view-client: fork");
		return 1;
	}
	if (!pid) {
		execvp(cmd[0], cmd);
		perror("view-client: exec");
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("view-client: waitpid");
		return 1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	vc_cu = dlopen("libcuda.so.1", RTLD_NOW);
	vc_nv = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	if (!vc_cu || !vc_nv) {
		fprintf(stderr, "view-client: %s\n", dlerror());
		return 1;
	}
	if (argc == 2 && !strcmp(argv[1], "list")) {
		cuda_list();
		nvml_list();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "cuda-pci")) {
		CUdevice d;

		need("cuInit", CU(cuInit)(0));
		need("cuDeviceGetByPCIBusId", CU(cuDeviceGetByPCIBusId)(&d, argv[2]));
		printf("cuda-pci dev %d\n", d);
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "nvml-uuid") || !strcmp(argv[1], "nvml-serial") ||
			  !strcmp(argv[1], "nvml-pci")))
		return nvml_find(argv[1], argv[2]);
	if (argc == 2 && !strcmp(argv[1], "links"))
		return nvml_links();
	if (argc >= 3 && !strcmp(argv[1], "spawn"))
		return spawn(argv + 2);
	if (argc >= 3 && !strcmp(argv[1], "exec")) {
		need("cuInit", CU(cuInit)(0));
		execvp(argv[2], argv + 2);
		perror("view-client: exec");
		return 1;
	}
	if (argc == 4 && !strcmp(argv[1], "alloc"))
		alloc(atoi(argv[2]), strtoull(argv[3], NULL, 10));
	fprintf(stderr, "usage: view-client list | cuda-pci ID | nvml-uuid UUID | "
		"nvml-serial SERIAL | nvml-pci ID | alloc DEV MIB | exec CMD... | spawn CMD...\n");
	return 2;
}
