/* main: options, the loop's callbacks, batch output and the interactive view. */
#include "actions.h"
#include "cmdout.h"
#include "cmdsummary.h"
#include "events.h"
#include "exporter.h"
#include "loop.h"
#include "options.h"
#include "output.h"
#include "pfmlib.h"
#include "pfr.h"
#include "preset.h"
#include "probe.h"
#include "rcfile.h"
#include "replay.h"
#include "session.h"
#include "snapshot.h"
#include "theme.h"
#include "timeline.h"
#include "untrusted.h"
#include "util.h"
#include "view.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <ncurses.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#define MAX_WATCHED          1024
#define HOT_ROWS_INTERACTIVE 500 /* hotspot rows the viewer can scroll through */
#define MAX_PRESET_NAMES     64
#define FIRST_TICK_NS        50000000ull /* the viewer's first interval */
#define FIRST_TICK_MIN_NS    1000000ull  /* its second half at least */

/* The viewer's first interval is FIRST_TICK_NS, with a tick half-way. */
enum first_tick {
	FIRST_OVER,   /* the chosen interval */
	FIRST_SECOND, /* its second half, to the first frame */
	FIRST_HALF,   /* its first half, to the symbol look-ups */
};

struct app {
	struct options opt;
	struct session *s; /* the engine (opaque) */
	struct loop *loop;
	struct view *view;
	struct output out; /* batch snapshots: -o FILE or standard output */
	int snapshots;
	bool stopping;      /* a signal asked us to stop: waiting for the command */
	bool finished;      /* finish() was called: the loop ends with its status */
	int hot_rows_saved; /* hotspot rows a saved snapshot shows (as batch) */
	struct preset_resolved resolved;
	struct events_table known; /* the preset's events, resolved once as it is chosen */
	struct probe probe;        /* the machine, probed once a start */
	/* The viewer's p lists these; the presets themselves are read again
	 * when one is chosen, not kept (they are large). */
	char preset_names[MAX_PRESET_NAMES][PRESET_NAME_MAX];
	const char *preset_list[MAX_PRESET_NAMES];
	int nr_preset_names;
	struct cmdout cmd_out;    /* the command's output: a file while the viewer runs */
	bool command_done;        /* the viewer shows a command's totals: q quits */
	bool quit_asked;          /* q while the command ran: it was told to stop */
	int watched[MAX_WATCHED]; /* fds the loop watches for the session */
	int nr_watched;
	enum first_tick first_tick; /* the viewer's short first interval */
	uint64_t first_ns;          /* when it began (util_now_ns()) */
	bool headless;              /* --daemon, or --listen without -b and without a terminal */
	bool replace;               /* metrics to -o FILE: replaced whole at each refresh */
	struct exporter ex;
	struct output rec; /* --record FILE */
	struct pfr_writer recw;
	bool rec_pending;     /* --record with % escapes: opened at the first frame */
	struct timeline hist; /* the viewer's history (--history) */
	bool hist_on;
	long hist_pos; /* the frame of it shown, -1: the live screen */
	/* the settings file (pfmtoprc): read before the view opens, written
	 * when it quits; not with --no-config, nor over a file that did not
	 * read (rc_warn says why) */
	struct rcfile rc;
	bool rc_on;
	char rc_path[PATH_MAX], rc_warn[PATH_MAX + 320];
};

/* Keep the viewer's history to this many snapshots, whatever -d and
 * --history say (2-6 KB each compressed: 6 KB with 500 hotspot rows). */
#define HISTORY_MAX_FRAMES 20000

static void die_usage(const char *msg)
{
	untrusted_complain("%s\n", msg);
	exit(2);
}

/* Is a session_init() error the user's to fix (exit 2): a bad value, an
 * unknown event, PMU or process, or nothing requested that this user may
 * count? Else it is a runtime error (exit 1). */
static bool usage_class(int err)
{
	return err == -EINVAL || err == -ENOENT || err == -ESRCH || err == -ENODEV ||
	       err == -EACCES || err == -EPERM;
}

/* ---- snapshots ---- */

/* Stop the loop with exit status code; the first reason to stop wins. */
static void finish(struct app *a, int code)
{
	if (a->finished)
		return;
	a->finished = true;
	loop_stop(a->loop, code);
}

/* --record FILE with strftime() % escapes: its name at wall time w. */
static void record_path(const struct app *a, uint64_t w, char *path, size_t len)
{
	time_t t = (time_t)(w / 1000000000ull);
	struct tm tm;

	localtime_r(&t, &tm);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored                                                                     \
    "-Wformat-nonliteral" /* the user's pattern, as strftime(3) reads it */
	if (!strchr(a->opt.record, '%') || !strftime(path, len, a->opt.record, &tm))
		util_strlcpy(path, a->opt.record, len);
#pragma GCC diagnostic pop
}

/* Open the recording at path: as -o FILE is opened (--append adds to a
 * recording, and only to one; a FILE with % escapes always does). 0 or
 * -errno with one sentence in err. */
static int record_open(struct app *a, const char *path, char *err, size_t errlen)
{
	const bool pattern = strchr(a->opt.record, '%') != NULL;
	int ret = output_open_as(&a->rec, "--record", path,
	                         pattern ? OUTPUT_APPEND : a->opt.output_mode, err, errlen);
	struct stat st, wst;
	char shown[UTIL_PATH_SHOWN + 1];
	int fd, is;

	if (ret)
		return ret;
	if (a->rec.size) {
		/* read back the file being written, not whatever the name is now */
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd >= 0 && (fstat(fd, &st) || fstat(a->rec.fd, &wst) ||
		                st.st_dev != wst.st_dev || st.st_ino != wst.st_ino)) {
			close(fd);
			fd = -1;
			errno = ESTALE;
		}
		is = fd >= 0 ? pfr_is_recording(fd) : -errno;
		if (fd >= 0)
			close(fd);
		if (is != 1) {
			snprintf(err, errlen,
			         "--record %s: --append adds to a pfmtop recording, and this file "
			         "is not one; name another file (or --force to empty it)",
			         util_path_elided(shown, sizeof(shown), path));
			output_close(&a->rec);
			return -EINVAL;
		}
	}
	pfr_writer_rekey(&a->recw); /* a new file starts with a key frame */
	return 0;
}

