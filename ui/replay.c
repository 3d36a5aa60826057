/* replay: the interactive view over a recording (--replay FILE). */
#include "replay.h"

#include "convert.h"
#include "loop.h"
#include "options.h"
#include "timeline.h"
#include "untrusted.h"
#include "util.h"
#include "view.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIN_TICK_NS 10000000ull    /* played no faster than 100 frames a second */
#define MAX_TICK_NS 10000000000ull /* nor slower than one in 10 s */

struct replay {
	const struct options *opt;
	int fd; /* the recording read (-1: a JSON Lines run, in memory) */
	struct loop *loop;
	struct view *view;
	struct timeline t;
	long pos;
	struct model shown; /* the frame, its hotspots filtered (Enter on a task) */
	struct model_hotspot *hot;
	int cap_hot;
};

/* The frame at pos as the view shows it: hotspots of one process when a
 * task's were asked for (the recording holds the top rows of all). */
static const struct model *frame(struct replay *r, char *err, size_t errlen)
{
	const struct model *m = timeline_show(&r->t, r->pos, err, errlen);
	const struct view_settings *vs = view_settings(r->view);

	if (!m || !vs->hot_filter || vs->filter_pid < 0)
		return m;
	r->shown = *m;
	if (m->nr_hot > r->cap_hot) {
		struct model_hotspot *h = realloc(r->hot, (size_t)m->nr_hot * sizeof(*h));

		if (!h)
			return m;
		r->hot = h;
		r->cap_hot = m->nr_hot;
	}
	r->shown.hot = r->hot;
	r->shown.nr_hot = 0;
	for (int i = 0; i < m->nr_hot; i++)
		if (m->hot[i].pid == vs->filter_pid)
			r->hot[r->shown.nr_hot++] = m->hot[i];
	r->shown.hot_total = r->shown.nr_hot;
	return &r->shown;
}

/* The name now names another file (one moved into its place): read that
 * one, once it is a recording, from its start. */
static void reopen_if_replaced(struct replay *r)
{
	struct stat now, was;
	int fd;

	if (r->fd < 0 || stat(r->opt->convert, &now) || fstat(r->fd, &was) ||
	    (now.st_dev == was.st_dev && now.st_ino == was.st_ino) || !S_ISREG(now.st_mode))
		return;
	fd = open(r->opt->convert, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &now) || !S_ISREG(now.st_mode) || pfr_is_recording(fd) != 1) {
		close(fd);
		return;
	}
	close(r->fd);
	r->fd = r->t.r.fd = fd;
	r->t.r.stale = true; /* indexed again by pfr_update() */
}

/* What was appended to a recording still being written, or the whole of
 * it again when it changed under the index (a recorder started again on
 * it with --force, another file moved into its place). */
static void follow(struct replay *r)
{
	unsigned before = r->t.r.rebuilds;

	if (r->fd < 0)
		return;
	reopen_if_replaced(r);
	pfr_update(&r->t.r);
	if (r->t.r.rebuilds != before)
		view_status(r->view, "recording written again from its start: read again");
}

static void clamp_pos(struct replay *r)
{
	if (r->pos >= timeline_len(&r->t))
		r->pos = timeline_len(&r->t) - 1;
	if (r->pos < 0)
		r->pos = 0;
}

static void show(struct replay *r)
{
	const struct view_settings *vs = view_settings(r->view);
	char err[320], when[48], text[96];
	const struct model *m;

	follow(r);
	clamp_pos(r);
	m = frame(r, err, sizeof(err));
	if (!m && r->t.r.stale) { /* a frame is not what was indexed: index again */
		follow(r);
		clamp_pos(r);
		m = frame(r, err, sizeof(err));
	}
	if (!m) {
		view_status(r->view, err);
		return;
	}
	timeline_clock(m->wall_ns, when, sizeof(when));
	when[19] = '\0'; /* MM-DD HH:MM:SS: it fits beside the host at 80 columns */
	/* the last frame of a command's run: its totals since the start */
	snprintf(text, sizeof(text), "replay %s %ld/%ld%s %s", when + 5, r->pos + 1,
	         timeline_len(&r->t), m->final ? " totals" : "",
	         view_paused(r->view) ? "paused" : "playing");
	if (vs->speed > 1)
		snprintf(text + strlen(text), sizeof(text) - strlen(text), " x%u", vs->speed);
	view_timeline(r->view, text);
	view_draw(r->view, m);
}

static void on_tick(struct loop *l, uint64_t expirations, void *arg);

/* Playing: the next frame comes after the time between the two, sped up. */
static void schedule(struct replay *r)
{
	const struct view_settings *vs = view_settings(r->view);
	uint64_t ns = 0;

	if (!view_paused(r->view) && r->pos + 1 < timeline_len(&r->t)) {
		const struct pfr_frame *f = r->t.r.frames;

		ns = f[r->pos + 1].wall_ns > f[r->pos].wall_ns
		         ? (f[r->pos + 1].wall_ns - f[r->pos].wall_ns) / (vs->speed ? vs->speed : 1)
		         : MIN_TICK_NS;
		ns = ns < MIN_TICK_NS ? MIN_TICK_NS : ns > MAX_TICK_NS ? MAX_TICK_NS : ns;
	}
	loop_set_tick(r->loop, ns, on_tick, r);
}

