/* Unit tests for session: the whole pipeline (events, groups, reads, model) on the fake sys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fake_sys.h"
#include "session_priv.h"
#include "testutil.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int hw_missing(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return a->type == PERF_TYPE_HARDWARE ? ENOENT : 0;
}

static struct session s;

static int setup(void **state)
{
	struct probe p;

	probe_collect(&p);
	if (!probe_system_wide_ok(&p)) {
		print_message("skipped: system-wide counting needs root or perf_event_paranoid <= 0\n");
		return -1;
	}
	fake_sys_install();
	return 0;
}

static int teardown(void **state)
{
	session_fini(&s);
	fake_sys_reset();
	sys_set_ops(NULL);
	return 0;
}

static const char *proc_root; /* NULL: the real /proc */

static void config(struct session_config *c, const char *events)
{
	char err[256];

	memset(c, 0, sizeof(*c));
	c->mode = MODEL_SYSTEM;
	c->interval_ns = 1000000000ull;
	c->top_n = 5;
	c->cpu_min = -1; /* no per-task counters: this test counts fds */
	c->nr_cpus = 2;
	c->cpus[0] = 0;
	c->cpus[1] = 1;
	util_strlcpy(c->preset, "test", sizeof(c->preset));
	c->proc_root = proc_root;
	assert_int_equal(events_parse_list(events, &c->events, err, sizeof(err)), 0);
}

/* Queue one group read on every CPU target's leader of event index ev. */
static void queue(int ev, int nr, uint64_t enabled, uint64_t running, const uint64_t *vals)
{
	for (int t = 0; t < s.nr_targets; t++) {
		struct counter_set *cs = &s.targets[t].cs;
		uint64_t ids[8];
		for (int k = 0; k < nr; k++)
			ids[k] = cs->c[ev + k].id;
		fake_sys_queue_group_read(cs->c[ev].fd, enabled, running, nr, vals, ids);
	}
}

static void end_child(pid_t pid, int go)
{
	int status;

	assert_int_equal(write(go, "x", 1), 1);
	close(go);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

static const struct model_row *task_row(pid_t pid)
{
	for (int i = 0; i < s.model.nr_tasks; i++)
		if (s.model.tasks[i].pid == pid)
			return &s.model.tasks[i];
	return NULL;
}

static struct session_target *task_target(pid_t tid)
{
	for (int i = 0; i < s.nr_targets; i++)
		if (s.targets[i].tid == tid)
			return &s.targets[i];
	return NULL;
}

static const struct proc_sample *sample(pid_t pid, pid_t tid)
{
	for (int i = 0; i < s.nr_proc_prev; i++)
		if (s.proc_prev[i].pid == pid && s.proc_prev[i].tid == tid)
			return &s.proc_prev[i];
	return NULL;
}

/* The /proc scan keeps each task's stat file open from tick to tick, and
 * closes it when the task is gone, and all of them with the session. */
static void proc_fds_follow_tasks(bool threads)
{
	struct session_config c;
	char err[256], path[64];
	int go;
	pid_t pid = testutil_child_waiting(&go);

	config(&c, "task-clock");
	c.threads = threads;
	if (threads)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(task_row(pid));
	assert_int_equal(testutil_nr_fds_to(path), 1);
	assert_true(s.nr_proc_fds >= 2);
	assert_int_equal(testutil_nr_task_fds(), s.nr_proc_fds);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(testutil_nr_fds_to(path), 1);

	end_child(pid, go);
	assert_int_equal(session_tick(&s, false), 0);
	assert_null(task_row(pid));
	assert_int_equal(testutil_nr_fds_to(path), 0);
	assert_int_equal(testutil_nr_task_fds(), s.nr_proc_fds);

	session_fini(&s);
	assert_int_equal(testutil_nr_fds_to("/proc/"), 0);
	assert_int_equal(testutil_nr_fds_to("/proc"), 0);
}

static void test_proc_fds_follow_tasks(void **state)
{
	proc_fds_follow_tasks(false);
}

static void test_proc_fds_follow_threads(void **state)
{
	proc_fds_follow_tasks(true);
}

/* -p: each target keeps its stat file open until its task exits. */
static void test_target_fds(void **state)
{
	struct session_config c;
	char err[256], path[64];
	int go;
	pid_t pid = testutil_child_waiting(&go);

	config(&c, "task-clock");
	c.mode = MODEL_TASKS;
	c.nr_cpus = 0;
	c.nr_pids = 1;
	c.pids[0] = pid;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)pid);
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(testutil_nr_fds_to(path), 1);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(testutil_nr_fds_to(path), 1);
	assert_int_equal(s.nr_proc_fds, 1);
	assert_false(s.targets[0].exited);

	end_child(pid, go);
	assert_int_equal(session_tick(&s, false), 0);
	assert_true(s.targets[0].exited);
	assert_int_equal(testutil_nr_fds_to(path), 0);
	assert_int_equal(s.nr_proc_fds, 0);
	session_fini(&s);
	assert_int_equal(testutil_nr_fds_to("/proc"), 0);
}

