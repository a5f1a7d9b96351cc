/* SPDX-License-Identifier: GPL-2.0 */
/* Changing the process's environment without racing getenv (env.c). */
#ifndef VGPU_ENV_H
#define VGPU_ENV_H

/* NAME=value (value NULL: NAME removed) in a new environment array,
 * published at once; 0, or -1 when out of memory (nothing changed). */
int libvgpu_env_set(const char *name, const char *value);

#endif
