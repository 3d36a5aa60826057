/* snapshot_text: text snapshots for people: 80 columns, static sections once. */
#include "snapshot.h"
#include "snapshot_priv.h"

#include "cells.h"
#include "untrusted.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* What one text snapshot is written with: its reader and the columns it leaves out. */
struct text {
	const struct model *m;
	struct snapshot_text *st;
	int maxw;   /* SNAPSHOT_COLUMNS, or 0 (--wide) */
	bool *hide; /* per event: counts on no row, its column left out */
	bool hide_metric[MODEL_MAX_METRICS];
	int nr_hidden;
	bool brief; /* the table being printed names events by their short names */
};

int snapshot_table_init(struct table *t, int cols, int rows)
{
	memset(t, 0, sizeof(*t));
	if (cols > 64)
		cols = 64;
	t->nr_cols = cols;
	t->nr_rows = rows;
	t->cell = calloc((size_t)cols * (size_t)rows + 1, CELL_MAX);
	return t->cell ? 0 : -ENOMEM;
}

static void measure(struct table *t)
{
	for (int c = 0; c < t->nr_cols; c++)
		for (int r = 0; r < t->nr_rows; r++) {
			int w = untrusted_width(cell_at(t, r, c));
			if (w > t->width[c])
				t->width[c] = w;
		}
}

int snapshot_table_width(const struct table *t)
{
	struct table m = *t;
	int w = 0;

	memset(m.width, 0, sizeof(m.width));
	measure(&m);
	for (int c = 0; c < m.nr_cols; c++)
		w += m.width[c] + (c ? 2 : 0);
	return w;
}

/* Narrow the cut-able columns until a line fits in maxw (or none can give
 * more): those marked first before the others, then the one with the most
 * to give. */
static void fit(struct table *t)
{
	int total = 0;

	for (int c = 0; c < t->nr_cols; c++)
		total += t->width[c] + (c ? 2 : 0);
	while (t->maxw && total > t->maxw) {
		int best = -1;
		for (int c = 0; c < t->nr_cols; c++)
			if (t->minw[c] && t->width[c] > t->minw[c] &&
			    (best < 0 || t->first[c] > t->first[best] ||
			     (t->first[c] == t->first[best] &&
			      t->width[c] - t->minw[c] > t->width[best] - t->minw[best])))
				best = c;
		if (best < 0)
			break;
		t->width[best]--;
		total--;
	}
}

void snapshot_table_print(FILE *out, struct table *t)
{
	size_t linelen = 1;
	char *line;

	measure(t);
	fit(t);
	for (int c = 0; c < t->nr_cols; c++) {
		size_t bytes = 0;
		for (int r = 0; r < t->nr_rows; r++)
			if (strlen(cell_at(t, r, c)) > bytes)
				bytes = strlen(cell_at(t, r, c));
		linelen += (size_t)t->width[c] + bytes + 2;
	}
	line = malloc(linelen);
	for (int r = 0; line && r < t->nr_rows; r++) {
		int n = 0;
		/* Padded by columns, not bytes: a UTF-8 name lines up too. */
		for (int c = 0; c < t->nr_cols; c++) {
			char cut[CELL_MAX];
			const char *cell = cell_at(t, r, c);
			/* a name too long loses its middle (as hotspot names do) */
			if (untrusted_width(cell) > t->width[c])
				cell = cells_elide(cell, t->width[c], cut, sizeof(cut));
			int pad = t->width[c] - untrusted_width(cell);
			if (pad < 0)
				pad = 0;
			if (t->left[c])
				n += sprintf(line + n, "%s%s%*s", c ? "  " : "", cell, pad, "");
			else
				n += sprintf(line + n, "%s%*s%s", c ? "  " : "", pad, "", cell);
		}
		while (n > 0 && line[n - 1] == ' ')
			n--;
		fprintf(out, "%.*s\n", n, line);
	}
	free(line);
	free(t->cell);
	t->cell = NULL;
}

