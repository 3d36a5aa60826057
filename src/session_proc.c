/* session_proc: the system-wide task table from /proc, and the choice of the busy
 * tasks that get counters. */
#include "session_priv.h"

#include "util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
 * -H the target whose /proc figures session_refresh_targets() has for this tick, or
 * -1; whether a target of it stays for the next tick (session_drop_exited() keeps
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
		 * next session_drop_exited(); shown_exited becomes exited. */
		if (t->tid >= 0)
			c[n++] = (struct cover){s->cfg->threads ? t->tid : t->pid,
			                        s->cfg->threads && t->refreshed ? i : -1,
			                        !session_drops(s, t, t->shown_exited || t->exited)};
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
		ret = session_stat_kept(s, pid, tid, fd, pt);
		if (ret == 0 && pt->starttime == old->starttime)
			return 0;
		/* Gone, and its PID perhaps another task's now: that one is
		 * read afresh. (A kept fd never shows another task; the start
		 * time is checked all the same.) */
		session_proc_fd_close(s, fd);
	}
	return session_stat_kept(s, pid, tid, fd, pt);
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
	if (util_grow(&s->cand, s->nr_cand, &s->cap_cand, sizeof(*s->cand), 64))
		return -ENOMEM;
	s->cand[s->nr_cand++] = *p;
	return 0;
}

/* What session_proc_rows() keeps for the tasks of one scan. */
struct scan {
	const struct cover *cov;
	int nr_cov;
	double interval_s, boot_s;
};

/*
 * Task (pid, tid) of the /proc scan (tid == pid without -H): its sample,
 * and its row if task targets do not give it one. *nth: the number of
 * threads of its process as its stat says now, 0 when not known. 0; 1 when
 * it is gone (reaped, or exited and not yet reaped: it never comes back,
 * and its PID comes back only with a new task, which the task watcher
 * reports); or -ENOMEM.
 */
