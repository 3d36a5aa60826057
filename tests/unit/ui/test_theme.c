/* test_theme: the slot table, styles, every shipped theme, and file:line for broken ones. */
#include "theme.h"

#include <errno.h>
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

static struct theme t;
static struct theme_error e;

static void test_styles(void **state)
{
	struct theme_style s;

	assert_int_equal(theme_parse_style("black on cyan, bold", false, &s), 0);
	assert_int_equal(s.fg, 0);
	assert_int_equal(s.bg, 6);
	assert_int_equal(s.attrs, THEME_BOLD);
	assert_int_equal(theme_parse_style("default, dim, underline", false, &s), 0);
	assert_int_equal(s.fg, THEME_DEFAULT_COLOR);
	assert_int_equal(s.attrs, THEME_DIM | THEME_UNDERLINE);
	assert_int_equal(theme_parse_style("reverse", false, &s), 0);
	assert_int_equal(s.attrs, THEME_REVERSE);
	assert_int_equal(theme_parse_style("color208 on color16", true, &s), 0);
	assert_int_equal(s.fg, 208);
	assert_int_equal(s.bg, 16);
	assert_int_equal(theme_parse_style("bright-red", true, &s), 0);
	assert_int_equal(s.fg, 9);
	/* 256-colour values only where they are meant. */
	assert_int_equal(theme_parse_style("color208", false, &s), -EINVAL);
	assert_int_equal(theme_parse_style("color256", true, &s), -EINVAL);
	assert_int_equal(theme_parse_style("purple", true, &s), -EINVAL);
	assert_int_equal(theme_parse_style("red, blinking", false, &s), -EINVAL);
	assert_int_equal(theme_parse_style("", false, &s), -EINVAL);
}

static void test_slot_table(void **state)
{
	/* Every default in the table parses, and keys are unique. */
	theme_builtin(&t);
	assert_string_equal(t.name, "default");
	for (int i = 0; i < THEME_NR_SLOTS; i++) {
		assert_non_null(theme_slot_key((enum theme_slot)i));
		for (int k = 0; k < i; k++)
			assert_string_not_equal(theme_slot_key((enum theme_slot)i),
			                        theme_slot_key((enum theme_slot)k));
	}
	assert_string_equal(theme_slot_key(THEME_ROW_SELECTED), "row.selected");
	assert_string_equal(theme_slot_key(THEME_HOT_HIGH), "hot.high");
	assert_string_equal(theme_slot_key(THEME_BADGE_LOST), "badge.lost");
	assert_null(theme_slot_key(THEME_NR_SLOTS));
}

static void test_shipped_themes(void **state)
{
	const char *names[] = {"default", "light", "mono", "high-contrast"};
	const char *src = getenv("PFMTOP_SRCDIR");
	char path[4096];

	/* Compiled in: each loads, and default.ini says what the table says. */
	assert_int_equal(themes_builtin_count, 4);
	for (int i = 0; i < themes_builtin_count; i++)
		assert_int_equal(
		    theme_load_string(&t, "x", themes_builtin[i].name, themes_builtin[i].text, &e),
		    0);
	/* On disk too, every slot set in [colors]. */
	if (!src) {
		print_message("SKIP: PFMTOP_SRCDIR is not set: run through ctest\n");
		skip();
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/themes/%s.ini", src, names[i]);
		if (theme_load_file(&t, path, &e)) {
			char buf[5000];
			theme_error_format(&e, buf, sizeof(buf));
			fail_msg("%s", buf);
		}
		assert_string_equal(t.name, names[i]);
		assert_true(t.description[0]);
		FILE *f = fopen(path, "r");
		char text[8192];
		size_t n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
		text[n] = '\0';
		char *c8 = strstr(text, "[colors]");
		assert_non_null(c8);
		for (int s = 0; s < THEME_NR_SLOTS; s++) {
			char key[64];
			snprintf(key, sizeof(key), "\n%s ", theme_slot_key((enum theme_slot)s));
			if (!strstr(c8, key))
				fail_msg("%s.ini does not set %s", names[i],
				         theme_slot_key((enum theme_slot)s));
		}
	}
	struct theme def;
	theme_builtin(&def);
	snprintf(path, sizeof(path), "%s/themes/default.ini", src);
	assert_int_equal(theme_load_file(&t, path, &e), 0);
	assert_memory_equal(def.c8, t.c8, sizeof(def.c8));
	assert_memory_equal(def.c256, t.c256, sizeof(def.c256));
	snprintf(path, sizeof(path), "%s/themes/mono.ini", src);
	assert_int_equal(theme_load_file(&t, path, &e), 0);
	assert_true(t.mono);
}

static void expect_error(const char *text, int line, const char *words)
{
	char path[] = "/tmp/pfmtop-theme-XXXXXX", buf[5000];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(theme_load_file(&t, path, &e), -EINVAL);
	unlink(path);
	assert_string_equal(e.file, path);
	assert_int_equal(e.line, line);
	theme_error_format(&e, buf, sizeof(buf));
	if (!strstr(buf, words))
		fail_msg("'%s' lacks '%s'", buf, words);
	/* And the theme it leaves is the built-in one. */
	struct theme def;
	theme_builtin(&def);
	assert_memory_equal(def.c8, t.c8, sizeof(def.c8));
}

