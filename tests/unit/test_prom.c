// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the Prometheus writer (ctl/out/prom.c) and the HTTP request
 * judge (ctl/out/httpd.c) without the module: snapshots built by hand, the
 * exposition checked line by line. One line per check: "PASS: prom: <what>"
 * or "FAIL: prom: <what>: <detail>". Exits 1 if any check failed.
 */
#define VGPU_UNIT_SUITE "prom"
#include <stdlib.h>
#include <string.h>

#include "../../ctl/out/httpd.h"
#include "../../ctl/out/prom.h"
#include "result.h"

static char *expose(const struct vgpu_snap *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	vgpuctl_prom_write(f, s);
	fclose(f);
	return buf;
}

/* @text has the line @line (whole). */
static void has_line(const char *what, const char *text, const char *line, bool want)
{
	size_t n = strlen(line);
	const char *p = text;
	bool found = false;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n') {
			found = true;
			break;
		}
		p += n;
	}
	result(found == want, what, "%s \"%s\"", want ? "no line" : "unexpected line", line);
}

static void test_escape(void)
{
	char *buf = NULL, name[80];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	vgpuctl_prom_escape(f, "a\\b\"c\nd", false);
	fputc('|', f);
	vgpuctl_prom_escape(f, "a\\b\"c\nd", true);
	fclose(f);
	result(!strcmp(buf, "a\\\\b\\\"c\\nd|a\\\\b\"c\\nd"),
	       "label values escape backslash, quote, newline; HELP not the quote", "got %s", buf);
	free(buf);
	vgpuctl_prom_label_name(name, sizeof(name), "app.kubernetes.io/name-x");
	result(!strcmp(name, "label_app_kubernetes_io_name_x"),
	       "a label key becomes label_KEY with [^a-zA-Z0-9_] as _", "got %s", name);
}

static void fill(struct vgpu_snap *s)
{
	static struct vgpu_snap_gpu g[2] = {
		{ 0, "GPU-00000000-0000-0000-0000-000000000000", "0000:01:00.0", 1ULL << 34, 0 },
		{ 1, "GPU-11111111-1111-1111-1111-111111111111", "0000:02:00.0", 1ULL << 34, -1 },
	};
	static struct vgpu_snap_tenant t[2];

	memset(s, 0, sizeof(*s));
	memset(t, 0, sizeof(t));
	s->host = (struct vgpu_snap_host){ .has_instance = true, .instance_id = 0xabcdef,
					   .has_finals_dropped = true, .finals_dropped = 3 };
	s->gpus = g;
	s->ngpus = 2;
	s->tenants = t;
	s->ntenants = 2;
	snprintf(t[0].name, sizeof(t[0].name), "team-a");
	t[0].id = 1;
	t[0].weight = 100;
	t[0].priority = VGPU_PRIORITY_NORMAL;
	t[0].nlabels = 2;
	snprintf(t[0].labels[0].key, sizeof(t[0].labels[0].key), "app.x");
	snprintf(t[0].labels[0].value, sizeof(t[0].labels[0].value), "say \"hi\"\\\n");
	snprintf(t[0].labels[1].key, sizeof(t[0].labels[1].key), "app/x");	/* same name */
	t[0].nusage = 1;
	t[0].usage[0] = (struct vgpu_snap_usage){ .gpu = 0, .vram_current = 4096,
		.gpu_time_ns = 1500000001ULL, .grants = 7, .procs = 2, .vram_scans = 5 };
	snprintf(t[1].name, sizeof(t[1].name), "team-b");
	t[1].id = 2;
	t[1].weight = 300;
	t[1].priority = VGPU_PRIORITY_HIGH;
	t[1].has_vram_max = t[1].has_vram_min = t[1].has_gpus = t[1].has_compute_max = true;
	t[1].vram_max = 1ULL << 30;
	t[1].vram_min = 1ULL << 28;
	t[1].gpus = 2;		/* GPU 1 only */
	t[1].compute_max = 2550;
	t[1].has_state = true;	/* team-a: a module without suspension */
	t[1].state = VGPU_TENANT_STATE_SUSPENDED;
	t[1].host_bytes = 3ULL << 30;
	t[1].suspended_ns = 2500000000ULL;
	t[1].preemptible = true;
	t[1].has_vram_wait = true;
	t[1].vram_wait = 30500;
}

