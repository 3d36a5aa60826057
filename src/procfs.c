/* procfs: reads task, thread and CPU figures from /proc. */
#include "procfs.h"

#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct procfs_user {
	struct procfs_user *next;
	uid_t uid;
	char name[];
};

void procfs_init(struct procfs *pf, const char *root)
{
	memset(pf, 0, sizeof(*pf));
	pf->dir = pf->stat_fd = pf->loadavg_fd = -1;
	util_set_root(pf->root, sizeof(pf->root), root);
}

void procfs_close(struct procfs *pf)
{
	if (pf->stat_fd >= 0)
		close(pf->stat_fd);
	if (pf->loadavg_fd >= 0)
		close(pf->loadavg_fd);
	if (pf->dir >= 0)
		close(pf->dir);
	pf->stat_fd = pf->loadavg_fd = pf->dir = -1;
	free(pf->stat_buf);
	pf->stat_buf = NULL;
	pf->stat_cap = 0;
	while (pf->users) {
		struct procfs_user *u = pf->users;

		pf->users = u->next;
		free(u);
	}
}

/* The /proc directory fd, opened on first use; -errno when it cannot be. */
static int proc_dirfd(struct procfs *pf)
{
	char path[PATH_MAX];

	if (pf->dir >= 0)
		return pf->dir;
	if ((size_t)snprintf(path, sizeof(path), "%s/proc", pf->root) >= sizeof(path))
		return -ENAMETOOLONG;
	pf->dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return pf->dir >= 0 ? pf->dir : -errno;
}

/* Open a path below /proc ("123/stat") relative to the kept directory fd:
 * the walk starts there, not at "/". fd or -errno. */
