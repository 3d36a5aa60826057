/* openmetrics: the model as Prometheus metrics (OpenMetrics 1.0 or the 0.0.4 text format). */
#ifndef PFMTOP_OPENMETRICS_H
#define PFMTOP_OPENMETRICS_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum om_dialect {
	OM_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
	OM_PROMETHEUS,  /* text/plain; version=0.0.4 (node_exporter's textfile collector) */
};

/* What a counter family's series count: all that pfmtop counts (the
 * machine system-wide, the targets with -p or a command), or one CPU, one
 * cgroup or one task each. Each scope is a family of its own, so that
 * sum() over a family counts nothing twice. */
enum om_scope {
	OM_SCOPE_ALL,    /* pfmtop_EVENT_total{event} */
	OM_SCOPE_CPU,    /* pfmtop_cpu_EVENT_total{event,cpu} (system-wide) */
	OM_SCOPE_CGROUP, /* pfmtop_cgroup_EVENT_total{event,cgroup} */
	OM_SCOPE_TASK,   /* pfmtop_task_EVENT_total{event,pid,[tid,]comm} */
	OM_NR_SCOPES,
};

/* The Content-Type of a dialect. */
const char *om_content_type(enum om_dialect d);

/*
 * Counters in PromQL must only grow, while the model holds one interval.
 * om_update() adds each interval to running sums: per CPU, per cgroup, per
 * task (by pid and start time) and for the run, per event by name. A preset
 * switch leaves the sums of the events it keeps going on; a task whose pid
 * comes back with another start time is a new series starting from 0 (a
 * counter reset, with a new _created). Per-task sums are kept only with
 * keep_tasks; a task that exited, or was not seen for 60 updates, is
 * forgotten (its series ends).
 */
struct om_sums;

struct om_state {
	bool keep_tasks; /* sums per task too (for --export-tasks; else none) */
	int nr_names;
	char (*names)[128]; /* events by name, in the order first seen */
	uint64_t updates;   /* om_update() calls that added an interval */
	double created_s;   /* when the first interval began (Unix time) */
	struct om_sums *cpus, *cgroups, *tasks, *total;
	int nr_cpus, nr_cgroups, nr_tasks;
	int cap_cpus, cap_cgroups, cap_tasks;
	int *index; /* tasks by (pid, tid, start): open addressing, -1 empty */
	int cap_index;
	struct {
		uint64_t samples, lost_samples, lost_records, throttles;
	} sampling;
};

/* What to export; zero is the defaults. */
struct om_config {
	int tasks; /* series for this many tasks, the model's first (its sort) */
	/* --export-cmdline: the command line of an exported task, for a cmdline
	 * label (NULL, the default: comm only). */
	const char *(*cmdline)(pid_t pid, void *arg);
	void *cmdline_arg;
	int nr_http; /* HTTP responses by code, when serving */
	const unsigned *http_codes;
	const uint64_t *http_counts;
};

void om_init(struct om_state *st);
void om_free(struct om_state *st);

/* Add the interval m holds (a final model, the run's totals, adds nothing).
 * 0 or -ENOMEM (the sums then miss this interval's new series). */
int om_update(struct om_state *st, const struct model *m);

/* Write the metrics of st and m (its gauges: coverage, states, CPU use) to
 * f. 0, or -EIO when f failed. */
int om_write(FILE *f, const struct om_state *st, const struct model *m, const struct om_config *cfg,
             enum om_dialect d);

/* The same into a malloc'd buffer of *len bytes; NULL with errno set. */
char *om_render(const struct om_state *st, const struct model *m, const struct om_config *cfg,
                enum om_dialect d, size_t *len);

/* The whole-run metric family name of an event ("page-faults" ->
 * "pfmtop_page_faults", a clock in ms -> "..._seconds"), into buf; the
 * scoped ones put cpu_, cgroup_ or task_ after "pfmtop_". */
const char *om_event_family(const struct model_event *e, char *buf, size_t len);

#endif