/* A copy of the /proc fixture, to change under a running session. */
static char proc_copy[64];

static int setup_proc_copy(void **state)
{
	const char *fixtures = getenv("PFMTOP_FIXTURES");
	char cmd[PATH_MAX + 128];

	if (setup(state))
		return -1;
	if (!fixtures)
		return -1;
	snprintf(proc_copy, sizeof(proc_copy), "/tmp/pfmtop-test_session.XXXXXX");
	if (!mkdtemp(proc_copy))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -r '%s/proc-root/proc' '%s/'", fixtures, proc_copy);
	if (system(cmd) != 0)
		return -1;
	proc_root = proc_copy;
	return 0;
}

static int teardown_proc_copy(void **state)
{
	char cmd[128];

	teardown(state);
	proc_root = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proc_copy);
	return system(cmd) == 0 ? 0 : -1;
}

/* Rewrite the fixture file rel in place (same inode: a kept fd sees it),
 * its text from replaced by to. */
static void rewrite(const char *rel, const char *from, const char *to)
{
	char path[PATH_MAX], buf[4096], out[4096], *at;
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/proc/%s", proc_copy, rel);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	assert_true(n > 0);
	buf[n] = '\0';
	at = strstr(buf, from);
	assert_non_null(at);
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - buf), buf, to, at + strlen(from));
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, out, strlen(out), 0), (ssize_t)strlen(out));
	close(fd);
}

/* The user of a /proc-only row is read once in its task's life: not again
 * while pid and start time stay, afresh when the PID comes back. */
static void test_user_read_once(void **state)
{
	struct session_config c;
	char err[256];
	char user[64];

	config(&c, "task-clock");
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(session_tick(&s, false), 0);
	util_strlcpy(user, procfs_user(&s.proc, 1001), sizeof(user));
	assert_non_null(task_row(4242));
	assert_string_equal(task_row(4242)->user, user);
	assert_string_equal(task_row(2)->user, "root");

	rewrite("4242/status", "Uid:\t1000\t1001", "Uid:\t0\t0");
	assert_int_equal(session_tick(&s, false), 0);
	assert_string_equal(task_row(4242)->user, user);
	assert_int_equal(session_tick(&s, false), 0);
	assert_string_equal(task_row(4242)->user, user);

	/* PID 4242 is another task now (another start time) */
	rewrite("4242/stat", " 987654 ", " 987655 ");
	assert_int_equal(session_tick(&s, false), 0);
	assert_string_equal(task_row(4242)->user, "root");
}

/* Give every task target's group a reading: enabled time en, value v. */
static void queue_tasks(uint64_t en, uint64_t v)
{
	for (int t = 0; t < s.nr_targets; t++) {
		struct counter_set *cs = &s.targets[t].cs;
		if (s.targets[t].tid < 0 || !s.targets[t].counted)
			continue;
		fake_sys_queue_group_read(cs->c[0].fd, en, en, 1, &v, &cs->c[0].id);
	}
}

/*
 * A counted task whose counters ran no enabled time since its last stat
 * read has not run: its stat is not read again, its figures stand. And a
 * counted process is not read as a whole until the tick before it loses its
 * counters, where its first /proc-only interval starts.
 */
