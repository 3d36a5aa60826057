/* openmetrics: the model as Prometheus metrics (OpenMetrics 1.0 or the 0.0.4 text format). */
#include "openmetrics.h"

#include "untrusted.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define OM_MAX_NAMES    256 /* events kept by name over the run */
#define OM_TASK_IDLE    60  /* updates a task may go unseen before its sums go */
#define OM_FORGET_EVERY 8   /* updates between two passes that forget tasks */
#define OM_MAX_TASKS    65536
#define OM_MAX_CGROUPS  4096

/* One series' running sums: an index into om_state.names each. */
struct om_sums {
	int cpu;
	pid_t pid, tid;
	uint64_t start;
	char name[128]; /* cgroup path, or the task's comm */
	double created_s;
	uint64_t seen; /* om_state.updates when last in a model */
	bool exited;   /* a task that exited: its series ends */
	int nv;
	double *v;
};

const char *om_content_type(enum om_dialect d)
{
	return d == OM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
	                           : "text/plain; version=0.0.4; charset=utf-8";
}

/* ---- the task index: open addressing over st->tasks, rebuilt when they move ---- */

static uint32_t task_hash(pid_t pid, pid_t tid, uint64_t start)
{
	uint64_t h = (uint64_t)(uint32_t)pid * 0x9e3779b97f4a7c15ull;

	h ^= (uint64_t)(uint32_t)tid * 0xc2b2ae3d27d4eb4full;
	h ^= start * 0x165667b19e3779f9ull;
	return (uint32_t)(h >> 29);
}

static void index_put(struct om_state *st, int i)
{
	const struct om_sums *t = &st->tasks[i];
	uint32_t k = task_hash(t->pid, t->tid, t->start) & (uint32_t)(st->cap_index - 1);

	while (st->index[k] >= 0)
		k = (k + 1) & (uint32_t)(st->cap_index - 1);
	st->index[k] = i;
}

