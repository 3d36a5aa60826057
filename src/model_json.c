/* model_json: a JSON snapshot (one line of --format json) read back into a model. */
#include "model_json.h"

#include "cells.h"
#include "snapshot.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_EVENTS 1024 /* columns taken from a line */

struct reader {
	struct model *m;
	char *err;
	size_t errlen;
	bool failed;
	/* No "schema_version": a line of a build before it, where a member
	 * added since may be missing and gets its default. */
	bool legacy;
};

__attribute__((format(printf, 2, 3))) static void bad(struct reader *r, const char *fmt, ...)
{
	va_list ap;

	if (r->failed)
		return; /* the first reason stands */
	r->failed = true;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
}

/* ---- members ---- */

static json_t *member(struct reader *r, json_t *o, const char *key, json_type type)
{
	json_t *v = json_object_get(o, key);

	if (!v)
		bad(r, "no \"%s\"", key);
	else if (json_typeof(v) != type && !(type == JSON_REAL && json_is_integer(v)) &&
	         !(type == JSON_TRUE && json_is_boolean(v)))
		bad(r, "\"%s\" has the wrong type", key);
	else
		return v;
	return NULL;
}

static void get_str(struct reader *r, json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = member(r, o, key, JSON_STRING);

	buf[0] = '\0';
	if (v)
		util_strlcpy(buf, json_string_value(v), len);
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A name from outside: KEY, or its bytes from KEY_raw (hex) when the
 * writer had to replace some of them. */
static void get_name(struct reader *r, json_t *o, const char *key, char *buf, size_t len)
{
	char raw_key[32];
	json_t *raw;

	get_str(r, o, key, buf, len);
	snprintf(raw_key, sizeof(raw_key), "%s_raw", key);
	raw = json_object_get(o, raw_key);
	if (!raw)
		return;
	const char *hex = json_string_value(raw);
	size_t n = hex ? strlen(hex) : 1, i;
	if (n % 2 || n / 2 >= len) {
		bad(r, "\"%s\" is not the hex of a name", raw_key);
		return;
	}
	for (i = 0; i < n / 2; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
		if (hi < 0 || lo < 0 || (hi | lo) == 0) {
			bad(r, "\"%s\" is not the hex of a name", raw_key);
			return;
		}
		buf[i] = (char)(hi << 4 | lo);
	}
	buf[i] = '\0';
}

/* A number; null (not available) is NaN. */
static double get_num(struct reader *r, json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (v && json_is_null(v))
		return NAN;
	v = member(r, o, key, JSON_REAL);
	return v ? json_number_value(v) : NAN;
}

static long long get_int(struct reader *r, json_t *o, const char *key, long long min, long long max)
{
	json_t *v = member(r, o, key, JSON_INTEGER);
	long long x = v ? json_integer_value(v) : 0;

	if (v && (x < min || x > max))
		bad(r, "\"%s\" is out of range", key);
	return x < min || x > max ? 0 : x;
}

static uint64_t get_u64(struct reader *r, json_t *o, const char *key)
{
	return (uint64_t)get_int(r, o, key, 0, INT64_MAX);
}

static bool get_bool(struct reader *r, json_t *o, const char *key)
{
	json_t *v = member(r, o, key, JSON_TRUE);

	return v && json_is_true(v);
}

static json_t *get_array(struct reader *r, json_t *o, const char *key)
{
	return member(r, o, key, JSON_ARRAY);
}

/* Whether o has key; a line of an earlier build (legacy) may lack it, a
 * versioned one may not: that is reported, and the caller reads it anyway
 * (which changes nothing once the line is refused). */
static bool has(struct reader *r, json_t *o, const char *key)
{
	return json_object_get(o, key) || !r->legacy;
}

static enum counter_state get_state(struct reader *r, json_t *o, const char *key)
{
	char name[32];

	get_str(r, o, key, name, sizeof(name));
	for (int st = COUNTER_OK; st <= COUNTER_ERROR; st++)
		if (!strcmp(name, snapshot_state_name((enum counter_state)st)))
			return (enum counter_state)st;
	bad(r, "\"%s\": unknown state \"%.32s\"", key, name);
	return COUNTER_ERROR;
}

/* ---- rows ---- */

/* The metric names, in order, from the first "metrics" object seen. */
static void metric_names(struct reader *r, json_t *metrics)
{
	struct model *m = r->m;
	const char *key;
	json_t *v;

	if (m->nr_metrics)
		return;
	json_object_foreach(metrics, key, v)
	{
		if (m->nr_metrics == MODEL_MAX_METRICS) {
			bad(r, "more than %d metrics", MODEL_MAX_METRICS);
			return;
		}
		util_strlcpy(m->metrics[m->nr_metrics++].name, key, sizeof(m->metrics[0].name));
	}
}

static void get_counters(struct reader *r, json_t *o, struct model_row *row)
{
	struct model *m = r->m;
	json_t *counters = member(r, o, "counters", JSON_OBJECT);
	json_t *metrics = member(r, o, "metrics", JSON_OBJECT);

	if (!counters || !metrics)
		return;
	for (int i = 0; i < m->nr_events; i++) {
		json_t *c = member(r, counters, m->events[i].name, JSON_OBJECT);
		struct counter_value *v = &row->cells[i];
		if (!c)
			return;
		v->state = get_state(r, c, "state");
		v->value = cells_counted(v) ? get_num(r, c, "value") : NAN;
		v->coverage = cells_counted(v) ? get_num(r, c, "coverage") : 0;
	}
	metric_names(r, metrics);
	for (int k = 0; k < m->nr_metrics; k++)
		row->metrics[k] = get_num(r, metrics, m->metrics[k].name);
}

/* ---- the parts of a snapshot ---- */

/* "time": RFC 3339 in UTC, "2026-11-26T08:35:12.345Z", the fraction (of 1
 * to 9 digits) missing in lines of earlier builds. */
static void get_time(struct reader *r, json_t *o)
{
	char when[40];
	struct tm tm = {0};
	uint64_t ns = 0, unit = 1000000000ull;
	time_t t;

	get_str(r, o, "time", when, sizeof(when));
	const char *p = strptime(when, "%Y-%m-%dT%H:%M:%S", &tm);
	if (p && *p == '.' && p[1] >= '0' && p[1] <= '9')
		for (p++; *p >= '0' && *p <= '9' && unit > 1; p++)
			ns += (uint64_t)(*p - '0') * (unit /= 10);
	t = p ? timegm(&tm) : -1;
	/* after 1970, and in a uint64_t of ns (before 2554) */
	if (!p || strcmp(p, "Z") || t < 0 || (uint64_t)t >= UINT64_MAX / 1000000000ull)
		bad(r, "\"time\" is not a UTC time: \"%.40s\"", when);
	else
		r->m->wall_ns = (uint64_t)t * 1000000000ull + ns;
}

/* "mono_s": seconds to the millisecond; null (or missing from a line of an
 * earlier build) when not known. */
static void get_mono(struct reader *r, json_t *o)
{
	json_t *v = json_object_get(o, "mono_s");
	double s;

	r->m->mono_ns = MODEL_MONO_UNKNOWN;
	if ((!v && r->legacy) || json_is_null(v))
		return;
	s = get_num(r, o, "mono_s");
	if (!(s >= 0 && s < 1e9)) /* NaN too */
		bad(r, "\"mono_s\" is out of range");
	else
		r->m->mono_ns = (uint64_t)llround(s * 1e3) * 1000000ull;
}

static void get_header(struct reader *r, json_t *o)
{
	struct model *m = r->m;
	char mode[16];
	json_t *notes = get_array(r, o, "notes");

	m->seq = get_u64(r, o, "seq");
	get_time(r, o);
	get_mono(r, o);
	m->interval_s = get_num(r, o, "interval_s");
	m->final = get_bool(r, o, "final");
	if (has(r, o, "partial"))
		m->partial = get_bool(r, o, "partial");
	get_str(r, o, "host", m->host, sizeof(m->host));
	get_str(r, o, "kernel", m->kernel, sizeof(m->kernel));
	get_str(r, o, "mode", mode, sizeof(mode));
	if (!strcmp(mode, "system-wide"))
		m->mode = MODEL_SYSTEM;
	else if (!strcmp(mode, "tasks"))
		m->mode = MODEL_TASKS;
	else if (!strcmp(mode, "command"))
		m->mode = MODEL_COMMAND;
	else
		bad(r, "unknown mode \"%.16s\"", mode);
	get_str(r, o, "target", m->target, sizeof(m->target));
	get_str(r, o, "preset", m->preset, sizeof(m->preset));
	m->paranoid = (int)get_int(r, o, "paranoid", -1000, 1000);
	get_str(r, o, "privilege", m->privilege, sizeof(m->privilege));
	for (size_t i = 0; notes && i < json_array_size(notes); i++) {
		const char *s = json_string_value(json_array_get(notes, i));
		if (!s)
			bad(r, "a note is not a string");
		else
			model_note(m, "%s", s);
	}
}

static void get_events(struct reader *r, json_t *events)
{
	struct model *m = r->m;

	for (int i = 0; i < m->nr_events; i++) {
		json_t *o = json_array_get(events, (size_t)i);
		struct model_event *e = &m->events[i];

		if (!json_is_object(o)) {
			bad(r, "an event is not an object");
			return;
		}
		get_str(r, o, "name", e->name, sizeof(e->name));
		for (int k = 0; k < i; k++)
			if (!strcmp(m->events[k].name, e->name))
				bad(r, "event \"%.64s\" is named twice", e->name);
		get_str(r, o, "encoding", e->encoding, sizeof(e->encoding));
		get_str(r, o, "unit", e->unit, sizeof(e->unit));
		e->state = get_state(r, o, "state");
		e->coverage = get_num(r, o, "coverage");
		get_str(r, o, "reason", e->why, sizeof(e->why));
		e->scale = 1.0; /* the values are read as shown, in their unit */
		e->opened = true;
	}
}

static void get_cpus(struct reader *r, json_t *cpus)
{
	for (size_t i = 0; i < json_array_size(cpus) && !r->failed; i++) {
		json_t *o = json_array_get(cpus, i);
		struct model_row *row = model_add_cpu(r->m);
		if (!row) {
			bad(r, "out of memory");
			return;
		}
		row->cpu = (int)get_int(r, o, "cpu", 0, INT32_MAX);
		row->cpu_pct = get_num(r, o, "cpu_pct");
		if (json_object_get(o, "user_pct")) { /* optional: /proc/stat known */
			row->user_pct = get_num(r, o, "user_pct");
			row->sys_pct = get_num(r, o, "sys_pct");
			row->other_pct = get_num(r, o, "other_pct");
		}
		if (r->m->mode == MODEL_SYSTEM)
			get_counters(r, o, row);
	}
}

static void get_tasks(struct reader *r, json_t *tasks)
{
	struct model *m = r->m;

	m->tasks_counted = false;
	for (size_t i = 0; i < json_array_size(tasks) && !r->failed; i++) {
		json_t *o = json_array_get(tasks, i);
		struct model_row *row = model_add_task(m);
		if (!row) {
			bad(r, "out of memory");
			return;
		}
		row->pid = (pid_t)get_int(r, o, "pid", 0, INT32_MAX);
		row->tid = (pid_t)get_int(r, o, "tid", 0, INT32_MAX);
		get_name(r, o, "user", row->user, sizeof(row->user));
		get_name(r, o, "comm", row->comm, sizeof(row->comm));
		if (json_object_get(o, "ppid"))
			row->ppid = (pid_t)get_int(r, o, "ppid", 0, INT32_MAX);
		row->nr_threads = (int)get_int(r, o, "threads", 0, INT32_MAX);
		row->cpu_pct = get_num(r, o, "cpu_pct");
		row->counted = get_bool(r, o, "counted");
		row->exited = get_bool(r, o, "exited");
		if (json_object_get(o, "since_ms"))
			row->since_ms = get_num(r, o, "since_ms");
		get_str(r, o, "note", row->note, sizeof(row->note));
		if (has(r, o, "cgroup"))
			get_name(r, o, "cgroup", row->cgroup, sizeof(row->cgroup));
		if (json_object_get(o, "counters")) {
			m->tasks_counted = true;
			get_counters(r, o, row);
		}
		if (row->tid != row->pid)
			row->kind = MODEL_ROW_THREAD;
	}
}

static void get_cgroups(struct reader *r, json_t *cgroups)
{
	for (size_t i = 0; i < json_array_size(cgroups) && !r->failed; i++) {
		json_t *o = json_array_get(cgroups, i);
		struct model_row *row = model_add_cgroup(r->m);
		if (!row) {
			bad(r, "out of memory");
			return;
		}
		get_name(r, o, "cgroup", row->cgroup, sizeof(row->cgroup));
		get_counters(r, o, row);
	}
}

/* -g: a row's call paths in one direction. */
static void get_paths(struct reader *r, json_t *h, const char *key, int row, bool callee)
{
	json_t *paths = get_array(r, h, key);

	for (size_t i = 0; paths && i < json_array_size(paths) && !r->failed; i++) {
		json_t *o = json_array_get(paths, i);
		json_t *frames = get_array(r, o, "frames");
		size_t nr = frames ? json_array_size(frames) : 0;
		struct model_callpath *p;

		if (r->failed)
			return;
		if (nr > 4096) {
			bad(r, "a call path of more than 4096 frames");
			return;
		}
		p = model_add_path(r->m, (int)nr);
		if (!p) {
			bad(r, "out of memory");
			return;
		}
		p->hot = row;
		p->callee = callee;
		p->share = get_num(r, o, "share");
		p->samples = get_u64(r, o, "samples");
		for (size_t k = 0; k < nr && !r->failed; k++) {
			json_t *f = json_array_get(frames, k);
			char sym[MODEL_FRAME_SYMBOL_MAX], mod[MODEL_FRAME_MODULE_MAX];
			struct model_frame *mf = &r->m->frames[p->first + (int)k];
			get_name(r, f, "symbol", sym, sizeof(sym));
			get_name(r, f, "module", mod, sizeof(mod));
			mf->symbol = model_frame_name(r->m, sym, sizeof(sym));
			mf->module = model_frame_name(r->m, mod, sizeof(mod));
			mf->kernel = get_bool(r, f, "kernel");
		}
	}
}

static void get_hotspots(struct reader *r, json_t *o)
{
	struct model *m = r->m;
	char mode[16];
	json_t *rows = get_array(r, o, "rows");

	get_str(r, o, "mode", mode, sizeof(mode));
	if (!strcmp(mode, "accumulated"))
		m->sampling.accumulated = true;
	else if (strcmp(mode, "interval"))
		bad(r, "unknown hotspots mode \"%.16s\"", mode);
	m->hot_total = (int)get_int(r, o, "rows_total", 0, INT32_MAX);
	/* the filters came later: without them, everything was shown */
	if (has(r, o, "hide_kernel"))
		m->sampling.hide_kernel = get_bool(r, o, "hide_kernel");
	if (has(r, o, "hide_user"))
		m->sampling.hide_user = get_bool(r, o, "hide_user");
	if (has(r, o, "filter_pid"))
		m->sampling.filter_pid = (pid_t)get_int(r, o, "filter_pid", -1, INT32_MAX);
	if (has(r, o, "filter_cpu"))
		m->sampling.filter_cpu = (int)get_int(r, o, "filter_cpu", -1, INT32_MAX);
	/* Later members: absent from older recordings. */
	if (json_object_get(o, "keys"))
		get_str(r, o, "keys", m->sampling.hot_keys, sizeof(m->sampling.hot_keys));
	if (json_object_get(o, "total_samples")) {
		json_t *ot = json_object_get(o, "other");
		struct model_hot_other *x = &m->sampling.hot_other;

		m->sampling.total_weight = get_u64(r, o, "total_weight");
		m->sampling.total_samples = get_u64(r, o, "total_samples");
		if (!json_is_object(ot)) {
			bad(r, "hotspots: \"other\" is not an object");
			return;
		}
		x->share = get_num(r, ot, "share");
		x->samples = get_u64(r, ot, "samples");
		x->weight = get_u64(r, ot, "weight");
		x->folded = get_u64(r, ot, "folded");
		x->rows = (int)get_int(r, ot, "rows", 0, INT32_MAX);
	}
	m->sampling.callchain = json_object_get(o, "call_chains") && get_bool(r, o, "call_chains");
	if (m->sampling.callchain)
		m->sampling.chain_samples = get_u64(r, o, "chain_samples");
	for (size_t i = 0; rows && i < json_array_size(rows) && !r->failed; i++) {
		json_t *h = json_array_get(rows, i);
		struct model_hotspot *hot = model_add_hotspot(m);
		if (!hot) {
			bad(r, "out of memory");
			return;
		}
		hot->share = get_num(r, h, "share");
		hot->samples = get_u64(r, h, "samples");
		if (json_object_get(h, "weight"))
			hot->weight = get_u64(r, h, "weight");
		hot->pid = (pid_t)get_int(r, h, "pid", -1, INT32_MAX);
		hot->kernel = get_bool(r, h, "kernel");
		get_name(r, h, "comm", hot->comm, sizeof(hot->comm));
		get_name(r, h, "symbol", hot->symbol, sizeof(hot->symbol));
		get_name(r, h, "module", hot->module, sizeof(hot->module));
		if (m->sampling.hot_keys[0]) {
			hot->tid = (pid_t)get_int(r, h, "tid", -1, INT32_MAX);
			hot->cpu = (int)get_int(r, h, "cpu", -1, INT32_MAX);
			hot->processes = (int)get_int(r, h, "processes", 0, INT32_MAX);
		}
		if (m->sampling.callchain) {
			hot->children = get_num(r, h, "children");
			hot->self = get_num(r, h, "self");
			get_paths(r, h, "callers", m->nr_hot - 1, false);
			get_paths(r, h, "callees", m->nr_hot - 1, true);
		}
	}
}

static void get_health(struct reader *r, json_t *o, const char *key, struct model_health_figures *f)
{
	json_t *h = member(r, o, key, JSON_OBJECT);

	if (!h)
		return;
	f->samples = get_u64(r, h, "samples");
	f->lost_records = get_u64(r, h, "lost_records");
	f->lost_samples = get_u64(r, h, "lost_samples");
	f->lost_samples_hw = get_u64(r, h, "lost_samples_hw");
	f->throttles = get_u64(r, h, "throttles");
	f->throttled = get_bool(r, h, "throttled");
	f->corrupt = get_u64(r, h, "corrupt");
}

static void get_sampling(struct reader *r, json_t *o)
{
	struct model_sampling *s = &r->m->sampling;
	json_t *rings;

	s->enabled = get_bool(r, o, "enabled");
	if (!s->enabled)
		return;
	get_str(r, o, "event", s->event, sizeof(s->event));
	get_str(r, o, "fallback_reason", s->why, sizeof(s->why));
	s->freq = get_u64(r, o, "freq");
	s->period = get_u64(r, o, "period");
	get_health(r, o, "interval", &s->interval);
	get_health(r, o, "total", &s->total);
	s->throttled_now = (int)get_int(r, o, "throttled_now", 0, INT32_MAX);
	s->max_rate = (long)get_int(r, o, "max_sample_rate", -1, INT32_MAX);
	s->max_rate_start = (long)get_int(r, o, "max_sample_rate_start", -1, INT32_MAX);
	s->max_rate_lowered = get_bool(r, o, "max_sample_rate_lowered");
	rings = get_array(r, o, "rings");
	for (size_t i = 0; rings && i < json_array_size(rings) && !r->failed; i++) {
		json_t *g = json_array_get(rings, i);
		struct model_ring *ring = model_add_ring(r->m);
		if (!ring) {
			bad(r, "out of memory");
			return;
		}
		ring->cpu = (int)get_int(r, g, "cpu", -1, INT32_MAX);
		ring->pid = (pid_t)get_int(r, g, "pid", -1, INT32_MAX);
		ring->throttled_now = get_bool(r, g, "throttled_now");
		get_health(r, g, "interval", &ring->interval);
		get_health(r, g, "total", &ring->total);
	}
}

static void get_snapshot(struct reader *r, json_t *root)
{
	struct model *m = r->m;
	json_t *o;

	get_header(r, root);
	get_events(r, get_array(r, root, "events"));
	if ((o = get_array(r, root, "cpus")))
		get_cpus(r, o);
	m->tasks_total = (int)get_int(r, root, "tasks_total", 0, INT32_MAX);
	if ((o = json_object_get(root, "loadavg")) && json_is_array(o) && json_array_size(o) == 3) {
		for (size_t i = 0; i < 3; i++) {
			json_t *x = json_array_get(o, i);
			m->load[i] = json_is_number(x) ? json_number_value(x) : NAN;
		}
		m->tasks_running = (int)get_int(r, root, "tasks_running", 0, INT32_MAX);
		m->tasks_all = (int)get_int(r, root, "tasks_all", 0, INT32_MAX);
	}
	/* Members an earlier build did not write: the order it sorted by is
	 * not known (the default, CPU%, is the likeliest), nor the CPU% that
	 * gave tasks counters (null); no cgroups, no sampling. */
	if (has(r, root, "sort"))
		get_str(r, root, "sort", m->sort_name, sizeof(m->sort_name));
	m->cpu_min = has(r, root, "cpu_min") ? get_num(r, root, "cpu_min") : NAN;
	if ((o = get_array(r, root, "tasks")))
		get_tasks(r, o);
	m->top_n = 0; /* every row read is shown */
	if (has(r, root, "cgroups") && (o = get_array(r, root, "cgroups")))
		get_cgroups(r, o);
	if (has(r, root, "hotspots") && (o = member(r, root, "hotspots", JSON_OBJECT)))
		get_hotspots(r, o);
	if (has(r, root, "sampling") && (o = member(r, root, "sampling", JSON_OBJECT)))
		get_sampling(r, o);
	if ((o = json_object_get(root, "unattributed"))) {
		m->has_unattributed = true;
		util_strlcpy(m->unattributed.comm, "(unattributed)", sizeof(m->unattributed.comm));
		get_counters(r, o, &m->unattributed);
	}
	if ((o = member(r, root, "total", JSON_OBJECT))) {
		m->total.cpu_pct = get_num(r, o, "cpu_pct");
		get_counters(r, o, &m->total);
		m->total.counted = true;
	}
}

/* "schema_version": a version this build reads, or none (a line of an
 * earlier build: r->legacy). 0 or -EINVAL with the reason. */
static int schema_version(struct reader *r, json_t *root)
{
	json_t *v = json_is_object(root) ? json_object_get(root, "schema_version") : NULL;
	json_int_t n;

	if (!v) {
		r->legacy = true;
		return 0;
	}
	n = json_is_integer(v) ? json_integer_value(v) : 0;
	if (n > MODEL_SCHEMA_VERSION) {
		snprintf(r->err, r->errlen,
		         "written by a newer pfmtop: schema_version %" JSON_INTEGER_FORMAT
		         ", this one reads %d (convert it with that pfmtop)",
		         n, MODEL_SCHEMA_VERSION);
		return -EINVAL;
	}
	if (n < 1) {
		snprintf(r->err, r->errlen,
		         "not a pfmtop snapshot: \"schema_version\" is not a whole number from 1");
		return -EINVAL;
	}
	return 0;
}

int model_from_json(struct model *m, const char *text, size_t len, char *err, size_t errlen)
{
	struct reader r = {m, err, errlen, false, false};
	json_error_t je;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je), *events;
	int ret;

	memset(m, 0, sizeof(*m));
	if (!root) {
		snprintf(err, errlen, "not JSON: %s (column %d)", je.text, je.column);
		return -EINVAL;
	}
	if (schema_version(&r, root)) {
		json_decref(root);
		return -EINVAL;
	}
	events = json_is_object(root) ? json_object_get(root, "events") : NULL;
	if (!json_is_array(events) || json_array_size(events) > MAX_EVENTS) {
		snprintf(err, errlen, "not a pfmtop snapshot: no \"events\" list (of at most %d)",
		         MAX_EVENTS);
		json_decref(root);
		return -EINVAL;
	}
	ret = model_init(m, (int)json_array_size(events));
	if (ret) {
		snprintf(err, errlen, "out of memory");
	} else {
		get_snapshot(&r, root);
		ret = r.failed ? -EINVAL : 0;
	}
	json_decref(root);
	if (ret)
		model_fini(m);
	return ret;
}
