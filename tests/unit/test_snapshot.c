/* Unit tests for snapshot: text and JSON renderings of a fixed model against golden files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "metrics.h"
#include "model.h"
#include "model_json.h"
#include "snapshot.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_event(struct model_event *e, const char *name, const char *enc, const char *unit,
		      double scale, enum counter_state st, double cov, const char *why)
{
	util_strlcpy(e->name, name, sizeof(e->name));
	util_strlcpy(e->encoding, enc, sizeof(e->encoding));
	util_strlcpy(e->unit, unit, sizeof(e->unit));
	util_strlcpy(e->why, why, sizeof(e->why));
	e->scale = scale;
	e->state = st;
	e->coverage = cov;
	e->opened = st != COUNTER_UNSUPPORTED;
}

static struct counter_value cell(enum counter_state st, double v, double cov)
{
	return (struct counter_value){.state = st, .value = v, .coverage = cov};
}

/* cycles + instructions (multiplexed, one group), task-clock (ms), faults. */
static void build(struct model *m, enum model_mode mode)
{
	assert_int_equal(model_init(m, 4), 0);
	m->seq = 3;
	/* 2026-09-21T14:13:20.345Z: milliseconds are cut, not rounded */
	m->wall_ns = 1790000000ull * 1000000000ull + 345999999ull;
	m->mono_ns = 12345999999ull; /* 12.345 s into the run */
	m->interval_s = 1.0;
	util_strlcpy(m->host, "box", sizeof(m->host));
	util_strlcpy(m->kernel, "6.1.0-test", sizeof(m->kernel));
	util_strlcpy(m->target, mode == MODEL_SYSTEM ? "CPUs 0,1" : "PID 42", sizeof(m->target));
	util_strlcpy(m->preset, "default", sizeof(m->preset));
	util_strlcpy(m->privilege, "root", sizeof(m->privilege));
	m->mode = mode;
	m->paranoid = 2;
	model_note(m, "a \"quoted\" note\twith a tab");
	set_event(&m->events[0], "cycles", "perf::CYCLES", "", 1, COUNTER_MULTIPLEXED, 0.5, "");
	set_event(&m->events[1], "instructions", "perf::INSTRUCTIONS", "", 1, COUNTER_MULTIPLEXED,
		  0.5, "");
	set_event(&m->events[2], "task-clock", "perf::TASK_CLOCK", "ms", 1e-6, COUNTER_OK, 1, "");
	set_event(&m->events[3], "major-faults", "", "", 1, COUNTER_UNSUPPORTED, 0,
		  "no such event here");
	m->nr_metrics = 1;
	util_strlcpy(m->metrics[0].name, "IPC", sizeof(m->metrics[0].name));

	for (int c = 0; c < 2; c++) {
		struct model_row *r = model_add_cpu(m);
		r->cpu = c;
		r->cpu_pct = c ? 12.25 : NAN;
		r->counted = true;
		r->cells[0] = cell(COUNTER_MULTIPLEXED, 2000000 * (c + 1), 0.5);
		r->cells[1] = cell(COUNTER_MULTIPLEXED, 3000000 * (c + 1), 0.5);
		r->cells[2] = cell(c ? COUNTER_OK : COUNTER_NOT_COUNTED, c ? 999500000.0 : NAN, c);
		r->cells[3] = cell(COUNTER_UNSUPPORTED, NAN, 0);
		r->metrics[0] = r->cells[1].value / r->cells[0].value;
	}
	struct model_row *t = model_add_task(m);
	t->pid = t->tid = 42;
	util_strlcpy(t->comm, "make -j", sizeof(t->comm));
	util_strlcpy(t->user, "alice", sizeof(t->user));
	t->nr_threads = 3;
	t->cpu_pct = 99.5;
	t->counted = mode != MODEL_SYSTEM;
	t->cells[2] = cell(COUNTER_OK, 995000000.0, 1);
	t->cells[0] = cell(COUNTER_ERROR, NAN, 0);
	m->tasks_counted = mode != MODEL_SYSTEM;
	m->tasks_total = 57;
	m->total.cpu_pct = 6.5;
	m->total.cells[0] = cell(COUNTER_MULTIPLEXED, 6000000, 0.5);
	m->total.cells[2] = cell(COUNTER_OK, 999500000.0, 1);
	m->top_n = 10;
	if (mode == MODEL_SYSTEM)
		return;
	/* Tasks mode also carries hotspots and the sampling health. */
	struct model_sampling *sm = &m->sampling;
	sm->enabled = true;
	util_strlcpy(sm->event, "cpu-clock", sizeof(sm->event));
	util_strlcpy(sm->why, "Sampling cpu-clock instead of cycles: no PMU", sizeof(sm->why));
	sm->freq = 4000;
	sm->interval = (struct model_health_figures){.samples = 3990, .lost_records = 2,
						     .lost_samples = 150, .throttles = 1,
						     .throttled = true};
	sm->total = (struct model_health_figures){.samples = 12000, .lost_records = 3,
						  .lost_samples = 200, .lost_samples_hw = 4,
						  .throttles = 1, .corrupt = 1, .throttled = true};
	sm->throttled_now = 1;
	sm->max_rate = 50000;
	sm->max_rate_start = 100000;
	sm->max_rate_lowered = true;
	for (int c = 0; c < 2; c++) {
		struct model_ring *r = model_add_ring(m);
		r->cpu = c;
		r->pid = -1;
		r->interval.samples = c ? 990 : 3000;
		r->interval.lost_records = c ? 0 : 2;
		r->interval.lost_samples = c ? 0 : 150;
		r->interval.throttles = c;
		r->throttled_now = c;
	}
	struct model_hotspot *h = model_add_hotspot(m);
	h->share = 75.25;
	h->samples = 3003;
	h->pid = 42;
	util_strlcpy(h->comm, "make", sizeof(h->comm));
	util_strlcpy(h->symbol, "hash_\"lookup\"", sizeof(h->symbol));
	util_strlcpy(h->module, "make", sizeof(h->module));
	h = model_add_hotspot(m);
	h->share = 24.75;
	h->samples = 987;
	h->pid = 42;
	h->kernel = true;
	util_strlcpy(h->comm, "make", sizeof(h->comm));
	util_strlcpy(h->symbol, "clear_page_erms", sizeof(h->symbol));
	util_strlcpy(h->module, "[kernel]", sizeof(h->module));
	m->hot_total = 17;
}

