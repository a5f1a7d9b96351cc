// SPDX-License-Identifier: GPL-2.0
/*
 * vgpu: the labels of a tenant.
 *
 * A request's label nests (VGPU_A_TENANT_LABEL, each a key and a value)
 * are applied in order to a copy of the tenant's labels: a label sets its
 * key (so of two labels with one key in a request the last wins), one
 * with an empty or no value removes the key (nothing happens if it is
 * absent). Only the result is held to VGPU_LABEL_MAX, so a request may
 * remove one label and add another to a full set. The copy replaces the
 * tenant's labels once the whole request has been checked: on error
 * nothing changed.
 *
 * Keys: 1 to VGPU_LABEL_KEY_LEN_MAX letters, digits and "._/-", starting
 * with a letter or a digit. Values: up to VGPU_LABEL_VALUE_LEN_MAX bytes
 * of printable ASCII (space to tilde). The lengths are the policy's
 * (nl_gen.c); the characters are checked here.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/genetlink.h>

#include "../uapi/vgpu.h"
#include "label.h"

/**
 * vgpu_label_key_valid() - whether a string may be a label key
 * @key: NUL-terminated string
 *
 * Return: true for 1 to VGPU_LABEL_KEY_LEN_MAX letters, digits and
 * "._/-", the first a letter or a digit.
 */
bool vgpu_label_key_valid(const char *key)
{
	size_t i;

	if (!isalnum(key[0]))
		return false;
	for (i = 0; key[i]; i++) {
		if (i >= VGPU_LABEL_KEY_LEN_MAX)
			return false;
		if (!isalnum(key[i]) && !strchr("._/-", key[i]))
			return false;
	}
	return true;
}

/**
 * vgpu_label_value_valid() - whether a string may be a label value
 * @value: NUL-terminated string
 *
 * Return: true for up to VGPU_LABEL_VALUE_LEN_MAX printable ASCII
 * characters (the empty string included).
 */
bool vgpu_label_value_valid(const char *value)
{
	size_t i;

	for (i = 0; value[i]; i++) {
		if (i >= VGPU_LABEL_VALUE_LEN_MAX)
			return false;
		if (value[i] < 0x20 || value[i] > 0x7e)
			return false;
	}
	return true;
}

/**
 * vgpu_labels_free() - free labels
 * @l: labels, emptied (may be reused)
 */
void vgpu_labels_free(struct vgpu_labels *l)
{
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		kfree(l->v[i]);
	kfree(l->v);
	l->v = NULL;
	l->nr = 0;
	l->room = 0;
}

/**
 * vgpu_labels_move() - hand labels over
 * @dst: labels, freed first
 * @src: labels, left empty
 */
void vgpu_labels_move(struct vgpu_labels *dst, struct vgpu_labels *src)
{
	vgpu_labels_free(dst);
	*dst = *src;
	src->v = NULL;
	src->nr = 0;
	src->room = 0;
}

static struct vgpu_label *vgpu_label_new(const char *key, const char *value)
{
	size_t klen = strlen(key), vlen = strlen(value);
	struct vgpu_label *lb;

	lb = kmalloc(struct_size(lb, key, klen + 1 + vlen + 1), GFP_KERNEL_ACCOUNT);
	if (!lb)
		return NULL;
	memcpy(lb->key, key, klen + 1);
	memcpy(lb->key + klen + 1, value, vlen + 1);
	lb->value = lb->key + klen + 1;
	return lb;
}

/* Index of @key in @l, or where it would go (as -1 - index). */
static int vgpu_labels_find(const struct vgpu_labels *l, const char *key)
{
	unsigned int lo = 0, hi = l->nr;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		int c = strcmp(l->v[mid]->key, key);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1 - (int)lo;
}

/* Set (non-empty @value) or remove @key; @l has room for one more. */
static int vgpu_labels_set(struct vgpu_labels *l, const char *key, const char *value)
{
	int at = vgpu_labels_find(l, key);
	struct vgpu_label *lb = NULL;

	if (*value) {
		lb = vgpu_label_new(key, value);
		if (!lb)
			return -ENOMEM;
	}
	if (at >= 0) {
		kfree(l->v[at]);
		if (lb) {
			l->v[at] = lb;
		} else {
			memmove(&l->v[at], &l->v[at + 1], (l->nr - at - 1) * sizeof(*l->v));
			l->nr--;
		}
	} else if (lb) {
		at = -1 - at;
		memmove(&l->v[at + 1], &l->v[at], (l->nr - at) * sizeof(*l->v));
		l->v[at] = lb;
		l->nr++;
	}
	return 0;
}

