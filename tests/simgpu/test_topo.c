// SPDX-License-Identifier: GPL-2.0
/*
 * Topology checks for test-logic-asan: the configuration keys (nvlink,
 * pci_path, numa_cpus), the levels and links they give, and the driver's
 * and NVML's answers on a 4-GPU topology:
 *   GPU 0, 1: host bridge 0, one PCIe switch, NUMA node 0;
 *   GPU 2, 3: host bridge 1, a switch each, NUMA node 1, 4 NVLinks.
 */
#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
#include <nvml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simgpu.h"

static int fails;

static void check(int ok, const char *what, const char *detail)
{
	if (ok)
		printf("PASS: simgpu: %s\n", what);
	else
		printf("FAIL: simgpu: %s: %s\n", what, detail);
	fails += !ok;
}

static const char topo4[] =
	"gpus = 4\n"
	"gpu0.pci_path = 0/1\ngpu1.pci_path = 0/1\ngpu0.numa = 0\ngpu1.numa = 0\n"
	"gpu2.pci_path = 1/2\ngpu3.pci_path = 1/3\ngpu2.numa = 1\ngpu3.numa = 1\n"
	"gpu2.nvlink = 3:4\n";

static int parse(const char *text, struct sg_config *c, char *err)
{
	simgpu_config_defaults(c, 2);
	err[0] = 0;
	return simgpu_config_parse(c, text, "test", err, 256) ||
	       simgpu_topo_check(c, err, 256);
}

static void config_checks(void)
{
	struct sg_config c;
	char err[256];

	check(!parse(topo4, &c, err) && c.gpu[2].nvlink[3] == 4 && c.gpu[3].nvlink[2] == 4 &&
	      c.gpu[2].path_len == 2 && c.gpu[2].path[1] == 2 && simgpu_topo_nlinks(&c, 2) == 4 &&
	      !simgpu_topo_nlinks(&c, 0),
	      "asan: topo: nvlink set on both ends, pci_path parsed", err);
	check(!parse("gpus = 3\ngpu0.nvlink = 1:2, 2\ngpu2.nvlink = none\n", &c, err) &&
	      c.gpu[0].nvlink[1] == 2 && !c.gpu[0].nvlink[2] && !c.gpu[2].nvlink[0] &&
	      simgpu_topo_link_peer(&c, 0, 1) == 1 && simgpu_topo_link_peer(&c, 0, 2) == -1,
	      "asan: topo: nvlink lists, none drops both ends, links numbered peer by peer", err);
	check(parse("gpu1.nvlink = 1\n", &c, err) && strstr(err, "to itself"),
	      "asan: topo: an nvlink to itself refused", err);
	check(parse("gpu0.nvlink = 1:19\n", &c, err) && strstr(err, "bad nvlink count"),
	      "asan: topo: 19 links refused", err);
	check(parse("gpu0.nvlink = 1,\n", &c, err) && strstr(err, "bad nvlink"),
	      "asan: topo: a trailing comma refused", err);
	check(parse("gpu0.nvlink = 5\n", &c, err) && strstr(err, "names gpu5"),
	      "asan: topo: a link to a GPU beyond gpus refused", err);
	check(parse("gpus = 3\ngpu0.nvlink = 1:10\ngpu2.nvlink = 0:9\n", &c, err) &&
	      strstr(err, "19 nvlinks"), "asan: topo: more than 18 links on a GPU refused", err);
	check(parse("gpu0.pci_path = 0/1/2/3/4\n", &c, err) && strstr(err, "bad pci_path") &&
	      parse("gpu0.pci_path = 0/\n", &c, err) && parse("gpu0.pci_path = 256\n", &c, err),
	      "asan: topo: bad pci paths refused", err);
	check(parse("gpu1.pci_path = 0\n", &c, err) && strstr(err, "share host bridge 0"),
	      "asan: topo: one host bridge on two numa nodes refused", err);
	check(parse("numa_cpus = 0\n", &c, err) && strstr(err, "numa_cpus"),
	      "asan: topo: numa_cpus 0 refused", err);
	check(!parse("gpus = 4\ngpu0.pci_path = 0/1/2\ngpu1.pci_path = 0/1\ngpu1.numa = 0\n"
		     "gpu2.numa = 0\n", &c, err) &&
	      simgpu_topo_level(&c, 0, 1) == SG_TOPO_MULTIPLE &&
	      simgpu_topo_level(&c, 0, 2) == SG_TOPO_NODE &&
	      simgpu_topo_level(&c, 1, 3) == SG_TOPO_SYSTEM &&
	      simgpu_topo_level(&c, 3, 3) == SG_TOPO_INTERNAL &&
	      simgpu_topo_peer_ok(&c, 0, 1) && !simgpu_topo_peer_ok(&c, 0, 2),
	      "asan: topo: MULTIPLE below a shared upper switch, NODE, SYSTEM", err);
	simgpu_config_defaults(&c, 2);
	check(simgpu_topo_level(&c, 0, 1) == SG_TOPO_SYSTEM && !simgpu_topo_peer_ok(&c, 0, 1),
	      "asan: topo: default GPUs share nothing (no peer access)", "peer");
}