__attribute__((format(printf, 3, 4))) static int proc_open(struct procfs *pf, int flags,
                                                           const char *fmt, ...)
{
	char rel[128];
	va_list ap;
	int n, dir = proc_dirfd(pf), fd;

	if (dir < 0)
		return dir;
	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	fd = openat(dir, rel, flags | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

/* A vanished task shows up as ENOENT or, mid-read, ESRCH. */
static int gone(int err)
{
	return err == ESRCH ? -ENOENT : -err;
}

/* Read up to len - 1 bytes of fd from offset 0 into buf, NUL-terminated;
 * bytes or -errno. pread: a kept /proc file is generated afresh from 0.
 * seq: a seq_file (stat, status), which a read fills as far as it goes, so
 * a short read is the whole of it: no second read to see the end. */
static ssize_t read_fd(int fd, char *buf, size_t len, bool seq)
{
	size_t got = 0;

	while (got < len - 1) {
		ssize_t n = pread(fd, buf + got, len - 1 - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return gone(errno);
		if (n == 0)
			break;
		got += n;
		if (seq)
			break;
	}
	buf[got] = '\0';
	return got;
}

/* Open, read (as read_fd) and close; fd is from proc_open(). */
static ssize_t read_close(int fd, char *buf, size_t len, bool seq)
{
	ssize_t n;

	if (fd < 0)
		return gone(-fd);
	n = read_fd(fd, buf, len, seq);
	close(fd);
	return n;
}

/* A stream on an fd from proc_open(); NULL with errno set. */
static FILE *proc_fopen(int fd)
{
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}

/* "123" -> 123; anything else -> -1. */
static pid_t parse_pid(const char *s)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	return *end || errno || v <= 0 || v > INT_MAX ? -1 : (pid_t)v;
}

/*
 * Parse a stat line "pid (comm) state ppid ...". comm may hold spaces and
 * parentheses, so it runs to the LAST ')'. Field numbers as in proc(5).
 */
static int parse_stat(char *s, struct procfs_task *t)
{
	char *open = strchr(s, '('), *close = strrchr(s, ')'), *f;
	long long v[40] = {0}; /* v[n] is field n */
	size_t n;
	int i;

	if (!open || !close || close < open)
		return -EINVAL;
	n = close - open - 1;
	if (n >= sizeof(t->comm))
		n = sizeof(t->comm) - 1;
	memcpy(t->comm, open + 1, n);
	t->comm[n] = '\0';

	f = close + 1;
	while (*f == ' ')
		f++;
	if (!*f)
		return -EINVAL;
	t->state = *f++;
	for (i = 4; i < 40; i++) {
		/* strtoll() without its locale and base work: thousands of
		 * these lines a tick */
		const char *p = f;
		bool neg;
		unsigned long long x = 0; /* some fields are u64: wraps, never overflows */

		while (*p == ' ')
			p++;
		neg = *p == '-';
		p += neg;
		if (!isdigit((unsigned char)*p))
			break;
		while (isdigit((unsigned char)*p))
			x = x * 10 + (unsigned)(*p++ - '0');
		v[i] = (long long)(neg ? 0 - x : x);
		f = (char *)p;
	}
	if (i <= 22) /* too short to hold starttime */
		return -EINVAL;
	t->ppid = (pid_t)v[4];
	t->utime = v[14];
	t->stime = v[15];
	t->num_threads = (int)v[20];
	t->starttime = v[22];
	t->processor = i > 39 ? (int)v[39] : -1;
	return 0;
}

/* The effective uid from a status file's "Uid:\treal\teffective\t..." line. */
static int parse_uid(const char *s, uid_t *uid)
{
	const char *line = strstr(s, "\nUid:");
	unsigned int real, eff;

	if (!line || sscanf(line + 5, "%u %u", &real, &eff) != 2)
		return -EINVAL;
	*uid = eff;
	return 0;
}

/* The stat file of a task: /proc/PID/stat (tid 0) or /proc/PID/task/TID/stat. */
static int open_stat(struct procfs *pf, pid_t pid, pid_t tid)
{
	return tid == 0 ? proc_open(pf, O_RDONLY, "%d/stat", (int)pid)
	                : proc_open(pf, O_RDONLY, "%d/task/%d/stat", (int)pid, (int)tid);
}

static int stat_of(pid_t pid, pid_t tid, char *buf, ssize_t n, struct procfs_task *out)
{
	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->tid = tid ? tid : pid;
	if (n < 0)
		return (int)n;
	return parse_stat(buf, out);
}

int procfs_task_stat(struct procfs *pf, pid_t pid, pid_t tid, struct procfs_task *out)
{
	char buf[4096];

	return stat_of(pid, tid, buf, read_close(open_stat(pf, pid, tid), buf, sizeof(buf), true),
	               out);
}

int procfs_task_stat_kept(struct procfs *pf, pid_t pid, pid_t tid, int *fd, bool keep,
                          struct procfs_task *out)
{
	char buf[4096];
	ssize_t n;

	if (*fd < 0) {
		int f = open_stat(pf, pid, tid);

		if (f < 0 || !keep)
			return stat_of(pid, tid, buf, read_close(f, buf, sizeof(buf), true), out);
		*fd = f;
	}
	/* Through a kept fd a task that has been reaped reads as ESRCH (or
	 * nothing): the fd stays with the task it was opened on, even when its
	 * PID has gone to another since. */
	n = read_fd(*fd, buf, sizeof(buf), true);
	if (n == 0)
		n = -ENOENT;
	if (n < 0) {
		close(*fd);
		*fd = -1;
	}
	return stat_of(pid, tid, buf, n, out);
}

bool procfs_task_dead(const struct procfs_task *t, bool threads)
{
	return (t->state == 'Z' || t->state == 'X') && (threads || t->num_threads <= 1);
}

int procfs_task_uid(struct procfs *pf, pid_t pid, pid_t tid, uid_t *uid)
{
	char buf[4096];
	ssize_t n =
	    read_close(tid == 0 ? proc_open(pf, O_RDONLY, "%d/status", (int)pid)
	                        : proc_open(pf, O_RDONLY, "%d/task/%d/status", (int)pid, (int)tid),
	               buf, sizeof(buf), true);

	return n < 0 ? (int)n : parse_uid(buf, uid);
}

int procfs_task_read(struct procfs *pf, pid_t pid, pid_t tid, struct procfs_task *out)
{
	int err = procfs_task_stat(pf, pid, tid, out);

	return err ? err : procfs_task_uid(pf, pid, tid, &out->uid);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

void procfs_ids_free(struct procfs_ids *l)
{
	free(l->id);
	memset(l, 0, sizeof(*l));
}

static int ids_push(struct procfs_ids *l, pid_t id)
{
	if (util_grow(&l->id, l->nr, &l->cap, sizeof(*l->id), 256))
		return -ENOMEM;
	l->id[l->nr++] = id;
	return 0;
}

/* The numeric entries of a directory (an fd from proc_open), all of them,
 * sorted; count or -errno. */
static int numeric_entries(int fd, struct procfs_ids *l)
{
	struct dirent *d;
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	int ret = 0;

	l->nr = 0;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return gone(fd < 0 ? -fd : errno);
	}
	while (!ret && (d = readdir(dir))) {
		pid_t id = parse_pid(d->d_name);

		if (id > 0)
			ret = ids_push(l, id);
	}
	closedir(dir);
	if (ret)
		return ret;
	if (l->nr > 1) /* qsort wants a non-null base, even for no elements */
		qsort(l->id, (size_t)l->nr, sizeof(*l->id), cmp_pid);
	return l->nr;
}

int procfs_threads(struct procfs *pf, pid_t pid, struct procfs_ids *l)
{
	return numeric_entries(proc_open(pf, O_RDONLY | O_DIRECTORY, "%d/task", (int)pid), l);
}

int procfs_pids(struct procfs *pf, struct procfs_ids *l)
{
	return numeric_entries(proc_open(pf, O_RDONLY | O_DIRECTORY, "."), l);
}

/* One "cpuN user nice system idle iowait irq softirq steal ..." line. */
static int parse_cpu_line(const char *line, struct procfs_cpu *c)
{
	unsigned long long v[8] = {0};
	const char *s = line + 3;
	char *end;
	int cpu;

	cpu = (int)strtol(s, &end, 10);
	if (end == s || cpu < 0)
		return -EINVAL;
	s = end;
	c->cpu = cpu;
	c->total = 0;
	for (int i = 0; i < 8; i++) {
		v[i] = strtoull(s, &end, 10);
		if (end == s)
			break;
		c->total += v[i];
		s = end;
	}
	/* guest and guest_nice are already part of user and nice */
	c->busy = c->total - v[3] - v[4];
	c->user = v[0] + v[1];
	c->sys = v[2];
	return 0;
}

/* A decimal int at *p (optional spaces first), followed by end (or by
 * anything, when end is 0): its value in *v and *p moved past end; false
 * when there is none. */
static bool take_int(const char **p, char end, int *v)
{
	char *e;
	long x = strtol(*p, &e, 10);

	if (e == *p || (end && *e != end) || x < INT_MIN || x > INT_MAX)
		return false;
	*v = (int)x;
	*p = e + 1;
	return true;
}

/* "0.52 0.58 0.59 2/123 4567": read through an fd kept open, every tick. */
int procfs_loadavg(struct procfs *pf, double load[3], int *running, int *all)
{
	char buf[128], *e;
	const char *p = buf;
	ssize_t n;

	if (pf->loadavg_fd < 0) {
		int fd = proc_open(pf, O_RDONLY, "loadavg");

		if (fd < 0)
			return fd;
		pf->loadavg_fd = fd;
	}
	do
		n = pread(pf->loadavg_fd, buf, sizeof(buf) - 1, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		close(pf->loadavg_fd);
		pf->loadavg_fd = -1;
		return err;
	}
	buf[n] = '\0';
	for (int i = 0; i < 3; i++, p = e) {
		load[i] = strtod(p, &e);
		if (e == p)
			return -EINVAL;
	}
	return take_int(&p, '/', running) && take_int(&p, 0, all) ? 0 : -EINVAL;
}

/* True once buf holds a whole line that is not a cpu line: the cpu lines
 * come first in /proc/stat, so the rest need not be read. */
static bool past_cpu_lines(const char *buf)
{
	for (const char *l = buf, *nl; (nl = strchr(l, '\n')); l = nl + 1)
		if (strncmp(l, "cpu", 3))
			return true;
	return false;
}

int procfs_cpu_times(struct procfs *pf, struct procfs_cpu *out, int max)
{
	size_t got = 0;
	int n = 0;

	if (pf->stat_fd < 0) {
		int fd = proc_open(pf, O_RDONLY, "stat");

		if (fd < 0)
			return fd;
		pf->stat_fd = fd;
	}
	for (;;) {
		ssize_t r;

		if (pf->stat_cap - got < 4096) {
			size_t cap = pf->stat_cap ? pf->stat_cap * 2 : 16384;
			char *b = realloc(pf->stat_buf, cap);

			if (!b)
				return -ENOMEM;
			pf->stat_buf = b;
			pf->stat_cap = cap;
		}
		r = pread(pf->stat_fd, pf->stat_buf + got, pf->stat_cap - 1 - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			close(pf->stat_fd);
			pf->stat_fd = -1;
			return err;
		}
		if (r == 0)
			break;
		got += (size_t)r;
		pf->stat_buf[got] = '\0';
		if (past_cpu_lines(pf->stat_buf))
			break;
	}
	if (!got)
		return 0;
	for (char *line = pf->stat_buf, *nl; n < max && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;
		else
			*nl = '\0';
		if (strncmp(line, "cpu", 3))
			break; /* the cpu lines come first */
		if (!isdigit((unsigned char)line[3]))
			continue; /* the "cpu" total */
		if (!parse_cpu_line(line, &out[n]))
			n++;
	}
	return n;
}

int procfs_cmdline(struct procfs *pf, pid_t pid, char *buf, size_t len)
{
	struct procfs_task t;
	ssize_t n;
	int err;

	if (!len)
		return -EINVAL;
	n = read_close(proc_open(pf, O_RDONLY, "%d/cmdline", (int)pid), buf, len, false);
	if (n < 0)
		return (int)n;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	while (n > 0 && buf[n - 1] == ' ')
		buf[--n] = '\0';
	if (n > 0)
		return 0;

	/* kernel threads (and zombies) have no command line */
	err = procfs_task_stat(pf, pid, 0, &t);
	if (err)
		return err;
	snprintf(buf, len, "[%s]", t.comm);
	return 0;
}

const char *procfs_user(struct procfs *pf, uid_t uid)
{
	struct procfs_user *u;
	struct passwd pw, *res = NULL;
	char pwbuf[4096], name[64];

	for (u = pf->users; u; u = u->next)
		if (u->uid == uid)
			return u->name;
	if (!getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) && res)
		snprintf(name, sizeof(name), "%s", res->pw_name);
	else
		snprintf(name, sizeof(name), "%u", (unsigned int)uid);
	u = malloc(sizeof(*u) + strlen(name) + 1);
	if (!u) { /* no room to remember it: the number says who it is */
		snprintf(pf->uid_text, sizeof(pf->uid_text), "%u", (unsigned int)uid);
		return pf->uid_text;
	}
	u->uid = uid;
	strcpy(u->name, name);
	u->next = pf->users;
	pf->users = u;
	return u->name;
}

long procfs_hz(void)
{
	static long hz;

	if (!hz) {
		hz = sysconf(_SC_CLK_TCK);
		if (hz <= 0)
			hz = 100;
	}
	return hz;
}

int procfs_cgroup2_root(struct procfs *pf, char *buf, size_t len)
{
	char line[1024];
	FILE *f = proc_fopen(proc_open(pf, O_RDONLY, "self/mounts"));
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char dev[256], dir[512], type[64];
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			util_strlcpy(buf, dir, len);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int procfs_task_cgroup(struct procfs *pf, pid_t pid, char *buf, size_t len)
{
	char line[1024];
	FILE *f = proc_fopen(proc_open(pf, O_RDONLY, "%d/cgroup", (int)pid));
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		util_strlcpy(buf, line + 3, len);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}
