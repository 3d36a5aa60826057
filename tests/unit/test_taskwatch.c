/* Live test for taskwatch: a forked, exec'ing, exiting child is reported. */
#include "taskwatch.h"
#include "util.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct seen {
	pid_t child;
	int forks, execs, exits;
	char comm[32];
	char order[8]; /* "fex": the child's records in the order the ops saw them */
};

static void saw(struct seen *s, char c)
{
	size_t n = strlen(s->order);

	if (n + 1 < sizeof(s->order))
		s->order[n] = c;
}

static void on_fork(pid_t pid, pid_t tid, pid_t ppid, void *arg)
{
	struct seen *s = arg;

	if (pid == s->child && tid == pid && ppid == getpid()) {
		s->forks++;
		saw(s, 'f');
	}
}

static void on_exec(pid_t pid, pid_t tid, const char *comm, void *arg)
{
	struct seen *s = arg;

	if (pid == s->child) {
		s->execs++;
		saw(s, 'e');
		util_strlcpy(s->comm, comm, sizeof(s->comm));
	}
}

static void on_exit_task(pid_t pid, pid_t tid, void *arg)
{
	struct seen *s = arg;

	if (pid == s->child && tid == pid) {
		s->exits++;
		saw(s, 'x');
	}
}

int main(void)
{
	struct seen s = {0};
	struct taskwatch_ops ops = {on_fork, on_exec, on_exit_task, &s};
	struct taskwatch w;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	int cpus[256], ret;

	for (int i = 0; i < n && i < 256; i++)
		cpus[i] = i;
	ret = taskwatch_open(&w, cpus, (int)n, &ops);
	if (ret == -EACCES || ret == -EPERM || ret == -ENOENT) {
		printf("SKIP: cannot watch tasks CPU-wide here: %s\n", strerror(-ret));
		return 77;
	}
	if (ret) {
		fprintf(stderr, "taskwatch_open: %s\n", strerror(-ret));
		return 1;
	}
	s.child = fork();
	if (s.child == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(s.child, NULL, 0);
	/* Every record wakes the reader: each ring fd must be readable now. */
	struct pollfd pfd[256];
	for (int i = 0; i < w.nr; i++)
		pfd[i] = (struct pollfd){.fd = w.cpus[i].fd, .events = POLLIN};
	if (poll(pfd, (nfds_t)w.nr, 1000) <= 0) {
		fprintf(stderr, "no ring became readable after a fork/exec/exit\n");
		return 1;
	}
	taskwatch_drain(&w, -1);
	taskwatch_close(&w);
	printf("forks %d execs %d (comm '%s') exits %d, records %llu\n", s.forks, s.execs, s.comm,
	       s.exits, (unsigned long long)w.records);
	/* Whatever CPUs the child ran on, its records come in time order. */
	if (strcmp(s.order, "fex")) {
		fprintf(stderr, "the child's records came as '%s', not fork, exec, exit\n",
			s.order);
		return 1;
	}
	if (s.forks != 1 || s.execs != 1 || strcmp(s.comm, "true") || s.exits != 1) {
		fprintf(stderr, "expected exactly one fork, exec of 'true' and exit of %d\n",
			(int)s.child);
		return 1;
	}
	printf("1 passed, 0 failed\n");
	return 0;
}
