/* SPDX-License-Identifier: GPL-2.0 */
/* Log lines of libvgpu, on stderr, filtered by VGPU_LOG. */
#ifndef VGPU_LOG_H
#define VGPU_LOG_H

enum vgpu_log_level {
	VGPU_LOG_NONE,
	VGPU_LOG_ERROR,
	VGPU_LOG_WARN,
	VGPU_LOG_INFO,
	VGPU_LOG_DEBUG,
};

void libvgpu_log_init(void);
void libvgpu_log(enum vgpu_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