static char *render(const struct model *m, enum snapshot_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(snapshot_write(f, m, fmt), 0);
	fclose(f);
	return buf;
}

/* The golden text of got: the version stored as @VERSION@. */
static char *golden_of(const char *got)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *p = got, *v;

	assert_non_null(f);
	while ((v = strstr(p, PFMTOP_VERSION))) {
		fwrite(p, 1, (size_t)(v - p), f);
		fputs("@VERSION@", f);
		p = v + strlen(PFMTOP_VERSION);
	}
	fputs(p, f);
	fclose(f);
	return buf;
}

/*
 * Compare with tests/fixtures/golden/NAME, where @VERSION@ stands for the
 * version. A difference fails with both texts. Golden files are reviewed, not
 * regenerated: PFMTOP_UPDATE_GOLDEN=1 rewrites a file that differs only with
 * PFMTOP_UPDATE_GOLDEN_CONFIRM=1 as well (then review the diff in git), and
 * fails without it.
 */
static void check_golden(const char *name, const char *got)
{
	char path[4096], want[65536];
	const char *dir = getenv("PFMTOP_FIXTURES");
	char *golden = golden_of(got);
	FILE *f;
	size_t n;

	assert_non_null(dir);
	snprintf(path, sizeof(path), "%s/golden/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("%s: %s", path, strerror(errno));
	n = fread(want, 1, sizeof(want) - 1, f);
	fclose(f);
	want[n] = '\0';
	if (!strcmp(want, golden)) {
		free(golden);
		return;
	}
	if (getenv("PFMTOP_UPDATE_GOLDEN") && getenv("PFMTOP_UPDATE_GOLDEN_CONFIRM")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(golden, f);
		assert_int_equal(fclose(f), 0);
		print_message("rewrote %s: review it with git diff\n", path);
		free(golden);
		return;
	}
	fprintf(stderr, "--- want %s\n%s--- got\n%s", name, want, golden);
	if (getenv("PFMTOP_UPDATE_GOLDEN"))
		fprintf(stderr, "PFMTOP_UPDATE_GOLDEN is set, but %s is only rewritten with "
				"PFMTOP_UPDATE_GOLDEN_CONFIRM=1 as well\n",
			path);
	free(golden);
	fail();
}

static void test_text_system(void **state)
{
	struct model m;

	build(&m, MODEL_SYSTEM);
	char *s = render(&m, SNAPSHOT_TEXT);
	check_golden("system.txt", s);
	free(s);
	model_fini(&m);
}

static void test_text_tasks(void **state)
{
	struct model m;

	build(&m, MODEL_TASKS);
	char *s = render(&m, SNAPSHOT_TEXT);
	check_golden("tasks.txt", s);
	free(s);
	model_fini(&m);
}

/* --wide: every column and section, as the text was before narrow
 * snapshots (the golden files kept from then). */
static void test_text_wide(void **state)
{
	static const struct {
		enum model_mode mode;
		const char *golden;
	} cases[] = {{MODEL_SYSTEM, "system-wide.txt"}, {MODEL_TASKS, "tasks-wide.txt"}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct snapshot_text st = {.wide = true};
		struct model m;
		size_t len;

		build(&m, cases[i].mode);
		for (int k = 0; k < 2; k++) { /* the same in every snapshot */
			char *s = snapshot_render_text(&m, &st, &len);
			assert_non_null(s);
			check_golden(cases[i].golden, s);
			free(s);
		}
		model_fini(&m);
	}
}

/* Every line of s at most 80 columns; how many lines. */
static int narrow_lines(const char *s)
{
	int n = 0;

	for (const char *p = s; *p; n++) {
		const char *e = strchr(p, '\n');
		assert_non_null(e);
		if (e - p > 80)
			fail_msg("a line of %d columns: %.*s", (int)(e - p), (int)(e - p), p);
		p = e + 1;
	}
	return n;
}

/* Narrow snapshots of one run: the static sections in the first and when
 * they change, the column no row counts named once and never a column. */
static void test_text_sequence(void **state)
{
	struct snapshot_text st = {0};
	struct model m;
	size_t len;
	char *s;

	build(&m, MODEL_SYSTEM);
	s = snapshot_render_text(&m, &st, &len);
	assert_non_null(s);
	narrow_lines(s);
	assert_non_null(strstr(s, "\nEVENT "));
	assert_non_null(
	    strstr(s, "not shown (no row counts them; --wide shows them): major-faults"));
	assert_null(strstr(strstr(s, "\nCPU  CPU%"), "major-faults"));
	assert_non_null(strstr(s, "note: a \"quoted\" note"));
	free(s);

	m.seq++;
	s = snapshot_render_text(&m, &st, &len);
	assert_non_null(s);
	narrow_lines(s);
	assert_null(strstr(s, "EVENT "));
	assert_null(strstr(s, "not shown"));
	assert_null(strstr(s, "note: "));
	assert_null(strstr(s, "n/s not supported"));
	assert_non_null(strstr(s, "\nCPU  CPU%"));
	assert_null(strstr(s, "major-faults"));
	free(s);

	/* coverage changed: the EVENTS table again, and only it */
	m.events[0].coverage = 0.25;
	s = snapshot_render_text(&m, &st, &len);
	assert_non_null(s);
	assert_non_null(strstr(s, "\nEVENT "));
	assert_non_null(strstr(s, "25.0%"));
	assert_null(strstr(s, "not shown"));
	assert_null(strstr(s, "note: "));
	free(s);
	model_fini(&m);
}

static void test_json(void **state)
{
	struct model m;

	build(&m, MODEL_TASKS);
	char *s = render(&m, SNAPSHOT_JSON);
	/* One line per snapshot. */
	assert_non_null(strchr(s, '\n'));
	assert_null(strchr(s, '\n') + 1 == s + strlen(s) ? NULL : strchr(strchr(s, '\n') + 1, '\n'));
	/* Not-available numbers are null, never 0, NaN or inf. */
	assert_null(strstr(s, "nan"));
	assert_null(strstr(s, "inf"));
	assert_non_null(strstr(s, "\"a \\\"quoted\\\" note\\twith a tab\""));
	check_golden("tasks.json", s);
	free(s);
	model_fini(&m);
}

/* CSV: a line per (row, event or metric), every line with the header's
 * fields; a hostile name stays one quoted field on one line. */
static void test_csv(void **state)
{
	struct model m;
	int fields_head = 1, lines = 0;

	build(&m, MODEL_TASKS);
	util_strlcpy(m.tasks[0].comm, "a,\"b\"\nc", sizeof(m.tasks[0].comm));
	char *s = render(&m, SNAPSHOT_CSV);
	for (const char *p = snapshot_csv_header(); *p; p++)
		fields_head += *p == ',';
	/* task rows (CPU%, threads, state), then the total (CPU%): 4 events
	 * and 1 metric each; then 2 lines a hotspot row */
	for (char *line = s, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
		int fields = 1;
		bool quoted = false;

		for (char *p = line; p < nl; p++) {
			if (*p == '"')
				quoted = !quoted;
			fields += *p == ',' && !quoted;
		}
		assert_false(quoted);
		assert_int_equal(fields, fields_head);
		lines++;
	}
	assert_int_equal(lines, 2 * (4 + 1) + 3 + 1 + 2 * m.nr_hot);
	assert_non_null(strstr(s, "^Jc\",stat,\"threads\","));
	assert_non_null(strstr(s, ",total,\"\",,\"\",stat,\"cpu_pct\","));
	assert_non_null(strstr(s, ",task,\"42\",42,\"a,\"\"b\"\"^Jc\",event,\"task-clock\",995,ms,1,ok\n"));
	assert_non_null(strstr(s, ",total,\"\",,\"\",event,\"cycles\",6000000,,0.5,multiplexed\n"));
	assert_non_null(strstr(s, "^Jc\",event,\"cycles\",,,,error\n"));
	assert_non_null(strstr(s, "^Jc\",metric,\"IPC\",,,,not available\n"));
	assert_null(strstr(s, "nan"));
	util_strlcpy(m.tasks[0].comm, "make -j", sizeof(m.tasks[0].comm));
	free(s);
	s = render(&m, SNAPSHOT_CSV);
	check_golden("tasks.csv", s);
	free(s);
	model_fini(&m);
}

/* A JSON snapshot read back renders the same text: what the text shows,
 * the JSON carries (the ground of --convert and replay). */
static void test_text_from_json(void **state)
{
	enum model_mode modes[] = {MODEL_SYSTEM, MODEL_TASKS};

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct model m, back;
		char err[256];

		build(&m, modes[i]);
		m.cpu_min = modes[i] == MODEL_SYSTEM ? 0.5 : -1;
		util_strlcpy(m.sort_name, "page-faults", sizeof(m.sort_name));
		m.sampling.filter_pid = modes[i] == MODEL_SYSTEM ? -1 : 42;
		char *json = render(&m, SNAPSHOT_JSON), *text = render(&m, SNAPSHOT_TEXT);
		assert_int_equal(model_from_json(&back, json, strlen(json), err, sizeof(err)), 0);
		char *again = render(&back, SNAPSHOT_TEXT);
		if (strcmp(text, again))
			fprintf(stderr, "--- text\n%s--- text from its JSON\n%s", text, again);
		assert_string_equal(text, again);
		free(again);
		free(text);
		free(json);
		model_fini(&back);
		model_fini(&m);
	}
}

