/* session_targets: what is counted (CPUs, processes, tasks found as they start), the
 * file descriptor budget, and the task watcher's callbacks. */
#include "session_priv.h"

#include "explain.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Counter fds pfmtop may open: the limit less what is open now and a reserve
 * for /proc reads, the output file, the terminal and pidfds. */
long session_fd_budget(const struct probe *p)
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
 * leave of the budget; session_open_target() takes them back when it needs them. */
static bool proc_fd_room(const struct session *s)
{
	return s->nr_proc_fds < (s->fd_budget - s->fds_used) / 2;
}

void session_proc_fd_close(struct session *s, int *fd)
{
	if (*fd < 0)
		return;
	close(*fd);
	*fd = -1;
	s->nr_proc_fds--;
}

/* procfs_task_stat(&s->proc, ) through the kept stat file *fd (opened, and kept if
 * there is room, when -1), counted in nr_proc_fds. */
int session_stat_kept(struct session *s, pid_t pid, pid_t tid, int *fd, struct procfs_task *pt)
{
	bool had = *fd >= 0;
	int ret = procfs_task_stat_kept(&s->proc, pid, tid, fd, !had && proc_fd_room(s), pt);

	s->nr_proc_fds += (long)(*fd >= 0) - (long)had;
	return ret;
}

/* Close kept /proc stat files until at most keep remain: the scan's first,
 * then the targets'. Their tasks are read by open, read, close instead. */
static void proc_fds_trim(struct session *s, long keep)
{
	for (int i = s->nr_proc_prev - 1; i >= 0 && s->nr_proc_fds > keep; i--)
		session_proc_fd_close(s, &s->proc_prev[i].fd);
	for (int i = s->nr_targets - 1; i >= 0 && s->nr_proc_fds > keep; i--)
		session_proc_fd_close(s, &s->targets[i].statfd);
}

/* Does session_drop_exited() drop t, with shown_exited as given? */
bool session_drops(const struct session *s, const struct session_target *t, bool shown_exited)
{
	bool task = t->tid >= 0 && s->mode != MODEL_COMMAND;
	/* With --cpu-min 0 every task qualifies: an idle one would get its
	 * counters back in the same tick, reopened, and lose an interval;
	 * unless tasks went uncounted for want of fds (then it makes room). */
	bool idle = s->mode == MODEL_SYSTEM && t->idle_ticks >= SESSION_IDLE_TICKS &&
	            (s->cfg->cpu_min > 0 || s->nr_fd_limited) && !s->bpf_on;

	return task && (shown_exited || idle || (!t->counted && s->mode == MODEL_SYSTEM));
}

struct session_target *session_add_target(struct session *s)
{
	if (util_grow(&s->targets, s->nr_targets, &s->cap_targets, sizeof(*s->targets), 16))
		return NULL;
	struct session_target *t = &s->targets[s->nr_targets++];
	memset(t, 0, sizeof(*t));
	t->pid = t->tid = -1;
	t->cpu = -1;
	t->statfd = -1;
	return t;
}

int session_online_cpus(struct session *s, char *err, size_t errlen)
{
	if (s->cfg->nr_cpus) {
		int *online = calloc(SESSION_MAX_CPUS, sizeof(*online));
		if (!online)
			return -ENOMEM;
		int n = util_cpulist_parse(s->probe.cpus_online, online, SESSION_MAX_CPUS);

		for (int i = 0; n > 0 && i < s->cfg->nr_cpus; i++) {
			bool found = false;
			for (int k = 0; k < n && !found; k++)
				found = online[k] == s->cfg->cpus[i];
			if (!found) {
				snprintf(err, errlen, "-C: CPU %d is not online (online CPUs: %s)",
				         s->cfg->cpus[i], s->probe.cpus_online);
				free(online);
				return -EINVAL;
			}
		}
		free(online);
		memcpy(s->cpus, s->cfg->cpus, sizeof(int) * (size_t)s->cfg->nr_cpus);
		s->nr_cpus = s->cfg->nr_cpus;
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
		if ((cs->c[i].err == EACCES || cs->c[i].err == EPERM) && !cs->cfg->ev[i].skip_err)
			return true;
	return false;
}

/* -p: when no process given can be watched, and the kernel refused one for
 * permission, one sentence for it (-EACCES); else 0 (the rows say which
 * were refused). */
int session_pids_denied(struct session *s, char *err, size_t errlen)
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
	         s->cfg->nr_pids > 1 ? ", and no other process given could be counted" : "");
	return -EACCES;
}