/* CUDA_VISIBLE_DEVICES on topo4 (in simgpu_cfg). */
static void visible_checks(void)
{
	const struct sg_config *c = &simgpu_cfg;
	char uuid3[16], detail[64];
	int v[SG_MAX_GPUS], peer = -1;
	CUdevice d = -1;

	snprintf(uuid3, sizeof(uuid3), "%.12s", c->gpu[3].uuid);
	check(simgpu_visible_parse(c, "3,1", v) == 2 && v[0] == 3 && v[1] == 1 &&
	      simgpu_visible_parse(c, "2, 7, 1", v) == 1 && v[0] == 2 &&
	      simgpu_visible_parse(c, "1,1", v) == 1 && !simgpu_visible_parse(c, "", v) &&
	      !simgpu_visible_parse(c, "-1", v) && !simgpu_visible_parse(c, "MIG-abc", v) &&
	      simgpu_visible_parse(c, NULL, v) == 4,
	      "asan: visible: indices in order, stop at an invalid or repeated entry, unset all",
	      "wrong set");
	check(simgpu_visible_parse(c, c->gpu[2].uuid, v) == 1 && v[0] == 2 &&
	      simgpu_visible_parse(c, uuid3, v) == 1 && v[0] == 3 &&
	      !simgpu_visible_parse(c, "GPU-", v),
	      "asan: visible: full UUIDs and unique prefixes", uuid3);
	simgpu_nvis = simgpu_visible_parse(c, "3,2", simgpu_vis);
	cuDeviceCanAccessPeer(&peer, 0, 1);
	snprintf(detail, sizeof(detail), "peer %d, by pci %d", peer, d);
	check(!cuDeviceGetByPCIBusId(&d, c->gpu[2].pci) && d == 1 && peer == 1 &&
	      cuDeviceGetByPCIBusId(&d, c->gpu[0].pci) == CUDA_ERROR_INVALID_DEVICE &&
	      cuDeviceGet(&d, 2) == CUDA_ERROR_INVALID_DEVICE,
	      "asan: visible: devices 0,1 are GPUs 3,2 (PCI ids, peers); GPU 0 is absent", detail);
}

