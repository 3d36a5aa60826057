/* session: the engine: events, targets and counters, turned into the model each tick. */
#include "session_priv.h"

#include "explain.h"
#include "preset.h"
#include "sys.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Sampling for the hotspots, on the same targets as the counters. Only a bad
 * --sample-event name is fatal; anything else leaves a note and the
 * counters going. */
static int open_profile(struct session *s, char *err, size_t errlen)
{
	struct sampler_target *t = calloc((size_t)s->nr_targets + 1, sizeof(*t));
	pid_t *pids = calloc((size_t)s->nr_targets + 1, sizeof(*pids));
	int nr = 0, nr_pids = 0, ret;
	char why[512];

	if (!t || !pids) {
		free(t);
		free(pids);
		return -ENOMEM;
	}
	for (int i = 0; i < s->nr_targets; i++) {
		const struct session_target *st = &s->targets[i];
		if (st->exited)
			continue;
		t[nr].pid = st->tid >= 0 ? st->tid : -1;
		t[nr].cpu = st->tid >= 0 ? -1 : st->cpu;
		nr++;
		if (st->tid >= 0 && (nr_pids == 0 || pids[nr_pids - 1] != st->pid))
			pids[nr_pids++] = st->pid;
	}
	struct profile_where where = {
	    .targets = t,
	    .nr_targets = nr,
	    .inherit = s->mode != MODEL_SYSTEM && !s->cfg->no_inherit,
	    .enable_on_exec = s->mode == MODEL_COMMAND,
	    .user_only = s->user_only,
	    .cpus = s->cpus,
	    .nr_cpus = s->nr_cpus,
	    .probe = &s->probe,
	    .proc = &s->proc,
	    .pids = pids,
	    .nr_pids = nr_pids,
	    .zeroed = true, /* session_init() began with a clear session */
	};
	ret = profile_open(&s->prof, &s->cfg->profile, &where, why, sizeof(why));
	free(t);
	free(pids);
	if (ret && s->cfg->profile.event && (ret == -ENOENT || ret == -EINVAL)) {
		snprintf(err, errlen, "--sample-event: %s", why);
		return ret;
	}
	if (ret)
		model_note(&s->model, "no hotspots: %s", why);
	for (int i = 0; s->prof.open && i < s->prof.samp.nr_notes; i++)
		model_note(&s->model, "%s", s->prof.samp.notes[i]);
	return 0;
}

/* Under user-space-only counting, events that count in kernel context
 * alone stay closed with the reason: a constant 0 would pass for a count. */
static void refuse_kernel_only(struct session *s)
{
	for (int i = 0; i < s->nr_ev; i++) {
		if (s->user_only && session_kernel_context_only(&s->cev[i].attr)) {
			s->ev[i].err = EACCES;
			snprintf(s->ev[i].why, sizeof(s->ev[i].why),
			         "%s is counted in kernel context, which user-space-only counting "
			         "excludes (it would read 0); run as root or lower "
			         "kernel.perf_event_paranoid to 1 to count it",
			         s->ev[i].desc.name);
			s->cev[i].skip_err = EACCES;
		}
	}
}

/* The counters' targets: every CPU, the processes of -p (or one's own),
 * or the command, forked now and held before its exec. */
static int open_targets(struct session *s, char *err, size_t errlen)
{
	const struct session_config *cfg = s->cfg;
	int ret;

	switch (s->mode) {
	case MODEL_SYSTEM:
		for (int i = 0; i < s->nr_cpus; i++) {
			struct session_target *t = session_add_target(s);
			if (!t)
				return -ENOMEM;
			t->cpu = s->cpus[i];
			session_open_target(s, t, -1, s->cpus[i]);
		}
		ret = session_bpf_open(s, err, errlen);
		if (ret)
			return ret;
		if (cfg->cpu_min >= 0) {
			struct taskwatch_ops ops = {session_on_fork, session_on_exec,
			                            session_on_exit, s};
			s->tw_open = taskwatch_open(&s->tw, s->cpus, s->nr_cpus, &ops) == 0;
			if (!s->tw_open)
				model_note(&s->model, "new tasks are found by the /proc scan only "
				                      "(the side-band event did not open)");
		}
		break;
	case MODEL_TASKS:
		/* Before the first open: children forked later are counted
		 * (perf stat -p does the same). */
		s->ccfg.inherit = !cfg->no_inherit;
		if (cfg->nr_pids) {
			for (int i = 0; i < cfg->nr_pids; i++) {
				ret = session_add_process(s, cfg->pids[i], err, errlen);
				if (ret)
					return ret;
				/* Exit notification; without pidfds (before 5.3) the
				 * /proc check at each tick still notices. */
				s->pidfd[i] = (int)syscall(SYS_pidfd_open, cfg->pids[i], 0);
			}
			ret = session_pids_denied(s, err, errlen);
			if (ret)
				return ret;
		} else {
			ret = session_own_processes(s, err, errlen);
			if (ret)
				return ret;
		}
		break;
	case MODEL_COMMAND: {
		s->ccfg.inherit = !cfg->no_inherit;
		s->ccfg.enable_on_exec = true;
		ret = launch_fork(&s->cmd, s->cfg->argv, s->cfg->command_out, err, errlen);
		if (ret)
			return ret;
		struct session_target *t = session_add_target(s);
		if (!t)
			return -ENOMEM;
		t->pid = t->tid = s->cmd.pid;
		util_strlcpy(t->comm, cfg->argv[0], sizeof(t->comm));
		t->uid = getuid();
		session_open_target(s, t, s->cmd.pid, -1);
		break;
	}
	}
	return 0;
}

