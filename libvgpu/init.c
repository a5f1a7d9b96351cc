// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time set-up of libvgpu. Preloaded into every process of a host
 * (LD_PRELOAD or /etc/ld.so.preload), it must cost nothing in programs
 * that never touch CUDA: the constructor only reads the log level.
 * Interception of the CUDA driver API and NVML arrives with per-tenant
 * VRAM limits; until then the library passes everything through.
 */
#include "log.h"

__attribute__((visibility("default"))) const char vgpu_version[] = "0.1";

__attribute__((constructor)) static void vgpu_init(void)
{
	vgpu_log_init();
	vgpu_log(VGPU_LOG_DEBUG, "loaded (version %s)", vgpu_version);
}