/* The driver's P2P queries, on topo4 in place of the loaded configuration. */
static void driver_checks(void)
{
	struct sg_config saved = simgpu_cfg;
	int saved_nvis = simgpu_nvis, saved_vis[SG_MAX_GPUS];
	char err[256], detail[160];
	int p01 = -1, p23 = -1, p02 = -1, p00 = -1, acc = -1, atom = -1, rank = -1, nacc = -1;
	CUresult self, bad;

	memcpy(saved_vis, simgpu_vis, sizeof(saved_vis));
	if (parse(topo4, &simgpu_cfg, err)) {
		check(0, "asan: topo: driver P2P", err);
		simgpu_cfg = saved;
		return;
	}
	simgpu_nvis = simgpu_visible_parse(&simgpu_cfg, NULL, simgpu_vis);
	cuDeviceCanAccessPeer(&p01, 0, 1);
	cuDeviceCanAccessPeer(&p23, 3, 2);
	cuDeviceCanAccessPeer(&p02, 0, 2);
	cuDeviceCanAccessPeer(&p00, 0, 0);
	cuDeviceGetP2PAttribute(&acc, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 2, 3);
	cuDeviceGetP2PAttribute(&atom, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 2, 3);
	cuDeviceGetP2PAttribute(&rank, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 2, 3);
	cuDeviceGetP2PAttribute(&nacc, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 2);
	self = cuDeviceGetP2PAttribute(&acc, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 1, 1);
	bad = cuDeviceGetP2PAttribute(&acc, (CUdevice_P2PAttribute)99, 0, 1);
	snprintf(detail, sizeof(detail),
		 "peer 0-1 %d 3-2 %d 0-2 %d 0-0 %d; 2-3 access %d atomics %d rank %d; 0-2 %d; self %d bad %d",
		 p01, p23, p02, p00, acc, atom, rank, nacc, self, bad);
	check(p01 == 1 && p23 == 1 && p02 == 0 && p00 == 0,
	      "asan: topo: cuDeviceCanAccessPeer: one switch or NVLink yes, across sockets or itself no",
	      detail);
	check(acc == 1 && atom == 1 && rank == 1 && nacc == 0 &&
	      self == CUDA_ERROR_INVALID_DEVICE && bad == CUDA_ERROR_INVALID_VALUE,
	      "asan: topo: cuDeviceGetP2PAttribute over NVLink, none across sockets, errors", detail);
	visible_checks();
	simgpu_cfg = saved;
	simgpu_nvis = saved_nvis;
	memcpy(simgpu_vis, saved_vis, sizeof(saved_vis));
}

static int is(nvmlDevice_t *arr, unsigned int n, unsigned int want_n, const int *want)
{
	nvmlDevice_t d;

	if (n != want_n)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		if (nvmlDeviceGetHandleByIndex_v2((unsigned int)want[i], &d) || d != arr[i])
			return 0;
	return 1;
}

static void nvml_level_checks(nvmlDevice_t *d)
{
	nvmlGpuTopologyLevel_t l01 = 99, l23 = 99, l13 = 99;
	nvmlDevice_t arr[4];
	unsigned int n0 = 0, n1 = 4, n2 = 4, n3 = 4, n4 = 4, n5 = 0;
	nvmlReturn_t cpu_bad;
	char detail[128];

	nvmlDeviceGetTopologyCommonAncestor(d[0], d[1], &l01);
	nvmlDeviceGetTopologyCommonAncestor(d[2], d[3], &l23);
	nvmlDeviceGetTopologyCommonAncestor(d[1], d[3], &l13);
	snprintf(detail, sizeof(detail), "0-1 %d 2-3 %d 1-3 %d", l01, l23, l13);
	check(l01 == NVML_TOPOLOGY_SINGLE && l23 == NVML_TOPOLOGY_HOSTBRIDGE &&
	      l13 == NVML_TOPOLOGY_SYSTEM, "asan: topo: nvmlDeviceGetTopologyCommonAncestor", detail);
	check(!nvmlDeviceGetTopologyNearestGpus(d[0], NVML_TOPOLOGY_SYSTEM, &n0, NULL) && n0 == 3 &&
	      !nvmlDeviceGetTopologyNearestGpus(d[0], NVML_TOPOLOGY_SINGLE, &n1, arr) &&
	      is(arr, n1, 1, (int[]){ 1 }) &&
	      !nvmlDeviceGetTopologyNearestGpus(d[3], NVML_TOPOLOGY_NODE, &n2, arr) &&
	      is(arr, n2, 1, (int[]){ 2 }) &&
	      nvmlDeviceGetTopologyNearestGpus(d[3], 7, &n3, arr) == NVML_ERROR_INVALID_ARGUMENT,
	      "asan: topo: nvmlDeviceGetTopologyNearestGpus (count query, levels, bad level)",
	      "wrong set");
	cpu_bad = nvmlSystemGetTopologyGpuSet(16, &n5, NULL);
	check(!nvmlSystemGetTopologyGpuSet(0, &n3, arr) && is(arr, n3, 2, (int[]){ 0, 1 }) &&
	      !nvmlSystemGetTopologyGpuSet(15, &n4, arr) && is(arr, n4, 2, (int[]){ 2, 3 }) &&
	      cpu_bad == NVML_ERROR_INVALID_ARGUMENT,
	      "asan: topo: nvmlSystemGetTopologyGpuSet by NUMA node (8 CPUs each)", "wrong set");
}