/* Each event described, and the metrics: the preset's, or those the
 * opened events allow (-e). */
static int setup_metrics(struct session *s)
{
	const struct session_config *cfg = s->cfg;

	session_describe_events(s);
	bool *opened = calloc((size_t)s->nr_ev + 1, sizeof(bool));
	if (!opened)
		return -ENOMEM;
	for (int i = 0; i < s->nr_ev; i++)
		opened[i] = s->ev[i].nr_open > 0;
	if (cfg->resolved) {
		char(*names)[EVENTS_NAME_MAX] = calloc((size_t)s->nr_ev + 1, sizeof(*names));
		if (!names) {
			free(opened);
			return -ENOMEM;
		}
		for (int i = 0; i < s->nr_ev; i++)
			util_strlcpy(names[i], s->ev[i].desc.name, sizeof(names[i]));
		metrics_setup_preset(&s->metrics, cfg->resolved, (const char(*)[128])names,
		                     s->nr_ev, &s->model);
		free(names);
		session_preset_notes(s);
	} else {
		metrics_setup(&s->metrics, s->cev, opened, s->nr_ev, &s->model);
	}
	free(opened);
	return 0;
}

/* --sort names a column of this session, or the error lists them. */
static int check_sort(struct session *s, char *err, size_t errlen)
{
	const char *sort = s->cfg->sort;

	if (sort[0] && model_parse_sort(&s->model, sort) && s->cfg->sort_fallback) {
		snprintf(s->sort_note, sizeof(s->sort_note),
		         "sort %.64s: not a column of preset %.32s; sorted by CPU%%", sort,
		         s->cfg->preset);
		return model_parse_sort(&s->model, "cpu");
	}
	if (sort[0] && model_parse_sort(&s->model, sort)) {
		int n =
		    snprintf(err, errlen, "--sort %s: not a column; use cpu, pid, command", sort);
		for (int i = 0; i < s->nr_ev && n < (int)errlen; i++)
			n += snprintf(err + n, errlen - (size_t)n, ", %s", s->ev[i].desc.name);
		for (int k = 0; k < s->model.nr_metrics && n < (int)errlen; k++)
			n +=
			    snprintf(err + n, errlen - (size_t)n, ", %s", s->model.metrics[k].name);
		return -EINVAL;
	}
	return 0;
}

