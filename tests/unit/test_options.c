/* Unit tests for options: the command line and its error messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_len(struct options *o, char *err, size_t errlen, const char *const *args)
{
	char *argv[32];
	int argc = 0;

	argv[argc++] = "pfmtop";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return options_parse(o, argc, argv, err, errlen);
}

static int parse(struct options *o, char *err, const char *const *args)
{
	return parse_len(o, err, 256, args);
}

#define PARSE(o, err, ...) parse(o, err, (const char *const[]){__VA_ARGS__, NULL})

static void test_defaults(void **state)
{
	struct options o;
	char err[256];

	assert_int_equal(parse(&o, err, (const char *const[]){NULL}), 0);
	assert_int_equal(o.action, OPTIONS_RUN);
	assert_false(o.batch);
	assert_int_equal(o.session.mode, MODEL_SYSTEM);
	assert_int_equal(o.session.interval_ns, 1000000000ull);
	assert_int_equal(o.session.top_n, 10);
	assert_string_equal(o.session.preset, "default");
	/* The built-in default: 4 hardware events in one group + 4 software. */
	assert_int_equal(o.session.events.nr, 8);
	assert_string_equal(o.session.events.name[0], "cycles");
	assert_int_equal(o.session.events.group[3], o.session.events.group[0]);
	assert_int_not_equal(o.session.events.group[4], o.session.events.group[0]);
	assert_string_equal(o.session.events.name[7], "page-faults");
}

static void test_batch_options(void **state)
{
	struct options o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "-b", "-d", "0.5", "-n", "3", "-o", "out.txt", "--format",
			       "json", "-N", "0", "-H"),
			 0);
	assert_true(o.batch);
	assert_int_equal(o.session.interval_ns, 500000000ull);
	assert_int_equal(o.iterations, 3);
	assert_string_equal(o.output, "out.txt");
	assert_int_equal(o.format, SNAPSHOT_JSON);
	assert_int_equal(o.session.top_n, 0);
	assert_true(o.session.threads);
}

static void test_events_accumulate(void **state)
{
	struct options o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "-e", "{cycles,instructions}", "-e", "task-clock"), 0);
	assert_int_equal(o.session.events.nr, 3);
	assert_int_equal(o.session.events.group[0], o.session.events.group[1]);
	assert_int_not_equal(o.session.events.group[2], o.session.events.group[0]);
	assert_string_equal(o.session.preset, "custom (-e)");
}

static void test_targets(void **state)
{
	struct options o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "-p", "12,34"), 0);
	assert_int_equal(o.session.mode, MODEL_TASKS);
	assert_int_equal(o.session.nr_pids, 2);
	assert_int_equal(o.session.pids[1], 34);

	assert_int_equal(PARSE(&o, err, "-C", "0-2,5"), 0);
	assert_int_equal(o.session.nr_cpus, 4);
	assert_int_equal(o.session.cpus[3], 5);

	assert_int_equal(PARSE(&o, err, "-b", "--", "make", "-j2"), 0);
	assert_int_equal(o.session.mode, MODEL_COMMAND);
	assert_string_equal(o.session.argv[0], "make");
	assert_string_equal(o.session.argv[1], "-j2");
	assert_null(o.session.argv[2]);
}

static void test_exporter(void **state)
{
	struct options o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "--listen", "[::1]:9464", "--export-tasks", "5", "--daemon",
			       "--allow-remote", "--web-config", "w.yml"),
			 0);
	assert_string_equal(o.listen, "[::1]:9464");
	assert_int_equal(o.export_tasks, 5);
	assert_true(o.daemon && o.allow_remote);
	assert_string_equal(o.web_config, "w.yml");
	assert_int_equal(PARSE(&o, err, "-b", "--listen", ":9464", "--format", "openmetrics"), 0);
	assert_int_equal(o.format, SNAPSHOT_OPENMETRICS);
	assert_int_equal(PARSE(&o, err, "--format", "prometheus"), 0);
	assert_int_equal(o.format, SNAPSHOT_PROMETHEUS);
	assert_int_equal(PARSE(&o, err, "-b", "--call-graph", "fp", "--format", "folded"), 0);
	assert_true(o.session.profile.callchain);
	assert_int_equal(o.session.profile.dwarf_stack, 0);
	assert_int_equal(o.format, SNAPSHOT_FOLDED);
	assert_int_equal(PARSE(&o, err, "-b", "--call-graph", "dwarf", "--format", "folded"), 0);
	assert_true(o.session.profile.callchain);
	assert_int_equal(o.session.profile.dwarf_stack, 8192);
	assert_int_equal(PARSE(&o, err, "--call-graph", "dwarf,65528"), 0);
	assert_int_equal(o.session.profile.dwarf_stack, 65528);
	assert_int_equal(PARSE(&o, err, "--call-graph", "dwarf,16384", "-g"), 0);
	assert_int_equal(o.session.profile.dwarf_stack, 8192); /* the last one wins: -g is dwarf */
	assert_int_equal(PARSE(&o, err, "-g", "--call-graph", "fp"), 0);
	assert_int_equal(o.session.profile.dwarf_stack, 0);
	assert_int_equal(PARSE(&o, err, "--call-graph", "dwarf,8"), 0);
	assert_int_equal(o.session.profile.dwarf_stack, 8);
}