void snapshot_wrap(FILE *out, const char *text, int indent, int maxw)
{
	const char *p = text;
	int col = 0;

	if (!maxw) {
		fprintf(out, "%s\n", text);
		return;
	}
	while (*p) {
		const char *sp = p;
		while (*sp == ' ')
			sp++;
		const char *end = sp;
		while (*end && *end != ' ')
			end++;
		char word[4096];
		snprintf(word, sizeof(word), "%.*s", (int)(end - sp), sp);
		int ww = untrusted_width(word), gap = (int)(sp - p);
		if (col > indent && col + gap + ww > maxw) {
			fprintf(out, "\n%*s", indent, "");
			col = indent;
			gap = 0;
		}
		fprintf(out, "%*s%s", gap, "", word);
		col += gap + ww;
		p = end;
	}
	fputc('\n', out);
}

/* Column title of event e: its name (brief: the short one, when it has
 * one), with the unit when it has one. */
static void event_title(const struct model_event *e, bool brief, char *buf, size_t len)
{
	char tmp[sizeof(e->name) + sizeof(e->unit) + 2];
	const char *name = brief && cells_brief_name(e->name) ? cells_brief_name(e->name) : e->name;

	snprintf(tmp, sizeof(tmp), e->unit[0] ? "%s(%s)" : "%s", name, e->unit);
	untrusted_text(buf, len, tmp);
}

/* The counter columns a table shows: events, then metrics. */
static int counter_cols(const struct text *x)
{
	int n = 0;

	for (int i = 0; i < x->m->nr_events; i++)
		n += !x->hide[i];
	for (int k = 0; k < x->m->nr_metrics; k++)
		n += !x->hide_metric[k];
	return n;
}

static void counter_cells(struct table *t, int row, int col, const struct text *x,
                          const struct model_row *r)
{
	const struct model *m = x->m;

	for (int i = 0; i < m->nr_events; i++)
		if (!x->hide[i])
			snapshot_cell(&m->events[i], &r->cells[i], cell_at(t, row, col++),
			              CELL_MAX);
	for (int k = 0; k < m->nr_metrics; k++)
		if (!x->hide_metric[k])
			cells_metric(&m->metrics[k], r->metrics[k], cell_at(t, row, col++),
			             CELL_MAX);
}

static void counter_titles(struct table *t, int col, const struct text *x, bool brief)
{
	const struct model *m = x->m;

	for (int i = 0; i < m->nr_events; i++)
		if (!x->hide[i])
			event_title(&m->events[i], brief, cell_at(t, 0, col++), CELL_MAX);
	for (int k = 0; k < m->nr_metrics; k++) {
		char tmp[CELL_MAX * 2];

		if (x->hide_metric[k])
			continue;
		snprintf(tmp, sizeof(tmp), "%s%s",
		         m->metrics[k].title[0] ? m->metrics[k].title : m->metrics[k].name,
		         m->metrics[k].unit);
		untrusted_text(cell_at(t, 0, col++), CELL_MAX, tmp);
	}
}

/*
 * Print table t, whose counter titles start at column col: a narrow
 * snapshot whose line would be wider than its columns names the events by
 * their short names, and says once (section slot) what they stand for.
 */
static void counters_table(FILE *out, struct text *x, struct table *t, int col, int slot);

/* A 64-bit FNV-1a hash of a section's text. */
static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/*
 * A static section: what fn writes, printed when the reader was not told
 * it last (narrow), or always (wide). Its text is kept as a hash in slot.
 */
static void section(FILE *out, const struct text *x, int slot,
                    void (*fn)(FILE *out, const struct text *x))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!x->maxw) {
		fn(out, x);
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return;
	fn(f, x);
	if (fclose(f) == 0) {
		uint64_t h = hash(buf, len);
		if (!x->st->started || x->st->seen[slot] != h)
			fwrite(buf, 1, len, out);
		x->st->seen[slot] = h;
	}
	free(buf);
}