/* Counts are whole numbers; values in units and derived ones keep every
 * digit a reader needs to get the same double back. */
static void test_json_numbers(void **state)
{
	struct model m;
	const double ms_ns = 1234.5678901234567e6; /* task-clock, in ns */

	build(&m, MODEL_TASKS);
	m.total.cells[0] = cell(COUNTER_MULTIPLEXED, 123456789.5, 0.5);
	m.total.cells[2] = cell(COUNTER_OK, ms_ns, 1);
	m.total.cpu_pct = 0.1 + 0.2;
	char *s = render(&m, SNAPSHOT_JSON);
	char want[64];

	assert_non_null(strstr(s, "\"cycles\":{\"value\":123456790,\"coverage\":0.5,"));
	const char *tc = strstr(s, "\"total\":{");
	assert_non_null(tc);
	tc = strstr(tc, "\"task-clock\":{\"value\":");
	assert_non_null(tc);
	assert_true(strtod(tc + strlen("\"task-clock\":{\"value\":"), NULL) == ms_ns * 1e-6);
	snprintf(want, sizeof(want), "\"total\":{\"cpu_pct\":0.30000000000000004,");
	assert_non_null(strstr(s, want));
	assert_null(strstr(s, "e+08"));
	free(s);
	model_fini(&m);
}