static void nvml_link_checks(nvmlDevice_t *d)
{
	nvmlGpuP2PStatus_t s01 = 99, s02 = 99, s23 = 99, s01n = 99;
	nvmlEnableState_t on = 99, off = 99, x;
	nvmlPciInfo_t pci, want;
	unsigned int cap = 99;
	char detail[160];

	nvmlDeviceGetP2PStatus(d[0], d[1], NVML_P2P_CAPS_INDEX_READ, &s01);
	nvmlDeviceGetP2PStatus(d[0], d[2], NVML_P2P_CAPS_INDEX_WRITE, &s02);
	nvmlDeviceGetP2PStatus(d[2], d[3], NVML_P2P_CAPS_INDEX_NVLINK, &s23);
	nvmlDeviceGetP2PStatus(d[0], d[1], NVML_P2P_CAPS_INDEX_NVLINK, &s01n);
	snprintf(detail, sizeof(detail), "0-1 read %d, 0-2 write %d, 2-3 nvlink %d, 0-1 nvlink %d",
		 s01, s02, s23, s01n);
	check(s01 == NVML_P2P_STATUS_OK && s02 == NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED &&
	      s23 == NVML_P2P_STATUS_OK && s01n == NVML_P2P_STATUS_NOT_SUPPORTED &&
	      nvmlDeviceGetP2PStatus(d[1], d[1], NVML_P2P_CAPS_INDEX_READ, &s01) ==
	      NVML_ERROR_INVALID_ARGUMENT, "asan: topo: nvmlDeviceGetP2PStatus", detail);
	nvmlDeviceGetNvLinkState(d[3], 3, &on);
	nvmlDeviceGetNvLinkState(d[3], 4, &off);
	nvmlDeviceGetPciInfo_v3(d[2], &want);
	check(on == NVML_FEATURE_ENABLED && off == NVML_FEATURE_DISABLED &&
	      nvmlDeviceGetNvLinkState(d[3], NVML_NVLINK_MAX_LINKS, &x) ==
	      NVML_ERROR_INVALID_ARGUMENT &&
	      nvmlDeviceGetNvLinkState(d[0], 0, &x) == NVML_ERROR_NOT_SUPPORTED &&
	      !nvmlDeviceGetNvLinkRemotePciInfo_v2(d[3], 0, &pci) &&
	      !strcmp(pci.busId, want.busId) &&
	      nvmlDeviceGetNvLinkRemotePciInfo(d[3], 4, &pci) == NVML_ERROR_INVALID_ARGUMENT &&
	      !nvmlDeviceGetNvLinkCapability(d[2], 1, NVML_NVLINK_CAP_P2P_SUPPORTED, &cap) &&
	      cap == 1,
	      "asan: topo: NvLink state, remote PCI info, capability (4 links 2-3, none on 0)",
	      "wrong answer");
}

static void nvml_checks(void)
{
	char path[] = "/tmp/simgpu-topo-XXXXXX";
	nvmlDevice_t d[4];
	unsigned int n = 0;
	int fd = mkstemp(path);
	int ok = fd >= 0 && write(fd, topo4, sizeof(topo4) - 1) == sizeof(topo4) - 1;

	if (fd >= 0)
		close(fd);
	ok = ok && !setenv("SIMGPU_CONFIG", path, 1) && !nvmlInit_v2() &&
	     !nvmlDeviceGetCount_v2(&n) && n == 4;
	for (unsigned int i = 0; ok && i < 4; i++)
		ok = !nvmlDeviceGetHandleByIndex_v2(i, &d[i]);
	if (fd >= 0)
		unlink(path);
	check(ok, "asan: topo: NVML on a 4-GPU topology", "init failed");
	if (!ok)
		return;
	nvml_level_checks(d);
	nvml_link_checks(d);
	nvmlShutdown();
}

int simgpu_topo_tests(void)
{
	config_checks();
	driver_checks();
	nvml_checks();
	return fails;
}
