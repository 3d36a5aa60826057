/* threads N SECS: start N extra threads; every thread, the main one too,
 * burns 20 ms of CPU every ~0.1 s for SECS seconds of wall time, so each
 * shows task-clock in any interval. Prints "ready" on stdout once all N + 1
 * threads run. Exit 0. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double wall_seconds;
static pthread_barrier_t ready;

static void burn(void)
{
	struct timespec ts, now;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	do {
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
	} while ((double)(now.tv_sec - ts.tv_sec) + (double)(now.tv_nsec - ts.tv_nsec) / 1e9 <
		 0.02);
}

static void nap(double secs)
{
	struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};

	while (nanosleep(&ts, &ts))
		;
}

static void work(void)
{
	for (double t = 0; t < wall_seconds; t += 0.1) {
		burn();
		nap(0.1);
	}
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&ready);
	work();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[64];
	char *end;
	long n;

	if (argc != 3 || (n = strtol(argv[1], &end, 10)) <= 0 || n > 64 || *end ||
	    (wall_seconds = strtod(argv[2], &end)) <= 0 || *end) {
		fprintf(stderr, "usage: threads N(1-64) SECS\n");
		return 2;
	}
	pthread_barrier_init(&ready, NULL, (unsigned)n + 1);
	for (long i = 0; i < n; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL)) {
			fprintf(stderr, "threads: pthread_create failed\n");
			return 1;
		}
	pthread_barrier_wait(&ready);
	printf("ready\n");
	fflush(stdout);
	work();
	for (long i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
