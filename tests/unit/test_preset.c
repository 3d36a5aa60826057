/* test_preset: presets: parsing, error positions, variants, search path, fallbacks, shipped. */
#include "preset.h"
#include "session.h"
#include "testutil.h"

#include <perfmon/pfmlib.h>

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
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

/* Where events are looked up: the machine until a test points it elsewhere. */
static struct event_roots roots;

static const char *fixtures;
static char path[400];
static struct preset_error err;

/* fixtures/presets/<rel> */
static const char *fx(const char *rel)
{
	snprintf(path, sizeof(path), "%s/presets/%s", fixtures, rel);
	return path;
}

static void load_ok(struct preset_set *set, const char *rel, enum preset_origin origin)
{
	char buf[2048];
	int ret = preset_load_file(set, fx(rel), origin, &err);

	if (ret) {
		preset_error_format(&err, buf, sizeof(buf));
		print_error("%s", buf);
	}
	assert_int_equal(ret, 0);
}

static const struct preset *find(const struct preset_set *set, const char *name)
{
	const struct preset *p = preset_find(set, name, NULL, 0);

	assert_non_null(p);
	return p;
}

static const struct preset_metric *metric(const struct preset *p, const char *name)
{
	for (int k = 0; k < p->nr_metrics; k++)
		if (!strcmp(p->metric[k].name, name))
			return &p->metric[k];
	print_error("no metric %s in %s\n", name, p->name);
	fail();
	return NULL;
}

static void assert_event(const struct preset *p, int i, const char *name, int group)
{
	assert_true(i < p->nr_events);
	assert_string_equal(p->ev[i].name, name);
	assert_int_equal(p->ev[i].group, group);
}

/* ---- parsing ---- */

static void test_valid(void **state)
{
	struct preset_set set;
	const struct preset *p;
	const struct preset_metric *m;

	preset_set_init(&set);
	load_ok(&set, "valid.ini", PRESET_ORIGIN_FILE);
	assert_int_equal(set.nr, 2);

	p = find(&set, "full");
	assert_string_equal(p->pmu, "");
	assert_string_equal(p->description, "Every key, quoted");
	assert_string_equal(p->file, fx("valid.ini"));
	assert_int_equal(p->line, 4);
	assert_int_equal(p->origin, PRESET_ORIGIN_FILE);
	assert_false(p->overrides);
	/* continuation lines (spaces and a tab), inline comments */
	assert_int_equal(p->nr_events, 5);
	assert_int_equal(p->nr_groups, 3);
	assert_event(p, 0, "cycles", 0);
	assert_event(p, 1, "instructions", 0);
	assert_event(p, 2, "cache-misses", 0);
	assert_event(p, 3, "task-clock", 1);
	assert_event(p, 4, "page-faults", 2);
	assert_int_equal(p->ev[0].nr_fallbacks, 0);
	assert_int_equal(p->ev[2].nr_fallbacks, 2);
	assert_string_equal(p->ev[2].fallback[0], "LLC-load-misses");
	assert_string_equal(p->ev[2].fallback[1], "cpu/event=0x2e,umask=0x41/");
	assert_int_equal(p->ev[3].nr_fallbacks, 1); /* fallback.`task-clock` */
	assert_string_equal(p->ev[3].fallback[0], "cpu-clock");

	assert_int_equal(p->nr_metrics, 3);
	m = metric(p, "IPC");
	assert_string_equal(m->text, "instructions / cycles");
	assert_string_equal(m->format, "%.3f");
	assert_string_equal(m->title, "insn/cyc");
	assert_string_equal(m->unit, "");
	assert_int_equal(m->line, 11);
	m = metric(p, "miss");
	assert_string_equal(m->text, "1000 * cache-misses / instructions");
	assert_string_equal(m->format, "%.2f");
	assert_string_equal(m->title, "miss");
	assert_string_equal(m->unit, "/ki");
	assert_int_equal(m->expr.nr_vars, 2);
	m = metric(p, "rate");
	assert_string_equal(m->text, "ratio(page-faults, task-clock) * 1000000000");
	assert_string_equal(p->sort, "miss");

	p = find(&set, "small");
	assert_int_equal(p->nr_events, 4);
	assert_event(p, 1, "sched:sched_switch", 1);
	assert_event(p, 2, "msr/tsc/", 2);
	assert_event(p, 3, "cpu/event=0x3c,umask=0x0/", 3);
	assert_int_equal(p->ev[3].nr_fallbacks, 1);
	assert_string_equal(p->ev[3].fallback[0], "cycles");
	assert_string_equal(metric(p, "tsc/ns")->text, "`msr/tsc/` / task-clock");
	assert_string_equal(metric(p, "cyc")->text, "`cpu/event=0x3c,umask=0x0/`");
	assert_string_equal(p->sort, "");
	assert_null(preset_find(&set, "nope", NULL, 0));
	preset_set_free(&set);
	assert_int_equal(set.nr, 0);
}