/* Room for one more task at load 1/2 or less, every task in; 0 or -ENOMEM. */
static int index_rebuild(struct om_state *st, int want)
{
	int cap = st->cap_index ? st->cap_index : 64;

	while (cap < 2 * want)
		cap *= 2;
	if (cap != st->cap_index) {
		int *p = realloc(st->index, (size_t)cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		st->index = p;
		st->cap_index = cap;
	}
	memset(st->index, 0xff, (size_t)cap * sizeof(*st->index));
	for (int i = 0; i < st->nr_tasks; i++)
		index_put(st, i);
	return 0;
}

static int task_find(const struct om_state *st, const struct model_row *r)
{
	if (!st->cap_index)
		return -1;
	for (uint32_t k = task_hash(r->pid, r->tid, r->start) & (uint32_t)(st->cap_index - 1);
	     st->index[k] >= 0; k = (k + 1) & (uint32_t)(st->cap_index - 1)) {
		const struct om_sums *t = &st->tasks[st->index[k]];

		if (t->pid == r->pid && t->tid == r->tid && t->start == r->start)
			return st->index[k];
	}
	return -1;
}

void om_init(struct om_state *st)
{
	memset(st, 0, sizeof(*st));
}

static void sums_free(struct om_sums *s, int n)
{
	for (int i = 0; i < n; i++)
		free(s[i].v);
	free(s);
}

void om_free(struct om_state *st)
{
	sums_free(st->cpus, st->nr_cpus);
	sums_free(st->cgroups, st->nr_cgroups);
	sums_free(st->tasks, st->nr_tasks);
	sums_free(st->total, st->total ? 1 : 0);
	free(st->names);
	free(st->index);
	memset(st, 0, sizeof(*st));
}

/* ---- running sums ---- */

static int name_index(struct om_state *st, const char *name)
{
	for (int i = 0; i < st->nr_names; i++)
		if (!strcmp(st->names[i], name))
			return i;
	if (st->nr_names == OM_MAX_NAMES)
		return -1;
	void *p = realloc(st->names, (size_t)(st->nr_names + 1) * sizeof(*st->names));
	if (!p)
		return -1;
	st->names = p;
	util_strlcpy(st->names[st->nr_names], name, sizeof(st->names[0]));
	return st->nr_names++;
}

static int sums_add(struct om_sums *s, int k, double v)
{
	if (k >= s->nv) {
		double *p = realloc(s->v, (size_t)(k + 1) * sizeof(*p));
		if (!p)
			return -ENOMEM;
		for (int i = s->nv; i <= k; i++)
			p[i] = 0;
		s->v = p;
		s->nv = k + 1;
	}
	s->v[k] += v;
	return 0;
}

static double sums_get(const struct om_sums *s, int k)
{
	return k >= 0 && k < s->nv ? s->v[k] : 0;
}

/* A new series in *arr (nr, cap), or NULL. */
static struct om_sums *sums_new(struct om_sums **arr, int *nr, int *cap, int max)
{
	if (*nr >= max || util_grow(arr, *nr, cap, sizeof(**arr), 16))
		return NULL;
	struct om_sums *s = &(*arr)[(*nr)++];
	memset(s, 0, sizeof(*s));
	return s;
}

static bool same_series(const struct om_sums *s, const struct model_row *r)
{
	switch (r->kind) {
	case MODEL_ROW_CPU:
		return s->cpu == r->cpu;
	case MODEL_ROW_CGROUP:
		return !strcmp(s->name, r->cgroup);
	case MODEL_ROW_PROCESS:
	case MODEL_ROW_THREAD:
		return s->pid == r->pid && s->tid == r->tid && s->start == r->start;
	case MODEL_ROW_TOTAL:
		return true;
	}
	return false;
}

/* The series of row r, made when new. */
static struct om_sums *series_of(struct om_state *st, const struct model_row *r, double now_s)
{
	struct om_sums **arr;
	int *nr, *cap, max;

	switch (r->kind) {
	case MODEL_ROW_CPU:
		arr = &st->cpus, nr = &st->nr_cpus, cap = &st->cap_cpus, max = 1 << 16;
		break;
	case MODEL_ROW_CGROUP:
		arr = &st->cgroups, nr = &st->nr_cgroups, cap = &st->cap_cgroups;
		max = OM_MAX_CGROUPS;
		break;
	case MODEL_ROW_PROCESS:
	case MODEL_ROW_THREAD: {
		int i = task_find(st, r);

		if (i >= 0)
			return &st->tasks[i];
		if (2 * (st->nr_tasks + 1) > st->cap_index && index_rebuild(st, st->nr_tasks + 1))
			return NULL;
		arr = &st->tasks, nr = &st->nr_tasks, cap = &st->cap_tasks, max = OM_MAX_TASKS;
		break;
	}
	default:
		if (!st->total) {
			st->total = calloc(1, sizeof(*st->total));
			if (st->total)
				st->total->created_s = now_s;
		}
		return st->total;
	}
	for (int i = *nr - 1; i >= 0 && arr != &st->tasks; i--)
		if (same_series(&(*arr)[i], r))
			return &(*arr)[i];
	struct om_sums *s = sums_new(arr, nr, cap, max);
	if (!s)
		return NULL;
	s->cpu = r->cpu;
	s->pid = r->pid;
	s->tid = r->tid;
	s->start = r->start;
	util_strlcpy(s->name, r->kind == MODEL_ROW_CGROUP ? r->cgroup : r->comm, sizeof(s->name));
	s->created_s = now_s;
	if (arr == &st->tasks)
		index_put(st, *nr - 1);
	return s;
}

static bool counted(const struct counter_value *v)
{
	return (v->state == COUNTER_OK || v->state == COUNTER_MULTIPLEXED) && isfinite(v->value) &&
	       v->value >= 0;
}

static int add_cells(struct om_sums *s, const struct model *m, const int *idx,
                     const struct model_row *r)
{
	int err = 0;

	for (int i = 0; i < m->nr_events && !err; i++)
		if (idx[i] >= 0 && counted(&r->cells[i]))
			err = sums_add(s, idx[i], r->cells[i].value);
	return err;
}

static int add_row(struct om_state *st, const struct model *m, const int *idx,
                   const struct model_row *r, double start_s)
{
	struct om_sums *s;
	int err = 0;

	const bool task = r->kind == MODEL_ROW_PROCESS || r->kind == MODEL_ROW_THREAD;

	if ((!r->counted && r->kind != MODEL_ROW_CPU && r->kind != MODEL_ROW_TOTAL) ||
	    (task && !st->keep_tasks))
		return 0;
	s = series_of(st, r, start_s);
	if (!s)
		return -ENOMEM;
	s->seen = st->updates;
	if (task) {
		util_strlcpy(s->name, r->comm, sizeof(s->name)); /* exec renames */
		s->exited = r->exited;
	}
	if (r->kind == MODEL_ROW_TOTAL && m->mode == MODEL_SYSTEM) {
		/* the machine: what the CPU series add, so that they sum to it */
		for (int c = 0; c < m->nr_cpus; c++)
			err = err ? err : add_cells(s, m, idx, &m->cpus[c]);
		return err;
	}
	return add_cells(s, m, idx, r);
}

/* Forget the tasks that exited (once an update has gone by without them)
 * and those not seen for OM_TASK_IDLE updates (idle below the counting
 * threshold): a busy machine starts thousands of processes. The array
 * keeps its order. */
static void forget_idle_tasks(struct om_state *st)
{
	int k = 0;

	for (int i = 0; i < st->nr_tasks; i++) {
		const struct om_sums *t = &st->tasks[i];

		if ((t->exited && t->seen < st->updates) || st->updates - t->seen > OM_TASK_IDLE) {
			free(st->tasks[i].v);
			continue;
		}
		st->tasks[k++] = st->tasks[i];
	}
	st->nr_tasks = k;
	index_rebuild(st, k); /* cannot fail: the capacity only shrinks in use */
}

int om_update(struct om_state *st, const struct model *m)
{
	const double end_s = (double)m->wall_ns / 1e9;
	const double start_s = end_s - m->interval_s;
	int idx[64], err = 0;

	if (m->final)
		return 0;
	st->updates++;
	if (!st->created_s)
		st->created_s = start_s;
	for (int i = 0; i < m->nr_events && i < (int)ARRAY_SIZE(idx); i++)
		idx[i] = m->events[i].opened ? name_index(st, m->events[i].name) : -1;
	for (int i = 0; i < m->nr_cpus; i++)
		err = add_row(st, m, idx, &m->cpus[i], start_s) ? -ENOMEM : err;
	for (int i = 0; i < m->nr_cgroups; i++)
		err = add_row(st, m, idx, &m->cgroups[i], start_s) ? -ENOMEM : err;
	for (int i = 0; i < m->nr_tasks; i++)
		err = add_row(st, m, idx, &m->tasks[i], start_s) ? -ENOMEM : err;
	err = add_row(st, m, idx, &m->total, start_s) ? -ENOMEM : err;
	if (m->sampling.enabled) {
		const struct model_health_figures *h = &m->sampling.interval;

		st->sampling.samples += h->samples;
		st->sampling.lost_samples += h->lost_samples + h->lost_samples_hw;
		st->sampling.lost_records += h->lost_records;
		st->sampling.throttles += h->throttles;
	}
	if (st->updates % OM_FORGET_EVERY == 0)
		forget_idle_tasks(st);
	return err;
}

/* ---- names and text ---- */

/* s as a metric name part: [a-z0-9_], runs of anything else one '_'. */
static void name_part(char *out, size_t len, const char *s)
{
	size_t n = 0;
	bool gap = false;

	for (; *s && n + 2 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (gap && n)
				out[n++] = '_';
			out[n++] = (char)c;
			gap = false;
		} else if (c >= 'A' && c <= 'Z') {
			if (gap && n)
				out[n++] = '_';
			out[n++] = (char)(c - 'A' + 'a');
			gap = false;
		} else {
			gap = true;
		}
	}
	out[n] = '\0';
}