static void test_stat_skipped_when_not_run(void **state)
{
	struct session_config c;
	char err[256];
	struct session_target *t;
	const struct proc_sample *p;
	long hz = procfs_hz();

	config(&c, "task-clock");
	c.cpu_min = 1e-12; /* counters for every task that ran (idle ones give them back) */
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_true(s.tw_open);
	/* the baseline gives counters to 2, 4242, 4243: busy over their lives */
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	t = task_target(4242);
	assert_non_null(t);
	assert_true(t->counted);
	assert_int_equal(t->ticks, 30 + 10);
	assert_int_equal(s.nr_targets, 2 + 3);

	/* It ran: read. */
	queue_tasks(1000, 1000);
	assert_int_equal(session_tick(&s, false), 0);
	t = task_target(4242);
	assert_int_equal(t->idle_ticks, 1);
	/* one row for the process, its two threads summed */
	int nr_rows = 0;
	for (int i = 0; i < s.model.nr_tasks; i++)
		nr_rows += s.model.tasks[i].pid == 4242;
	assert_int_equal(nr_rows, 1);
	assert_int_equal(task_row(4242)->nr_threads, 2);
	assert_true(task_row(4242)->counted);
	assert_true(task_row(4242)->cells[0].value == 2000.0);
	p = sample(4242, 4242);
	assert_non_null(p);
	assert_true(p->stale); /* counted and staying so: not read as a whole */
	assert_int_equal(p->ticks, 37 + 12);

	/* It did not run: its stat is not read (the change is not seen). */
	rewrite("4242/task/4242/stat", " 0 30 10 ", " 0 35 10 ");
	rewrite("4242/stat", " 0 37 12 ", " 0 42 12 ");
	queue_tasks(1000, 1000);
	assert_int_equal(session_tick(&s, false), 0);
	t = task_target(4242);
	assert_int_equal(t->ticks, 30 + 10);
	assert_int_equal(t->idle_ticks, 2);
	assert_true(t->refreshed);

	/* It ran: read, and seen. */
	queue_tasks(2000, 1500);
	assert_int_equal(session_tick(&s, false), 0);
	t = task_target(4242);
	assert_int_equal(t->ticks, 35 + 10);
	assert_int_equal(t->idle_ticks, 0);

	/* The task watcher lost records: everything is read. */
	rewrite("4242/task/4242/stat", " 0 35 10 ", " 0 36 10 ");
	s.tw.lost++;
	queue_tasks(2000, 1500);
	assert_int_equal(session_tick(&s, false), 0);
	t = task_target(4242);
	assert_int_equal(t->ticks, 36 + 10);
	assert_int_equal(t->idle_ticks, 0);

	/* Idle from here: when its targets go (idle for SESSION_IDLE_TICKS
	 * ticks), the process is read the tick before... */
	for (int i = 1; i < SESSION_IDLE_TICKS; i++) {
		queue_tasks(2000, 1500);
		assert_int_equal(session_tick(&s, false), 0);
		assert_int_equal(task_target(4242)->idle_ticks, i);
		assert_true(sample(4242, 4242)->stale);
		assert_int_equal(sample(4242, 4242)->ticks, 37 + 12);
	}
	queue_tasks(2000, 1500);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(task_target(4242)->idle_ticks, SESSION_IDLE_TICKS);
	p = sample(4242, 4242);
	assert_false(p->stale);
	assert_int_equal(p->ticks, 42 + 12);

	/* ...so that its first /proc-only row has its true interval. */
	rewrite("4242/stat", " 0 42 12 ", " 0 45 12 ");
	assert_int_equal(session_tick(&s, false), 0);
	const struct model_row *r = task_row(4242);
	assert_non_null(r);
	assert_false(r->counted);
	assert_true(r->cpu_pct > 0);
	assert_true(fabs(r->cpu_pct - 3.0 / (double)hz / s.model.interval_s * 100.0) < 1e-6 * r->cpu_pct);
}

/* Reads of fd so far (queued reads consumed). */
static int reads_of(const struct session_target *t)
{
	return fake_sys_event(t->cs.c[0].fd)->next_read;
}

/* Queue a read for each counted task target but those in skip. */
static void queue_tasks_but(uint64_t v, pid_t skip1, pid_t skip2)
{
	for (int t = 0; t < s.nr_targets; t++) {
		struct session_target *g = &s.targets[t];
		if (g->tid < 0 || !g->counted || g->tid == skip1 || g->tid == skip2)
			continue;
		fake_sys_queue_group_read(g->cs.c[0].fd, v, v, 1, &v, &g->cs.c[0].id);
	}
}

/*
 * With many tasks counted, the run watch's switch records say which ran:
 * the counters of those that did not are not read, their figures hold
 * (an interval of 0), and those that ran are read. Until the watch has
 * been open through a tick's reads, when records were lost, when a CPU's
 * running task is not known, or when the task watcher lost records,
 * everything is read.
 */
