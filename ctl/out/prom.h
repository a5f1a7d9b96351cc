/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus text exposition format (version 0.0.4) of a snapshot
 * (snap.h): every metric, its type and labels are listed in
 * Documentation/metrics.md. No I/O but the stream it is given, so
 * tests/unit/test_prom.c checks it in isolation.
 */
#ifndef VGPU_CTL_PROM_H
#define VGPU_CTL_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../obj/snap.h"

#define VGPU_PROM_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"

void vgpuctl_prom_escape(FILE *f, const char *s, bool help);
void vgpuctl_prom_label_name(char *out, size_t outlen, const char *key);
void vgpuctl_prom_write(FILE *f, const struct vgpu_snap *s);
void vgpuctl_prom_write_down(FILE *f);

#endif /* VGPU_CTL_PROM_H */