/* The recording ends: said in the view's status line or, without the view,
 * on standard error (status 1). */
static void record_stop(struct app *a, const char *msg)
{
	output_close(&a->rec);
	if (a->view) {
		view_status(a->view, msg);
		return;
	}
	untrusted_complain("%s\n", msg);
	finish(a, 1);
}

/* --record: the snapshot as a frame of the recording (of the file its time
 * names, with % escapes). A frame that cannot be written is cut back off
 * the file, and the recording stops. */
static void record(struct app *a, const struct model *m)
{
	char msg[2 * PATH_MAX + 160], path[PATH_MAX];
	unsigned char *buf;
	size_t len = 0;
	int ret;

	if (a->rec.fd < 0 && !a->rec_pending)
		return;
	record_path(a, m->wall_ns, path, sizeof(path));
	if (a->rec_pending || strcmp(path, a->rec.name)) {
		a->rec_pending = false;
		output_close(&a->rec);
		if (record_open(a, path, msg, sizeof(msg))) {
			record_stop(a, msg);
			return;
		}
	}
	buf = pfr_encode(&a->recw, m, a->rec.size == 0, &len);
	ret = buf ? output_write(&a->rec, (const char *)buf, len) : -errno;
	free(buf);
	if (!ret)
		return;
	snprintf(msg, sizeof(msg),
	         "cannot write %s: %s; recording stopped (the frames before this one are "
	         "whole)",
	         a->rec.name, strerror(-ret));
	record_stop(a, msg);
}

/*
 * Print the model: the viewer draws it, batch mode writes one whole
 * snapshot. When no one reads any more (EPIPE), printing stops: a run
 * without a command ends (status 0), one with a command counts on to its
 * end. Any other write error ends the run with status 1.
 */
static void emit(struct app *a)
{
	size_t len = 0;
	char *buf;
	int ret;

	exporter_update(&a->ex, session_model(a->s));
	record(a, session_model(a->s));
	if (a->headless) {
		a->snapshots++;
		return;
	}
	if (a->view) {
		a->hist_pos = -1; /* new figures: the live screen again */
		view_timeline(a->view, "");
		view_draw(a->view, session_model(a->s));
		/* kept for going back once on the screen: a frame waits for nothing */
		if (a->hist_on && timeline_add(&a->hist, session_model(a->s)) == 0 &&
		    timeline_len(&a->hist) > HISTORY_MAX_FRAMES)
			timeline_forget(&a->hist, timeline_len(&a->hist) - HISTORY_MAX_FRAMES);
		return;
	}
	a->snapshots++;
	if (a->opt.record_only)
		return;
	if (a->out.fd < 0 && !a->replace)
		return; /* its reader has gone */
	if (a->opt.format == SNAPSHOT_FOLDED) {
		/* Collapsed stacks are one whole: written with the totals. */
		if (!session_model(a->s)->final)
			return;
		buf = session_folded(a->s, &len);
		ret = buf ? output_write(&a->out, buf, len) : -errno;
	} else if (snapshot_format_is_metrics(a->opt.format)) {
		const enum om_dialect d =
		    a->opt.format == SNAPSHOT_OPENMETRICS ? OM_OPENMETRICS : OM_PROMETHEUS;

		buf = exporter_render(&a->ex, d, &len);
		if (buf && a->replace)
			ret = output_replace(a->opt.output, buf, len);
		else
			ret = buf ? output_write(&a->out, buf, len) : -errno;
	} else {
		/* the hotspot rows kept for a recording, cut back to --hot's */
		struct model shown = model_cut_hot(session_model(a->s), a->hot_rows_saved);
		buf = snapshot_render_run(&shown, a->opt.format, &a->out.text, a->out.size == 0,
		                          &len);
		ret = buf ? output_write(&a->out, buf, len) : -errno;
	}
	free(buf);
	if (ret == -EPIPE) {
		if (session_mode(a->s) != MODEL_COMMAND)
			finish(a, 0);
	} else if (ret) {
		untrusted_complain("cannot write %s: %s%s\n", a->out.name, strerror(-ret),
		                   a->out.regular ? " (it holds the snapshots before this one)"
		                                  : "");
		output_close(&a->out);
		finish(a, 1);
	}
}

/* Write the current screen to pfmtop-YYYYmmdd-HHMMSS.txt in the current directory. */
static void save_snapshot(struct app *a)
{
	char path[64], msg[PATH_MAX + 64], *buf;
	time_t now = time(NULL);
	struct tm tm;
	size_t len = 0;
	int ret;

	/* The batch renderer over the same model, with batch mode's hotspot rows. */
	struct model shown = model_cut_hot(session_model(a->s), a->hot_rows_saved);
	localtime_r(&now, &tm);
	strftime(path, sizeof(path), "pfmtop-%Y%m%d-%H%M%S.txt", &tm);
	buf = snapshot_render(&shown, SNAPSHOT_TEXT, false, &len);
	ret = buf ? output_new_file(path, buf, len) : -errno;
	free(buf);
	if (ret)
		snprintf(msg, sizeof(msg), "cannot save %s: %s", path, strerror(-ret));
	else
		snprintf(msg, sizeof(msg), "saved %s", path);
	view_status(a->view, msg);
}

/*
 * The end of the run: everything stops counting, then (batch, with cut)
 * the last interval, cut short, is printed with its true length (unless -n
 * has been reached), and the totals since the start: the interval
 * snapshots add up to them. The viewer shows the totals of a command.
 */
