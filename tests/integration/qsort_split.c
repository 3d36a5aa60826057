/* qsort_split: a comparison function reached through libc's qsort from two
 * callers, 60% of the sorts from caller_a and 40% from caller_b, for
 * SECONDS (default 2). Built with -O2 -fomit-frame-pointer (tests/
 * CMakeLists.txt), as Debian builds libc: frame-pointer chains stop in
 * qsort, DWARF unwinding goes through it to main. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 4096

static int base[N], work[N];
static volatile long sink;

__attribute__((noinline)) static int cmp_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

__attribute__((noinline)) static void caller_a(void)
{
	memcpy(work, base, sizeof(work));
	qsort(work, N, sizeof(work[0]), cmp_ints);
	sink += work[N / 2]; /* no tail call: caller_a stays on the stack */
}

__attribute__((noinline)) static void caller_b(void)
{
	memcpy(work, base, sizeof(work));
	qsort(work, N, sizeof(work[0]), cmp_ints);
	sink += work[N / 3];
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, start = now();
	unsigned x = 12345;

	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		base[i] = (int)(x >> 8);
	}
	for (unsigned long n = 0; now() - start < secs; n++) {
		if (n % 5 < 3)
			caller_a();
		else
			caller_b();
	}
	return 0;
}
