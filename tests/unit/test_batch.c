// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of vgpuctl -b (ctl/cmd/batch.c): splitting a line into words
 * (blanks, quotes, escapes, comments), joining continued lines with their
 * numbers, and the loop: which lines run, where it stops, the exit status
 * and the FILE:LINE error line (stderr is sent to a temporary file). One
 * line per check: "PASS: batch: <what>" or "FAIL: batch: <what>: <detail>".
 *
 *   cc -std=c11 -D_GNU_SOURCE $(pkg-config --cflags libnl-genl-3.0) \
 *      tests/unit/test_batch.c ctl/cmd/batch.c
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../ctl/cmd/batch.h"

#define VGPU_UNIT_SUITE "batch"
#include "result.h"

/* Split @in and compare the words, joined by "|", with @want (NULL: error). */
static void split_case(const char *in, const char *want)
{
	char line[256], got[512] = "", what[320];
	char *argv[sizeof(line) / 2 + 2];
	const char *err = NULL;
	int argc, i;

	snprintf(line, sizeof(line), "%s", in);
	argc = vgpuctl_batch_split(line, argv, &err);
	for (i = 0; i < argc; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "|" : "", argv[i]);
	snprintf(what, sizeof(what), "split \"%s\" gives %s", in, want ? want : "an error");
	if (!want)
		result(argc < 0 && err, what, "got %d words: %s", argc, got);
	else
		result(argc >= 0 && !strcmp(got, want) && !argv[argc], what,
		       "got %d: \"%s\" (%s)", argc, got, argc < 0 ? err : "");
}

static void split_cases(void)
{
	split_case("", "");
	split_case("   \t ", "");
	split_case("# a comment", "");
	split_case("   # indented comment", "");
	split_case("gpu show", "gpu|show");
	split_case("  tenant  add\ta   cgroup x  ", "tenant|add|a|cgroup|x");
	split_case("tenant show # which one", "tenant|show");
	split_case("tenant show a#b", "tenant|show|a#b");
	split_case("tenant add \"a b\" cgroup x", "tenant|add|a b|cgroup|x");
	split_case("x 'it''s' y", "x|its|y");
	split_case("x '\"q\"'", "x|\"q\"");
	split_case("x \"a\\\"b\\\\c\\n\"", "x|a\"b\\c\\n");
	split_case("x 'a\\b'", "x|a\\b");
	split_case("x a\\ b", "x|a b");
	split_case("x \"\" y", "x||y");
	split_case("x ''", "x|");
	split_case("x \"#\" y", "x|#|y");
	split_case("x pre\"mid dle\"post", "x|premid dlepost");
	split_case("x \"open", NULL);
	split_case("x 'open", NULL);
	split_case("x \"a\\\"", NULL);
	split_case("x\r", "x");
}

/* Read every logical line of @text: "FIRST:TEXT" joined by "|". */
static void read_case(const char *text, const char *want)
{
	struct vgpuctl_batch_line l = { 0 };
	char got[512] = "", what[320];
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int r;

	if (!f) {
		result(false, "fmemopen", "failed");
		return;
	}
	while ((r = vgpuctl_batch_read(f, &l)) > 0)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u:%s",
			 got[0] ? "|" : "", l.first, l.buf);
	fclose(f);
	free(l.buf);
	snprintf(what, sizeof(what), "lines of \"%s\" are %s", text, want);
	result(r == 0 && !strcmp(got, want), what, "got \"%s\" (last %d)", got, r);
}

static void read_cases(void)
{
	read_case("", "");
	read_case("a\n", "1:a");
	read_case("a", "1:a");
	read_case("a\n\nb\n", "1:a|2:|3:b");
	read_case("a\r\nb\r\n", "1:a|2:b");
	read_case("a \\\n b\nc\n", "1:a  b|3:c");
	read_case("a\\\nb\\\nc\nd", "1:abc|4:d");
	read_case("a\\\\\nb\n", "1:a\\\\|2:b");
	read_case("a\\\\\\\nb\n", "1:a\\\\b");
	read_case("x\\", "1:x");
	read_case("\n\n\nx\n", "1:|2:|3:|4:x");
}

/* The fake command: records its words, fails with the status "fail N" asks. */
static char ran[1024];