static int scan_task(struct session *s, const struct scan *sc, pid_t pid, pid_t tid, int *nth)
{
	struct model *m = &s->model;
	struct procfs_task pt = {0};
	int ret;
	struct proc_sample cur = {.pid = pid, .tid = tid, .fd = -1};
	struct proc_sample *old =
	    s->nr_proc_prev
	        ? bsearch(&cur, s->proc_prev, (size_t)s->nr_proc_prev, sizeof(cur), cmp_proc)
	        : NULL;
	pid_t id = s->cfg->threads ? tid : pid;
	const struct cover *cv =
	    sc->cov ? bsearch(&id, sc->cov, (size_t)sc->nr_cov, sizeof(*sc->cov), cmp_cover_id)
	            : NULL;
	const struct session_target *ct = cv && cv->t >= 0 ? &s->targets[cv->t] : NULL;

	*nth = 0;
	if (ct && ct->pid == pid) {
		/* A counted thread (-H): session_refresh_targets() has this
		 * very stat file's figures. */
		if (old)
			session_proc_fd_close(s, &old->fd);
		cur.starttime = ct->starttime;
		cur.ticks = ct->ticks;
		cur.nr_threads = ct->nr_threads;
	} else if (cv && cv->stays && !s->cfg->threads) {
		/*
		 * A counted process, counted still at the next tick: its row
		 * comes from its threads' targets, and its own figures are of
		 * no use until it has none left. That is known a tick ahead,
		 * when they are read again: its first /proc-only interval
		 * starts there. Its sample (fd, user) waits.
		 */
		if (old) {
			cur = *old;
			cur.stale = true;
			old->fd = -1;
			if (push_proc(s, &cur)) {
				session_proc_fd_close(s, &cur.fd);
				return -ENOMEM;
			}
		}
		return 0;
	} else if ((ret = scan_stat(s, old, pid, s->cfg->threads ? tid : 0, &cur.fd, &pt))) {
		return ret == -ENOENT || ret == -ESRCH;
	} else if (procfs_task_dead(&pt, s->cfg->threads)) {
		/* Exited, not yet reaped: no live row (a counted one was shown
		 * exited already). */
		session_proc_fd_close(s, &cur.fd);
		return 1;
	} else {
		cur.starttime = pt.starttime;
		cur.ticks = pt.utime + pt.stime;
		cur.nr_threads = pt.num_threads;
	}
	*nth = cur.nr_threads;
	uint64_t delta = cur.ticks;
	if (old && old->starttime == cur.starttime) {
		/* A stale sample is of a process counted still (whose delta is
		 * not used), but after an ENOMEM in covered_ids(). */
		delta = old->stale ? 0 : cur.ticks - old->ticks;
		cur.have_uid = old->have_uid;
		cur.uid = old->uid;
	} else if (s->baseline) {
		delta = 0; /* first look: no interval yet */
	}
	cur.cpu_pct =
	    sc->interval_s > 0 ? (double)delta / (double)procfs_hz() / sc->interval_s * 100.0 : NAN;
	/* No interval yet: its life so far tells whether it is busy. */
	double busy = s->baseline ? life_cpu_pct(&cur, sc->boot_s) : cur.cpu_pct;
	if (push_proc(s, &cur)) {
		session_proc_fd_close(s, &cur.fd);
		return -ENOMEM;
	}
	if (cv)
		return 0; /* counted: its row is there already */
	/* With BPF task counts every task is counted: it costs no fds. */
	if (s->cfg->cpu_min >= 0 && (busy >= s->cfg->cpu_min || s->bpf_on) && pid != s->self) {
		struct proc_sample c = cur;
		c.cpu_pct = busy; /* busiest first */
		push_cand(s, &c);
	}
	struct model_row *r = model_add_task(m);
	if (!r)
		return -ENOMEM;
	r->kind = s->cfg->threads ? MODEL_ROW_THREAD : MODEL_ROW_PROCESS;
	r->pid = pid;
	r->tid = tid;
	r->ppid = pt.ppid;
	util_strlcpy(r->comm, pt.comm, sizeof(r->comm));
	r->user[0] = '\0'; /* looked up for the rows shown only */
	r->nr_threads = pt.num_threads;
	r->cpu_pct = cur.cpu_pct;
	if (pid == s->self) /* never counted: its counters would count their own reading */
		util_strlcpy(r->note, "pfmtop itself, not counted", sizeof(r->note));
	else if (s->cfg->cpu_min >= 0)
		util_strlcpy(r->note, "idle: /proc only", sizeof(r->note));
	return 0;
}

/*
 * Was process pid alone in it (one thread, its main one) at the last tick?
 * Then its main thread is read first and tells whether it still is: a
 * process gets threads only from one of its own, so its thread count from
 * a stat read this tick, or from one before while that thread has not run
 * since, is the truth now. That spares the listing of its task directory
 * (open, read, close) for most processes of a machine.
 */
static bool was_single(const struct session *s, pid_t pid)
{
	struct proc_sample key = {.pid = pid, .tid = pid};
	const struct proc_sample *p =
	    s->nr_proc_prev
	        ? bsearch(&key, s->proc_prev, (size_t)s->nr_proc_prev, sizeof(key), cmp_proc)
	        : NULL;

	return p && p->nr_threads == 1;
}

void session_proc_born(struct session *s, pid_t pid, pid_t tid)
{
	if (s->born_lost)
		return;
	if (s->nr_born >= SESSION_BORN_MAX ||
	    util_grow(&s->born, s->nr_born, &s->cap_born, sizeof(*s->born), 64)) {
		s->born_lost = true; /* the next scan lists /proc */
		return;
	}
	s->born[s->nr_born++] = (struct proc_born){pid, tid};
}

static int cmp_born(const void *a, const void *b)
{
	const struct proc_born *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * The processes to scan, into s->pids; their count or -errno. /proc is
 * listed at the start, every SESSION_LIST_TICKS scans, and whenever the
 * task watcher may have missed a task (it is not open, its ring lost
 * records, a start could not be kept) or /proc is not the machine's (a
 * test root): s->listed, and then each process's threads are listed too
 * (-H). In between, the tasks are those the last scan found (less those
 * it found gone) and those the task watcher saw start since: a task
 * appears only by a fork or clone, which it reports (system-wide, every
 * CPU), and once gone (reaped, or a zombie) it never comes back; its ID
 * comes back only with a new task, reported as well. That spares listing
 * /proc (its getdents makes a dentry for each process) and the task
 * directories of processes with threads, each tick.
 */