static const struct {
	const char *file;
	int line, col;
	const char *msg;
} errors[] = {
	{"unknown-section.ini", 5, 2,
	 "unknown section '[theme dark]' (expected [preset NAME] or [preset NAME:PMU])"},
	{"unknown-key.ini", 3, 1,
	 "unknown key 'colour' (expected description, events, sort, fallback.EVENT or "
	 "metric.NAME[.format|.unit|.title])"},
	{"unknown-metric-attr.ini", 4, 1,
	 "unknown key 'metric.x.colour' (a metric's attributes are format, unit and title)"},
	{"bad-expr.ini", 3, 29, "unexpected '/', expected a number, name or '('"},
	{"unknown-event.ini", 3, 30, "unknown event 'cycels' (not in the events of this preset)"},
	{"continued-expr.ini", 6, 4, "unexpected ')', expected a number, name or '('"},
	{"empty-expr.ini", 3, 11, "empty expression"},
	{"dup-preset.ini", 7, 1, "duplicate section [preset a] (first at line 1)"},
	{"dup-variant.ini", 4, 1, "duplicate section [preset a:skl, icl] (first at line 3)"},
	{"dup-key.ini", 4, 1, "duplicate key 'events' (first at line 2)"},
	{"dup-fallback-key.ini", 4, 1, "duplicate key 'fallback.`cycles`' (first at line 3)"},
	{"empty-events.ini", 3, 9, "empty event list"},
	{"no-events.ini", 1, 1, "[preset a] has no events"},
	{"bad-list.ini", 2, 10, "'{' without '}'"},
	{"quoted-events.ini", 2, 11, "'{' without '}'"},
	{"dup-event.ini", 2, 34, "event 'cycles' is listed twice"},
	{"backquote-event.ini", 2, 18, "event names cannot contain '`'"},
	/* " ;" in a backquoted key is no comment (inih alone would drop the line) */
	{"backquote-comment.ini", 3, 11, "fallback for 'a ;b', which is not in events"},
	{"variant-no-base.ini", 3, 1, "variant [preset b:skl] has no [preset b] in this file"},
	{"fallback-not-listed.ini", 3, 10, "fallback for 'instructions', which is not in events"},
	{"fallback-listed.ini", 3, 23, "fallback 'cpu-clock' is itself listed in events"},
	{"fallback-shared.ini", 4, 37, "fallback 'ref-cycles' is already a fallback of 'cycles'"},
	{"fallback-self.ini", 3, 31, "'cycles' cannot fall back to itself"},
	{"fallback-group.ini", 3, 31, "fallbacks cannot be grouped"},
	{"fallback-too-many.ini", 3, 35, "too many fallbacks (at most 4)"},
	{"attr-alone.ini", 3, 1, "metric.x.unit without metric.x in this section"},
	{"bad-format.ini", 4, 24,
	 "only %f, %e or %g conversions (with flags, width and precision) format a metric"},
	{"format-hex.ini", 4, 19,
	 "only %f, %e or %g conversions (with flags, width and precision) format a metric"},
	{"format-width.ini", 4, 20, "format width too large (at most 32)"},
	{"format-width-flags.ini", 4, 22, "format width too large (at most 32)"},
	{"format-precision.ini", 4, 21, "format precision too large (at most 17)"},
	{"no-conversion.ini", 4, 19, "format has no conversion (e.g. %.2f)"},
	{"bad-sort.ini", 4, 8, "sort: 'y' is not a metric or event of this preset"},
	{"inherited-metric.ini", 3, 29,
	 "unknown event 'cycles' (not in the events of [preset ipc:skl])"},
	{"inherited-sort.ini", 4, 8, "sort: 'IPC' is not a metric or event of [preset ipc:skl]"},
	{"too-many-metrics.ini", 11, 1, "too many metrics (at most 8)"},
	{"metric-name.ini", 3, 8,
	 "invalid metric name '9lives' (a letter, then letters, digits, '_', '%', '/' or '-')"},
	{"syntax.ini", 3, 1, "expected 'key = value' or '[section]'"},
	{"colon-key.ini", 2, 1, "expected 'key = value' or '[section]'"},
	{"key-outside.ini", 2, 1, "key outside a [preset NAME] section"},
	{"section-syntax.ini", 3, 1, "section header without closing ']'"},
	{"section-trailing.ini", 1, 12, "unexpected text after ']'"},
	{"section-name.ini", 1, 10,
	 "invalid character '.' in preset name (use letters, digits, '_' and '-')"},
	{"pmu-pattern.ini", 3, 14, "invalid character ' ' in PMU pattern"},
	{"long-line.ini", 3, 200,
	 "line too long (at most 199 characters; continue a value on an indented line)"},
	{"long-description.ini", 3, 174, "description too long (at most 159 characters)"},
	{"nul.ini", 2, 0, "NUL byte in preset file"},
};

static void test_errors(void **state)
{
	struct preset_set set;
	char rel[256], buf[4096], want[4096];
	size_t nl;

	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++) {
		preset_set_init(&set);
		snprintf(rel, sizeof(rel), "errors/%s", errors[i].file);
		assert_int_equal(preset_load_file(&set, fx(rel), PRESET_ORIGIN_FILE, &err),
				 -EINVAL);
		assert_int_equal(set.nr, 0);
		preset_error_format(&err, buf, sizeof(buf));
		if (errors[i].col)
			snprintf(want, sizeof(want), "%s:%d:%d: %s", fx(rel), errors[i].line,
				 errors[i].col, errors[i].msg);
		else
			snprintf(want, sizeof(want), "%s:%d: %s", fx(rel), errors[i].line,
				 errors[i].msg);
		nl = strcspn(buf, "\n");
		buf[nl] = '\0';
		if (strcmp(buf, want))
			print_error("%s\n  got: %s\n want: %s\n", errors[i].file, buf, want);
		assert_string_equal(buf, want);
		assert_string_equal(err.file, fx(rel));
		assert_int_equal(err.line, errors[i].line);
		assert_int_equal(err.col, errors[i].col);
		preset_set_free(&set);
	}
}

static void test_error_caret(void **state)
{
	struct preset_set set;
	char buf[4096], want[4096];

	preset_set_init(&set);
	assert_int_equal(preset_load_file(&set, fx("errors/unknown-event.ini"), PRESET_ORIGIN_FILE,
					  &err),
			 -EINVAL);
	preset_error_format(&err, buf, sizeof(buf));
	snprintf(want, sizeof(want),
		 "%s:3:30: unknown event 'cycels' (not in the events of this preset)\n"
		 "    metric.IPC =  instructions / cycels\n"
		 "                                 ^\n",
		 fx("errors/unknown-event.ini"));
	assert_string_equal(buf, want);

	/* on a continuation line indented with a tab */
	assert_int_equal(preset_load_file(&set, fx("errors/continued-expr.ini"),
					  PRESET_ORIGIN_FILE, &err),
			 -EINVAL);
	preset_error_format(&err, buf, sizeof(buf));
	snprintf(want, sizeof(want),
		 "%s:6:4: unexpected ')', expected a number, name or '('\n"
		 "    \t  )\n"
		 "    \t  ^\n",
		 fx("errors/continued-expr.ini"));
	assert_string_equal(buf, want);

	/* a file that cannot be read */
	assert_int_equal(preset_load_file(&set, fx("no-such.ini"), PRESET_ORIGIN_FILE, &err),
			 -ENOENT);
	preset_error_format(&err, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%s: cannot open preset file: %s\n", fx("no-such.ini"),
		 strerror(ENOENT));
	assert_string_equal(buf, want);
	assert_int_equal(preset_load_file(&set, fx("errors"), PRESET_ORIGIN_FILE, &err), -EISDIR);
	preset_set_free(&set);
}

static void test_nothing_half_applied(void **state)
{
	static const char bad[] = "[preset full]\nevents = task-clock\n\n"
				  "[preset other]\nevents = cycles\nmetric.x = cycles +\n";
	static const char good[] = "[preset full]\nevents = task-clock\n";
	struct preset_set set;
	struct preset *copy;
	int nr;

	preset_set_init(&set);
	load_ok(&set, "valid.ini", PRESET_ORIGIN_FILE);
	nr = set.nr;
	copy = malloc((size_t)nr * sizeof(*copy));
	assert_non_null(copy);
	for (int i = 0; i < nr; i++)
		copy[i] = *set.p[i];
	/* the first section is fine and would override "full": it must not */
	assert_int_equal(preset_parse(&set, bad, strlen(bad), "bad.ini", PRESET_ORIGIN_USER, &err),
			 -EINVAL);
	assert_string_equal(err.file, "bad.ini");
	assert_int_equal(err.line, 6);
	assert_int_equal(set.nr, nr);
	for (int i = 0; i < nr; i++)
		assert_memory_equal(set.p[i], &copy[i], sizeof(*copy));
	/* a good one does */
	assert_int_equal(preset_parse(&set, good, strlen(good), "good.ini", PRESET_ORIGIN_USER,
				      &err),
			 0);
	assert_int_equal(set.nr, nr);
	assert_int_equal(find(&set, "full")->nr_events, 1);
	assert_true(find(&set, "full")->overrides);
	assert_int_equal(find(&set, "full")->overridden, PRESET_ORIGIN_FILE);
	assert_int_equal(find(&set, "full")->origin, PRESET_ORIGIN_USER);
	assert_string_equal(set.p[0]->name, "full"); /* in place */
	free(copy);
	preset_set_free(&set);
}

