/* annot_div SECS: a dependent chain of 64-bit integer divisions for SECS
 * seconds of CPU time, in one function (divloop) whose hottest instruction
 * is the div (test_annotate compares pfmtop --annotate with perf annotate). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

unsigned long divloop(unsigned long n, unsigned long x, unsigned long d);
unsigned long never_called(unsigned long x);

/* In the binary, never run: --annotate says it was never sampled. */
__attribute__((noinline)) unsigned long never_called(unsigned long x)
{
	return x * 3 + 1;
}

/* Each division waits for the one before it. */
__attribute__((noinline)) unsigned long divloop(unsigned long n, unsigned long x, unsigned long d)
{
	for (unsigned long i = 0; i < n; i++)
		x = x / d + 0x7fffffffffffull;
	return x;
}

int main(int argc, char **argv)
{
	char *end;
	double secs, start;
	volatile unsigned long sink;
	unsigned long d = (unsigned long)argc + 1; /* not a constant: a real div */

	if (argc != 2 || (secs = strtod(argv[1], &end)) < 0 || *end || end == argv[1]) {
		fprintf(stderr, "usage: annot_div SECS\n");
		return 2;
	}
	start = cpu_seconds();
	while (cpu_seconds() - start < secs)
		sink = divloop(1000000, 0x123456789abcdefull, d);
	(void)sink;
	return argc > 5 ? (int)never_called(sink) : 0;
}
