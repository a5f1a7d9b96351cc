// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time set-up of libvgpu. Preloaded into every process of a host
 * (LD_PRELOAD or /etc/ld.so.preload), it must cost nothing in programs
 * that never touch CUDA: the constructor reads the log level and installs
 * the fork handler (no system call, no file, no socket, no thread).
 * Registration with vgpu.ko waits for the first CUDA or NVML call
 * (register.c).
 */
#include "atfork.h"
#include "log.h"

__attribute__((visibility("default"))) const char vgpu_version[] = "0.2";

__attribute__((constructor)) static void libvgpu_init(void)
{
	libvgpu_log_init();
	libvgpu_atfork_install();
	libvgpu_log(VGPU_LOG_DEBUG, "loaded (version %s)", vgpu_version);
}
