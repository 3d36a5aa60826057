/* view_hist: each row's history in the view: the HIST sparkline column, the
 * changed-value highlight, and the state of the task detail pane. */
#ifndef PFMTOP_VIEW_HIST_H
#define PFMTOP_VIEW_HIST_H

#include "procfs.h"
#include "rowhist.h"
#include "theme.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct view;
struct col;

/* Returned by view_key_detail() for a key the pane leaves to the view. */
#define VIEW_DETAIL_PASS 0x80000000u

struct view_hist {
	struct rowhist *cpus, *tasks;
	uint64_t fed_ns; /* wall_ns of the newest model fed: older ones never are */
	uint64_t sig;    /* the series' names: another preset starts the rings again */
	int series;      /* what HIST shows: -1 the sort column's, else a series */
	bool utf8;       /* block characters (else ASCII) */
	/* the detail pane (Enter on a task) */
	bool open;
	int64_t id;
	pid_t pid, tid;
	bool thread;
	uint64_t start;
	char comm[32], user[32], state[40];
	char cmdline[4096];
	int nr_threads;
	bool gone;     /* not among the live rows since */
	int top;       /* the first row of graphs shown */
	bool filtered; /* the pane set the hotspot filter to its task */
	struct procfs pf;
};

/* view_hist.c */
struct view_hist *view_hist_get(struct view *v); /* made on first use; NULL without memory */
void view_hist_free(struct view *v);
/* A model given to view_draw(): fed into the rings when newer than any fed. */
void view_hist_feed(struct view *v, const struct model *m);
/* The series numbers: 0 CPU%, 1 + event, 1 + nr_events + metric. */
int view_hist_nseries(const struct model *m);
void view_hist_series_name(const struct model *m, int s, char *buf, size_t len);
int view_hist_series_of_col(const struct view *v, const struct col *c); /* -1: none */
/* The series HIST shows in the current view, and its column title. */
int view_hist_series(const struct view *v);
const char *view_hist_title(const struct view *v, char *buf, size_t len);
/* Draw the sparkline of row r at y, x in width columns. */
void view_hist_cell(struct view *v, int y, int x, int width, int r, enum theme_slot slot);
/* Whether cell c of row r (text now) shows another number than at the refresh before. */
bool view_hist_changed(const struct view *v, int r, const struct col *c, int width,
                       const char *text);
/* y: HIST shows the next series. */
unsigned view_hist_key_series(struct view *v);

/* view_detail.c: the task detail pane. */
unsigned view_open_detail(struct view *v);
unsigned view_close_detail(struct view *v);
bool view_detail_shown(const struct view *v);
void view_draw_detail(struct view *v);
unsigned view_key_detail(struct view *v, int ch);

#endif