/* The forms printf gives a number: %.0f for a whole one, else the
 * shortest of %.15g, %.16g, %.17g that reads back the same. */
static void number_reference(double v, char buf[32])
{
	if (v == floor(v) && fabs(v) < 1e15) {
		snprintf(buf, 32, "%.0f", v);
		return;
	}
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, 32, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
}

/* JSON numbers are written without printf where they can be: they must
 * come out as printf writes them, whole numbers, short decimals (kept to
 * 0.001), small, large, negative, and the doubles beside each. */
static void test_json_number_forms(void **state)
{
	static const double special[] = {0,       1e-4,    0.0001, 0.00011, 9.9999e-5, 0.001,
	                                 0.1,     0.3,     1.005,  2.675,   26.965,    99.9995,
	                                 100,     1e9,     1e9 - 0.001,     123456.789012,
	                                 1e15,    1e15 - 1,         1e15 + 2, 4503599627370495.5,
	                                 5e-5,    1.5e-7,  1e300};
	enum { NR = 4000 };
	double *want = calloc(NR, sizeof(*want));
	struct model m;
	uint64_t x = 88172645463325252ull;
	int n = 0;

	assert_non_null(want);
	(void)state;
	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
		const double v = special[i];
		want[n++] = v;
		want[n++] = -v;
		want[n++] = nextafter(v, 1e308);
		want[n++] = nextafter(v, -1e308);
	}
	while (n < NR) { /* xorshift: decimals of 0 to 7 places, 1e-8 to 1e12 */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		const double places = pow(10, (double)(x % 8)), mag = pow(10, (double)(x >> 8 & 15) - 4);
		const double r = (double)(x >> 12 & 0xfffff) / 0xfffff;
		double v = round(r * mag * places) / places;
		if (x & 1 << 4)
			v = nextafter(v, 1e308);
		want[n++] = x & 1 << 5 ? -v : v;
	}
	build(&m, MODEL_TASKS);
	m.nr_hot = 0;
	for (int i = 0; i < NR; i++)
		model_add_hotspot(&m)->share = want[i];
	char *s = render(&m, SNAPSHOT_JSON);
	const char *p = strstr(s, "\"rows\":[");
	assert_non_null(p);
	for (int i = 0; i < NR; i++) {
		char ref[32];
		p = strstr(p, "{\"share\":");
		assert_non_null(p);
		p += strlen("{\"share\":");
		number_reference(want[i], ref);
		if (strncmp(p, ref, strlen(ref)) || p[strlen(ref)] != ',')
			fail_msg("%.17g: printf writes %s, the snapshot %.30s", want[i], ref, p);
	}
	free(s);
	free(want);
	model_fini(&m);
}