/* Open the counters of target t; an fd shortage leaves it uncounted. */
void session_open_target(struct session *s, struct session_target *t, pid_t pid, int cpu)
{
	int ret;

	if (s->bpf_on && cpu < 0 && pid > 0 && session_bpf_target(s, t, pid) == 0)
		return; /* counted by BPF at its switches: no fds */
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
		/* A task found after the start: opened counting (ccfg.enabled),
		 * or enabled now. */
		ret = s->ccfg.enabled ? 0 : counters_enable(&t->cs);
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

static unsigned int tid_hash(pid_t tid, int cap)
{
	return ((unsigned int)tid * 2654435761u) & (unsigned int)(cap - 1);
}

/* The index over every target: each tid to its newest target. false when
 * there is no memory for it (find_target() then searches them all). */
static bool index_targets(struct session *s)
{
	int cap = 64;

	while (cap < 2 * s->nr_targets)
		cap *= 2;
	if (cap != s->cap_index) {
		int *ix = calloc((size_t)cap, sizeof(*ix));
		if (!ix)
			return false;
		free(s->index);
		s->index = ix;
		s->cap_index = cap;
	} else {
		memset(s->index, 0, (size_t)cap * sizeof(*s->index));
	}
	for (int i = 0; i < s->nr_targets; i++) {
		pid_t tid = s->targets[i].tid;
		unsigned int h = tid_hash(tid, cap);

		if (tid < 0)
			continue;
		while (s->index[h] && s->targets[s->index[h] - 1].tid != tid)
			h = (h + 1) & (unsigned int)(cap - 1);
		s->index[h] = i + 1; /* the later target of a recycled tid wins */
	}
	s->nr_indexed = s->nr_targets;
	return true;
}

/*
 * The live target of task tid; an exited one may share a recycled tid.
 * A target is added for a tid only when it has no live one, so when its
 * newest target has exited, so have the older ones: the index keeps the
 * newest.
 */
static struct session_target *find_target(struct session *s, pid_t tid)
{
	int lo = s->nr_indexed;

	if (s->nr_targets - s->nr_indexed > 32 && !index_targets(s))
		s->nr_indexed = lo = 0;
	for (int i = s->nr_targets - 1; i >= lo; i--)
		if (s->targets[i].tid == tid && !s->targets[i].exited)
			return &s->targets[i];
	if (!lo || tid < 0)
		return NULL;
	for (unsigned int h = tid_hash(tid, s->cap_index); s->index[h];
	     h = (h + 1) & (unsigned int)(s->cap_index - 1)) {
		struct session_target *t = &s->targets[s->index[h] - 1];
		if (t->tid == tid)
			return t->exited ? NULL : t;
	}
	return NULL;
}

/*
 * Name, user, start time, parent and /proc ticks of new task target t,
 * read once its counters count (when the session has started): then its
 * ticks are those at the start of its first interval, and did_not_run()
 * may go by the counters from the first tick. Its stat file stays open
 * for session_refresh_targets().
 */
static void fill_task_info(struct session *s, struct session_target *t)
{
	struct procfs_task pt;
	const struct session_target *main;
	uid_t uid;

	if (session_stat_kept(s, t->pid, t->tid, &t->statfd, &pt) == 0 &&
	    procfs_task_uid(&s->proc, t->pid, t->tid, &uid) == 0) {
		util_strlcpy(t->comm, pt.comm, sizeof(t->comm));
		t->uid = uid;
		t->starttime = pt.starttime;
		t->ppid = pt.ppid;
		t->ticks = t->prev_ticks = pt.utime + pt.stime;
		t->nr_threads = pt.num_threads;
		t->stat_read = t->counted && s->started;
	}
	/* A thread's process start: its main thread's, counted already
	 * (found live, so not a recycled PID's), or its stat. */
	if (t->tid == t->pid)
		t->pstart = t->starttime;
	else if ((main = find_target(s, t->pid)) && main->pid == t->pid && main->starttime)
		t->pstart = main->starttime;
	else
		t->pstart = procfs_task_stat(&s->proc, t->pid, 0, &pt) == 0 ? pt.starttime : 0;
}

/* Open the counters of new task target t (pid and tid set), then fill in
 * its figures. */
static void open_task(struct session *s, struct session_target *t)
{
	session_open_target(s, t, t->tid, -1);
	fill_task_info(s, t);
}

int session_add_process(struct session *s, pid_t pid, char *err, size_t errlen)
{
	struct procfs_ids tids = {0};
	int n = procfs_threads(&s->proc, pid, &tids);

	if (n == -ENOMEM)
		return -ENOMEM;
	if (n <= 0) {
		procfs_ids_free(&tids);
		snprintf(err, errlen, "no such process: %d (check the PID with 'ps -p %d')",
		         (int)pid, (int)pid);
		return -ESRCH;
	}
	for (int i = 0; i < n; i++) {
		struct session_target *t = session_add_target(s);
		if (!t) {
			procfs_ids_free(&tids);
			return -ENOMEM;
		}
		t->pid = pid;
		t->tid = tids.id[i];
		open_task(s, t);
	}
	procfs_ids_free(&tids);
	return 0;
}

int session_own_processes(struct session *s, char *err, size_t errlen)
{
	int n = procfs_pids(&s->proc, &s->pids);
	uid_t me = getuid();

	if (n == -ENOMEM)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		struct procfs_task pt;
		pid_t pid = s->pids.id[i];
		if (pid == s->self || procfs_task_read(&s->proc, pid, 0, &pt) || pt.uid != me)
			continue;
		if (session_add_process(s, pid, err, errlen) == -ENOMEM)
			return -ENOMEM;
	}
	err[0] = '\0';
	return 0;
}