static void test_text_edge_cases(void **state)
{
	static const char semi[] = "[preset a]\ndescription =;x\nevents = cycles, ;y\n  cpu-clock ;z\n";
	static const struct {
		const char *text;
		int ret;
	} cases[] = {
		{"", 0},
		{"; only a comment\n", 0},
		{"\xEF\xBB\xBF[preset bom]\nevents = cycles\n", 0},
		{"[preset crlf]\r\nevents = cycles\r\nmetric.c = cycles\r\n", 0},
		{"[preset noeol]\nevents = cycles", 0},
		{"[preset ws]  ; trailing comment\n  events = cycles\n", 0},
		{"[preset  spaced : skl , icl ]\ndescription = v\n"
		 "[preset spaced]\nevents = x\n",
		 0},
		{"[preset a]\nevents = cycles\n[preset a:]\n", -EINVAL},
		{"[preset]\nevents = cycles\n", -EINVAL},
		{"[preset a]\n= cycles\n", -EINVAL},
		{"[preset a]\nevents = cycles\nsort =\n", -EINVAL},
		/* " ;" in a backquoted key, then a line continuing its value */
		{"[preset a]\nevents = cycles\n[preset b]\nfallback.`a ;b` = x\n"
		 " fallback.`c=d` = y\n",
		 -EINVAL},
	};
	struct preset_set set;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret;

		preset_set_init(&set);
		ret = preset_parse(&set, cases[i].text, strlen(cases[i].text), "t.ini",
				   PRESET_ORIGIN_FILE, &err);
		if (ret != cases[i].ret)
			print_error("case %zu: %d (%d:%d: %s)\n", i, ret, err.line, err.col,
				    err.msg);
		assert_int_equal(ret, cases[i].ret);
		preset_set_free(&set);
	}
	preset_set_init(&set);
	assert_int_equal(preset_parse(&set, cases[6].text, strlen(cases[6].text), "t.ini",
				      PRESET_ORIGIN_FILE, &err),
			 0);
	assert_int_equal(set.nr, 2);
	assert_string_equal(set.p[1]->pmu, "skl, icl");
	/* the variant's inherited metric and events came from a base defined later */
	assert_string_equal(set.p[1]->ev[0].name, "x");
	preset_set_free(&set);

	/* ';' starts a comment only after a blank, not right after '=' */
	preset_set_init(&set);
	assert_int_equal(preset_parse(&set, semi, strlen(semi), "t.ini", PRESET_ORIGIN_FILE, &err),
			 0);
	assert_string_equal(set.p[0]->description, ";x");
	assert_string_equal(set.p[0]->ev[1].name, "cpu-clock");
	preset_set_free(&set);
}

/* A value continued over many lines: joined, each piece placed in the file
 * for errors; past 64 lines or 4095 characters, refused where it overflows. */