static void test_reads_skipped_when_not_run(void **state)
{
	struct session_config c;
	char err[256];
	struct session_target *t2, *t42, *t43;

	config(&c, "task-clock");
	c.cpu_min = 1e-12;
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_true(s.rw_events_ok);
	s.rw_min = 3; /* SESSION_RUNWATCH_MIN in small */
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_false(s.rw_open);
	t2 = task_target(2);
	t42 = task_target(4242);
	t43 = task_target(4243);
	assert_true(t2 && t42 && t43 && t2->counted && t42->counted && t43->counted);

	/* Opened after a tick's reads: not used until it has seen a whole tick. */
	queue_tasks(1000, 1000);
	assert_int_equal(session_tick(&s, false), 0);
	assert_true(s.rw_open);
	assert_false(s.rw_armed);
	testutil_put_switch(&s.rw.cpus[0].ring, false, 4242, 0);
	testutil_put_switch(&s.rw.cpus[1].ring, false, 0, 0);
	queue_tasks(2000, 2000);
	assert_int_equal(session_tick(&s, false), 0);
	assert_true(s.rw_armed);
	assert_int_equal(s.rw_skipped, 0);
	int r2 = reads_of(t2), r43 = reads_of(t43), r42 = reads_of(t42);

	/* 4242 is on CPU 0 (since the last tick), CPU 1 idle: 2 and 4243 are not read. */
	queue_tasks_but(3000, 2, 4243);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(reads_of(t42), r42 + 1);
	assert_int_equal(reads_of(t2), r2);
	assert_int_equal(reads_of(t43), r43);
	assert_int_equal(s.rw_skipped, 2);
	assert_true(t43->cs.c[0].prev.value == 2000 && t43->cs.c[0].cur.value == 2000);
	assert_true(t43->refreshed);
	assert_true(task_row(4242)->cells[0].value == 1000.0); /* 4242's 1000, 4243's 0 */

	/* 4243 runs on CPU 1 and leaves it: read; 2 still not. */
	testutil_put_switch(&s.rw.cpus[1].ring, false, 4243, 0);
	testutil_put_switch(&s.rw.cpus[1].ring, true, 4243, 0);
	queue_tasks_but(4000, 2, 0);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(reads_of(t43), r43 + 1);
	assert_int_equal(reads_of(t2), r2);
	assert_true(task_row(4242)->cells[0].value == 1000.0 + 2000.0);

	/* Records lost on CPU 1: everything is read, this tick and the next
	 * (who runs there is not known until it switches). */
	testutil_put_lost(&s.rw.cpus[1].ring, 3);
	queue_tasks(5000, 5000);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(reads_of(t2), r2 + 1);
	queue_tasks(6000, 6000);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(reads_of(t2), r2 + 2);
	testutil_put_switch(&s.rw.cpus[1].ring, false, 0, 4243); /* idle in, 4243 out */
	queue_tasks_but(7000, 2, 0);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(reads_of(t2), r2 + 2);
	assert_int_equal(reads_of(t43), r43 + 4);

	/* The task watcher lost records (an exit may be missed): all read. */
	s.tw.lost++;
	queue_tasks(8000, 8000);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(reads_of(t2), r2 + 3);
	assert_int_equal(reads_of(t43), r43 + 5);

	/* An event that may count while its task is off the CPUs (a
	 * tracepoint): reads are never skipped, and the watch closes. */
	s.cev[0].attr.type = PERF_TYPE_TRACEPOINT;
	session_runs_init(&s);
	assert_false(s.rw_events_ok);
	queue_tasks(9000, 9000);
	assert_int_equal(session_tick(&s, false), 0);
	assert_int_equal(reads_of(t2), r2 + 4);
	assert_false(s.rw_open);
	s.cev[0].attr.type = PERF_TYPE_SOFTWARE;
}

/*
 * With --cpu-min 0 every task qualifies for counters: an idle one keeps
 * them (given back, it would get them again at once, reopened, and lose an
 * interval to it), and its row stays counted.
 */
static void test_idle_kept_at_cpu_min_0(void **state)
{
	struct session_config c;
	char err[256];
	struct session_target *t;

	config(&c, "task-clock");
	c.cpu_min = 0;
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	t = task_target(4242);
	assert_non_null(t);
	int fd = t->cs.c[0].fd;
	for (int i = 0; i < SESSION_IDLE_TICKS + 2; i++) {
		queue_tasks(1000, 1000); /* the same reading: it did not run */
		assert_int_equal(session_tick(&s, false), 0);
	}
	t = task_target(4242);
	assert_non_null(t);
	assert_true(t->idle_ticks > SESSION_IDLE_TICKS);
	assert_true(t->counted);
	assert_int_equal(t->cs.c[0].fd, fd); /* never closed nor reopened */
	assert_true(task_row(4242)->counted);
	assert_string_equal(task_row(4242)->note, "");
}

static const struct model_row *thread_row(pid_t tid)
{
	for (int i = 0; i < s.model.nr_tasks; i++)
		if (s.model.tasks[i].tid == tid)
			return &s.model.tasks[i];
	return NULL;
}

/*
 * A zombie (state Z, or X) is not a live task: no /proc-only row for it, and
 * its stat file is not kept. A process whose main thread is a zombie while
 * other threads run is alive.
 */
static void test_zombie_not_live(void **state)
{
	struct session_config c;
	char err[256], path[PATH_MAX];

	config(&c, "task-clock");
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(task_row(4242));

	/* The main thread exited, its second thread runs on. */
	rewrite("4242/stat", ") R 1 4242 ", ") Z 1 4242 ");
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(task_row(4242));

	/* The last thread exited too: a zombie waiting for its parent. */
	rewrite("4242/stat", " 20 0 2 0 987654 ", " 20 0 1 0 987654 ");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(session_tick(&s, false), 0);
		assert_null(task_row(4242));
	}
	snprintf(path, sizeof(path), "%s/proc/4242/stat", proc_copy);
	assert_int_equal(testutil_nr_fds_to(path), 0);
	assert_non_null(task_row(2));
}

/* Per thread: a zombie thread has no row, its live sibling has. */
static void test_zombie_thread_not_live(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "task-clock");
	c.threads = true;
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(thread_row(4243));
	rewrite("4242/task/4243/stat", ") S 1 4243 ", ") X 1 4243 ");
	assert_int_equal(session_tick(&s, false), 0);
	assert_null(thread_row(4243));
	assert_non_null(thread_row(4242));
}