static void test_cells(void **state)
{
	struct model_event counts = {.scale = 1}, ms = {.scale = 1e-6, .unit = "ms"};
	char buf[64];

	assert_string_equal(snapshot_cell(&counts, &(struct counter_value){1234, 1, COUNTER_OK},
					  buf, sizeof(buf)),
			    "1234");
	assert_string_equal(snapshot_cell(&ms, &(struct counter_value){2500000, 1, COUNTER_OK},
					  buf, sizeof(buf)),
			    "2.50");
	assert_string_equal(
		snapshot_cell(&counts, &(struct counter_value){4000, 0.629, COUNTER_MULTIPLEXED}, buf,
			      sizeof(buf)),
		"4000 (62%)");
	/* Not counted is not zero. */
	assert_string_equal(snapshot_cell(&counts, &(struct counter_value){NAN, 0, COUNTER_NOT_COUNTED},
					  buf, sizeof(buf)),
			    "n/c");
	assert_string_equal(snapshot_cell(&counts, &(struct counter_value){NAN, 0, COUNTER_UNSUPPORTED},
					  buf, sizeof(buf)),
			    "n/s");
	assert_string_equal(
		snapshot_cell(&counts, &(struct counter_value){NAN, 0, COUNTER_ERROR}, buf, sizeof(buf)),
		"err");
}

