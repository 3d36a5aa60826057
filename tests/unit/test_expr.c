/* test_expr: metric expressions: grammar, evaluation with NaN, error columns, printing, carets. */
#include "expr.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Values for names: a=2 b=3 c=5 zero=0, anything listed in nan_names is NaN,
 * "inf" is +inf, cache-misses=40, cycles=1000, instructions=2500, `msr/tsc/`=7,
 * sched:sched_switch=11, pmu::EV:UM=13; others NaN. */
static const char *nan_names = "";
static int lookups;

static double lookup(int var, const char *name, void *arg)
{
	static const struct {
		const char *name;
		double v;
	} vals[] = {
		{"a", 2},
		{"b", 3},
		{"c", 5},
		{"zero", 0},
		{"cache-misses", 40},
		{"cycles", 1000},
		{"instructions", 2500},
		{"msr/tsc/", 7},
		{"sched:sched_switch", 11},
		{"pmu::EV:UM", 13},
		{"a-b", 100},
	};
	const struct expr *e = arg;

	lookups++;
	if (e)
		assert_string_equal(e->var[var], name);
	if (strstr(nan_names, name))
		return NAN;
	if (!strcmp(name, "inf"))
		return INFINITY;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (!strcmp(vals[i].name, name))
			return vals[i].v;
	return NAN;
}

static double eval(const char *src)
{
	struct expr e;
	struct expr_error err;
	int ret = expr_compile(src, &e, &err);

	if (ret)
		print_error("%s: col %d: %s\n", src, err.col, err.msg);
	assert_int_equal(ret, 0);
	return expr_eval(&e, lookup, &e);
}

