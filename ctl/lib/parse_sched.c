// SPDX-License-Identifier: GPL-2.0
/*
 * Pure parsers and formatters of the scheduling and placement values of
 * vgpuctl (see parse.h): placement modes, on/off switches, the refresh
 * interval of top and durations (SECS, in nanoseconds or milliseconds),
 * the host's gpu-policy and a GPU's health state and its reason. Kept apart from parse.c,
 * with the same rules: no I/O, 0 or -1, *out untouched on error.
 */
#include <stdio.h>
#include <string.h>

#include "../../uapi/vgpu.h"
#include "parse.h"

/** vgpuctl_parse_placement() - "manual" or "auto" into enum vgpu_placement. */
int vgpuctl_parse_placement(const char *s, uint32_t *out)
{
	return vgpuctl_parse_enum(vgpu_placement_names, VGPU_PLACEMENT_COUNT, s, out);
}

/** vgpuctl_placement_name() - name of a placement mode, or NULL if unknown. */
const char *vgpuctl_placement_name(uint32_t placement)
{
	return vgpuctl_enum_name(vgpu_placement_names, VGPU_PLACEMENT_COUNT, placement);
}

/** vgpuctl_parse_onoff() - "on" (true) or "off" (false). */
int vgpuctl_parse_onoff(const char *s, bool *out)
{
	if (!strcmp(s, "on"))
		*out = true;
	else if (!strcmp(s, "off"))
		*out = false;
	else
		return -1;
	return 0;
}

/*
 * Decimal seconds ("1", "0.2", "2.500": at most 3 decimals, no unit) into
 * milliseconds, 0 to @max_ms. Returns 0, or -1 when malformed or too large.
 */
static int parse_secs_ms(const char *s, uint64_t max_ms, uint64_t *out)
{
	uint64_t ip = 0, ms = 0;
	unsigned int ndig = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		ip = ip * 10 + (uint64_t)(*s - '0');
		if (ip > max_ms / 1000)
			return -1;
	}
	if (*s == '.') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++) {
			if (++ndig > 3)
				return -1;
			ms = ms * 10 + (uint64_t)(*s - '0');
		}
		for (; ndig < 3; ndig++)
			ms *= 10;
	}
	if (*s)
		return -1;
	ms += ip * 1000;
	if (ms > max_ms)
		return -1;
	*out = ms;
	return 0;
}

/**
 * vgpuctl_parse_seconds() - parse a positive number of seconds
 * @s: "1", "0.2", "2.500": decimal, at most 3 decimals, no unit
 * @ns: the duration in nanoseconds, 1 ms to VGPU_SECONDS_MAX seconds
 *
 * Return: 0, or -1 when malformed, zero or too large.
 */
int vgpuctl_parse_seconds(const char *s, uint64_t *ns)
{
	uint64_t ms;

	if (parse_secs_ms(s, (uint64_t)VGPU_SECONDS_MAX * 1000, &ms) || !ms)
		return -1;
	*ns = ms * 1000000;
	return 0;
}

/**
 * vgpuctl_parse_ms() - parse seconds into milliseconds, zero allowed
 * @s: "0", "30", "0.5", "2.250": decimal seconds, at most 3 decimals, no
 *     unit (the SECS of vgpuctl_parse_seconds(), and 0)
 * @max_ms: the largest value taken, in milliseconds
 * @ms: the duration in milliseconds
 *
 * Return: 0, or -1 when malformed or over @max_ms.
 */
int vgpuctl_parse_ms(const char *s, uint32_t max_ms, uint32_t *ms)
{
	uint64_t v;

	if (parse_secs_ms(s, max_ms, &v))
		return -1;
	*ms = (uint32_t)v;
	return 0;
}

/**
 * vgpuctl_format_ns() - print nanoseconds as seconds
 * @ns: the duration
 * @out: "1.234s", "0.5s", "12s", "0s": to the millisecond (rounded down),
 *       no trailing zeros
 * @outlen: size of @out (32 is always enough)
 */
void vgpuctl_format_ns(uint64_t ns, char *out, size_t outlen)
{
	unsigned long long s = ns / 1000000000ULL;
	unsigned int ms = (unsigned int)(ns % 1000000000ULL / 1000000);

	if (!ms)
		snprintf(out, outlen, "%llus", s);
	else if (ms % 100 == 0)
		snprintf(out, outlen, "%llu.%us", s, ms / 100);
	else if (ms % 10 == 0)
		snprintf(out, outlen, "%llu.%02us", s, ms / 10);
	else
		snprintf(out, outlen, "%llu.%03us", s, ms);
}

/** vgpuctl_parse_gpu_policy() - "binpack" or "spread" into enum vgpu_gpu_policy. */
int vgpuctl_parse_gpu_policy(const char *s, uint32_t *out)
{
	return vgpuctl_parse_enum(vgpu_gpu_policy_names, VGPU_GPU_POLICY_COUNT, s, out);
}

/** vgpuctl_gpu_policy_name() - name of a gpu-policy, or NULL if unknown. */
const char *vgpuctl_gpu_policy_name(uint32_t policy)
{
	return vgpuctl_enum_name(vgpu_gpu_policy_names, VGPU_GPU_POLICY_COUNT, policy);
}

/** vgpuctl_parse_gpu_state() - "healthy", "unhealthy" or "draining". */
int vgpuctl_parse_gpu_state(const char *s, uint32_t *out)
{
	return vgpuctl_parse_enum(vgpu_gpu_state_names, VGPU_GPU_STATE_COUNT, s, out);
}

/** vgpuctl_gpu_state_name() - name of a GPU state, or NULL if unknown. */
const char *vgpuctl_gpu_state_name(uint32_t state)
{
	return vgpuctl_enum_name(vgpu_gpu_state_names, VGPU_GPU_STATE_COUNT, state);
}

/**
 * vgpuctl_parse_reason() - check a GPU's state-reason
 * @s: 1 to VGPU_REASON_LEN_MAX bytes of printable ASCII (spaces allowed)
 *
 * Return: 0, or -1 when empty, too long or not printable.
 */
int vgpuctl_parse_reason(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > VGPU_REASON_LEN_MAX)
		return -1;
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return -1;
	return 0;
}