/*
 * With -H a process alone in it (one thread) at the last tick is not listed
 * again while its main thread's stat says it still is: a thread that only
 * its task directory shows is not seen. Once the stat counts two threads,
 * the directory is listed and the new thread gets its row.
 */
static void test_single_thread_not_listed(void **state)
{
	struct session_config c;
	char err[256], path[PATH_MAX + 32];
	FILE *f;

	config(&c, "task-clock");
	c.threads = true;
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(thread_row(2));
	assert_int_equal(sample(2, 2)->nr_threads, 1);

	snprintf(path, sizeof(path), "%s/proc/2/task/5", proc_copy);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/proc/2/task/5/stat", proc_copy);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("5 (kworker) S 2 0 0 0 -1 69238880 0 0 0 0 4 1 0 0 20 0 2 0 3 0 0 "
	      "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0\n",
	      f);
	fclose(f);
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(thread_row(2));
	assert_null(thread_row(5));

	rewrite("2/task/2/stat", " 20 0 1 0 2 ", " 20 0 2 0 2 ");
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(thread_row(2));
	assert_non_null(thread_row(5));
	assert_int_equal(thread_row(5)->pid, 2);
	assert_int_equal(sample(2, 2)->nr_threads, 2);
}

/*
 * A counted process that exits is shown exited once, then dropped; while it
 * stays a zombie, it does not come back as a /proc-only row.
 */
static void test_zombie_after_exited(void **state)
{
	struct session_config c;
	char err[256];
	const struct model_row *r;

	config(&c, "task-clock");
	c.cpu_min = 0; /* counters for every task */
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(task_target(4242));
	assert_true(task_target(4242)->counted);
	queue_tasks(1000, 1000);
	assert_int_equal(session_tick(&s, false), 0);
	r = task_row(4242);
	assert_non_null(r);
	assert_true(r->counted);
	assert_false(r->exited);

	rewrite("4242/stat", ") R 1 4242 ", ") Z 1 4242 ");
	rewrite("4242/stat", " 20 0 2 0 987654 ", " 20 0 1 0 987654 ");
	rewrite("4242/task/4242/stat", ") R 1 4242 ", ") Z 1 4242 ");
	rewrite("4242/task/4243/stat", ") S 1 4243 ", ") Z 1 4243 ");
	s.tw.lost++; /* no task watcher records here: read every stat */
	queue_tasks(2000, 2000);
	assert_int_equal(session_tick(&s, false), 0);
	r = task_row(4242);
	assert_non_null(r);
	assert_true(r->exited);
	for (int i = 0; i < 3; i++) {
		queue_tasks(2000, 2000);
		assert_int_equal(session_tick(&s, false), 0);
		assert_null(task_row(4242));
	}
}

static void test_no_hardware_pmu(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "{cycles,instructions},task-clock");
	fake_sys_set_open_rule(hw_missing);
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(s.nr_targets, 2);
	/* One fd per CPU per event that opens; the hardware pair opened nowhere. */
	assert_int_equal(fake_sys_nr_open_fds(), 2);
	assert_int_equal(s.ev[0].nr_open, 0);
	assert_int_equal(s.ev[2].nr_open, 2);
	assert_true(s.model.events[0].why[0] != '\0');
	assert_false(s.model.events[0].opened);
	if (!s.probe.core_pmu) {
		assert_true(s.model.nr_notes >= 1);
		assert_non_null(strstr(s.model.notes[0], "no hardware PMU"));
		assert_non_null(strstr(s.model.notes[0], "cycles, instructions"));
	}
	for (int t = 0; t < 2; t++) {
		struct fake_event *e = fake_sys_event(s.targets[t].cs.c[2].fd);
		assert_int_equal(e->pid, -1);
		assert_int_equal(e->cpu, t);
	}
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(fake_sys_event(s.targets[0].cs.c[2].fd)->nr_enable, 1);

	/* Interval 1: CPU0 ran 0.25 s of task-clock, CPU1 0.5 s. */
	for (int t = 0; t < 2; t++) {
		uint64_t v[] = {250000000ull * (uint64_t)(t + 1)};
		struct counter_set *cs = &s.targets[t].cs;
		fake_sys_queue_group_read(cs->c[2].fd, 1000000000, 1000000000, 1, v, &cs->c[2].id);
	}
	assert_int_equal(session_tick(&s, false), 0);
	struct model *m = &s.model;
	assert_int_equal(m->seq, 1);
	assert_int_equal(m->nr_cpus, 2);
	assert_int_equal(m->cpus[0].cells[0].state, COUNTER_UNSUPPORTED);
	assert_int_equal(m->cpus[1].cells[2].state, COUNTER_OK);
	assert_true(m->cpus[0].cells[2].value == 250000000.0);
	assert_true(m->cpus[1].cells[2].value == 500000000.0);
	assert_true(m->total.cells[2].value == 750000000.0);
	assert_int_equal(m->total.cells[0].state, COUNTER_UNSUPPORTED);
	assert_int_equal(m->events[2].state, COUNTER_OK);
	/* The task table comes from /proc: at least this process. */
	assert_true(m->tasks_total >= 1);
	assert_false(m->tasks_counted);
	assert_int_equal(m->nr_metrics, 0);
}