static void test_actions(void **state)
{
	struct options o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "--probe"), 0);
	assert_int_equal(o.action, OPTIONS_PROBE);
	assert_int_equal(PARSE(&o, err, "--list-events", "task*"), 0);
	assert_int_equal(o.action, OPTIONS_LIST_EVENTS);
	assert_string_equal(o.list_glob, "task*");
	assert_int_equal(PARSE(&o, err, "--list-events"), 0);
	assert_null(o.list_glob);
	assert_int_equal(PARSE(&o, err, "-V"), 0);
	assert_int_equal(o.action, OPTIONS_VERSION);
	assert_int_equal(PARSE(&o, err, "--help"), 0);
	assert_int_equal(o.action, OPTIONS_HELP);
}

static void expect_error(const char *const *args, const char *needle)
{
	struct options o;
	char err[256];

	assert_int_equal(parse(&o, err, args), -EINVAL);
	if (!strstr(err, needle)) {
		fprintf(stderr, "message '%s' lacks '%s'\n", err, needle);
		fail();
	}
	/* one line; an event list's error adds the list and a caret under the column */
	const char *nl = strchr(err, '\n');
	if (nl) {
		const char *caret = strrchr(err, '\n') + 1;
		assert_true(strncmp(args[0], "-e", 2) == 0);
		assert_true(caret > nl + 1);
		assert_int_equal(caret[strspn(caret, " ")], '^');
		assert_int_equal(caret[strspn(caret, " ") + 1], '\0');
	}
}

#define EXPECT_ERROR(needle, ...) expect_error((const char *const[]){__VA_ARGS__, NULL}, needle)

