/* test_cmdout: where a command's output goes (-b: standard error while snapshots are on standard
 * output), and the one notice. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "cmdout.h"
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NOTICE "the command's standard output goes to standard error"

/* Run cmdout_choose() with standard output on fd (a file, a terminal). */
static int choose_with_stdout(int fd, struct cmdout *c, const char *path, bool batch,
                              const char *snapshots, bool text, int *out)
{
	char err[256] = "";
	int saved = dup(STDOUT_FILENO), ret;

	assert_true(saved >= 0);
	fflush(stdout);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	ret = cmdout_choose(c, path, batch, snapshots, text, out, err, sizeof(err));
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	if (ret)
		assert_true(err[0] != '\0');
	return ret;
}

static int dev_null(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

/* The snapshots on standard output (no -o, or -o -), not a terminal: the
 * command's standard output goes to standard error, in every format. */
static void test_batch_snapshots_on_stdout(void **state)
{
	(void)state;
	int fd = dev_null(), out = 0;
	struct cmdout c;

	for (int text = 0; text <= 1; text++) {
		assert_int_equal(choose_with_stdout(fd, &c, NULL, true, NULL, text, &out), 0);
		assert_int_equal(out, LAUNCH_OUT_STDERR);
		assert_true(c.to_stderr);
		assert_int_equal(c.fd, -1);
		assert_int_equal(choose_with_stdout(fd, &c, NULL, true, "-", text, &out), 0);
		assert_int_equal(out, LAUNCH_OUT_STDERR);
		assert_true(c.to_stderr);
	}
	close(fd);
}

/* -o FILE: standard output is the command's alone, as it was. */
static void test_batch_snapshots_in_file(void **state)
{
	(void)state;
	int fd = dev_null(), out = 0;
	struct cmdout c;

	assert_int_equal(choose_with_stdout(fd, &c, NULL, true, "snap.json", false, &out), 0);
	assert_int_equal(out, -1);
	assert_false(c.to_stderr);
	close(fd);
}

/* Text on a terminal is for a person, mixed as perf stat's is; any other
 * format on a terminal is kept apart. */
static void test_batch_terminal(void **state)
{
	(void)state;
	int m = posix_openpt(O_RDWR | O_NOCTTY), out = 0, s;
	struct cmdout c;

	if (m < 0 || grantpt(m) || unlockpt(m))
		skip();
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	assert_true(s >= 0);
	assert_int_equal(choose_with_stdout(s, &c, NULL, true, NULL, true, &out), 0);
	assert_int_equal(out, -1);
	assert_false(c.to_stderr);
	assert_int_equal(choose_with_stdout(s, &c, NULL, true, NULL, false, &out), 0);
	assert_int_equal(out, LAUNCH_OUT_STDERR);
	assert_true(c.to_stderr);
	close(s);
	close(m);
}

/* --command-output: a FILE made new (both outputs), "-" keeps pfmtop's
 * own with -b and is refused by the view. */
static void test_command_output_option(void **state)
{
	(void)state;
	char dir[] = "/tmp/pfmtop-test-cmdout-XXXXXX", path[64];
	int fd = dev_null(), out = 0;
	struct cmdout c;
	struct stat st;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/cmd.log", dir);
	assert_int_equal(choose_with_stdout(fd, &c, path, true, NULL, false, &out), 0);
	assert_true(out > 2);
	assert_int_equal(out, c.fd);
	assert_false(c.to_stderr);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	cmdout_close(&c); /* made and empty: removed */
	assert_int_equal(access(path, F_OK), -1);

	assert_int_equal(choose_with_stdout(fd, &c, "-", true, NULL, false, &out), 0);
	assert_int_equal(out, -1);
	assert_false(c.to_stderr);
	assert_int_equal(choose_with_stdout(fd, &c, "-", false, NULL, true, &out), -EINVAL);
	close(fd);
	rmdir(dir);
}

/* What cmdout_notice() writes on standard error with c. */
static void notice_of(const struct cmdout *c, char *buf, size_t len)
{
	char path[] = "/tmp/pfmtop-test-notice-XXXXXX";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	ssize_t n;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	cmdout_notice(c);
	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, len - 1, 0);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
	unlink(path);
}

/* One line, only when the output was moved. */
static void test_notice(void **state)
{
	(void)state;
	int fd = dev_null(), out = 0;
	struct cmdout c;
	char buf[512];

	assert_int_equal(choose_with_stdout(fd, &c, NULL, true, NULL, false, &out), 0);
	notice_of(&c, buf, sizeof(buf));
	assert_non_null(strstr(buf, NOTICE));
	assert_non_null(strstr(buf, "--command-output FILE"));
	assert_ptr_equal(strchr(buf, '\n'), buf + strlen(buf) - 1);
	assert_int_equal(choose_with_stdout(fd, &c, NULL, true, "snap.json", false, &out), 0);
	notice_of(&c, buf, sizeof(buf));
	assert_string_equal(buf, "");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_batch_snapshots_on_stdout),
	    cmocka_unit_test(test_batch_snapshots_in_file),
	    cmocka_unit_test(test_batch_terminal),
	    cmocka_unit_test(test_command_output_option),
	    cmocka_unit_test(test_notice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