int session_init(struct session *s, const struct session_config *cfg, char *err, size_t errlen)
{
	int ret;

	if (s->clean != SESSION_CLEAN)
		memset(s, 0, sizeof(*s));
	s->clean = 0;
	s->cfg = cfg;
	s->self = getpid();
	for (size_t i = 0; i < ARRAY_SIZE(s->pidfd); i++)
		s->pidfd[i] = -1;
	launch_init(&s->cmd);
	err[0] = '\0';
	procfs_init(&s->proc, cfg->proc_root);
	if (cfg->probe)
		s->probe = *cfg->probe;
	else
		probe_collect(&s->probe);
	probe_raise_nofile(&s->probe);
	s->fd_budget = session_fd_budget(&s->probe);
	s->mode = cfg->mode;
	if (probe_no_access(&s->probe)) {
		snprintf(err, errlen,
		         "perf_event_paranoid is %d: the kernel allows no performance monitoring "
		         "to unprivileged users; run as root, grant CAP_PERFMON, or set sysctl "
		         "kernel.perf_event_paranoid=2",
		         s->probe.paranoid);
		return -EACCES;
	}
	s->user_only = probe_user_only(&s->probe);
	ret = session_resolve_events(s, err, errlen);
	if (ret)
		return ret;
	session_runs_init(s);
	ret = model_init(&s->model, s->nr_ev);
	if (ret)
		return ret;
	ret = session_online_cpus(s, err, errlen);
	if (ret)
		return ret;
	if (s->mode == MODEL_SYSTEM && !probe_system_wide_ok(&s->probe)) {
		if (cfg->nr_cpus) {
			/* -C asks for whole CPUs: no quiet change to own processes */
			snprintf(err, errlen,
			         "-C counts whole CPUs, which needs CAP_PERFMON (or root) or "
			         "kernel.perf_event_paranoid <= 0, and it is %d without "
			         "CAP_PERFMON here; run as root, grant CAP_PERFMON (setcap "
			         "cap_perfmon+ep pfmtop), or drop -C to count your own processes",
			         s->probe.paranoid);
			return -EACCES;
		}
		s->mode = MODEL_TASKS; /* own processes; the header says why */
	}

	refuse_kernel_only(s);
	ret = open_targets(s, err, errlen);
	if (ret)
		return ret;
	ret = session_open_cgroups(s, err, errlen);
	if (ret)
		return ret;
	ret = open_profile(s, err, errlen);
	if (ret)
		return ret;
	ret = setup_metrics(s);
	if (ret)
		return ret;
	return check_sort(s, err, errlen);
}

/*
 * The baseline for the first interval: it reads /proc and (system-wide)
 * gives counters to the tasks busy so far, before anything counts, so that
 * every counter starts at the same instant and the first snapshot has task
 * figures. The counters are not read (see session_refresh_targets()).
 */
static void baseline(struct session *s)
{
	s->baseline = true;
	session_tick(s, false);
	s->baseline = false;
	s->seq = 0;
	if (s->started)
		s->last_ns = s->start_ns; /* the first interval starts at the enable */
}

/* fn on every counter set that counts: the targets', then the cgroups'. */
static void each_counter_set(struct session *s, int (*fn)(struct counter_set *cs))
{
	for (int i = 0; i < s->nr_targets; i++)
		if (s->targets[i].counted)
			fn(&s->targets[i].cs);
	for (int g = 0; g < s->nr_cg; g++)
		for (int i = 0; i < s->nr_cpus; i++)
			if (s->cg[g].cpu[i].counted)
				fn(&s->cg[g].cpu[i].cs);
}

int session_start(struct session *s, char *err, size_t errlen)
{
	if (s->cmd.pid <= 0)
		baseline(s);
	each_counter_set(s, counters_enable);
	profile_enable(&s->prof);
	s->started = true;
	/* Tasks found from now on: a counter opened disabled and then
	 * enabled costs one more system call (and interrupt of the CPU the
	 * task runs on); the command's wait for its exec. */
	s->ccfg.enabled = !s->ccfg.enable_on_exec;
	s->start_ns = s->last_ns = util_now_ns();
	if (s->cmd.pid > 0) {
		int ret = launch_go(&s->cmd, s->cfg->argv[0], err, errlen);
		if (ret)
			return ret;
		/* After its exec: the command's /proc figures are its own. Its
		 * counters started at the exec and are not read here. */
		baseline(s);
	}
	return 0;
}

/* /proc/stat: a new reading; an interval compares it with the last one,
 * the totals with the baseline's. */
static void cpu_times(struct session *s, bool final)
{
	if (!final) {
		struct procfs_cpu *tmp = s->cpu_prev;
		s->cpu_prev = s->cpu_cur;
		s->cpu_cur = tmp;
		s->nr_cpu_prev = s->nr_cpu_cur;
	}
	int n = procfs_cpu_times(&s->proc, s->cpu_cur, SESSION_MAX_CPUS);
	s->nr_cpu_cur = n > 0 ? n : 0;
	if (s->baseline) {
		memcpy(s->cpu_base, s->cpu_cur, (size_t)s->nr_cpu_cur * sizeof(*s->cpu_base));
		s->nr_cpu_base = s->nr_cpu_cur;
	}
}