static void last_snapshots(struct app *a, bool cut)
{
	bool enough = a->opt.iterations && a->snapshots >= a->opt.iterations;

	session_stop(a->s);
	if (!a->view && !enough && cut) {
		session_tick_partial(a->s);
		emit(a);
	}
	if (!a->finished) {
		session_tick(a->s, true);
		emit(a);
	}
}

/* The status line under a running command: where its output goes and its
 * last line; at its exit, a banner with its status. */
static void command_banner(struct app *a)
{
	char msg[320];

	if (a->command_done)
		snprintf(msg, sizeof(msg), "command exited with status %d; q quits%s%.200s",
		         session_exit_status(a->s), a->cmd_out.fd >= 0 ? "; output: " : "",
		         a->cmd_out.path);
	else
		snprintf(msg, sizeof(msg), "output in %.150s%s%.150s", a->cmd_out.path,
		         a->cmd_out.last[0] ? ": " : "", a->cmd_out.last);
	view_banner(a->view, a->cmd_out.fd >= 0 || a->command_done ? msg : "", a->command_done);
}

static void on_tick(struct loop *l, uint64_t expirations, void *arg)
{
	struct app *a = arg;

	bool enough = a->opt.iterations && a->snapshots >= a->opt.iterations;

	if (a->command_done)
		return; /* the totals stay on the screen */
	if (a->view && cmdout_poll(&a->cmd_out))
		command_banner(a);
	exporter_run(&a->ex); /* its connections' timeouts */
	if (a->first_tick == FIRST_HALF) {
		/* Half-way: the code sampled so far is named now, so that the
		 * first frame does not wait for its symbol tables. The frame
		 * comes FIRST_TICK_NS after the start all the same, or at once
		 * when reading the kernel's symbols (kallsyms, before the cache
		 * has them) made this tick late. */
		uint64_t spent;

		a->first_tick = FIRST_SECOND;
		session_warm(a->s);
		spent = util_now_ns() - a->first_ns;
		loop_set_tick(l,
		              spent + FIRST_TICK_MIN_NS < FIRST_TICK_NS ? FIRST_TICK_NS - spent
		                                                        : FIRST_TICK_MIN_NS,
		              on_tick, a);
		return;
	}
	if (a->first_tick == FIRST_SECOND) {
		/* After the view's short first interval, the chosen one. */
		a->first_tick = FIRST_OVER;
		loop_set_tick(l, a->opt.session.interval_ns, on_tick, a);
	}
	if (a->view && view_paused(a->view))
		return;
	if (expirations > 1)
		session_missed_ticks(a->s, expirations - 1);
	session_tick(a->s, false);
	/* With a command, -n limits the intervals; its totals come at its exit. */
	if (!(enough && session_mode(a->s) == MODEL_COMMAND && !a->view))
		emit(a);
	enough = a->opt.iterations && a->snapshots >= a->opt.iterations;
	if (enough && session_mode(a->s) != MODEL_COMMAND && !a->view) {
		if (a->opt.format == SNAPSHOT_FOLDED)
			last_snapshots(a, true); /* folded stacks come with the totals */
		finish(a, 0);
	} else if (session_done(a->s) && session_mode(a->s) != MODEL_COMMAND) {
		if (!a->view) /* the tick saw the last one gone before its pidfd did */
			last_snapshots(a, false);
		finish(a, 0);
	}
}

static void final_for_command(struct app *a)
{
	last_snapshots(a, true);
	if (!a->view || a->quit_asked) {
		a->command_done = a->view != NULL; /* the summary after the view */
		finish(a, session_exit_status(a->s));
		return;
	}
	/* The viewer stays on the totals until the user has read them. */
	a->command_done = true;
	cmdout_poll(&a->cmd_out);
	view_status(a->view, "");
	command_banner(a);
}

/* The session's fds go through these, so a reopen can stop watching them all. */
static void on_http(struct loop *l, int fd, uint32_t events, void *arg)
{
	exporter_run(&((struct app *)arg)->ex);
}

static void watch(struct app *a, int fd, loop_fd_fn fn)
{
	if (a->nr_watched == MAX_WATCHED || loop_add_fd(a->loop, fd, EPOLLIN, fn, a))
		return;
	a->watched[a->nr_watched++] = fd;
}

static void unwatch(struct app *a, int fd)
{
	loop_del_fd(a->loop, fd);
	for (int i = 0; i < a->nr_watched; i++)
		if (a->watched[i] == fd) {
			a->watched[i] = a->watched[--a->nr_watched];
			break;
		}
}

static void on_process_exit(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct app *a = arg;

	unwatch(a, fd);
	session_process_exited(a->s, fd);
	if (session_done(a->s)) {
		/* The last process is gone: show its last interval now, then stop
		 * (batch: with the totals since the start, as perf stat -p gives). */
		if (a->view) {
			session_tick(a->s, false);
			emit(a);
		} else {
			last_snapshots(a, true);
		}
		finish(a, 0);
	}
}

static void watch_pidfd(int fd, void *arg)
{
	struct app *a = arg;

	watch(a, fd, on_process_exit);
}

static void on_ring(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct app *a = arg;

	session_ring_drain(a->s, fd);
	if (events & (EPOLLHUP | EPOLLERR))
		unwatch(a, fd); /* its task is gone; the tick drains what is left */
}

static void watch_ring(int fd, void *arg)
{
	struct app *a = arg;

	watch(a, fd, on_ring);
}

static void on_watch(struct loop *l, int fd, uint32_t events, void *arg)
{
	session_watch_drain(((struct app *)arg)->s, fd);
}

static void watch_tasks(int fd, void *arg)
{
	struct app *a = arg;

	watch(a, fd, on_watch);
}