static void on_tick(struct loop *l, uint64_t expirations, void *arg)
{
	struct replay *r = arg;

	follow(r);
	if (r->pos + 1 < timeline_len(&r->t))
		r->pos++;
	show(r);
	if (r->pos + 1 >= timeline_len(&r->t))
		view_status(r->view, r->t.have_m && r->t.m.final
		                         ? "the end of the recording: this frame holds the run's "
		                           "totals, since its start"
		                         : "the end of the recording (space plays on when more "
		                           "is written to it)");
	schedule(r);
}

static void go_to(struct replay *r, const char *when)
{
	char msg[320];
	uint64_t w;
	const struct model *m = timeline_show(&r->t, r->pos, msg, sizeof(msg));

	if (!m || timeline_parse_time(when, m->wall_ns, &w)) {
		snprintf(msg, sizeof(msg),
		         "g: '%.40s' is not a time: give HH:MM:SS or YYYY-MM-DD "
		         "HH:MM:SS",
		         when);
		view_status(r->view, msg);
		return;
	}
	r->pos = timeline_find(&r->t, w);
}

static void on_key(struct loop *l, int fd, uint32_t events, void *arg)
{
	struct replay *r = arg;

	if (events & (EPOLLHUP | EPOLLERR)) { /* the terminal is gone */
		loop_del_fd(l, fd);
		loop_stop(l, 128 + SIGHUP);
		return;
	}
	unsigned act = view_input(r->view);
	const struct view_settings *vs = view_settings(r->view);

	if (act & VIEW_QUIT) {
		loop_stop(l, 0);
		return;
	}
	if (act & VIEW_STEP)
		r->pos += vs->step;
	if (act & VIEW_GOTO)
		go_to(r, vs->when);
	if (act & (VIEW_PAUSE | VIEW_SPEED))
		schedule(r);
	if (act & VIEW_SAVE)
		view_status(r->view, "s: a replay is saved with --replay FILE -b (--format text, "
		                     "json, csv)");
	if (act & (VIEW_REDRAW | VIEW_STEP | VIEW_GOTO | VIEW_PROFILE))
		show(r);
	if ((act & (VIEW_STEP | VIEW_GOTO)) && r->t.have_m && r->t.pos == r->pos && r->t.m.final)
		view_status(r->view, "this frame holds the run's totals, since its start (not one "
		                     "interval)");
}

static void on_signal(struct loop *l, int sig, pid_t sender, void *arg)
{
	struct replay *r = arg;

	if (sig == SIGWINCH)
		view_resize(r->view);
	else
		loop_stop(l, 128 + sig);
}

int replay_run(const struct options *o)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH};
	struct replay r = {.opt = o, .fd = -1};
	char err[512];
	int fd, ret;

	if (!isatty(STDOUT_FILENO)) {
		untrusted_complain(
		    "--replay: standard output is not a terminal: add -b to print the "
		    "recording\n");
		return 2;
	}
	if (view_term_check(err, sizeof(err))) {
		untrusted_complain("%s\n", err);
		return 2;
	}
	fd = convert_open("--replay", o->convert);
	if (fd < 0)
		return 2;
	if (pfr_is_recording(fd) == 1) {
		if (timeline_open_file(&r.t, fd, err, sizeof(err))) {
			untrusted_complain("%s: %s\n", o->convert, err);
			close(fd);
			return 1;
		}
		r.fd = fd;
		convert_losses(o->convert, &r.t.r);
	} else if (convert_load(o->convert, fd, &r.t)) { /* JSON Lines */
		timeline_close(&r.t);
		close(fd);
		return 1;
	}
	const struct model *first = timeline_show(&r.t, 0, err, sizeof(err));
	if (!first) {
		untrusted_complain("%s: %s\n", o->convert,
		                   timeline_len(&r.t) ? err : "no snapshot in it");
		timeline_close(&r.t);
		close(fd);
		return 1;
	}
	struct view_config vc = {
	    .theme = o->theme,
	    .kind = o->view,
	    .mode = first->mode,
	    .settings =
	        {
	            .interval_ns = (uint64_t)(first->interval_s * 1e9),
	            .filter_pid = -1,
	            .filter_cpu = -1,
	            .speed = 1,
	        },
	    .replay = true,
	    .paused = true,
	    .cannot_reopen = "a replay shows what was recorded; it counts nothing",
	};
	util_strlcpy(vc.settings.preset, first->preset, sizeof(vc.settings.preset));
	r.loop = loop_new();
	if (!r.loop || loop_watch_signals(r.loop, sigs, (int)ARRAY_SIZE(sigs), on_signal, &r)) {
		untrusted_complain("cannot set up the event loop\n");
		ret = 1;
		goto out;
	}
	r.view = view_open(&vc, err, sizeof(err));
	if (!r.view) {
		untrusted_complain("%s\n", err);
		ret = 1;
		goto out;
	}
	loop_add_fd(r.loop, STDIN_FILENO, EPOLLIN, on_key, &r);
	show(&r);
	view_status(r.view, "space plays, Left/Right step, [ ] ten, g goes to a time, q quits");
	ret = loop_run(r.loop);
	if (ret < 0)
		ret = 1;
out:
	view_close(r.view);
	loop_free(r.loop);
	timeline_close(&r.t);
	free(r.hot);
	close(r.fd >= 0 ? r.fd : fd); /* the file read last */
	return ret;
}