static void test_errors(void **state)
{
	EXPECT_ERROR("-d 0.5", "-d", "abc");
	EXPECT_ERROR("-d 0.5", "-d", "0");
	EXPECT_ERROR("positive count", "-n", "0");
	EXPECT_ERROR("not a process ID", "-p", "abc");
	EXPECT_ERROR("not a process ID", "-p", "12,x");
	EXPECT_ERROR("empty item", "-p", "12,,x");
	EXPECT_ERROR("CPU list", "-C", "x");
	EXPECT_ERROR("text, json, csv, folded, openmetrics or prometheus", "--format", "xml");
	/* call chains */
	EXPECT_ERROR("add -g", "-b", "--format", "folded");
	EXPECT_ERROR("add -b", "-g", "--format", "folded");
	EXPECT_ERROR("drop --no-hotspots", "-g", "--no-hotspots");
	EXPECT_ERROR("multiple of 8", "--call-graph", "dwarf,8190");
	EXPECT_ERROR("from 8 to 65528", "--call-graph", "dwarf,65536");
	EXPECT_ERROR("from 8 to 65528", "--call-graph", "dwarf,0");
	EXPECT_ERROR("from 8 to 65528", "--call-graph", "dwarf,");
	EXPECT_ERROR("from 8 to 65528", "--call-graph", "dwarf,8k");
	EXPECT_ERROR("is unknown; use fp or dwarf", "--call-graph", "dwarfs");
	EXPECT_ERROR("is unknown; use fp or dwarf", "--call-graph", "lbr");
	/* hotspot grouping keys */
	EXPECT_ERROR("--hot-sort: 'overhead' is not a grouping key; use sym, dso", "--hot-sort",
		     "overhead,sym");
	EXPECT_ERROR("--hot-sort: 'sym' is given twice", "--hot-sort", "sym,symbol");
	EXPECT_ERROR("--hot-sort: an empty key", "--hot-sort", "dso,,sym");
	/* the exporter's options */
	EXPECT_ERROR("is not HOST:PORT", "--listen", "9464");
	EXPECT_ERROR("is not HOST:PORT", "--listen", "::1:9464");
	EXPECT_ERROR("is not HOST:PORT", "--listen", "host:99999");
	EXPECT_ERROR("is not HOST:PORT", "--listen", "[::1]9464");
	EXPECT_ERROR("is not a task count", "--export-tasks", "-1");
	EXPECT_ERROR("add --export-tasks N", "--listen", ":9464", "--export-cmdline");
	EXPECT_ERROR("add --listen ADDR:PORT", "--daemon");
	EXPECT_ERROR("add --listen ADDR:PORT", "--allow-remote");
	EXPECT_ERROR("add --listen ADDR:PORT", "--web-config", "w.yml");
	EXPECT_ERROR("use one", "--daemon", "-b", "--listen", ":9464");
	EXPECT_ERROR("samples nothing", "--daemon", "--listen", ":9464", "-g");
	EXPECT_ERROR("replaces -o FILE whole", "-b", "--format", "prometheus", "-o", "f",
		     "--append");
	EXPECT_ERROR("converts to text, json or csv", "--convert", "r.json", "--format",
		     "openmetrics");
	EXPECT_ERROR("give -o FILE", "-b", "--append");
	EXPECT_ERROR("give -o FILE", "-b", "-o", "-", "--force");
	EXPECT_ERROR("use one", "-b", "-o", "f", "--append", "--force");
	EXPECT_ERROR("column", "-e", "{cycles");
	{
		struct options o;
		char err[256];
		assert_int_equal(PARSE(&o, err, "-e", "cs,{a,b}x"), -EINVAL);
		assert_string_equal(err, "-e: missing ',' after '}' (column 9)\n  cs,{a,b}x\n          ^");
	}
	EXPECT_ERROR("unknown option", "--bogus");
	EXPECT_ERROR("unknown option -z", "-z");
	EXPECT_ERROR("needs a value", "-d");
	EXPECT_ERROR("after --", "sleep");
	EXPECT_ERROR("exclude each other", "-p", "1", "--", "true");
	EXPECT_ERROR("system-wide", "-C", "0", "-p", "1");
	EXPECT_ERROR("exclude each other", "-F", "99", "-c", "1000");
	EXPECT_ERROR("--no-hotspots", "-K", "-U");
	EXPECT_ERROR("power of two", "--mmap-pages", "3");
	EXPECT_ERROR("use one", "--preset", "ipc", "-e", "cycles");
	EXPECT_ERROR("CPU%", "--cpu-min", "abc");
}

/* Numbers are decimal and nothing else: no hex, nan, inf, exponents,
 * signs or blanks, for every numeric option. */
static void test_strict_numbers(void **state)
{
	static const char *const bad[][2] = {
		{"-d", "0x10"},	       {"-d", "nan"},	     {"-d", "inf"},
		{"-d", "1e1"},	       {"-d", "+1"},	     {"-d", " 1"},
		{"-d", "1 "},	       {"-d", "5."},	     {"-d", "0,5"},
		{"--cpu-min", "nan"},  {"--cpu-min", "inf"}, {"--cpu-min", "-nan"},
		{"--cpu-min", "0x1"},  {"--cpu-min", "1e1"}, {"--cpu-min", "-0.5"},
		{"--cpu-min", "100.5"}, {"-F", "0x10"},	     {"-F", "1e3"},
		{"-F", "+99"},	       {"-c", "nan"},	     {"-c", "010x"},
		{"-n", "+3"},	       {"-n", " 3"},	     {"-n", "0x3"},
		{"-N", "3 "},	       {"-N", "-0"},	     {"--hot", "1e2"},
		{"--hot", "-1"},       {"--mmap-pages", "0x10"}, {"--mmap-pages", "16.0"},
	};
	struct options o;
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (PARSE(&o, err, bad[i][0], bad[i][1]) != -EINVAL) {
			fprintf(stderr, "%s '%s' was accepted\n", bad[i][0], bad[i][1]);
			fail();
		}
		assert_non_null(strstr(err, bad[i][0]));
	}
	assert_int_equal(PARSE(&o, err, "-d", ".5"), 0);
	assert_int_equal(o.session.interval_ns, 500000000ull);
	assert_int_equal(PARSE(&o, err, "-d", "2"), 0);
	assert_int_equal(o.session.interval_ns, 2000000000ull);
	assert_int_equal(PARSE(&o, err, "-d", "0.01"), 0);
	assert_int_equal(o.session.interval_ns, 10000000ull);
	assert_int_equal(PARSE(&o, err, "--cpu-min", "-1"), 0);
	assert_true(o.session.cpu_min == -1);
	assert_int_equal(PARSE(&o, err, "--cpu-min", "2.5"), 0);
	assert_true(o.session.cpu_min == 2.5);
	assert_int_equal(PARSE(&o, err, "--cpu-min", "0"), 0);
	assert_int_equal(PARSE(&o, err, "-F", "999", "-n", "010", "-N", "0", "--hot", "5",
			       "--mmap-pages", "16"),
			 0);
	assert_int_equal(o.session.profile.freq, 999);
	assert_int_equal(o.iterations, 10); /* decimal, not octal */
	assert_int_equal(o.session.profile.mmap_pages, 16);
	assert_string_equal(o.session.profile.hot_keys, ""); /* the default, dso,sym */
	assert_int_equal(PARSE(&o, err, "--hot-sort", "symbol,pid,cpu"), 0);
	assert_string_equal(o.session.profile.hot_keys, "sym,pid,cpu");
}

