/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vgpu: syntax of the names and identifiers userspace hands in.
 * Pure functions, no locking, no allocation.
 */
#ifndef _VGPU_PARSE_H
#define _VGPU_PARSE_H

#include <linux/types.h>

#include "../uapi/vgpu.h"

/* Room for a normalised PCI bus id and its NUL. */
#define VGPU_PCI_BUF_LEN	(VGPU_PCI_LEN_MAX + 1)

bool vgpu_uuid_valid(const char *s);
int vgpu_pci_normalise(const char *s, char out[VGPU_PCI_BUF_LEN]);
bool vgpu_name_valid(const char *s);

#endif /* _VGPU_PARSE_H */
