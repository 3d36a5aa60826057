/* session: the engine: events, targets and counters, turned into the model each tick. */
#include "session.h"

#include "explain.h"
#include "preset.h"
#include "sys.h"
#include "util.h"

#include <inttypes.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS_PER_PID 65536

static void tw_fork(pid_t pid, pid_t tid, pid_t ppid, void *arg);
static void tw_exit(pid_t pid, pid_t tid, void *arg);
static void tw_exec(pid_t pid, pid_t tid, const char *comm, void *arg);

static bool is_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* Software events the kernel accounts in kernel context: with exclude_kernel
 * they read 0, which must not be shown as a fact. */
static bool kernel_context_only(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
						 a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/* Counter fds pfmtop may open: the limit less what is open now and a reserve
 * for /proc reads, the output file, the terminal and pidfds. */
static long fd_budget(const struct probe *p)
{
	long open_now = 0, budget;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (d) {
		while ((de = readdir(d)))
			open_now += de->d_name[0] != '.';
		closedir(d);
	}
	budget = (long)(p->nofile_soft > (rlim_t)LONG_MAX ? LONG_MAX : (long)p->nofile_soft) -
		 open_now - SESSION_FD_RESERVE;
	return budget > 0 ? budget : 0;
}

/* May one more /proc stat file stay open? Up to half of what the counters
 * leave of the budget; open_target() takes them back when it needs them. */
static bool proc_fd_room(const struct session *s)
{
	return s->nr_proc_fds < (s->fd_budget - s->fds_used) / 2;
}

static void proc_fd_close(struct session *s, int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
	s->nr_proc_fds--;
}

/* procfs_task_stat() through the kept stat file *fd (opened, and kept if
 * there is room, when -1), counted in nr_proc_fds. */
static int stat_kept(struct session *s, pid_t pid, pid_t tid, int *fd, struct procfs_task *pt)
{
	bool had = *fd >= 0;
	int ret = procfs_task_stat_kept(pid, tid, fd, !had && proc_fd_room(s), pt);

	s->nr_proc_fds += (long)(*fd >= 0) - (long)had;
	return ret;
}

/* Close kept /proc stat files until at most keep remain: the scan's first,
 * then the targets'. Their tasks are read by open, read, close instead. */
static void proc_fds_trim(struct session *s, long keep)
{
	for (int i = s->nr_proc_prev - 1; i >= 0 && s->nr_proc_fds > keep; i--)
		proc_fd_close(s, &s->proc_prev[i].fd);
	for (int i = s->nr_targets - 1; i >= 0 && s->nr_proc_fds > keep; i--)
		proc_fd_close(s, &s->targets[i].statfd);
}

/* Does drop_exited() drop t, with shown_exited as given? */
static bool drops(const struct session *s, const struct session_target *t, bool shown_exited)
{
	bool task = t->tid >= 0 && s->mode != MODEL_COMMAND;
	bool idle = s->mode == MODEL_SYSTEM && t->idle_ticks >= SESSION_IDLE_TICKS;

	return task && (shown_exited || idle || (!t->counted && s->mode == MODEL_SYSTEM));
}

static struct session_target *add_target(struct session *s)
{
	if (s->nr_targets == s->cap_targets) {
		int cap = s->cap_targets ? s->cap_targets * 2 : 16;
		struct session_target *t = realloc(s->targets, (size_t)cap * sizeof(*t));
		if (!t)
			return NULL;
		s->targets = t;
		s->cap_targets = cap;
	}
	struct session_target *t = &s->targets[s->nr_targets++];
	memset(t, 0, sizeof(*t));
	t->pid = t->tid = -1;
	t->cpu = -1;
	t->statfd = -1;
	return t;
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
			snprintf(name, sizeof(s->ev[i].desc.name), "%.*s%s", (int)keep, orig[i], tag);
		}
	}
	free(orig);
	return 0;
}

