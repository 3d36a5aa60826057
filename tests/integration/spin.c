/* spin SECS: burn SECS seconds of CPU time (process CPU clock, not wall
 * time) in a busy loop, then exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char *end;
	double secs, start;
	volatile unsigned long x = 0;

	if (argc != 2 || (secs = strtod(argv[1], &end)) < 0 || *end || end == argv[1]) {
		fprintf(stderr, "usage: spin SECS\n");
		return 2;
	}
	start = cpu_seconds();
	while (cpu_seconds() - start < secs)
		for (int i = 0; i < 10000; i++)
			x += (unsigned long)i;
	return 0;
}
