/* bench_load NIDLE NBUSY SECS: a load for bench_tasks.sh. Forks NIDLE idle
 * children (each waits in pause() and dies with this process) and starts
 * NBUSY threads that spin; prints "ready" on stdout once all are there, then
 * exits after SECS seconds of wall time, or at SIGTERM/SIGINT, killing the
 * children. Exit 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void *spin(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	while (!stop)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	return NULL;
}

int main(int argc, char **argv)
{
	long nidle, nbusy;
	double secs;
	char *end;
	pid_t *kids;
	pthread_t *tids;
	struct timespec t0, now;
	struct sigaction sa = {.sa_handler = on_signal};
	pid_t self = getpid();

	if (argc != 4 || (nidle = strtol(argv[1], &end, 10)) < 0 || *end ||
	    (nbusy = strtol(argv[2], &end, 10)) < 0 || *end ||
	    (secs = strtod(argv[3], &end)) <= 0 || *end) {
		fprintf(stderr, "usage: bench_load NIDLE NBUSY SECS\n");
		return 2;
	}
	kids = calloc((size_t)nidle + 1, sizeof(*kids));
	tids = calloc((size_t)nbusy + 1, sizeof(*tids));
	if (!kids || !tids) {
		perror("bench_load: calloc");
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	for (long i = 0; i < nidle; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			perror("bench_load: fork");
			stop = 1;
			nidle = i;
			break;
		}
		if (kids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != self)
				_exit(0);
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			for (;;)
				pause();
		}
	}
	for (long i = 0; i < nbusy && !stop; i++)
		if (pthread_create(&tids[i], NULL, spin, NULL)) {
			fprintf(stderr, "bench_load: pthread_create failed after %ld threads\n", i);
			stop = 1;
			nbusy = i;
		}
	if (!stop) {
		printf("ready\n");
		fflush(stdout);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 >= secs)
			stop = 1;
	}
	for (long i = 0; i < nidle; i++)
		kill(kids[i], SIGKILL);
	for (long i = 0; i < nidle; i++)
		waitpid(kids[i], NULL, 0);
	for (long i = 0; i < nbusy; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
