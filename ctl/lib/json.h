/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer: compact ("-j") or indented by two spaces
 * ("-p"). Members take a key inside objects and NULL inside arrays.
 */
#ifndef VGPU_CTL_JSON_H
#define VGPU_CTL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define VGPU_JSON_DEPTH_MAX	16

struct vgpu_json {
	FILE *f;
	bool pretty;
	int depth;
	bool has_members[VGPU_JSON_DEPTH_MAX];
};

void vgpuctl_json_init(struct vgpu_json *j, FILE *f, bool pretty);
void vgpuctl_json_obj_open(struct vgpu_json *j, const char *key);
void vgpuctl_json_obj_close(struct vgpu_json *j);
void vgpuctl_json_arr_open(struct vgpu_json *j, const char *key);
void vgpuctl_json_arr_close(struct vgpu_json *j);
void vgpuctl_json_str(struct vgpu_json *j, const char *key, const char *val);
void vgpuctl_json_u64(struct vgpu_json *j, const char *key, uint64_t val);
void vgpuctl_json_s64(struct vgpu_json *j, const char *key, int64_t val);
void vgpuctl_json_fixed(struct vgpu_json *j, const char *key, double val, int decimals);
void vgpuctl_json_bool(struct vgpu_json *j, const char *key, bool val);
void vgpuctl_json_null(struct vgpu_json *j, const char *key);
void vgpuctl_json_escape(FILE *f, const char *s);

#endif /* VGPU_CTL_JSON_H */
