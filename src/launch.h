/* launch: the command, forked and held before its exec until the counters are open. */
#ifndef PFMTOP_LAUNCH_H
#define PFMTOP_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct launch {
	pid_t pid;  /* the command, -1 before launch_fork() */
	int go_fd;  /* written once to let it exec */
	int err_fd; /* its exec errno, or EOF when the exec succeeded */
	bool done;  /* reaped */
	int status; /* its wait status, once done */
};

/* No command yet: fds -1, pid -1. */
void launch_init(struct launch *l);

/*
 * Fork the command (argv, NULL-terminated). The child waits for
 * launch_go(); it never outlives pfmtop (PR_SET_PDEATHSIG), and it gets the
 * default SIGPIPE and an empty signal mask back. With out > 2 its standard
 * output and error go to out and its standard input is /dev/null (the
 * viewer owns the terminal); else it has pfmtop's. 0, or -errno with a
 * sentence in err.
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

/* Close the handshake and, if it still runs, kill and reap it. */
void launch_fini(struct launch *l);

#endif