/* Lists: duplicates count once, empty items are refused. */
static void test_lists(void **state)
{
	struct options o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "-p", "5,5,5"), 0);
	assert_int_equal(o.session.nr_pids, 1);
	assert_int_equal(o.session.pids[0], 5);
	assert_int_equal(PARSE(&o, err, "-p", "7,5,7,5"), 0);
	assert_int_equal(o.session.nr_pids, 2);
	assert_int_equal(o.session.pids[0], 7);
	assert_int_equal(o.session.pids[1], 5);
	assert_int_equal(PARSE(&o, err, "-C", "0,0,0-1,1"), 0);
	assert_int_equal(o.session.nr_cpus, 2);
	assert_int_equal(PARSE(&o, err, "--cgroup", "a,a,auto"), 0);
	assert_int_equal(o.session.nr_cgroups, 1);
	assert_true(o.session.cgroup_auto);

	EXPECT_ERROR("empty item", "-p", "1,");
	EXPECT_ERROR("empty item", "-p", ",1");
	EXPECT_ERROR("empty item", "-p", "1,,2");
	EXPECT_ERROR("empty item", "-p", ",");
	EXPECT_ERROR("-p needs", "-p", "");
	EXPECT_ERROR("not a CPU list", "-C", "0,");
	EXPECT_ERROR("not a CPU list", "-C", ",0");
	EXPECT_ERROR("not a CPU list", "-C", "0,,1");
	EXPECT_ERROR("empty item", "--cgroup", "a,,b");
	EXPECT_ERROR("empty item", "--cgroup", "a,");
}

/* A long list in a message: the reason first, the list cut short, never
 * the reason. */
static void test_long_list_message(void **state)
{
	char list[2048] = "", err[512], want[64];
	struct options o;
	size_t n = 0;

	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%sev%d", i ? "," : "", i);
	assert_int_equal(parse_len(&o, err, sizeof(err), (const char *const[]){"-e", list, NULL}),
			 -EINVAL);
	assert_non_null(strstr(err, "-e: too many events (at most 64)"));
	assert_ptr_equal(strstr(err, "-e: "), err);
	snprintf(want, sizeof(want), "...(70 events)'");
	assert_non_null(strstr(err, want));
	assert_true(strlen(err) < 200);
	assert_null(strchr(err, '\n'));
	/* cut after a comma, so every name shown is whole */
	assert_non_null(strstr(err, "'ev0,ev1,"));

	/* one long word: cut short too */
	memset(list, '9', 1000);
	list[1000] = 'x';
	list[1001] = '\0';
	assert_int_equal(parse_len(&o, err, sizeof(err), (const char *const[]){"-p", list, NULL}),
			 -EINVAL);
	assert_non_null(strstr(err, "not a process ID"));
	assert_non_null(strstr(err, "...'"));
	assert_true(strlen(err) < 200);
}

static void test_check_presets(void **state)
{
	struct options o;
	char err[256];

	assert_int_equal(PARSE(&o, err, "--check-presets"), 0);
	assert_int_equal(o.action, OPTIONS_CHECK_PRESETS);
	assert_int_equal(PARSE(&o, err, "--check-preset", "ipc"), 0);
	assert_int_equal(o.action, OPTIONS_CHECK_PRESET);
	assert_string_equal(o.check, "ipc");
}

