// SPDX-License-Identifier: GPL-2.0
/*
 * Device queries: count, names, UUIDs, PCI ids and attributes of the
 * configured GPUs (an H100-like part, compute capability 9.0).
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "simgpu.h"

CUresult simgpu_check_dev(CUdevice dev)
{
	SG_INIT_CHECK();
	if (dev < 0 || dev >= simgpu_nvis)
		return CUDA_ERROR_INVALID_DEVICE;
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceGetCount(int *count)
{
	SG_GATE();
	SG_INIT_CHECK();
	if (!count)
		return CUDA_ERROR_INVALID_VALUE;
	*count = simgpu_nvis;
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(ordinal);

	if (rc)
		return rc;
	if (!device)
		return CUDA_ERROR_INVALID_VALUE;
	*device = ordinal;
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!name || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "%s", simgpu_cfg.name);
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!uuid)
		return CUDA_ERROR_INVALID_VALUE;
	simgpu_uuid_parse(simgpu_cfg.gpu[simgpu_phys(dev)].uuid, (unsigned char *)uuid->bytes);
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
	SG_GATE();
	return cuDeviceGetUuid_v2(uuid, dev);
}

SG_API CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!pciBusId || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(pciBusId, (size_t)len, "%s", simgpu_cfg.gpu[simgpu_phys(dev)].pci);
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId)
{
	SG_GATE();
	unsigned int d, b, s, f = 0;
	int n;

	SG_INIT_CHECK();
	if (!dev || !pciBusId)
		return CUDA_ERROR_INVALID_VALUE;
	/* Accepts [domain]:[bus]:[device].[function] and [bus]:[device]. */
	n = sscanf(pciBusId, "%x:%x:%x.%x", &d, &b, &s, &f);
	if (n < 3) {
		d = 0;
		if (sscanf(pciBusId, "%x:%x.%x", &b, &s, &f) < 2)
			return CUDA_ERROR_INVALID_VALUE;
	}
	for (int i = 0; i < simgpu_nvis; i++) {
		const struct sg_gpu_config *g = &simgpu_cfg.gpu[simgpu_phys(i)];

		if (g->domain == d && g->bus == b && g->device == s) {
			*dev = i;
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_INVALID_DEVICE;
}

SG_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!bytes)
		return CUDA_ERROR_INVALID_VALUE;
	*bytes = simgpu_cfg.gpu[simgpu_phys(dev)].vram;
	return CUDA_SUCCESS;
}

/* Indexed by attribute number so the table holds for every cuda.h. */
static const int attrs[] = {
	[1] = 1024, [2] = 1024, [3] = 1024, [4] = 64, [5] = 2147483647,
	[6] = 65535, [7] = 65535, [8] = 49152, [9] = 65536, [10] = 32,
	[11] = 2147483647, [12] = 65536, [13] = 1980000, [14] = 512,
	[15] = 1, [16] = 132, [17] = 0, [18] = 0, [19] = 1, [20] = 0,
	[21] = 131072, [22] = 131072, [23] = 65536, [24] = 16384,
	[25] = 16384, [26] = 16384, [27] = 32768, [28] = 32768, [29] = 2048,
	[30] = 512, [31] = 1, [32] = 1, [33] = 1, [34] = 0, [35] = 0,
	[36] = 2619000, [37] = 5120, [38] = 52428800, [39] = 2048, [40] = 3,
	[41] = 1, [42] = 32768, [43] = 2048, [44] = 1, [45] = 32768,
	[46] = 32768, [47] = 8192, [48] = 8192, [49] = 32768, [50] = 0,
	[51] = 32, [52] = 32768, [53] = 32768, [54] = 2046, [55] = 32768,
	[56] = 131072, [57] = 65536, [58] = 16384, [59] = 16384,
	[60] = 16384, [61] = 32768, [62] = 2048, [63] = 32768, [64] = 32768,
	[65] = 2048, [66] = 32768, [67] = 32768, [68] = 2046,
	[69] = 268435456, [70] = 131072, [71] = 65000, [72] = 2097120,
	[73] = 32768, [74] = 32768, [75] = 9, [76] = 0, [77] = 32768,
	[78] = 1, [79] = 1, [80] = 1, [81] = 233472, [82] = 65536, [83] = 1,
	[84] = 0, [85] = 0, [86] = 0, [87] = 2, [88] = 0, [89] = 1, [90] = 1,
	[91] = 1, [92] = 1, [93] = 1, [94] = 1, [95] = 1, [96] = 0,
	[97] = 232448, [98] = 0, [99] = 1, [100] = 0, [101] = 0, [102] = 1,
	[103] = 1, [104] = 0, [105] = 0, [106] = 32, [107] = 1,
	[108] = 82837504, [109] = 134213632, [110] = 1, [111] = 1024,
	[112] = 1, [113] = 1, [114] = 1, [115] = 1, [116] = 1, [117] = 1,
	[118] = 100, [119] = 1, [120] = 1, [121] = 1, [122] = 1, [123] = 1,
	[124] = 1, [125] = 1, [126] = 4, [127] = 1, [128] = 0, [129] = 0,
	[130] = 0, [131] = 0, [132] = 0, [133] = 0, [134] = 0, [135] = 0,
	[136] = 0, [137] = 0, [138] = 0, [139] = 0x233010de,
	[140] = 0x16c110de, [141] = 0, [142] = 0, [143] = 0, [144] = 0,
	[145] = 0, [146] = 0, [147] = 0,
};