static int fake_run(int argc, char **argv)
{
	int i;

	snprintf(ran + strlen(ran), sizeof(ran) - strlen(ran), "%s", ran[0] ? "|" : "");
	for (i = 0; i < argc; i++)
		snprintf(ran + strlen(ran), sizeof(ran) - strlen(ran), "%s%s", i ? " " : "", argv[i]);
	if (!strcmp(argv[0], "fail"))
		return argc > 1 ? atoi(argv[1]) : 1;
	return 0;
}

/*
 * Run a batch of @text with stderr in a file; check the commands run, the
 * status and that stderr's last line is @err_want ("" for nothing).
 */
static void loop_case(const char *what, const char *text, bool force, const char *ran_want,
		      int rc_want, const char *err_want)
{
	char path[] = "/tmp/vgpu-batch-XXXXXX", epath[] = "/tmp/vgpu-batch-err-XXXXXX";
	char err[1024] = "", *last;
	int fd = mkstemp(path), efd = mkstemp(epath), saved, rc;
	FILE *ef;
	size_t n;

	if (fd < 0 || efd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		result(false, what, "cannot write the batch file");
		return;
	}
	close(fd);
	ran[0] = '\0';
	fflush(stderr);
	saved = dup(2);
	dup2(efd, 2);
	rc = vgpuctl_batch(path, force, fake_run);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	ef = fdopen(efd, "r");
	rewind(ef);
	n = fread(err, 1, sizeof(err) - 1, ef);
	err[n] = '\0';
	fclose(ef);
	unlink(epath);
	if (n && err[n - 1] == '\n')
		err[n - 1] = '\0';
	last = strrchr(err, '\n') ? strrchr(err, '\n') + 1 : err;
	/* The temporary name stands where the file is named: compare with "F". */
	if (!strncmp(last, "Error: ", 7) && !strncmp(last + 7, path, strlen(path))) {
		memmove(last + 8, last + 7 + strlen(path), strlen(last + 7 + strlen(path)) + 1);
		last[7] = 'F';
	}
	unlink(path);
	result(!strcmp(ran, ran_want) && rc == rc_want && !strcmp(last, err_want), what,
	       "ran \"%s\", status %d, stderr \"%s\"", ran, rc, last);
}

static void loop_cases(void)
{
	loop_case("every line runs, comments and blank lines skipped",
		  "# set-up\n\ngpu add 0 vram 1G\n  tenant add a cgroup a # first\n",
		  false, "gpu add 0 vram 1G|tenant add a cgroup a", 0, "");
	loop_case("a continued line runs once",
		  "tenant add a \\\n  cgroup a\nshow\n", false, "tenant add a cgroup a|show", 0, "");
	loop_case("the first failing line stops the batch with its status",
		  "one\nfail 2\nthree\n", false, "one|fail 2", 2,
		  "Error: F:2: the command failed (exit status 2).");
	loop_case("the line of a failing continued line is its first",
		  "one\nfail \\\n 1\nthree\n", false, "one|fail 1", 1,
		  "Error: F:2: the command failed (exit status 1).");
	loop_case("--force runs every line and returns the first failure's status",
		  "fail 2\ntwo\nfail 1\nfour\n", true, "fail 2|two|fail 1|four", 2,
		  "Error: F:3: the command failed (exit status 1).");
	loop_case("an unclosed quote stops the batch with status 2, naming the line",
		  "one\n\nx \"open\nfour\n", false, "one", 2, "Error: F:3: a quote is not closed.");
	loop_case("an option on a line is refused",
		  "-j show\nshow\n", false, "", 2,
		  "Error: F:1: option \"-j\" on a line: options go before -b.");
	loop_case("an empty file runs nothing and succeeds", "", false, "", 0, "");
	loop_case("a file without a final newline runs its last line", "a\nb", false, "a|b", 0, "");
}

static void missing_file(void)
{
	int saved, devnull, rc;

	fflush(stderr);
	saved = dup(2);
	devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, 2);
	ran[0] = '\0';
	rc = vgpuctl_batch("/nonexistent/vgpu.batch", false, fake_run);
	dup2(saved, 2);
	close(saved);
	close(devnull);
	result(rc == 1 && !ran[0], "a missing batch file fails with status 1, running nothing",
	       "status %d, ran \"%s\"", rc, ran);
}

int main(void)
{
	split_cases();
	read_cases();
	loop_cases();
	missing_file();
	return failures ? 1 : 0;
}
