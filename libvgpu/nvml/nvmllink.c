// SPDX-License-Identifier: GPL-2.0
/*
 * NVLinks under the tenant's device view (devview.c): a link whose far end
 * is a GPU outside the view would name that GPU (its PCI bus id), so it
 * looks like a link that is not active: nvmlDeviceGetNvLinkState says
 * NVML_FEATURE_DISABLED and nvmlDeviceGetNvLinkRemotePciInfo(_v2) fails
 * with NVML_ERROR_INVALID_ARGUMENT, as the driver (and simgpu) answer for
 * an inactive link. Links to the view's own GPUs and to anything that is
 * not a GPU (an NVSwitch) are answered as the driver answers. Without a
 * view every call passes through.
 */
#include "../policy/devview.h"
#include "../access/hooks.h"
#include "../access/nest.h"

/* Is the far end of the link a GPU outside the view? */
static int foreign_peer(nvmlDevice_t device, unsigned int link)
{
	vgpu_pfn_nvmlDeviceGetNvLinkRemotePciInfo_v2 remote =
		REAL(nvmlDeviceGetNvLinkRemotePciInfo_v2);
	vgpu_pfn_nvmlDeviceGetHandleByPciBusId_v2 bypci = REAL(nvmlDeviceGetHandleByPciBusId_v2);
	vgpu_pfn_nvmlDeviceGetUUID uuid = REAL(nvmlDeviceGetUUID);
	char s[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
	nvmlPciInfo_t pci;
	nvmlDevice_t peer;

	if (!vgpu_devview_on() || !remote || !bypci || !uuid)
		return 0;
	if (remote(device, link, &pci) != NVML_SUCCESS)
		return 0;
	if (bypci(pci.busId, &peer) != NVML_SUCCESS)
		return 0;	/* not a GPU */
	return uuid(peer, s, sizeof(s)) != NVML_SUCCESS || libvgpu_devview_find(s) < 0;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link,
						  nvmlEnableState_t *isActive)
{
	VGPU_PASS_NESTED(nvmlDeviceGetNvLinkState, (device, link, isActive));
	vgpu_pfn_nvmlDeviceGetNvLinkState real = REAL(nvmlDeviceGetNvLinkState);
	nvmlReturn_t rc;

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	rc = real(device, link, isActive);
	if (rc == NVML_SUCCESS && *isActive == NVML_FEATURE_ENABLED && foreign_peer(device, link))
		*isActive = NVML_FEATURE_DISABLED;
	return rc;
}

static nvmlReturn_t remote_pci(nvmlReturn_t rc, nvmlDevice_t device, unsigned int link,
			       nvmlPciInfo_t *pci)
{
	if (rc == NVML_SUCCESS && foreign_peer(device, link)) {
		*pci = (nvmlPciInfo_t){ 0 };
		return NVML_ERROR_INVALID_ARGUMENT;
	}
	return rc;
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
							     nvmlPciInfo_t *pci)
{
	VGPU_PASS_NESTED(nvmlDeviceGetNvLinkRemotePciInfo_v2, (device, link, pci));
	vgpu_pfn_nvmlDeviceGetNvLinkRemotePciInfo_v2 real = REAL(nvmlDeviceGetNvLinkRemotePciInfo_v2);

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	return remote_pci(real(device, link, pci), device, link, pci);
}

VGPU_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link,
							  nvmlPciInfo_t *pci)
{
	VGPU_PASS_NESTED(nvmlDeviceGetNvLinkRemotePciInfo, (device, link, pci));
	vgpu_pfn_nvmlDeviceGetNvLinkRemotePciInfo real = REAL(nvmlDeviceGetNvLinkRemotePciInfo);

	if (!real)
		return NVML_ERROR_LIBRARY_NOT_FOUND;
	return remote_pci(real(device, link, pci), device, link, pci);
}