/* Give task tid of process pid its counters now, if the fd budget allows.
 * Returns false when fds ran short. parent (0: unknown) is the task that
 * forked it: a task gone before its stat could be read is named as that
 * one, as the kernel names a child until it execs. */
bool session_count_task(struct session *s, pid_t pid, pid_t tid, pid_t parent)
{
	struct session_target *t, *p;

	if (find_target(s, tid))
		return true;
	if (s->stopped)
		return false; /* the run is over: nothing new counts */
	if (!s->bpf_on && s->fds_used + s->nr_ev > s->fd_budget)
		return false;
	t = session_add_target(s);
	if (!t)
		return false;
	t->pid = pid;
	t->tid = tid;
	open_task(s, t);
	if (!t->comm[0] && parent > 0 && parent != tid && (p = find_target(s, parent)))
		util_strlcpy(t->comm, p->comm, sizeof(t->comm));
	return t->counted || t->exited;
}

void session_on_fork(pid_t pid, pid_t tid, pid_t ppid, void *arg)
{
	struct session *s = arg;

	/* New processes at once (tiptop-like); new threads when their process
	 * is counted, so its total stays whole. Tasks outside our PID
	 * namespace come as 0, which perf_event_open would take for us. */
	if (pid <= 0 || tid <= 0)
		return;
	session_proc_born(s, pid, tid);
	if (pid != s->self && (tid == pid || find_target(s, pid)))
		session_count_task(s, pid, tid, ppid);
}

