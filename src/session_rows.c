/* session_rows: counter readings aggregated into the model: CPU rows, task rows
 * (threads summed per process), the (unattributed) row, event states, the header. */
#include "session_priv.h"

#include "cells.h"
#include "util.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Fold v into the running aggregate acc (first: acc holds nothing yet). */
void session_cell_add(struct counter_value *acc, const struct counter_value *v, bool first)
{
	bool acc_counted = !first && cells_counted(acc);
	bool v_counted = cells_counted(v);

	if (first) {
		*acc = *v;
		return;
	}
	if (v_counted && acc_counted) {
		acc->value += v->value;
		acc->coverage = fmin(acc->coverage, v->coverage);
	} else if (v_counted) {
		/* Some parts counted, some not: the sum is partial. */
		bool acc_partial = acc->state == COUNTER_NOT_COUNTED || acc->state == COUNTER_ERROR;
		*acc = *v;
		if (acc_partial)
			acc->coverage = 0;
	} else if (acc_counted && (v->state == COUNTER_NOT_COUNTED || v->state == COUNTER_ERROR)) {
		acc->coverage = 0;
	} else if (!acc_counted && v->state < acc->state) {
		*acc = *v;
	}
	if (cells_counted(acc))
		acc->state = acc->coverage >= 1.0 ? COUNTER_OK : COUNTER_MULTIPLEXED;
}

void session_target_cells(const struct session *s, const struct session_target *t, bool final,
                          struct counter_value *out)
{
	for (int i = 0; i < s->nr_ev; i++) {
		if (!t->counted)
			out[i] = (struct counter_value){
			    .value = NAN,
			    .state = s->ev[i].nr_open ? COUNTER_NOT_COUNTED : COUNTER_UNSUPPORTED};
		else
			out[i] = final ? counters_total(&t->cs, i) : counters_interval(&t->cs, i);
	}
}

/* CPU% of a task row: task-clock when counted, else /proc ticks. */
static double task_cpu_pct(const struct session *s, const struct model_row *r, uint64_t ticks,
                           double interval_s)
{
	for (int i = 0; i < s->nr_ev; i++) {
		const struct counter_value *v = &r->cells[i];
		if (session_is_clock(&s->cev[i].attr) &&
		    s->cev[i].attr.config == PERF_COUNT_SW_TASK_CLOCK && cells_counted(v))
			return v->value / 1e9 / interval_s * 100.0;
	}
	return interval_s > 0 ? (double)ticks / (double)procfs_hz() / interval_s * 100.0 : NAN;
}

/* Process rows by (pid, start), open addressing: row indexes, -1 empty.
 * Thousands of targets a tick would make a linear search quadratic. */
struct row_index {
	int *slot;
	size_t mask;
};

static size_t row_hash(const struct row_index *x, pid_t pid)
{
	return ((uint32_t)pid * 2654435761u) & x->mask;
}

/* The row of (pid, start), or NULL with *at the slot for it. */
static struct model_row *find_process_row(struct model *m, const struct row_index *x, pid_t pid,
                                          uint64_t start, size_t *at)
{
	size_t h = row_hash(x, pid);

	for (; x->slot[h] >= 0; h = (h + 1) & x->mask) {
		struct model_row *r = &m->tasks[x->slot[h]];
		if (r->pid == pid && r->start == start)
			return r;
	}
	*at = h;
	return NULL;
}

