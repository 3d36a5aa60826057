/* bench_ksyms [N]: loads the live /proc/kallsyms once, then N times more
 * (default 20), and prints the symbol count, the time of the first load and
 * per reload (wall, CPU user and system), the bytes the final table holds
 * per symbol and how much the process's peak RSS (VmHWM) grew. Asserts
 * nothing; says so and exits 0 when kallsyms cannot be read or hides its
 * addresses. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "symbols.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double tv_ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

/* A "Vm...:" line of /proc/self/status, in kB; -1 if missing. */
static long status_kb(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			kb = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return kb;
}

struct clock {
	double wall;
	struct rusage ru;
};

static void clock_read(struct clock *c)
{
	c->wall = now_ms();
	getrusage(RUSAGE_SELF, &c->ru);
}

/* Wall, user and system time from a to b, per load of n. */
static void print_times(const char *what, const struct clock *a, const struct clock *b, int n)
{
	printf("%-20s %.2f ms wall, %.2f ms user, %.2f ms sys\n", what, (b->wall - a->wall) / n,
	       (tv_ms(b->ru.ru_utime) - tv_ms(a->ru.ru_utime)) / n,
	       (tv_ms(b->ru.ru_stime) - tv_ms(a->ru.ru_stime)) / n);
}

/* Bytes handed out by malloc, mmapped chunks included. */
static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	struct symbols *s = symbols_new();
	long hwm0, rss0, hwm1;
	size_t heap0, heap1;
	struct symbols_stats st;
	struct clock c0, c1;
	char what[32];
	int i, err;

	if (!s || n < 1) {
		fprintf(stderr, "usage: bench_ksyms [N >= 1]\n");
		return 2;
	}
	hwm0 = status_kb("VmHWM");
	rss0 = status_kb("VmRSS");
	heap0 = heap_bytes();
	clock_read(&c0);
	err = symbols_load_kernel(s);
	clock_read(&c1);
	if (err) {
		printf("bench_ksyms: /proc/kallsyms: %s, nothing measured\n", strerror(-err));
		return 0;
	}
	if (symbols_kernel_hidden(s)) {
		printf("bench_ksyms: kallsyms hides its addresses, nothing measured\n");
		return 0;
	}
	hwm1 = status_kb("VmHWM");
	symbols_stats(s, &st);
	heap1 = heap_bytes();
	printf("symbols:             %zu\n", st.kernel_symbols);
	printf("table:               %.2f MB, %.1f bytes/symbol (malloc'd)\n",
	       (heap1 - heap0) / 1e6, (double)(heap1 - heap0) / st.kernel_symbols);
	printf("resident growth:     %.2f MB (VmRSS after the first load)\n",
	       (status_kb("VmRSS") - rss0) / 1e3);
	printf("peak RSS growth:     %.2f MB (VmHWM, first load)\n", (hwm1 - hwm0) / 1e3);
	print_times("first load:", &c0, &c1, 1);

	clock_read(&c0);
	for (i = 0; i < n; i++)
		if (symbols_load_kernel(s)) {
			fprintf(stderr, "bench_ksyms: reload %d failed\n", i);
			return 1;
		}
	clock_read(&c1);
	snprintf(what, sizeof(what), "per reload (%d):", n);
	print_times(what, &c0, &c1, n);
	printf("peak RSS growth:     %.2f MB (VmHWM, after the reloads)\n",
	       (status_kb("VmHWM") - hwm0) / 1e3);
	symbols_free(s);
	return 0;
}
