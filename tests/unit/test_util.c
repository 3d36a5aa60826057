/* test_util: strict numbers, elided lists, CPU lists, and settings files that cannot hang or be planted. */
#include "util.h"

#include <errno.h>
#include <limits.h>
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

static void test_parse_long(void **state)
{
	static const char *const bad[] = {"",	 "-",  "+1", " 1", "1 ", "0x10", "1e3", "nan",
					  "inf", "1.0", "1,", "--1", "99999999999999999999"};
	long v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (util_parse_long(bad[i], -100, 100, &v) != -EINVAL) {
			print_error("'%s' accepted\n", bad[i]);
			fail();
		}
	}
	assert_int_equal(util_parse_long("010", 0, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(util_parse_long("-5", -10, 10, &v), 0);
	assert_int_equal(v, -5);
	assert_int_equal(util_parse_long("-5", 0, 10, &v), -EINVAL); /* no '-' when min >= 0 */
	assert_int_equal(util_parse_long("11", 0, 10, &v), -EINVAL);
	assert_int_equal(util_parse_long("0", 1, 10, &v), -EINVAL);
}

static void test_parse_decimal(void **state)
{
	static const char *const bad[] = {"",	   ".",	  "5.",	 "-",	 "+1",	"1e3", "1E3",
					  "0x10",  "0x1p3", "nan", "NAN", "inf", "-inf", "infinity",
					  " 1",	   "1 ",  "1,5", "1.2.3", "--1", "1-"};
	double v;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (util_parse_decimal(bad[i], -1000, 1000, &v) != -EINVAL) {
			print_error("'%s' accepted\n", bad[i]);
			fail();
		}
	}
	assert_int_equal(util_parse_decimal("0.5", 0, 1, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(util_parse_decimal(".25", 0, 1, &v), 0);
	assert_true(v == 0.25);
	assert_int_equal(util_parse_decimal("-1", -1, 1, &v), 0);
	assert_true(v == -1);
	assert_int_equal(util_parse_decimal("-1", 0, 1, &v), -EINVAL);
	assert_int_equal(util_parse_decimal("1.5", 0, 1, &v), -EINVAL);

	uint64_t ns;
	assert_int_equal(util_parse_seconds("0x10", &ns), -EINVAL);
	assert_int_equal(util_parse_seconds("nan", &ns), -EINVAL);
	assert_int_equal(util_parse_seconds("0.5", &ns), 0);
	assert_int_equal(ns, 500000000ull);
	assert_int_equal(util_parse_seconds("0.001", &ns), -EINVAL);
}

static void test_cpulist(void **state)
{
	int cpus[16];

	assert_int_equal(util_cpulist_parse("0,0,1-2,2", cpus, 16), 3);
	assert_int_equal(util_cpulist_parse("0-1\n", cpus, 16), 2); /* as sysfs writes it */
	assert_int_equal(util_cpulist_parse("0,", cpus, 16), -EINVAL);
	assert_int_equal(util_cpulist_parse(",0", cpus, 16), -EINVAL);
	assert_int_equal(util_cpulist_parse("0,,1", cpus, 16), -EINVAL);
	assert_int_equal(util_cpulist_parse("0x1", cpus, 16), -EINVAL);
}

static void test_quote_elided(void **state)
{
	char buf[128], list[600] = "";
	size_t n = 0;

	assert_string_equal(util_quote_elided(buf, sizeof(buf), "a,b", 10, "events"), "'a,b'");
	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%sev%d", i ? "," : "", i);
	assert_string_equal(util_quote_elided(buf, sizeof(buf), list, 12, "events"),
			    "'ev0,ev1,ev2,...(70 events)'");
	/* commas inside pmu/.../ do not split */
	assert_string_equal(util_quote_elided(buf, sizeof(buf), "cpu/a=1,b=2/,task-clock", 14,
					      "events"),
			    "'cpu/a=1,b=2/,...(2 events)'");
	assert_string_equal(util_quote_elided(buf, sizeof(buf), "123456789", 4, NULL),
			    "'1234...'");
}

/* A long path: its start and end around "...", whole characters only. */
static void test_path_elided(void **state)
{
	char path[4000], buf[UTIL_PATH_SHOWN + 1];
	size_t n;

	assert_string_equal(util_path_elided(buf, sizeof(buf), "/tmp/x"), "/tmp/x");
	memset(path, 'a', sizeof(path) - 1);
	path[sizeof(path) - 1] = '\0';
	path[0] = '/';
	memcpy(path + sizeof(path) - 7, "/x.pfr", 6);
	util_path_elided(buf, sizeof(buf), path);
	n = strlen(buf);
	assert_true(n <= UTIL_PATH_SHOWN);
	assert_non_null(strstr(buf, "a...a"));
	assert_int_equal(buf[0], '/');
	assert_string_equal(buf + n - 6, "/x.pfr");
	/* two-byte characters (e with an acute accent) are never cut in two */
	for (size_t i = 0; i + 2 < sizeof(path); i += 2)
		memcpy(path + i, "\xc3\xa9", 2);
	path[sizeof(path) - 2] = '\0'; /* 1999 of them */
	util_path_elided(buf, sizeof(buf), path);
	assert_non_null(strstr(buf, "\xa9...\xc3"));
	assert_int_equal(strlen(buf) % 2, 1); /* whole pairs and the three dots */
}

static void test_untrusted(void **state)
{
	struct stat st = {.st_uid = 1000, .st_mode = S_IFREG | 0644};
	char buf[128];

	assert_null(util_untrusted(&st, 1000, true, buf, sizeof(buf)));
	assert_null(util_untrusted(&st, 1000, false, buf, sizeof(buf)));
	st.st_uid = 0;
	assert_null(util_untrusted(&st, 1000, true, buf, sizeof(buf)));
	assert_string_equal(util_untrusted(&st, 1000, false, buf, sizeof(buf)),
			    "owned by uid 0, not by you (uid 1000)");
	st.st_uid = 65534;
	assert_string_equal(util_untrusted(&st, 1000, true, buf, sizeof(buf)),
			    "owned by uid 65534, not by root or you (uid 1000)");
	assert_string_equal(util_untrusted(&st, 0, true, buf, sizeof(buf)),
			    "owned by uid 65534, not by root");
	st.st_uid = 0;
	st.st_mode = S_IFDIR | 0777;
	assert_string_equal(util_untrusted(&st, 0, true, buf, sizeof(buf)),
			    "writable by others (mode 0777)");
	st.st_mode = S_IFREG | 0664;
	assert_string_equal(util_untrusted(&st, 0, true, buf, sizeof(buf)),
			    "writable by its group (mode 0664)");
	st.st_mode = S_IFDIR | 01755; /* sticky, not writable by others: fine */
	assert_null(util_untrusted(&st, 0, true, buf, sizeof(buf)));
}

/* Files the user owns: a FIFO, a directory, a file too large, a good one. */
static void test_open_config(void **state)
{
	char dir[] = "/tmp/pfmtop-util-XXXXXX", p[256], why[160], *text;
	struct stat st;
	size_t len;
	int fd;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	/* no writer: a blocking open would never return */
	assert_int_equal(util_open_config(AT_FDCWD, p, true, &st, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a regular file");
	assert_int_equal(util_read_config(AT_FDCWD, p, false, 100, &text, &len, why, sizeof(why)),
			 -EINVAL);
	assert_null(text);
	assert_int_equal(util_open_config(AT_FDCWD, dir, true, &st, why, sizeof(why)), -EISDIR);
	assert_string_equal(why, "not a regular file");
	snprintf(p, sizeof(p), "%s/missing", dir);
	assert_int_equal(util_open_config(AT_FDCWD, p, true, &st, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "");

	snprintf(p, sizeof(p), "%s/good.ini", dir);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("hello\n", f);
	fclose(f);
	assert_int_equal(chmod(p, 0644), 0);
	fd = util_open_config(AT_FDCWD, p, true, &st, why, sizeof(why));
	assert_true(fd >= 0);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	assert_int_equal(util_read_config(AT_FDCWD, p, true, 100, &text, &len, why, sizeof(why)), 0);
	assert_int_equal(len, 6);
	assert_string_equal(text, "hello\n");
	free(text);
	assert_int_equal(util_read_config(AT_FDCWD, p, true, 5, &text, &len, why, sizeof(why)),
			 -EFBIG);
	/* writable by others: refused whoever owns it */
	assert_int_equal(chmod(p, 0646), 0);
	assert_int_equal(util_open_config(AT_FDCWD, p, true, &st, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "writable by others (mode 0646)");
	fd = util_open_config(AT_FDCWD, p, false, &st, why, sizeof(why)); /* trust not asked */
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(dir, 0757), 0);
	assert_int_equal(util_open_config_dir(dir, why, sizeof(why)), -EPERM);
	assert_string_equal(why, "writable by others (mode 0757)");
	assert_int_equal(chmod(dir, 0755), 0);
	fd = util_open_config_dir(dir, why, sizeof(why));
	assert_true(fd >= 0);
	close(fd);

	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

static void test_grow(void **state)
{
	int *a = NULL, cap = 0, nr = 0;

	for (int i = 0; i < 1000; i++) {
		assert_int_equal(util_grow(&a, nr, &cap, sizeof(*a), 4), 0);
		assert_true(cap > nr);
		a[nr++] = i;
	}
	assert_int_equal(cap, 1024); /* 4, 8, ... doubling */
	for (int i = 0; i < nr; i++)
		assert_int_equal(a[i], i);
	/* room left: nothing moves */
	int *before = a;
	assert_int_equal(util_grow(&a, 10, &cap, sizeof(*a), 4), 0);
	assert_ptr_equal(a, before);
	int huge = INT_MAX / 2 + 1;
	assert_int_equal(util_grow(&a, huge, &huge, sizeof(*a), 4), -EOVERFLOW);
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_long),   cmocka_unit_test(test_parse_decimal),
		cmocka_unit_test(test_cpulist),	     cmocka_unit_test(test_quote_elided),
		cmocka_unit_test(test_path_elided),
		cmocka_unit_test(test_untrusted),    cmocka_unit_test(test_open_config),
		cmocka_unit_test(test_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
