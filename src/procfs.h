/* procfs: the task and CPU figures pfmtop reads from /proc and /sys. */
#ifndef PFMTOP_PROCFS_H
#define PFMTOP_PROCFS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Where and how /proc is read: below root ("" stands for "/"; tests point
 * it at a fixture tree), through a /proc directory fd kept open (paths are
 * walked from there, not from "/"), with /proc/stat kept open and re-read
 * each tick, and user names remembered. One per reader; procfs_init()
 * opens nothing, the first read does.
 */
struct procfs {
	char root[PATH_MAX];
	int dir, stat_fd, loadavg_fd;
	char *stat_buf;
	size_t stat_cap;
	struct procfs_user *users;
	char uid_text[16];
};

/* Read below root instead of / (NULL or "/": the real /proc). */
void procfs_init(struct procfs *pf, const char *root);

/* Close what pf keeps open and forget what it remembers; pf stays usable
 * (it reopens on next use). */
void procfs_close(struct procfs *pf);

struct procfs_task {
	pid_t pid, tid;
	pid_t ppid;
	char comm[32];
	char state;
	uid_t uid;
	uint64_t utime, stime; /* clock ticks */
	uint64_t starttime;    /* clock ticks since boot: tells recycled PIDs apart */
	int processor;         /* last CPU it ran on */
	int num_threads;
};

/* Read /proc/PID/stat (tid 0: the process, its threads summed) or
 * /proc/PID/task/TID/stat (one thread; tid == pid is the main thread alone),
 * and the uid from the matching status. 0 or -errno (-ENOENT when the task
 * is gone). */
int procfs_task_read(struct procfs *pf, pid_t pid, pid_t tid, struct procfs_task *out);

/* The same from the stat file alone (uid left 0): half the system calls,
 * for scans of every task. */
int procfs_task_stat(struct procfs *pf, pid_t pid, pid_t tid, struct procfs_task *out);

/*
 * procfs_task_stat() through a stat file kept open in *fd (-1: none) and
 * read again from offset 0 each time: no path walk, open or close. With
 * *fd < 0 the file is opened, and left open in *fd if keep. A read that
 * finds the task gone returns -ENOENT and closes *fd (back to -1). A kept fd
 * stays with the task it was opened on: once that task is reaped it reads
 * as gone, even if its PID has gone to a new task since (open afresh to see
 * that one).
 */
int procfs_task_stat_kept(struct procfs *pf, pid_t pid, pid_t tid, int *fd, bool keep,
                          struct procfs_task *out);

/*
 * Has the task of these figures exited (state Z or X: a zombie not yet
 * reaped, or dead)? As a process (threads false), a zombie main thread with
 * live threads beside it is a live process: only a lone one is dead.
 */
bool procfs_task_dead(const struct procfs_task *t, bool threads);

/* The effective uid of a task, from /proc/PID/status (tid 0) or
 * /proc/PID/task/TID/status; 0 or -errno. */
int procfs_task_uid(struct procfs *pf, pid_t pid, pid_t tid, uid_t *uid);

/* A list of process or thread ids, sorted: grown as a listing needs (no
 * listing is ever cut short), owned and reused by the caller. */
struct procfs_ids {
	pid_t *id;
	int nr, cap;
};
void procfs_ids_free(struct procfs_ids *l);

/* The thread ids of pid into l; returns their count or -errno (-ESRCH:
 * gone, -ENOMEM). */
int procfs_threads(struct procfs *pf, pid_t pid, struct procfs_ids *l);

/* Every process id into l; returns the count or -errno. */
int procfs_pids(struct procfs *pf, struct procfs_ids *l);

struct procfs_cpu {
	int cpu;              /* -1 for the "cpu" total line */
	uint64_t busy, total; /* ticks: busy = total - idle - iowait */
	uint64_t user, sys;   /* of busy: user + nice, system (the rest: irq,
	                       * softirq, steal) */
};

/* Per-CPU lines of /proc/stat into out (at most max, total line excluded);
 * returns the count or -errno. */
int procfs_cpu_times(struct procfs *pf, struct procfs_cpu *out, int max);

/* /proc/loadavg: the three load averages, runnable and all scheduling
 * entities; 0 or -errno. */
int procfs_loadavg(struct procfs *pf, double load[3], int *running, int *all);

/* Command line of pid with NULs as spaces, or comm in brackets for kernel
 * threads; 0 or -errno. */
int procfs_cmdline(struct procfs *pf, pid_t pid, char *buf, size_t len);

/* User name for uid (cached getpwuid_r), or the number as text. */
const char *procfs_user(struct procfs *pf, uid_t uid);

/* Clock ticks per second (sysconf(_SC_CLK_TCK)). */
long procfs_hz(void);

/* The cgroup v2 mount point (from /proc/self/mounts: /sys/fs/cgroup, or
 * /sys/fs/cgroup/unified on hybrid systems) into buf; 0 or -ENOENT. */
int procfs_cgroup2_root(struct procfs *pf, char *buf, size_t len);

/* pid's cgroup v2 path ("/system.slice/foo.service", from the "0::" line of
 * /proc/PID/cgroup) into buf; 0 or -errno. */
int procfs_task_cgroup(struct procfs *pf, pid_t pid, char *buf, size_t len);

#endif