/* A line of plain text and untrusted fields, made safe, wrapped. */
static void line(FILE *out, const struct text *x, int indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void line(FILE *out, const struct text *x, int indent, const char *fmt, ...)
{
	char raw[4096], safe[4 * sizeof(raw)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	untrusted_text(safe, sizeof(safe), raw);
	snapshot_wrap(out, safe, indent, x->maxw);
}

static void text_header(FILE *out, const struct text *x)
{
	const struct model *m = x->m;

	line(out, x, 2, "host %s  kernel %s  mode %s (%s)  preset %s  paranoid %d (%s)", m->host,
	     m->kernel, snapshot_mode_name(m->mode), m->target, m->preset, m->paranoid,
	     m->privilege);
	for (int i = 0; i < m->nr_notes; i++)
		line(out, x, 2, "note: %s", m->notes[i]);
	fputc('\n', out);
}

/* The last column of EVENTS: the encoding, or why the event does not count. */
static const char *event_why(const struct model_event *e)
{
	return e->why[0] ? e->why : e->encoding;
}

static void text_events(FILE *out, const struct text *x)
{
	const struct model *m = x->m;
	int wn = (int)strlen("EVENT"), ws = (int)strlen("not supported"), same = 0;
	char name[CELL_MAX];

	for (int i = 0; i < m->nr_events; i++)
		if (untrusted_width(untrusted_text(name, sizeof(name), m->events[i].name)) > wn)
			wn = untrusted_width(name);
	fprintf(out, "%-*s  %-*s  %8s  %s\n", wn, "EVENT", ws, "STATE", "COVERAGE",
	        "ENCODING, OR WHY IT DOES NOT COUNT");
	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		char cov[16] = "-", why[4 * sizeof(e->why)];
		int w;

		if (cells_state_counted(e->state))
			snprintf(cov, sizeof(cov), "%.1f%%", e->coverage * 100.0);
		untrusted_text(name, sizeof(name), e->name);
		w = fprintf(out, "%s%*s  %-*s  %8s", name, wn - untrusted_width(name), "", ws,
		            snapshot_state_name(e->state), cov);
		/* The last column holds whole sentences: never cut them; when
		 * they do not fit beside the rest, they follow it, wrapped. */
		untrusted_text(why, sizeof(why), event_why(e));
		if (!x->maxw || w + 2 + untrusted_width(why) <= x->maxw) {
			fprintf(out, "  %s\n", why);
			continue;
		}
		/* rows in a row with the same sentence: said once, after them */
		same++;
		fputc('\n', out);
		if (i + 1 < m->nr_events && !strcmp(event_why(&m->events[i + 1]), event_why(e)))
			continue;
		char line[sizeof(why) + 32];
		if (same > 1)
			snprintf(line, sizeof(line), "    the %d above: %s", same, why);
		else
			snprintf(line, sizeof(line), "    %s", why);
		snapshot_wrap(out, line, 4, x->maxw);
		same = 0;
	}
	fputc('\n', out);
}

static int shown_tasks(const struct model *m)
{
	return m->top_n > 0 && m->top_n < m->nr_tasks ? m->top_n : m->nr_tasks;
}

/* Whether event i counts on no row (n/s or err everywhere): a narrow
 * snapshot leaves its column out. The column sorted by always stays. */
static bool counts_nowhere(const struct model *m, int i)
{
	const enum counter_state st = m->events[i].state;

	if ((st != COUNTER_UNSUPPORTED && st != COUNTER_ERROR) || m->sort == i)
		return false;
	if (cells_state_counted(m->total.cells[i].state))
		return false;
	for (int r = 0; m->mode == MODEL_SYSTEM && r < m->nr_cpus; r++)
		if (cells_state_counted(m->cpus[r].cells[i].state))
			return false;
	for (int r = 0; m->tasks_counted && r < shown_tasks(m); r++)
		if (cells_state_counted(m->tasks[r].cells[i].state))
			return false;
	if (m->has_unattributed && cells_state_counted(m->unattributed.cells[i].state))
		return false;
	for (int r = 0; r < m->nr_cgroups; r++)
		if (cells_state_counted(m->cgroups[r].cells[i].state))
			return false;
	return true;
}

/* A metric available on no row, when some events are left out: a ratio
 * of them. */
static bool metric_nowhere(const struct model *m, int k)
{
	if (m->sort == MODEL_SORT_METRIC + k || !isnan(m->total.metrics[k]))
		return false;
	for (int r = 0; m->mode == MODEL_SYSTEM && r < m->nr_cpus; r++)
		if (!isnan(m->cpus[r].metrics[k]))
			return false;
	for (int r = 0; m->tasks_counted && r < shown_tasks(m); r++)
		if (!isnan(m->tasks[r].metrics[k]))
			return false;
	for (int r = 0; r < m->nr_cgroups; r++)
		if (!isnan(m->cgroups[r].metrics[k]))
			return false;
	return true;
}

static void choose_columns(struct text *x)
{
	const struct model *m = x->m;

	for (int i = 0; x->maxw && i < m->nr_events; i++)
		if ((x->hide[i] = counts_nowhere(m, i)))
			x->nr_hidden++;
	for (int k = 0; x->nr_hidden && k < m->nr_metrics; k++)
		x->hide_metric[k] = metric_nowhere(m, k);
}

/* The columns left out, once: by reason, the EVENTS table's words. */
static void text_hidden(FILE *out, const struct text *x)
{
	const struct model *m = x->m;
	char buf[4096] = "not shown (no row counts them; --wide shows them):";
	size_t n = strlen(buf);
	bool *done;

	if (!x->nr_hidden || !(done = calloc((size_t)m->nr_events, sizeof(*done))))
		return;
	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		const char *why = e->why[0] ? e->why : e->encoding;
		const char *sep = " ";

		if (!x->hide[i] || done[i])
			continue;
		for (int j = i; j < m->nr_events; j++) {
			const struct model_event *f = &m->events[j];
			if (!x->hide[j] || done[j] || f->state != e->state ||
			    strcmp(why, f->why[0] ? f->why : f->encoding))
				continue;
			done[j] = true;
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", sep, f->name);
			sep = ", ";
			if (n >= sizeof(buf))
				n = sizeof(buf) - 1;
		}
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, " (%s: %s);",
		                      snapshot_state_name(e->state), why);
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
	}
	for (int k = 0; k < m->nr_metrics; k++)
		if (x->hide_metric[k]) {
			n += (size_t)snprintf(
			    buf + n, sizeof(buf) - n, " %s (available on no row);",
			    m->metrics[k].title[0] ? m->metrics[k].title : m->metrics[k].name);
			if (n >= sizeof(buf))
				n = sizeof(buf) - 1;
		}
	if (buf[n - 1] == ';')
		buf[n - 1] = '\0';
	free(done);
	line(out, x, 2, "%s", buf);
	fputc('\n', out);
}

