/* Unit tests for the JSON snapshot as a versioned contract: schema_version
 * (a newer one refused, none = a recording of an earlier build, read with
 * defaults for what it lacks), and times to the millisecond ("time" in
 * RFC 3339 with a fraction, "mono_s") read back to the same bytes. */
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
#include <time.h>

/* m as JSON (malloc'd). */
static char *render(const struct model *m, enum snapshot_format fmt)
{
	size_t len;
	char *s = snapshot_render(m, fmt, false, &len);

	assert_non_null(s);
	return s;
}

/* The first line of fixture roundtrip/command.jsonl (a versioned snapshot
 * of a command, with sampling), malloc'd. */
static char *versioned_line(void)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/roundtrip/command.jsonl", testutil_fixtures());
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(getline(&line, &cap, f) > 0);
	fclose(f);
	return line;
}

/* s with its first FROM replaced by TO, malloc'd; FROM must be there. */
static char *edit(const char *s, const char *from, const char *to)
{
	const char *at = strstr(s, from);
	size_t head, len;
	char *out;

	if (!at)
		fail_msg("\"%s\" is not in the line", from);
	head = (size_t)(at - s);
	len = strlen(s) - strlen(from) + strlen(to);
	out = malloc(len + 1);
	assert_non_null(out);
	memcpy(out, s, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

static int parse(struct model *m, const char *s, char *err, size_t errlen)
{
	err[0] = '\0';
	return model_from_json(m, s, strlen(s), err, errlen);
}

/* Refused, with err holding want. */
static void refused(const char *s, const char *want)
{
	char err[256];
	struct model m;

	assert_int_equal(parse(&m, s, err, sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("refused with \"%s\", expected \"%s\"", err, want);
	assert_null(m.events);
}

static void test_newer_version_refused(void **state)
{
	char *line = versioned_line(), *s;

	s = edit(line, "\"schema_version\":1,", "\"schema_version\":2,");
	refused(s, "written by a newer pfmtop: schema_version 2, this one reads 1");
	free(s);
	/* before anything else: a newer layout may have no "events" at all */
	refused("{\"pfmtop\":\"9.0\",\"schema_version\":7}",
	        "written by a newer pfmtop: schema_version 7, this one reads 1");
	/* not a version */
	static const char *const bad[] = {"0", "-1", "\"1\"", "1.5", "null", "true"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char v[64];
		snprintf(v, sizeof(v), "\"schema_version\":%s,", bad[i]);
		s = edit(line, "\"schema_version\":1,", v);
		refused(s, "schema_version");
		free(s);
	}
	free(line);
}

/* A versioned line lacks nothing its version has: a member added since
 * the first recordings is required in it. */
static void test_versioned_is_strict(void **state)
{
	char *line = versioned_line(), *s;

	s = edit(line, "\"sort\":\"CPU%\",", "");
	refused(s, "no \"sort\"");
	free(s);
	s = edit(line, "\"mono_s\":0.305,", "");
	refused(s, "no \"mono_s\"");
	free(s);
	s = edit(line, "\"hide_kernel\":false,", "");
	refused(s, "no \"hide_kernel\"");
	free(s);
	s = edit(line, "\"mode\":\"interval\"", "\"mode\":\"sometimes\"");
	refused(s, "unknown hotspots mode");
	free(s);
	free(line);
}

/* No schema_version: a recording of an earlier build. What it lacks gets
 * its default, and it is written again as a versioned snapshot. */
static void test_missing_version_accepted(void **state)
{
	char *line = versioned_line(), *old, *older, *again, err[256];
	struct model m;

	old = edit(line, "\"schema_version\":1,", "");
	assert_int_equal(parse(&m, old, err, sizeof(err)), 0);
	again = render(&m, SNAPSHOT_JSON);
	/* the same snapshot, versioned (but for the "pfmtop" member: this build's) */
	assert_string_equal(strchr(again, ','), strchr(line, ','));
	free(again);
	model_fini(&m);

	/* without what earlier builds did not write */
	static const char *const added[] = {
	    "\"mono_s\":0.305,", "\"partial\":false,", "\"sort\":\"CPU%\",",
	    "\"cpu_min\":-1,",   "\"cgroup\":\"\",",   "\"hide_kernel\":false,",
	    "\"hide_user\":false,", "\"filter_pid\":-1,", "\"filter_cpu\":-1,",
	};
	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++) {
		older = edit(old, added[i], "");
		free(old);
		old = older;
	}
	assert_int_equal(parse(&m, old, err, sizeof(err)), 0);
	assert_int_equal(m.mono_ns, MODEL_MONO_UNKNOWN);
	assert_string_equal(m.sort_name, "CPU%");
	assert_true(isnan(m.cpu_min)); /* not known */
	assert_int_equal(m.sampling.filter_pid, -1);
	assert_int_equal(m.sampling.filter_cpu, -1);
	assert_false(m.sampling.hide_kernel);
	again = render(&m, SNAPSHOT_JSON);
	assert_non_null(strstr(again, "\"schema_version\":1,"));
	assert_non_null(strstr(again, "\"mono_s\":null,"));
	assert_non_null(strstr(again, "\"cpu_min\":null,"));
	free(again);
	model_fini(&m);
	free(old);

	/* before sampling and cgroups: neither member */
	old = edit(line, "\"schema_version\":1,", "");
	const char *hot = strstr(old, ",\"cgroups\":[]"), *tot = strstr(old, ",\"total\":{\"cpu_pct\"");
	assert_non_null(hot);
	assert_non_null(tot);
	memmove((char *)hot, tot, strlen(tot) + 1);
	assert_int_equal(parse(&m, old, err, sizeof(err)), 0);
	assert_false(m.sampling.enabled);
	assert_int_equal(m.nr_hot, 0);
	assert_int_equal(m.nr_cgroups, 0);
	again = render(&m, SNAPSHOT_TEXT);
	assert_null(strstr(again, "HOTSPOTS"));
	free(again);
	model_fini(&m);
	free(old);
	free(line);
}

/* Every line recorded by earlier builds (tests/fixtures/legacy) is read,
 * written again versioned, and that reads back to the same bytes. */
static void test_legacy_recordings(void **state)
{
	char dir[4096], err[256];
	struct dirent **ents;
	int files = 0, lines = 0, n;

	snprintf(dir, sizeof(dir), "%s/legacy", testutil_fixtures());
	n = scandir(dir, &ents, NULL, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);
		char path[8192], *line = NULL;
		size_t cap = 0;
		ssize_t got;
		FILE *f;

		if (len < 6 || strcmp(ents[i]->d_name + len - 6, ".jsonl")) {
			free(ents[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
		f = fopen(path, "r");
		assert_non_null(f);
		for (int k = 1; (got = getline(&line, &cap, f)) > 0; k++) {
			struct model m, back;

			assert_null(strstr(line, "\"schema_version\""));
			if (model_from_json(&m, line, (size_t)got, err, sizeof(err)))
				fail_msg("%s:%d: %s", path, k, err);
			char *json = render(&m, SNAPSHOT_JSON), *text = render(&m, SNAPSHOT_TEXT);
			char head[64];
			snprintf(head, sizeof(head), "{\"pfmtop\":\"%s\",\"schema_version\":1,",
			         PFMTOP_VERSION);
			assert_memory_equal(json, head, strlen(head));
			assert_non_null(strstr(json, ".000Z\",\"mono_s\":null,"));
			assert_non_null(strstr(text, "\nEVENT "));
			if (model_from_json(&back, json, strlen(json), err, sizeof(err)))
				fail_msg("%s:%d written again: %s", path, k, err);
			char *again = render(&back, SNAPSHOT_JSON);
			assert_string_equal(again, json);
			free(again);
			free(text);
			free(json);
			model_fini(&back);
			model_fini(&m);
			lines++;
		}
		free(line);
		fclose(f);
		free(ents[i]);
		files++;
	}
	free(ents);
	assert_true(files >= 3);
	assert_true(lines >= 10);
}

/* "time" and "mono_s" to the millisecond, cut (never a snapshot dated
 * after it was made), read back exactly. */
static void test_ms_times(void **state)
{
	struct tm tm = {.tm_year = 2026 - 1900, .tm_mon = 10, .tm_mday = 26,
	                .tm_hour = 8, .tm_min = 35, .tm_sec = 12};
	const uint64_t base = (uint64_t)timegm(&tm) * 1000000000ull;
	char *line = versioned_line(), *s, *json, err[256];
	const char *when = strstr(line, "\"time\":\"");
	struct model m;

	assert_non_null(when);
	char old_time[64];
	snprintf(old_time, sizeof(old_time), "%.34s", when); /* "time":"...Z", */
	assert_int_equal(old_time[33], ',');

	static const struct {
		const char *time, *mono;
		uint64_t wall_ns, mono_ns;
		const char *again_time, *again_mono;
	} ok[] = {
	    {"2026-11-26T08:35:12.345Z", "12.345", 345000000, 12345000000ull, NULL, NULL},
	    {"2026-11-26T08:35:12.000Z", "0", 0, 0, NULL, "0.000"},
	    {"2026-11-26T08:35:12Z", "0.001", 0, 1000000, "2026-11-26T08:35:12.000Z", NULL},
	    {"2026-11-26T08:35:12.5Z", "86400.999", 500000000, 86400999000000ull,
	     "2026-11-26T08:35:12.500Z", NULL},
	    {"2026-11-26T08:35:12.123456789Z", "1e3", 123456789, 1000000000000ull,
	     "2026-11-26T08:35:12.123Z", "1000.000"},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char t[96], mono[64];

		snprintf(t, sizeof(t), "\"time\":\"%s\",\"mono_s\":%s,", ok[i].time, ok[i].mono);
		s = edit(line, "\"mono_s\":0.305,", "");
		char *s2 = edit(s, old_time, t);
		free(s);
		if (parse(&m, s2, err, sizeof(err)))
			fail_msg("%s %s: %s", ok[i].time, ok[i].mono, err);
		assert_int_equal(m.wall_ns, base + ok[i].wall_ns);
		assert_int_equal(m.mono_ns, ok[i].mono_ns);
		json = render(&m, SNAPSHOT_JSON);
		snprintf(t, sizeof(t), "\"time\":\"%s\",",
		         ok[i].again_time ? ok[i].again_time : ok[i].time);
		snprintf(mono, sizeof(mono), "\"mono_s\":%s,",
		         ok[i].again_mono ? ok[i].again_mono : ok[i].mono);
		if (!strstr(json, t) || !strstr(json, mono))
			fail_msg("%s %s written again as %.120s", ok[i].time, ok[i].mono,
			         strstr(json, "\"time\""));
		free(json);
		model_fini(&m);
		free(s2);
	}

	static const char *const bad_time[] = {
	    "2026-11-26T08:35:12.Z",      "2026-11-26T08:35:12.1234567890Z",
	    "2026-11-26T08:35:12,345Z",   "2026-11-26T08:35:12.345",
	    "2026-11-26T08:35:12.345+01:00", "2026-11-26 08:35:12.345Z",
	    "2026-11-26T08:35:12.34aZ",   "1969-12-31T23:59:59.999Z",
	    "2600-01-01T00:00:00.000Z", /* past a uint64_t of ns */
	};
	for (size_t i = 0; i < sizeof(bad_time) / sizeof(bad_time[0]); i++) {
		char t[96];
		snprintf(t, sizeof(t), "\"time\":\"%s\",", bad_time[i]);
		s = edit(line, old_time, t);
		refused(s, "\"time\" is not a UTC time");
		free(s);
	}
	static const char *const bad_mono[] = {"-0.001", "1e300", "\"1.5\"", "true"};
	for (size_t i = 0; i < sizeof(bad_mono) / sizeof(bad_mono[0]); i++) {
		char t[64];
		snprintf(t, sizeof(t), "\"mono_s\":%s,", bad_mono[i]);
		s = edit(line, "\"mono_s\":0.305,", t);
		refused(s, "\"mono_s\"");
		free(s);
	}
	/* null: not known, written again as null */
	s = edit(line, "\"mono_s\":0.305,", "\"mono_s\":null,");
	assert_int_equal(parse(&m, s, err, sizeof(err)), 0);
	assert_int_equal(m.mono_ns, MODEL_MONO_UNKNOWN);
	json = render(&m, SNAPSHOT_JSON);
	assert_non_null(strstr(json, "\"mono_s\":null,"));
	free(json);
	free(s);

	/* cut, not rounded; the same instant in text and CSV */
	m.wall_ns = base + 999999999;
	m.mono_ns = 1999999999;
	json = render(&m, SNAPSHOT_JSON);
	assert_non_null(strstr(json, "\"time\":\"2026-11-26T08:35:12.999Z\",\"mono_s\":1.999,"));
	free(json);
	json = render(&m, SNAPSHOT_TEXT);
	assert_non_null(strstr(json, "  2026-11-26T08:35:12.999Z  "));
	free(json);
	json = render(&m, SNAPSHOT_CSV);
	assert_memory_equal(json, "2026-11-26T08:35:12.999Z,", 25);
	free(json);
	model_fini(&m);
	free(line);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_newer_version_refused),
	    cmocka_unit_test(test_versioned_is_strict),
	    cmocka_unit_test(test_missing_version_accepted),
	    cmocka_unit_test(test_legacy_recordings),
	    cmocka_unit_test(test_ms_times),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