SG_API CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
	SG_GATE();
	const struct sg_gpu_config *g;
	CUresult rc = simgpu_check_dev(dev);
	int a = (int)attrib;

	if (rc)
		return rc;
	if (!pi || a <= 0 || a >= (int)CU_DEVICE_ATTRIBUTE_MAX)
		return CUDA_ERROR_INVALID_VALUE;
	g = &simgpu_cfg.gpu[simgpu_phys(dev)];
	switch (a) {
	case 16: *pi = g->sms; break;				/* MULTIPROCESSOR_COUNT */
	case 33: *pi = (int)g->bus; break;			/* PCI_BUS_ID */
	case 34: *pi = (int)g->device; break;			/* PCI_DEVICE_ID */
	case 50: *pi = (int)g->domain; break;			/* PCI_DOMAIN_ID */
	case 130: *pi = g->numa >= 0 ? 1 : 0; break;		/* NUMA_CONFIG */
	case 131: *pi = g->numa; break;				/* NUMA_ID */
	case 134: *pi = g->numa; break;				/* HOST_NUMA_ID */
	default:
		*pi = a < (int)(sizeof(attrs) / sizeof(attrs[0])) ? attrs[a] : 0;
		break;
	}
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (rc)
		return rc;
	if (!major || !minor)
		return CUDA_ERROR_INVALID_VALUE;
	*major = 9;
	*minor = 0;
	return CUDA_SUCCESS;
}

/*
 * Peer access follows the configured topology (topo.c): NVLink pairs, and
 * GPUs below one PCIe switch. CUDA Driver API, "Peer Context Memory
 * Access": cuDeviceCanAccessPeer answers 0 or 1 for any two valid devices;
 * cuDeviceGetP2PAttribute refuses one device with itself
 * (CUDA_ERROR_INVALID_DEVICE) and an unknown attribute
 * (CUDA_ERROR_INVALID_VALUE).
 */
SG_API CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(dev);

	if (!rc)
		rc = simgpu_check_dev(peerDev);
	if (rc)
		return rc;
	if (!canAccessPeer)
		return CUDA_ERROR_INVALID_VALUE;
	*canAccessPeer = simgpu_topo_peer_ok(&simgpu_cfg, simgpu_phys(dev), simgpu_phys(peerDev));
	return CUDA_SUCCESS;
}

SG_API CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib,
					CUdevice srcDevice, CUdevice dstDevice)
{
	SG_GATE();
	CUresult rc = simgpu_check_dev(srcDevice);
	int peer, nvlink;

	if (!rc)
		rc = simgpu_check_dev(dstDevice);
	if (rc)
		return rc;
	if (srcDevice == dstDevice)
		return CUDA_ERROR_INVALID_DEVICE;
	if (!value)
		return CUDA_ERROR_INVALID_VALUE;
	srcDevice = simgpu_phys(srcDevice);
	dstDevice = simgpu_phys(dstDevice);
	peer = simgpu_topo_peer_ok(&simgpu_cfg, srcDevice, dstDevice);
	nvlink = simgpu_cfg.gpu[srcDevice].nvlink[dstDevice] != 0;
	switch ((int)attrib) {
	case 1:		/* PERFORMANCE_RANK: simgpu's, 1 NVLink, 2 PCIe, 0 none */
		*value = !peer ? 0 : nvlink ? 1 : 2;
		break;
	case 2:		/* ACCESS_SUPPORTED */
	case 4:		/* CUDA_ARRAY_ACCESS_SUPPORTED */
		*value = peer;
		break;
	case 3:		/* NATIVE_ATOMIC_SUPPORTED: over NVLink */
		*value = nvlink;
		break;
	case 5:		/* ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED */
		*value = 0;
		break;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}