/* Names of our own families: an event that would take one gets "_event". */
static const char *const own_families[] = {
    "build_info",
    "samples",
    "lost_samples",
    "lost_records",
    "throttles",
    "tasks",
    "interval_seconds",
    "last_refresh_timestamp_seconds",
    "event_state",
    "event_coverage_ratio",
    "task_cpu_ratio",
    "sampling_throttled_rings",
    "max_sample_rate_hertz",
    "http_requests",
    "cpu_busy_ratio",
};

static bool is_clock(const struct model_event *e)
{
	return !strcmp(e->unit, "ms");
}

static const char *const scope_words[OM_NR_SCOPES] = {"", "cpu_", "cgroup_", "task_"};

/* "pfmtop_" SCOPE EVENT [_UNIT] into buf: "_event" after one of our own. */
static const char *base_family(const struct model_event *e, const char *scope, char *buf,
                               size_t len)
{
	char ev[128], unit[24];

	name_part(ev, sizeof(ev), e->name);
	name_part(unit, sizeof(unit), is_clock(e) ? "seconds" : e->unit);
	snprintf(buf, len, "pfmtop_%s%s%s%s", scope, ev[0] ? ev : "event", unit[0] ? "_" : "",
	         unit);
	for (size_t i = 0; i < ARRAY_SIZE(own_families); i++)
		if (!strcmp(buf + strlen("pfmtop_"), own_families[i])) {
			size_t n = strlen(buf);
			snprintf(buf + n, len - n, "_event");
			break;
		}
	return buf;
}