/* Copies @old into @dst with room for @more labels. */
static int vgpu_labels_copy(struct vgpu_labels *dst, const struct vgpu_labels *old,
			    unsigned int more)
{
	unsigned int i;

	dst->nr = 0;
	dst->room = old->nr + more;
	dst->v = dst->room ? kcalloc(dst->room, sizeof(*dst->v), GFP_KERNEL) : NULL;
	if (dst->room && !dst->v)
		return -ENOMEM;
	for (i = 0; i < old->nr; i++) {
		dst->v[i] = vgpu_label_new(old->v[i]->key, old->v[i]->value);
		if (!dst->v[i]) {
			vgpu_labels_free(dst);
			return -ENOMEM;
		}
		dst->nr++;
	}
	return 0;
}

/* Reads one label nest, checked; NULL key with @extack set on error. */
static int vgpu_label_read(const struct nlattr *nest, const char **key, const char **value,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[VGPU_A_LABEL_MAX + 1];
	int err;

	/* The family's policy checked the nest and its strings' lengths. */
	err = nla_parse_nested(tb, VGPU_A_LABEL_MAX, nest, NULL, extack);
	if (err)
		return err;
	if (!tb[VGPU_A_LABEL_KEY]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "label key is required");
		return -EINVAL;
	}
	*key = nla_data(tb[VGPU_A_LABEL_KEY]);
	*value = tb[VGPU_A_LABEL_VALUE] ? nla_data(tb[VGPU_A_LABEL_VALUE]) : "";
	if (!vgpu_label_key_valid(*key)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[VGPU_A_LABEL_KEY],
				    "label key must be 1-63 letters, digits and ._/- starting with a letter or digit");
		return -EINVAL;
	}
	if (!vgpu_label_value_valid(*value)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[VGPU_A_LABEL_VALUE],
				    "label value must be at most 255 printable ASCII characters");
		return -EINVAL;
	}
	return 0;
}

/**
 * vgpu_labels_apply() - the labels a request leaves a tenant with
 * @dst: out: @old with the request's labels applied; vgpu_labels_free()
 *	it after use, also on error
 * @old: the tenant's labels now (empty for a new tenant)
 * @head: the request's attributes
 * @len: their length
 * @extack: error report
 *
 * Context: may sleep (allocates).
 * Return: 0, -EINVAL (a bad key or value), -E2BIG (more than
 * VGPU_LABEL_MAX labels would result) or -ENOMEM, with @extack set.
 */
int vgpu_labels_apply(struct vgpu_labels *dst, const struct vgpu_labels *old,
		      const struct nlattr *head, int len, struct netlink_ext_ack *extack)
{
	const struct nlattr *a, *last = NULL;
	const char *key, *value;
	unsigned int more = 0;
	int rem, err;

	nla_for_each_attr(a, head, len, rem)
		if (nla_type(a) == VGPU_A_TENANT_LABEL)
			more++;
	err = vgpu_labels_copy(dst, old, more);
	if (err)
		return err;
	nla_for_each_attr(a, head, len, rem) {
		if (nla_type(a) != VGPU_A_TENANT_LABEL)
			continue;
		err = vgpu_label_read(a, &key, &value, extack);
		if (!err)
			err = vgpu_labels_set(dst, key, value);
		if (err)
			return err;
		last = a;
	}
	if (dst->nr > VGPU_LABEL_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, last, "too many labels (at most 16)");
		return -E2BIG;
	}
	return 0;
}

/**
 * vgpu_labels_msg_size() - room vgpu_labels_put() needs
 * @l: labels
 *
 * Return: bytes of attributes.
 */
size_t vgpu_labels_msg_size(const struct vgpu_labels *l)
{
	size_t size = 0;
	unsigned int i;

	for (i = 0; i < l->nr; i++)
		size += nla_total_size(0) +
			nla_total_size(strlen(l->v[i]->key) + 1) +
			nla_total_size(strlen(l->v[i]->value) + 1);
	return size;
}

/**
 * vgpu_labels_put() - add one VGPU_A_TENANT_LABEL nest per label
 * @skb: message
 * @l: labels
 *
 * Return: 0 or -EMSGSIZE.
 */
int vgpu_labels_put(struct sk_buff *skb, const struct vgpu_labels *l)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < l->nr; i++) {
		nest = nla_nest_start(skb, VGPU_A_TENANT_LABEL);
		if (!nest ||
		    nla_put_string(skb, VGPU_A_LABEL_KEY, l->v[i]->key) ||
		    nla_put_string(skb, VGPU_A_LABEL_VALUE, l->v[i]->value))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}