static void on_signal(struct loop *l, int sig, pid_t sender, void *arg)
{
	struct app *a = arg;

	switch (sig) {
	case SIGCHLD:
		if (session_mode(a->s) == MODEL_COMMAND && session_reap(a->s))
			final_for_command(a);
		break;
	case SIGWINCH:
		if (a->view)
			view_resize(a->view);
		break;
	case SIGINT:
	case SIGTERM:
	case SIGHUP:
	case SIGQUIT:
		if (session_command_running(a->s)) {
			/* Pass it on and print the totals when the command has gone. */
			session_signal_command(a->s, a->stopping ? SIGKILL : sig);
			a->stopping = true;
			break;
		}
		/* A service has no terminal to lose and nothing to reload. */
		if (a->headless && sig == SIGHUP && session_mode(a->s) != MODEL_COMMAND) {
			fprintf(stderr, "pfmtop: SIGHUP: nothing to reload, going on (SIGTERM, "
			                "SIGINT or SIGQUIT stops it)\n");
			break;
		}
		/* Interrupted: the totals so far, and a status that says so; a
		 * service told to stop has done nothing wrong. */
		if (!a->view && session_mode(a->s) != MODEL_COMMAND)
			last_snapshots(a, true);
		finish(a, a->headless && sig != SIGHUP ? 0 : 128 + sig);
		break;
	}
}

static void apply_preset(struct app *a, const struct preset *p, struct preset_resolved *r);

/* Hotspot settings from the viewer into the one configuration: the
 * session reads it (a->opt.session) at every tick, and a reopen keeps it. */
static void apply_profile(struct app *a, const struct view_settings *vs)
{
	struct profile_config *pc = &a->opt.session.profile;

	pc->hide_kernel = vs->hide_kernel;
	pc->hide_user = vs->hide_user;
	pc->accumulated = vs->accumulated;
	if (vs->hot_keys[0])
		util_strlcpy(pc->hot_keys, vs->hot_keys, sizeof(pc->hot_keys));
	pc->filter = vs->hot_filter;
	pc->filter_pid = vs->hot_filter ? vs->filter_pid : -1;
	pc->filter_cpu = vs->hot_filter ? vs->filter_cpu : -1;
	pc->annotate = vs->annotate;
	pc->annotate_pid = vs->annotate_pid;
	pc->annotate_ip = vs->annotate_ip;
	pc->annotate_kernel = vs->annotate_kernel;
	session_annotate_now(a->s);
}

static void watch_session(struct app *a)
{
	session_for_each_pidfd(a->s, watch_pidfd, a);
	session_for_each_ring_fd(a->s, watch_ring, a);
	session_for_each_watch_fd(a->s, watch_tasks, a);
}

/*
 * Close the session and open it again with the viewer's preset and thread
 * setting, on the same loop: every fd the loop watched for the old session
 * is dropped first, the new session's fds are watched after. On failure the
 * old settings are tried once more; if that fails too, pfmtop stops.
 */
static void reopen(struct app *a, const char *preset, bool threads)
{
	char err[512], msg[1024], old_preset[sizeof(a->opt.session.preset)], first_err[400] = "";
	bool old_threads = a->opt.session.threads;
	const char *file = a->opt.preset && actions_is_file(a->opt.preset) ? a->opt.preset : NULL;
	const struct preset *chosen[2];
	const struct preset_file *skipped = NULL;
	struct preset_set set;
	int ret, nr_skipped = 0;

	util_strlcpy(old_preset, a->opt.session.preset, sizeof(old_preset));
	/* The preset files may have changed: check before anything is closed. */
	if (actions_try_load_presets(&set, file, NULL, err, sizeof(err))) {
		view_status(a->view, err);
		view_draw(a->view, session_snapshot(a->s));
		return;
	}
	probe_collect(&a->probe); /* the machine as it is now, for this start */
	if (preset_broken_file(&set, preset)) {
		/* the viewer owns the screen: the status line says it */
		snprintf(err, sizeof(err), "preset %s: %.400s", preset,
		         actions_skipped_line(preset_broken_file(&set, preset), msg, sizeof(msg)));
		view_status(a->view, err);
		view_draw(a->view, session_snapshot(a->s));
		preset_set_free(&set);
		return;
	}
	for (int i = 0; i < set.nr_files; i++)
		if (set.files[i].ret && !nr_skipped++)
			skipped = &set.files[i];
	chosen[0] = actions_preset_find_for(&set, preset, &a->probe);
	chosen[1] = actions_preset_find_for(&set, old_preset, &a->probe);
	if (!chosen[0] || !chosen[1] || actions_preset_misspelt(chosen[0], err, sizeof(err))) {
		if (!chosen[0] || !chosen[1])
			snprintf(err, sizeof(err), "preset %s is gone from the preset files",
			         chosen[0] ? old_preset : preset);
		view_status(a->view, err);
		view_draw(a->view, session_snapshot(a->s));
		preset_set_free(&set);
		return;
	}
	while (a->nr_watched)
		unwatch(a, a->watched[a->nr_watched - 1]);
	session_fini(a->s);
	for (int attempt = 0; attempt < 2; attempt++) {
		apply_preset(a, chosen[attempt], &a->resolved);
		a->opt.session.sort_fallback = true; /* --sort too: a column the new one lacks */
		a->opt.session.threads = attempt ? old_threads : threads;
		ret = session_init(a->s, &a->opt.session, err, sizeof(err));
		if (!ret)
			ret = session_start(a->s, err, sizeof(err));
		if (!ret) {
			watch_session(a);
			/* the new model first: the status line redraws the screen */
			session_tick(a->s, false);
			exporter_update(&a->ex, session_model(a->s));
			view_draw(a->view, session_model(a->s));
			if (attempt) {
				snprintf(msg, sizeof(msg), "preset %s: %.300s; kept %s", preset,
				         first_err, old_preset);
				view_status(a->view, msg);
			} else if (skipped) {
				/* warnings go to the status line, not over the screen */
				snprintf(err, sizeof(err),
				         "skipped %.300s%s (preset %s, a row per %s)",
				         actions_skipped_line(skipped, msg, sizeof(msg)),
				         nr_skipped > 1 ? " and more: see --check-presets" : "",
				         session_preset(a->s), threads ? "thread" : "process");
				view_status(a->view, err);
			} else {
				snprintf(err, sizeof(err), "preset %s, a row per %s%s%s",
				         session_preset(a->s), threads ? "thread" : "process",
				         session_sort_note(a->s)[0] ? "; " : "",
				         session_sort_note(a->s));
				view_status(a->view, err);
			}
			preset_set_free(&set);
			return;
		}
		if (!attempt) {
			util_strlcpy(first_err, err[0] ? err : strerror(-ret), sizeof(first_err));
			session_fini(a->s); /* run() finishes the last one */
		}
	}
	preset_set_free(&set);
	view_close(a->view);
	a->view = NULL;
	untrusted_complain("cannot reopen the counters: %s\n", err[0] ? err : strerror(-ret));
	finish(a, 1);
}