const char *om_event_family(const struct model_event *e, char *buf, size_t len)
{
	return base_family(e, "", buf, len);
}

typedef char om_names[OM_NR_SCOPES][160];

/* The family names of each event in each scope (malloc'd; NULL when out of
 * memory). The whole-run family of an event named like a scope
 * ("cpu/cycles/": pfmtop_cpu_cycles) that another event's scoped family
 * takes (cycles per CPU) gets "_event": a family never mixes scopes. */
static om_names *families(const struct model *m)
{
	om_names *n = calloc((size_t)(m->nr_events ? m->nr_events : 1), sizeof(*n));

	if (!n)
		return NULL;
	for (int i = 0; i < m->nr_events; i++)
		for (int sc = 0; sc < OM_NR_SCOPES; sc++)
			base_family(&m->events[i], scope_words[sc], n[i][sc], sizeof(n[i][sc]));
	for (int i = 0; i < m->nr_events; i++) {
		char *all = n[i][OM_SCOPE_ALL];
		bool clash = false;

		for (int k = 0; k < m->nr_events && !clash; k++)
			for (int sc = OM_SCOPE_CPU; sc < OM_NR_SCOPES && !clash; sc++)
				clash = m->events[k].opened && !strcmp(n[k][sc], all);
		if (clash)
			snprintf(all + strlen(all), sizeof(n[i][0]) - strlen(all), "_event");
	}
	return n;
}

/* A label value: untrusted text made printable UTF-8, then '\', '"' and
 * newlines escaped as the formats want. */
static void label_value(FILE *f, const char *s)
{
	char clean[512];

	untrusted_text(clean, sizeof(clean), s);
	for (const char *p = clean; *p; p++) {
		if (*p == '\\' || *p == '"')
			fputc('\\', f);
		fputc(*p, f);
	}
}

static void number(FILE *f, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.15g",
		        v); /* what a double holds for sure, without 1.2500000000000002 */
}