/* Rows for counted task targets: one per process (threads summed) or per thread. */
void session_counted_rows(struct session *s, bool final, double interval_s)
{
	struct model *m = &s->model;
	struct counter_value *cells = calloc((size_t)s->nr_ev + 1, sizeof(*cells));
	struct row_index x = {NULL, 0};
	size_t cap = 16;

	while (cap < 2 * (size_t)s->nr_targets)
		cap *= 2;
	if (!s->cfg->threads)
		x.slot = malloc(cap * sizeof(*x.slot));
	if (!cells || (!s->cfg->threads && !x.slot)) {
		free(cells);
		free(x.slot);
		return;
	}
	x.mask = cap - 1;
	if (x.slot)
		memset(x.slot, 0xff, cap * sizeof(*x.slot)); /* -1 */
	for (int i = 0; i < s->nr_targets; i++) {
		struct session_target *t = &s->targets[i];
		if (t->tid < 0)
			continue;
		size_t at = 0;
		struct model_row *r =
		    s->cfg->threads ? NULL : find_process_row(m, &x, t->pid, t->pstart, &at);
		bool first = !r;
		uint64_t ticks = final ? t->ticks : t->ticks - t->prev_ticks;
		uint64_t span_start = final ? s->start_ns : s->last_ns;

		session_target_cells(s, t, final, cells);
		if (!r) {
			r = model_add_task(m);
			if (!r)
				break;
			r->kind = s->cfg->threads ? MODEL_ROW_THREAD : MODEL_ROW_PROCESS;
			r->pid = t->pid;
			r->start = t->pstart;
			r->tid = s->cfg->threads ? t->tid : t->pid;
			util_strlcpy(r->comm, t->comm, sizeof(r->comm));
			util_strlcpy(r->user, procfs_user(&s->proc, t->uid), sizeof(r->user));
			r->exited = true;
			r->cpu_pct = 0;
			if (x.slot)
				x.slot[at] = m->nr_tasks - 1;
		}
		if (t->tid == t->pid)
			util_strlcpy(r->comm, t->comm, sizeof(r->comm));
		if (t->tid == t->pid || !r->ppid)
			r->ppid = t->ppid;
		r->nr_threads++;
		r->counted |= t->counted;
		r->exited &= t->exited;
		if (t->counted && t->open_ns > span_start)
			r->since_ms = fmax(r->since_ms, (double)(t->open_ns - span_start) / 1e6);
		if (!t->counted && !r->note[0])
			util_strlcpy(r->note, t->note, sizeof(r->note));
		for (int k = 0; k < s->nr_ev; k++)
			session_cell_add(&r->cells[k], &cells[k], first);
		/* Stash /proc ticks in cpu_pct until the row is complete. */
		r->cpu_pct += (double)ticks;
	}
	for (int i = 0; i < m->nr_tasks; i++) {
		struct model_row *r = &m->tasks[i];
		r->cpu_pct = task_cpu_pct(s, r, (uint64_t)r->cpu_pct, interval_s);
		if (r->exited)
			util_strlcpy(r->note, "exited", sizeof(r->note));
		else if (r->since_ms > 0 && !r->note[0])
			snprintf(r->note, sizeof(r->note), "counted from +%.0f ms", r->since_ms);
	}
	free(cells);
	free(x.slot);
}

void session_cpu_rows(struct session *s, bool final, double interval_s)
{
	struct model *m = &s->model;
	uint64_t busy = 0, total = 0;
	/* the totals: since the baseline */
	const struct procfs_cpu *prev = final ? s->cpu_base : s->cpu_prev;
	int nr_prev = final ? s->nr_cpu_base : s->nr_cpu_prev;

	for (int i = 0; i < s->nr_cpus; i++) {
		struct model_row *r = model_add_cpu(m);
		if (!r)
			return;
		r->cpu = s->cpus[i];
		for (int k = 0; k < s->nr_cpu_cur; k++) {
			if (s->cpu_cur[k].cpu != r->cpu)
				continue;
			for (int j = 0; j < nr_prev; j++) {
				if (prev[j].cpu != r->cpu)
					continue;
				uint64_t db = s->cpu_cur[k].busy - prev[j].busy;
				uint64_t dt = s->cpu_cur[k].total - prev[j].total;
				r->cpu_pct = dt ? (double)db / (double)dt * 100.0 : NAN;
				if (dt) {
					uint64_t du = s->cpu_cur[k].user - prev[j].user;
					uint64_t ds = s->cpu_cur[k].sys - prev[j].sys;
					r->user_pct = (double)du / (double)dt * 100.0;
					r->sys_pct = (double)ds / (double)dt * 100.0;
					r->other_pct = (double)(db - du - ds) / (double)dt * 100.0;
				}
				busy += db;
				total += dt;
			}
		}
		if (s->mode == MODEL_SYSTEM) {
			session_target_cells(s, &s->targets[i], final, r->cells);
			r->counted = s->targets[i].counted;
			if (!r->counted)
				util_strlcpy(r->note, s->targets[i].note, sizeof(r->note));
		}
	}
	m->total.cpu_pct = total ? (double)busy / (double)total * 100.0 : NAN;
	if (procfs_loadavg(&s->proc, m->load, &m->tasks_running, &m->tasks_all) < 0) {
		m->load[0] = m->load[1] = m->load[2] = NAN;
		m->tasks_running = m->tasks_all = -1;
	}
}