static void test_continued_values(void **state)
{
	char text[16384];
	size_t at;
	struct preset_set set;

	/* 63 continuation lines of a description: joined with single blanks */
	at = (size_t)snprintf(text, sizeof(text), "[preset long]\nevents = cpu-clock\n"
						  "description = d\n");
	for (int i = 1; i < 64; i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "  %d\n", i % 10);
	preset_set_init(&set);
	assert_int_equal(preset_parse(&set, text, at, "t.ini", PRESET_ORIGIN_FILE, &err), 0);
	assert_int_equal(strlen(set.p[0]->description), 127);
	assert_memory_equal(set.p[0]->description, "d 1 2 3", 7);
	assert_string_equal(set.p[0]->description + 122, "1 2 3");
	preset_set_free(&set);

	/* an error in a later line of a value is placed on that line */
	static const char *const names[] = {"task-clock",   "page-faults",      "context-switches",
					    "cpu-migrations", "minor-faults", "major-faults",
					    "alignment-faults", "emulation-faults", "cpu-clock"};
	at = (size_t)snprintf(text, sizeof(text), "[preset long]\nevents = cpu-clock\n");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "  , %s\n", names[i]);
	preset_set_init(&set);
	assert_int_equal(preset_parse(&set, text, at, "t.ini", PRESET_ORIGIN_FILE, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'cpu-clock' is listed twice"));
	assert_int_equal(err.line, 11);
	assert_int_equal(err.col, 5);
	preset_set_free(&set);

	/* a 65th line is one too many */
	at = (size_t)snprintf(text, sizeof(text), "[preset long]\nevents = cpu-clock\n"
						  "description = d\n");
	for (int i = 1; i < 65; i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "  %d\n", i % 10);
	preset_set_init(&set);
	assert_int_equal(preset_parse(&set, text, at, "t.ini", PRESET_ORIGIN_FILE, &err), -EINVAL);
	assert_int_equal(err.line, 67);
	assert_non_null(strstr(err.msg, "too many lines (at most 64)"));
	preset_set_free(&set);

	/* 4095 characters at most: lines of 150 overflow on the 28th, line 30 */
	at = (size_t)snprintf(text, sizeof(text), "[preset long]\ndescription = d\n");
	for (int i = 0; i < 30; i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "  %0150d\n", i);
	preset_set_init(&set);
	assert_int_equal(preset_parse(&set, text, at, "t.ini", PRESET_ORIGIN_FILE, &err), -EINVAL);
	assert_int_equal(err.line, 30);
	assert_non_null(strstr(err.msg, "value too long (at most 4095 characters)"));
	preset_set_free(&set);
}

/* ---- variants ---- */

static const char *pick(const struct preset_set *set, const char *name, const char *pmu1,
			const char *pmu2)
{
	const char *pmus[] = {"perf", pmu1, pmu2};
	const struct preset *p = preset_find(set, name, pmus, 3);

	assert_non_null(p);
	return p->description;
}

static void test_variants(void **state)
{
	struct preset_set set;
	const struct preset *p;

	preset_set_init(&set);
	load_ok(&set, "variants.ini", PRESET_ORIGIN_FILE);
	assert_int_equal(set.nr, 9);

	/* the most specific matching pattern wins */
	assert_string_equal(pick(&set, "v", "amd64_fam19h_zen4", NULL), "Zen 4");
	assert_string_equal(pick(&set, "v", "amd64_fam19h_zen3", NULL), "family 19h");
	assert_string_equal(pick(&set, "v", "amd64_fam17h_zen2", NULL), "any AMD");
	assert_string_equal(pick(&set, "v", "arm_n1", NULL), "base");
	assert_string_equal(pick(&set, "v", NULL, NULL), "base");
	assert_string_equal(find(&set, "v")->description, "base");
	/* equal scores: the earlier section */
	assert_string_equal(pick(&set, "v", "icl", NULL), "Intel");
	assert_string_equal(pick(&set, "v", "skl", NULL), "Intel");
	assert_string_equal(pick(&set, "w", "ab", NULL), "first of two equal");
	assert_string_equal(pick(&set, "w", "b", NULL), "second of two equal");
	/* several PMUs detected: the best score over all of them */
	assert_string_equal(pick(&set, "v", "skl", "amd64_fam19h_zen4"), "Zen 4");

	/* description only: everything else inherited */
	p = preset_find(&set, "v", (const char *const[]){"amd64_k8"}, 1);
	assert_string_equal(p->pmu, "amd64_*");
	assert_string_equal(p->name, "v");
	assert_int_equal(p->line, 10);
	assert_int_equal(p->nr_events, 3);
	assert_int_equal(p->ev[2].nr_fallbacks, 1);
	assert_string_equal(p->ev[2].fallback[0], "cpu-clock");
	assert_int_equal(p->nr_metrics, 1);
	assert_string_equal(p->sort, "IPC");

	/* events and metrics replaced, fallbacks of events still listed kept */
	p = preset_find(&set, "v", (const char *const[]){"amd64_fam19h_zen3"}, 1);
	assert_int_equal(p->nr_events, 4);
	assert_event(p, 2, "RETIRED_OPS", 0);
	assert_event(p, 3, "task-clock", 1);
	assert_int_equal(p->ev[3].nr_fallbacks, 1);
	assert_int_equal(p->nr_metrics, 2);
	assert_string_equal(metric(p, "OPC")->text, "RETIRED_OPS / cycles");
	assert_string_equal(p->sort, "IPC");

	/* fallbacks replaced as a whole */
	p = preset_find(&set, "v", (const char *const[]){"amd64_fam19h_zen4"}, 1);
	assert_event(p, 3, "cpu-clock", 1);
	assert_int_equal(p->ev[2].nr_fallbacks, 1);
	assert_string_equal(p->ev[2].fallback[0], "page-faults");
	assert_int_equal(p->ev[3].nr_fallbacks, 0);
	assert_string_equal(p->sort, "OPC");

	/* metrics only */
	p = preset_find(&set, "v", (const char *const[]){"skl"}, 1);
	assert_string_equal(p->pmu, "skl, icl");
	assert_int_equal(p->nr_events, 3);
	assert_int_equal(p->nr_metrics, 2);
	assert_string_equal(metric(p, "CPI")->text, "cycles / instructions");

	/* groups: base first, then its variants in file order */
	assert_string_equal(set.p[0]->name, "v");
	assert_string_equal(set.p[0]->pmu, "");
	assert_string_equal(set.p[5]->pmu, "icl");
	assert_string_equal(set.p[6]->name, "w");
	assert_string_equal(set.p[6]->pmu, "");
	preset_set_free(&set);
}

/* A set loaded for one preset (preset_paths.only) holds that preset, and
 * each of its variants, exactly as a whole load does; it lists the same
 * names in the same order and the same files. */
static void test_partial(void **state)
{
	static const char *const pmus[] = {"amd64_fam19h_zen4", "amd64_fam19h_zen3", "skl",
	                                   "perf"};
	char (*wn)[PRESET_NAME_MAX] = calloc(64, PRESET_NAME_MAX);
	char (*pn)[PRESET_NAME_MAX] = calloc(64, PRESET_NAME_MAX);
	struct preset_paths paths;
	struct preset_set whole, part;
	int nw, np;

	(void)state;
	assert_non_null(wn);
	assert_non_null(pn);
	for (int places = 0; places < 2; places++) {
		memset(&paths, 0, sizeof(paths));
		paths.builtin = true;
		if (places) { /* presets that override built-in ones, and new ones */
			snprintf(paths.datadir, sizeof(paths.datadir), "%s", fx("path/datadir"));
			snprintf(paths.sysconfdir, sizeof(paths.sysconfdir), "%s",
			         fx("path/sysconf"));
			snprintf(paths.userdir, sizeof(paths.userdir), "%s", fx("path/user"));
			snprintf(paths.file, sizeof(paths.file), "%s", fx("path/explicit.ini"));
		}
		preset_set_init(&whole);
		assert_int_equal(preset_load_all(&whole, &paths, &err), 0);
		assert_false(whole.partial);
		nw = preset_base_names(&whole, wn, 64);
		assert_int_equal(nw, preset_base_names(&whole, wn, 64));
		assert_int_equal(nw, 8 + 3 * places); /* extra, twice, mine */
		assert_string_equal(wn[0], "branch"); /* built-in files in name order */
		for (int i = 0; i <= nw; i++) {
			/* each preset; then a file's path, which no built-in declares */
			paths.only = i < nw ? wn[i] : "x/default.ini";
			preset_set_init(&part);
			assert_int_equal(preset_load_all(&part, &paths, &err), 0);
			assert_true(part.partial);
			assert_true(part.nr < whole.nr);
			np = preset_base_names(&part, pn, 64);
			assert_int_equal(np, nw);
			for (int k = 0; k < nw; k++)
				assert_string_equal(pn[k], wn[k]);
			assert_int_equal(part.nr_files, whole.nr_files);
			for (int k = 0; k < whole.nr_files; k++) {
				assert_string_equal(part.files[k].path, whole.files[k].path);
				assert_int_equal(part.files[k].ret, whole.files[k].ret);
			}
			for (int k = 0; i < nw && k <= 4; k++) {
				int nr = k < 4 ? 1 : 0; /* each PMU, then none */
				const struct preset *a = preset_find(&whole, wn[i], pmus + k % 4, nr);
				const struct preset *b = preset_find(&part, wn[i], pmus + k % 4, nr);

				assert_non_null(a);
				assert_non_null(b);
				assert_memory_equal(a, b, sizeof(*a));
			}
			for (int k = 0; i == nw && k < part.nr; k++)
				assert_int_not_equal(part.p[k]->origin, PRESET_ORIGIN_BUILTIN);
			preset_set_free(&part);
		}
		/* names cut at max: the first ones */
		assert_int_equal(preset_base_names(&whole, pn, 3), 3);
		assert_string_equal(pn[2], wn[2]);
		preset_set_free(&whole);
	}
	free(wn);
	free(pn);
}

/* ---- search path ---- */

static void test_search_path(void **state)
{
	struct preset_paths paths;
	struct preset_set set;
	const struct preset *p;
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	memset(&paths, 0, sizeof(paths));
	paths.builtin = true;
	snprintf(paths.datadir, sizeof(paths.datadir), "%s", fx("path/datadir"));
	snprintf(paths.sysconfdir, sizeof(paths.sysconfdir), "%s", fx("path/sysconf"));
	snprintf(paths.userdir, sizeof(paths.userdir), "%s", fx("path/no-such-dir"));
	snprintf(paths.file, sizeof(paths.file), "%s", fx("path/explicit.ini"));
	preset_set_init(&set);
	assert_int_equal(preset_load_all(&set, &paths, &err), 0);
	/* a missing directory is skipped; now with the user directory */
	snprintf(paths.userdir, sizeof(paths.userdir), "%s", fx("path/user"));
	preset_set_free(&set);
	assert_int_equal(preset_load_all(&set, &paths, &err), 0);

	p = find(&set, "ipc");
	assert_int_equal(p->origin, PRESET_ORIGIN_DATADIR);
	assert_string_equal(p->description, "datadir ipc");
	assert_string_equal(p->file, fx("path/datadir/ipc.ini"));
	assert_true(p->overrides);
	assert_int_equal(p->overridden, PRESET_ORIGIN_BUILTIN);
	/* the built-in ipc variant went with it */
	assert_string_equal(preset_find(&set, "ipc", (const char *const[]){"amd64_fam19h_zen4"}, 1)
				    ->description,
			    "datadir ipc");

	p = find(&set, "extra");
	assert_int_equal(p->origin, PRESET_ORIGIN_USER);
	assert_string_equal(p->description, "user extra");
	assert_true(p->overrides);
	assert_int_equal(p->overridden, PRESET_ORIGIN_SYSCONF);

	p = find(&set, "twice");
	assert_int_equal(p->origin, PRESET_ORIGIN_SYSCONF);
	assert_string_equal(p->description, "second");
	assert_string_equal(p->file, fx("path/sysconf/20-second.ini"));
	assert_true(p->overrides);
	assert_int_equal(p->overridden, PRESET_ORIGIN_SYSCONF);

	p = find(&set, "mine");
	assert_int_equal(p->origin, PRESET_ORIGIN_FILE);
	assert_string_equal(p->description, "file mine");
	assert_int_equal(p->overridden, PRESET_ORIGIN_USER);

	p = find(&set, "default");
	assert_int_equal(p->origin, PRESET_ORIGIN_FILE);
	assert_int_equal(p->overridden, PRESET_ORIGIN_BUILTIN);

	p = find(&set, "stalls");
	assert_int_equal(p->origin, PRESET_ORIGIN_BUILTIN);
	assert_false(p->overrides);
	assert_string_equal(p->file, "builtin:stalls.ini");

	/* README, .hidden.ini and the directory sub.ini were not read */
	assert_null(preset_find(&set, "hidden", NULL, 0));

	f = open_memstream(&out, &outlen);
	assert_non_null(f);
	preset_list_print(&set, f);
	fclose(f);
	assert_non_null(strstr(out, "extra            user      "));
	assert_non_null(strstr(out, "path/user/mine.ini:5, overrides system\n"));
	assert_non_null(strstr(out, "stalls           built-in  builtin:stalls.ini:6\n"));
	assert_non_null(strstr(out, "variant   skl, skx, clx, icl, icx, spr\n"));
	assert_null(strstr(out, "stalls           built-in  builtin:stalls.ini:6, overrides"));
	free(out);
	preset_set_free(&set);

	/* no built-ins, one bad file in a directory: skipped, with its error
	 * kept; the rest loads */
	memset(&paths, 0, sizeof(paths));
	snprintf(paths.datadir, sizeof(paths.datadir), "%s", fx("badpath"));
	assert_int_equal(preset_load_all(&set, &paths, &err), 0);
	assert_int_equal(set.nr_files, 2);
	assert_string_equal(set.files[0].path, fx("badpath/a.ini"));
	assert_int_equal(set.files[0].ret, 0);
	assert_string_equal(set.files[1].path, fx("badpath/b.ini"));
	assert_int_equal(set.files[1].ret, -EINVAL);
	assert_int_equal(set.files[1].origin, PRESET_ORIGIN_DATADIR);
	assert_string_equal(set.files[1].err.file, fx("badpath/b.ini"));
	assert_int_equal(set.files[1].err.line, 3);
	assert_int_equal(set.files[1].err.col, 24);
	assert_int_equal(set.files[1].nr_names, 1);
	assert_string_equal(set.files[1].names[0], "broken");
	assert_non_null(preset_find(&set, "fine", NULL, 0));
	assert_null(preset_find(&set, "broken", NULL, 0));
	assert_null(preset_find(&set, "default", NULL, 0));
	/* selecting what the bad file declares must not go on without it */
	assert_ptr_equal(preset_broken_file(&set, "broken"), &set.files[1]);
	assert_null(preset_broken_file(&set, "fine"));
	preset_set_free(&set);
}

/* Write text to dir/name. */
static void spit(const char *dir, const char *name, const char *text)
{
	char p[4096];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* A broken file nobody selects is skipped; one that declares the selected
 * preset after the file that defines it stops the run; a FIFO or a
 * directory named *.ini never blocks the loader. */
static void test_skip_unselected(void **state)
{
	char dir[] = "/tmp/pfmtop-preset-XXXXXX", user[256], p[4300], buf[2048];
	struct preset_paths paths;
	struct preset_set set;
	const struct preset_file *f;

	assert_non_null(mkdtemp(dir));
	snprintf(user, sizeof(user), "%s/user", dir);
	assert_int_equal(mkdir(user, 0755), 0);
	spit(user, "10-good.ini", "[preset mine]\nevents = task-clock\n");
	spit(user, "20-bad.ini",
	     "; two presets, one broken key\n[preset other]\nevents = task-clock\nbogus = 1\n\n"
	     "[ preset  ipc ] ; comment\nevents = task-clock\n");
	snprintf(p, sizeof(p), "%s/30-fifo.ini", user);
	assert_int_equal(mkfifo(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/40-dir.ini", user);
	assert_int_equal(mkdir(p, 0755), 0);

	memset(&paths, 0, sizeof(paths));
	paths.builtin = true;
	snprintf(paths.userdir, sizeof(paths.userdir), "%s", user);
	preset_set_init(&set);
	assert_int_equal(preset_load_all(&set, &paths, &err), 0);
	assert_non_null(preset_find(&set, "mine", NULL, 0));
	assert_non_null(preset_find(&set, "default", NULL, 0));
	assert_null(preset_find(&set, "other", NULL, 0));
	/* built-ins, the good file, the bad one, the FIFO; not the directory */
	f = &set.files[set.nr_files - 3];
	assert_int_equal(f->ret, 0);
	f++;
	assert_int_equal(f->ret, -EINVAL);
	assert_int_equal(f->origin, PRESET_ORIGIN_USER);
	assert_int_equal(f->err.line, 4);
	assert_int_equal(f->err.col, 1);
	assert_non_null(strstr(f->err.msg, "unknown key 'bogus'"));
	assert_int_equal(f->nr_names, 2);
	assert_string_equal(f->names[0], "other");
	assert_string_equal(f->names[1], "ipc");
	f++;
	snprintf(p, sizeof(p), "%s/30-fifo.ini", user);
	assert_string_equal(f->path, p);
	assert_int_equal(f->ret, -EINVAL);
	preset_error_format(&f->err, buf, sizeof(buf));
	snprintf(p, sizeof(p), "%s/30-fifo.ini: not a regular file\n", user);
	assert_string_equal(buf, p);

	/* "ipc" is built in, and the broken file would have overridden it */
	assert_ptr_equal(preset_broken_file(&set, "ipc"), &set.files[set.nr_files - 2]);
	assert_ptr_equal(preset_broken_file(&set, "other"), &set.files[set.nr_files - 2]);
	assert_null(preset_broken_file(&set, "default"));
	assert_null(preset_broken_file(&set, "mine"));
	preset_set_free(&set);

	/* a later good file that defines it wins over the broken one */
	spit(user, "50-ipc.ini", "[preset ipc]\nevents = task-clock\n");
	preset_set_init(&set);
	assert_int_equal(preset_load_all(&set, &paths, &err), 0);
	assert_null(preset_broken_file(&set, "ipc"));
	assert_non_null(preset_broken_file(&set, "other"));
	preset_set_free(&set);

	/* the FIFO as the explicit file: an error at once, not a hang */
	snprintf(paths.file, sizeof(paths.file), "%s/30-fifo.ini", user);
	preset_set_init(&set);
	assert_int_equal(preset_load_all(&set, &paths, &err), -EINVAL);
	assert_string_equal(err.msg, "not a regular file");
	preset_set_free(&set);
	assert_int_equal(preset_load_file(&set, paths.file, PRESET_ORIGIN_FILE, &err), -EINVAL);
	preset_set_free(&set);

	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	assert_int_equal(system(p), 0);
}

/* Widths and precisions a cell can show are fine, up to the limits. */
static void test_format_limits(void **state)
{
	static const char ok[] = "[preset a]\nevents = cycles\nmetric.x = cycles\n"
				 "metric.x.format = %-32.17f\nmetric.y = cycles\n"
				 "metric.y.format = %+ 8.3e%%\nmetric.z = cycles\n"
				 "metric.z.format = %lg\n";
	struct preset_set set;

	preset_set_init(&set);
	assert_int_equal(preset_parse(&set, ok, strlen(ok), "ok.ini", PRESET_ORIGIN_USER, &err), 0);
	assert_string_equal(metric(find(&set, "a"), "x")->format, "%-32.17f");
	preset_set_free(&set);
}

static void test_paths_default(void **state)
{
	struct preset_paths paths;
	const char *suffix = "/" PFMTOP_DATADIR_REL "/presets";
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	char *xdg = getenv("XDG_CONFIG_HOME") ? strdup(getenv("XDG_CONFIG_HOME")) : NULL;

	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	preset_paths_default(&paths);
	assert_true(paths.builtin);
	assert_true(strlen(paths.datadir) > strlen(suffix));
	assert_string_equal(paths.datadir + strlen(paths.datadir) - strlen(suffix), suffix);
	assert_string_equal(paths.sysconfdir, "/etc/pfmtop/presets.d");
	assert_string_equal(paths.userdir, "/xdg/pfmtop/presets.d");
	assert_string_equal(paths.file, "");
	setenv("XDG_CONFIG_HOME", "relative", 1); /* not absolute: ignored, as the spec says */
	preset_paths_default(&paths);
	assert_string_equal(paths.userdir, "/home/u/.config/pfmtop/presets.d");
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("HOME");
	preset_paths_default(&paths);
	assert_string_equal(paths.userdir, "");
	if (home)
		setenv("HOME", home, 1);
	if (xdg)
		setenv("XDG_CONFIG_HOME", xdg, 1);
	free(home);
	free(xdg);
}

/* ---- choosing ---- */

struct fake {
	const char *fail[16]; /* names that cannot be opened */
	int calls;
	char log[1024];
};

static int fake_open(const char *event, char *why, size_t len, void *arg)
{
	struct fake *f = arg;

	f->calls++;
	snprintf(f->log + strlen(f->log), sizeof(f->log) - strlen(f->log), "%s ", event);
	for (int i = 0; i < 16 && f->fail[i]; i++) {
		if (strcmp(f->fail[i], event))
			continue;
		if (!strcmp(event, "branches"))
			return EOPNOTSUPP; /* positive, no reason: strerror fills in */
		snprintf(why, len, "%s is not supported here", event);
		return strchr(event, ':') ? -ENOENT : -EOPNOTSUPP;
	}
	return 0;
}

static void test_choose(void **state)
{
	struct fake f = {.fail = {"RETIRED_OPS", "cache-misses", "LLC-load-misses", "task-clock",
				  "branches", "branch-instructions", "branch-misses"}};
	struct preset_resolved *r = calloc(1, sizeof(*r));
	struct preset_set set;
	const struct preset *p;
	char want[PRESET_WHY_MAX];

	assert_non_null(r);
	preset_set_init(&set);
	load_ok(&set, "choose.ini", PRESET_ORIGIN_FILE);
	p = find(&set, "choose");
	assert_int_equal(preset_choose(p, fake_open, &f, r), 0);
	/* each name tried once, fallbacks in order, only when needed */
	assert_string_equal(f.log, "cycles instructions RETIRED_OPS amd64_fam19h_zen4::RETIRED_OPS "
				   "cache-misses LLC-load-misses l2-misses task-clock cpu-clock "
				   "branches branch-instructions branch-misses page-faults ");
	assert_string_equal(r->name, "choose");
	assert_int_equal(r->nr, 8);
	assert_int_equal(r->nr_fallbacks, 3);
	assert_int_equal(r->nr_dropped, 2);

	/* what to open: dropped events gone, their empty group gone, renumbered */
	assert_int_equal(r->events.nr, 6);
	assert_int_equal(r->events.nr_groups, 3);
	assert_string_equal(r->events.name[0], "cycles");
	assert_string_equal(r->events.name[2], "amd64_fam19h_zen4::RETIRED_OPS");
	assert_string_equal(r->events.name[3], "l2-misses");
	assert_string_equal(r->events.name[4], "cpu-clock");
	assert_string_equal(r->events.name[5], "page-faults");
	assert_int_equal(r->events.group[3], 0);
	assert_int_equal(r->events.group[4], 1);
	assert_int_equal(r->events.group[5], 2);

	assert_string_equal(r->ev[0].used, "cycles");
	assert_int_equal(r->ev[0].fallback, -1);
	assert_false(r->ev[0].dropped);
	assert_string_equal(r->ev[0].why, "");
	assert_int_equal(r->ev[0].index, 0);

	assert_string_equal(r->ev[3].wanted, "cache-misses");
	assert_string_equal(r->ev[3].used, "l2-misses");
	assert_int_equal(r->ev[3].fallback, 1);
	assert_int_equal(r->ev[3].err, 0);
	assert_int_equal(r->ev[3].index, 3);
	assert_string_equal(r->ev[3].why, "cache-misses: cache-misses is not supported here; "
					  "LLC-load-misses: LLC-load-misses is not supported here");

	assert_string_equal(r->ev[5].wanted, "branches");
	assert_true(r->ev[5].dropped);
	assert_string_equal(r->ev[5].used, "");
	assert_int_equal(r->ev[5].index, -1);
	assert_int_equal(r->ev[5].err, -EOPNOTSUPP);
	snprintf(want, sizeof(want), "branches: %s; branch-instructions: "
				     "branch-instructions is not supported here",
		 strerror(EOPNOTSUPP));
	assert_string_equal(r->ev[5].why, want);
	assert_true(r->ev[6].dropped);
	assert_string_equal(r->ev[7].used, "page-faults");
	assert_int_equal(r->ev[7].index, 5);

	/* metrics: names rewritten to what is counted, or unavailable */
	assert_int_equal(r->nr_metrics, 5);
	assert_int_equal(r->nr_unavailable, 1);
	assert_true(r->metric[0].available);
	assert_string_equal(r->metric[0].m.text, "instructions / cycles");
	assert_true(r->metric[1].available);
	assert_string_equal(r->metric[1].m.text, "amd64_fam19h_zen4::RETIRED_OPS / cycles");
	assert_string_equal(r->metric[1].m.expr.var[0], "amd64_fam19h_zen4::RETIRED_OPS");
	assert_string_equal(r->metric[2].m.text, "1000 * l2-misses / instructions");
	assert_false(r->metric[3].available);
	assert_string_equal(r->metric[3].why,
			    "needs branch-misses: branch-misses is not supported here");
	assert_string_equal(r->metric[3].m.name, "bm");
	assert_string_equal(r->metric[4].m.text, "cpu-clock / 1000000");
	assert_string_equal(r->metric[4].why, "");
	/* the preset itself is untouched */
	assert_string_equal(metric(p, "OPC")->text, "RETIRED_OPS / cycles");

	/* everything opens: the preset as written */
	memset(&f, 0, sizeof(f));
	assert_int_equal(preset_choose(p, fake_open, &f, r), 0);
	assert_int_equal(f.calls, 8);
	assert_int_equal(r->nr_fallbacks, 0);
	assert_int_equal(r->nr_dropped, 0);
	assert_int_equal(r->nr_unavailable, 0);
	{
		struct events_list l;

		preset_events_list(p, &l);
		assert_memory_equal(&l, &r->events, sizeof(l));
		assert_int_equal(l.nr, 8);
		assert_int_equal(l.nr_groups, 4);
		assert_string_equal(l.name[5], "branches");
		assert_int_equal(l.group[6], 2);
	}
	for (int k = 0; k < r->nr_metrics; k++)
		assert_string_equal(r->metric[k].m.text, p->metric[k].text);

	/* nothing opens: nothing to count, every metric unavailable */
	memset(&f, 0, sizeof(f));
	{
		static const char *const all[] = {"cycles", "instructions", "RETIRED_OPS",
						  "amd64_fam19h_zen4::RETIRED_OPS", "cache-misses",
						  "LLC-load-misses", "l2-misses", "task-clock",
						  "cpu-clock", "page-faults", "branch-misses",
						  "branch-instructions", "branches"};

		for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			f.fail[i] = all[i];
	}
	assert_int_equal(preset_choose(p, fake_open, &f, r), 0);
	assert_int_equal(r->events.nr, 0);
	assert_int_equal(r->events.nr_groups, 0);
	assert_int_equal(r->nr_dropped, 8);
	assert_int_equal(r->nr_unavailable, 5);
	free(r);
	preset_set_free(&set);
}

/* ---- the shipped presets ---- */

static const char *const shipped[] = {"default", "ipc",    "cache",     "branch",
				      "tlb",     "memory", "scheduler", "stalls"};

/* events_resolve(&roots, ) on name; for a PMU-specific name in a variant (or one
 * that only resolves on another PMU), "PMU::name" on each exact PMU of the
 * variant too (libpfm4 looks unqualified names up on detected PMUs only). */
static void assert_resolves(const struct preset *p, const char *name)
{
	struct event_desc d;
	char buf[512], q[EVENTS_NAME_MAX + 64], pmus[PRESET_PMU_MAX];
	int ret = events_resolve(&roots, name, &d, buf, sizeof(buf));

	if (!ret && (!p->pmu[0] || d.source != EVENTS_SRC_LIBPFM || !strcmp(d.pmu, "perf")))
		return;
	/* -ENODEV: an event of a PMU not present here */
	if ((ret && ret != -ENOENT && ret != -ENODEV) || !p->pmu[0] || strstr(name, "::")) {
		print_error("%s:%s: %s: %d %s\n", p->name, p->pmu, name, ret, buf);
		fail();
	}
	snprintf(pmus, sizeof(pmus), "%s", p->pmu);
	for (char *s, *pmu = strtok_r(pmus, ", ", &s); pmu; pmu = strtok_r(NULL, ", ", &s)) {
		if (strpbrk(pmu, "*?"))
			continue;
		snprintf(q, sizeof(q), "%s::%s", pmu, name);
		ret = events_resolve(&roots, q, &d, buf, sizeof(buf));
		if (ret)
			print_error("%s:%s: %s: %d %s\n", p->name, p->pmu, q, ret, buf);
		assert_int_equal(ret, 0);
		assert_true(d.hardware);
	}
}

/* Every pattern of a variant names a PMU libpfm4 knows. */
static void assert_known_pmus(const struct preset *p)
{
	char pmus[PRESET_PMU_MAX];
	pfm_pmu_info_t info;
	int i;

	snprintf(pmus, sizeof(pmus), "%s", p->pmu);
	for (char *s, *pat = strtok_r(pmus, ", ", &s); pat; pat = strtok_r(NULL, ", ", &s)) {
		bool found = false;

		pfm_for_all_pmus(i) {
			memset(&info, 0, sizeof(info));
			info.size = sizeof(info);
			if (pfm_get_pmu_info(i, &info) == PFM_SUCCESS &&
			    !fnmatch(pat, info.name, 0))
				found = true;
		}
		if (!found)
			print_error("%s: no libpfm4 PMU matches '%s'\n", p->name, pat);
		assert_true(found);
	}
}

/* A VM without a hardware PMU: software events and tracepoints open. */
static int vm_open(const char *event, char *why, size_t len, void *arg)
{
	struct event_desc d;
	int ret = events_resolve(&roots, event, &d, why, len);

	if (ret)
		return ret;
	if (d.hardware) {
		snprintf(why, len, "not supported: no hardware PMU");
		return -EOPNOTSUPP;
	}
	return 0;
}

static void test_shipped(void **state)
{
	struct preset_resolved *r = calloc(1, sizeof(*r));
	struct events_list def, l;
	struct preset_set set, disk;
	char buf[512], tracefs[4096], dir[4096];
	const struct preset *p;

	assert_non_null(r);
	snprintf(tracefs, sizeof(tracefs), "%s/tracefs", fixtures);
	roots = (struct event_roots){NULL, tracefs};
	assert_int_equal(events_init(buf, sizeof(buf)), 0);

	preset_set_init(&set);
	if (preset_load_builtin(&set, &err)) {
		preset_error_format(&err, buf, sizeof(buf));
		print_error("%s", buf);
		fail();
	}
	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		p = find(&set, shipped[i]);
		assert_int_equal(p->origin, PRESET_ORIGIN_BUILTIN);
		assert_true(p->description[0] != '\0');
		assert_true(p->nr_metrics > 0);
	}

	/* the default preset is the engine's default */
	memset(&def, 0, sizeof(def));
	assert_int_equal(events_parse_list(SESSION_DEFAULT_EVENTS, &def, buf, sizeof(buf)), 0);
	preset_events_list(find(&set, "default"), &l);
	/* the same events in the same groups (where a string wrote them is
	 * the string's) */
	assert_int_equal(def.nr, l.nr);
	assert_int_equal(def.nr_groups, l.nr_groups);
	assert_memory_equal(def.name, l.name, sizeof(def.name));
	assert_memory_equal(def.group, l.group, sizeof(def.group));
	assert_string_equal(metric(find(&set, "default"), "IPC")->text, "instructions / cycles");

	for (int i = 0; i < set.nr; i++) {
		p = set.p[i];
		if (p->pmu[0])
			assert_known_pmus(p);
		/* every name resolves (PMU-specific ones on their PMU) */
		for (int e = 0; e < p->nr_events; e++) {
			assert_resolves(p, p->ev[e].name);
			for (int k = 0; k < p->ev[e].nr_fallbacks; k++)
				assert_resolves(p, p->ev[e].fallback[k]);
		}
		/* without a hardware PMU something is still counted, and what
		 * drops says why */
		assert_int_equal(preset_choose(p, vm_open, NULL, r), 0);
		if (r->events.nr < 2)
			print_error("%s:%s keeps %d events\n", p->name, p->pmu, r->events.nr);
		assert_true(r->events.nr >= 2);
		for (int e = 0; e < r->nr; e++)
			if (r->ev[e].dropped)
				assert_non_null(strstr(r->ev[e].why, ": "));
	}

	/* the compiled-in text is what src/presets holds */
	snprintf(dir, sizeof(dir), "%s/src/presets", getenv("PFMTOP_SRCDIR"));
	preset_set_init(&disk);
	assert_int_equal(preset_load_dir(&disk, dir, PRESET_ORIGIN_DATADIR, &err), 0);
	assert_int_equal(disk.nr, set.nr);
	for (int i = 0; i < set.nr; i++) {
		assert_string_equal(disk.p[i]->name, set.p[i]->name);
		assert_string_equal(disk.p[i]->pmu, set.p[i]->pmu);
		assert_int_equal(disk.p[i]->nr_events, set.p[i]->nr_events);
		assert_memory_equal(disk.p[i]->ev, set.p[i]->ev, sizeof(set.p[i]->ev));
		assert_memory_equal(disk.p[i]->metric, set.p[i]->metric, sizeof(set.p[i]->metric));
	}
	preset_set_free(&disk);

	/* this machine's PMU picks the Zen 4 variants */
	p = preset_find(&set, "stalls", (const char *const[]){"perf", "amd64_fam19h_zen4"}, 2);
	assert_string_equal(p->pmu, "amd64_fam19h_zen4");
	assert_string_equal(metric(p, "fe-bound")->text,
			    "100 * DISPATCH_STALLS_1:FE_NO_OPS / (6 * cycles)");
	p = preset_find(&set, "stalls", (const char *const[]){"perf", "icl"}, 2);
	assert_string_equal(p->pmu, "skl, skx, clx, icl, icx, spr");
	p = preset_find(&set, "branch", (const char *const[]){"amd64_fam19h_zen4"}, 1);
	assert_string_equal(p->ev[2].fallback[0], "branches");
	roots = (struct event_roots){NULL, NULL};
	free(r);
	preset_set_free(&set);
}

/* ---- the validator ---- */

static int no_pmu(const struct event_desc *d, char *why, size_t len, void *arg)
{
	if (d->hardware) {
		snprintf(why, len, "not supported: no hardware PMU");
		return -EOPNOTSUPP;
	}
	return 0;
}

static char *check(const struct preset *p, int want)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	assert_non_null(f);
	assert_int_equal(preset_check(p, no_pmu, NULL, f), want);
	fclose(f);
	return out;
}

static void test_check(void **state)
{
	struct preset_set set;
	char *out = NULL, want[4096];
	size_t len = 0;
	FILE *f;

	preset_set_init(&set);
	load_ok(&set, "check.ini", PRESET_ORIGIN_FILE);

	out = check(find(&set, "soft"), 0);
	snprintf(want, sizeof(want),
		 "preset soft (file, %s:3)\n"
		 "  software events only\n"
		 "  events:\n"
		 "    g1  task-clock        ok (perf::PERF_COUNT_SW_TASK_CLOCK:u=1:k=1:excl=0:"
		 "mg=0:mh=1)\n"
		 "    g2  page-faults       ok (perf::PERF_COUNT_SW_PAGE_FAULTS:u=1:k=1:excl=0:"
		 "mg=0:mh=1)\n"
		 "    g3  context-switches  ok (perf::PERF_COUNT_SW_CONTEXT_SWITCHES:u=1:k=1:"
		 "excl=0:mg=0:mh=1)\n"
		 "  metrics:\n"
		 "    faults/ms = 1000000 * page-faults / task-clock  ok\n"
		 "  result: 3 of 3 events counted (0 by fallback), 0 dropped; 1 of 1 metrics "
		 "available: ok\n",
		 fx("check.ini"));
	assert_string_equal(out, want);
	free(out);

	out = check(find(&set, "hard"), 1);
	assert_non_null(strstr(out, "    g1  cycles        dropped: cycles: not supported: no "
				    "hardware PMU\n"));
	assert_non_null(strstr(out, "    IPC = instructions / cycles  unavailable: needs "
				    "instructions: not supported: no hardware PMU\n"));
	assert_non_null(strstr(out, "result: 1 of 3 events counted (0 by fallback), 2 dropped; "
				    "0 of 1 metrics available: usable, with gaps\n"));
	free(out);

	out = check(find(&set, "bad"), 2);
	assert_non_null(strstr(out, "    g2  cycles:x    dropped: cycles:x: unknown modifier 'x' in "
				    "'cycles:x'"));
	assert_non_null(strstr(out, ": invalid\n"));
	free(out);

	/* a whole file: the worst result */
	f = open_memstream(&out, &len);
	assert_int_equal(preset_check_file(fx("check.ini"), NULL, 0, no_pmu, NULL, f), 2);
	fclose(f);
	assert_non_null(strstr(out, "preset soft "));
	assert_non_null(strstr(out, "\n\npreset hard "));
	assert_non_null(strstr(out, "\n\npreset bad "));
	free(out);

	/* variants: the one for the PMUs given is checked, the others named */
	f = open_memstream(&out, &len);
	assert_in_range(preset_check_file(fx("variants.ini"),
					  (const char *const[]){"perf", "amd64_fam19h_zen4"}, 2,
					  NULL, NULL, f),
			0, 1);
	fclose(f);
	assert_non_null(strstr(out, "preset v:amd64_fam19h_zen4 (file, "));
	assert_non_null(strstr(out, "  variant :amd64_* not for this machine (checked as text "
				    "only)\n"));
	{
		struct event_desc d;
		char buf[256];

		/* on this machine libpfm4 detects a Zen 4 (from cpuid) */
		if (!events_resolve(&roots, "RETIRED_OPS", &d, buf, sizeof(buf)) &&
		    !strcmp(d.pmu, "amd64_fam19h_zen4"))
			assert_non_null(
				strstr(out, "RETIRED_OPS   ok (amd64_fam19h_zen4::RETIRED_OPS"));
	}
	free(out);

	/* a file that does not load */
	f = open_memstream(&out, &len);
	assert_int_equal(preset_check_file(fx("errors/bad-expr.ini"), NULL, 0, no_pmu, NULL, f), 2);
	fclose(f);
	snprintf(want, sizeof(want),
		 "%s:3:29: unexpected '/', expected a number, name or '('\n"
		 "    metric.IPC = instructions / / cycles\n"
		 "                                ^\n",
		 fx("errors/bad-expr.ini"));
	assert_string_equal(out, want);
	free(out);
	preset_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_caret),
		cmocka_unit_test(test_nothing_half_applied),
		cmocka_unit_test(test_text_edge_cases),
		cmocka_unit_test(test_continued_values),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_search_path),
		cmocka_unit_test(test_skip_unselected),
		cmocka_unit_test(test_format_limits),
		cmocka_unit_test(test_paths_default),
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_check),
	};

	fixtures = testutil_fixtures();
	if (!getenv("PFMTOP_SRCDIR")) {
		fprintf(stderr, "PFMTOP_SRCDIR is not set: run the unit tests through ctest\n");
		return 1;
	}
	/* PMU-specific names of the shipped variants resolve here even though
	 * this machine has other PMUs; must precede pfm_initialize(). A forced
	 * PMU would leave the others (and "perf") uninitialised. */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	testutil_libpfm_unforced();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