static void test_broken(void **state)
{
	expect_error("[colors]\nheader = black on cyan\nrow.selected = chartreuse\n", 3,
	             "bad style 'chartreuse' in row.selected");
	expect_error("[colors]\n\nrow.selectd = red\n", 3, "unknown slot 'row.selectd'");
	expect_error("[colours]\nrow = red\n", 2, "unknown section 'colours'");
	expect_error("[colors]\nrow = color200\n", 2, "colorN belongs in [colors256]");
	expect_error("[theme]\ndescription = x\nthis is not ini\n", 3, "syntax error");
	/* A missing file names itself, with no line. */
	assert_int_equal(theme_load_file(&t, "/nonexistent/x.ini", &e), -ENOENT);
	assert_int_equal(e.line, 0);
}

static void spit(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

/* A FIFO is refused at once (no writer: a blocking open would hang); a
 * theme file or directory others may write is skipped and said so. */
static void test_files_not_trusted(void **state)
{
	char dir[] = "/tmp/pfmtop-theme-XXXXXX", p[256], buf[600];
	static struct theme_set set;
	struct theme_paths paths;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(chmod(dir, 0755), 0);
	snprintf(p, sizeof(p), "%s/fifo.ini", dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(theme_load_file(&t, p, &e), -EINVAL);
	theme_error_format(&e, buf, sizeof(buf));
	snprintf(p, sizeof(p), "%s/fifo.ini: not a regular file", dir);
	assert_string_equal(buf, p);

	memset(&paths, 0, sizeof(paths));
	snprintf(paths.userdir, sizeof(paths.userdir), "%s", dir);
	snprintf(p, sizeof(p), "%s/zz-mine.ini", dir);
	spit(p, "[theme]\ndescription = mine\n", 0644);
	theme_set_load(&set, &paths);
	assert_true(theme_set_find(&set, "zz-mine") >= 0);
	assert_int_equal(set.nr_errors, 1); /* the FIFO */

	snprintf(p, sizeof(p), "%s/aa-open.ini", dir);
	spit(p, "[theme]\ndescription = anyone's\n", 0666);
	theme_set_load(&set, &paths);
	assert_int_equal(theme_set_find(&set, "aa-open"), -1);
	assert_int_equal(set.nr_errors, 2);
	theme_error_format(&set.error, buf, sizeof(buf));
	snprintf(p, sizeof(p), "%s/aa-open.ini: writable by others (mode 0666)", dir);
	assert_string_equal(buf, p);

	assert_int_equal(chmod(dir, 0777), 0);
	theme_set_load(&set, &paths);
	assert_int_equal(theme_set_find(&set, "zz-mine"), -1);
	assert_int_equal(set.nr_errors, 1);
	theme_error_format(&set.error, buf, sizeof(buf));
	snprintf(p, sizeof(p), "%s: writable by others (mode 0777)", dir);
	assert_string_equal(buf, p);

	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

/* A set loaded over garbage holds what a cleared one does: only t[0..nr)
 * counts, and loading does not clear the rest. */
static void test_set_over_garbage(void **state)
{
	struct theme_set *a = calloc(1, sizeof(*a)), *b = malloc(sizeof(*b));

	assert_non_null(a);
	assert_non_null(b);
	memset(b, 0x5a, sizeof(*b));
	theme_set_load(a, NULL);
	theme_set_load(b, NULL);
	assert_true(a->nr > 1);
	assert_int_equal(b->nr, a->nr);
	assert_int_equal(b->nr_errors, 0);
	for (int i = 0; i < a->nr; i++)
		assert_memory_equal(&b->t[i], &a->t[i], sizeof(a->t[i]));
	assert_int_equal(theme_set_find(b, "zz-none"), -1);
	assert_int_equal(theme_set_find(b, "light"), theme_set_find(a, "light"));
	free(a);
	free(b);
}

static void test_choose(void **state)
{
	static struct theme_set set;
	char err[5000];
	int i;

	theme_set_load(&set, NULL);
	assert_true(theme_set_find(&set, "light") >= 0);
	assert_true(theme_set_find(&set, "high-contrast") >= 0);
	i = theme_set_choose(&set, "light", false, err, sizeof(err));
	assert_string_equal(set.t[i].name, "light");
	assert_string_equal(err, "");
	i = theme_set_choose(&set, NULL, false, err, sizeof(err));
	assert_string_equal(set.t[i].name, "default");
	/* No colours: mono, whatever was asked for. */
	i = theme_set_choose(&set, "light", true, err, sizeof(err));
	assert_string_equal(set.t[i].name, "mono");
	/* Unknown names and broken files fall back with the reason. */
	i = theme_set_choose(&set, "nope", false, err, sizeof(err));
	assert_string_equal(set.t[i].name, "default");
	assert_non_null(strstr(err, "no theme 'nope'"));
	i = theme_set_choose(&set, "/nonexistent/t.ini", false, err, sizeof(err));
	assert_string_equal(set.t[i].name, "default");
	assert_non_null(strstr(err, "/nonexistent/t.ini: cannot read"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_styles),         cmocka_unit_test(test_slot_table),
	    cmocka_unit_test(test_shipped_themes), cmocka_unit_test(test_broken),
	    cmocka_unit_test(test_choose),         cmocka_unit_test(test_files_not_trusted),
	    cmocka_unit_test(test_set_over_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