int session_tick(struct session *s, bool final)
{
	struct model *m = &s->model;
	uint64_t now = s->stopped ? s->stop_ns : util_now_ns();
	double interval_s;

	util_heap_tidy(&s->heap_tidy_ns, util_now_ns());
	if (!s->cpu_cur) {
		s->cpu_cur = calloc(SESSION_MAX_CPUS, sizeof(*s->cpu_cur));
		s->cpu_prev = calloc(SESSION_MAX_CPUS, sizeof(*s->cpu_prev));
		s->cpu_base = calloc(SESSION_MAX_CPUS, sizeof(*s->cpu_base));
		if (!s->cpu_cur || !s->cpu_prev || !s->cpu_base)
			return -ENOMEM;
	}
	/* Tasks forked before this tick get their counters before the /proc
	 * scan sees them: the timer may have won the race with the watch
	 * ring's wake-up, and each tick of waiting loses their counts. */
	if (!final)
		session_watch_drain(s, -1);
	if (!final)
		session_drop_exited(s); /* the totals keep every task shown */
	interval_s = (double)(now - (final ? s->start_ns : s->last_ns)) / 1e9;
	cpu_times(s, final);
	session_refresh_targets(s);
	if (s->baseline) {
		session_static_notes(s);
		session_bpf_note(s);
		s->nr_static_notes = m->nr_notes;
	}
	model_clear_rows(m);
	session_header(s, now, interval_s, final);
	session_cpu_rows(s, final, interval_s);
	session_counted_rows(s, final, interval_s);
	if (s->mode == MODEL_SYSTEM) {
		session_proc_rows(s, interval_s);
		session_select_tasks(s);
	}
	m->tasks_counted = s->mode != MODEL_SYSTEM || s->cfg->cpu_min >= 0;
	m->cpu_min = s->mode == MODEL_SYSTEM ? s->cfg->cpu_min : -1;
	m->nr_notes = s->nr_static_notes;
	if (s->missed && !final)
		model_note(m,
		           "%" PRIu64 " refresh tick%s skipped: a snapshot took longer than the "
		           "interval, so this one is %.2f s long",
		           s->missed, s->missed == 1 ? "" : "s", interval_s);
	if (!final && !s->baseline)
		s->missed = 0;
	if (s->nr_fd_limited)
		model_note(
		    m,
		    "%d busy tasks not counted: out of file descriptors (limit %s); raise it "
		    "with 'ulimit -n' or count fewer events",
		    s->nr_fd_limited,
		    util_limit_text((uint64_t)s->probe.nofile_soft, (char[24]){0}, 24));
	session_memory_notes(s);
	m->tasks_total = m->nr_tasks;
	model_sort_tasks(m);
	session_cgroup_rows(s, final);
	m->show_cgroups = s->cfg->nr_cgroups || s->cfg->cgroup_auto;
	for (int i = 0; i < m->nr_tasks; i++) {
		struct model_row *r = &m->tasks[i];
		bool shown = i < m->top_n || m->top_n == 0;
		uid_t uid;

		/* the viewer shows every row, a recording keeps every row (a uid
		 * is read once in a task's life) */
		if (!shown && !s->cfg->users_all)
			break;
		if (!r->user[0] && session_row_uid(s, r, &uid) == 0)
			util_strlcpy(r->user, procfs_user(&s->proc, uid), sizeof(r->user));
		if (m->show_cgroups &&
		    procfs_task_cgroup(&s->proc, r->pid, r->cgroup, sizeof(r->cgroup)))
			r->cgroup[0] = '\0';
	}

	/* Totals: over CPUs system-wide, over tasks otherwise. */
	bool first = true;
	const struct model_row *rows = s->mode == MODEL_SYSTEM ? m->cpus : m->tasks;
	int nr = s->mode == MODEL_SYSTEM ? m->nr_cpus : m->nr_tasks;
	for (int i = 0; i < nr; i++, first = false)
		for (int k = 0; k < s->nr_ev; k++)
			session_cell_add(&m->total.cells[k], &rows[i].cells[k], first);
	m->total.counted = nr > 0;
	session_unattributed_row(s);
	for (int i = 0; i < m->nr_cpus; i++)
		metrics_compute(&s->metrics, &m->cpus[i]);
	for (int i = 0; i < m->nr_tasks; i++)
		metrics_compute(&s->metrics, &m->tasks[i]);
	metrics_compute(&s->metrics, &m->total);
	if (m->has_unattributed)
		metrics_compute(&s->metrics, &m->unattributed);
	session_event_states(s);
	if (!s->baseline) {
		/* The baseline leaves the samples to the first interval, and the
		 * symbols to session_prepare(). */
		profile_tick(&s->prof, m, final);
	}
	model_round(m);
	for (int i = 0; i < s->nr_targets; i++)
		s->targets[i].shown_exited |= s->targets[i].exited;
	s->last_ns = now;
	s->now_ns = now;
	s->seq++;
	return 0;
}