/* What the view shows: the live model, or a snapshot of the history. */
static const struct model *shown(struct app *a)
{
	return a->hist_pos >= 0 && a->hist.have_m ? &a->hist.m : session_snapshot(a->s);
}

/* ← → [ ] g: through the history kept; the live screen is paused meanwhile. */
static void history_move(struct app *a, const struct view_settings *vs, unsigned act)
{
	const long n = timeline_len(&a->hist);
	long pos = a->hist_pos < 0 ? n - 1 : a->hist_pos;
	char msg[320], err[320], when[48];
	const struct model *m;
	uint64_t w;

	if (!a->hist_on || !n) {
		view_status(a->view, a->hist_on ? "nothing to look back at yet"
		                                : "no history kept (--history 0)");
		return;
	}
	if (act & VIEW_GOTO) {
		m = timeline_show(&a->hist, pos, err, sizeof(err));
		if (!m || timeline_parse_time(vs->when, m->wall_ns, &w)) {
			snprintf(msg, sizeof(msg),
			         "g: '%.40s' is not a time: give HH:MM:SS or YYYY-MM-DD HH:MM:SS",
			         vs->when);
			view_status(a->view, msg);
			return;
		}
		pos = timeline_find(&a->hist, w);
	} else {
		pos += vs->step;
	}
	msg[0] = '\0';
	if (pos >= n - 1)
		snprintf(msg, sizeof(msg), "the newest interval; space goes on live");
	else if (pos <= 0)
		snprintf(msg, sizeof(msg), "the oldest interval kept (--history %.3g minutes)",
		         a->opt.history_s / 60);
	m = timeline_show(&a->hist, pos, err, sizeof(err));
	if (!m) {
		view_status(a->view, err);
		return;
	}
	a->hist_pos = a->hist.pos;
	timeline_clock(m->wall_ns, when, sizeof(when));
	snprintf(err, sizeof(err), "history %s  %ld back%s", when + 11, n - 1 - a->hist_pos,
	         m->final ? " totals" : "");
	view_timeline(a->view, err);
	if (msg[0])
		view_status(a->view, msg);
}

/* The settings file: read (unless --no-config) for what the command line
 * did not give; a file that cannot be read is a warning, and the defaults. */
static void settings_load(struct app *a)
{
	char err[sizeof(a->rc_warn) - 64];
	int ret;

	if (a->opt.no_config || rcfile_path(a->rc_path, sizeof(a->rc_path)))
		return;
	ret = rcfile_load(&a->rc, a->rc_path, err, sizeof(err));
	a->rc_on = !ret || ret == -ENOENT;
	if (!a->rc_on)
		snprintf(a->rc_warn, sizeof(a->rc_warn),
		         "%s; the defaults are used (fix or remove it)", err);
	rcfile_apply(&a->rc, &a->opt);
}

/* The view's settings into the settings file, at q. */
static void settings_save(struct app *a)
{
	char err[sizeof(a->rc_warn) - 64];

	if (!a->rc_on || !a->view)
		return;
	view_rc_get(a->view, &a->rc);
	if (rcfile_save(&a->rc, a->rc_path, err, sizeof(err)))
		snprintf(a->rc_warn, sizeof(a->rc_warn), "%s", err);
}

static void on_key(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct app *a = arg;

	/* The terminal is gone (its other end closed, with no SIGHUP for a
	 * terminal that is not ours to control): as a hangup, never a loop
	 * spinning on it. */
	if (events & (EPOLLHUP | EPOLLERR)) {
		loop_del_fd(l, fd);
		session_signal_command(a->s, SIGHUP);
		finish(a, 128 + SIGHUP);
		return;
	}
	unsigned act = view_input(a->view);
	const struct view_settings *vs = view_settings(a->view);

	if (act & VIEW_QUIT) {
		settings_save(a);
		if (session_command_running(a->s) && !a->command_done) {
			/* As perf stat on Ctrl-C: the command stops, and its totals
			 * and status follow when it has gone (a second q kills it). */
			session_signal_command(a->s, a->quit_asked ? SIGKILL : SIGTERM);
			a->quit_asked = true;
			view_status(a->view, "q: the command is told to stop; its totals follow "
			                     "(q again: SIGKILL)");
			return;
		}
		finish(a, a->command_done ? session_exit_status(a->s) : 0);
		return;
	}
	if (act & VIEW_PROFILE)
		apply_profile(a, vs);
	if (act & VIEW_DELAY) {
		a->opt.session.interval_ns = vs->interval_ns;
		loop_set_tick(a->loop, vs->interval_ns, on_tick, a);
	}
	if (act & (VIEW_PRESET | VIEW_THREADS)) {
		reopen(a, vs->preset, vs->threads);
		if (!a->view)
			return;
	}
	if (act & (VIEW_STEP | VIEW_GOTO))
		history_move(a, vs, act);
	else if ((act & VIEW_PAUSE) && !view_paused(a->view) && a->hist_pos >= 0) {
		a->hist_pos = -1; /* resumed: the live screen */
		view_timeline(a->view, "");
	}
	if (act & VIEW_SAVE)
		save_snapshot(a);
	else if (act &
	         (VIEW_PAUSE | VIEW_REDRAW | VIEW_DELAY | VIEW_PROFILE | VIEW_STEP | VIEW_GOTO))
		view_draw(a->view, shown(a));
}