static void test_groups_metrics_multiplexing(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "{cycles,instructions},task-clock");
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(fake_sys_nr_open_fds(), 6);
	assert_int_equal(s.model.nr_metrics, 1);
	assert_string_equal(s.model.metrics[0].name, "IPC");
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);

	uint64_t a[] = {1000, 1500}, b[] = {3000, 5500}, tc[] = {10}, tc2[] = {20};
	queue(0, 2, 1000, 1000, a);
	queue(2, 1, 1000, 1000, tc);
	assert_int_equal(session_tick(&s, false), 0);
	/* Second interval: the hardware group ran half the time. */
	queue(0, 2, 3000, 2000, b);
	queue(2, 1, 3000, 3000, tc2);
	assert_int_equal(session_tick(&s, false), 0);
	struct model *m = &s.model;
	const struct counter_value *cyc = &m->cpus[0].cells[0], *ins = &m->cpus[0].cells[1];
	assert_int_equal(cyc->state, COUNTER_MULTIPLEXED);
	assert_true(fabs(cyc->coverage - 0.5) < 1e-9);
	assert_true(cyc->value == 4000.0); /* (3000-1000) * 2000/1000 */
	assert_true(ins->value == 8000.0); /* (5500-1500) * 2 */
	assert_true(fabs(m->cpus[0].metrics[0] - 2.0) < 1e-9);
	assert_true(fabs(m->total.metrics[0] - 2.0) < 1e-9);
	assert_true(m->total.cells[0].value == 8000.0);
	assert_int_equal(m->events[0].state, COUNTER_MULTIPLEXED);
	assert_true(fabs(m->events[0].coverage - 0.5) < 1e-9);
	assert_int_equal(m->events[2].state, COUNTER_OK);
}

static void *thread_waiting(void *arg)
{
	char c;

	*(pid_t *)arg = gettid();
	return read(((int *)arg)[1], &c, 1) < 0 ? NULL : arg;
}

/* A thread of this process, waiting until *pipefd[1] is written; its tid. */
static pid_t start_thread(pthread_t *th, int pipefd[2], int arg[2])
{
	assert_int_equal(pipe(pipefd), 0);
	arg[0] = 0;
	arg[1] = pipefd[0];
	assert_int_equal(pthread_create(th, NULL, thread_waiting, arg), 0);
	while (!__atomic_load_n(&arg[0], __ATOMIC_SEQ_CST))
		usleep(1000);
	return arg[0];
}

static void end_thread(pthread_t th, int pipefd[2])
{
	assert_int_equal(write(pipefd[1], "x", 1), 1);
	pthread_join(th, NULL);
	close(pipefd[0]);
	close(pipefd[1]);
}

/* -H: the threads of a process between /proc listings: those of the last
 * scan and those the task watcher reported, less those gone. */
static void test_threads_listed_when_needed(void **state)
{
	struct session_config c;
	char err[256];
	int pipefd[2], arg[2], pipefd2[2], arg2[2];
	pthread_t th, th2;

	config(&c, "task-clock");
	c.cpu_min = 1e9;
	c.threads = true;
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_true(s.tw_open);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	s.fd_budget = s.fds_used;
	pid_t t1 = start_thread(&th, pipefd, arg);
	assert_int_equal(session_tick(&s, false), 0);
	/* Not reported: not before /proc is listed. */
	assert_null(thread_row(t1));
	session_on_fork(getpid(), t1, getpid(), &s);
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(thread_row(t1));
	assert_int_equal(thread_row(t1)->pid, getpid());
	/* Found again from the last scan, without a report. */
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(thread_row(t1));
	pid_t t2 = start_thread(&th2, pipefd2, arg2);
	s.tw.lost++;
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(thread_row(t2));
	assert_non_null(thread_row(t1));
	end_thread(th, pipefd);
	usleep(20000); /* reaped by the kernel at its exit: gone from /proc */
	assert_int_equal(session_tick(&s, false), 0);
	assert_null(thread_row(t1));
	assert_non_null(thread_row(t2));
	assert_false(s.listed);
	end_thread(th2, pipefd2);
}

/*
 * /proc is listed at the start, every SESSION_LIST_TICKS scans and after
 * the task watcher lost records; in between the scan takes the processes
 * of the last one and those whose fork the watcher reported, and drops
 * the ones it found gone.
 */
