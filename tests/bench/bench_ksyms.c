/* bench_ksyms [N]: the kernel symbol table, read from the live /proc/kallsyms
 * and mapped from its cache file. Each part runs in a child process of its
 * own, so that its peak RSS (VmHWM) growth is its alone:
 *   - kallsyms read (no cache): the symbol count, the time of the first load
 *     and per reload (N, default 20; wall, CPU user and system), the bytes
 *     the table holds per symbol, RSS and peak RSS growth;
 *   - cache miss: a load that reads kallsyms and writes the cache file (in
 *     a temporary directory);
 *   - cache hit: the time of a load that maps that file, first and per
 *     reload, and the RSS growth (anonymous and file pages) after the load,
 *     after 1000 lookups of random kernel text addresses and after looking
 *     up every one.
 * Asserts nothing; says so and exits 0 when kallsyms cannot be read or hides
 * its addresses. */
#include <ftw.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

/* A "Vm...:" or "Rss...:" line of /proc/self/status, in kB; -1 if missing. */
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
	printf("%-26s %.2f ms wall, %.2f ms user, %.2f ms sys\n", what, (b->wall - a->wall) / n,
	       (tv_ms(b->ru.ru_utime) - tv_ms(a->ru.ru_utime)) / n,
	       (tv_ms(b->ru.ru_stime) - tv_ms(a->ru.ru_stime)) / n);
}

/* Bytes handed out by malloc, mmapped chunks included. */
static size_t heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
}

/* Resident memory now against a baseline. */
struct rss {
	long rss, anon, file, hwm;
};

static void rss_read(struct rss *r)
{
	r->rss = status_kb("VmRSS");
	r->anon = status_kb("RssAnon");
	r->file = status_kb("RssFile");
	r->hwm = status_kb("VmHWM");
}

static void print_rss(const char *what, const struct rss *a)
{
	struct rss b;

	rss_read(&b);
	printf("%-26s %.2f MB resident (%.2f anonymous, %.2f file), peak +%.2f MB\n", what,
	       (b.rss - a->rss) / 1e3, (b.anon - a->anon) / 1e3, (b.file - a->file) / 1e3,
	       (b.hwm - a->hwm) / 1e3);
}

/* Kernel text addresses of /proc/kallsyms but dynamic code's (read
 * before the children fork, so that they cost them nothing), shuffled. */
static uint64_t *ips;
static size_t nr_ips;

static void read_ips(void)
{
	char line[1024], type;
	unsigned long long a;
	size_t cap = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c", &a, &type) != 2 || !a || !strchr("tTwW", type) ||
		    strstr(line, "\t[bpf") || strstr(line, "\t[__builtin"))
			continue; /* dynamic code: one more read of kallsyms */
		if (nr_ips == cap) {
			cap = cap ? cap * 2 : 65536;
			ips = realloc(ips, cap * sizeof(*ips));
			if (!ips)
				exit(1);
		}
		ips[nr_ips++] = a + 1;
	}
	fclose(f);
	srand(1);
	for (size_t i = nr_ips; i > 1; i--) {
		size_t j = (size_t)rand() % i;
		uint64_t t = ips[i - 1];

		ips[i - 1] = ips[j];
		ips[j] = t;
	}
}

static struct symbols *new_symbols(const char *cache_dir)
{
	struct symbols *s = symbols_new();

	if (!s) {
		fprintf(stderr, "bench_ksyms: out of memory\n");
		exit(1);
	}
	symbols_set_cache_dir(s, cache_dir);
	return s;
}

/* kallsyms read, no cache. 0, 1 on error, 3 when there is nothing to
 * measure. */
static int bench_read(int n)
{
	struct symbols *s = new_symbols(NULL);
	long hwm0, rss0, hwm1;
	size_t heap0, heap1;
	struct symbols_stats st;
	struct clock c0, c1;
	char what[32];
	int i, err;

	hwm0 = status_kb("VmHWM");
	rss0 = status_kb("VmRSS");
	heap0 = heap_bytes();
	clock_read(&c0);
	err = symbols_load_kernel(s);
	clock_read(&c1);
	if (err) {
		printf("bench_ksyms: /proc/kallsyms: %s, nothing measured\n", strerror(-err));
		return 3;
	}
	if (symbols_kernel_hidden(s)) {
		printf("bench_ksyms: kallsyms hides its addresses, nothing measured\n");
		return 3;
	}
	hwm1 = status_kb("VmHWM");
	symbols_stats(s, &st);
	heap1 = heap_bytes();
	printf("--- kallsyms read, no cache\n");
	printf("symbols:                   %zu\n", st.kernel_symbols);
	printf("table:                     %.2f MB, %.1f bytes/symbol (malloc'd)\n",
	       (heap1 - heap0) / 1e6, (double)(heap1 - heap0) / st.kernel_symbols);
	printf("resident growth:           %.2f MB (VmRSS after the first load)\n",
	       (status_kb("VmRSS") - rss0) / 1e3);
	printf("peak RSS growth:           %.2f MB (VmHWM, first load)\n", (hwm1 - hwm0) / 1e3);
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
	printf("peak RSS growth:           %.2f MB (VmHWM, after the reloads)\n",
	       (status_kb("VmHWM") - hwm0) / 1e3);
	symbols_free(s);
	return 0;
}