static void test_exposition(void)
{
	struct vgpu_snap s;
	char *out;

	fill(&s);
	out = expose(&s);
	has_line("vgpu_up 1", out, "vgpu_up 1", true);
	has_line("every family has a TYPE", out, "# TYPE vgpu_tenant_gpu_seconds_total counter", true);
	has_line("module info carries the instance id", out,
		 "vgpu_module_info{instance_id=\"0000000000abcdef\"} 1", true);
	has_line("dropped final records are a counter", out,
		 "vgpu_final_records_dropped_total 3", true);
	has_line("GPU info: uuid, bus id, NUMA node", out,
		 "vgpu_gpu_info{gpu=\"1\",uuid=\"GPU-11111111-1111-1111-1111-111111111111\","
		 "pci_bus_id=\"0000:02:00.0\",numa_node=\"-1\"} 1", true);
	has_line("GPU time in seconds, to the ns", out,
		 "vgpu_tenant_gpu_seconds_total{tenant=\"team-a\",gpu=\"0\"} 1.500000001", true);
	has_line("labels escaped in tenant_info; the second key of one name dropped", out,
		 "vgpu_tenant_info{tenant=\"team-a\",id=\"1\",cgroup=\"\",priority=\"normal\","
		 "label_app_x=\"say \\\"hi\\\"\\\\\\n\"} 1", true);
	has_line("vram-scans is a counter", out,
		 "# TYPE vgpu_tenant_vram_scans_total counter", true);
	has_line("vram-scans per tenant and GPU", out,
		 "vgpu_tenant_vram_scans_total{tenant=\"team-a\",gpu=\"0\"} 5", true);
	has_line("processes per tenant and GPU", out,
		 "vgpu_tenant_processes{tenant=\"team-a\",gpu=\"0\"} 2", true);
	has_line("compute-max as a ratio", out, "vgpu_tenant_compute_max_ratio{tenant=\"team-b\"} 0.2550",
		 true);
	has_line("an unset compute-max has no series", out,
		 "vgpu_tenant_compute_max_ratio{tenant=\"team-a\"} 0.0000", false);
	has_line("vram-max on the GPUs the tenant may use", out,
		 "vgpu_tenant_vram_limit_bytes{tenant=\"team-b\",gpu=\"1\"} 1073741824", true);
	has_line("no vram-max on a GPU it may not use", out,
		 "vgpu_tenant_vram_limit_bytes{tenant=\"team-b\",gpu=\"0\"} 1073741824", false);
	has_line("a GPU's reservation sums its tenants' vram-min", out,
		 "vgpu_gpu_vram_reserved_bytes{gpu=\"1\"} 268435456", true);
	has_line("no reservation on a GPU no tenant reserves", out,
		 "vgpu_gpu_vram_reserved_bytes{gpu=\"0\"} 0", true);
	has_line("a suspended tenant: 1, its state a label", out,
		 "vgpu_tenant_suspended{tenant=\"team-b\",state=\"suspended\"} 1", true);
	has_line("bytes in host memory", out, "vgpu_tenant_host_bytes{tenant=\"team-b\"} 3221225472",
		 true);
	has_line("time suspended, a counter in seconds", out,
		 "vgpu_tenant_suspended_seconds_total{tenant=\"team-b\"} 2.500000000", true);
	has_line("a preemptible tenant: 1", out,
		 "vgpu_tenant_preemptible{tenant=\"team-b\"} 1", true);
	has_line("one not preemptible: 0", out,
		 "vgpu_tenant_preemptible{tenant=\"team-a\"} 0", true);
	has_line("vram-wait in seconds", out,
		 "vgpu_tenant_vram_wait_seconds{tenant=\"team-b\"} 30.500000000", true);
	has_line("an unset vram-wait has no series", out,
		 "vgpu_tenant_vram_wait_seconds{tenant=\"team-a\"", false);
	has_line("no suspension series from a module without suspension", out,
		 "vgpu_tenant_suspended{tenant=\"team-a\"", false);
	result(!strstr(out, "{tenant=\"team-a\",gpu=\"0\"} 0\nvgpu_tenant_vram_limit"),
	       "team-a has no vram-max series", "found one");
	free(out);
}

