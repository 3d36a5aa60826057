/* Unit tests for model_json: JSON snapshots read back into the model, and
 * the round trip model -> JSON -> model -> JSON byte for byte. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "model.h"
#include "model_json.h"
#include "snapshot.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* m as JSON into *out (malloc'd). */
static void render(const struct model *m, char **out)
{
	size_t len = 0;
	FILE *f;

	*out = NULL;
	f = open_memstream(out, &len);
	assert_non_null(f);
	assert_int_equal(snapshot_write(f, m, SNAPSHOT_JSON), 0);
	assert_int_equal(fclose(f), 0);
}

/* Every line of FILE read and written again: the same bytes. */
static int round_trip_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, err[256];
	size_t cap = 0;
	ssize_t n;
	int lines = 0;

	assert_non_null(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		struct model m;
		int ret = model_from_json(&m, line, (size_t)n, err, sizeof(err));
		if (ret)
			fail_msg("%s:%d: %s", path, lines + 1, err);
		char *again;
		render(&m, &again);
		/* All but the "pfmtop" version member, which is this build's. */
		const char *a = strchr(again, ','), *b = strchr(line, ',');
		assert_non_null(a);
		assert_non_null(b);
		if (strcmp(a, b)) {
			size_t i = 0;
			while (a[i] && a[i] == b[i])
				i++;
			fail_msg(
			    "%s:%d: differs at byte %zu:\n  read:    ...%.80s\n  written: ...%.80s",
			    path, lines + 1, i, b + (i > 40 ? i - 40 : 0),
			    a + (i > 40 ? i - 40 : 0));
		}
		free(again);
		model_fini(&m);
		lines++;
	}
	free(line);
	fclose(f);
	return lines;
}

/* Snapshots recorded from real runs (system-wide with hostile process
 * names, a command with an event given twice, threads of a process with a
 * preset's metrics). */
static void test_round_trip_recorded(void **state)
{
	char dir[4096];
	struct dirent **ents;
	int files = 0, lines = 0;

	snprintf(dir, sizeof(dir), "%s/roundtrip", testutil_fixtures());
	int n = scandir(dir, &ents, NULL, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t len = strlen(name);
		if (len > 6 && !strcmp(name + len - 6, ".jsonl")) {
			char path[8192];
			snprintf(path, sizeof(path), "%s/%s", dir, name);
			lines += round_trip_file(path);
			files++;
		}
		free(ents[i]);
	}
	free(ents);
	assert_true(files >= 3);
	assert_true(lines >= 6);
}

/* The first line of fixture roundtrip/NAME into *line (malloc'd); its length. */
static ssize_t first_line(const char *name, char **line)
{
	char path[4096];
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/roundtrip/%s", testutil_fixtures(), name);
	f = fopen(path, "r");
	assert_non_null(f);
	*line = NULL;
	n = getline(line, &cap, f);
	assert_true(n > 0);
	fclose(f);
	return n;
}

/* The values come back as numbers of the model, not only as text. */
static void test_values(void **state)
{
	char *line, err[256];
	struct model m;
	ssize_t n = first_line("command.jsonl", &line);

	assert_int_equal(model_from_json(&m, line, (size_t)n, err, sizeof(err)), 0);
	assert_int_equal(m.mode, MODEL_COMMAND);
	assert_int_equal(m.seq, 1);
	assert_int_equal(m.nr_events, 4);
	assert_string_equal(m.events[0].name, "page-faults");
	assert_string_equal(m.events[1].name, "page-faults#2");
	assert_string_equal(m.events[2].unit, "ms");
	assert_int_equal(m.nr_tasks, 1);
	assert_true(m.tasks_counted);
	assert_int_equal(m.tasks[0].cells[0].state, COUNTER_OK);
	assert_true(m.tasks[0].cells[0].value > 0);
	assert_true(m.tasks[0].cells[0].value == m.tasks[0].cells[1].value);
	assert_true(m.total.cells[0].value == m.tasks[0].cells[0].value);
	model_fini(&m);
	free(line);
}

