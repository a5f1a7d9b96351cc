// SPDX-License-Identifier: GPL-2.0
/*
 * simgpu NVML topology: common ancestors, nearest GPUs, the GPUs of a CPU,
 * P2P status and NVLinks, from the configured topology (topo.c). NVML API
 * Reference, "Topology Queries" and "NvLink Methods"; the levels are
 * nvmlGpuTopologyLevel_t's.
 */
#define NVML_NO_UNVERSIONED_FUNC_DEFS 1
#include <nvml.h>
#include <string.h>

#include "nvmldev.h"
#include "shm.h"

#define SG_API __attribute__((visibility("default")))

/* Two valid handles: their indices. */
static nvmlReturn_t two(nvmlDevice_t d1, nvmlDevice_t d2, int *a, int *b)
{
	nvmlReturn_t rc = simgpu_nvml_dev(d1, a);

	return rc ? rc : simgpu_nvml_dev(d2, b);
}

SG_API nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1,
							nvmlDevice_t device2,
							nvmlGpuTopologyLevel_t *pathInfo)
{
	int a, b;
	nvmlReturn_t rc = two(device1, device2, &a, &b);

	if (rc)
		return rc;
	if (!pathInfo)
		return NVML_ERROR_INVALID_ARGUMENT;
	*pathInfo = (nvmlGpuTopologyLevel_t)simgpu_topo_level(simgpu_nvml_cfg(), a, b);
	return NVML_SUCCESS;
}

/*
 * The GPUs in want[] (of n), as NVML's count/deviceArray protocol has it:
 * *count 0 asks for the number; else up to *count handles are written and
 * *count becomes the number written.
 */
static nvmlReturn_t gpu_set(const int *want, unsigned int n, unsigned int *count,
			    nvmlDevice_t *deviceArray)
{
	unsigned int i;

	if (!count)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (!*count) {
		*count = n;
		return NVML_SUCCESS;
	}
	if (!deviceArray)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (i = 0; i < n && i < *count; i++)
		deviceArray[i] = simgpu_nvml_handle(want[i]);
	*count = i;
	return NVML_SUCCESS;
}

static int valid_level(nvmlGpuTopologyLevel_t level)
{
	return level == NVML_TOPOLOGY_INTERNAL || level == NVML_TOPOLOGY_SINGLE ||
	       level == NVML_TOPOLOGY_MULTIPLE || level == NVML_TOPOLOGY_HOSTBRIDGE ||
	       level == NVML_TOPOLOGY_NODE || level == NVML_TOPOLOGY_SYSTEM;
}

/* The other GPUs whose common ancestor with device is level or nearer. */
SG_API nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device,
						     nvmlGpuTopologyLevel_t level,
						     unsigned int *count,
						     nvmlDevice_t *deviceArray)
{
	const struct sg_config *cfg;
	int want[SG_MAX_GPUS], a;
	unsigned int n = 0;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &a);

	if (rc)
		return rc;
	if (!valid_level(level))
		return NVML_ERROR_INVALID_ARGUMENT;
	cfg = simgpu_nvml_cfg();
	for (int i = 0; i < cfg->ngpus; i++)
		if (i != a && (int)simgpu_topo_level(cfg, a, i) <= (int)level)
			want[n++] = i;
	return gpu_set(want, n, count, deviceArray);
}

/*
 * The GPUs on CPU cpuNumber's NUMA node; CPUs are numbered node by node,
 * numa_cpus per node (configuration). A CPU past the last GPU node's is
 * invalid.
 */
SG_API nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpuNumber, unsigned int *count,
						nvmlDevice_t *deviceArray)
{
	const struct sg_config *cfg;
	int want[SG_MAX_GPUS], top = -1;
	unsigned int n = 0, node;
	nvmlReturn_t rc = simgpu_nvml_ready();

	if (rc)
		return rc;
	cfg = simgpu_nvml_cfg();
	for (int i = 0; i < cfg->ngpus; i++)
		if (cfg->gpu[i].numa > top)
			top = cfg->gpu[i].numa;
	node = cpuNumber / (unsigned int)cfg->numa_cpus;
	if (top < 0 || node > (unsigned int)top)
		return NVML_ERROR_INVALID_ARGUMENT;
	for (int i = 0; i < cfg->ngpus; i++)
		if (cfg->gpu[i].numa == (int)node)
			want[n++] = i;
	return gpu_set(want, n, count, deviceArray);
}

/*
 * READ, WRITE, PROP: OK where peer access is (topo.c), else the host
 * bridge between them does not support it; NVLINK and ATOMICS: OK over
 * NVLink only. A device with itself is an invalid pair.
 */
