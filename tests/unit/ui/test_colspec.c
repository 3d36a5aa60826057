/* test_colspec: the F2 column setup as text (parse, format) and its merge with a view's columns. */
#include "colspec.h"
#include "view.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static struct colspec_item it[COLSPEC_MAX];
static char err[160];

static void test_parse(void **state)
{
	assert_int_equal(colspec_parse("", it, COLSPEC_MAX, err, sizeof(err)), 0);
	assert_int_equal(colspec_parse("PID,USER,CPU%,page-faults:12,COMMAND", it, COLSPEC_MAX, err,
	                               sizeof(err)),
	                 5);
	assert_string_equal(it[0].name, "PID");
	assert_string_equal(it[3].name, "page-faults");
	assert_int_equal(it[3].width, 12);
	assert_int_equal(it[2].width, 0);
	assert_false(it[3].hidden);
	/* hidden, spaces, event names with ':' and escaped ',' */
	assert_int_equal(
	    colspec_parse(" -THR , sched:sched_switch,INST_RETIRED:ANY_P:9,cpu/a=1\\,b=2/", it,
	                  COLSPEC_MAX, err, sizeof(err)),
	    4);
	assert_true(it[0].hidden);
	assert_string_equal(it[0].name, "THR");
	assert_string_equal(it[1].name, "sched:sched_switch");
	assert_int_equal(it[1].width, 0);
	assert_string_equal(it[2].name, "INST_RETIRED:ANY_P");
	assert_int_equal(it[2].width, 9);
	assert_string_equal(it[3].name, "cpu/a=1,b=2/");
}

static void test_parse_errors(void **state)
{
	assert_int_equal(colspec_parse("PID,,USER", it, COLSPEC_MAX, err, sizeof(err)), -1);
	assert_string_equal(err, "column 2: no name");
	assert_int_equal(colspec_parse("PID:0", it, COLSPEC_MAX, err, sizeof(err)), -1);
	assert_string_equal(err, "column 'PID': width 0 is not 1 to 200");
	assert_int_equal(colspec_parse("PID:201", it, COLSPEC_MAX, err, sizeof(err)), -1);
	assert_int_equal(colspec_parse("PID,USER,PID", it, COLSPEC_MAX, err, sizeof(err)), -1);
	assert_string_equal(err, "column 'PID' given twice");
	assert_int_equal(colspec_parse("A,B,C", it, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "more than 2 columns");
	assert_int_equal(colspec_parse("-", it, COLSPEC_MAX, err, sizeof(err)), -1);
	assert_int_equal(colspec_parse(",", it, COLSPEC_MAX, err, sizeof(err)), -1);
}

static void test_format_round_trip(void **state)
{
	const char *in = "PID,-USER,CPU%:10,cpu/a=1\\,b=2/,back\\\\slash:3,COMMAND";
	char out[256];
	int n = colspec_parse(in, it, COLSPEC_MAX, err, sizeof(err));

	assert_int_equal(n, 6);
	assert_string_equal(it[4].name, "back\\slash");
	assert_int_equal(colspec_format(it, n, out, sizeof(out)), 0);
	assert_string_equal(out, in);
	assert_int_equal(colspec_format(it, n, out, 10), -1);
	assert_string_equal(out, "");
}

static void merged(const char *const *names, int nd, const char *spec, char *out)
{
	int order[COLSPEC_MAX], width[COLSPEC_MAX], n;
	bool hidden[COLSPEC_MAX];

	n = colspec_parse(spec, it, COLSPEC_MAX, err, sizeof(err));
	assert_true(n >= 0);
	colspec_merge(names, nd, it, n, order, hidden, width);
	out[0] = '\0';
	for (int j = 0; j < nd; j++) {
		char w[16] = "";
		if (width[order[j]])
			snprintf(w, sizeof(w), ":%d", width[order[j]]);
		sprintf(out + strlen(out), "%s%s%s%s", j ? "," : "", hidden[order[j]] ? "-" : "",
		        names[order[j]], w);
	}
}

static void test_merge(void **state)
{
	const char *const cols[] = {"PID",        "USER",        "CPU%",  "THR",
	                            "task-clock", "page-faults", "STATE", "COMMAND"};
	char out[256];

	merged(cols, 8, "", out);
	assert_string_equal(out, "PID,USER,CPU%,THR,task-clock,page-faults,STATE,COMMAND");
	/* reordered, hidden, a width; names of another preset ignored */
	merged(cols, 8,
	       "COMMAND,PID,-USER,CPU%,-THR,task-clock,page-faults:12,STATE,cycles,instructions",
	       out);
	assert_string_equal(out, "COMMAND,PID,-USER,CPU%,-THR,task-clock,page-faults:12,STATE");
	/* columns the spec does not name stay after the column they follow */
	merged(cols, 8, "PID,USER,CPU%,page-faults:12,COMMAND", out);
	assert_string_equal(out, "PID,USER,CPU%,THR,task-clock,page-faults:12,STATE,COMMAND");
	merged(cols, 8, "COMMAND,PID", out);
	assert_string_equal(out, "COMMAND,PID,USER,CPU%,THR,task-clock,page-faults,STATE");
	/* nothing before it named: first */
	merged(cols, 8, "STATE,COMMAND", out);
	assert_string_equal(out, "PID,USER,CPU%,THR,task-clock,page-faults,STATE,COMMAND");
	merged(cols, 8, "USER,PID", out);
	assert_string_equal(out, "USER,PID,CPU%,THR,task-clock,page-faults,STATE,COMMAND");
}

static void test_settings_api(void **state)
{
	struct view_settings s;

	memset(&s, 0, sizeof(s));
	assert_string_equal(view_columns_text(&s, VIEW_TASKS), "");
	assert_int_equal(
	    view_columns_parse(&s, VIEW_TASKS, "PID, USER ,-THR,page-faults:12", err, sizeof(err)),
	    0);
	assert_string_equal(view_columns_text(&s, VIEW_TASKS), "PID,USER,-THR,page-faults:12");
	assert_string_equal(view_columns_text(&s, VIEW_CPUS), "");
	/* a bad text leaves the setup as it was */
	assert_int_equal(view_columns_parse(&s, VIEW_TASKS, "PID:x:0", err, sizeof(err)), -1);
	assert_string_equal(view_columns_text(&s, VIEW_TASKS), "PID,USER,-THR,page-faults:12");
	assert_int_equal(view_columns_parse(&s, VIEW_TASKS, "", err, sizeof(err)), 0);
	assert_string_equal(view_columns_text(&s, VIEW_TASKS), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_format_round_trip),
	    cmocka_unit_test(test_merge),
	    cmocka_unit_test(test_settings_api),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
