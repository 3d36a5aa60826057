/* session_events: the event table: each event resolved once, labelled, described, and
 * tried alone for --check-preset and the probe. */
#include "session_priv.h"

#include "explain.h"
#include "preset.h"
#include "sys.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool session_is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Software events the kernel accounts in kernel context: with exclude_kernel
 * they read 0, which must not be shown as a fact. */
bool session_kernel_context_only(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
	                                         a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/*
 * Software events asked for alone (task-clock, page-faults, ...) are read
 * in one group: they are never multiplexed, so grouping changes no figure,
 * and it turns one read() per event into one per task — thousands of
 * system calls a tick with every task on the machine counted.
 */
static void merge_software_singletons(struct session *s)
{
	int into = -1;

	for (int i = 0; i < s->nr_ev; i++) {
		struct counters_event *e = &s->cev[i];
		bool alone = true;

		for (int j = 0; j < s->nr_ev && alone; j++)
			alone = j == i || s->cev[j].group != e->group;
		if (!alone || e->attr.type != PERF_TYPE_SOFTWARE || e->skip_err)
			continue;
		if (into < 0)
			into = e->group;
		e->group = into;
	}
}

/*
 * One name per column: an event given more than once keeps its name for
 * its first column and gets NAME#2, NAME#3... for the others, the same in
 * every output and for --sort.
 */
static int unique_labels(struct session *s)
{
	char(*orig)[EVENTS_NAME_MAX] = calloc((size_t)s->nr_ev + 1, sizeof(*orig));

	if (!orig)
		return -ENOMEM;
	for (int i = 0; i < s->nr_ev; i++)
		util_strlcpy(orig[i], s->ev[i].desc.name, sizeof(orig[i]));
	for (int i = 1; i < s->nr_ev; i++) {
		int seen = 1;
		for (int j = 0; j < i; j++)
			seen += !strcmp(orig[j], orig[i]);
		if (seen > 1) {
			char *name = s->ev[i].desc.name;
			char tag[16];
			int n = snprintf(tag, sizeof(tag), "#%d", seen);
			size_t keep = strlen(orig[i]);
			if (keep + (size_t)n >= sizeof(s->ev[i].desc.name))
				keep = sizeof(s->ev[i].desc.name) - (size_t)n - 1;
			snprintf(name, sizeof(s->ev[i].desc.name), "%.*s%s", (int)keep, orig[i],
			         tag);
		}
	}
	free(orig);
	return 0;
}

/* After the reason in err, where event i of l was written: the list with
 * a caret under the part refused, or its column when no caret can be drawn
 * (a long list). */
static void where_refused(const struct events_list *l, int i, const struct event_desc *d, char *err,
                          size_t errlen)
{
	size_t n = strlen(err);
	int col;

	if (!events_list_caret(l, i, d->err_at, d->err_len, err, errlen))
		return;
	col = events_list_column(l, i, d->err_len ? d->err_at : 0);
	if (col > 0)
		snprintf(err + n, errlen - n, " (column %d)", col);
}

int session_resolve_events(struct session *s, char *err, size_t errlen)
{
	const struct events_list *l = &s->cfg->events;

	s->nr_ev = l->nr;
	s->ev = calloc((size_t)l->nr + 1, sizeof(*s->ev));
	s->cev = calloc((size_t)l->nr + 1, sizeof(*s->cev));
	if (!s->ev || !s->cev)
		return -ENOMEM;
	for (int i = 0; i < l->nr; i++) {
		const struct events_entry *k = events_table_find(s->cfg->known, l->name[i]);
		int ret = k ? events_entry_result(k, &s->ev[i].desc, err, errlen)
		            : events_resolve(NULL, l->name[i], &s->ev[i].desc, err, errlen);
		if (ret && !s->cfg->resolved) {
			/* typed with -e: the user wants to know at once, and where */
			where_refused(l, i, &s->ev[i].desc, err, errlen);
			return ret;
		}
		if (ret) {
			/* A preset's event this machine cannot even name (another
			 * CPU's, a tracepoint without tracefs): a column that
			 * says why, like any event that does not open. */
			util_strlcpy(s->ev[i].desc.name, l->name[i], sizeof(s->ev[i].desc.name));
			util_strlcpy(s->ev[i].why, err, sizeof(s->ev[i].why));
			s->ev[i].err = -ret;
			s->cev[i].skip_err = -ret;
			err[0] = '\0';
		}
		s->cev[i].attr = s->ev[i].desc.attr;
		s->cev[i].group = l->group[i];
		if (s->user_only && !s->cev[i].attr.exclude_kernel) {
			size_t n = strlen(s->ev[i].desc.encoding);
			snprintf(s->ev[i].desc.encoding + n, sizeof(s->ev[i].desc.encoding) - n,
			         " [user space only]");
			s->cev[i].attr.exclude_kernel = 1;
			s->cev[i].attr.exclude_hv = 1;
		}
	}
	if (unique_labels(s))
		return -ENOMEM;
	merge_software_singletons(s);
	s->ccfg.ev = s->cev;
	s->ccfg.nr = s->nr_ev;
	return 0;
}

/* One note per event the preset replaced by a fallback. */
void session_preset_notes(struct session *s)
{
	const struct preset_resolved *pr = s->cfg->resolved;

	for (int i = 0; i < pr->nr; i++) {
		const struct preset_choice *c = &pr->ev[i];
		if (c->fallback >= 0)
			model_note(&s->model, "preset %s: %s stands in for %s (%s)", pr->name,
			           c->used, c->wanted, c->why);
	}
}

void session_describe_events(struct session *s)
{
	struct model *m = &s->model;
	char hw[256] = "";
	int nr_hw = 0;
	const char *vm =
	    s->probe.hypervisor
	        ? (s->probe.hypervisor_name[0] ? s->probe.hypervisor_name : "virtual machine")
	        : NULL;

	for (int i = 0; i < s->nr_ev; i++) {
		struct session_event *e = &s->ev[i];
		struct model_event *me = &m->events[i];

		util_strlcpy(me->name, e->desc.name, sizeof(me->name));
		util_strlcpy(me->encoding, e->desc.encoding, sizeof(me->encoding));
		me->scale = e->desc.scale > 0 ? e->desc.scale : 1.0;
		util_strlcpy(me->unit, e->desc.unit, sizeof(me->unit));
		if (session_is_clock(&e->desc.attr)) {
			me->scale = 1e-6;
			util_strlcpy(me->unit, "ms", sizeof(me->unit));
		}
		/* Opened somewhere, or never tried (no target at all). */
		me->opened = e->nr_open > 0 || (!e->err && !e->why[0]);
		if (!me->opened && !e->why[0]) {
			struct explain_ctx ctx = {
			    .probe = &s->probe,
			    .event = e->desc.name,
			    .attr = &s->cev[i].attr,
			    .pid = s->mode == MODEL_SYSTEM ? -1 : 0,
			    .cpu = s->mode == MODEL_SYSTEM ? 0 : -1,
			};
			explain_open_error(e->err, &ctx, e->why, sizeof(e->why));
			if (e->desc.hardware && e->err == ENOENT && !s->probe.core_pmu) {
				/* The reason stands alone (a script reads it without the
				 * notes); one note lists them all, with the remedy. */
				snprintf(
				    e->why, sizeof(e->why),
				    "hardware event; this machine exposes no hardware PMU%s%s%s",
				    vm ? " (" : "", vm ? vm : "",
				    vm ? " guest without a virtual PMU)" : "");
				if (strlen(hw) + strlen(e->desc.name) + 3 < sizeof(hw)) {
					snprintf(hw + strlen(hw), sizeof(hw) - strlen(hw), "%s%s",
					         nr_hw ? ", " : "", e->desc.name);
					nr_hw++;
				}
			}
		}
		me->err = e->err;
		util_strlcpy(me->why, e->why, sizeof(me->why));
	}
	if (nr_hw)
		model_note(m,
		           "no hardware PMU%s%s%s: %s not supported; counting software events "
		           "(enable a virtual PMU, e.g. -cpu host for QEMU/KVM, to get them)",
		           vm ? " (" : "", vm ? vm : "", vm ? " guest without a virtual PMU)" : "",
		           hw);
}

int session_can_open_desc(const struct event_desc *d, char *why, size_t whylen, void *arg)
{
	const struct probe *p = arg;
	int err = session_try_open(p, d);
	struct explain_ctx ctx = {.probe = p, .event = d->name, .attr = &d->attr, .cpu = -1};

	if (!err)
		return 0;
	explain_open_error(err, &ctx, why, whylen);
	return -err;
}

int session_can_open(const char *event, char *why, size_t whylen, void *arg)
{
	struct event_desc d;
	int ret = events_resolve(NULL, event, &d, why, whylen);

	return ret ? ret : session_can_open_desc(&d, why, whylen, arg);
}

int session_try_open(const struct probe *p, const struct event_desc *d)
{
	struct perf_event_attr attr = d->attr;
	bool cpu_wide = d->cpumask[0] != '\0'; /* a PMU that counts per CPU only */
	int fd;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	if (probe_user_only(p)) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
	}
	fd = cpu_wide ? sys->perf_event_open(&attr, -1, atoi(d->cpumask), -1, PERF_FLAG_FD_CLOEXEC)
	              : sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	sys->close(fd);
	return 0;
}
