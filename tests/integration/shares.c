/* shares SECS: burn about SECS seconds of CPU time in three functions whose
 * costs stand in a fixed ratio, hot_a : hot_b : hot_c = 6 : 3 : 1, then exit 0.
 *
 * Each function runs the same dependent multiply-add chain (one iteration
 * costs the same everywhere; only the constants differ, so the compiler
 * cannot fold the three into one), and the work is done in whole rounds of
 * 6 + 3 + 1 units, interleaved, so the ratio holds exactly by iteration
 * count however long the program runs. A profiler should attribute about
 * 60 %, 30 % and 10 % of the program's samples in these three to them. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Iterations per unit of work (well under 1 ms). Read through a volatile so
 * the compiler cannot specialise the functions into hot_a.constprop.0 etc.:
 * the profile must show the names as written. */
static volatile unsigned long unit = 200000;
static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long hot_a(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) static unsigned long hot_b(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++) {
		x = x * 2862933555777941757UL + 3037000493UL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) static unsigned long hot_c(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++) {
		x = x * 3935559000370003845UL + 2691343689449507681UL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

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
	unsigned long x = 1, n = unit;

	if (argc != 2 || (secs = strtod(argv[1], &end)) <= 0 || *end || end == argv[1]) {
		fprintf(stderr, "usage: shares SECS\n");
		return 2;
	}
	start = cpu_seconds();
	do {
		/* One round: 10 units, 6 in hot_a, 3 in hot_b, 1 in hot_c. */
		for (int u = 0; u < 3; u++) {
			x = hot_a(n, x);
			x = hot_a(n, x);
			x = hot_b(n, x);
		}
		x = hot_c(n, x);
	} while (cpu_seconds() - start < secs);
	sink = x;
	return 0;
}
