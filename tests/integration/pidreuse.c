/* pidreuse GAP PROG1 N1 PROG2 N2: run "PROG1 N1" in a child, reap it, wait
 * GAP seconds, then make the next child get the same PID by writing that PID
 * less one to /proc/sys/kernel/ns_last_pid (needs CAP_SYS_ADMIN in a PID
 * namespace of its own, where nothing else forks) and run "PROG2 N2" in it.
 * Each child sleeps 0.2 s before its exec, so a monitor that follows forks has
 * the moment to open its counters. Prints "PID START1 START2" (the start
 * times from /proc/PID/stat, in clock ticks after boot); exit 0, 77 if the
 * PID could not be reused (with the reason on stderr), 1 on other errors. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void nap(double secs)
{
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};

	while (nanosleep(&ts, &ts))
		;
}

/* Field 22 of /proc/PID/stat; 0 if it cannot be read. */
static unsigned long long start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* Field k (k >= 3) follows the (k - 2)th space after ')'. */
		for (int field = 3; field <= 22 && p; field++)
			p = strchr(p + 1, ' ');
		if (p)
			v = strtoull(p + 1, NULL, 10);
	}
	fclose(f);
	return v;
}

/* Fork a child that naps, then execs prog n; its start time in *start. */
static pid_t run(const char *prog, const char *n, unsigned long long *start)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		perror("pidreuse: fork");
		exit(1);
	}
	if (pid == 0) {
		nap(0.2);
		execl(prog, prog, n, (char *)NULL);
		perror("pidreuse: exec");
		_exit(127);
	}
	*start = start_time(pid);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pidreuse: %s %s failed\n", prog, n);
		exit(1);
	}
	return pid;
}

int main(int argc, char **argv)
{
	unsigned long long s1, s2;
	char *end;
	double gap;
	pid_t p1, p2;
	FILE *f;

	if (argc != 6 || (gap = strtod(argv[1], &end)) < 0 || *end) {
		fprintf(stderr, "usage: pidreuse GAP PROG1 N1 PROG2 N2\n");
		return 2;
	}
	p1 = run(argv[2], argv[3], &s1);
	nap(gap);
	f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	if (!f || fprintf(f, "%d", (int)p1 - 1) < 0 || fclose(f)) {
		fprintf(stderr, "pidreuse: cannot write /proc/sys/kernel/ns_last_pid: %s\n",
			strerror(errno));
		return 77;
	}
	p2 = run(argv[4], argv[5], &s2);
	if (p2 != p1) {
		fprintf(stderr, "pidreuse: the second child got PID %d, not %d (something else forked)\n",
			(int)p2, (int)p1);
		return 77;
	}
	printf("%d %llu %llu\n", (int)p1, s1, s2);
	return 0;
}