/* What the short names of the table just printed stand for. */
static void text_names(FILE *out, const struct text *x)
{
	char buf[2048] = "";
	size_t n = 0;

	for (int i = 0; x->brief && i < x->m->nr_events; i++) {
		const char *b = cells_brief_name(x->m->events[i].name);
		if (x->hide[i] || !b)
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s = %s", n ? ", " : "", b,
		                      x->m->events[i].name);
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
	}
	if (n)
		line(out, x, 2, "columns: %s", buf);
}

static void counters_table(FILE *out, struct text *x, struct table *t, int col, int slot)
{
	x->brief = false;
	if (x->maxw && snapshot_table_width(t) > x->maxw) {
		counter_titles(t, col, x, true);
		x->brief = true;
	}
	t->maxw = x->maxw;
	snapshot_table_print(out, t);
	if (x->maxw)
		section(out, x, slot, text_names);
	x->brief = false;
}

static void text_cpus(FILE *out, struct text *x)
{
	const struct model *m = x->m;
	int cols = 2 + counter_cols(x), rows = m->nr_cpus + 2;
	bool counters = m->mode == MODEL_SYSTEM;
	struct table t;

	if (!counters)
		cols = 2;
	if (snapshot_table_init(&t, cols, rows))
		return;
	util_strlcpy(cell_at(&t, 0, 0), "CPU", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, 1), "CPU%", CELL_MAX);
	if (counters)
		counter_titles(&t, 2, x, false);
	for (int i = 0; i < m->nr_cpus; i++) {
		const struct model_row *r = &m->cpus[i];
		snprintf(cell_at(&t, i + 1, 0), CELL_MAX, "%d", r->cpu);
		cells_pct(r->cpu_pct, cell_at(&t, i + 1, 1), CELL_MAX);
		if (counters)
			counter_cells(&t, i + 1, 2, x, r);
	}
	util_strlcpy(cell_at(&t, rows - 1, 0), "all", CELL_MAX);
	cells_pct(m->total.cpu_pct, cell_at(&t, rows - 1, 1), CELL_MAX);
	if (counters)
		counter_cells(&t, rows - 1, 2, x, &m->total);
	counters_table(out, x, &t, 2, SNAPSHOT_TEXT_CPU_NAMES);
}