void session_header(struct session *s, uint64_t now, double interval_s, bool final)
{
	struct model *m = &s->model;

	m->seq = s->seq + 1;
	m->wall_ns = util_wall_ns();
	m->mono_ns = s->started && now > s->start_ns ? now - s->start_ns : 0;
	m->interval_s = interval_s;
	m->final = final;
	m->partial = s->partial && !final;
	util_strlcpy(m->host, s->probe.host, sizeof(m->host));
	util_strlcpy(m->kernel, s->probe.kernel, sizeof(m->kernel));
	util_strlcpy(m->preset, s->cfg->preset, sizeof(m->preset));
	m->mode = s->mode;
	m->paranoid = s->probe.paranoid;
	m->top_n = s->cfg->top_n;
	util_strlcpy(m->privilege,
	             geteuid() == 0           ? "root"
	             : s->probe.cap_perfmon   ? "CAP_PERFMON"
	             : s->probe.cap_sys_admin ? "CAP_SYS_ADMIN"
	                                      : "unprivileged",
	             sizeof(m->privilege));
}

void session_memory_notes(struct session *s)
{
	struct model *m = &s->model;
	struct profile_memory pm;
	struct symbols_stats st;

	if (!s->prof.open)
		return;
	profile_hot_memory(&s->prof, &pm);
	if (pm.folds)
		model_note(m,
		           "the tables of function names started over %" PRIu64
		           " time%s to stay within their bounds: names are found again, "
		           "shares are unchanged",
		           pm.folds, pm.folds == 1 ? "" : "s");
	if (!s->prof.sym)
		return;
	symbols_stats(s->prof.sym, &st);
	if (st.jit_cut || st.jit_dropped)
		model_note(
		    m,
		    "perf maps: %lu read%s from their last %d MiB only, %lu table%s dropped to "
		    "stay within %d MiB (their code is then named by address)",
		    st.jit_cut, st.jit_cut == 1 ? "" : "s", SYMBOLS_JIT_READ_MIB, st.jit_dropped,
		    st.jit_dropped == 1 ? "" : "s", SYMBOLS_JIT_TOTAL_MIB);
}