static int scan_pids(struct session *s)
{
	int nr = 0, i = 0, k = 0;

	s->listed = !s->tw_open || s->baseline || s->born_lost || s->proc.root[0] ||
	            s->tw.lost != s->list_lost || s->list_age >= SESSION_LIST_TICKS;
	if (s->listed) {
		s->list_age = 0;
		s->list_lost = s->tw.lost;
		s->nr_born = 0;
		s->born_lost = false;
		return procfs_pids(&s->proc, &s->pids);
	}
	s->list_age++;
	if (s->nr_born > 1)
		qsort(s->born, (size_t)s->nr_born, sizeof(*s->born), cmp_born);
	while (s->pids.cap < s->seen.nr + s->nr_born)
		if (util_grow(&s->pids.id, s->pids.cap, &s->pids.cap, sizeof(*s->pids.id), 256))
			return -ENOMEM;
	/* Both sorted: merged, each PID once. */
	while (i < s->seen.nr || k < s->nr_born) {
		pid_t a = i < s->seen.nr ? s->seen.id[i] : INT_MAX;
		pid_t b = k < s->nr_born ? s->born[k].pid : INT_MAX;
		pid_t p = a < b ? a : b;

		i += a == p;
		k += b == p;
		if (!nr || s->pids.id[nr - 1] != p)
			s->pids.id[nr++] = p;
	}
	s->pids.nr = nr;
	return nr;
}

/* Index of the first element of sorted a (n of them, size each, pid
 * first) whose pid is not below pid. */
