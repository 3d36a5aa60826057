/* pulses PAGES GAP_MS TIMES LOG: TIMES times, touch PAGES fresh anonymous
 * pages, then sleep GAP_MS milliseconds; LOG gets a line a pulse with its
 * start and end (CLOCK_REALTIME, seconds). Each pulse causes at least PAGES
 * page faults, and none happen between pulses. Exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v > 0 ? v : -1;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE), pages, ms, times;
	FILE *log;

	if (argc != 5 || (pages = arg(argv[1])) < 0 || (ms = arg(argv[2])) < 0 ||
	    (times = arg(argv[3])) < 0 || !(log = fopen(argv[4], "w"))) {
		fprintf(stderr, "usage: pulses PAGES GAP_MS TIMES LOG\n");
		return 2;
	}
	setvbuf(log, NULL, _IONBF, 0);
	for (long t = 0; t < times; t++) {
		size_t len = (size_t)pages * (size_t)psz;
		double start = now();
		char *p =
		    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		for (long i = 0; i < pages; i++)
			p[i * psz] = 1;
		munmap(p, len);
		fprintf(log, "%.6f %.6f\n", start, now());
		struct timespec d = {ms / 1000, (ms % 1000) * 1000000};
		nanosleep(&d, NULL);
	}
	fclose(log);
	return 0;
}