/* Notes that depend on the run so far (computed once: first tick). */
void session_static_notes(struct session *s)
{
	struct model *m = &s->model;
	char buf[320];

	switch (s->mode) {
	case MODEL_SYSTEM: {
		int n = snprintf(m->target, sizeof(m->target), "CPUs ");
		for (int i = 0; i < s->nr_cpus && n < (int)sizeof(m->target) - 8; i++)
			n += snprintf(m->target + n, sizeof(m->target) - (size_t)n, "%s%d",
			              i ? "," : "", s->cpus[i]);
		/* A task's counters follow it to every CPU (perf's per-task
		 * events cannot be limited to some): say so beside CPU rows that
		 * are. */
		if (s->cfg->nr_cpus && s->cfg->cpu_min >= 0)
			model_note(m,
			           "-C: the CPU rows count %s only; a task row counts the task on "
			           "every CPU it ran on",
			           m->target);
		break;
	}
	case MODEL_TASKS:
		if (s->cfg->nr_pids) {
			int n = snprintf(m->target, sizeof(m->target), "PID ");
			for (int i = 0; i < s->cfg->nr_pids && n < (int)sizeof(m->target) - 12; i++)
				n += snprintf(m->target + n, sizeof(m->target) - (size_t)n, "%s%d",
				              i ? "," : "", (int)s->cfg->pids[i]);
		} else {
			snprintf(m->target, sizeof(m->target), "own processes of %s",
			         procfs_user(&s->proc, getuid()));
		}
		break;
	case MODEL_COMMAND: {
		int n = snprintf(m->target, sizeof(m->target), "command:");
		for (int i = 0; s->cfg->argv[i] && n < (int)sizeof(m->target) - 2; i++)
			n += snprintf(m->target + n, sizeof(m->target) - (size_t)n, " %s",
			              s->cfg->argv[i]);
		break;
	}
	}
	if (s->mode == MODEL_TASKS && !s->cfg->nr_pids) {
		probe_privilege_note(&s->probe, buf, sizeof(buf));
		if (buf[0])
			model_note(m, "%s", buf);
	} else if (s->user_only) {
		probe_privilege_note(&s->probe, buf, sizeof(buf));
		if (buf[0])
			model_note(m, "%s", buf);
	}
	if (s->nr_targets == 0 && s->mode == MODEL_TASKS)
		model_note(m,
		           "no processes of %s to count (pfmtop leaves itself out): start some, or "
		           "use -p PID or -- COMMAND",
		           procfs_user(&s->proc, getuid()));
}

void session_event_states(struct session *s)
{
	struct model *m = &s->model;

	for (int i = 0; i < s->nr_ev; i++) {
		struct model_event *e = &m->events[i];
		bool any = false;

		e->coverage = 0;
		e->state = e->opened ? COUNTER_NOT_COUNTED : COUNTER_UNSUPPORTED;
		for (int k = 0; k < s->nr_targets; k++) {
			const struct session_target *t = &s->targets[k];
			if (!t->counted || t->cs.c[i].fd < 0)
				continue;
			struct counter_value v =
			    m->final ? counters_total(&t->cs, i) : counters_interval(&t->cs, i);
			if (v.state == COUNTER_NOT_COUNTED && t->tid >= 0)
				continue; /* an idle thread says nothing about the event */
			if (!any || v.coverage < e->coverage)
				e->coverage = v.coverage;
			if (!any || v.state > e->state || e->state == COUNTER_NOT_COUNTED)
				e->state = v.state;
			any = true;
		}
	}
}

/*
 * System-wide with task counters on every online CPU: the (unattributed)
 * row holds what the CPU counters counted and no task row did, so that the
 * task rows and it add up to the total. (With -C the task counters count
 * on other CPUs too: no such row.)
 */
void session_unattributed_row(struct session *s)
{
	struct model *m = &s->model;
	struct model_row *u = &m->unattributed;

	m->has_unattributed =
	    s->mode == MODEL_SYSTEM && s->cfg->cpu_min >= 0 && !s->cfg->nr_cpus && m->total.counted;
	if (!m->has_unattributed)
		return;
	util_strlcpy(u->comm, "(unattributed)", sizeof(u->comm));
	u->counted = true;
	for (int k = 0; k < s->nr_ev; k++) {
		const struct counter_value *tot = &m->total.cells[k];
		struct counter_value *v = &u->cells[k];

		*v = *tot;
		if (!cells_counted(tot))
			continue;
		for (int i = 0; i < m->nr_tasks; i++) {
			const struct counter_value *c = &m->tasks[i].cells[k];
			if (!cells_counted(c))
				continue;
			v->value -= c->value;
			v->coverage = fmin(v->coverage, c->coverage);
		}
		v->state = v->coverage >= 1.0 ? COUNTER_OK : COUNTER_MULTIPLEXED;
	}
}