#define assert_value(src, want)                                                                    \
	do {                                                                                       \
		double got_ = eval(src), want_ = (want);                                           \
		if (fabs(got_ - want_) > 1e-12 * fabs(want_)) {                                    \
			print_error("%s = %.17g, want %.17g\n", src, got_, want_);                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define assert_nan(src) assert_true(isnan(eval(src)))

static void test_precedence(void **state)
{
	assert_value("1 + 2 * 3", 7);
	assert_value("(1 + 2) * 3", 9);
	assert_value("10 - 4 - 3", 3);
	assert_value("100 / 10 / 5", 2);
	assert_value("2 * 3 / 4", 1.5);
	assert_value("2 + 3 * 4 - 6 / 2", 11);
	assert_value("((2))", 2);
	assert_value("1e3 + .5 + 1.5e-3 + 1E+2 + 2.", 1102.5015);
	assert_value("  \t1\n+\r1 ", 2);
}

static void test_unary(void **state)
{
	assert_value("-2 * 3", -6);
	assert_value("- -2", 2);
	assert_value("--2", 2);
	assert_value("2 - -3", 5);
	assert_value("2--3", 5);
	assert_value("-(1 + 2)", -3);
	assert_value("+3", 3);
	assert_value("2 * -3", -6);
	assert_value("-a * b", -6);
	assert_value("-a - -b", 1);
}

static void test_names(void **state)
{
	struct expr e;
	struct expr_error err;

	assert_value("instructions / cycles", 2.5);
	assert_value("1000 * cache-misses / instructions", 16);
	/* a-b is one name; a - b subtracts; so do a -b and a- b */
	assert_value("a-b", 100);
	assert_value("a - b", -1);
	assert_value("a -b", -1);
	assert_value("a- b", -1);
	assert_value("`msr/tsc/` * 2", 14);
	assert_value("sched:sched_switch + pmu::EV:UM", 24);
	assert_value("`a` + `sched:sched_switch`", 13);

	assert_int_equal(expr_compile("cycles / instructions + cycles * `msr/tsc/`", &e, &err), 0);
	assert_int_equal(e.nr_vars, 3);
	assert_string_equal(e.var[0], "cycles");
	assert_string_equal(e.var[1], "instructions");
	assert_string_equal(e.var[2], "msr/tsc/");
	assert_int_equal(e.var_col[0], 1);
	assert_int_equal(e.var_col[1], 10);
	assert_int_equal(e.var_col[2], 34);
	assert_int_equal(expr_find_var(&e, "instructions"), 1);
	assert_int_equal(expr_find_var(&e, "nope"), -1);
	lookups = 0;
	expr_eval(&e, lookup, &e);
	assert_int_equal(lookups, 4);

	assert_true(expr_is_bare_name("L1-dcache-load-misses"));
	assert_true(expr_is_bare_name("amd64_fam19h_zen4::RETIRED_OPS:u"));
	assert_true(expr_is_bare_name("_x.y"));
	assert_false(expr_is_bare_name("msr/tsc/"));
	assert_false(expr_is_bare_name("a-"));
	assert_false(expr_is_bare_name("1a"));
	assert_false(expr_is_bare_name(""));
	assert_false(expr_is_bare_name("INST_RETIRED:ANY_P:c=1"));
}

static void test_functions(void **state)
{
	assert_value("ratio(6, 3)", 2);
	assert_nan("ratio(1, 0)");
	assert_nan("ratio(0, zero)");
	assert_value("min(3, 1, 2)", 1);
	assert_value("max(3, 1, 2)", 3);
	assert_value("min(5)", 5);
	assert_value("max(-1, -2)", -1);
	assert_value("max(a, ratio(b, c)) * 2", 4);
	assert_value("ratio(min(a, b), max(a, b, c)) + 1", 1.4);
	assert_value("min (a, b)", 2);
	assert_value("-max(a, c)", -5);
}

static void test_nan(void **state)
{
	nan_names = "cycles";
	assert_nan("instructions / cycles");
	assert_nan("cycles + 1");
	assert_nan("1 - cycles");
	assert_nan("cycles * 0");
	assert_nan("-cycles");
	assert_nan("min(1, cycles, 3)");
	assert_nan("min(cycles, 1)");
	assert_nan("max(1, 2, cycles)");
	assert_nan("ratio(cycles, 1)");
	assert_nan("ratio(1, cycles)");
	assert_value("instructions / instructions", 1);
	nan_names = "";
	assert_nan("unknown-name + 1"); /* the lookup says "not available" */
	assert_nan("inf - 1");          /* an infinite input is not a value */
	assert_nan("inf * zero");
}

static void test_division_by_zero(void **state)
{
	assert_nan("1 / 0");
	assert_nan("0 / 0");
	assert_nan("a / zero");
	assert_nan("a / (b - b)");
	assert_nan("-1 / -0");
	assert_nan("1e308 * 10");   /* overflow is not a value either */
	assert_nan("-1e308 * 1e10");
	assert_value("zero / a", 0);
}

/* Compile src, which must fail at col with msg. */
static void expect_error(const char *src, int col, const char *msg)
{
	struct expr e;
	struct expr_error err;
	int ret = expr_compile(src, &e, &err);

	if (ret != -EINVAL || err.col != col || strcmp(err.msg, msg))
		print_error("%s: ret %d col %d msg '%s'\n  want col %d '%s'\n", src, ret, err.col,
			    err.msg, col, msg);
	assert_int_equal(ret, -EINVAL);
	assert_int_equal(err.col, col);
	assert_string_equal(err.msg, msg);
}

static void test_errors(void **state)
{
	char src[1024];

	expect_error("", 1, "empty expression");
	expect_error("   ", 1, "empty expression");
	expect_error("a +", 4, "unexpected end of expression, expected a number, name or '('");
	expect_error("a + ", 5, "unexpected end of expression, expected a number, name or '('");
	expect_error("a b", 3, "unexpected name 'b', expected an operator");
	expect_error("a 2", 3, "unexpected number, expected an operator");
	expect_error("2 (b)", 3, "unexpected '(', expected an operator");
	expect_error("a (b)", 1, "unknown function 'a' (known: ratio, min, max)");
	expect_error("(a + b", 7,
		     "unexpected end of expression, expected ')' to close the '(' at column 1");
	expect_error("a * (b + c", 11,
		     "unexpected end of expression, expected ')' to close the '(' at column 5");
	expect_error("a + b)", 6, "unmatched ')'");
	expect_error("*a", 1, "unexpected '*', expected a number, name or '('");
	expect_error("a + ,", 5, "unexpected ',', expected a number, name or '('");
	expect_error("a , b", 3, "unexpected ',', expected an operator");
	expect_error("()", 2, "unexpected ')', expected a number, name or '('");
	expect_error("foo(a)", 1, "unknown function 'foo' (known: ratio, min, max)");
	expect_error("a + sqrt (a)", 5, "unknown function 'sqrt' (known: ratio, min, max)");
	expect_error("ratio(a)", 1, "ratio() takes 2 arguments, not 1");
	expect_error("1 + ratio(a, b, c)", 5, "ratio() takes 2 arguments, not 3");
	expect_error("min()", 1, "min() takes at least 1 argument, not 0");
	expect_error("max( )", 1, "max() takes at least 1 argument, not 0");
	expect_error("min(a b)", 7, "unexpected name 'b', expected ',' or ')' (call at column 4)");
	expect_error("min(a,", 7, "unexpected end of expression, expected a number, name or '('");
	expect_error("max(a", 6,
		     "unexpected end of expression, expected ',' or ')' (call at column 4)");
	expect_error("a $ b", 3, "unexpected character '$'");
	expect_error("a + \x01", 5, "unexpected byte 0x01");
	expect_error("a + \xc3\xa9", 5, "unexpected byte 0xc3");
	expect_error("`msr/tsc/", 1, "unterminated quoted name (missing closing '`')");
	expect_error("a + `x\ny`", 5, "unterminated quoted name (missing closing '`')");
	expect_error("a + ``", 5, "empty quoted name");
	expect_error("2x", 1, "malformed number");
	expect_error("a + 1.2.3", 5, "malformed number");
	expect_error("1e", 1, "malformed number");
	expect_error("1e+", 1, "malformed number");
	expect_error("3 * 1e999", 5, "number out of range");

	memset(src, 'x', 200);
	strcpy(src + 200, " + 1");
	expect_error(src, 1, "name too long (at most 127 characters)");
	snprintf(src, sizeof(src), "1 + `%0128d`", 0);
	expect_error(src, 5, "name too long (at most 127 characters)");
	memset(src, '1', 70);
	src[70] = '\0';
	expect_error(src, 1, "number too long");

	/* 17 distinct names: the 17th (n16) fails at its column */
	src[0] = '\0';
	for (int i = 0; i < 17; i++)
		snprintf(src + strlen(src), sizeof(src) - strlen(src), "%sn%d", i ? "+" : "", i);
	expect_error(src, (int)(strstr(src, "n16") - src) + 1,
		     "too many distinct names (at most 16)");

	/* 33 ones and 32 pluses are 65 operations: the last '+' does not fit */
	src[0] = '\0';
	for (int i = 0; i < 33; i++)
		strcat(src, i ? "+1" : "1");
	expect_error(src, (int)strlen(src) - 1, "expression too long (at most 64 operations)");

	/* 40 nested parentheses: the 33rd level fails */
	memset(src, '(', 40);
	strcpy(src + 40, "1");
	memset(src + 41, ')', 40);
	src[81] = '\0';
	expect_error(src, 33, "expression nested too deeply (at most 32 levels)");
	memset(src, '-', 40);
	strcpy(src + 40, "1");
	expect_error(src, 33, "expression nested too deeply (at most 32 levels)");
}

static bool known(const char *name, void *arg)
{
	return strstr(arg, name) != NULL;
}

static void test_check(void **state)
{
	struct expr e;
	struct expr_error err;

	assert_int_equal(expr_compile("alpha + beta * gamma + beta", &e, &err), 0);
	assert_int_equal(expr_check(&e, known, "alpha gamma beta", &err), 0);
	assert_int_equal(expr_check(&e, known, "alpha gamma", &err), -ENOENT);
	assert_int_equal(err.col, 9);
	assert_string_equal(err.msg, "unknown event 'beta'");
	/* source order, not evaluation order */
	assert_int_equal(expr_compile("x + y * (z - w)", &e, &err), 0);
	assert_int_equal(expr_check(&e, known, "x", &err), -ENOENT);
	assert_int_equal(err.col, 5);
	assert_int_equal(expr_compile("1 + `msr/tsc/`", &e, &err), 0);
	assert_int_equal(expr_check(&e, known, "", &err), -ENOENT);
	assert_int_equal(err.col, 5);
	assert_string_equal(err.msg, "unknown event 'msr/tsc/'");
}

static void test_rename(void **state)
{
	struct expr e;
	struct expr_error err;
	char buf[256];
	char longname[EXPR_NAME_MAX + 1];

	assert_int_equal(expr_compile("a / cycles + a", &e, &err), 0);
	assert_int_equal(expr_rename(&e, 1, "msr/tsc/"), 0);
	assert_true(fabs(expr_eval(&e, lookup, &e) - (2.0 / 7 + 2)) < 1e-12);
	assert_int_equal(expr_format(&e, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "a / `msr/tsc/` + a");
	assert_int_equal(expr_rename(&e, 2, "x"), -EINVAL);
	assert_int_equal(expr_rename(&e, -1, "x"), -EINVAL);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(expr_rename(&e, 0, longname), -ENAMETOOLONG);
}

static void expect_format(const char *src, const char *want)
{
	struct expr e, e2;
	struct expr_error err;
	char buf[512], buf2[512];

	assert_int_equal(expr_compile(src, &e, &err), 0);
	assert_int_equal(expr_format(&e, buf, sizeof(buf)), 0);
	if (strcmp(buf, want))
		print_error("format(%s) = '%s', want '%s'\n", src, buf, want);
	assert_string_equal(buf, want);
	/* the printed form compiles to the same code */
	assert_int_equal(expr_compile(buf, &e2, &err), 0);
	assert_int_equal(e2.nr_ops, e.nr_ops);
	for (int i = 0; i < e.nr_ops; i++) {
		assert_int_equal(e2.op[i].code, e.op[i].code);
		assert_int_equal(e2.op[i].argc, e.op[i].argc);
		if (e.op[i].code == EXPR_OP_NUM)
			assert_true(e2.op[i].num == e.op[i].num);
	}
	assert_int_equal(expr_format(&e2, buf2, sizeof(buf2)), 0);
	assert_string_equal(buf2, buf);
}

static void test_format(void **state)
{
	struct expr e;
	struct expr_error err;
	char small[8];

	expect_format("100*a/b", "100 * a / b");
	expect_format("a-(b - c)", "a - (b - c)");
	expect_format("(a - b)-c", "a - b - c");
	expect_format("(a-b)-c", "a-b - c"); /* a-b is a name */
	expect_format("a/(b*c)", "a / (b * c)");
	expect_format("(a*b)/c", "a * b / c");
	expect_format("(a+b)*c", "(a + b) * c");
	expect_format("-(a*b)", "-(a * b)");
	expect_format("-a*b", "-a * b");
	expect_format("- - a", "--a");
	expect_format("-(-(-a))", "---a");
	expect_format("a - -b", "a - -b");
	expect_format("+a", "a");
	expect_format("ratio(a,b)", "ratio(a, b)");
	expect_format("min(a,max(b,c),1)", "min(a, max(b, c), 1)");
	expect_format("-min(a)", "-min(a)");
	expect_format("`msr/tsc/`+1", "`msr/tsc/` + 1");
	expect_format("`cycles`", "cycles");
	expect_format("0.1", "0.1");
	expect_format("1e6", "1000000");
	expect_format("1.5e-3", "0.0015");
	expect_format("1e300", "1e+300");
	expect_format("0.30000000000000004", "0.30000000000000004");
	expect_format("cache-misses - a", "cache-misses - a");

	assert_int_equal(expr_compile("instructions / cycles", &e, &err), 0);
	assert_int_equal(expr_format(&e, small, sizeof(small)), -ENOSPC);
	assert_string_equal(small, "instruc");
}

/*
 * A locale with a decimal comma: one installed, else de_DE compiled from the
 * locale sources (package locales) into dir, found through LOCPATH. NULL if
 * neither can be had.
 */
static const char *comma_locale(char *dir, size_t len)
{
	const char *locales[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE.utf8", "ru_RU.UTF-8"};
	const char *set = NULL;
	char cmd[PATH_MAX + 128];

	for (size_t i = 0; i < sizeof(locales) / sizeof(locales[0]) && !set; i++)
		set = setlocale(LC_NUMERIC, locales[i]);
	if (set)
		return set;
	snprintf(dir, len, "%s/pfmtop-test_expr.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir))
		return NULL;
	snprintf(cmd, sizeof(cmd), "localedef -i de_DE -f UTF-8 '%s/de_DE.UTF-8' >/dev/null 2>&1",
		 dir);
	if (system(cmd) != 0)
		return NULL;
	setenv("LOCPATH", dir, 1);
	return setlocale(LC_NUMERIC, "de_DE.UTF-8");
}

static void test_locale(void **state)
{
	/* Numbers never depend on LC_NUMERIC (the TUI sets the locale). */
	char dir[PATH_MAX] = "", cmd[PATH_MAX + 16];
	const char *set = comma_locale(dir, sizeof(dir));

	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			print_message("cannot remove %s\n", dir);
	}
	if (!set) {
		print_message("SKIP: no locale with a decimal comma, and localedef cannot make "
			      "de_DE (apt-get install locales)\n");
		skip();
	}
	assert_string_equal(localeconv()->decimal_point, ",");
	assert_value("0.5 * 3", 1.5);
	expect_format("0.25", "0.25");
	setlocale(LC_NUMERIC, "C");
}

static void expect_caret(const char *file, int line, int col, const char *msg, const char *src,
			 const char *want)
{
	char buf[512];
	int n = expr_error_format(buf, sizeof(buf), file, line, col, msg, src);

	if (strcmp(buf, want))
		print_error("got:\n%s\nwant:\n%s\n", buf, want);
	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_caret(void **state)
{
	char tiny[10];

	expect_caret("p.ini", 7, 21, "unknown event 'cycels'", "metric.IPC = insns / cycels",
		     "p.ini:7:21: unknown event 'cycels'\n"
		     "    metric.IPC = insns / cycels\n"
		     "                        ^\n");
	/* tabs are copied so that the caret lines up */
	expect_caret("p.ini", 2, 4, "oops", "\ta\tb",
		     "p.ini:2:4: oops\n"
		     "    \ta\tb\n"
		     "    \t \t^\n");
	/* a UTF-8 character before the column is one column wide */
	expect_caret("p.ini", 3, 11, "here", "d = \xc3\xa9t\xc3\xa9 x",
		     "p.ini:3:11: here\n"
		     "    d = \xc3\xa9t\xc3\xa9 x\n"
		     "            ^\n");
	/* one past the end */
	expect_caret(NULL, 0, 4, "unexpected end", "a +",
		     "column 4: unexpected end\n"
		     "    a +\n"
		     "       ^\n");
	/* no column: no caret; no source: no lines */
	expect_caret("f.ini", 9, 0, "syntax error", "x y",
		     "f.ini:9: syntax error\n"
		     "    x y\n");
	expect_caret("f.ini", 0, 0, "cannot open: No such file or directory", NULL,
		     "f.ini: cannot open: No such file or directory\n");
	expect_caret(NULL, 0, 0, "bare", NULL, "bare\n");
	/* the source line stops at a newline */
	expect_caret("f", 1, 1, "m", "ab\ncd", "f:1:1: m\n    ab\n    ^\n");
	/* truncation: like snprintf */
	assert_int_equal(expr_error_format(tiny, sizeof(tiny), "file.ini", 1, 2, "message", NULL),
			 (int)strlen("file.ini:1:2: message\n"));
	assert_string_equal(tiny, "file.ini:");
	assert_int_equal(expr_error_format(NULL, 0, "f", 1, 2, "m", NULL), 9);
}

static void test_eval_guards(void **state)
{
	struct expr e;

	/* A zeroed or damaged expression evaluates to NaN rather than crashing. */
	memset(&e, 0, sizeof(e));
	assert_true(isnan(expr_eval(&e, lookup, NULL)));
	e.nr_ops = 1;
	e.op[0].code = EXPR_OP_ADD;
	e.op[0].argc = 2;
	assert_true(isnan(expr_eval(&e, lookup, NULL)));
	e.op[0].code = EXPR_OP_VAR;
	e.op[0].var = 3;
	assert_true(isnan(expr_eval(&e, lookup, NULL)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence), cmocka_unit_test(test_unary),
		cmocka_unit_test(test_names),      cmocka_unit_test(test_functions),
		cmocka_unit_test(test_nan),        cmocka_unit_test(test_division_by_zero),
		cmocka_unit_test(test_errors),     cmocka_unit_test(test_check),
		cmocka_unit_test(test_rename),     cmocka_unit_test(test_format),
		cmocka_unit_test(test_locale),     cmocka_unit_test(test_caret),
		cmocka_unit_test(test_eval_guards),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