/*
 * A family's header. OpenMetrics names a counter family without "_total"
 * and its samples with it; the 0.0.4 format names both with it.
 */
static void family(FILE *f, enum om_dialect d, const char *name, bool counter, const char *help)
{
	const char *suffix = counter && d == OM_PROMETHEUS ? "_total" : "";

	fprintf(f, "# HELP %s%s ", name, suffix);
	for (const char *p = help; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else
			fputc(*p, f);
	}
	fprintf(f, "\n# TYPE %s%s %s\n", name, suffix, counter ? "counter" : "gauge");
	if (d == OM_OPENMETRICS && strstr(name, "_seconds"))
		fprintf(f, "# UNIT %s seconds\n", name);
}

/* A task's labels: pid="N"[,tid="N"],comm="..." (never its command line). */
static void task_labels(FILE *f, const struct om_config *cfg, enum model_row_kind kind, pid_t pid,
                        pid_t tid, const char *comm)
{
	const char *cmdline = cfg->cmdline ? cfg->cmdline(pid, cfg->cmdline_arg) : NULL;

	fprintf(f, "pid=\"%d\"", (int)pid);
	if (kind == MODEL_ROW_THREAD)
		fprintf(f, ",tid=\"%d\"", (int)tid);
	fputs(",comm=\"", f);
	label_value(f, comm);
	fputc('"', f);
	if (cmdline) {
		fputs(",cmdline=\"", f);
		label_value(f, cmdline);
		fputc('"', f);
	}
}

/* Labels of a row's series: {event="...",cpu="N"} and so on, no braces. */
static void row_labels(FILE *f, const struct om_config *cfg, const struct om_sums *s,
                       const struct model_row *kind, const char *event)
{
	fputs("event=\"", f);
	label_value(f, event);
	fputc('"', f);
	switch (kind->kind) {
	case MODEL_ROW_CPU:
		fprintf(f, ",cpu=\"%d\"", s->cpu);
		break;
	case MODEL_ROW_CGROUP:
		fputs(",cgroup=\"", f);
		label_value(f, s->name);
		fputc('"', f);
		break;
	case MODEL_ROW_PROCESS:
	case MODEL_ROW_THREAD:
		fputc(',', f);
		task_labels(f, cfg, kind->kind, s->pid, s->tid, s->name);
		break;
	case MODEL_ROW_TOTAL:
		break;
	}
}

static void counter_sample(FILE *f, const struct om_config *cfg, enum om_dialect d,
                           const char *name, const struct om_sums *s, const struct model_row *kind,
                           const char *event, double v)
{
	fprintf(f, "%s_total{", name);
	row_labels(f, cfg, s, kind, event);
	fputs("} ", f);
	number(f, v);
	fputc('\n', f);
	if (d == OM_OPENMETRICS) {
		fprintf(f, "%s_created{", name);
		row_labels(f, cfg, s, kind, event);
		fprintf(f, "} %.3f\n", s->created_s);
	}
}

/* ---- the families ---- */

static const struct om_sums *find_series(const struct om_state *st, const struct model_row *r)
{
	const struct om_sums *arr;
	int nr;

	switch (r->kind) {
	case MODEL_ROW_CPU:
		arr = st->cpus, nr = st->nr_cpus;
		break;
	case MODEL_ROW_CGROUP:
		arr = st->cgroups, nr = st->nr_cgroups;
		break;
	case MODEL_ROW_PROCESS:
	case MODEL_ROW_THREAD: {
		int i = task_find(st, r);
		return i >= 0 ? &st->tasks[i] : NULL;
	}
	default:
		return st->total;
	}
	for (int i = nr - 1; i >= 0; i--)
		if (same_series(&arr[i], r))
			return &arr[i];
	return NULL;
}

static int name_of(const struct om_state *st, const char *name)
{
	for (int i = 0; i < st->nr_names; i++)
		if (!strcmp(st->names[i], name))
			return i;
	return -1;
}