/* A load that reads kallsyms and writes the cache file into dir. */
static int bench_miss(const char *dir)
{
	struct symbols *s = new_symbols(dir);
	struct symbols_stats st;
	struct clock c0, c1;
	struct rss r0;

	rss_read(&r0);
	clock_read(&c0);
	symbols_load_kernel(s);
	clock_read(&c1);
	symbols_stats(s, &st);
	printf("--- cache miss: kallsyms read, cache file written\n");
	if (st.cache_writes != 1) {
		printf("no cache file written (%s)\n", st.kernel_cache ? st.kernel_cache : "?");
		return 1;
	}
	print_times("load:", &c0, &c1, 1);
	print_rss("after the load:", &r0);
	symbols_free(s);
	return 0;
}

static void lookups(struct symbols *s, size_t n)
{
	struct symbols_result r;

	for (size_t i = 0; i < n && i < nr_ips; i++)
		symbols_resolve(s, 0, ips[i], true, &r);
}

/* Loads that map the cache file in dir. */
static int bench_hit(const char *dir, int n)
{
	struct symbols *s = new_symbols(dir);
	struct symbols_stats st;
	struct clock c0, c1;
	char what[32];
	struct rss r0;

	rss_read(&r0);
	clock_read(&c0);
	symbols_load_kernel(s);
	clock_read(&c1);
	symbols_stats(s, &st);
	printf("--- cache hit: the cache file mapped\n");
	if (st.kernel_source != SYMBOLS_KERNEL_CACHE) {
		printf("the cache was not used (%s)\n", st.kernel_cache ? st.kernel_cache : "?");
		return 1;
	}
	print_times("first load:", &c0, &c1, 1);
	print_rss("after the load:", &r0);
	lookups(s, 1000);
	print_rss("after 1000 lookups:", &r0);
	lookups(s, nr_ips);
	snprintf(what, sizeof(what), "after %zu lookups:", nr_ips);
	print_rss(what, &r0);
	symbols_stats(s, &st);
	printf("kallsyms reads:            %lu\n", st.kallsyms_reads);

	clock_read(&c0);
	for (int i = 0; i < n; i++)
		symbols_load_kernel(s);
	clock_read(&c1);
	snprintf(what, sizeof(what), "per reload (%d):", n);
	print_times(what, &c0, &c1, n);
	symbols_free(s);
	return 0;
}

/* Run part in a child; its exit status. */
static int child(int (*part)(const char *, int), const char *dir, int n)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		status = part(dir, n);
		fflush(stdout);
		_exit(status);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

static int part_read(const char *dir, int n)
{
	(void)dir;
	return bench_read(n);
}

static int part_miss(const char *dir, int n)
{
	(void)n;
	return bench_miss(dir);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20, r;
	char dir[] = "/tmp/bench_ksyms.XXXXXX";
	struct stat st;

	if (n < 1) {
		fprintf(stderr, "usage: bench_ksyms [N >= 1]\n");
		return 2;
	}
	r = child(part_read, NULL, n);
	if (r)
		return r == 3 ? 0 : r;
	if (!mkdtemp(dir)) {
		perror("bench_ksyms: mkdtemp");
		return 1;
	}
	read_ips();
	r = child(part_miss, dir, n);
	if (!r) {
		char path[PATH_MAX];
		size_t len;
		FILE *f;

		snprintf(path, sizeof(path), "%s/kallsyms-", dir);
		len = strlen(path);
		f = fopen("/proc/sys/kernel/random/boot_id", "r");
		if (f && fgets(path + len, sizeof(path) - len, f)) {
			path[strcspn(path, "\n")] = '\0';
			if (!stat(path, &st))
				printf("cache file:                %.2f MB\n", st.st_size / 1e6);
		}
		if (f)
			fclose(f);
		r = child(bench_hit, dir, n);
	}
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	free(ips);
	return r;
}