static int lower_pid(const void *a, int n, size_t size, pid_t pid)
{
	int lo = 0, hi = n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (*(const pid_t *)((const char *)a + (size_t)mid * size) < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The threads of process pid, sorted, into s->tids: listed when the scan
 * lists /proc, else those the last scan found and those reported since
 * (as for processes, see scan_pids()). Their count, or -errno. */
static int scan_threads(struct session *s, pid_t pid)
{
	if (s->listed)
		return procfs_threads(&s->proc, pid, &s->tids);

	int i = lower_pid(s->proc_prev, s->nr_proc_prev, sizeof(*s->proc_prev), pid);
	int k = lower_pid(s->born, s->nr_born, sizeof(*s->born), pid), nr = 0;

	s->tids.nr = 0;
	for (;;) {
		pid_t a = i < s->nr_proc_prev && s->proc_prev[i].pid == pid ? s->proc_prev[i].tid
		                                                            : INT_MAX;
		pid_t b = k < s->nr_born && s->born[k].pid == pid ? s->born[k].tid : INT_MAX;
		pid_t t = a < b ? a : b;

		if (t == INT_MAX)
			break;
		i += a == t;
		k += b == t;
		if (nr && s->tids.id[nr - 1] == t)
			continue;
		if (util_grow(&s->tids.id, nr, &s->tids.cap, sizeof(*s->tids.id), 256))
			return -ENOMEM;
		s->tids.id[nr++] = t;
	}
	s->tids.nr = nr;
	return nr;
}

/* The scan found process pid (seen at the next one unless it is gone). */
static int found(struct session *s, pid_t pid)
{
	if (util_grow(&s->seen.id, s->seen.nr, &s->seen.cap, sizeof(*s->seen.id), 256))
		return -ENOMEM;
	s->seen.id[s->seen.nr++] = pid;
	return 0;
}

/* Process pid: its tasks scanned; 0 or 1 (it is gone), or -ENOMEM. */
static int scan_process(struct session *s, const struct scan *sc, pid_t pid)
{
	bool main_done = false, live = false;
	int nth, ret;

	if (!s->cfg->threads)
		return scan_task(s, sc, pid, pid, &nth);
	if (was_single(s, pid)) {
		ret = scan_task(s, sc, pid, pid, &nth);
		if (ret < 0 || nth == 1)
			return ret; /* alone still: no listing */
		main_done = true;
		live = ret == 0;
	}
	int nt = scan_threads(s, pid);
	if (nt == -ENOMEM)
		return nt;
	for (int k = 0; k < nt; k++) {
		if (main_done && s->tids.id[k] == pid)
			continue;
		ret = scan_task(s, sc, pid, s->tids.id[k], &nth);
		if (ret < 0)
			return ret;
		live |= ret == 0;
	}
	/* Not listed for a reason other than its end: kept. */
	return live || (nt < 0 && nt != -ENOENT && nt != -ESRCH) ? 0 : 1;
}

/*
 * Every task on the machine from /proc, for the system-wide task table: a
 * row for each task that session_counted_rows() did not already give one, and
 * the busy ones among them (CPU% >= --cpu-min) as candidates for counters.
 */
void session_proc_rows(struct session *s, double interval_s)
{
	int n = scan_pids(s), nr_cov;
	const pid_t *pids = s->pids.id;
	struct cover *cov = covered_ids(s, &nr_cov);
	struct scan sc = {cov, nr_cov, interval_s, s->baseline ? util_boot_s() : 0};

	s->nr_proc_cur = 0;
	s->nr_cand = 0;
	s->seen.nr = 0;
	if (n < 0)
		s->born_lost = true; /* not listed: list /proc next time */
	for (int i = 0; i < n; i++) {
		int ret = scan_process(s, &sc, pids[i]);

		if (ret == 0)
			ret = found(s, pids[i]);
		if (ret < 0) {
			s->born_lost = true; /* the scan was cut short: list /proc next time */
			break;
		}
	}
	free(cov);
	s->nr_born = 0;
	/* Tasks not seen this time: their kept stat files go. */
	for (int i = 0; i < s->nr_proc_prev; i++)
		session_proc_fd_close(s, &s->proc_prev[i].fd);
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
int session_row_uid(struct session *s, const struct model_row *r, uid_t *uid)
{
	struct proc_sample key = {.pid = r->pid, .tid = r->tid};
	struct proc_sample *p =
	    s->nr_proc_prev
	        ? bsearch(&key, s->proc_prev, (size_t)s->nr_proc_prev, sizeof(key), cmp_proc)
	        : NULL;
	int ret;

	if (p && p->have_uid) {
		*uid = p->uid;
		return 0;
	}
	ret = procfs_task_uid(&s->proc, r->pid, s->cfg->threads ? r->tid : 0, uid);
	if (ret == 0 && p) {
		p->have_uid = true;
		p->uid = *uid;
	}
	return ret;
}

static struct model_row *find_row(struct model *m, pid_t pid, pid_t tid)
{
	for (int i = 0; i < m->nr_tasks; i++)
		if (m->tasks[i].pid == pid && (tid < 0 || m->tasks[i].tid == tid))
			return &m->tasks[i];
	return NULL;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct proc_sample *x = a, *y = b;

	return (x->cpu_pct < y->cpu_pct) - (x->cpu_pct > y->cpu_pct);
}

/* Counters for the busy tasks that have none, busiest first, within the fd
 * budget; the rest are marked. They count from the next interval. */
void session_select_tasks(struct session *s)
{
	struct model *m = &s->model;

	s->nr_fd_limited = 0;
	if (s->nr_cand)
		qsort(s->cand, (size_t)s->nr_cand, sizeof(*s->cand), cmp_cand);
	for (int i = 0; i < s->nr_cand; i++) {
		const struct proc_sample *c = &s->cand[i];
		bool ok = true;
		const pid_t *tids = &c->tid;
		int nt = 1;

		if (!s->cfg->threads) {
			nt = procfs_threads(&s->proc, c->pid, &s->tids);
			tids = s->tids.id;
		}
		for (int k = 0; k < nt && ok; k++)
			ok = session_count_task(s, c->pid, tids[k], 0);
		struct model_row *r = find_row(m, c->pid, s->cfg->threads ? c->tid : -1);
		if (!ok)
			s->nr_fd_limited++;
		if (r)
			util_strlcpy(r->note,
			             ok ? "counted from next interval" : "not counted: fd limit",
			             sizeof(r->note));
	}
}
