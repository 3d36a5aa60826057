/* snapshot: the model rendered as text (for people), JSON Lines or CSV (for scripts). */
#include "snapshot.h"
#include "snapshot_priv.h"

#include "cells.h"

#include "untrusted.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int snapshot_parse_format(const char *s, enum snapshot_format *out)
{
	if (!strcmp(s, "text"))
		*out = SNAPSHOT_TEXT;
	else if (!strcmp(s, "json"))
		*out = SNAPSHOT_JSON;
	else if (!strcmp(s, "csv"))
		*out = SNAPSHOT_CSV;
	else if (!strcmp(s, "openmetrics"))
		*out = SNAPSHOT_OPENMETRICS;
	else if (!strcmp(s, "prometheus"))
		*out = SNAPSHOT_PROMETHEUS;
	else if (!strcmp(s, "folded"))
		*out = SNAPSHOT_FOLDED;
	else
		return -EINVAL;
	return 0;
}

const char *snapshot_state_name(enum counter_state st)
{
	switch (st) {
	case COUNTER_OK:
		return "ok";
	case COUNTER_MULTIPLEXED:
		return "multiplexed";
	case COUNTER_NOT_COUNTED:
		return "not counted";
	case COUNTER_UNSUPPORTED:
		return "not supported";
	case COUNTER_ERROR:
		return "error";
	}
	return "?";
}

const char *snapshot_mode_name(enum model_mode m)
{
	switch (m) {
	case MODEL_SYSTEM:
		return "system-wide";
	case MODEL_TASKS:
		return "tasks";
	case MODEL_COMMAND:
		return "command";
	}
	return "?";
}

static double display(const struct model_event *e, double v)
{
	return v * (e->scale > 0 ? e->scale : 1.0);
}

const char *snapshot_cell(const struct model_event *e, const struct counter_value *v, char *buf,
                          size_t len)
{
	static const struct cells_style text = {
	    .width = 0, .unit_decimals = 2, .mux_brackets = true};

	return cells_counter(e, v, &text, buf, len);
}

/* RFC 3339 in UTC to the millisecond (cut, not rounded: a snapshot is never
 * dated after it was made): "2026-11-26T08:35:12.345Z". */
void snapshot_iso_time(uint64_t wall_ns, char *buf, size_t len)
{
	time_t t = (time_t)(wall_ns / 1000000000ull);
	unsigned ms = (unsigned)(wall_ns / 1000000ull % 1000);
	struct tm tm;
	char when[48];
	size_t n;

	gmtime_r(&t, &tm);
	n = strftime(when, sizeof(when) - 6, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + n, sizeof(when) - n, ".%03uZ", ms % 1000u);
	util_strlcpy(buf, when, len);
}

static int shown_tasks(const struct model *m)
{
	return m->top_n > 0 && m->top_n < m->nr_tasks ? m->top_n : m->nr_tasks;
}

/* ---- JSON ---- */

/* Every JSON string goes through the strict writer: valid UTF-8 always. */
static void json_string(FILE *out, const char *s)
{
	untrusted_json(out, s);
}

/* n in decimal at the end of buf (which ends there); where it starts. */
static char *decimal_digits(uint64_t n, char *end)
{
	do
		*--end = (char)('0' + n % 10);
	while (n /= 10);
	return end;
}

/* n as %" PRIu64 " or %d writes it, without printf's parsing: the snapshot
 * has thousands of them. */
