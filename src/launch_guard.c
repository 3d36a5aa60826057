/* launch_guard: the command in a cgroup of its own, and a guard process
 * that kills what is left of it when pfmtop is gone, however it went. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The cgroup2 mount point and this process's cgroup in it, joined into
 * path: 0, or -1 without cgroup2 (or one we cannot place). */
static int own_cgroup(char *path, size_t len)
{
	char line[PATH_MAX + 64], mnt[PATH_MAX] = "", root[PATH_MAX] = "", cg[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/mountinfo", "re");

	while (f && fgets(line, sizeof(line), f)) {
		char r[PATH_MAX], m[PATH_MAX];
		const char *dash = strstr(line, " - cgroup2 ");

		if (dash && sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) == 2) {
			strcpy(root, r);
			strcpy(mnt, m);
			break;
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/self/cgroup", "re");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3) && sscanf(line + 3, "%4095s", cg) == 1)
			break;
	if (f)
		fclose(f);
	size_t rl = strcmp(root, "/") ? strlen(root) : 0;
	if (!mnt[0] || cg[0] != '/' || strncmp(cg, root, rl) || strchr(mnt, '\\'))
		return -1;
	int n = snprintf(path, len, "%s%s", mnt, strcmp(cg + rl, "/") ? cg + rl : "");
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int launch_cgroup_create(char *path, size_t len)
{
	char own[PATH_MAX];
	int fd;

	path[0] = 0;
	if (own_cgroup(own, sizeof(own)))
		return -1;
	int n = snprintf(path, len, "%s/pfmtop-%d", own, (int)getpid());
	/* One left empty by an earlier pfmtop of this pid is made anew. */
	bool made = n > 0 && (size_t)n < len &&
	            (!mkdir(path, 0755) || (errno == EEXIST && !rmdir(path) && !mkdir(path, 0755)));
	if (!made) {
		path[0] = 0;
		return -1;
	}
	char procs[PATH_MAX + 16];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		rmdir(path);
		path[0] = 0;
	}
	return fd;
}

static int cg_open(const char *cg, const char *file, int flags)
{
	char p[PATH_MAX + 32];

	snprintf(p, sizeof(p), "%s/%s", cg, file);
	return open(p, flags | O_CLOEXEC);
}

/* The start of one of its files into buf (terminated): its length, or <= 0. */
static ssize_t cg_read(const char *cg, const char *file, char *buf, size_t size)
{
	int fd = cg_open(cg, file, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return n;
}

/* Whether a process is left in it (cgroup.events: "populated 1"). */
static bool cg_populated(const char *cg)
{
	char buf[256];

	return cg_read(cg, "cgroup.events", buf, sizeof(buf)) > 0 && !strstr(buf, "populated 0");
}

/* Before cgroup.kill (Linux 5.14): each process listed, killed. */
static void cg_kill_each(const char *cg)
{
	char buf[4096];

	if (cg_read(cg, "cgroup.procs", buf, sizeof(buf)) <= 0)
		return;
	for (char *s = buf, *end; *s; s = end) {
		long pid = strtol(s, &end, 10);
		if (end == s)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	}
}

/* Kill all in the cgroup, wait (2 s at most) until it is empty, remove it. */
static void cg_kill(const char *cg)
{
	int fd = cg_open(cg, "cgroup.kill", O_WRONLY);
	bool killed = fd >= 0 && write(fd, "1", 1) == 1;
	struct timespec ms10 = {0, 10 * 1000 * 1000};

	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 200 && cg_populated(cg); i++) {
		if (!killed)
			cg_kill_each(cg);
		nanosleep(&ms10, NULL);
	}
	rmdir(cg);
}

/* Only the fds kept stay open, on 0 (the pipe) and 1, 2 (/dev/null). */
static void guard_fds(int rd, int pidfd)
{
	int null = open("/dev/null", O_RDWR);

	if (null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 || dup2(rd, 0) < 0 ||
	    (pidfd >= 0 && dup2(pidfd, 3) < 0))
		_exit(1);
	if (syscall(SYS_close_range, pidfd >= 0 ? 4U : 3U, ~0U, 0) < 0)
		for (long fd = pidfd >= 0 ? 4 : 3, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
			close((int)fd);
}

static _Noreturn void guard(int rd, pid_t cmd, const char *cg)
{
	static const int quiet[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE,
	                            SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2};
	sigset_t none;
	char c;

	/* Out of pfmtop's process group and session: what stops those
	 * (kill -9 of the job, a hangup) leaves the guard to act. */
	setsid();
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int pidfd = (int)syscall(SYS_pidfd_open, cmd, 0);
	guard_fds(rd, pidfd);
	/* EOF: pfmtop closed its end, or died. */
	while (read(0, &c, 1) < 0 && errno == EINTR)
		;
	if (pidfd >= 0)
		syscall(SYS_pidfd_send_signal, 3, SIGKILL, NULL, 0);
	if (cg[0])
		cg_kill(cg);
	_exit(0);
}

int launch_guard_start(struct launch *l)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		close(p[0]);
		close(p[1]);
		return e;
	}
	if (pid == 0)
		guard(p[0], l->pid, l->cgroup);
	close(p[0]);
	l->guard = pid;
	l->guard_fd = p[1];
	return 0;
}

void launch_guard_stop(struct launch *l)
{
	if (l->guard_fd >= 0)
		close(l->guard_fd);
	l->guard_fd = -1;
	if (l->guard > 0)
		waitpid(l->guard, NULL, 0);
	l->guard = -1;
}
