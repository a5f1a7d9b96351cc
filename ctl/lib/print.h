/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one print path of vgpuctl, after iproute2's print_*(PRINT_ANY, ...):
 * every value is printed through these functions, which write either a
 * JSON member (key jkey; absent values become null) or, in plain mode, the
 * words " pkey value" on the object's line (absent values are omitted).
 */
#ifndef VGPU_CTL_PRINT_H
#define VGPU_CTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>

#include <stdio.h>

void vgpuctl_print_init(bool json, bool pretty);
void vgpuctl_print_set_file(FILE *f);
FILE *vgpuctl_print_file(void);
bool vgpuctl_print_json(void);
void vgpuctl_print_list_open(void);
void vgpuctl_print_list_close(bool ok);
void vgpuctl_print_obj_open(const char *jkey);
void vgpuctl_print_obj_close(void);
void vgpuctl_print_arr_open(const char *jkey);
void vgpuctl_print_arr_close(void);
void vgpuctl_print_sub_open(const char *indent);
void vgpuctl_print_sub_close(void);
void vgpuctl_print_event_open(const char *event, const char *jkey);
void vgpuctl_print_event_close(void);

void vgpuctl_print_str(const char *jkey, const char *pkey, const char *val);
void vgpuctl_print_u64(const char *jkey, const char *pkey, bool has, uint64_t val);
void vgpuctl_print_s64(const char *jkey, const char *pkey, bool has, int64_t val);
void vgpuctl_print_size(const char *jkey, const char *pkey, bool has, uint64_t val);
void vgpuctl_print_pct(const char *jkey, const char *pkey, bool has, uint32_t bp);
void vgpuctl_print_mask(const char *jkey, const char *pkey, bool has, uint64_t mask);
void vgpuctl_print_flag(const char *jkey, const char *ptext, bool val);
void vgpuctl_print_ns(const char *jkey, const char *pkey, bool has, uint64_t ns);
void vgpuctl_print_fixed(const char *jkey, const char *pkey, bool has, double val,
			 int decimals, const char *unit);
void vgpuctl_print_map_open(const char *jkey);
void vgpuctl_print_map_close(void);
void vgpuctl_print_label(const char *key, const char *value);
void vgpuctl_print_time(const char *jkey, const char *pkey, bool has, uint64_t ns);
void vgpuctl_print_hex64(const char *jkey, const char *pkey, bool has, uint64_t val);

#endif /* VGPU_CTL_PRINT_H */