static void judge(const char *what, const char *req, bool complete, int want)
{
	struct vgpuctl_httpd_verdict v = vgpuctl_httpd_judge(req, strlen(req), complete);

	result(v.status == want, what, "got %d, want %d", v.status, want);
}

static void test_judge(void)
{
	judge("GET /metrics", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", true, 200);
	judge("GET /metrics?x=1 (query ignored)", "GET /metrics?x=1 HTTP/1.0\r\n\r\n", true, 200);
	judge("GET / is 404", "GET / HTTP/1.1\r\n\r\n", true, 404);
	judge("GET /metricsx is 404", "GET /metricsx HTTP/1.1\r\n\r\n", true, 404);
	judge("HEAD is 405", "HEAD /metrics HTTP/1.1\r\n\r\n", true, 405);
	judge("POST is 405", "POST /metrics HTTP/1.1\r\n\r\n", true, 405);
	judge("an unfinished request is 431", "GET /metrics HTTP/1.1\r\nX: aaaa", false, 431);
	judge("no version is 400", "GET /metrics\r\n\r\n", true, 400);
	judge("HTTP/2 text is 400", "GET /metrics HTTP/2.0\r\n\r\n", true, 400);
	judge("garbage is 400", "\x01\x02\r\n\r\n", true, 400);
}

/* The credentials of @req: "USER:PASSWORD" (@want), or none (@want NULL). */
static void creds(const char *what, const char *req, const char *want, size_t want_ulen)
{
	char out[256];
	size_t ulen = 0;
	int r = vgpuctl_httpd_basic(req, out, sizeof(out), &ulen);

	if (!want)
		result(r == -1, what, "got \"%s\", want none", r ? "" : out);
	else
		result(!r && !strcmp(out, want) && ulen == want_ulen, what,
		       "got %d \"%s\" (user %zu bytes), want \"%s\" (%zu)", r, r ? "" : out, ulen,
		       want, want_ulen);
}

static void test_basic(void)
{
	/* "prom:s3cret", "a:b:c", "prom:" */
	creds("Basic credentials", "GET /metrics HTTP/1.1\r\nAuthorization: Basic cHJvbTpzM2NyZXQ=\r\n\r\n",
	      "prom:s3cret", 4);
	creds("the header's name in any case, blanks around",
	      "GET / HTTP/1.1\r\nHost: x\r\nauthorization:   basic\tcHJvbTpzM2NyZXQ=  \r\n\r\n",
	      "prom:s3cret", 4);
	creds("the password holds the colons after the first", "GET / HTTP/1.0\nAuthorization: Basic YTpiOmM=\n\n",
	      "a:b:c", 1);
	creds("an empty password", "GET / HTTP/1.0\r\nAuthorization: Basic cHJvbTo=\r\n\r\n", "prom:", 4);
	creds("no Authorization header", "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", NULL, 0);
	creds("Bearer is not Basic", "GET / HTTP/1.1\r\nAuthorization: Bearer cHJvbTpzM2NyZXQ=\r\n\r\n",
	      NULL, 0);
	creds("two Authorization headers",
	      "GET / HTTP/1.1\r\nAuthorization: Basic cHJvbTpzM2NyZXQ=\r\nAuthorization: Basic YTpiOmM=\r\n\r\n",
	      NULL, 0);
	creds("unpadded base64", "GET / HTTP/1.1\r\nAuthorization: Basic cHJvbTo\r\n\r\n", NULL, 0);
	creds("not base64", "GET / HTTP/1.1\r\nAuthorization: Basic cHJv*TpzM2NyZXQ=\r\n\r\n", NULL, 0);
	creds("no colon", "GET / HTTP/1.1\r\nAuthorization: Basic cHJvbQ==\r\n\r\n", NULL, 0);
	creds("a control character (\"a:b\\n\")", "GET / HTTP/1.1\r\nAuthorization: Basic YTpiCg==\r\n\r\n",
	      NULL, 0);
	creds("a second word after the token", "GET / HTTP/1.1\r\nAuthorization: Basic cHJvbTo= x\r\n\r\n",
	      NULL, 0);
	creds("a header after the request's end is not read",
	      "GET / HTTP/1.1\r\n\r\nAuthorization: Basic cHJvbTo=\r\n\r\n", NULL, 0);
}

int main(void)
{
	test_escape();
	test_exposition();
	test_judge();
	test_basic();
	return failures ? 1 : 0;
}