static int resolve_events(struct session *s, char *err, size_t errlen)
{
	const struct events_list *l = &s->cfg.events;

	s->nr_ev = l->nr;
	s->ev = calloc((size_t)l->nr + 1, sizeof(*s->ev));
	s->cev = calloc((size_t)l->nr + 1, sizeof(*s->cev));
	if (!s->ev || !s->cev)
		return -ENOMEM;
	for (int i = 0; i < l->nr; i++) {
		int ret = events_resolve(l->name[i], &s->ev[i].desc, err, errlen);
		if (ret && !s->cfg.resolved)
			return ret; /* typed with -e: the user wants to know at once */
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

static int online_cpus(struct session *s, char *err, size_t errlen)
{
	if (s->cfg.nr_cpus) {
		static int online[SESSION_MAX_CPUS];
		int n = util_cpulist_parse(s->probe.cpus_online, online, SESSION_MAX_CPUS);

		for (int i = 0; n > 0 && i < s->cfg.nr_cpus; i++) {
			bool found = false;
			for (int k = 0; k < n && !found; k++)
				found = online[k] == s->cfg.cpus[i];
			if (!found) {
				snprintf(err, errlen, "-C: CPU %d is not online (online CPUs: %s)",
					 s->cfg.cpus[i], s->probe.cpus_online);
				return -EINVAL;
			}
		}
		memcpy(s->cpus, s->cfg.cpus, sizeof(int) * (size_t)s->cfg.nr_cpus);
		s->nr_cpus = s->cfg.nr_cpus;
	} else {
		int n = util_cpulist_parse(s->probe.cpus_online, s->cpus, SESSION_MAX_CPUS);
		if (n <= 0) {
			long c = sysconf(_SC_NPROCESSORS_ONLN);
			n = c > 0 && c <= SESSION_MAX_CPUS ? (int)c : 1;
			for (int i = 0; i < n; i++)
				s->cpus[i] = i;
		}
		s->nr_cpus = n;
	}
	return 0;
}

/* Did the kernel refuse cs for permission (another user's task, without
 * CAP_PERFMON or ptrace rights over it)? Only asked when nothing opened. */
static bool denied(const struct counter_set *cs)
{
	for (int i = 0; i < cs->nr; i++)
		if ((cs->c[i].err == EACCES || cs->c[i].err == EPERM) &&
		    !cs->cfg->ev[i].skip_err)
			return true;
	return false;
}

/* -p: when no process given can be watched, and the kernel refused one for
 * permission, one sentence for it (-EACCES); else 0 (the rows say which
 * were refused). */
static int pids_denied(struct session *s, char *err, size_t errlen)
{
	const struct session_target *first = NULL;

	for (int i = 0; i < s->nr_targets; i++) {
		if (s->targets[i].counted)
			return 0;
		if (s->targets[i].denied && !first)
			first = &s->targets[i];
	}
	if (!first)
		return 0;
	snprintf(err, errlen,
		 "-p: you (uid %u) may not watch process %d (uid %u)%s: counting another "
		 "user's process needs CAP_PERFMON or ptrace rights over it "
		 "(CAP_SYS_PTRACE); run pfmtop as root or as that user, or grant "
		 "CAP_PERFMON (setcap cap_perfmon+ep pfmtop)",
		 (unsigned)getuid(), (int)first->pid, (unsigned)first->uid,
		 s->cfg.nr_pids > 1 ? ", and no other process given could be counted" : "");
	return -EACCES;
}

/* Open the counters of target t; an fd shortage leaves it uncounted. */
static void open_target(struct session *s, struct session_target *t, pid_t pid, int cpu)
{
	int ret;

	if (s->fds_used + s->nr_ev > s->fd_budget) {
		/* Over budget: not tried, so the fds pfmtop itself needs (/proc,
		 * output, terminal) stay free. */
		ret = -EMFILE;
	} else {
		/* Counters come first: kept /proc stat files make room. */
		proc_fds_trim(s, s->fd_budget - s->fds_used - s->nr_ev);
		ret = counters_open(&t->cs, &s->ccfg, pid, cpu);
		if ((ret == -EMFILE || ret == -ENFILE) && s->nr_proc_fds) {
			/* The budget was an estimate: give them all back, and retry. */
			counters_close(&t->cs);
			proc_fds_trim(s, 0);
			ret = counters_open(&t->cs, &s->ccfg, pid, cpu);
		}
	}
	if (ret == 0 && t->cs.nr_open == 0 && t->tid >= 0 && denied(&t->cs))
		ret = -EACCES; /* not this user's to watch: say so, not "n/s" */
	if (ret == 0 && s->started) {
		ret = counters_enable(&t->cs); /* a task found after the start */
		t->open_ns = util_now_ns();
	}
	if (ret == 0) {
		t->counted = true;
		s->fds_used += t->cs.nr_open;
		for (int i = 0; i < s->nr_ev; i++) {
			if (t->cs.c[i].fd >= 0)
				s->ev[i].nr_open++;
			else if (!s->ev[i].err)
				s->ev[i].err = t->cs.c[i].err;
			/* No such event or PMU here: the same for every later task,
			 * so stop asking the kernel (thousands of tasks, each time). */
			if (t->cs.c[i].err == ENOENT && !s->ev[i].nr_open)
				s->cev[i].skip_err = ENOENT;
		}
		return;
	}
	counters_close(&t->cs);
	t->counted = false;
	if (ret == -EMFILE || ret == -ENFILE) {
		if (s->fds_used < s->fd_budget)
			s->fd_budget = s->fds_used; /* the estimate was too kind */
		s->nr_fd_limited++;
		util_strlcpy(t->note, "not counted: fd limit", sizeof(t->note));
	} else if (ret == -ESRCH) {
		t->exited = true;
		util_strlcpy(t->note, "exited", sizeof(t->note));
	} else {
		t->denied = ret == -EACCES || ret == -EPERM;
		snprintf(t->note, sizeof(t->note), "not counted: %s", explain_short(-ret));
	}
}

/* Name, user, start time and /proc ticks of a new task target; its stat
 * file stays open for refresh_targets(). */
static void fill_task_info(struct session *s, struct session_target *t)
{
	struct procfs_task pt;
	uid_t uid;

	if (stat_kept(s, t->pid, t->tid, &t->statfd, &pt) == 0 &&
	    procfs_task_uid(t->pid, t->tid, &uid) == 0) {
		util_strlcpy(t->comm, pt.comm, sizeof(t->comm));
		t->uid = uid;
		t->starttime = pt.starttime;
		t->ticks = t->prev_ticks = pt.utime + pt.stime;
	}
	t->pstart = t->tid == t->pid ? t->starttime
		    : procfs_task_stat(t->pid, 0, &pt) == 0 ? pt.starttime : 0;
}

/* Open the counters of new task target t (filled in), and with counters
 * counting from now on, read its ticks once more: did_not_run() may then go
 * by the counters from the first tick. */
static void open_task(struct session *s, struct session_target *t)
{
	struct procfs_task pt;

	open_target(s, t, t->tid, -1);
	if (!t->counted || !s->started || !t->starttime)
		return;
	if (stat_kept(s, t->pid, t->tid, &t->statfd, &pt) == 0 && pt.starttime == t->starttime) {
		t->ticks = t->prev_ticks = pt.utime + pt.stime;
		t->stat_read = true;
	}
}

static int add_process(struct session *s, pid_t pid, char *err, size_t errlen)
{
	pid_t *tids = malloc(sizeof(pid_t) * MAX_THREADS_PER_PID);
	int n;

	if (!tids)
		return -ENOMEM;
	n = procfs_threads(pid, tids, MAX_THREADS_PER_PID);
	if (n <= 0) {
		free(tids);
		snprintf(err, errlen, "no such process: %d (check the PID with 'ps -p %d')",
			 (int)pid, (int)pid);
		return -ESRCH;
	}
	for (int i = 0; i < n; i++) {
		struct session_target *t = add_target(s);
		if (!t) {
			free(tids);
			return -ENOMEM;
		}
		t->pid = pid;
		t->tid = tids[i];
		fill_task_info(s, t);
		open_task(s, t);
	}
	free(tids);
	return 0;
}

static int own_processes(struct session *s, char *err, size_t errlen)
{
	int cap = 65536, n;
	pid_t *pids = malloc(sizeof(pid_t) * (size_t)cap);
	uid_t me = getuid();

	if (!pids)
		return -ENOMEM;
	n = procfs_pids(pids, cap);
	for (int i = 0; i < n; i++) {
		struct procfs_task pt;
		if (pids[i] == s->self || procfs_task_read(pids[i], 0, &pt) || pt.uid != me)
			continue;
		if (add_process(s, pids[i], err, errlen) == -ENOMEM) {
			free(pids);
			return -ENOMEM;
		}
	}
	free(pids);
	err[0] = '\0';
	return 0;
}

static int launch(struct session *s, char *err, size_t errlen)
{
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ex, O_CLOEXEC) < 0) {
		int e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		snprintf(err, errlen, "cannot start '%s': %s", s->cfg.argv[0], strerror(errno));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		return e;
	}
	if (pid == 0) {
		sigset_t none;
		char c;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* pfmtop ignores SIGPIPE; the command gets the default back. */
		signal(SIGPIPE, SIG_DFL);
		/* Never outlive pfmtop, however it ends (kill -9 included):
		 * and if it is gone already, so is the command. */
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
			_exit(127);
		close(go[1]);
		close(ex[0]);
		/* Wait until the counters are open; EOF means pfmtop gave up. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(s->cfg.argv[0], s->cfg.argv);
		int e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ex[1]);
	s->child = pid;
	s->go_fd = go[1];
	s->exec_err_fd = ex[0];
	return 0;
}

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
	ret = profile_open(&s->prof, &s->cfg.profile, t, nr, s->mode != MODEL_SYSTEM && !s->cfg.no_inherit,
			   s->mode == MODEL_COMMAND, s->user_only, s->cpus, s->nr_cpus, &s->probe,
			   pids, nr_pids, why, sizeof(why));
	free(t);
	free(pids);
	if (ret && s->cfg.profile.event && (ret == -ENOENT || ret == -EINVAL)) {
		snprintf(err, errlen, "--sample-event: %s", why);
		return ret;
	}
	if (ret)
		model_note(&s->model, "no hotspots: %s", why);
	for (int i = 0; s->prof.open && i < s->prof.samp.nr_notes; i++)
		model_note(&s->model, "%s", s->prof.samp.notes[i]);
	return 0;
}

/* Open cgroup dir (relative to the v2 mount unless absolute under it). */
static int add_cgroup(struct session *s, const char *path, char *err, size_t errlen)
{
	struct session_cgroup *g;
	char full[PATH_MAX];
	const char *rel = path;

	if (s->nr_cg == (int)ARRAY_SIZE(s->cg)) {
		snprintf(err, errlen, "--cgroup: at most %zu cgroups", ARRAY_SIZE(s->cg));
		return -EINVAL;
	}
	if (!strncmp(path, s->cgroup_root, strlen(s->cgroup_root)))
		rel = path + strlen(s->cgroup_root);
	snprintf(full, sizeof(full), "%s/%s", s->cgroup_root, rel[0] == '/' ? rel + 1 : rel);
	g = &s->cg[s->nr_cg];
	memset(g, 0, sizeof(*g));
	g->dirfd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (g->dirfd < 0) {
		snprintf(err, errlen, "--cgroup %s: %s (cgroup v2 paths are relative to %s)", path,
			 strerror(errno), s->cgroup_root);
		return -ENOENT;
	}
	snprintf(g->path, sizeof(g->path), "/%s", rel[0] == '/' ? rel + 1 : rel);
	g->cpu = calloc((size_t)s->nr_cpus, sizeof(*g->cpu));
	if (!g->cpu) {
		close(g->dirfd);
		return -ENOMEM;
	}
	s->nr_cg++;
	for (int i = 0; i < s->nr_cpus; i++) {
		struct session_target *t = &g->cpu[i];
		int ret;

		t->pid = t->tid = -1;
		t->cpu = s->cpus[i];
		ret = counters_open_cgroup(&t->cs, &s->ccfg, g->dirfd, s->cpus[i]);
		if (ret == 0 && t->cs.nr_open) {
			t->counted = true;
			s->fds_used += t->cs.nr_open;
		} else {
			counters_close(&t->cs);
			snprintf(t->note, sizeof(t->note), "not counted: %s",
				 explain_short(ret ? -ret : ENOENT));
		}
	}
	return 0;
}

/* --cgroup auto: the top-level cgroups that hold tasks. */
static int auto_cgroups(struct session *s, char *err, size_t errlen)
{
	DIR *d = opendir(s->cgroup_root);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)) && !ret) {
		char path[PATH_MAX], buf[64];
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/cgroup.procs", s->cgroup_root, de->d_name);
		bool tasks = util_read_file(path, buf, sizeof(buf)) == 0 && buf[0];
		snprintf(path, sizeof(path), "%s/%s/cgroup.events", s->cgroup_root, de->d_name);
		char ev[256];
		if (!tasks && util_read_file(path, ev, sizeof(ev)) == 0 && strstr(ev, "populated 1"))
			tasks = true;
		if (tasks)
			ret = add_cgroup(s, de->d_name, err, errlen);
	}
	closedir(d);
	return ret;
}

