/* launch: the command, forked and held before its exec until the counters are open. */
#include "launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void launch_init(struct launch *l)
{
	memset(l, 0, sizeof(*l));
	l->pid = l->guard = -1;
	l->go_fd = l->err_fd = l->guard_fd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child: wait for the go, then exec; what fails is reported
 * through ex (an errno) or by exit status 127. */
static void child(char *const *argv, pid_t parent, int go, int ex, int out, int procs)
{
	sigset_t none;
	char c;

	/* Into its own cgroup, before anything it runs can fork (refused:
	 * the guard still has its pid). */
	if (procs >= 0 && write(procs, "0", 1) < 0)
		procs = -1;

	if (out > 2) {
		int in = open("/dev/null", O_RDONLY);

		if (in < 0 || dup2(in, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
		    dup2(out, STDERR_FILENO) < 0)
			_exit(127);
		if (in > 2)
			close(in);
	} else if (out == LAUNCH_OUT_STDERR && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		_exit(127);
	}

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* pfmtop ignores SIGPIPE; the command gets the default back. */
	signal(SIGPIPE, SIG_DFL);
	/* Never outlive pfmtop, however it ends (kill -9 included): and if it
	 * is gone already, so is the command. A credential change clears
	 * this: then the guard kills it. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) || getppid() != parent)
		_exit(127);
	/* Wait until the counters are open; EOF means pfmtop gave up. */
	if (read(go, &c, 1) != 1)
		_exit(127);
	execvp(argv[0], argv);
	int e = errno;
	if (write(ex, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

int launch_fork(struct launch *l, char *const *argv, int out, char *err, size_t errlen)
{
	int go[2], ex[2], e;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ex, O_CLOEXEC) < 0) {
		e = -errno;
		close(go[0]);
		close(go[1]);
		return e;
	}
	pid_t parent = getpid();
	int procs = launch_cgroup_create(l->cgroup, sizeof(l->cgroup));
	pid_t pid = fork();
	if (pid < 0) {
		e = -errno;
		snprintf(err, errlen, "cannot start '%s': %s", argv[0], strerror(-e));
		close(go[0]);
		close(go[1]);
		close(ex[0]);
		close(ex[1]);
		if (procs >= 0)
			close(procs);
		if (l->cgroup[0])
			rmdir(l->cgroup);
		return e;
	}
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		child(argv, parent, go[0], ex[1], out, procs);
	}
	if (procs >= 0)
		close(procs);
	close(go[0]);
	close(ex[1]);
	l->pid = pid;
	l->go_fd = go[1];
	l->err_fd = ex[0];
	e = launch_guard_start(l);
	if (e)
		snprintf(err, errlen, "cannot start '%s': no guard process: %s", argv[0],
		         strerror(-e));
	return e;
}

int launch_go(struct launch *l, const char *name, char *err, size_t errlen)
{
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, "g", 1) != 1)
		return -errno;
	close_fd(&l->go_fd);
	n = read(l->err_fd, &e, sizeof(e)); /* EOF: the exec closed it */
	close_fd(&l->err_fd);
	if (n != sizeof(e))
		return 0;
	snprintf(err, errlen, "cannot run '%s': %s", name, strerror(e));
	waitpid(l->pid, &l->status, 0);
	l->done = true;
	return -e;
}

bool launch_reap(struct launch *l)
{
	int status;

	if (l->pid > 0 && !l->done && waitpid(l->pid, &status, WNOHANG) == l->pid) {
		l->done = true;
		l->status = status;
	}
	return l->done;
}

int launch_exit_status(const struct launch *l)
{
	if (WIFEXITED(l->status))
		return WEXITSTATUS(l->status);
	if (WIFSIGNALED(l->status))
		return 128 + WTERMSIG(l->status);
	return 1;
}

void launch_kill(const struct launch *l, int sig)
{
	if (l->pid > 0 && !l->done)
		kill(l->pid, sig);
}

void launch_fini(struct launch *l)
{
	close_fd(&l->go_fd);
	close_fd(&l->err_fd);
	if (l->pid > 0 && !l->done) {
		kill(l->pid, SIGKILL);
		waitpid(l->pid, NULL, 0);
		l->done = true;
	}
	bool guarded = l->guard > 0;
	launch_guard_stop(l);
	if (!guarded && l->cgroup[0])
		rmdir(l->cgroup); /* no guard came: only if empty */
}
