/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure parsers and formatters of vgpuctl's arguments: parse.c (numbers,
 * sizes, enum names, lists), parse_id.c (UUIDs, PCI ids, tenant names),
 * parse_cgroup.c (cgroup paths), parse_sched.c (scheduling and
 * placement) and parse_meta.c (labels, times). Nothing here does I/O
 * (except vgpuctl_cgroup_mount(), which reads a mounts file it is given), so
 * tests/unit/test_parse.c and test_parse_sched.c can check every function
 * in isolation.
 *
 * Every parser takes a NUL-terminated string, rejects the empty string,
 * leading or trailing junk (spaces included), signs where none is allowed
 * and overflow, and returns 0 on success or -1 on error, leaving *out
 * untouched on error.
 */
#ifndef VGPU_CTL_PARSE_H
#define VGPU_CTL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "spec_gen.h"

/* Largest CPU number a CPU list may name (CONFIG_NR_CPUS tops out at 8192). */
#define VGPU_LIST_CPU_MAX	8191
/* Largest NUMA node number a node list may name (the spec's numa check). */
#define VGPU_LIST_NODE_MAX	VGPU_CHECK_GPU_NUMA_MAX
/* Bitmap words big enough for any list. */
#define VGPU_LIST_WORDS		((VGPU_LIST_CPU_MAX + 64) / 64)

int vgpuctl_parse_size(const char *s, uint64_t *out);
int vgpuctl_parse_pct(const char *s, uint32_t *bp);
int vgpuctl_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);
int vgpuctl_parse_weight(const char *s, uint32_t *out);
int vgpuctl_parse_index(const char *s, uint32_t *out);
int vgpuctl_parse_gpu_count(const char *s, uint32_t *out);
int vgpuctl_parse_numa(const char *s, int32_t *out);
int vgpuctl_parse_priority(const char *s, uint32_t *out);
int vgpuctl_parse_uuid(const char *s);
int vgpuctl_parse_busid(const char *s);
int vgpuctl_busid_norm(const char *s, char *out, size_t outlen);
int vgpuctl_parse_policy(const char *s, uint32_t *out);
int vgpuctl_parse_name(const char *s);

int vgpuctl_parse_list(const char *s, unsigned int max, uint64_t *bits, size_t words);
int vgpuctl_parse_list_norm(const char *s, unsigned int max, char *out, size_t outlen);
int vgpuctl_parse_gpus(const char *s, uint64_t *mask);

int vgpuctl_format_list(const uint64_t *bits, size_t words, char *out, size_t outlen);
void vgpuctl_format_size(uint64_t bytes, char *out, size_t outlen);
void vgpuctl_format_pct(uint32_t bp, char *out, size_t outlen);
const char *vgpuctl_priority_name(uint32_t prio);
const char *vgpuctl_policy_name(uint32_t policy);

int vgpuctl_cgroup_mount(const char *mounts_file, char *out, size_t outlen);
int vgpuctl_cgroup_path(const char *mnt, const char *arg, char *out, size_t outlen);

bool vgpuctl_matches(const char *arg, const char *word);

/*
 * An enum's value from its name and back, by a names table of
 * spec_gen.h (the spec's names, not a copy). Inline so that each unit
 * test links only the file it tests.
 */
static inline int vgpuctl_parse_enum(const char *const *names, uint32_t n,
				     const char *s, uint32_t *out)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(names[i], s)) {
			*out = i;
			return 0;
		}
	}
	return -1;
}

static inline const char *vgpuctl_enum_name(const char *const *names, uint32_t n,
					    uint32_t value)
{
	return value < n ? names[value] : NULL;
}

/* parse_sched.c: scheduling and placement values. */

/* Longest refresh interval of vgpuctl top, in seconds (a day). */
#define VGPU_SECONDS_MAX	86400

int vgpuctl_parse_placement(const char *s, uint32_t *out);
const char *vgpuctl_placement_name(uint32_t placement);
int vgpuctl_parse_onoff(const char *s, bool *out);
int vgpuctl_parse_seconds(const char *s, uint64_t *ns);
int vgpuctl_parse_ms(const char *s, uint32_t max_ms, uint32_t *ms);
int vgpuctl_parse_gpu_policy(const char *s, uint32_t *out);
const char *vgpuctl_gpu_policy_name(uint32_t policy);
int vgpuctl_parse_gpu_state(const char *s, uint32_t *out);
const char *vgpuctl_gpu_state_name(uint32_t state);
int vgpuctl_parse_reason(const char *s);
void vgpuctl_format_ns(uint64_t ns, char *out, size_t outlen);

/* parse_meta.c: labels and times. */
bool vgpuctl_label_key_ok(const char *key);
bool vgpuctl_label_value_ok(const char *value);
int vgpuctl_parse_label(const char *s, char *key, char *value);
void vgpuctl_format_time(uint64_t ns, char *out, size_t outlen);

#endif /* VGPU_CTL_PARSE_H */
