/* Unit tests for rcfile: the view's settings file parsed, rendered, saved and applied. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "options.h"
#include "rcfile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_parse(void **state)
{
	struct rcfile rc;
	char err[256];

	assert_int_equal(
	    rcfile_parse(&rc,
	                 "# comment\n[view]\ntheme = light\ndelay = 2.5\nview = hotspots\n"
	                 "sort = page-faults\nhide_kernel = yes\nhide_user = off\n"
	                 "columns = PID,CPU%,COMMAND\n",
	                 "rc", err, sizeof(err)),
	    0);
	assert_true(rc.have_theme && rc.have_delay && rc.have_view && rc.have_sort);
	assert_string_equal(rc.theme, "light");
	assert_int_equal(rc.interval_ns, 2500000000ull);
	assert_int_equal(rc.view, OPTIONS_VIEW_HOTSPOTS);
	assert_string_equal(rc.sort, "page-faults");
	assert_true(rc.have_hide_kernel && rc.hide_kernel);
	assert_true(rc.have_hide_user && !rc.hide_user);
	assert_string_equal(rc.columns, "PID,CPU%,COMMAND");
	/* an empty file: nothing set, no error */
	assert_int_equal(rcfile_parse(&rc, "", "rc", err, sizeof(err)), 0);
	assert_false(rc.have_theme || rc.have_delay || rc.have_sort);
}

static void bad(const char *text, const char *want)
{
	struct rcfile rc;
	char err[256];

	assert_int_equal(rcfile_parse(&rc, text, "/x/pfmtoprc", err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		print_error("'%s': got '%s', want '%s'\n", text, err, want);
	assert_non_null(strstr(err, want));
	/* the defaults: nothing of the file is taken */
	assert_false(rc.have_theme || rc.have_delay || rc.have_view);
}

static void test_errors(void **state)
{
	bad("[view]\ntheme = light\ndelay = soon\n", "/x/pfmtoprc:3: delay = soon");
	bad("[view]\nview = all\n", "/x/pfmtoprc:2: view = all");
	bad("[view]\ncolour = red\n", "/x/pfmtoprc:2: unknown setting 'colour'");
	bad("[other]\ntheme = light\n", "/x/pfmtoprc:2: unknown section [other]");
	bad("[view]\nhide_kernel = maybe\n", "/x/pfmtoprc:2: hide_kernel = maybe");
	bad("[view]\nthis is not ini\n", "/x/pfmtoprc:2: ");
	bad("[view]\ndelay = 0\n", "/x/pfmtoprc:2:");
	bad("[view]\ntheme = two words\n", "/x/pfmtoprc:2: theme");
}

static void test_round_trip(void **state)
{
	struct rcfile a = {0}, b;
	char err[256], dir[] = "/tmp/test_rcfile.XXXXXX", path[PATH_MAX + 16], sub[PATH_MAX];
	struct stat st;
	size_t len = 0;
	char *text;

	a.have_theme = a.have_delay = a.have_view = a.have_sort = a.have_hide_kernel = true;
	a.have_columns = true;
	strcpy(a.theme, "high-contrast");
	a.interval_ns = 250000000ull;
	a.view = OPTIONS_VIEW_EVENTS;
	strcpy(a.sort, "context-switches");
	a.hide_kernel = true;
	strcpy(a.columns, "PID CPU%");
	text = rcfile_render(&a, &len);
	assert_non_null(text);
	assert_int_equal(rcfile_parse(&b, text, "rc", err, sizeof(err)), 0);
	free(text);
	assert_memory_equal(&a, &b, sizeof(a));

	/* saved: the directory made 0700, the file 0600, read back the same */
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/cfg/pfmtop", dir);
	snprintf(path, sizeof(path), "%s/" RCFILE_NAME, sub);
	assert_int_equal(rcfile_save(&a, path, err, sizeof(err)), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(rcfile_load(&b, path, err, sizeof(err)), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	/* saved again over it: still one file, no temporary left */
	a.interval_ns = 3000000000ull;
	assert_int_equal(rcfile_save(&a, path, err, sizeof(err)), 0);
	assert_int_equal(rcfile_load(&b, path, err, sizeof(err)), 0);
	assert_int_equal(b.interval_ns, 3000000000ull);
	char cmd[PATH_MAX + 64];
	snprintf(cmd, sizeof(cmd), "test $(ls -A '%s' | wc -l) = 1", sub);
	assert_int_equal(system(cmd), 0);

	/* a settings file that is a symbolic link is not written through */
	char target[PATH_MAX + 16];
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	unlink(path);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(rcfile_save(&a, path, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(access(target, F_OK), -1);
	/* nor a directory that is one */
	char linkdir[PATH_MAX + 16], lpath[PATH_MAX + 32];
	snprintf(linkdir, sizeof(linkdir), "%s/cfg/linked", dir);
	assert_int_equal(symlink(sub, linkdir), 0);
	snprintf(lpath, sizeof(lpath), "%s/" RCFILE_NAME, linkdir);
	assert_true(rcfile_save(&a, lpath, err, sizeof(err)) < 0);
	/* a missing file is -ENOENT and no message */
	snprintf(lpath, sizeof(lpath), "%s/none", dir);
	assert_int_equal(rcfile_load(&b, lpath, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_apply(void **state)
{
	struct rcfile rc;
	struct options o;
	char err[256];
	char *argv[] = {"pfmtop", "-d", "3", "--theme", "mono", NULL};

	assert_int_equal(rcfile_parse(&rc,
	                              "[view]\ntheme = light\ndelay = 2\nview = tasks\n"
	                              "sort = pid\nhide_user = true\n",
	                              "rc", err, sizeof(err)),
	                 0);
	/* nothing given: the file's */
	char *bare[] = {"pfmtop", NULL};
	assert_int_equal(options_parse(&o, 1, bare, err, sizeof(err)), 0);
	rcfile_apply(&rc, &o);
	assert_string_equal(o.theme, "light");
	assert_int_equal(o.session.interval_ns, 2000000000ull);
	assert_int_equal(o.view, OPTIONS_VIEW_TASKS);
	assert_true(o.session.profile.hide_user);
	/* given on the command line: those win */
	assert_int_equal(options_parse(&o, 5, argv, err, sizeof(err)), 0);
	rcfile_apply(&rc, &o);
	assert_string_equal(o.theme, "mono");
	assert_int_equal(o.session.interval_ns, 3000000000ull);
}

static void test_path(void **state)
{
	char buf[PATH_MAX];

	setenv("XDG_CONFIG_HOME", "/cfg", 1);
	assert_int_equal(rcfile_path(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/cfg/pfmtop/pfmtoprc");
	setenv("XDG_CONFIG_HOME", "relative", 1); /* ignored, as XDG says */
	setenv("HOME", "/home/u", 1);
	assert_int_equal(rcfile_path(buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/home/u/.config/pfmtop/pfmtoprc");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	assert_int_equal(rcfile_path(buf, sizeof(buf)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),      cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_round_trip), cmocka_unit_test(test_apply),
	    cmocka_unit_test(test_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