/* ---- the one-shot actions ---- */

static int print_version(void)
{
	const struct pfmlib *lib = pfmlib_get(NULL, 0);

	printf("pfmtop %s\n", PFMTOP_VERSION);
	if (lib)
		printf("libpfm4 %d.%d (API), ", PFM_MAJ_VERSION(lib->get_version()),
		       PFM_MIN_VERSION(lib->get_version()));
	else
		printf("libpfm4 not installed, ");
	printf("%s, ", curses_version());
	printf("inih r%s\n", PFMTOP_INIH_VERSION);
	return 0;
}

/* The chooser's trial of one name: resolved into a->known, where the
 * session finds it again. */
static int can_open_known(const char *event, char *why, size_t whylen, void *arg)
{
	struct app *a = arg;
	struct event_desc d;
	int ret = events_table_resolve(&a->known, NULL, event, &d, why, whylen);

	return ret ? ret : session_can_open_desc(&d, why, whylen, &a->probe);
}

/* Turn the chosen preset into the session's events: fallbacks where they
 * were needed, and events nothing stands in for kept, to be shown as not
 * supported with their reason. */
static void apply_preset(struct app *a, const struct preset *p, struct preset_resolved *r)
{
	struct session_config *c = &a->opt.session;

	events_table_free(&a->known); /* the machine may have changed since the last choice */
	preset_choose(p, can_open_known, a, r);
	memset(&c->events, 0, sizeof(c->events));
	for (int i = 0; i < r->nr && i < EVENTS_LIST_MAX; i++) {
		util_strlcpy(c->events.name[i], r->ev[i].dropped ? r->ev[i].wanted : r->ev[i].used,
		             sizeof(c->events.name[i]));
		c->events.group[i] = p->ev[i].group;
		c->events.nr++;
	}
	c->events.nr_groups = p->nr_groups;
	c->resolved = r;
	c->known = &a->known;
	util_strlcpy(c->preset, p->name, sizeof(c->preset));
	/* --sort stands; else each preset's own (or none), so that switching
	 * presets never keeps a column the new one lacks */
	if (!a->opt.sort_given)
		util_strlcpy(c->sort, p->sort, sizeof(c->sort));
}

/* ---- run ---- */

/* After the viewer: a command's totals as perf stat gives them, and where
 * its output is. */
static void command_summary(struct app *a)
{
	off_t size = cmdout_size(&a->cmd_out);
	bool had_file = a->cmd_out.fd >= 0;

	if (a->command_done && !a->opt.batch)
		cmdsummary_print(stderr, session_model(a->s), session_exit_status(a->s));
	cmdout_close(&a->cmd_out);
	if (had_file && !a->opt.batch && a->cmd_out.path[0] && size >= 0)
		untrusted_complain("the command's output (%lld bytes) is in %s\n", (long long)size,
		                   a->cmd_out.path);
	else if (had_file && !a->opt.batch && !a->cmd_out.path[0])
		untrusted_complain("the command wrote no output\n");
}

