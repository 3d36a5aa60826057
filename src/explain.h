/* explain: perf_event_open errors turned into sentences a user can act on. */
#ifndef PFMTOP_EXPLAIN_H
#define PFMTOP_EXPLAIN_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/types.h>

struct probe;

struct explain_ctx {
	const struct probe *probe;          /* may be NULL */
	const char *event;                  /* event name as the user wrote it */
	const struct perf_event_attr *attr; /* what was passed, may be NULL */
	pid_t pid;                          /* as passed to perf_event_open */
	int cpu;
};

/* Write one sentence into buf explaining errno err (positive) for ctx and
 * saying what to do; returns buf. */
const char *explain_open_error(int err, const struct explain_ctx *ctx, char *buf, size_t len);

/* A few words for a table cell or state column: "not supported", "no
 * permission", "task gone", "busy", "fd limit", ... */
const char *explain_short(int err);

#endif