/* The task rows exported are the model's first cfg->tasks counted ones:
 * those before the returned index. */
static int task_cut(const struct model *m, int limit)
{
	int n = 0, i = 0;

	for (; i < m->nr_tasks && n < limit; i++)
		n += m->tasks[i].counted;
	return i;
}

/* The series of one scope of an event's family. */
static void scope_series(FILE *f, const struct om_state *st, const struct model *m,
                         const struct om_config *cfg, enum om_dialect d, enum om_scope sc,
                         const char *fam, const char *event, int ix, double scale)
{
	const struct model_row *rows = sc == OM_SCOPE_CPU ? m->cpus : m->cgroups;
	int nr = sc == OM_SCOPE_CPU ? m->nr_cpus : sc == OM_SCOPE_CGROUP ? m->nr_cgroups : 0;

	if (sc == OM_SCOPE_ALL && st->total)
		counter_sample(f, cfg, d, fam, st->total, &m->total, event,
		               sums_get(st->total, ix) * scale);
	if (sc == OM_SCOPE_TASK)
		rows = m->tasks, nr = task_cut(m, cfg->tasks);
	for (int r = 0; r < nr; r++) {
		const struct om_sums *s;

		if ((sc == OM_SCOPE_TASK && !rows[r].counted) || !(s = find_series(st, &rows[r])))
			continue;
		counter_sample(f, cfg, d, fam, s, &rows[r], event, sums_get(s, ix) * scale);
	}
}

/* Whether scope sc has series in this model. */
static bool scope_shown(const struct om_state *st, const struct model *m,
                        const struct om_config *cfg, enum om_scope sc)
{
	switch (sc) {
	case OM_SCOPE_ALL:
		return st->total != NULL;
	case OM_SCOPE_CPU:
		return m->mode == MODEL_SYSTEM && m->nr_cpus > 0;
	case OM_SCOPE_CGROUP:
		return m->nr_cgroups > 0;
	case OM_SCOPE_TASK:
		return cfg->tasks > 0 && st->keep_tasks;
	default:
		break;
	}
	return false;
}

static void scope_help(char *help, size_t len, const struct model *m, const struct model_event *e,
                       enum om_scope sc, const char *all)
{
	const char *what = "";
	char buf[200];

	switch (sc) {
	case OM_SCOPE_ALL:
		what = m->mode == MODEL_SYSTEM ? "on the whole machine (the sum of the CPU series)"
		                               : "by the targets (-p or the command), on any CPU";
		break;
	case OM_SCOPE_CPU:
		snprintf(buf, sizeof(buf), "on each CPU (they sum to %s_total)", all);
		what = buf;
		break;
	case OM_SCOPE_CGROUP:
		what = "in each --cgroup (cgroups given may nest)";
		break;
	case OM_SCOPE_TASK:
		what = "by each of the --export-tasks busiest tasks (not all of them)";
		break;
	default:
		break;
	}
	snprintf(help, len, "%s counted %s since pfmtop started counting the series%s", e->name,
	         what, is_clock(e) ? ", in seconds" : "");
}

/* The counter family fam of scope sc, at event i: the series of event i
 * and of the later events with the same family name in that scope. */
static void event_family(FILE *f, const struct om_state *st, const struct model *m,
                         const struct om_config *cfg, enum om_dialect d, int i,
                         const om_names *fams, enum om_scope sc)
{
	const char *fam = fams[i][sc];
	char help[400];

	scope_help(help, sizeof(help), m, &m->events[i], sc, fams[i][OM_SCOPE_ALL]);
	family(f, d, fam, true, help);
	for (int k = i; k < m->nr_events; k++) {
		const struct model_event *e = &m->events[k];
		int ix;

		if (!e->opened || strcmp(fams[k][sc], fam))
			continue;
		ix = name_of(st, e->name);
		if (ix < 0)
			continue;
		const double scale = is_clock(e) ? (e->scale > 0 ? e->scale : 1.0) / 1e3
		                                 : (e->scale > 0 ? e->scale : 1.0);
		scope_series(f, st, m, cfg, d, sc, fam, e->name, ix, scale);
	}
}