void session_on_exec(pid_t pid, pid_t tid, const char *comm, void *arg)
{
	struct session *s = arg;
	struct session_target *t = pid > 0 && tid > 0 ? find_target(s, tid) : NULL;

	if (pid <= 0 || tid <= 0)
		return;
	/* A program starting: count it even if its process is older than us. */
	if (!t && pid != s->self && session_count_task(s, pid, tid, 0))
		t = find_target(s, tid);
	if (t)
		util_strlcpy(t->comm, comm, sizeof(t->comm));
}

void session_on_exit(pid_t pid, pid_t tid, void *arg)
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

void session_drop_exited(struct session *s)
{
	int n = 0;

	for (int i = 0; i < s->nr_targets; i++) {
		struct session_target *t = &s->targets[i];
		if (session_drops(s, t, t->shown_exited) && t->exited && t->bpf_task &&
		    !t->bpf_dead && !t->bpf_final) {
			/* BPF: its last slice is charged at its final switch,
			 * which had not come when its exit was seen: one tick more. */
			t->bpf_final = true;
			s->targets[n++] = *t;
			continue;
		}
		if (session_drops(s, t, t->shown_exited)) {
			if (s->bpf_on)
				session_bpf_forget(s, t);
			s->fds_used -= t->cs.nr_open;
			counters_close(&t->cs);
			session_proc_fd_close(s, &t->statfd);
			continue;
		}
		s->targets[n++] = *t;
	}
	if (n != s->nr_targets)
		s->nr_indexed = 0; /* indices moved: indexed again when needed */
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

/* An event whose count changes only while its task runs (runwatch.h):
 * not a tracepoint, which may count in another task's context, nor an
 * event of another PMU, whose kind is not known here. */
static bool counts_while_running(const struct perf_event_attr *a)
{
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
	case PERF_TYPE_BREAKPOINT:
		return true;
	case PERF_TYPE_SOFTWARE:
		return a->config != PERF_COUNT_SW_BPF_OUTPUT;
	default:
		return false;
	}
}

/*
 * Whether the reads of task targets that did not run may be skipped this
 * tick: the run watch has been open since before every task's last read,
 * nothing was lost, and the counters cannot change without their task
 * running (own events only, no inherited children's).
 */
static bool runs_known(struct session *s, bool counters)
{
	if (!s->rw_open || s->bpf_on)
		return false;
	runwatch_drain(&s->rw);
	return counters && s->rw_armed && s->rw_events_ok && !s->ccfg.inherit &&
	       s->tw.lost == s->tw_lost && runwatch_whole(&s->rw);
}

/*
 * Open the run watch when enough tasks are counted for the reads it saves
 * to matter, and close it for a while when the machine switches tasks so
 * often that its records would cost more than those reads.
 */
static void runs_policy(struct session *s, int counted)
{
	if (s->rw_open) {
		bool busy = s->rw.records > (uint64_t)counted * SESSION_RUNWATCH_RECORDS;
		if (counted >= s->rw_min / 2 && !busy && s->rw_events_ok) {
			runwatch_next(&s->rw);
			s->rw_armed = true;
			return;
		}
		runwatch_close(&s->rw);
		s->rw_open = s->rw_armed = false;
		s->rw_wait = busy ? SESSION_RUNWATCH_WAIT : 0;
		return;
	}
	if (s->rw_wait > 0) {
		s->rw_wait--;
		return;
	}
	if (s->mode != MODEL_SYSTEM || !s->tw_open || !s->rw_events_ok || counted < s->rw_min ||
	    s->bpf_on)
		return;
	/* rings for the most records an interval keeps it open for, were
	 * they spread over the CPUs */
	s->rw_open = runwatch_open(&s->rw, s->cpus, s->nr_cpus,
	                           (uint64_t)counted * SESSION_RUNWATCH_RECORDS /
	                               (uint64_t)(s->nr_cpus > 0 ? s->nr_cpus : 1)) == 0;
	s->rw_armed = false; /* from the next reads on */
	if (!s->rw_open)
		s->rw_wait = SESSION_RUNWATCH_WAIT;
}

