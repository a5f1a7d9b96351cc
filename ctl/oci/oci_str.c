// SPDX-License-Identifier: GPL-2.0
/*
 * A string member of an OCI document (the runtime's state, config.json's
 * annotations), copied out with the checks every reader of them needs
 * (oci.c, oci_pod.c): the lowest layer of the hook's parsing.
 */
#include <string.h>

#include <jansson.h>

#include "oci.h"
#include "../vgpuctl.h"

/**
 * vgpuctl_oci_get_str() - copy a string member of a JSON object
 * @obj: the object
 * @key: the member's name
 * @what: the file it came from, for the error line
 * @need: whether it must be there; an absent one is "" otherwise
 * @out: its value
 * @outlen: size of @out
 *
 * Return: 0, or VGPU_EXIT_ERR after an error line (not a string, a NUL
 * character in it, too long, or absent though needed).
 */
int vgpuctl_oci_get_str(struct json_t *obj, const char *key, const char *what, bool need,
			char *out, size_t outlen)
{
	json_t *v = json_object_get(obj, key);
	const char *s;

	out[0] = '\0';
	if (!v && !need)
		return 0;
	if (!v)
		return vgpuctl_error("%s has no \"%s\"", what, key);
	if (!json_is_string(v))
		return vgpuctl_error("\"%s\" in %s is not a string", key, what);
	s = json_string_value(v);
	if (strlen(s) != json_string_length(v))
		return vgpuctl_error("\"%s\" in %s holds a NUL character", key, what);
	if (strlen(s) >= outlen)
		return vgpuctl_error("\"%s\" in %s is longer than %zu bytes", key, what, outlen - 1);
	strcpy(out, s);
	return 0;
}