static void json_u64(FILE *out, uint64_t n)
{
	char buf[24], *p = decimal_digits(n, buf + sizeof(buf));

	fwrite(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

static void json_int(FILE *out, long long n)
{
	if (n < 0)
		fputc('-', out);
	json_u64(out, n < 0 ? -(uint64_t)n : (uint64_t)n);
}

/*
 * v as %.15g writes it when v is the double nearest to a decimal of at
 * most 6 places and 15 digits (k / 10^d), from 1e-4 to 1e9 in size (%g's
 * fixed notation): such a decimal reads back as v, so %.15g gives its
 * digits, trailing zeros left out. Most of a snapshot's fractions are
 * (shares and CPU% kept to 0.001). false when v is not one.
 */
static bool short_decimal(double v, char buf[32])
{
	static const double pow10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
	const double a = fabs(v);

	if (!(a >= 1e-4 && a < 1e9))
		return false;
	for (int d = 1; d <= 6; d++) {
		const double k = round(a * pow10[d]);
		char digits[24], *end = digits + sizeof(digits), *p;
		int frac = d;

		if (k / pow10[d] != a)
			continue;
		p = decimal_digits((uint64_t)k, end);
		while (frac > 0 && end[-1] == '0') /* trailing zeros */
			end--, frac--;
		char *o = buf;
		if (v < 0)
			*o++ = '-';
		if (end - p <= frac) { /* 0.00xyz */
			*o++ = '0';
			*o++ = '.';
			for (long z = frac - (end - p); z > 0; z--)
				*o++ = '0';
			frac = (int)(end - p);
		} else {
			memcpy(o, p, (size_t)(end - p - frac));
			o += end - p - frac;
			p = end - frac;
			if (frac)
				*o++ = '.';
		}
		memcpy(o, p, (size_t)frac);
		o[frac] = '\0';
		return true;
	}
	return false;
}

/* A number as the shortest of %.15g, %.16g and %.17g that reads back as
 * the same double: no digit a reader needs is lost. NaN and infinities
 * (not available) give none (false, buf empty). */
static bool exact_number(double v, char buf[32])
{
	buf[0] = '\0';
	if (isnan(v) || isinf(v))
		return false;
	if (v == floor(v) && fabs(v) < 1e15) { /* as %.0f, -0 too */
		char *p = decimal_digits((uint64_t)fabs(v), buf + 31);

		if (signbit(v))
			*--p = '-';
		buf[31] = '\0';
		memmove(buf, p, (size_t)(buf + 32 - p));
		return true;
	}
	if (short_decimal(v, buf))
		return true;
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, 32, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return true;
}

/* As exact_number(); not available is null. */
static void json_number(FILE *out, double v)
{
	char buf[32];

	fputs(exact_number(v, buf) ? buf : "null", out);
}

/* An event's value: a count (scaled up when multiplexed) is a whole number
 * of events, as perf prints it; a value in units (ms) keeps its digits. */
static double event_value(const struct model_event *e, double v)
{
	return e->scale == 1.0 && !e->unit[0] ? round(v) : v;
}

static void json_value(FILE *out, const struct model_event *e, double v)
{
	json_number(out, event_value(e, v));
}

static void json_row_counters(FILE *out, const struct model *m, const struct model_row *r)
{
	fputs("\"counters\":{", out);
	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		const struct counter_value *v = &r->cells[i];
		if (i)
			fputc(',', out);
		json_string(out, e->name);
		fputs(":{\"value\":", out);
		json_value(out, e, cells_counted(v) ? display(e, v->value) : NAN);
		fputs(",\"coverage\":", out);
		json_number(out, cells_counted(v) ? v->coverage : NAN);
		fputs(",\"state\":", out);
		json_string(out, snapshot_state_name(v->state));
		fputc('}', out);
	}
	fputs("},\"metrics\":{", out);
	for (int k = 0; k < m->nr_metrics; k++) {
		if (k)
			fputc(',', out);
		json_string(out, m->metrics[k].name);
		fputc(':', out);
		json_number(out, r->metrics[k]);
	}
	fputc('}', out);
}

static void json_health(FILE *out, const char *key, const struct model_health_figures *f)
{
	fprintf(out,
	        "\"%s\":{\"samples\":%" PRIu64 ",\"lost_records\":%" PRIu64
	        ",\"lost_samples\":%" PRIu64 ",\"lost_samples_hw\":%" PRIu64
	        ",\"throttles\":%" PRIu64 ",\"throttled\":%s,\"corrupt\":%" PRIu64 "}",
	        key, f->samples, f->lost_records, f->lost_samples, f->lost_samples_hw, f->throttles,
	        f->throttled ? "true" : "false", f->corrupt);
}

/* Where the paths of rows from row on start, when m's paths are in row
 * order (as the producers keep them; by_row says whether they are): the
 * rows' paths are then found without a pass over all of them per row. */
static int paths_from(const struct model *m, int row, bool by_row)
{
	int lo = 0, hi = m->nr_paths;

	while (by_row && lo < hi) {
		const int mid = lo + (hi - lo) / 2;

		if (m->paths[mid].hot < row)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* -g: a row's children and self shares (null when not known) and its
 * call paths, callers and callees, each frame named. */
static void json_tree(FILE *out, const struct model *m, int row, bool by_row)
{
	const struct model_hotspot *h = &m->hot[row];
	const int from = paths_from(m, row, by_row);

	fputs(",\"children\":", out);
	json_number(out, h->children);
	fputs(",\"self\":", out);
	json_number(out, h->self);
	for (int dir = 0; dir < 2; dir++) {
		int n = 0;

		fprintf(out, ",\"%s\":[", dir ? "callees" : "callers");
		for (int i = from; i < m->nr_paths; i++) {
			const struct model_callpath *p = &m->paths[i];

			if (by_row && p->hot > row)
				break;
			if (p->hot != row || p->callee != (dir == 1) || p->first < 0 ||
			    p->first + p->nr > m->nr_frames)
				continue;
			fputs(n++ ? ",{\"share\":" : "{\"share\":", out);
			json_number(out, p->share);
			fputs(",\"samples\":", out);
			json_u64(out, p->samples);
			fputs(",\"frames\":[", out);
			for (int k = 0; k < p->nr; k++) {
				const struct model_frame *f = &m->frames[p->first + k];
				fputs(k ? ",{" : "{", out);
				untrusted_json_field(out, "symbol", model_frame_symbol(m, f));
				fputc(',', out);
				untrusted_json_field(out, "module", model_frame_module(m, f));
				fputs(f->kernel ? ",\"kernel\":true}" : ",\"kernel\":false}", out);
			}
			fputs("]}", out);
		}
		fputc(']', out);
	}
}

/* The hotspots and sampling members. */
static void json_sampling(FILE *out, const struct model *m)
{
	const struct model_sampling *s = &m->sampling;

	fputs(",\"hotspots\":{", out);
	fprintf(out,
	        "\"mode\":\"%s\",\"rows_total\":%d,\"hide_kernel\":%s,\"hide_user\":%s,"
	        "\"filter_pid\":%d,\"filter_cpu\":%d,",
	        s->accumulated ? "accumulated" : "interval", m->hot_total,
	        s->hide_kernel ? "true" : "false", s->hide_user ? "true" : "false",
	        (int)s->filter_pid, s->filter_cpu);
	/* Members that came later are written only when set, so that older
	 * recordings read back to the same bytes. */
	if (s->hot_keys[0]) {
		fputs("\"keys\":", out);
		json_string(out, s->hot_keys);
		fputc(',', out);
	}
	if (s->total_samples) {
		fprintf(out,
		        "\"total_weight\":%" PRIu64 ",\"total_samples\":%" PRIu64
		        ",\"other\":{\"share\":",
		        s->total_weight, s->total_samples);
		json_number(out, s->hot_other.share);
		fprintf(out,
		        ",\"samples\":%" PRIu64 ",\"weight\":%" PRIu64 ",\"folded\":%" PRIu64
		        ",\"rows\":%d},",
		        s->hot_other.samples, s->hot_other.weight, s->hot_other.folded,
		        s->hot_other.rows);
	}
	if (s->callchain)
		fprintf(out, "\"call_chains\":true,\"chain_samples\":%" PRIu64 ",",
		        s->chain_samples);
	fputs("\"rows\":[", out);
	bool by_row = true;
	for (int i = 1; i < m->nr_paths && by_row; i++)
		by_row = m->paths[i].hot >= m->paths[i - 1].hot;
	for (int i = 0; i < m->nr_hot; i++) {
		const struct model_hotspot *h = &m->hot[i];
		fputs(i ? ",{\"share\":" : "{\"share\":", out);
		json_number(out, h->share);
		fputs(",\"samples\":", out);
		json_u64(out, h->samples);
		if (h->weight) {
			fputs(",\"weight\":", out);
			json_u64(out, h->weight);
		}
		fputs(",\"pid\":", out);
		json_int(out, h->pid);
		fputs(h->kernel ? ",\"kernel\":true," : ",\"kernel\":false,", out);
		untrusted_json_field(out, "comm", h->comm);
		fputc(',', out);
		untrusted_json_field(out, "symbol", h->symbol);
		fputc(',', out);
		untrusted_json_field(out, "module", h->module);
		if (s->hot_keys[0]) {
			fputs(",\"tid\":", out);
			json_int(out, h->tid);
			fputs(",\"cpu\":", out);
			json_int(out, h->cpu);
			fputs(",\"processes\":", out);
			json_int(out, h->processes);
		}
		if (s->callchain)
			json_tree(out, m, i, by_row);
		fputc('}', out);
	}
	fprintf(out, "]},\"sampling\":{\"enabled\":%s", s->enabled ? "true" : "false");
	if (s->enabled) {
		fputs(",\"event\":", out);
		json_string(out, s->event);
		fputs(",\"fallback_reason\":", out);
		json_string(out, s->why);
		fprintf(out, ",\"freq\":%" PRIu64 ",\"period\":%" PRIu64 ",", s->freq, s->period);
		json_health(out, "interval", &s->interval);
		fputc(',', out);
		json_health(out, "total", &s->total);
		fprintf(
		    out,
		    ",\"throttled_now\":%d,\"max_sample_rate\":%ld,\"max_sample_rate_start\":%ld,"
		    "\"max_sample_rate_lowered\":%s,\"rings\":[",
		    s->throttled_now, s->max_rate, s->max_rate_start,
		    s->max_rate_lowered ? "true" : "false");
		for (int i = 0; i < s->nr_rings; i++) {
			const struct model_ring *r = &s->rings[i];
			fprintf(out, "%s{\"cpu\":%d,\"pid\":%d,\"throttled_now\":%s,", i ? "," : "",
			        r->cpu, (int)r->pid, r->throttled_now ? "true" : "false");
			json_health(out, "interval", &r->interval);
			fputc(',', out);
			json_health(out, "total", &r->total);
			fputc('}', out);
		}
		fputc(']', out);
	}
	fputc('}', out);
}

static void write_json(FILE *out, const struct model *m)
{
	char when[32];

	snapshot_iso_time(m->wall_ns, when, sizeof(when));
	fprintf(out,
	        "{\"pfmtop\":\"%s\",\"schema_version\":%d,\"seq\":%" PRIu64
	        ",\"time\":\"%s\",\"mono_s\":",
	        PFMTOP_VERSION, MODEL_SCHEMA_VERSION, m->seq, when);
	if (m->mono_ns == MODEL_MONO_UNKNOWN)
		fputs("null", out);
	else /* milliseconds, cut as the time is */
		fprintf(out, "%" PRIu64 ".%03u", (uint64_t)(m->mono_ns / 1000000000u),
		        (unsigned)(m->mono_ns / 1000000ull % 1000));
	fputs(",\"interval_s\":", out);
	json_number(out, m->interval_s);
	fprintf(out, ",\"final\":%s,\"partial\":%s,\"host\":", m->final ? "true" : "false",
	        m->partial ? "true" : "false");
	json_string(out, m->host);
	fputs(",\"kernel\":", out);
	json_string(out, m->kernel);
	fprintf(out, ",\"mode\":\"%s\",\"target\":", snapshot_mode_name(m->mode));
	json_string(out, m->target);
	fputs(",\"preset\":", out);
	json_string(out, m->preset);
	fprintf(out, ",\"paranoid\":%d,\"privilege\":", m->paranoid);
	json_string(out, m->privilege);
	fputs(",\"notes\":[", out);
	for (int i = 0; i < m->nr_notes; i++) {
		fprintf(out, "%s", i ? "," : "");
		json_string(out, m->notes[i]);
	}
	fputs("],\"events\":[", out);
	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_string(out, e->name);
		fputs(",\"encoding\":", out);
		json_string(out, e->opened ? e->encoding : "");
		fputs(",\"unit\":", out);
		json_string(out, e->unit);
		fputs(",\"state\":", out);
		json_string(out, snapshot_state_name(e->state));
		fputs(",\"coverage\":", out);
		json_number(out, cells_state_counted(e->state) ? e->coverage : NAN);
		fputs(",\"reason\":", out);
		json_string(out, e->why);
		fputc('}', out);
	}
	fputs("],\"cpus\":[", out);
	for (int i = 0; i < m->nr_cpus; i++) {
		const struct model_row *r = &m->cpus[i];
		fprintf(out, "%s{\"cpu\":%d,\"cpu_pct\":", i ? "," : "", r->cpu);
		json_number(out, r->cpu_pct);
		if (isfinite(r->user_pct)) { /* known from /proc/stat */
			fputs(",\"user_pct\":", out);
			json_number(out, r->user_pct);
			fputs(",\"sys_pct\":", out);
			json_number(out, r->sys_pct);
			fputs(",\"other_pct\":", out);
			json_number(out, r->other_pct);
		}
		if (m->mode == MODEL_SYSTEM) {
			fputc(',', out);
			json_row_counters(out, m, r);
		}
		fputc('}', out);
	}
	fprintf(out, "],\"tasks_total\":%d,", m->tasks_total);
	if (isfinite(m->load[0])) { /* known from /proc/loadavg */
		fputs("\"loadavg\":[", out);
		for (int i = 0; i < 3; i++) {
			fputs(i ? "," : "", out);
			json_number(out, m->load[i]);
		}
		fprintf(out, "],\"tasks_running\":%d,\"tasks_all\":%d,", m->tasks_running,
		        m->tasks_all);
	}
	fputs("\"sort\":", out);
	json_string(out, m->sort_name);
	fputs(",\"cpu_min\":", out);
	json_number(out, m->cpu_min);
	fputs(",\"tasks\":[", out);
	for (int i = 0, n = shown_tasks(m); i < n; i++) {
		const struct model_row *r = &m->tasks[i];
		fputs(i ? ",{\"pid\":" : "{\"pid\":", out);
		json_int(out, r->pid);
		fputs(",\"tid\":", out);
		json_int(out, r->tid);
		fputc(',', out);
		untrusted_json_field(out, "user", r->user);
		fputc(',', out);
		untrusted_json_field(out, "comm", r->comm);
		if (r->ppid > 0) {
			fputs(",\"ppid\":", out);
			json_int(out, r->ppid);
		}
		fputs(",\"threads\":", out);
		json_int(out, r->nr_threads);
		fputs(",\"cpu_pct\":", out);
		json_number(out, r->cpu_pct);
		fputs(r->counted ? ",\"counted\":true" : ",\"counted\":false", out);
		fputs(r->exited ? ",\"exited\":true," : ",\"exited\":false,", out);
		if (r->since_ms > 0) {
			fputs("\"since_ms\":", out);
			json_number(out, r->since_ms);
			fputc(',', out);
		}
		fputs("\"note\":", out);
		json_string(out, r->note);
		fputc(',', out);
		untrusted_json_field(out, "cgroup", r->cgroup);
		if (m->tasks_counted) {
			fputc(',', out);
			json_row_counters(out, m, r);
		}
		fputc('}', out);
	}
	fputs("],\"cgroups\":[", out);
	for (int i = 0; i < m->nr_cgroups; i++) {
		fprintf(out, "%s{", i ? "," : "");
		untrusted_json_field(out, "cgroup", m->cgroups[i].cgroup);
		fputc(',', out);
		json_row_counters(out, m, &m->cgroups[i]);
		fputc('}', out);
	}
	fputc(']', out);
	json_sampling(out, m);
	if (m->has_unattributed) {
		fputs(",\"unattributed\":{", out);
		json_row_counters(out, m, &m->unattributed);
		fputc('}', out);
	}
	fputs(",\"total\":{\"cpu_pct\":", out);
	json_number(out, m->total.cpu_pct);
	fputc(',', out);
	json_row_counters(out, m, &m->total);
	fputs("}}\n", out);
}

/* ---- CSV: long form, a line per (snapshot, row, column) ---- */

/* Text from outside as one quoted CSV field: made safe as text (no control
 * byte, so no line break), '"' doubled. */
static void csv_text(FILE *out, const char *s)
{
	char safe[4 * 160];

	untrusted_text(safe, sizeof(safe), s);
	fputc('"', out);
	for (const char *p = safe; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static void csv_number(FILE *out, double v)
{
	char buf[32];

	exact_number(v, buf);
	fputs(buf, out);
}

/* The part of a line that names the row: scope,id,pid,comm. */
struct csv_row {
	const char *scope;
	char id[160];
	const char *comm; /* task rows */
	pid_t pid;        /* task rows */
};

/* A line up to its name field: the snapshot's head, the row, the kind. */
static void csv_lead(FILE *out, const char *head, const struct csv_row *w, const char *kind,
                     const char *name)
{
	fprintf(out, "%s%s,", head, w->scope);
	csv_text(out, w->id);
	fputc(',', out);
	if (w->comm && w->pid >= 0) /* a hotspot row of several processes has none */
		fprintf(out, "%d", (int)w->pid);
	fputc(',', out);
	csv_text(out, w->comm ? w->comm : "");
	fprintf(out, ",%s,", kind);
	csv_text(out, name);
}

/* A "stat" line: a figure of the row itself (CPU%, its split, threads). */
static void csv_stat(FILE *out, const char *head, const struct csv_row *w, const char *name,
                     double v, const char *unit)
{
	csv_lead(out, head, w, "stat", name);
	fputc(',', out);
	csv_number(out, v);
	fprintf(out, ",%s,,%s\n", unit, isnan(v) ? "not available" : "ok");
}

/* The row's own figures, then each event's and metric's. */
static void csv_row(FILE *out, const char *head, const struct model *m, const struct model_row *r,
                    const struct csv_row *w)
{
	csv_stat(out, head, w, "cpu_pct", r->cpu_pct, "%");
	if (!strcmp(w->scope, "cpu")) {
		csv_stat(out, head, w, "user_pct", r->user_pct, "%");
		csv_stat(out, head, w, "sys_pct", r->sys_pct, "%");
	}
	if (w->comm) { /* a task: its threads, and its state as the table says it */
		csv_stat(out, head, w, "threads", r->nr_threads, "");
		csv_lead(out, head, w, "stat", "state");
		fputs(",,,,", out);
		csv_text(out, r->note[0] ? r->note : r->counted ? "counted" : "not counted");
		fputc('\n', out);
	}
	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		const struct counter_value *v = &r->cells[i];
		bool counted = cells_counted(v);

		csv_lead(out, head, w, "event", e->name);
		fputc(',', out);
		csv_number(out, counted ? event_value(e, display(e, v->value)) : NAN);
		fprintf(out, ",%s,", e->unit);
		csv_number(out, counted ? v->coverage : NAN);
		fprintf(out, ",%s\n", snapshot_state_name(v->state));
	}
	for (int k = 0; k < m->nr_metrics; k++) {
		csv_lead(out, head, w, "metric", m->metrics[k].name);
		fputc(',', out);
		csv_number(out, r->metrics[k]);
		fprintf(out, ",%s,,%s\n", m->metrics[k].unit,
		        isnan(r->metrics[k]) ? "not available" : "ok");
	}
}

static void write_csv(FILE *out, const struct model *m)
{
	char head[128], when[32], len[32];
	struct csv_row w = {0};

	snapshot_iso_time(m->wall_ns, when, sizeof(when));
	exact_number(m->interval_s, len);
	snprintf(head, sizeof(head), "%s,%" PRIu64 ",%s,%s,", when, m->seq,
	         m->final     ? "total"
	         : m->partial ? "partial"
	                      : "interval",
	         len);
	if (m->mode == MODEL_SYSTEM)
		for (int i = 0; i < m->nr_cpus; i++) {
			w = (struct csv_row){.scope = "cpu"};
			snprintf(w.id, sizeof(w.id), "%d", m->cpus[i].cpu);
			csv_row(out, head, m, &m->cpus[i], &w);
		}
	for (int i = 0, n = m->tasks_counted ? shown_tasks(m) : 0; i < n; i++) {
		const struct model_row *r = &m->tasks[i];

		w = (struct csv_row){.scope = "task", .comm = r->comm, .pid = r->pid};
		snprintf(w.id, sizeof(w.id), "%d",
		         (int)(r->kind == MODEL_ROW_THREAD ? r->tid : r->pid));
		csv_row(out, head, m, r, &w);
	}
	for (int i = 0; i < m->nr_cgroups; i++) {
		w = (struct csv_row){.scope = "cgroup"};
		util_strlcpy(w.id, m->cgroups[i].cgroup, sizeof(w.id));
		csv_row(out, head, m, &m->cgroups[i], &w);
	}
	if (m->has_unattributed) {
		w = (struct csv_row){.scope = "unattributed"};
		csv_row(out, head, m, &m->unattributed, &w);
	}
	w = (struct csv_row){.scope = "total"};
	csv_row(out, head, m, &m->total, &w);
	/* the hotspot rows shown: share (of the rows ranked) and samples */
	for (int i = 0; i < m->nr_hot; i++) {
		const struct model_hotspot *h = &m->hot[i];

		w = (struct csv_row){.scope = "hotspot", .comm = h->comm, .pid = h->pid};
		util_strlcpy(w.id, h->module, sizeof(w.id));
		csv_lead(out, head, &w, "hotspot", h->symbol);
		fputc(',', out);
		csv_number(out, h->share);
		fputs(",%,,ok\n", out);
		csv_lead(out, head, &w, "hotspot_samples", h->symbol);
		fprintf(out, ",%" PRIu64 ",,,ok\n", h->samples);
	}
}

const char *snapshot_csv_header(void)
{
	return "time,seq,span,interval_s,scope,id,pid,comm,kind,name,value,unit,coverage,state\n";
}

char *snapshot_render(const struct model *m, enum snapshot_format fmt, bool first, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int ret;

	if (!f)
		return NULL;
	if (first && fmt == SNAPSHOT_CSV)
		fputs(snapshot_csv_header(), f);
	ret = snapshot_write(f, m, fmt);
	if (fclose(f) || ret) {
		free(buf);
		errno = ret ? -ret : errno;
		return NULL;
	}
	return buf;
}

int snapshot_write(FILE *out, const struct model *m, enum snapshot_format fmt)
{
	if (fmt == SNAPSHOT_JSON)
		write_json(out, m);
	else if (fmt == SNAPSHOT_CSV)
		write_csv(out, m);
	else
		snapshot_write_text(out, m, NULL);
	return ferror(out) ? -EIO : 0;
}