/* Whatever comes in, a clear refusal: never a crash, never half a model. */
static void test_refused(void **state)
{
	static const char *bad[] = {
	    "",
	    "not json",
	    "[]",
	    "{}",
	    "{\"events\":{}}",
	    /* a key twice */
	    "{\"events\":[],\"events\":[]}",
	    /* events but nothing else */
	    "{\"events\":[]}",
	    /* an event that is not an object */
	    "{\"seq\":1,\"time\":\"2026-01-01T00:00:00Z\",\"interval_s\":1,\"final\":false,"
	    "\"host\":\"h\",\"kernel\":\"k\",\"mode\":\"tasks\",\"target\":\"t\",\"preset\":\"p\","
	    "\"paranoid\":2,\"privilege\":\"root\",\"notes\":[],\"events\":[1]}",
	    /* an unknown mode */
	    "{\"seq\":1,\"time\":\"2026-01-01T00:00:00Z\",\"interval_s\":1,\"final\":false,"
	    "\"host\":\"h\",\"kernel\":\"k\",\"mode\":\"x\",\"target\":\"t\",\"preset\":\"p\","
	    "\"paranoid\":2,\"privilege\":\"root\",\"notes\":[],\"events\":[]}",
	    /* a bad time */
	    "{\"seq\":1,\"time\":\"yesterday\",\"interval_s\":1,\"final\":false,"
	    "\"host\":\"h\",\"kernel\":\"k\",\"mode\":\"tasks\",\"target\":\"t\",\"preset\":\"p\","
	    "\"paranoid\":2,\"privilege\":\"root\",\"notes\":[],\"events\":[]}",
	};
	char err[256];
	struct model m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(model_from_json(&m, bad[i], strlen(bad[i]), err, sizeof(err)),
		                 -EINVAL);
		assert_true(err[0] != '\0');
		assert_null(m.events); /* nothing left behind */
	}
}

/* A recorded line cut anywhere, or with a byte changed, is refused or read;
 * it never crashes (ASan checks the rest). */
static void test_damaged(void **state)
{
	char *line, err[256];
	struct model m;
	ssize_t n = first_line("threads.jsonl", &line);

	for (ssize_t cut = 0; cut < n - 1; cut += 97) {
		assert_int_equal(model_from_json(&m, line, (size_t)cut, err, sizeof(err)), -EINVAL);
	}
	for (ssize_t at = 0; at < n; at += 61) {
		char *copy = strdup(line);
		copy[at] = copy[at] == '"' ? '1' : '"';
		if (model_from_json(&m, copy, (size_t)n, err, sizeof(err)) == 0)
			model_fini(&m);
		free(copy);
	}
	free(line);
}

/* Keys and call paths (-g) come back into the model; a recording from
 * before they existed has none, and rows per (pid, symbol). */
static void test_keys_and_paths(void **state)
{
	char *line, err[256];
	struct model m;
	ssize_t n = first_line("callchains.jsonl", &line);

	assert_int_equal(model_from_json(&m, line, (size_t)n, err, sizeof(err)), 0);
	assert_string_equal(m.sampling.hot_keys, "dso,sym");
	assert_true(m.sampling.callchain);
	assert_true(m.sampling.chain_samples > 0);
	assert_true(m.nr_hot > 0);
	assert_true(m.hot[0].children >= m.hot[0].self);
	assert_true(m.hot[0].processes >= 1);
	assert_true(m.nr_paths > 0);
	for (int i = 0; i < m.nr_paths; i++) {
		const struct model_callpath *p = &m.paths[i];
		assert_true(p->hot >= 0 && p->hot < m.nr_hot);
		assert_true(p->nr >= 1 && p->first + p->nr <= m.nr_frames);
		/* every path starts at its row's own function */
		assert_string_equal(model_frame_symbol(&m, &m.frames[p->first]), m.hot[p->hot].symbol);
		assert_true(p->share <= m.hot[p->hot].children + 1e-9);
	}
	model_fini(&m);
	free(line);

	n = first_line("command.jsonl", &line);
	assert_int_equal(model_from_json(&m, line, (size_t)n, err, sizeof(err)), 0);
	assert_string_equal(m.sampling.hot_keys, "");
	assert_false(m.sampling.callchain);
	assert_int_equal(m.nr_paths, 0);
	assert_true(m.nr_hot > 0 && isnan(m.hot[0].children));
	model_fini(&m);
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip_recorded),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_damaged),
	    cmocka_unit_test(test_keys_and_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
