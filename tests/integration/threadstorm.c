/* threadstorm SECS [RATE]: start about RATE (default 500) threads a second
 * for SECS seconds, each burning 1-2 ms of CPU and exiting. Exit 0. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile unsigned long sink;

static void *burn(void *arg)
{
	const double t0 = now_s(CLOCK_THREAD_CPUTIME_ID), ms = 1e-3 * (1 + (long)arg % 2);
	volatile unsigned long x = 0;

	while (now_s(CLOCK_THREAD_CPUTIME_ID) - t0 < ms)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	const double secs = argc > 1 ? atof(argv[1]) : 60;
	const double rate = argc > 2 && atof(argv[2]) > 0 ? atof(argv[2]) : 500;
	const double start = now_s(CLOCK_MONOTONIC);
	pthread_attr_t a;
	long n = 0;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 64 * 1024);
	while (now_s(CLOCK_MONOTONIC) - start < secs) {
		pthread_t t;
		const double due = start + (double)n / rate, d = due - now_s(CLOCK_MONOTONIC);

		if (d > 0) {
			struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
			nanosleep(&ts, NULL);
		}
		if (pthread_create(&t, &a, burn, (void *)n) == 0)
			n++;
	}
	printf("%ld threads\n", n);
	return 0;
}
