// SPDX-License-Identifier: GPL-2.0
/*
 * Logging for libvgpu. The library lives inside other people's programs,
 * so it is quiet by default: VGPU_LOG=error|warn|info|debug (or 0-4)
 * chooses what reaches stderr; warnings are the default.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static enum vgpu_log_level vgpu_log_level = VGPU_LOG_WARN;

static const char *const vgpu_log_names[] = {
	[VGPU_LOG_NONE] = "none",
	[VGPU_LOG_ERROR] = "error",
	[VGPU_LOG_WARN] = "warn",
	[VGPU_LOG_INFO] = "info",
	[VGPU_LOG_DEBUG] = "debug",
};

void libvgpu_log_init(void)
{
	const char *v = getenv("VGPU_LOG");
	size_t i;

	if (!v || !*v)
		return;
	for (i = 0; i < sizeof(vgpu_log_names) / sizeof(vgpu_log_names[0]); i++) {
		if (!strcmp(v, vgpu_log_names[i]) ||
		    (v[0] == (char)('0' + i) && !v[1])) {
			vgpu_log_level = (enum vgpu_log_level)i;
			return;
		}
	}
	libvgpu_log(VGPU_LOG_WARN, "VGPU_LOG=\"%s\" is not one of none, error, "
		    "warn, info, debug or 0-4; keeping warn", v);
}

void libvgpu_log(enum vgpu_log_level level, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (level > vgpu_log_level)
		return;
	n = snprintf(line, sizeof(line), "libvgpu[%d]: %s: ", (int)getpid(),
		     vgpu_log_names[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	n = (int)strlen(line);
	if (n < (int)sizeof(line) - 1)
		line[n++] = '\n';
	/* One write, so lines of concurrent threads do not interleave. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}
