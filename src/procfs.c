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

static char root[PATH_MAX]; /* "" stands for "/" */

void procfs_set_root(const char *dir)
{
	util_set_root(root, sizeof(root), dir);
}

__attribute__((format(printf, 3, 4))) static int path_of(char *out, size_t len, const char *fmt,
                                                         ...)
{
	char rel[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	n = snprintf(out, len, "%s%s", root, rel);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A vanished task shows up as ENOENT or, mid-read, ESRCH. */
static int gone(int err)
{
	return err == ESRCH ? -ENOENT : -err;
}

/* Read up to len - 1 bytes of path into buf, NUL-terminated; bytes or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return gone(errno);
	while (got < len - 1) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = errno;

			close(fd);
			return gone(err);
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
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
	char *open = strchr(s, '('), *close = strrchr(s, ')'), *f, *end;
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
		v[i] = strtoll(f, &end, 10);
		if (end == f)
			break;
		f = end;
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

int procfs_task_stat(pid_t pid, pid_t tid, struct procfs_task *out)
{
	char path[PATH_MAX], buf[4096];
	ssize_t n;
	int err;

	memset(out, 0, sizeof(*out));
	out->pid = pid;
	out->tid = tid ? tid : pid;
	err = tid == 0 ? path_of(path, sizeof(path), "/proc/%d/stat", (int)pid)
		       : path_of(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (err)
		return err;
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return parse_stat(buf, out);
}

int procfs_task_read(pid_t pid, pid_t tid, struct procfs_task *out)
{
	char path[PATH_MAX], buf[4096];
	ssize_t n;
	int err = procfs_task_stat(pid, tid, out);

	if (err)
		return err;
	err = tid == 0 ? path_of(path, sizeof(path), "/proc/%d/status", (int)pid)
		       : path_of(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	if (err)
		return err;
	n = read_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return parse_uid(buf, &out->uid);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Numeric entries of a directory, sorted; count or -errno. */
static int numeric_entries(const char *path, pid_t *ids, int max)
{
	struct dirent *d;
	DIR *dir = opendir(path);
	int n = 0;

	if (!dir)
		return gone(errno);
	while (n < max && (d = readdir(dir))) {
		pid_t id = parse_pid(d->d_name);

		if (id > 0)
			ids[n++] = id;
	}
	closedir(dir);
	qsort(ids, n, sizeof(*ids), cmp_pid);
	return n;
}

int procfs_threads(pid_t pid, pid_t *tids, int max)
{
	char path[PATH_MAX];
	int err = path_of(path, sizeof(path), "/proc/%d/task", (int)pid);

	return err ? err : numeric_entries(path, tids, max);
}

int procfs_pids(pid_t *pids, int max)
{
	char path[PATH_MAX];
	int err = path_of(path, sizeof(path), "/proc");

	return err ? err : numeric_entries(path, pids, max);
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
	return 0;
}

int procfs_cpu_times(struct procfs_cpu *out, int max)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int n = 0, err;
	FILE *f;

	err = path_of(path, sizeof(path), "/proc/stat");
	if (err)
		return err;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (n < max && getline(&line, &cap, f) > 0) {
		if (strncmp(line, "cpu", 3))
			break; /* the cpu lines come first */
		if (!isdigit((unsigned char)line[3]))
			continue; /* the "cpu" total */
		if (!parse_cpu_line(line, &out[n]))
			n++;
	}
	free(line);
	fclose(f);
	return n;
}

int procfs_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct procfs_task t;
	ssize_t n;
	int err;

	if (!len)
		return -EINVAL;
	err = path_of(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if (err)
		return err;
	n = read_file(path, buf, len);
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
	err = procfs_task_read(pid, 0, &t);
	if (err)
		return err;
	snprintf(buf, len, "[%s]", t.comm);
	return 0;
}

struct user_name {
	struct user_name *next;
	uid_t uid;
	char name[];
};

static struct user_name *users;

const char *procfs_user(uid_t uid)
{
	static char fallback[16];
	struct user_name *u;
	struct passwd pw, *res = NULL;
	char pwbuf[4096], name[64];

	for (u = users; u; u = u->next)
		if (u->uid == uid)
			return u->name;
	if (!getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &res) && res)
		snprintf(name, sizeof(name), "%s", res->pw_name);
	else
		snprintf(name, sizeof(name), "%u", (unsigned int)uid);

	u = malloc(sizeof(*u) + strlen(name) + 1);
	if (!u) {
		snprintf(fallback, sizeof(fallback), "%u", (unsigned int)uid);
		return fallback;
	}
	u->uid = uid;
	strcpy(u->name, name);
	u->next = users;
	users = u;
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

int procfs_cgroup2_root(char *buf, size_t len)
{
	char path[PATH_MAX], line[1024];
	FILE *f;
	int ret = -ENOENT;

	if (path_of(path, sizeof(path), "/proc/self/mounts"))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char dev[256], dir[512], type[64];
		if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 && !strcmp(type, "cgroup2")) {
			util_strlcpy(buf, dir, len);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

int procfs_task_cgroup(pid_t pid, char *buf, size_t len)
{
	char path[PATH_MAX], line[1024];
	FILE *f;
	int ret = -ENOENT;

	if (path_of(path, sizeof(path), "/proc/%d/cgroup", (int)pid))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
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