static void test_proc_listed_when_needed(void **state)
{
	struct session_config c;
	char err[256];
	int go_a, go_b, go_c;

	config(&c, "task-clock");
	c.cpu_min = 1e9; /* the watcher opens; no task is busy enough for counters */
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_true(s.tw_open);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	s.fd_budget = s.fds_used; /* no counters for new tasks: rows from /proc alone */
	assert_int_equal(session_tick(&s, false), 0);

	/* A process the watcher reports: in the next scan. */
	pid_t a = testutil_child_waiting(&go_a);
	session_on_fork(a, a, getpid(), &s);
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(task_row(a));
	assert_string_equal(task_row(a)->note, "idle: /proc only");

	/* One it does not (nor lost records): not before /proc is listed. */
	pid_t b = testutil_child_waiting(&go_b);
	assert_int_equal(session_tick(&s, false), 0);
	assert_null(task_row(b));
	assert_non_null(task_row(a));
	/* Records lost: /proc is listed at the next scan. */
	s.tw.lost++;
	assert_int_equal(session_tick(&s, false), 0);
	assert_non_null(task_row(b));

	/* And listed every SESSION_LIST_TICKS scans whatever happens. */
	pid_t cpid = testutil_child_waiting(&go_c);
	int ticks = 0;
	while (!task_row(cpid) && ticks <= SESSION_LIST_TICKS) {
		assert_int_equal(session_tick(&s, false), 0);
		ticks++;
	}
	assert_non_null(task_row(cpid));
	assert_true(ticks > 1);

	/* A process that ended leaves the scan's list, and its row. */
	end_child(a, go_a);
	assert_int_equal(session_tick(&s, false), 0);
	assert_null(task_row(a));
	for (int i = 0; i < s.seen.nr; i++)
		assert_int_not_equal(s.seen.id[i], a);
	assert_non_null(task_row(b));
	/* A PID reported again (a new process of it) is read afresh. */
	session_on_fork(a, a, getpid(), &s);
	assert_int_equal(session_tick(&s, false), 0);
	assert_null(task_row(a));
	end_child(b, go_b);
	end_child(cpid, go_c);
}


/*
 * Tasks found after the start: their counters open counting (no enable
 * call), their stat is read once they count, a thread takes its process's
 * start time from its main thread's target, and each tid has one live
 * target, found among many (the index), a recycled one a new target.
 */
static void test_new_task_targets(void **state)
{
	struct session_config c;
	char err[256];
	int go, pipefd[2], arg[2];
	pthread_t th;

	config(&c, "task-clock,page-faults");
	c.cpu_min = 1e9;
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(&s, err, sizeof(err)), 0);
	assert_int_equal(session_tick(&s, false), 0);

	pid_t a = testutil_child_waiting(&go);
	session_on_fork(a, a, getpid(), &s);
	struct session_target *t = task_target(a);
	assert_non_null(t);
	assert_true(t->counted);
	struct fake_event *e = fake_sys_event(t->cs.c[0].fd);
	assert_false(e->attr.disabled);
	assert_int_equal(e->nr_enable, 0);
	assert_false(fake_sys_event(t->cs.c[1].fd)->attr.disabled);
	assert_true(t->stat_read);
	assert_true(t->starttime > 0);
	assert_true(t->pstart == t->starttime);
	assert_true(t->comm[0] != '\0');
	assert_true(t->open_ns > 0);

	/* A thread of this process, its main thread counted first. */
	start_thread(&th, pipefd, arg);
	assert_true(session_count_task(&s, getpid(), getpid(), 0));
	assert_true(session_count_task(&s, getpid(), arg[0], getpid()));
	struct session_target *m = task_target(getpid()), *th_t = task_target(arg[0]);
	assert_non_null(m);
	assert_non_null(th_t);
	assert_true(m->starttime > 0);
	assert_true(th_t->pstart == m->starttime);
	assert_true(th_t->starttime >= m->starttime);
	end_thread(th, pipefd);

	/* Many targets (no such tasks: the fake kernel counts them all the
	 * same): each found again, none added twice. */
	int n0 = s.nr_targets;
	for (pid_t tid = 4000000; tid < 4000100; tid++)
		assert_true(session_count_task(&s, tid, tid, 0));
	assert_int_equal(s.nr_targets, n0 + 100);
	for (pid_t tid = 4000000; tid < 4000100; tid++)
		assert_true(session_count_task(&s, tid, tid, 0));
	assert_true(session_count_task(&s, a, a, 0));
	assert_int_equal(s.nr_targets, n0 + 100);
	/* One exits, and its tid comes back: a new target, found from then on. */
	session_on_exit(4000050, 4000050, &s);
	assert_true(session_count_task(&s, 4000050, 4000050, 0));
	assert_int_equal(s.nr_targets, n0 + 101);
	for (int i = 0; i < 40; i++)
		assert_true(session_count_task(&s, 4000200 + i, 4000200 + i, 0));
	assert_true(session_count_task(&s, 4000050, 4000050, 0));
	assert_int_equal(s.nr_targets, n0 + 141);
	/* Exited ones dropped: the indices move, found all the same. */
	for (pid_t tid = 4000000; tid < 4000040; tid++)
		session_on_exit(tid, tid, &s);
	for (int i = 0; i < s.nr_targets; i++)
		s.targets[i].shown_exited = s.targets[i].exited;
	session_drop_exited(&s); /* 40, and the first target of 4000050 */
	assert_int_equal(s.nr_targets, n0 + 100);
	for (pid_t tid = 4000040; tid < 4000100; tid++)
		assert_true(session_count_task(&s, tid, tid, 0));
	assert_true(session_count_task(&s, a, a, 0));
	assert_int_equal(s.nr_targets, n0 + 100);
	assert_true(task_target(a) != NULL && !task_target(a)->exited);

	/* A task whose stat cannot be read (gone, here never there) is named
	 * as the task that forked it, as the kernel names a child until it
	 * execs; with no parent known it stays unnamed. */
	session_on_fork(4000300, 4000300, a, &s);
	assert_non_null(task_target(4000300));
	assert_true(task_target(a)->comm[0] != '\0');
	assert_string_equal(task_target(4000300)->comm, task_target(a)->comm);
	assert_true(session_count_task(&s, 4000301, 4000301, 0));
	assert_string_equal(task_target(4000301)->comm, "");
	end_child(a, go);
}

