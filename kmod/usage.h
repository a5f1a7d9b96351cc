/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: a bucket's usage as netlink attributes (usage.c).
 */
#ifndef _VGPU_USAGE_H
#define _VGPU_USAGE_H

#include <linux/types.h>

struct sk_buff;
struct vgpu_bucket;

size_t vgpu_usage_msg_size(void);
int vgpu_usage_put(struct sk_buff *skb, struct vgpu_bucket *b);

#endif /* _VGPU_USAGE_H */