static void test_metrics_same_group_only(void **state)
{
	struct counters_event ev[] = {
		{.attr = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES}, .group = 0},
		{.attr = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_INSTRUCTIONS}, .group = 1},
		{.attr = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_BRANCH_MISSES}, .group = 2},
		{.attr = {.type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
		 .group = 2},
	};
	struct metrics mt;
	struct model m;

	assert_int_equal(model_init(&m, 4), 0);
	/* IPC's inputs are in different groups: no IPC. branch-miss is whole. */
	assert_int_equal(metrics_setup(&mt, ev, NULL, 4, &m), 1);
	assert_string_equal(m.metrics[0].name, "branch-miss");
	struct model_row *r = model_add_cpu(&m);
	r->cells[2] = cell(COUNTER_OK, 50, 1);
	r->cells[3] = cell(COUNTER_OK, 1000, 1);
	metrics_compute(&mt, r);
	assert_true(fabs(r->metrics[0] - 5.0) < 1e-9);
	/* A zero denominator or an uncounted input is "not available". */
	r->cells[3] = cell(COUNTER_OK, 0, 1);
	metrics_compute(&mt, r);
	assert_true(isnan(r->metrics[0]));
	r->cells[3] = cell(COUNTER_NOT_COUNTED, NAN, 0);
	metrics_compute(&mt, r);
	assert_true(isnan(r->metrics[0]));
	/* Same group: IPC appears. */
	ev[1].group = 0;
	assert_int_equal(metrics_setup(&mt, ev, NULL, 4, &m), 2);
	assert_string_equal(m.metrics[0].name, "IPC");
	/* An input that opened nowhere gives no column. */
	const bool opened[] = {false, true, true, true};
	assert_int_equal(metrics_setup(&mt, ev, opened, 4, &m), 1);
	assert_string_equal(m.metrics[0].name, "branch-miss");
	model_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_system),
		cmocka_unit_test(test_text_tasks),
		cmocka_unit_test(test_text_wide),
		cmocka_unit_test(test_text_sequence),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_text_from_json),
		cmocka_unit_test(test_json_numbers),
		cmocka_unit_test(test_json_number_forms),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_metrics_same_group_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