static void test_unknown_event_is_an_error(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "task-clock,no_such_event_xyz");
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no_such_event_xyz"));
}

static void test_no_such_pid(void **state)
{
	struct session_config c;
	char err[256];

	config(&c, "task-clock");
	c.mode = MODEL_TASKS;
	c.nr_cpus = 0;
	c.nr_pids = 1;
	c.pids[0] = 999999999;
	assert_int_equal(session_init(&s, &c, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "999999999"));
}

/* Every byte of s but its mark is zero. */
static bool all_clear(const struct session *x)
{
	const unsigned char *b = (const unsigned char *)x;

	for (size_t i = sizeof(x->clean); i < sizeof(*x); i++)
		if (b[i])
			return false;
	return true;
}

/* session_init() clears only a session that is not known to be clear: a
 * new one and one after session_fini() are (every byte zero), one of the
 * caller's or one in use is cleared. Either way the same counting. */
static void test_clean(void **state)
{
	struct session *n = session_new(), *d = malloc(sizeof(*d));
	struct session_config c;
	char err[256];

	assert_non_null(n);
	assert_non_null(d);
	config(&c, "task-clock");
	c.profile.enabled = true; /* the profile inside is not cleared again either */
	assert_int_equal(n->clean, SESSION_CLEAN);
	assert_true(all_clear(n));
	for (int round = 0; round < 2; round++) {
		assert_int_equal(session_init(n, &c, err, sizeof(err)), 0);
		assert_int_equal(n->clean, 0);
		assert_int_equal(session_start(n, err, sizeof(err)), 0);
		assert_int_equal(session_tick(n, false), 0);
		assert_int_equal(n->nr_targets, 2);
		assert_int_equal(n->model.nr_cpus, 2);
		assert_true(n->prof.open);
		assert_int_equal(n->prof.hot.used, 0);
		session_fini(n);
		assert_int_equal(n->clean, SESSION_CLEAN);
		assert_true(all_clear(n));
	}
	/* garbage, and a mark that is not the mark */
	memset(d, 0xa5, sizeof(*d));
	assert_int_equal(session_init(d, &c, err, sizeof(err)), 0);
	assert_int_equal(session_start(d, err, sizeof(err)), 0);
	assert_int_equal(session_tick(d, false), 0);
	assert_int_equal(d->nr_targets, 2);
	assert_int_equal(d->model.nr_cpus, 2);
	assert_true(d->prof.open);
	assert_int_equal(d->prof.hot.used, 0);
	session_fini(d);
	assert_true(all_clear(d));
	free(d);
	session_free(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_no_hardware_pmu, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_clean, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_groups_metrics_multiplexing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unknown_event_is_an_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_such_pid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_proc_fds_follow_tasks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_proc_fds_follow_threads, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_target_fds, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_proc_listed_when_needed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_new_task_targets, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_threads_listed_when_needed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_user_read_once, setup_proc_copy,
	                                    teardown_proc_copy),
	    cmocka_unit_test_setup_teardown(test_reads_skipped_when_not_run, setup_proc_copy,
	                                    teardown_proc_copy),
	    cmocka_unit_test_setup_teardown(test_stat_skipped_when_not_run, setup_proc_copy,
	                                    teardown_proc_copy),
	    cmocka_unit_test_setup_teardown(test_idle_kept_at_cpu_min_0, setup_proc_copy,
	                                    teardown_proc_copy),
	    cmocka_unit_test_setup_teardown(test_single_thread_not_listed, setup_proc_copy,
	                                    teardown_proc_copy),
	    cmocka_unit_test_setup_teardown(test_zombie_not_live, setup_proc_copy,
	                                    teardown_proc_copy),
	    cmocka_unit_test_setup_teardown(test_zombie_thread_not_live, setup_proc_copy,
	                                    teardown_proc_copy),
	    cmocka_unit_test_setup_teardown(test_zombie_after_exited, setup_proc_copy,
	                                    teardown_proc_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