static int open_cgroups(struct session *s, char *err, size_t errlen)
{
	int ret = 0;

	if (!s->cfg.nr_cgroups && !s->cfg.cgroup_auto)
		return 0;
	if (s->mode != MODEL_SYSTEM) {
		snprintf(err, errlen, "--cgroup counts system-wide: it needs root, CAP_PERFMON or "
				      "perf_event_paranoid <= 0, and no -p or command");
		return -EINVAL;
	}
	if (procfs_cgroup2_root(s->cgroup_root, sizeof(s->cgroup_root))) {
		snprintf(err, errlen, "--cgroup: no cgroup v2 hierarchy is mounted (mount -t cgroup2 "
				      "none /sys/fs/cgroup/unified)");
		return -ENOENT;
	}
	for (int i = 0; i < s->cfg.nr_cgroups && !ret; i++)
		ret = add_cgroup(s, s->cfg.cgroups[i], err, errlen);
	if (!ret && s->cfg.cgroup_auto)
		ret = auto_cgroups(s, err, errlen);
	if (!ret && s->cfg.cgroup_auto && s->nr_cg == 0)
		model_note(&s->model, "--cgroup auto: no top-level cgroup under %s holds tasks",
			   s->cgroup_root);
	return ret;
}

/* One note per event the preset replaced by a fallback. */
static void preset_notes(struct session *s)
{
	const struct preset_resolved *pr = s->cfg.resolved;

	for (int i = 0; i < pr->nr; i++) {
		const struct preset_choice *c = &pr->ev[i];
		if (c->fallback >= 0)
			model_note(&s->model, "preset %s: %s stands in for %s (%s)", pr->name, c->used,
				   c->wanted, c->why);
	}
}

static void describe_events(struct session *s)
{
	struct model *m = &s->model;
	char hw[256] = "";
	int nr_hw = 0;

	for (int i = 0; i < s->nr_ev; i++) {
		struct session_event *e = &s->ev[i];
		struct model_event *me = &m->events[i];

		util_strlcpy(me->name, e->desc.name, sizeof(me->name));
		util_strlcpy(me->encoding, e->desc.encoding, sizeof(me->encoding));
		me->scale = e->desc.scale > 0 ? e->desc.scale : 1.0;
		util_strlcpy(me->unit, e->desc.unit, sizeof(me->unit));
		if (is_clock(&e->desc.attr)) {
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
			if (e->desc.hardware && e->err == ENOENT && !s->probe.core_pmu &&
			    strlen(hw) + strlen(e->desc.name) + 3 < sizeof(hw)) {
				/* One note says it for all of them. */
				snprintf(e->why, sizeof(e->why),
					 "hardware event, and this machine exposes no hardware PMU "
					 "(see the note above)");
				snprintf(hw + strlen(hw), sizeof(hw) - strlen(hw), "%s%s",
					 nr_hw ? ", " : "", e->desc.name);
				nr_hw++;
			}
		}
		me->err = e->err;
		util_strlcpy(me->why, e->why, sizeof(me->why));
	}
	if (nr_hw) {
		const char *vm = s->probe.hypervisor ? (s->probe.hypervisor_name[0]
								? s->probe.hypervisor_name
								: "virtual machine")
						     : NULL;
		model_note(m,
			   "no hardware PMU%s%s%s: %s not supported; counting software events "
			   "(enable a virtual PMU, e.g. -cpu host for QEMU/KVM, to get them)",
			   vm ? " (" : "", vm ? vm : "", vm ? " guest without a virtual PMU)" : "",
			   hw);
	}
}

int session_init(struct session *s, const struct session_config *cfg, char *err,
		 size_t errlen)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->self = getpid();
	s->go_fd = s->exec_err_fd = -1;
	for (size_t i = 0; i < ARRAY_SIZE(s->pidfd); i++)
		s->pidfd[i] = -1;
	s->child = -1;
	err[0] = '\0';
	probe_collect(&s->probe);
	probe_raise_nofile(&s->probe);
	s->fd_budget = fd_budget(&s->probe);
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
	ret = resolve_events(s, err, errlen);
	if (ret)
		return ret;
	ret = model_init(&s->model, s->nr_ev);
	if (ret)
		return ret;
	ret = online_cpus(s, err, errlen);
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

	for (int i = 0; i < s->nr_ev; i++) {
		if (s->user_only && kernel_context_only(&s->cev[i].attr)) {
			s->ev[i].err = EACCES;
			snprintf(s->ev[i].why, sizeof(s->ev[i].why),
				 "%s is counted in kernel context, which user-space-only counting "
				 "excludes (it would read 0); run as root or lower "
				 "kernel.perf_event_paranoid to 1 to count it",
				 s->ev[i].desc.name);
			/* Do not open it: a constant 0 would pass for a measurement. */
			s->cev[i].skip_err = EACCES;
		}
	}

	switch (s->mode) {
	case MODEL_SYSTEM:
		for (int i = 0; i < s->nr_cpus; i++) {
			struct session_target *t = add_target(s);
			if (!t)
				return -ENOMEM;
			t->cpu = s->cpus[i];
			open_target(s, t, -1, s->cpus[i]);
		}
		if (cfg->cpu_min >= 0) {
			struct taskwatch_ops ops = {tw_fork, tw_exec, tw_exit, s};
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
				ret = add_process(s, cfg->pids[i], err, errlen);
				if (ret)
					return ret;
				/* Exit notification; without pidfds (before 5.3) the
				 * /proc check at each tick still notices. */
				s->pidfd[i] = (int)syscall(SYS_pidfd_open, cfg->pids[i], 0);
			}
			ret = pids_denied(s, err, errlen);
			if (ret)
				return ret;
		} else {
			ret = own_processes(s, err, errlen);
			if (ret)
				return ret;
		}
		break;
	case MODEL_COMMAND: {
		s->ccfg.inherit = !cfg->no_inherit;
		s->ccfg.enable_on_exec = true;
		ret = launch(s, err, errlen);
		if (ret)
			return ret;
		struct session_target *t = add_target(s);
		if (!t)
			return -ENOMEM;
		t->pid = t->tid = s->child;
		util_strlcpy(t->comm, cfg->argv[0], sizeof(t->comm));
		t->uid = getuid();
		open_target(s, t, s->child, -1);
		break;
	}
	}
	ret = open_cgroups(s, err, errlen);
	if (ret)
		return ret;
	ret = open_profile(s, err, errlen);
	if (ret)
		return ret;
	describe_events(s);
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
		metrics_setup_preset(&s->metrics, cfg->resolved, (const char(*)[128])names, s->nr_ev,
				     &s->model);
		free(names);
		preset_notes(s);
	} else {
		metrics_setup(&s->metrics, s->cev, opened, s->nr_ev, &s->model);
	}
	free(opened);
	if (cfg->sort[0] && model_parse_sort(&s->model, cfg->sort)) {
		int n = snprintf(err, errlen, "--sort %s: not a column; use cpu, pid, command",
				 cfg->sort);
		for (int i = 0; i < s->nr_ev && n < (int)errlen; i++)
			n += snprintf(err + n, errlen - (size_t)n, ", %s", s->ev[i].desc.name);
		for (int k = 0; k < s->model.nr_metrics && n < (int)errlen; k++)
			n += snprintf(err + n, errlen - (size_t)n, ", %s", s->model.metrics[k].name);
		return -EINVAL;
	}
	return 0;
}

