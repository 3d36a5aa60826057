/* view: the interactive ncurses screen over the model. */
#ifndef PFMTOP_VIEW_H
#define PFMTOP_VIEW_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct view;

/* The views, in the order of the keys 1-5 (same as enum options_view). */
enum view_kind {
	VIEW_OVERVIEW, /* meters, a summary, the tasks and the top hotspots */
	VIEW_CPUS,
	VIEW_TASKS,
	VIEW_HOTSPOTS,
	VIEW_EVENTS,
	VIEW_NR_KINDS,
};

/* What view_input() asks of the caller: a bit set. */
#define VIEW_QUIT    0x01u
#define VIEW_SAVE    0x02u /* write a snapshot file */
#define VIEW_PAUSE   0x04u /* paused state changed */
#define VIEW_REDRAW  0x08u
#define VIEW_DELAY   0x10u  /* settings.interval_ns changed */
#define VIEW_PROFILE 0x20u  /* hotspot settings (hide, accumulated, filter, keys) changed */
#define VIEW_PRESET  0x40u  /* settings.preset chosen: reopen the session */
#define VIEW_THREADS 0x80u  /* settings.threads toggled: reopen the session */
#define VIEW_STEP    0x100u /* settings.step: intervals to step back (< 0) or on */
#define VIEW_GOTO    0x200u /* settings.when: a time to go to, as typed */
#define VIEW_SPEED   0x400u /* settings.speed changed (replay) */

/* What the user set with keys; the caller applies it. */
struct view_settings {
	uint64_t interval_ns;
	char preset[32];
	bool threads;
	bool hide_kernel, hide_user, accumulated;
	char hot_keys[32]; /* the hotspot grouping ("" = the default); g cycles it */
	bool hot_filter;   /* Enter on a task or CPU */
	pid_t filter_pid;  /* -1 any */
	int filter_cpu;    /* -1 any */
	int step;          /* VIEW_STEP */
	char when[40];     /* VIEW_GOTO */
	unsigned speed;    /* replay: times real time */
	/* a on a hotspot: its function's annotate screen */
	bool annotate;
	pid_t annotate_pid;
	uint64_t annotate_ip;
	bool annotate_kernel;
	/* F2: each view's columns as text (view_columns_text()); "" = the
	 * default; kept for the session, for an rc file to save */
	char columns[VIEW_NR_KINDS][1024];
	bool tree; /* F5: the Tasks view as a tree by parent */
};

struct view_config {
	const char *theme; /* --theme NAME|FILE, NULL default */
	int kind;          /* first view, -1 by mode */
	enum model_mode mode;
	struct view_settings settings;
	const char *const *presets; /* names for the chooser */
	int nr_presets;
	bool replay;               /* a recording: nothing is counted */
	bool paused;               /* start paused (a replay: not playing) */
	bool can_reopen;           /* false: p and H cannot reopen (command, -e) */
	const char *cannot_reopen; /* why not, for the status line */
	bool no_history;           /* --history 0: g and the arrows have nothing to go to */
	const char *rc_path;       /* where q saves the settings (the help says), or why not */
};

/* Can the view use this terminal (TERM known, the cursor can move)? 0, or
 * -1 with one line in err; the screen is not touched. A usage error: the
 * user sets TERM or uses -b. */
int view_term_check(char *err, size_t errlen);

/* Take over the terminal; NULL with a sentence in err when it cannot (no
 * terminal, unknown TERM). */
struct view *view_open(const struct view_config *cfg, char *err, size_t errlen);

/* Give the terminal back exactly as it was. Safe with NULL. */
void view_close(struct view *v);

/* Draw m (NULL: "waiting for the first interval"). m must stay valid until
 * the next view_draw() (keys redraw from it). */
void view_draw(struct view *v, const struct model *m);

/* Re-read the terminal size after SIGWINCH and redraw. */
void view_resize(struct view *v);

/* Read pending keys; returns VIEW_* bits saying what the caller must do. */
unsigned view_input(struct view *v);

/* A one-line message in the status bar until the next key. */
void view_status(struct view *v, const char *msg);

/* A line the status line shows whenever no message is there (a command's
 * output file, its exit); alert draws it as a badge. "" removes it.
 * Redraws. */
void view_banner(struct view *v, const char *text, bool alert);

/* The view's settings that the settings file keeps (theme, delay, view,
 * sort, hotspot filters, columns) into rc; what it holds already (a column
 * choice the view does not change) stays. */
struct rcfile;
void view_rc_get(const struct view *v, struct rcfile *rc);

/* A column choice as the settings file holds it, for the view to take;
 * 0, or -EINVAL with a sentence in err. */
int view_rc_columns_set(struct view *v, const char *text, char *err, size_t errlen);

/* The settings the keys changed. */
const struct view_settings *view_settings(const struct view *v);

/* Whether updates are paused (space); a replay: not playing. */
bool view_paused(const struct view *v);

/*
 * The column setup (F2) of view k as text: the columns in their order,
 * comma-separated, a hidden one as -NAME, a width set as NAME:W, e.g.
 * "PID,USER,CPU%,-THR,page-faults:12,COMMAND" (an event or metric by its
 * name; ',' and '\\' in a name escaped with '\\'). "" = the default. Columns
 * it does not name (the events of another preset) keep their default place.
 */
const char *view_columns_text(const struct view_settings *s, enum view_kind k);

/* Set view k's column setup from text (as view_columns_text() gives it);
 * 0, or -1 with a sentence in err (the setup is then left as it was). */
int view_columns_parse(struct view_settings *s, enum view_kind k, const char *text, char *err,
                       size_t errlen);

/* Where in time the screen is (a replay, the history), shown in the header;
 * "" for the live screen. */
void view_timeline(struct view *v, const char *text);

#endif
