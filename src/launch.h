/* launch: the command, forked and held before its exec until the counters are open. */
#ifndef PFMTOP_LAUNCH_H
#define PFMTOP_LAUNCH_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct launch {
	pid_t pid;             /* the command, -1 before launch_fork() */
	int go_fd;             /* written once to let it exec */
	int err_fd;            /* its exec errno, or EOF when the exec succeeded */
	bool done;             /* reaped */
	int status;            /* its wait status, once done */
	pid_t guard;           /* the guard process (launch_guard.c), -1 without one */
	int guard_fd;          /* pfmtop's end of the guard's pipe: closed, the guard acts */
	char cgroup[PATH_MAX]; /* the command's own cgroup2 directory, or "" */
};

/* launch_fork()'s out: the command's standard output to standard error. */
#define LAUNCH_OUT_STDERR 2

/* No command yet: fds -1, pid -1. */
void launch_init(struct launch *l);

/*
 * Fork the command (argv, NULL-terminated). The child waits for
 * launch_go(); it never outlives pfmtop: it gets PR_SET_PDEATHSIG, and a
 * guard process (with pfmtop's credentials, out of its session) kills it
 * when pfmtop has gone, even after kill -9 and a credential change of the
 * command's; with cgroup2 (and the right to make a cgroup) the command
 * runs in a cgroup of its own, and all in it go too (the processes it
 * started, even those that left its session). It gets the
 * default SIGPIPE and an empty signal mask back. With out > 2 its standard
 * output and error go to out and its standard input is /dev/null (the
 * viewer owns the terminal); with LAUNCH_OUT_STDERR its standard output
 * is pfmtop's standard error (batch snapshots are on standard output);
 * else it has pfmtop's. 0, or -errno with a sentence in err.
 */
int launch_fork(struct launch *l, char *const *argv, int out, char *err, size_t errlen);

/* Let it exec, and wait until it has (or could not). 0, or -errno of a
 * failed exec with a sentence in err (the child is then reaped). */
int launch_go(struct launch *l, const char *name, char *err, size_t errlen);

/* Reap it if it exited (on SIGCHLD): true once it has. */
bool launch_reap(struct launch *l);

/* Its exit status as a shell reports it (128+signal). */
int launch_exit_status(const struct launch *l);

/* Send sig to it while it runs. */
void launch_kill(const struct launch *l, int sig);

/* Close the handshake and, if it still runs, kill and reap it; then the
 * guard kills what it left (its cgroup) and is reaped. */
void launch_fini(struct launch *l);

/* launch_guard.c. A cgroup made for the command, below pfmtop's own, its
 * directory in path: the fd of its cgroup.procs, or -1 without one. */
int launch_cgroup_create(char *path, size_t len);
/* Start the guard of l->pid (and l->cgroup): 0 or -errno. */
int launch_guard_start(struct launch *l);
/* Close the guard's pipe and reap it. */
void launch_guard_stop(struct launch *l);

#endif