/* A narrow STATE column holds this much; a longer state is a note under
 * the table, the cell its mark ("[1]"). */
#define STATE_COLUMNS 10

/* The STATE cell of task row r; a long state gets the mark of its note
 * (notes[] holds the distinct ones, *nr of them). */
static void state_cell(const struct text *x, const struct model_row *r, char *cell,
                       const char *notes[], int *nr)
{
	const char *s = r->note[0] ? r->note : (x->m->tasks_counted ? "counted" : "-");
	int k = 0;

	untrusted_text(cell, CELL_MAX, s);
	if (!x->maxw || untrusted_width(cell) <= STATE_COLUMNS)
		return;
	while (k < *nr && strcmp(notes[k], s))
		k++;
	if (k == *nr)
		notes[(*nr)++] = s;
	snprintf(cell, CELL_MAX, "[%d]", k + 1);
}

static void text_tasks(FILE *out, struct text *x)
{
	const struct model *m = x->m;
	int n = shown_tasks(m), fixed = 5, nr_notes = 0;
	int cols = fixed + 1 + (m->tasks_counted ? counter_cols(x) : 0) + m->show_cgroups;
	int rows = n + 1 + (m->tasks_counted ? 1 : 0) + m->has_unattributed;
	bool threads = n && m->tasks[0].kind == MODEL_ROW_THREAD;
	const char **notes = calloc((size_t)n + 1, sizeof(*notes));
	struct table t;

	if (m->tasks_counted && m->cpu_min >= 0)
		line(out, x, 2,
		     "TASKS: top %d of %d by %s (counters for tasks using %.1f%% CPU or more)", n,
		     m->tasks_total, m->sort_name, m->cpu_min);
	else if (m->tasks_counted)
		line(out, x, 2, "TASKS: %d of %d by %s", n, m->tasks_total, m->sort_name);
	else
		line(out, x, 2,
		     "TASKS: top %d of %d by %s (/proc figures; per-task counters are off: "
		     "--cpu-min -1)",
		     n, m->tasks_total, m->sort_name);
	if (!notes || snapshot_table_init(&t, cols, rows)) {
		free(notes);
		return;
	}
	t.left[1] = t.left[cols - 1] = t.left[cols - 1 - m->show_cgroups] = true;
	/* the names are what gives when a line is too long (their middle) */
	t.minw[1] = 8;
	t.first[1] = true;
	t.minw[cols - 1] = 8;
	if (m->show_cgroups) {
		util_strlcpy(cell_at(&t, 0, cols - 2), "CGROUP", CELL_MAX);
		t.minw[cols - 2] = 12;
		t.first[cols - 2] = true;
	}
	util_strlcpy(cell_at(&t, 0, 0), threads ? "TID" : "PID", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, 1), "USER", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, 2), "CPU%", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, 3), threads ? "PID" : "THR", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, 4), "STATE", CELL_MAX);
	util_strlcpy(cell_at(&t, 0, cols - 1), "COMMAND", CELL_MAX);
	if (m->tasks_counted)
		counter_titles(&t, fixed, x, false);
	for (int i = 0; i < n; i++) {
		const struct model_row *r = &m->tasks[i];
		snprintf(cell_at(&t, i + 1, 0), CELL_MAX, "%d", (int)(threads ? r->tid : r->pid));
		untrusted_text(cell_at(&t, i + 1, 1), CELL_MAX, r->user);
		cells_pct(r->cpu_pct, cell_at(&t, i + 1, 2), CELL_MAX);
		snprintf(cell_at(&t, i + 1, 3), CELL_MAX, "%d",
		         threads ? (int)r->pid : r->nr_threads);
		state_cell(x, r, cell_at(&t, i + 1, 4), notes, &nr_notes);
		untrusted_text(cell_at(&t, i + 1, cols - 1), CELL_MAX, r->comm);
		if (m->show_cgroups)
			untrusted_text(cell_at(&t, i + 1, cols - 2), CELL_MAX, r->cgroup);
		if (m->tasks_counted)
			counter_cells(&t, i + 1, fixed, x, r);
	}
	if (m->has_unattributed) {
		/* after the rows shown: with -N it holds the rows cut off too */
		util_strlcpy(cell_at(&t, rows - 2, 0), "-", CELL_MAX);
		cells_pct(NAN, cell_at(&t, rows - 2, 2), CELL_MAX);
		util_strlcpy(cell_at(&t, rows - 2, cols - 1), m->unattributed.comm, CELL_MAX);
		counter_cells(&t, rows - 2, fixed, x, &m->unattributed);
	}
	if (m->tasks_counted) {
		util_strlcpy(cell_at(&t, rows - 1, 0), "total", CELL_MAX);
		cells_pct(NAN, cell_at(&t, rows - 1, 2), CELL_MAX);
		counter_cells(&t, rows - 1, fixed, x, &m->total);
	}
	counters_table(out, x, &t, fixed, SNAPSHOT_TEXT_TASK_NAMES);
	for (int k = 0; k < nr_notes; k++)
		line(out, x, 6, "  [%d] %s", k + 1, notes[k]);
	free(notes);
}