void session_stop(struct session *s)
{
	if (s->stopped)
		return;
	each_counter_set(s, counters_disable);
	profile_disable(&s->prof);
	s->ccfg.enabled = false;
	s->stopped = true;
	s->stop_ns = util_now_ns();
}

int session_tick_partial(struct session *s)
{
	int ret;

	s->partial = true;
	ret = session_tick(s, false);
	s->partial = false;
	return ret;
}

void session_missed_ticks(struct session *s, uint64_t n)
{
	s->missed += n;
}

bool session_reap(struct session *s)
{
	return launch_reap(&s->cmd);
}

bool session_done(const struct session *s)
{
	if (s->mode == MODEL_COMMAND)
		return s->cmd.done;
	if (s->mode == MODEL_TASKS && s->cfg->nr_pids) {
		for (int i = 0; i < s->nr_targets; i++)
			if (!s->targets[i].exited)
				return false;
		return true;
	}
	return false;
}

int session_exit_status(const struct session *s)
{
	return launch_exit_status(&s->cmd);
}

void session_prepare(struct session *s)
{
	profile_prepare(&s->prof);
}

void session_warm(struct session *s)
{
	profile_warm(&s->prof);
}

void session_fini(struct session *s)
{
	for (int i = 0; i < s->nr_targets; i++) {
		counters_close(&s->targets[i].cs);
		session_proc_fd_close(s, &s->targets[i].statfd);
	}
	for (int i = 0; i < s->nr_proc_prev; i++)
		session_proc_fd_close(s, &s->proc_prev[i].fd);
	procfs_close(&s->proc);
	free(s->targets);
	free(s->index);
	for (size_t i = 0; i < ARRAY_SIZE(s->pidfd); i++)
		if (s->pidfd[i] >= 0)
			close(s->pidfd[i]);
	launch_fini(&s->cmd);
	profile_close(&s->prof);
	if (s->tw_open)
		taskwatch_close(&s->tw);
	session_bpf_close(s);
	session_runs_close(s);
	free(s->cand);
	for (int g = 0; g < s->nr_cg; g++) {
		for (int i = 0; i < s->nr_cpus; i++)
			counters_close(&s->cg[g].cpu[i].cs);
		free(s->cg[g].cpu);
		close(s->cg[g].dirfd);
	}
	procfs_ids_free(&s->pids);
	procfs_ids_free(&s->tids);
	procfs_ids_free(&s->seen);
	free(s->born);
	model_fini(&s->model);
	free(s->ev);
	free(s->cev);
	free(s->cpu_prev);
	free(s->cpu_cur);
	free(s->cpu_base);
	free(s->proc_prev);
	free(s->proc_cur);
	memset(s, 0, sizeof(*s));
	s->clean = SESSION_CLEAN;
}

struct session *session_new(void)
{
	struct session *s = calloc(1, sizeof(struct session));

	if (s)
		s->clean = SESSION_CLEAN;
	return s;
}

void session_free(struct session *s)
{
	free(s);
}

char *session_folded(struct session *s, size_t *len)
{
	return profile_folded(&s->prof, len);
}

char *session_annotated(struct session *s, size_t *len)
{
	return profile_annotated(&s->prof, len);
}

void session_annotate_now(struct session *s)
{
	profile_annotate_now(&s->prof, &s->model);
}

const struct model *session_model(const struct session *s)
{
	return &s->model;
}

const struct model *session_snapshot(const struct session *s)
{
	return s->seq ? &s->model : NULL;
}

enum model_mode session_mode(const struct session *s)
{
	return s->mode;
}

const char *session_preset(const struct session *s)
{
	return s->cfg->preset;
}

const char *session_sort_note(const struct session *s)
{
	return s->sort_note;
}

void session_for_each_ring_fd(struct session *s, void (*fn)(int fd, void *arg), void *arg)
{
	profile_for_each_fd(&s->prof, fn, arg);
}

void session_ring_drain(struct session *s, int fd)
{
	profile_drain(&s->prof, fd);
}

bool session_command_running(const struct session *s)
{
	return s->mode == MODEL_COMMAND && s->cmd.pid > 0 && !s->cmd.done;
}

void session_signal_command(struct session *s, int sig)
{
	if (s->mode == MODEL_COMMAND)
		launch_kill(&s->cmd, sig);
}