static int run(struct app *a)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH};
	char err[512];
	int ret;

	/* A service: no view, nothing printed, only /metrics served. */
	a->headless = a->opt.daemon ||
	              ((a->opt.listen || a->opt.record) && !a->opt.batch && !isatty(STDOUT_FILENO));
	a->rec.fd = -1;
	a->hist_pos = -1;
	if (!a->opt.batch && !a->headless && !isatty(STDOUT_FILENO))
		die_usage("standard output is not a terminal: use batch mode, e.g. 'pfmtop -b -n "
		          "3' (add -o FILE to write a file)");
	if (!a->opt.batch && !a->headless && view_term_check(err, sizeof(err)))
		die_usage(err);
	if (a->opt.output && !a->opt.batch)
		die_usage("-o writes batch snapshots: add -b (press s in the interactive view to "
		          "save one)");
	if (!a->opt.batch && !a->headless)
		settings_load(a);
	/* The machine, probed once: the preset's choice and the session use it. */
	probe_collect(&a->probe);
	a->opt.session.probe = &a->probe;
	if (!a->opt.events_given) {
		struct preset_set presets, *set = &presets;
		const char *arg = a->opt.preset ? a->opt.preset : "default";

		/* The built-in presets of other names are not parsed: the viewer's
		 * p needs only their names, and reads the files again. */
		actions_load_presets(set, actions_is_file(arg) ? arg : NULL, arg);
		const struct preset *p = actions_pick_preset(set, arg, &a->probe);
		if (actions_preset_misspelt(p, err, sizeof(err)))
			die_usage(err); /* a typo, as with -e: the user's to fix */
		apply_preset(a, p, &a->resolved);
		a->nr_preset_names = preset_base_names(set, a->preset_names, MAX_PRESET_NAMES);
		for (int i = 0; i < a->nr_preset_names; i++)
			a->preset_list[i] = a->preset_names[i];
		preset_set_free(set);
	}
	/* a remembered sort that this preset lacks: by CPU% (the status line
	 * says so); --sort's is the user's to fix */
	if (a->rc.have_sort && !a->opt.sort_given)
		util_strlcpy(a->opt.session.sort, a->rc.sort, sizeof(a->opt.session.sort));
	a->opt.session.sort_fallback = !a->opt.sort_given;
	/* the view shows every row, and a recording keeps every row */
	a->opt.session.users_all = (!a->opt.batch && !a->headless) || a->opt.record;
	a->hot_rows_saved = a->opt.session.profile.top;
	if (!a->opt.batch && !a->headless && !a->opt.hot_given)
		a->opt.session.profile.top = HOT_ROWS_INTERACTIVE;
	else if (a->opt.record && a->opt.session.profile.top < PFR_HOT_ROWS)
		a->opt.session.profile.top = PFR_HOT_ROWS; /* printed: --hot's rows */
	/* Exported tasks are the model's first; a service keeps every task's sums. */
	if (a->headless && a->opt.listen)
		a->opt.session.top_n = 0;
	else if (a->opt.export_tasks && a->opt.session.top_n &&
	         a->opt.session.top_n < a->opt.export_tasks)
		a->opt.session.top_n = a->opt.export_tasks;
	a->opt.session.profile.filter_pid = -1;
	a->opt.session.profile.filter_cpu = -1;
	/* /metrics has no hotspots: a service that only serves it samples nothing. */
	if (a->headless && !a->opt.record)
		a->opt.session.profile.enabled = false;
	/* A command's output: to a file under the view, apart from -b's snapshots. */
	cmdout_init(&a->cmd_out);
	if (a->opt.session.mode == MODEL_COMMAND && !a->headless) {
		if (cmdout_choose(&a->cmd_out, a->opt.command_output, a->opt.batch, a->opt.output,
		                  a->opt.format == SNAPSHOT_TEXT, &a->opt.session.command_out, err,
		                  sizeof(err)))
			die_usage(err);
	}
	/* Signals are blocked before the command is forked, so none is lost. */
	a->loop = loop_new();
	if (!a->loop || loop_watch_signals(a->loop, sigs, (int)ARRAY_SIZE(sigs), on_signal, a)) {
		untrusted_complain("cannot set up the event loop: %s\n", strerror(errno));
		cmdout_close(&a->cmd_out);
		return 1;
	}
	ret = session_init(a->s, &a->opt.session, err, sizeof(err));
	if (ret) {
		untrusted_complain("%s\n", err[0] ? err : strerror(-ret));
		session_fini(a->s);
		loop_free(a->loop);
		cmdout_close(&a->cmd_out);
		return usage_class(ret) ? 2 : 1;
	}
	/* Before the command is launched or anything counted. */
	a->replace = snapshot_format_is_metrics(a->opt.format) && a->opt.output &&
	             strcmp(a->opt.output, "-");
	if (a->replace) {
		a->out.fd = -1;
		util_strlcpy(a->out.name, a->opt.output, sizeof(a->out.name));
		ret = output_replace_check(a->opt.output, a->opt.output_mode == OUTPUT_REPLACE, err,
		                           sizeof(err));
	} else {
		ret = output_open(&a->out, a->opt.output, a->opt.output_mode, err, sizeof(err));
		a->out.text.wide = a->opt.wide;
	}
	if (!ret && a->opt.record) {
		char path[PATH_MAX];

		ret = pfr_writer_init(&a->recw, 0);
		snprintf(err, sizeof(err), "--record: out of memory");
		record_path(a, util_wall_ns(), path, sizeof(path));
		/* With % escapes the first snapshot may name another file: this
		 * one is only tried now, and not left behind empty. */
		bool existed = !ret && strcmp(path, a->opt.record) && access(path, F_OK) == 0;
		if (!ret)
			ret = record_open(a, path, err, sizeof(err));
		struct stat opened, named;
		/* what is at path is still the file opened (not one put there since) */
		bool same = !ret && !fstat(a->rec.fd, &opened) && !lstat(path, &named) &&
		            opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
		if (!ret && strcmp(path, a->opt.record) && !existed && !a->rec.size) {
			if (same)
				unlink(path);
			output_close(&a->rec);
			a->rec_pending = true;
		}
	}
	int code = 2; /* -o's target is the user's to fix */
	if (!ret) {
		struct exporter_config ec = {
		    .listen = a->opt.listen,
		    .allow_remote = a->opt.allow_remote,
		    .web_config = a->opt.web_config,
		    .tasks = a->opt.export_tasks,
		    .cmdline = a->opt.export_cmdline,
		};
		ret = exporter_open(&a->ex, &ec, snapshot_format_is_metrics(a->opt.format), err,
		                    sizeof(err));
		code = usage_class(ret) ? 2 : 1; /* a bad address or file, or a port in use */
	}
	if (ret) {
		exporter_close(&a->ex);
		untrusted_complain("%s\n", err);
		session_fini(a->s);
		loop_free(a->loop);
		cmdout_close(&a->cmd_out);
		return code;
	}
	if (exporter_fd(&a->ex) >= 0)
		loop_add_fd(a->loop, exporter_fd(&a->ex), EPOLLIN, on_http, a);
	if (a->headless && a->opt.listen)
		fprintf(stderr, "pfmtop: serving %s\n", exporter_where(&a->ex));
	if (a->headless && a->opt.record)
		fprintf(stderr, "pfmtop: recording to %s (stops on SIGTERM or SIGINT)\n",
		        a->rec.name);
	if (!a->opt.batch && !a->headless) {
		struct view_config vc = {
		    .theme = a->opt.theme,
		    .kind = a->opt.view,
		    .mode = session_mode(a->s),
		    .settings =
		        {
		            .interval_ns = a->opt.session.interval_ns,
		            .threads = a->opt.session.threads,
		            .hide_kernel = a->opt.session.profile.hide_kernel,
		            .hide_user = a->opt.session.profile.hide_user,
		            .accumulated = a->opt.session.profile.accumulated,
		            .filter_pid = -1,
		            .filter_cpu = -1,
		        },
		    .presets = a->preset_list,
		    .nr_presets = a->nr_preset_names,
		    .can_reopen = session_mode(a->s) != MODEL_COMMAND && !a->opt.events_given,
		    .cannot_reopen = session_mode(a->s) == MODEL_COMMAND
		                         ? "not while running a command (it would start again)"
		                         : "events were given with -e; use --preset instead",
		    .no_history = a->opt.history_s <= 0,
		    .rc_path = a->rc_on           ? a->rc_path
		               : a->opt.no_config ? "nowhere (--no-config)"
		                                  : "nowhere (the settings file did not read)",
		};
		util_strlcpy(vc.settings.preset, a->opt.session.preset, sizeof(vc.settings.preset));
		util_strlcpy(vc.settings.hot_keys, a->opt.session.profile.hot_keys,
		             sizeof(vc.settings.hot_keys));
		a->view = view_open(&vc, err, sizeof(err));
		if (!a->view) {
			exporter_close(&a->ex);
			untrusted_complain("%s\n", err);
			session_fini(a->s);
			loop_free(a->loop);
			cmdout_close(&a->cmd_out);
			return 1;
		}
		loop_add_fd(a->loop, STDIN_FILENO, EPOLLIN, on_key, a);
		a->hist_on = a->opt.history_s > 0 &&
		             !timeline_open_history(&a->hist, (uint64_t)(a->opt.history_s * 1e9));
		if (a->cmd_out.fd >= 0)
			command_banner(a);
		if (a->rc.have_columns &&
		    view_rc_columns_set(a->view, a->rc.columns, err, sizeof(err)) && !a->rc_warn[0])
			snprintf(a->rc_warn, sizeof(a->rc_warn),
			         "%s: columns: %.200s; the default columns", a->rc_path, err);
	}
	ret = session_start(a->s, err, sizeof(err));
	if (ret) {
		view_close(a->view);
		a->view = NULL;
		untrusted_complain("%s\n", err[0] ? err : strerror(-ret));
		/* as a shell: 127 not found, 126 found but not runnable */
		ret = session_mode(a->s) != MODEL_COMMAND ? 1 : ret == -ENOENT ? 127 : 126;
		goto out;
	}
	cmdout_notice(&a->cmd_out);
	if (a->view) {
		view_draw(a->view, NULL);
		if (a->rc_warn[0])
			view_status(a->view, a->rc_warn);
		else if (session_sort_note(a->s)[0])
			view_status(a->view, session_sort_note(a->s));
		if (a->opt.listen) {
			snprintf(err, sizeof(err), "serving %s", exporter_where(&a->ex));
			view_status(a->view, err);
		}
	}
	watch_session(a);
	/* A person waits for the first screen: it shows the first 50 ms (scaled
	 * as every interval is), then the chosen interval takes over. */
	a->first_tick =
	    a->view && a->opt.session.interval_ns > FIRST_TICK_NS ? FIRST_HALF : FIRST_OVER;
	a->first_ns = util_now_ns();
	loop_set_tick(a->loop,
	              a->first_tick == FIRST_HALF ? FIRST_TICK_NS / 2 : a->opt.session.interval_ns,
	              on_tick, a);
	/* Symbols load while the first interval runs, not before the first frame. */
	session_prepare(a->s);
	/* A command may already be gone (SIGCHLD then arrives through the loop). */
	ret = loop_run(a->loop);
	if (ret < 0) {
		untrusted_complain("event loop failed: %s\n", strerror(-ret));
		ret = 1;
	} else if (a->opt.session.profile.annotate_symbol && a->out.fd >= 0) {
		/* --annotate: the function's code and samples, after the last snapshot */
		size_t len = 0;
		char *buf = session_annotated(a->s, &len);

		if (buf)
			output_write(&a->out, buf, len); /* a reader gone: nothing more to say */
		free(buf);
	}