static void health_cells(struct table *t, int row, const struct model_health_figures *f,
                         bool throttled_now)
{
	snprintf(cell_at(t, row, 1), CELL_MAX, "%" PRIu64, f->samples);
	snprintf(cell_at(t, row, 2), CELL_MAX, "%" PRIu64, f->lost_records);
	snprintf(cell_at(t, row, 3), CELL_MAX, "%" PRIu64, f->lost_samples);
	snprintf(cell_at(t, row, 4), CELL_MAX, "%" PRIu64, f->lost_samples_hw);
	snprintf(cell_at(t, row, 5), CELL_MAX, "%" PRIu64, f->throttles);
	util_strlcpy(cell_at(t, row, 6), throttled_now ? "yes" : "no", CELL_MAX);
	snprintf(cell_at(t, row, 7), CELL_MAX, "%" PRIu64, f->corrupt);
}

/* Why the event sampled stands in for another: said once. */
static void text_sampling_why(FILE *out, const struct text *x)
{
	if (x->m->sampling.why[0])
		line(out, x, 2, "  %s", x->m->sampling.why);
}

static void text_max_rate(FILE *out, const struct text *x)
{
	const struct model_sampling *s = &x->m->sampling;

	if (s->max_rate_lowered)
		line(out, x, 2,
		     "perf_event_max_sample_rate: %ld/s, LOWERED by the kernel from %ld/s "
		     "during the run (sampling interrupts took too long)",
		     s->max_rate, s->max_rate_start);
	else
		line(out, x, 2, "perf_event_max_sample_rate: %ld/s", s->max_rate);
}

static void text_health(FILE *out, const struct text *x)
{
	const struct model *m = x->m;
	const struct model_sampling *s = &m->sampling;
	const struct model_health_figures *tot = &s->total;
	char rate[192];
	struct table t;

	if (!s->enabled)
		return;
	/* The final snapshot is the run's totals: its health is too. */
	const bool run = m->final;
	snapshot_rate_text(s, rate, sizeof(rate));
	line(out, x, 2, "SAMPLING HEALTH (%s): %s", run ? "the whole run" : "this interval", rate);
	section(out, x, SNAPSHOT_TEXT_SAMPLING, text_sampling_why);
	if (snapshot_table_init(&t, 8, s->nr_rings + 2))
		return;
	t.left[0] = true;
	static const char *const titles[] = {"RING",    "SAMPLES",   "LOST",      "LOST-SAMPLES",
	                                     "HW-LOST", "THROTTLES", "THROTTLED", "CORRUPT"};
	for (int c = 0; c < 8; c++)
		util_strlcpy(cell_at(&t, 0, c), titles[c], CELL_MAX);
	for (int i = 0; i < s->nr_rings; i++) {
		const struct model_ring *r = &s->rings[i];
		if (r->cpu >= 0)
			snprintf(cell_at(&t, i + 1, 0), CELL_MAX, "cpu%d", r->cpu);
		else
			snprintf(cell_at(&t, i + 1, 0), CELL_MAX, "pid %d", (int)r->pid);
		health_cells(&t, i + 1, run ? &r->total : &r->interval, r->throttled_now);
	}
	util_strlcpy(cell_at(&t, s->nr_rings + 1, 0), "all", CELL_MAX);
	health_cells(&t, s->nr_rings + 1, run ? tot : &s->interval, s->throttled_now > 0);
	snapshot_table_print(out, &t);
	if (!run)
		line(out, x, 2,
		     "since the start: %" PRIu64 " samples, %" PRIu64 " LOST records (%" PRIu64
		     " samples), %" PRIu64 " samples lost before the ring, %" PRIu64
		     " throttles, %" PRIu64 " corrupt records",
		     tot->samples, tot->lost_records, tot->lost_samples, tot->lost_samples_hw,
		     tot->throttles, tot->corrupt);
	section(out, x, SNAPSHOT_TEXT_MAX_RATE, text_max_rate);
}