/*
 * The baseline for the first interval: it reads /proc and (system-wide)
 * gives counters to the tasks busy so far, before anything counts, so that
 * every counter starts at the same instant and the first snapshot has task
 * figures. The counters are not read (see refresh_targets()).
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

int session_start(struct session *s, char *err, size_t errlen)
{
	if (s->child <= 0)
		baseline(s);
	for (int i = 0; i < s->nr_targets; i++)
		if (s->targets[i].counted)
			counters_enable(&s->targets[i].cs);
	for (int g = 0; g < s->nr_cg; g++)
		for (int i = 0; i < s->nr_cpus; i++)
			if (s->cg[g].cpu[i].counted)
				counters_enable(&s->cg[g].cpu[i].cs);
	profile_enable(&s->prof);
	s->started = true;
	s->start_ns = s->last_ns = util_now_ns();
	if (s->child > 0) {
		int e = 0;
		ssize_t n;

		if (write(s->go_fd, "g", 1) != 1)
			return -errno;
		close(s->go_fd);
		s->go_fd = -1;
		n = read(s->exec_err_fd, &e, sizeof(e));
		close(s->exec_err_fd);
		s->exec_err_fd = -1;
		if (n == sizeof(e)) {
			snprintf(err, errlen, "cannot run '%s': %s", s->cfg.argv[0], strerror(e));
			waitpid(s->child, &s->child_status, 0);
			s->child_done = true;
			return -e;
		}
		/* After its exec: the command's /proc figures are its own. Its
		 * counters started at the exec and are not read here. */
		baseline(s);
	}
	return 0;
}

/* Fold v into the running aggregate acc (first: acc holds nothing yet). */
static void cell_add(struct counter_value *acc, const struct counter_value *v, bool first)
{
	bool acc_counted = !first && (acc->state == COUNTER_OK || acc->state == COUNTER_MULTIPLEXED);
	bool v_counted = v->state == COUNTER_OK || v->state == COUNTER_MULTIPLEXED;

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
	if ((acc->state == COUNTER_OK || acc->state == COUNTER_MULTIPLEXED))
		acc->state = acc->coverage >= 1.0 ? COUNTER_OK : COUNTER_MULTIPLEXED;
}

static void target_cells(const struct session *s, const struct session_target *t, bool final,
			 struct counter_value *out)
{
	for (int i = 0; i < s->nr_ev; i++) {
		if (!t->counted)
			out[i] = (struct counter_value){.value = NAN,
							.state = s->ev[i].nr_open
									 ? COUNTER_NOT_COUNTED
									 : COUNTER_UNSUPPORTED};
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
		if (is_clock(&s->cev[i].attr) && s->cev[i].attr.config == PERF_COUNT_SW_TASK_CLOCK &&
		    (v->state == COUNTER_OK || v->state == COUNTER_MULTIPLEXED))
			return v->value / 1e9 / interval_s * 100.0;
	}
	return interval_s > 0 ? (double)ticks / (double)procfs_hz() / interval_s * 100.0 : NAN;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc_sample *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int push_proc(struct session *s, const struct proc_sample *p)
{
	if (s->nr_proc_cur == s->cap_proc) {
		int cap = s->cap_proc ? s->cap_proc * 2 : 512;
		struct proc_sample *a = realloc(s->proc_cur, (size_t)cap * sizeof(*a));
		struct proc_sample *b = realloc(s->proc_prev, (size_t)cap * sizeof(*b));
		if (a)
			s->proc_cur = a;
		if (b)
			s->proc_prev = b;
		if (!a || !b)
			return -ENOMEM;
		s->cap_proc = cap;
	}
	s->proc_cur[s->nr_proc_cur++] = *p;
	return 0;
}

/* An id (pid, or with -H tid) that task targets already give a row; with
 * -H the target whose /proc figures refresh_targets() has for this tick, or
 * -1; whether a target of it stays for the next tick (drop_exited() keeps
 * it). */
struct cover {
	pid_t id;
	int t;
	bool stays;
};

static int cmp_cover(const void *a, const void *b)
{
	const struct cover *x = a, *y = b;

	if (x->id != y->id)
		return (x->id > y->id) - (x->id < y->id);
	return (x->t < y->t) - (x->t > y->t); /* a target first */
}

/* The ids task targets already give rows, sorted, each once. */
static struct cover *covered_ids(const struct session *s, int *nr)
{
	struct cover *c = malloc(sizeof(*c) * ((size_t)s->nr_targets + 1));
	int n = 0;

