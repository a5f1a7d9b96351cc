// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness of the container state an OCI runtime gives vgpuctl's
 * hooks on stdin (ctl/oci/oci.c, vgpuctl_oci_parse_state(): runc's and
 * crun's {"ociVersion", "id", "status", "pid", "bundle", ...}). Checks,
 * beyond the sanitizers, what the hooks rely on of a state taken: an id
 * of 1-255 bytes, an absolute bundle path, a pid of 0 to 2^31 - 1.
 */
#include "../../ctl/oci/oci.h"
#include "fuzz.h"

FUZZ_QUIET_INITIALIZE

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vgpuctl_oci o;
	size_t idlen;

	if (vgpuctl_oci_parse_state((const char *)data, size, &o))
		return 0;
	idlen = strnlen(o.id, sizeof(o.id));
	FUZZ_CHECK(idlen > 0 && idlen < sizeof(o.id), "id of %zu bytes", idlen);
	FUZZ_CHECK(o.bundle[0] == '/' && strnlen(o.bundle, sizeof(o.bundle)) < sizeof(o.bundle),
		   "bundle \"%.64s\"", o.bundle);
	FUZZ_CHECK(o.pid >= 0 && o.pid <= 0x7fffffff, "pid %ld", o.pid);
	FUZZ_CHECK(!o.cgroups_path[0] && !o.pod_uid[0], "the state set the config's fields");
	return 0;
}