static void text_cgroups(FILE *out, struct text *x)
{
	const struct model *m = x->m;
	int cols = 1 + counter_cols(x);
	struct table t;

	fprintf(out, "CGROUPS: %d, counted on every CPU\n", m->nr_cgroups);
	if (!m->nr_cgroups || snapshot_table_init(&t, cols, m->nr_cgroups + 1))
		return;
	t.left[0] = true;
	t.minw[0] = 16;
	util_strlcpy(cell_at(&t, 0, 0), "CGROUP", CELL_MAX);
	counter_titles(&t, 1, x, false);
	for (int i = 0; i < m->nr_cgroups; i++) {
		untrusted_text(cell_at(&t, i + 1, 0), CELL_MAX, m->cgroups[i].cgroup);
		counter_cells(&t, i + 1, 1, x, &m->cgroups[i]);
	}
	counters_table(out, x, &t, 1, SNAPSHOT_TEXT_CGROUP_NAMES);
}

/* What the marks in the cells mean. */
static void text_key(FILE *out, const struct text *x)
{
	fputc('\n', out);
	line(out, x, 0,
	     "n/s not supported (see EVENTS), n/c not counted (did not run in the interval), "
	     "(N%%) multiplexed: scaled from N%% of the interval, - not available");
}

void snapshot_write_text(FILE *out, const struct model *m, struct snapshot_text *st)
{
	struct snapshot_text first = {0};
	struct text x = {.m = m, .st = st ? st : &first};
	char when[32];

	x.maxw = x.st->wide ? 0 : SNAPSHOT_COLUMNS;
	x.hide = calloc((size_t)m->nr_events + 1, sizeof(*x.hide));
	if (!x.hide)
		return;
	choose_columns(&x);
	snapshot_iso_time(m->wall_ns, when, sizeof(when));
	line(out, &x, 2, "pfmtop %s  %s  %s %" PRIu64 "  %s %.2f s%s", PFMTOP_VERSION, when,
	     m->final ? "final" : "snapshot", m->seq, m->final ? "totals over" : "interval",
	     m->interval_s, m->partial ? " (the last, cut short)" : "");
	section(out, &x, SNAPSHOT_TEXT_HEADER, text_header);
	section(out, &x, SNAPSHOT_TEXT_EVENTS, text_events);
	section(out, &x, SNAPSHOT_TEXT_HIDDEN, text_hidden);
	text_cpus(out, &x);
	fputc('\n', out);
	text_tasks(out, &x);
	if (m->show_cgroups) {
		fputc('\n', out);
		text_cgroups(out, &x);
	}
	if (m->sampling.enabled) {
		fputc('\n', out);
		snapshot_text_hotspots(out, m, x.maxw);
		fputc('\n', out);
		text_health(out, &x);
	}
	section(out, &x, SNAPSHOT_TEXT_KEY, text_key);
	fputc('\n', out);
	x.st->started = true;
	free(x.hide);
}

char *snapshot_render_run(const struct model *m, enum snapshot_format fmt, struct snapshot_text *st,
                          bool first, size_t *len)
{
	return fmt == SNAPSHOT_TEXT ? snapshot_render_text(m, st, len)
	                            : snapshot_render(m, fmt, first, len);
}

char *snapshot_render_text(const struct model *m, struct snapshot_text *st, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	snapshot_write_text(f, m, st);
	if (ferror(f) | fclose(f)) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	return buf;
}