static const char *state_word(enum counter_state s)
{
	static const char *const w[] = {"ok", "multiplexed", "not_counted", "unsupported", "error"};

	return (unsigned)s < ARRAY_SIZE(w) ? w[s] : "error";
}

static void event_gauges(FILE *f, const struct model *m, enum om_dialect d)
{
	family(f, d, "pfmtop_event_state", false,
	       "1 for the state of each event over its targets in the last interval, else 0");
	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];
		const enum counter_state now = e->opened ? e->state : COUNTER_UNSUPPORTED;

		for (int s = COUNTER_OK; s <= COUNTER_ERROR; s++) {
			fputs("pfmtop_event_state{event=\"", f);
			label_value(f, e->name);
			fprintf(f, "\",state=\"%s\"} %d\n", state_word((enum counter_state)s),
			        (enum counter_state)s == now);
		}
	}
	family(f, d, "pfmtop_event_coverage_ratio", false,
	       "Share of the last interval each event was counted (multiplexing), lowest over "
	       "its targets");
	for (int i = 0; i < m->nr_events; i++) {
		const struct model_event *e = &m->events[i];

		if (!e->opened)
			continue;
		fputs("pfmtop_event_coverage_ratio{event=\"", f);
		label_value(f, e->name);
		fputs("\"} ", f);
		number(f, e->coverage);
		fputc('\n', f);
	}
}

static void task_gauges(FILE *f, const struct model *m, const struct om_config *cfg,
                        enum om_dialect d)
{
	if (m->mode == MODEL_SYSTEM && m->nr_cpus) {
		family(f, d, "pfmtop_cpu_busy_ratio", false,
		       "Share of the last interval each CPU was not idle (/proc/stat)");
		for (int c = 0; c < m->nr_cpus; c++) {
			fprintf(f, "pfmtop_cpu_busy_ratio{cpu=\"%d\"} ", m->cpus[c].cpu);
			number(f, isnan(m->cpus[c].cpu_pct) ? NAN : m->cpus[c].cpu_pct / 100.0);
			fputc('\n', f);
		}
	}
	family(f, d, "pfmtop_tasks", false,
	       "Tasks (processes, or threads with -H) pfmtop knows of");
	fprintf(f, "pfmtop_tasks %d\n", m->tasks_total);
	if (cfg->tasks <= 0)
		return;
	family(f, d, "pfmtop_task_cpu_ratio", false,
	       "CPU time of each exported task over the last interval, in CPUs");
	for (int r = 0, cut = task_cut(m, cfg->tasks); r < cut; r++) {
		const struct model_row *t = &m->tasks[r];

		if (!t->counted)
			continue;
		fputs("pfmtop_task_cpu_ratio{", f);
		task_labels(f, cfg, t->kind, t->pid, t->tid, t->comm);
		fputs("} ", f);
		number(f, isnan(t->cpu_pct) ? NAN : t->cpu_pct / 100.0);
		fputc('\n', f);
	}
}

static void plain_counter(FILE *f, enum om_dialect d, const char *name, const char *help,
                          uint64_t v, double created_s)
{
	family(f, d, name, true, help);
	fprintf(f, "%s_total %llu\n", name, (unsigned long long)v);
	if (d == OM_OPENMETRICS)
		fprintf(f, "%s_created %.3f\n", name, created_s);
}

