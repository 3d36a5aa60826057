/* test_trusted: preset files and directories of another user, or writable by others, are not read (needs root). */
#include "preset.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define NOBODY 65534

static char dir[] = "/tmp/pfmtop-trusted-XXXXXX";

static void spit(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0644), 0);
}

static int setup(void **state)
{
	if (geteuid() != 0) {
		print_message("SKIP: needs root (files are chowned to uid %d)\n", NOBODY);
		return 0;
	}
	if (!mkdtemp(dir))
		return -1;
	return chmod(dir, 0755);
}

static int teardown(void **state)
{
	char cmd[128];

	if (geteuid() != 0)
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static void need_root(void)
{
	if (geteuid() != 0)
		skip();
}

/* The helper: another user's file, a file writable by group or others. */
static void test_open_config(void **state)
{
	char p[256], why[160];
	struct stat st;
	int fd;

	need_root();
	snprintf(p, sizeof(p), "%s/f.ini", dir);
	spit(p, "x\n");
	fd = util_open_config(AT_FDCWD, p, true, &st, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	assert_int_equal(util_open_config(AT_FDCWD, p, true, &st, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "owned by uid 65534, not by root");
	assert_int_equal(chown(p, 0, 0), 0);
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(util_open_config(AT_FDCWD, p, true, &st, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "writable by others (mode 0666)");
	assert_int_equal(chmod(p, 0620), 0);
	assert_int_equal(util_open_config(AT_FDCWD, p, true, &st, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "writable by its group (mode 0620)");
	assert_int_equal(unlink(p), 0);

	snprintf(p, sizeof(p), "%s/d", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	assert_int_equal(util_open_config_dir(p, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "owned by uid 65534, not by root");
	assert_int_equal(rmdir(p), 0);
}

/* A planted share dir: nothing in it is read, and one entry says why. */
static void test_preset_dir(void **state)
{
	char d[256], p[300], buf[1024];
	struct preset_set set;
	struct preset_error err;

	need_root();
	snprintf(d, sizeof(d), "%s/presets", dir);
	assert_int_equal(mkdir(d, 0755), 0);
	snprintf(p, sizeof(p), "%s/default.ini", d);
	spit(p, "[preset default]\nevents = page-faults\n");

	/* as it should be: read */
	preset_set_init(&set);
	assert_int_equal(preset_load_dir(&set, d, PRESET_ORIGIN_DATADIR, &err), 0);
	assert_int_equal(set.nr, 1);
	preset_set_free(&set);

	/* the directory another user's, or writable by all: not read */
	assert_int_equal(chown(d, NOBODY, NOBODY), 0);
	preset_set_init(&set);
	assert_int_equal(preset_load_dir(&set, d, PRESET_ORIGIN_DATADIR, &err), 0);
	assert_int_equal(set.nr, 0);
	assert_int_equal(set.nr_files, 1);
	assert_int_equal(set.files[0].ret, -EPERM);
	preset_error_format(&set.files[0].err, buf, sizeof(buf));
	snprintf(p, sizeof(p), "%s: owned by uid 65534, not by root\n", d);
	assert_string_equal(buf, p);
	assert_null(preset_broken_file(&set, "default")); /* not read: declares nothing */
	preset_set_free(&set);
	assert_int_equal(chown(d, 0, 0), 0);
	assert_int_equal(chmod(d, 0777), 0);
	preset_set_init(&set);
	assert_int_equal(preset_load_dir(&set, d, PRESET_ORIGIN_DATADIR, &err), 0);
	assert_int_equal(set.nr, 0);
	assert_int_equal(set.files[0].ret, -EPERM);
	assert_string_equal(set.files[0].err.msg, "writable by others (mode 0777)");
	preset_set_free(&set);
	assert_int_equal(chmod(d, 0755), 0);

	/* one file another user's, one writable by others: each skipped */
	snprintf(p, sizeof(p), "%s/default.ini", d);
	assert_int_equal(chown(p, NOBODY, NOBODY), 0);
	snprintf(p, sizeof(p), "%s/other.ini", d);
	spit(p, "[preset other]\nevents = page-faults\n");
	assert_int_equal(chmod(p, 0666), 0);
	snprintf(p, sizeof(p), "%s/ok.ini", d);
	spit(p, "[preset ok]\nevents = page-faults\n");
	preset_set_init(&set);
	assert_int_equal(preset_load_dir(&set, d, PRESET_ORIGIN_DATADIR, &err), 0);
	assert_int_equal(set.nr, 1);
	assert_string_equal(set.p[0]->name, "ok");
	assert_int_equal(set.nr_files, 3);
	assert_int_equal(set.files[0].ret, -EPERM);
	assert_string_equal(set.files[0].err.msg, "owned by uid 65534, not by root");
	assert_int_equal(set.files[1].ret, 0);
	assert_int_equal(set.files[2].ret, -EPERM);
	assert_string_equal(set.files[2].err.msg, "writable by others (mode 0666)");
	preset_set_free(&set);

	/* and named on the command line: refused too */
	snprintf(p, sizeof(p), "%s/default.ini", d);
	preset_set_init(&set);
	assert_int_equal(preset_load_file(&set, p, PRESET_ORIGIN_FILE, &err), -EPERM);
	preset_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_config),
		cmocka_unit_test(test_preset_dir),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
