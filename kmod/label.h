/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: the labels of a tenant (label.c): admin-set key=value pairs that
 * the module keeps and reports but never interprets.
 */
#ifndef _VGPU_LABEL_H
#define _VGPU_LABEL_H

#include <linux/types.h>

struct netlink_ext_ack;
struct nlattr;
struct sk_buff;

/**
 * struct vgpu_label - one label
 * @value: its value, inside @key's allocation, never empty
 * @key: its key, NUL-terminated
 */
struct vgpu_label {
	const char *value;
	char key[];
};

/**
 * struct vgpu_labels - a tenant's labels, sorted by key, keys unique
 * @nr: labels in @v, at most VGPU_LABEL_MAX once applied
 * @room: slots of @v
 * @v: the labels, NULL when @room is 0
 */
struct vgpu_labels {
	unsigned int nr;
	unsigned int room;
	struct vgpu_label **v;
};

void vgpu_labels_free(struct vgpu_labels *l);
int vgpu_labels_apply(struct vgpu_labels *dst, const struct vgpu_labels *old,
		      const struct nlattr *head, int len, struct netlink_ext_ack *extack);
void vgpu_labels_move(struct vgpu_labels *dst, struct vgpu_labels *src);
size_t vgpu_labels_msg_size(const struct vgpu_labels *l);
int vgpu_labels_put(struct sk_buff *skb, const struct vgpu_labels *l);
bool vgpu_label_key_valid(const char *key);
bool vgpu_label_value_valid(const char *value);

#endif /* _VGPU_LABEL_H */