SG_API nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2,
					   nvmlGpuP2PCapsIndex_t p2pIndex,
					   nvmlGpuP2PStatus_t *p2pStatus)
{
	const struct sg_config *cfg;
	int a, b, ok;
	nvmlReturn_t rc = two(device1, device2, &a, &b);

	if (rc)
		return rc;
	if (!p2pStatus || a == b)
		return NVML_ERROR_INVALID_ARGUMENT;
	cfg = simgpu_nvml_cfg();
	switch (p2pIndex) {
	case NVML_P2P_CAPS_INDEX_READ:
	case NVML_P2P_CAPS_INDEX_WRITE:
	case NVML_P2P_CAPS_INDEX_PROP:
		ok = simgpu_topo_peer_ok(cfg, a, b);
		*p2pStatus = ok ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED;
		break;
	case NVML_P2P_CAPS_INDEX_NVLINK:
	case NVML_P2P_CAPS_INDEX_ATOMICS:
		ok = cfg->gpu[a].nvlink[b] != 0;
		*p2pStatus = ok ? NVML_P2P_STATUS_OK : NVML_P2P_STATUS_NOT_SUPPORTED;
		break;
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	return NVML_SUCCESS;
}

/*
 * A GPU with no NVLink configured does not support the NvLink queries (a
 * PCIe card); one with links has NVML_NVLINK_MAX_LINKS of them, the first
 * ones active (see simgpu_topo_link_peer) and the rest inactive.
 */
static nvmlReturn_t link_args(nvmlDevice_t device, unsigned int link, void *out, int *peer)
{
	const struct sg_config *cfg;
	int a;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &a);

	if (rc)
		return rc;
	if (!out || link >= NVML_NVLINK_MAX_LINKS)
		return NVML_ERROR_INVALID_ARGUMENT;
	cfg = simgpu_nvml_cfg();
	if (!simgpu_topo_nlinks(cfg, a))
		return NVML_ERROR_NOT_SUPPORTED;
	*peer = simgpu_topo_link_peer(cfg, a, (int)link);
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
					     nvmlEnableState_t *isActive)
{
	int peer;
	nvmlReturn_t rc = link_args(device, link, isActive, &peer);

	if (rc)
		return rc;
	*isActive = peer >= 0 ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
	return NVML_SUCCESS;
}

/* NVLink 4, as on the H100 simgpu models. */
SG_API nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link,
					       unsigned int *version)
{
	int peer;
	nvmlReturn_t rc = link_args(device, link, version, &peer);

	if (rc)
		return rc;
	*version = 4;
	return NVML_SUCCESS;
}

/* An active link to a GPU: valid, P2P and P2P atomics; no system memory, no SLI. */
SG_API nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device, unsigned int link,
						  nvmlNvLinkCapability_t capability,
						  unsigned int *capResult)
{
	int peer;
	nvmlReturn_t rc = link_args(device, link, capResult, &peer);

	if (rc)
		return rc;
	switch (capability) {
	case NVML_NVLINK_CAP_P2P_SUPPORTED:
	case NVML_NVLINK_CAP_P2P_ATOMICS:
	case NVML_NVLINK_CAP_VALID:
		*capResult = peer >= 0;
		break;
	case NVML_NVLINK_CAP_SYSMEM_ACCESS:
	case NVML_NVLINK_CAP_SYSMEM_ATOMICS:
	case NVML_NVLINK_CAP_SLI_BRIDGE:
		*capResult = 0;
		break;
	default:
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	return NVML_SUCCESS;
}

/* The PCI information of the GPU at the far end; an inactive link has none. */
SG_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
							nvmlPciInfo_t *pci)
{
	int peer;
	nvmlReturn_t rc = link_args(device, link, pci, &peer);

	if (rc)
		return rc;
	if (peer < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	simgpu_nvml_pci(peer, pci);
	pci->pciSubSystemId = 0;	/* "not filled in this function" */
	return NVML_SUCCESS;
}

SG_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link,
						     nvmlPciInfo_t *pci)
{
	return nvmlDeviceGetNvLinkRemotePciInfo_v2(device, link, pci);
}

/* A GPU at the far end of every active link (simgpu models no NVSwitch);
 * an inactive link has no remote device, as for its PCI information. */
SG_API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
							nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
	int peer;
	nvmlReturn_t rc = link_args(device, link, pNvLinkDeviceType, &peer);

	if (rc)
		return rc;
	if (peer < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	*pNvLinkDeviceType = NVML_NVLINK_DEVICE_TYPE_GPU;
	return NVML_SUCCESS;
}

/*
 * GPU fabric (NVSwitch systems' fabric manager registration): simgpu models
 * no NVSwitch fabric, so no device supports it, which the NVML reference
 * answers with NVML_ERROR_NOT_SUPPORTED ("If device doesn't support gpu
 * fabric"). PyTorch resolves nvmlDeviceGetGpuFabricInfoV and tolerates the
 * error (Documentation/simgpu.md, "PyTorch on simgpu").
 */
static nvmlReturn_t no_fabric(nvmlDevice_t device, void *out)
{
	int a;
	nvmlReturn_t rc = simgpu_nvml_dev(device, &a);

	if (rc)
		return rc;
	return out ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
}

SG_API nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo)
{
	return no_fabric(device, gpuFabricInfo);
}

SG_API nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
	return no_fabric(device, gpuFabricInfo);
}