out:
	view_close(a->view);
	a->view = NULL;
	if (a->rc_warn[0])
		untrusted_complain("%s\n", a->rc_warn);
	command_summary(a);
	exporter_close(&a->ex);
	if (a->hist_on)
		timeline_close(&a->hist);
	int cret = output_close(&a->out);
	int rret = output_close(&a->rec);

	if (rret && !ret) {
		untrusted_complain("cannot write %s: %s\n", a->rec.name, strerror(-rret));
		ret = 1;
	}
	pfr_writer_fini(&a->recw);

	if (cret && !ret) {
		untrusted_complain("cannot write %s: %s\n", a->out.name, strerror(-cret));
		ret = 1;
	}
	session_fini(a->s);
	loop_free(a->loop);
	return ret;
}

/* Standard input, output and error that are closed are opened on /dev/null:
 * else the first fd pfmtop opens would take their place, and snapshots or
 * messages would go into it. */
static void std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			_exit(1);
}

int main(int argc, char **argv)
{
	static struct app app;
	char err[512];

	std_fds();
	/* The user's character set (ncursesw draws UTF-8 names with it), but
	 * numbers always as C writes them: JSON and scripts read them. */
	setlocale(LC_ALL, "");
	setlocale(LC_NUMERIC, "C");
	/* A reader that goes away is an EPIPE from write() (see emit()). */
	signal(SIGPIPE, SIG_IGN);

	if (options_parse(&app.opt, argc, argv, err, sizeof(err)))
		die_usage(err);
	/* before the view takes the screen: one line and exit 2 */
	if ((app.opt.action == OPTIONS_RUN || app.opt.action == OPTIONS_REPLAY) && !app.opt.batch &&
	    app.opt.theme && theme_check(app.opt.theme, err, sizeof(err)))
		die_usage(err);
	switch (app.opt.action) {
	case OPTIONS_HELP:
		options_usage(stdout);
		return 0;
	case OPTIONS_VERSION:
		return print_version();
	case OPTIONS_PROBE:
		return actions_probe(&app.opt);
	case OPTIONS_LIST_EVENTS:
		return actions_list_events(&app.opt);
	case OPTIONS_LIST_PRESETS:
		return actions_list_presets();
	case OPTIONS_CHECK_PRESET:
		return actions_check_preset(app.opt.check);
	case OPTIONS_CHECK_PRESETS:
		return actions_check_presets();
	case OPTIONS_CONVERT:
		return actions_convert(&app.opt);
	case OPTIONS_REPLAY:
		return app.opt.batch ? actions_convert(&app.opt) : replay_run(&app.opt);
	case OPTIONS_RUN:
		break;
	}
	app.s = session_new();
	if (!app.s) {
		untrusted_complain("out of memory\n");
		return 1;
	}
	int ret = run(&app);
	session_free(app.s);
	events_table_free(&app.known);
	return ret;
}