	*nr = 0;
	if (!c)
		return NULL;
	for (int i = 0; i < s->nr_targets; i++) {
		const struct session_target *t = &s->targets[i];
		/* Nothing changes exited, counted or idle_ticks before the
		 * next drop_exited(); shown_exited becomes exited. */
		if (t->tid >= 0)
			c[n++] = (struct cover){s->cfg.threads ? t->tid : t->pid,
						s->cfg.threads && t->refreshed ? i : -1,
						!drops(s, t, t->shown_exited || t->exited)};
	}
	qsort(c, (size_t)n, sizeof(*c), cmp_cover);
	for (int i = 0; i < n; i++) {
		if (*nr && c[*nr - 1].id == c[i].id)
			c[*nr - 1].stays |= c[i].stays;
		else
			c[(*nr)++] = c[i];
	}
	return c;
}

static int cmp_cover_id(const void *key, const void *elem)
{
	pid_t x = *(const pid_t *)key, y = ((const struct cover *)elem)->id;

	return (x > y) - (x < y);
}

/* The stat of a task of the /proc scan: through the fd kept from the last
 * tick (old's, which passes to *fd), else opened afresh and kept if there
 * is room. */
static int scan_stat(struct session *s, struct proc_sample *old, pid_t pid, pid_t tid, int *fd,
		     struct procfs_task *pt)
{
	*fd = -1;
	if (old && old->fd >= 0) {
		int ret;

		*fd = old->fd;
		old->fd = -1;
		ret = stat_kept(s, pid, tid, fd, pt);
		if (ret == 0 && pt->starttime == old->starttime)
			return 0;
		/* Gone, and its PID perhaps another task's now: that one is
		 * read afresh. (A kept fd never shows another task; the start
		 * time is checked all the same.) */
		proc_fd_close(s, fd);
	}
	return stat_kept(s, pid, tid, fd, pt);
}

/* The CPU% of task p over its life so far (boot_s: seconds since boot, the
 * clock of its start time). */
static double life_cpu_pct(const struct proc_sample *p, double boot_s)
{
	double hz = (double)procfs_hz(), age = boot_s - (double)p->starttime / hz;

	if (age < 1 / hz)
		age = 1 / hz;
	return (double)p->ticks / hz / age * 100.0;
}

static int push_cand(struct session *s, const struct proc_sample *p)
{
	if (s->nr_cand == s->cap_cand) {
		int cap = s->cap_cand ? s->cap_cand * 2 : 64;
		struct proc_sample *c = realloc(s->cand, (size_t)cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		s->cand = c;
		s->cap_cand = cap;
	}
	s->cand[s->nr_cand++] = *p;
	return 0;
}

/*
 * Every task on the machine from /proc, for the system-wide task table: a
 * row for each task that counted_task_rows() did not already give one, and
 * the busy ones among them (CPU% >= --cpu-min) as candidates for counters.
 */
static void proc_task_rows(struct session *s, double interval_s)
{
	static pid_t pids[65536], tids[4096];
	int n = procfs_pids(pids, (int)ARRAY_SIZE(pids)), nr_cov;
	struct model *m = &s->model;
	struct cover *cov = covered_ids(s, &nr_cov);
	double boot_s = s->baseline ? util_boot_s() : 0;

	s->nr_proc_cur = 0;
	s->nr_cand = 0;
	for (int i = 0; i < n; i++) {
		int nt = 1;
		if (s->cfg.threads) {
			nt = procfs_threads(pids[i], tids, (int)ARRAY_SIZE(tids));
			if (nt <= 0)
				continue;
		} else {
			tids[0] = pids[i];
		}
		for (int k = 0; k < nt; k++) {
			struct procfs_task pt = {0};
			struct proc_sample cur = {.pid = pids[i], .tid = tids[k], .fd = -1};
			struct proc_sample *old =
				s->nr_proc_prev ? bsearch(&cur, s->proc_prev, (size_t)s->nr_proc_prev,
							  sizeof(cur), cmp_proc)
						: NULL;
			pid_t id = s->cfg.threads ? tids[k] : pids[i];
			const struct cover *cv =
				cov ? bsearch(&id, cov, (size_t)nr_cov, sizeof(*cov), cmp_cover_id) : NULL;
			const struct session_target *ct = cv && cv->t >= 0 ? &s->targets[cv->t] : NULL;

			if (ct && ct->pid == pids[i]) {
				/* A counted thread (-H): refresh_targets() has this
				 * very stat file's figures. */
				if (old)
					proc_fd_close(s, &old->fd);
				cur.starttime = ct->starttime;
				cur.ticks = ct->ticks;
			} else if (cv && cv->stays && !s->cfg.threads) {
				/*
				 * A counted process, counted still at the next
				 * tick: its row comes from its threads' targets,
				 * and its own figures are of no use until it has
				 * none left. That is known a tick ahead, when they
				 * are read again: its first /proc-only interval
				 * starts there. Its sample (fd, user) waits.
				 */
				if (old) {
					cur = *old;
					cur.stale = true;
					old->fd = -1;
					if (push_proc(s, &cur)) {
						proc_fd_close(s, &cur.fd);
						goto out;
					}
				}
				continue;
			} else if (scan_stat(s, old, pids[i], s->cfg.threads ? tids[k] : 0, &cur.fd, &pt)) {
				continue;
			} else if (procfs_task_dead(&pt, s->cfg.threads)) {
				/* Exited, not yet reaped: no live row (a counted
				 * one was shown exited already). */
				proc_fd_close(s, &cur.fd);
				continue;
			} else {
				cur.starttime = pt.starttime;
				cur.ticks = pt.utime + pt.stime;
			}
			uint64_t delta = cur.ticks;
			if (old && old->starttime == cur.starttime) {
				/* A stale sample is of a process counted still
				 * (whose delta is not used), but after an ENOMEM
				 * in covered_ids(). */
				delta = old->stale ? 0 : cur.ticks - old->ticks;
				cur.have_uid = old->have_uid;
				cur.uid = old->uid;
			} else if (s->baseline) {
				delta = 0; /* first look: no interval yet */
			}
			cur.cpu_pct = interval_s > 0 ? (double)delta / (double)procfs_hz() / interval_s * 100.0
						     : NAN;
			/* No interval yet: its life so far tells whether it is busy. */
			double busy = s->baseline ? life_cpu_pct(&cur, boot_s) : cur.cpu_pct;
			if (push_proc(s, &cur)) {
				proc_fd_close(s, &cur.fd);
				goto out;
			}
			if (cv)
				continue; /* counted: its row is there already */
			if (s->cfg.cpu_min >= 0 && busy >= s->cfg.cpu_min && pids[i] != s->self) {
				struct proc_sample c = cur;
				c.cpu_pct = busy; /* busiest first */
				push_cand(s, &c);
			}
			struct model_row *r = model_add_task(m);
			if (!r)
				goto out;
			r->kind = s->cfg.threads ? MODEL_ROW_THREAD : MODEL_ROW_PROCESS;
			r->pid = pids[i];
			r->tid = tids[k];
			util_strlcpy(r->comm, pt.comm, sizeof(r->comm));
			r->user[0] = '\0'; /* looked up for the rows shown only */
			r->nr_threads = pt.num_threads;
			r->cpu_pct = cur.cpu_pct;
			if (s->cfg.cpu_min >= 0)
				util_strlcpy(r->note, "idle: /proc only", sizeof(r->note));
		}
	}
out:
	free(cov);
	/* Tasks not seen this time: their kept stat files go. */
	for (int i = 0; i < s->nr_proc_prev; i++)
		proc_fd_close(s, &s->proc_prev[i].fd);
	/* pids come sorted from /proc; threads within them too. */
	struct proc_sample *tmp = s->proc_prev;
	s->proc_prev = s->proc_cur;
	s->proc_cur = tmp;
	s->nr_proc_prev = s->nr_proc_cur;
	if (s->nr_proc_prev)
		qsort(s->proc_prev, (size_t)s->nr_proc_prev, sizeof(*s->proc_prev), cmp_proc);
}

/* The user of a /proc-only row: read once in its task's life (pid and start
 * time: its sample's), then kept with the sample. */
static int row_uid(struct session *s, const struct model_row *r, uid_t *uid)
{
	struct proc_sample key = {.pid = r->pid, .tid = r->tid};
	struct proc_sample *p =
		s->nr_proc_prev ? bsearch(&key, s->proc_prev, (size_t)s->nr_proc_prev, sizeof(key), cmp_proc)
				: NULL;
	int ret;

	if (p && p->have_uid) {
		*uid = p->uid;
		return 0;
	}
	ret = procfs_task_uid(r->pid, s->cfg.threads ? r->tid : 0, uid);
	if (ret == 0 && p) {
		p->have_uid = true;
		p->uid = *uid;
	}
	return ret;
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
static void counted_task_rows(struct session *s, bool final, double interval_s)
{
	struct model *m = &s->model;
	struct counter_value *cells = calloc((size_t)s->nr_ev + 1, sizeof(*cells));
	struct row_index x = {NULL, 0};
	size_t cap = 16;

	while (cap < 2 * (size_t)s->nr_targets)
		cap *= 2;
	if (!s->cfg.threads)
		x.slot = malloc(cap * sizeof(*x.slot));
	if (!cells || (!s->cfg.threads && !x.slot)) {
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
			s->cfg.threads ? NULL : find_process_row(m, &x, t->pid, t->pstart, &at);
		bool first = !r;
		uint64_t ticks = final ? t->ticks : t->ticks - t->prev_ticks;
		uint64_t span_start = final ? s->start_ns : s->last_ns;

		target_cells(s, t, final, cells);
		if (!r) {
			r = model_add_task(m);
			if (!r)
				break;
			r->kind = s->cfg.threads ? MODEL_ROW_THREAD : MODEL_ROW_PROCESS;
			r->pid = t->pid;
			r->start = t->pstart;
			r->tid = s->cfg.threads ? t->tid : t->pid;
			util_strlcpy(r->comm, t->comm, sizeof(r->comm));
			util_strlcpy(r->user, procfs_user(t->uid), sizeof(r->user));
			r->exited = true;
			r->cpu_pct = 0;
			if (x.slot)
				x.slot[at] = m->nr_tasks - 1;
		}
		if (t->tid == t->pid)
			util_strlcpy(r->comm, t->comm, sizeof(r->comm));
		r->nr_threads++;
		r->counted |= t->counted;
		r->exited &= t->exited;
		if (t->counted && t->open_ns > span_start)
			r->since_ms = fmax(r->since_ms, (double)(t->open_ns - span_start) / 1e6);
		if (!t->counted && !r->note[0])
			util_strlcpy(r->note, t->note, sizeof(r->note));
		for (int k = 0; k < s->nr_ev; k++)
			cell_add(&r->cells[k], &cells[k], first);
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

/* The live target of task tid; an exited one may share a recycled tid. */
static struct session_target *find_target(struct session *s, pid_t tid)
{
	for (int i = s->nr_targets - 1; i >= 0; i--)
		if (s->targets[i].tid == tid && !s->targets[i].exited)
			return &s->targets[i];
	return NULL;
}

static struct model_row *find_row(struct model *m, pid_t pid, pid_t tid)
{
	for (int i = 0; i < m->nr_tasks; i++)
		if (m->tasks[i].pid == pid && (tid < 0 || m->tasks[i].tid == tid))
			return &m->tasks[i];
	return NULL;
}

/* Give task tid of process pid its counters now, if the fd budget allows.
 * Returns false when fds ran short. */
static bool count_task(struct session *s, pid_t pid, pid_t tid)
{
	struct session_target *t;

	if (find_target(s, tid))
		return true;
	if (s->stopped)
		return false; /* the run is over: nothing new counts */
	if (s->fds_used + s->nr_ev > s->fd_budget)
		return false;
	t = add_target(s);
	if (!t)
		return false;
	t->pid = pid;
	t->tid = tid;
	fill_task_info(s, t);
	open_task(s, t);
	return t->counted || t->exited;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct proc_sample *x = a, *y = b;

	return (x->cpu_pct < y->cpu_pct) - (x->cpu_pct > y->cpu_pct);
}

/* Counters for the busy tasks that have none, busiest first, within the fd
 * budget; the rest are marked. They count from the next interval. */
static void select_tasks(struct session *s)
{
	static pid_t tids[4096];
	struct model *m = &s->model;

	s->nr_fd_limited = 0;
	if (s->nr_cand)
		qsort(s->cand, (size_t)s->nr_cand, sizeof(*s->cand), cmp_cand);
	for (int i = 0; i < s->nr_cand; i++) {
		const struct proc_sample *c = &s->cand[i];
		bool ok = true;
		int nt = 1;

		if (s->cfg.threads)
			tids[0] = c->tid;
		else
			nt = procfs_threads(c->pid, tids, (int)ARRAY_SIZE(tids));
		for (int k = 0; k < nt && ok; k++)
			ok = count_task(s, c->pid, tids[k]);
		struct model_row *r = find_row(m, c->pid, s->cfg.threads ? c->tid : -1);
		if (!ok)
			s->nr_fd_limited++;
		if (r)
			util_strlcpy(r->note, ok ? "counted from next interval" : "not counted: fd limit",
				     sizeof(r->note));
	}
}

static void tw_fork(pid_t pid, pid_t tid, pid_t ppid, void *arg)
{
	struct session *s = arg;

	/* New processes at once (tiptop-like); new threads when their process
	 * is counted, so its total stays whole. Tasks outside our PID
	 * namespace come as 0, which perf_event_open would take for us. */
	if (pid <= 0 || tid <= 0)
		return;
	if (pid != s->self && (tid == pid || find_target(s, pid)))
		count_task(s, pid, tid);
}

static void tw_exec(pid_t pid, pid_t tid, const char *comm, void *arg)
{
	struct session *s = arg;
	struct session_target *t = pid > 0 && tid > 0 ? find_target(s, tid) : NULL;

	if (pid <= 0 || tid <= 0)
		return;
	/* A program starting: count it even if its process is older than us. */
	if (!t && pid != s->self && count_task(s, pid, tid))
		t = find_target(s, tid);
	if (t)
		util_strlcpy(t->comm, comm, sizeof(t->comm));
}

static void tw_exit(pid_t pid, pid_t tid, void *arg)
{
	struct session_target *t = tid > 0 ? find_target(arg, tid) : NULL;

	if (t)
		t->exited = true;
}

void session_for_each_watch_fd(struct session *s, void (*fn)(int fd, void *arg), void *arg)
{
	if (s->tw_open)
		taskwatch_for_each_fd(&s->tw, fn, arg);
}

void session_watch_drain(struct session *s, int fd)
{
	if (s->tw_open)
		taskwatch_drain(&s->tw, fd);
}

static void cpu_rows(struct session *s, bool final, double interval_s)
{
	struct model *m = &s->model;
	uint64_t busy = 0, total = 0;

	for (int i = 0; i < s->nr_cpus; i++) {
		struct model_row *r = model_add_cpu(m);
		if (!r)
			return;
		r->cpu = s->cpus[i];
		for (int k = 0; k < s->nr_cpu_cur; k++) {
			if (s->cpu_cur[k].cpu != r->cpu)
				continue;
			for (int j = 0; j < s->nr_cpu_prev; j++) {
				if (s->cpu_prev[j].cpu != r->cpu)
					continue;
				uint64_t db = s->cpu_cur[k].busy - s->cpu_prev[j].busy;
				uint64_t dt = s->cpu_cur[k].total - s->cpu_prev[j].total;
				r->cpu_pct = dt ? (double)db / (double)dt * 100.0 : NAN;
				busy += db;
				total += dt;
			}
		}
		if (s->mode == MODEL_SYSTEM) {
			target_cells(s, &s->targets[i], final, r->cells);
			r->counted = s->targets[i].counted;
			if (!r->counted)
				util_strlcpy(r->note, s->targets[i].note, sizeof(r->note));
		}
	}
	m->total.cpu_pct = total ? (double)busy / (double)total * 100.0 : NAN;
}

static void drop_exited(struct session *s)
{
	int n = 0;

	for (int i = 0; i < s->nr_targets; i++) {
		struct session_target *t = &s->targets[i];
		if (drops(s, t, t->shown_exited)) {
			s->fds_used -= t->cs.nr_open;
			counters_close(&t->cs);
			proc_fd_close(s, &t->statfd);
			continue;
		}
		s->targets[n++] = *t;
	}
	s->nr_targets = n;
}

/*
 * Has counted task target t not run at all since its last stat read? Then
 * its /proc figures stand: utime and stime move only as it runs, and so does
 * its state (it runs to exit) and, but for a rename by another thread of its
 * process, its name. Its counters tell: a task's events add enabled time
 * only while it runs (system-wide, task targets count from their start), so
 * enabled time standing still since the reading before that stat read (the
 * previous one, or one that said the same) means it stayed off the CPUs.
 * Its exit would come from the task watcher as well; when that lost
 * records, every stat is read, as are those of targets known to have exited.
 */
static bool did_not_run(const struct session *s, const struct session_target *t)
{
	int nr = 0;

	if (s->mode != MODEL_SYSTEM || !s->tw_open || s->tw.lost != s->tw_lost || !t->stat_read ||
	    t->exited)
		return false;
	for (int i = 0; i < t->cs.nr; i++) {
		const struct counter *c = &t->cs.c[i];
		if (c->fd < 0)
			continue;
		if (c->error || c->cur.enabled != c->prev.enabled)
			return false;
		nr++;
	}
	return nr > 0;
}

/*
 * Read every counter and the /proc figures of the task targets. The
 * baseline (the tick in session_start) leaves the counters unread: they
 * were enabled at zero an instant before, and what they counted since
 * (a command's start, from its exec) belongs to the first interval.
 */
static void refresh_targets(struct session *s)
{
	bool counters = !s->baseline;

	for (int g = 0; g < s->nr_cg && counters; g++)
		for (int i = 0; i < s->nr_cpus; i++)
			if (s->cg[g].cpu[i].counted)
				counters_read(&s->cg[g].cpu[i].cs);
	for (int i = 0; i < s->nr_targets; i++) {
		struct session_target *t = &s->targets[i];
		struct procfs_task pt;

		bool read = counters && t->counted && counters_read(&t->cs) == 0;

		t->refreshed = false;
		if (t->tid < 0)
			continue;
		t->prev_ticks = t->ticks;
		if (read && did_not_run(s, t)) {
			t->idle_ticks++; /* as the same utime + stime would say */
			t->refreshed = true;
			continue;
		}
		/* Through its stat file kept open from the last tick: a kept fd
		 * stays with its task, so a recycled PID reads as gone. */
		int ret = stat_kept(s, t->pid, s->mode == MODEL_COMMAND ? 0 : t->tid, &t->statfd, &pt);
		if (ret == 0 && (t->starttime == 0 || pt.starttime == t->starttime) &&
		    !procfs_task_dead(&pt, s->mode != MODEL_COMMAND)) {
			t->idle_ticks = pt.utime + pt.stime == t->ticks ? t->idle_ticks + 1 : 0;
			t->ticks = pt.utime + pt.stime;
			t->starttime = pt.starttime;
			util_strlcpy(t->comm, pt.comm, sizeof(t->comm));
			t->refreshed = !t->exited;
			t->stat_read = true;
		} else if (ret == 0 || ret == -ENOENT || ret == -ESRCH) {
			t->exited = true; /* gone, or a zombie: its counts are final */
			proc_fd_close(s, &t->statfd);
		}
	}
	s->tw_lost = s->tw.lost;
}

static void header(struct session *s, double interval_s, bool final)
{
	struct model *m = &s->model;
	int nr_notes = m->nr_notes;

	m->seq = s->seq + 1;
	m->wall_ns = util_wall_ns();
	m->interval_s = interval_s;
	m->final = final;
	m->partial = s->partial && !final;
	util_strlcpy(m->host, s->probe.host, sizeof(m->host));
	util_strlcpy(m->kernel, s->probe.kernel, sizeof(m->kernel));
	util_strlcpy(m->preset, s->cfg.preset, sizeof(m->preset));
	m->mode = s->mode;
	m->paranoid = s->probe.paranoid;
	m->top_n = s->cfg.top_n;
	util_strlcpy(m->privilege,
		     geteuid() == 0        ? "root"
		     : s->probe.cap_perfmon ? "CAP_PERFMON"
		     : s->probe.cap_sys_admin ? "CAP_SYS_ADMIN"
					      : "unprivileged",
		     sizeof(m->privilege));
	(void)nr_notes;
}

/* Notes that depend on the run so far (computed once: first tick). */
static void static_notes(struct session *s)
{
	struct model *m = &s->model;
	char buf[320];

	switch (s->mode) {
	case MODEL_SYSTEM: {
		int n = snprintf(m->target, sizeof(m->target), "CPUs ");
		for (int i = 0; i < s->nr_cpus && n < (int)sizeof(m->target) - 8; i++)
			n += snprintf(m->target + n, sizeof(m->target) - (size_t)n, "%s%d",
				      i ? "," : "", s->cpus[i]);
		break;
	}
	case MODEL_TASKS:
		if (s->cfg.nr_pids) {
			int n = snprintf(m->target, sizeof(m->target), "PID ");
			for (int i = 0; i < s->cfg.nr_pids && n < (int)sizeof(m->target) - 12; i++)
				n += snprintf(m->target + n, sizeof(m->target) - (size_t)n, "%s%d",
					      i ? "," : "", (int)s->cfg.pids[i]);
		} else {
			snprintf(m->target, sizeof(m->target), "own processes of %s",
				 procfs_user(getuid()));
		}
		break;
	case MODEL_COMMAND: {
		int n = snprintf(m->target, sizeof(m->target), "command:");
		for (int i = 0; s->cfg.argv[i] && n < (int)sizeof(m->target) - 2; i++)
			n += snprintf(m->target + n, sizeof(m->target) - (size_t)n, " %s",
				      s->cfg.argv[i]);
		break;
	}
	}
	if (s->mode == MODEL_TASKS && !s->cfg.nr_pids) {
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
			   procfs_user(getuid()));

}

static void event_states(struct session *s)
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
			struct counter_value v = m->final ? counters_total(&t->cs, i)
							  : counters_interval(&t->cs, i);
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

static void cgroup_rows(struct session *s, bool final)
{
	struct model *m = &s->model;
	struct counter_value *cells = calloc((size_t)s->nr_ev + 1, sizeof(*cells));

	if (!cells)
		return;
	for (int g = 0; g < s->nr_cg; g++) {
		struct model_row *r = model_add_cgroup(m);
		if (!r)
			break;
		util_strlcpy(r->cgroup, s->cg[g].path, sizeof(r->cgroup));
		util_strlcpy(r->comm, s->cg[g].path, sizeof(r->comm));
		for (int i = 0; i < s->nr_cpus; i++) {
			target_cells(s, &s->cg[g].cpu[i], final, cells);
			r->counted |= s->cg[g].cpu[i].counted;
			for (int k = 0; k < s->nr_ev; k++)
				cell_add(&r->cells[k], &cells[k], i == 0);
		}
		metrics_compute(&s->metrics, r);
	}
	free(cells);
}

static bool counted_value(const struct counter_value *v)
{
	return v->state == COUNTER_OK || v->state == COUNTER_MULTIPLEXED;
}

/*
 * System-wide with task counters on every online CPU: the (unattributed)
 * row holds what the CPU counters counted and no task row did, so that the
 * task rows and it add up to the total. (With -C the task counters count
 * on other CPUs too: no such row.)
 */
static void unattributed_row(struct session *s)
{
	struct model *m = &s->model;
	struct model_row *u = &m->unattributed;

	m->has_unattributed = s->mode == MODEL_SYSTEM && s->cfg.cpu_min >= 0 && !s->cfg.nr_cpus &&
			      m->total.counted;
	if (!m->has_unattributed)
		return;
	util_strlcpy(u->comm, "(unattributed)", sizeof(u->comm));
	u->counted = true;
	for (int k = 0; k < s->nr_ev; k++) {
		const struct counter_value *tot = &m->total.cells[k];
		struct counter_value *v = &u->cells[k];

		*v = *tot;
		if (!counted_value(tot))
			continue;
		for (int i = 0; i < m->nr_tasks; i++) {
			const struct counter_value *c = &m->tasks[i].cells[k];
			if (!counted_value(c))
				continue;
			v->value -= c->value;
			v->coverage = fmin(v->coverage, c->coverage);
		}
		v->state = v->coverage >= 1.0 ? COUNTER_OK : COUNTER_MULTIPLEXED;
	}
}

int session_tick(struct session *s, bool final)
{
	struct model *m = &s->model;
	uint64_t now = s->stopped ? s->stop_ns : util_now_ns();
	double interval_s;

	if (!s->cpu_cur) {
		s->cpu_cur = calloc(SESSION_MAX_CPUS, sizeof(*s->cpu_cur));
		s->cpu_prev = calloc(SESSION_MAX_CPUS, sizeof(*s->cpu_prev));
		if (!s->cpu_cur || !s->cpu_prev)
			return -ENOMEM;
	}
	if (!final)
		drop_exited(s); /* the totals keep every task shown */
	interval_s = (double)(now - (final ? s->start_ns : s->last_ns)) / 1e9;
	{
		struct procfs_cpu *tmp = s->cpu_prev;
		s->cpu_prev = s->cpu_cur;
		s->cpu_cur = tmp;
		s->nr_cpu_prev = s->nr_cpu_cur;
		int n = procfs_cpu_times(s->cpu_cur, SESSION_MAX_CPUS);
		s->nr_cpu_cur = n > 0 ? n : 0;
		if (final) {
			/* Totals: compare against the first sample. */
		}
	}
	refresh_targets(s);
	if (s->baseline) {
		static_notes(s);
		s->nr_static_notes = m->nr_notes;
	}
	model_clear_rows(m);
	header(s, interval_s, final);
	cpu_rows(s, final, interval_s);
	counted_task_rows(s, final, interval_s);
	if (s->mode == MODEL_SYSTEM) {
		proc_task_rows(s, interval_s);
		select_tasks(s);
	}
	m->tasks_counted = s->mode != MODEL_SYSTEM || s->cfg.cpu_min >= 0;
	m->cpu_min = s->mode == MODEL_SYSTEM ? s->cfg.cpu_min : -1;
	m->nr_notes = s->nr_static_notes;
	if (s->missed && !final)
		model_note(m,
			   "%" PRIu64 " refresh tick%s skipped: a snapshot took longer than the "
			   "interval, so this one is %.2f s long",
			   s->missed, s->missed == 1 ? "" : "s", interval_s);
	if (!final && !s->baseline)
		s->missed = 0;
	if (s->nr_fd_limited)
		model_note(m,
			   "%d busy tasks not counted: out of file descriptors (limit %s); raise it "
			   "with 'ulimit -n' or count fewer events",
			   s->nr_fd_limited,
			   util_limit_text((uint64_t)s->probe.nofile_soft, (char[24]){0}, 24));
	m->tasks_total = m->nr_tasks;
	model_sort_tasks(m);
	cgroup_rows(s, final);
	m->show_cgroups = s->cfg.nr_cgroups || s->cfg.cgroup_auto;
	for (int i = 0; i < m->nr_tasks && (i < m->top_n || m->top_n == 0); i++) {
		struct model_row *r = &m->tasks[i];
		uid_t uid;

		if (!r->user[0] && row_uid(s, r, &uid) == 0)
			util_strlcpy(r->user, procfs_user(uid), sizeof(r->user));
		if (m->show_cgroups && procfs_task_cgroup(r->pid, r->cgroup, sizeof(r->cgroup)))
			r->cgroup[0] = '\0';
	}

	/* Totals: over CPUs system-wide, over tasks otherwise. */
	bool first = true;
	const struct model_row *rows = s->mode == MODEL_SYSTEM ? m->cpus : m->tasks;
	int nr = s->mode == MODEL_SYSTEM ? m->nr_cpus : m->nr_tasks;
	for (int i = 0; i < nr; i++, first = false)
		for (int k = 0; k < s->nr_ev; k++)
			cell_add(&m->total.cells[k], &rows[i].cells[k], first);
	m->total.counted = nr > 0;
	unattributed_row(s);
	for (int i = 0; i < m->nr_cpus; i++)
		metrics_compute(&s->metrics, &m->cpus[i]);
	for (int i = 0; i < m->nr_tasks; i++)
		metrics_compute(&s->metrics, &m->tasks[i]);
	metrics_compute(&s->metrics, &m->total);
	if (m->has_unattributed)
		metrics_compute(&s->metrics, &m->unattributed);
	event_states(s);
	if (!s->baseline) {
		/* The baseline leaves the samples to the first interval, and the
		 * symbols to session_prepare(). */
		bool acc = s->prof.cfg.accumulated;
		s->prof.cfg.accumulated = acc || final;
		profile_tick(&s->prof, m);
		s->prof.cfg.accumulated = acc;
	}
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
	for (int i = 0; i < s->nr_targets; i++)
		if (s->targets[i].counted)
			counters_disable(&s->targets[i].cs);
	for (int g = 0; g < s->nr_cg; g++)
		for (int i = 0; i < s->nr_cpus; i++)
			if (s->cg[g].cpu[i].counted)
				counters_disable(&s->cg[g].cpu[i].cs);
	profile_disable(&s->prof);
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
	int status;

	if (s->child > 0 && !s->child_done && waitpid(s->child, &status, WNOHANG) == s->child) {
		s->child_done = true;
		s->child_status = status;
	}
	return s->child_done;
}

bool session_done(const struct session *s)
{
	if (s->mode == MODEL_COMMAND)
		return s->child_done;
	if (s->mode == MODEL_TASKS && s->cfg.nr_pids) {
		for (int i = 0; i < s->nr_targets; i++)
			if (!s->targets[i].exited)
				return false;
		return true;
	}
	return false;
}

int session_exit_status(const struct session *s)
{
	if (WIFEXITED(s->child_status))
		return WEXITSTATUS(s->child_status);
	if (WIFSIGNALED(s->child_status))
		return 128 + WTERMSIG(s->child_status);
	return 1;
}

void session_for_each_pidfd(struct session *s, void (*fn)(int fd, void *arg), void *arg)
{
	for (int i = 0; i < s->cfg.nr_pids; i++)
		if (s->pidfd[i] >= 0)
			fn(s->pidfd[i], arg);
}

void session_process_exited(struct session *s, int pidfd)
{
	for (int i = 0; i < s->cfg.nr_pids; i++) {
		if (s->pidfd[i] != pidfd)
			continue;
		for (int k = 0; k < s->nr_targets; k++)
			if (s->targets[k].pid == s->cfg.pids[i])
				s->targets[k].exited = true;
		close(pidfd);
		s->pidfd[i] = -1;
	}
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
	int ret = events_resolve(event, &d, why, whylen);

	return ret ? ret : session_can_open_desc(&d, why, whylen, arg);
}

int session_try_open(const struct probe *p, const struct event_desc *d)
{
	struct perf_event_attr attr = d->attr;
	bool cpu_wide = d->cpumask[0] || attr.type == PERF_TYPE_TRACEPOINT ? false : false;
	int fd;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	if (probe_user_only(p)) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
	}
	cpu_wide = d->cpumask[0] != '\0';
	fd = cpu_wide ? sys->perf_event_open(&attr, -1, atoi(d->cpumask), -1, PERF_FLAG_FD_CLOEXEC)
		      : sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	sys->close(fd);
	return 0;
}

void session_prepare(struct session *s)
{
	profile_prepare(&s->prof);
}

void session_fini(struct session *s)
{
	for (int i = 0; i < s->nr_targets; i++) {
		counters_close(&s->targets[i].cs);
		proc_fd_close(s, &s->targets[i].statfd);
	}
	for (int i = 0; i < s->nr_proc_prev; i++)
		proc_fd_close(s, &s->proc_prev[i].fd);
	procfs_close();
	free(s->targets);
	for (size_t i = 0; i < ARRAY_SIZE(s->pidfd); i++)
		if (s->pidfd[i] >= 0)
			close(s->pidfd[i]);
	if (s->go_fd >= 0)
		close(s->go_fd);
	if (s->exec_err_fd >= 0)
		close(s->exec_err_fd);
	if (s->child > 0 && !s->child_done) {
		kill(s->child, SIGKILL);
		waitpid(s->child, NULL, 0);
	}
	profile_close(&s->prof);
	if (s->tw_open)
		taskwatch_close(&s->tw);
	free(s->cand);
	for (int g = 0; g < s->nr_cg; g++) {
		for (int i = 0; i < s->nr_cpus; i++)
			counters_close(&s->cg[g].cpu[i].cs);
		free(s->cg[g].cpu);
		close(s->cg[g].dirfd);
	}
	model_fini(&s->model);
	free(s->ev);
	free(s->cev);
	free(s->cpu_prev);
	free(s->cpu_cur);
	free(s->proc_prev);
	free(s->proc_cur);
	memset(s, 0, sizeof(*s));
}