void session_runs_init(struct session *s)
{
	s->rw_min = SESSION_RUNWATCH_MIN;
	s->rw_events_ok = s->nr_ev > 0;
	for (int i = 0; i < s->nr_ev; i++)
		s->rw_events_ok &= s->cev[i].skip_err || counts_while_running(&s->cev[i].attr);
}

void session_runs_close(struct session *s)
{
	if (s->rw_open)
		runwatch_close(&s->rw);
	s->rw_open = s->rw_armed = false;
}

/*
 * Read every counter and the /proc figures of the task targets. The
 * baseline (the tick in session_start) leaves the counters unread: they
 * were enabled at zero an instant before, and what they counted since
 * (a command's start, from its exec) belongs to the first interval.
 * A task the run watch says did not run is not read: its counters stand
 * still, and so does its stat (as for did_not_run()).
 */
void session_refresh_targets(struct session *s)
{
	bool counters = !s->baseline;
	bool runs = runs_known(s, counters);
	int counted = 0;

	/* The map before the CPU counters: what it gives a task was counted
	 * by them before they are read. */
	if (counters && s->bpf_on)
		session_bpf_feed(s);
	for (int g = 0; g < s->nr_cg && counters; g++)
		for (int i = 0; i < s->nr_cpus; i++)
			if (s->cg[g].cpu[i].counted)
				counters_read(&s->cg[g].cpu[i].cs);
	for (int i = 0; i < s->nr_targets; i++) {
		struct session_target *t = &s->targets[i];
		struct procfs_task pt;

		bool still = runs && t->counted && t->tid >= 0 && t->stat_read && !t->exited &&
		             !runwatch_ran(&s->rw, t->tid);
		bool read = counters && t->counted && !still && counters_read(&t->cs) == 0;

		t->refreshed = false;
		if (t->tid < 0)
			continue;
		counted += t->counted;
		t->prev_ticks = t->ticks;
		if (still) {
			counters_hold(&t->cs);
			s->rw_skipped++;
		}
		if (still || (read && did_not_run(s, t))) {
			t->idle_ticks++; /* as the same utime + stime would say */
			t->refreshed = true;
			continue;
		}
		/* Through its stat file kept open from the last tick: a kept fd
		 * stays with its task, so a recycled PID reads as gone. */
		int ret = session_stat_kept(s, t->pid, s->mode == MODEL_COMMAND ? 0 : t->tid,
		                            &t->statfd, &pt);
		if (ret == 0 && (t->starttime == 0 || pt.starttime == t->starttime) &&
		    !procfs_task_dead(&pt, s->mode != MODEL_COMMAND)) {
			t->idle_ticks = pt.utime + pt.stime == t->ticks ? t->idle_ticks + 1 : 0;
			t->ticks = pt.utime + pt.stime;
			t->starttime = pt.starttime;
			t->ppid = pt.ppid;
			t->nr_threads = pt.num_threads;
			util_strlcpy(t->comm, pt.comm, sizeof(t->comm));
			t->refreshed = !t->exited;
			t->stat_read = true;
		} else if (ret == 0 || ret == -ENOENT || ret == -ESRCH) {
			t->exited = true; /* gone, or a zombie: its counts are final */
			session_proc_fd_close(s, &t->statfd);
		}
	}
	s->tw_lost = s->tw.lost;
	if (counters)
		runs_policy(s, counted);
}

void session_for_each_pidfd(struct session *s, void (*fn)(int fd, void *arg), void *arg)
{
	for (int i = 0; i < s->cfg->nr_pids; i++)
		if (s->pidfd[i] >= 0)
			fn(s->pidfd[i], arg);
}

void session_process_exited(struct session *s, int pidfd)
{
	for (int i = 0; i < s->cfg->nr_pids; i++) {
		if (s->pidfd[i] != pidfd)
			continue;
		for (int k = 0; k < s->nr_targets; k++)
			if (s->targets[k].pid == s->cfg->pids[i])
				s->targets[k].exited = true;
		close(pidfd);
		s->pidfd[i] = -1;
	}
}