static void sampling(FILE *f, const struct om_state *st, const struct model *m, enum om_dialect d)
{
	const struct model_sampling *s = &m->sampling;

	if (!s->enabled)
		return;
	plain_counter(f, d, "pfmtop_samples", "Samples taken for the hotspots",
	              st->sampling.samples, st->created_s);
	plain_counter(f, d, "pfmtop_lost_samples",
	              "Samples lost: ring buffers full, or dropped by the hardware",
	              st->sampling.lost_samples, st->created_s);
	plain_counter(f, d, "pfmtop_lost_records", "PERF_RECORD_LOST records (a ring was full)",
	              st->sampling.lost_records, st->created_s);
	plain_counter(f, d, "pfmtop_throttles",
	              "Times the kernel throttled sampling (kernel.perf_event_max_sample_rate)",
	              st->sampling.throttles, st->created_s);
	family(f, d, "pfmtop_sampling_throttled_rings", false,
	       "Sampling rings throttled at the last refresh");
	fprintf(f, "pfmtop_sampling_throttled_rings %d\n", s->throttled_now);
	if (s->max_rate >= 0) {
		family(f, d, "pfmtop_max_sample_rate_hertz", false,
		       "kernel.perf_event_max_sample_rate: samples per second per CPU at most");
		fprintf(f, "pfmtop_max_sample_rate_hertz %ld\n", s->max_rate);
	}
}

int om_write(FILE *f, const struct om_state *st, const struct model *m, const struct om_config *cfg,
             enum om_dialect d)
{
	om_names *fams = families(m);

	if (!fams)
		return -ENOMEM;
	family(f, d, "pfmtop_build_info", false, "pfmtop's version; always 1");
	fprintf(f, "pfmtop_build_info{version=\"%s\"} 1\n", PFMTOP_VERSION);
	/* A family per scope and name, at its first counted event (an event
	 * that counts nowhere here has only its state). */
	for (int i = 0; i < m->nr_events; i++) {
		if (!m->events[i].opened || name_of(st, m->events[i].name) < 0)
			continue;
		for (int sc = 0; sc < OM_NR_SCOPES; sc++) {
			bool seen = false;

			if (!scope_shown(st, m, cfg, (enum om_scope)sc))
				continue;
			for (int k = 0; k < i && !seen; k++)
				seen = m->events[k].opened && name_of(st, m->events[k].name) >= 0 &&
				       !strcmp(fams[k][sc], fams[i][sc]);
			if (!seen)
				event_family(f, st, m, cfg, d, i, fams, (enum om_scope)sc);
		}
	}
	free(fams);
	event_gauges(f, m, d);
	task_gauges(f, m, cfg, d);
	sampling(f, st, m, d);
	family(f, d, "pfmtop_interval_seconds", false, "Length of the last refresh interval");
	fputs("pfmtop_interval_seconds ", f);
	number(f, m->interval_s);
	fputc('\n', f);
	family(f, d, "pfmtop_last_refresh_timestamp_seconds", false,
	       "When the figures were last refreshed (Unix time)");
	fprintf(f, "pfmtop_last_refresh_timestamp_seconds %.3f\n", (double)m->wall_ns / 1e9);
	if (cfg->nr_http) {
		family(f, d, "pfmtop_http_requests", true,
		       "HTTP requests answered, by status code");
		for (int i = 0; i < cfg->nr_http; i++) {
			fprintf(f, "pfmtop_http_requests_total{code=\"%u\"} %llu\n",
			        cfg->http_codes[i], (unsigned long long)cfg->http_counts[i]);
			if (d == OM_OPENMETRICS)
				fprintf(f, "pfmtop_http_requests_created{code=\"%u\"} %.3f\n",
				        cfg->http_codes[i], st->created_s);
		}
	}
	if (d == OM_OPENMETRICS)
		fputs("# EOF\n", f);
	return ferror(f) ? -EIO : 0;
}

char *om_render(const struct om_state *st, const struct model *m, const struct om_config *cfg,
                enum om_dialect d, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int ret;

	if (!f)
		return NULL;
	ret = om_write(f, st, m, cfg, d);
	if (fclose(f) || ret) {
		free(buf);
		errno = ret ? -ret : EIO;
		return NULL;
	}
	return buf;
}