/* An option line of --help: "  -x, --name ARG   text" or "      --name   text". */
struct help_opt {
	int letter;
	char name[32];
	enum options_arg arg;
};

/* The option lines of text (indented at most 8 columns, as the bash
 * completion reads them too); "-- COMMAND" is not an option. */
static int help_opts(const char *text, struct help_opt *h, int max)
{
	int n = 0;

	for (const char *l = text; *l; l = strchr(l, '\n') + 1) {
		size_t ind = strspn(l, " ");
		const char *p = l + ind;
		int letter = 0;

		if (!ind || ind > 8 || p[0] != '-')
			continue;
		if (p[1] != '-') {
			letter = p[1];
			assert_memory_equal(p + 2, ", --", 4);
			p += 4;
		}
		size_t len = strcspn(p + 2, " \n");
		if (!len)
			continue;
		assert_true(n < max && len < sizeof(h[n].name));
		h[n].letter = letter;
		memcpy(h[n].name, p + 2, len);
		h[n].name[len] = '\0';
		p += 2 + len;
		h[n].arg = p[0] != ' ' || p[1] == ' ' ? OPTIONS_NO_ARG
		           : p[1] == '['              ? OPTIONS_OPT_ARG
		                                      : OPTIONS_ARG;
		n++;
	}
	return n;
}

/* --help and options_table name the same options, each with the same
 * letter and the same kind of argument. */
static void test_table_is_help(void **state)
{
	struct help_opt h[64];
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);

	assert_non_null(f);
	options_usage(f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(text[size - 1], '\n');
	int n = help_opts(text, h, 64);
	assert_int_equal(n, (int)options_table_len);
	for (int i = 0; i < n; i++) {
		const struct options_opt *d = NULL;

		for (size_t j = 0; j < options_table_len; j++)
			if (!strcmp(options_table[j].name, h[i].name))
				d = &options_table[j];
		if (!d) {
			fprintf(stderr, "--help names --%s, which options_table lacks\n",
			        h[i].name);
			fail();
		}
		assert_int_equal(d->letter, h[i].letter);
		assert_int_equal(d->arg, h[i].arg);
	}
	free(text);
}

/* What options_parse() makes getopt_long()'s tables from: names and
 * letters once each; letters that getopt can return for an option ('?' and
 * ':' are its errors); an optional value only on a long option (a short
 * one would need "x::"). */
static void test_table_rows(void **state)
{
	for (size_t i = 0; i < options_table_len; i++) {
		const struct options_opt *d = &options_table[i];

		assert_non_null(d->set);
		assert_true(d->name[0] && d->name[0] != '-');
		assert_true(!d->letter || isalnum(d->letter));
		assert_true(d->arg != OPTIONS_OPT_ARG || !d->letter);
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(options_table[j].name, d->name);
			assert_true(!d->letter || options_table[j].letter != d->letter);
		}
	}
}

/* Each option spelt -x and --name parses alike; -h and -V stop at once. */
static void test_letter_is_name(void **state)
{
	for (size_t i = 0; i < options_table_len; i++) {
		const struct options_opt *d = &options_table[i];
		char shrt[3] = {'-', (char)d->letter, '\0'}, lng[40], err1[256], err2[256];
		const char *value = d->letter == 'C' ? "0" : d->letter == 'd' ? "0.5" : "7";
		struct options o1, o2;

		if (!d->letter)
			continue;
		snprintf(lng, sizeof(lng), "--%s", d->name);
		int r1 =
		    d->arg == OPTIONS_ARG ? PARSE(&o1, err1, shrt, value) : PARSE(&o1, err1, shrt);
		int r2 =
		    d->arg == OPTIONS_ARG ? PARSE(&o2, err2, lng, value) : PARSE(&o2, err2, lng);
		assert_int_equal(r1, 0);
		assert_int_equal(r2, 0);
		assert_memory_equal(&o1, &o2, sizeof(o1));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),    cmocka_unit_test(test_batch_options),
		cmocka_unit_test(test_events_accumulate), cmocka_unit_test(test_targets),
		cmocka_unit_test(test_actions),
		cmocka_unit_test(test_exporter),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_strict_numbers), cmocka_unit_test(test_lists),
		cmocka_unit_test(test_long_list_message), cmocka_unit_test(test_check_presets),
		cmocka_unit_test(test_table_is_help), cmocka_unit_test(test_table_rows),
		cmocka_unit_test(test_letter_is_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
