/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The room left in a tenant cgroup's memory (memroom.c): memory.max less
 * memory.current, for the agent's check before it copies a process's
 * device memory into host memory. Paths under a cgroup2 tree whose root
 * is a parameter, so that tests/unit/test_memroom.c runs against a fake.
 */
#ifndef VGPU_CTL_MEMROOM_H
#define VGPU_CTL_MEMROOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int vgpuctl_memroom_parse(const char *max, const char *current, uint64_t *room,
			  bool *unlimited);
int vgpuctl_memroom_read(const char *root, const char *cgroup, uint64_t *room,
			 bool *unlimited, char *err, size_t len);

#endif
