/* bench_unwind: DWARF-unwound samples per second per core (--call-graph dwarf's cost). */
/*
 * A child sorts with libc's qsort from two callers (the program of
 * test_dwarf, built here without frame pointers); its user registers and
 * 8 KiB stack copies are recorded with perf_event_open (cpu-clock, user
 * space only: no root needed), then the recorded samples are unwound, with
 * each process's unwinder kept across samples (what pfmtop does) and built
 * again for every sample (what it avoids), timed on CPU time. With perf
 * installed, perf record --call-graph dwarf on the same workload and the
 * CPU time of perf report over its perf.data give perf's rate to compare.
 *
 *   bench_unwind [SECONDS]   (default 3: how long the child is sampled)
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "records.h"
#include "ring.h"
#include "symbols.h"
#include "unwind.h"

#define STACK_BYTES 8192
#define MAX_SAMPLES 20000
#define PAGES       1024
#define N           4096

/* ---- the workload (in the child) ---- */

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
	sink += work[N / 2];
}

__attribute__((noinline)) static void caller_b(void)
{
	memcpy(work, base, sizeof(work));
	qsort(work, N, sizeof(work[0]), cmp_ints);
	sink += work[N / 3];
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void workload(double secs)
{
	unsigned x = 12345;
	double t0 = mono_s();

	for (int i = 0; i < N; i++) {
		x = x * 1103515245u + 12345u;
		base[i] = (int)(x >> 8);
	}
	for (unsigned long n = 0; secs <= 0 || mono_s() - t0 < secs; n++) {
		if (n % 5 < 3)
			caller_a();
		else
			caller_b();
	}
}

/* ---- recording ---- */

struct rec {
	pid_t pid, tid;
	uint64_t regs[8];
	uint32_t nr_regs;
	uint64_t abi;
	unsigned char *stack;
	uint64_t stack_size;
};

struct recorder {
	struct records_format fmt;
	struct rec *v;
	int nr;
};

static void on_record(const struct perf_event_header *h, void *arg)
{
	struct recorder *r = arg;
	struct record rec;
	struct rec *o;

	if (r->nr >= MAX_SAMPLES || records_decode(&r->fmt, h, &rec) ||
	    rec.type != PERF_RECORD_SAMPLE || rec.sample.nr_regs != 8)
		return;
	o = &r->v[r->nr];
	o->pid = (pid_t)rec.id.pid;
	o->tid = (pid_t)rec.id.tid;
	o->abi = rec.sample.regs_abi;
	o->nr_regs = rec.sample.nr_regs;
	memcpy(o->regs, rec.sample.regs, sizeof(o->regs));
	o->stack_size = rec.sample.stack_dyn_size;
	o->stack = malloc(o->stack_size ? o->stack_size : 1);
	if (!o->stack)
		return;
	memcpy(o->stack, rec.sample.stack, o->stack_size);
	r->nr++;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Unwind every recorded sample; CPU seconds, frames into *frames. */
static double unwind_all(struct unwind *u, const struct recorder *r, int nr, uint64_t *frames)
{
	uint64_t ips[256];
	double t0 = cpu_s();

	*frames = 0;
	for (int i = 0; i < nr; i++) {
		const struct unwind_sample smp = {
		    .pid = r->v[i].pid,
		    .tid = r->v[i].tid,
		    .abi = r->v[i].abi,
		    .mask = UNWIND_REGS_MASK,
		    .regs = r->v[i].regs,
		    .nr_regs = r->v[i].nr_regs,
		    .stack = r->v[i].stack,
		    .stack_size = r->v[i].stack_size,
		};
		*frames += (uint64_t)unwind_sample(u, &smp, ips, 256);
	}
	return cpu_s() - t0;
}

/* perf record --call-graph dwarf on the same workload, then perf report's
 * CPU time over it. */
static void perf_rate(const char *self, double secs)
{
	char cmd[8192], data[] = "/tmp/bench_unwind.XXXXXX";
	struct rusage before, after;
	long samples = 0;
	int fd = mkstemp(data);
	FILE *f;

	if (fd < 0)
		return;
	close(fd);
	snprintf(cmd, sizeof(cmd),
	         "perf record -q --call-graph dwarf,%d -F 999 -e cpu-clock -o %s -- %s --workload "
	         "%.1f >/dev/null 2>&1",
	         STACK_BYTES, data, self, secs);
	if (system(cmd) != 0) {
		printf("perf: perf record --call-graph dwarf failed here; no comparison\n");
		unlink(data);
		return;
	}
	snprintf(cmd, sizeof(cmd),
	         "perf report -i %s --stdio --no-children -n --sort comm 2>/dev/null", data);
	getrusage(RUSAGE_CHILDREN, &before);
	f = popen(cmd, "r");
	if (f) {
		char line[512];

		while (fgets(line, sizeof(line), f))
			if (line[0] != '#' && sscanf(line, " %*f%% %ld bench_unw", &samples) == 1)
				break;
		while (fgets(line, sizeof(line), f))
			;
		pclose(f);
	}
	getrusage(RUSAGE_CHILDREN, &after);
	double cpu = (double)(after.ru_utime.tv_sec - before.ru_utime.tv_sec) +
	             (double)(after.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6 +
	             (double)(after.ru_stime.tv_sec - before.ru_stime.tv_sec) +
	             (double)(after.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6;
	if (samples > 0 && cpu > 0)
		printf(
		    "perf report --call-graph dwarf: %ld samples in %.2f s CPU: %.0f samples/s per "
		    "core (the whole report: reading, unwinding, symbols, output)\n",
		    samples, cpu, (double)samples / cpu);
	else
		printf("perf: could not read perf report's sample count\n");
	unlink(data);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3.0;
	struct recorder r = {0};
	struct ring ring;
	uint64_t frames;
	pid_t child;

	if (argc > 2 && !strcmp(argv[1], "--workload")) {
		workload(atof(argv[2]));
		return 0;
	}
	if (secs <= 0 || secs > 60)
		secs = 3.0;
	child = fork();
	if (child == 0) {
		workload(0);
		_exit(0);
	}
	struct perf_event_attr a = {
	    .size = sizeof(a),
	    .type = PERF_TYPE_SOFTWARE,
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .sample_period = 1000000, /* 1 ms of CPU: 1000 Hz */
	    .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	                   PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
	    .sample_regs_user = UNWIND_REGS_MASK,
	    .sample_stack_user = STACK_BYTES,
	    .exclude_kernel = 1,
	    .exclude_hv = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, child, -1, -1, 0);
	if (fd < 0 || ring_map(&ring, fd, PAGES)) {
		fprintf(stderr, "bench_unwind: cannot sample the child: %s\n", strerror(errno));
		kill(child, SIGKILL);
		return 1;
	}
	records_format_init(&r.fmt, a.sample_type, 0, false);
	records_format_set_regs_user(&r.fmt, UNWIND_REGS_MASK);
	r.v = calloc(MAX_SAMPLES, sizeof(*r.v));
	if (!r.v)
		return 1;
	for (double t0 = mono_s(); mono_s() - t0 < secs && r.nr < MAX_SAMPLES;) {
		usleep(20000);
		ring_drain(&ring, on_record, &r);
	}
	kill(child, SIGSTOP); /* its /proc entries stay for the binaries' paths */
	ring_drain(&ring, on_record, &r);
	ring_unmap(&ring);
	close(fd);

	struct symbols *sym = symbols_new();
	struct unwind *u = unwind_new(sym);
	if (!sym || !u || r.nr == 0) {
		fprintf(stderr, "bench_unwind: no samples recorded\n");
		kill(child, SIGKILL);
		return 1;
	}
	symbols_process_scan(sym, child);
	printf("recorded %d samples of %d KiB stacks in %.1f s\n", r.nr, STACK_BYTES / 1024, secs);
	unwind_all(u, &r, r.nr < 100 ? r.nr : 100, &frames); /* warm: binaries read */
	double dt = unwind_all(u, &r, r.nr, &frames);
	printf("kept unwinder (pfmtop):   %d samples in %.3f s CPU: %.0f samples/s per core, "
	       "%.1f frames/sample, %.1f us/sample\n",
	       r.nr, dt, r.nr / dt, (double)frames / r.nr, 1e6 * dt / r.nr);
	unwind_set_caching(u, false);
	int few = r.nr < 300 ? r.nr : 300;
	double dt2 = unwind_all(u, &r, few, &frames);
	printf("unwinder built per sample: %d samples in %.3f s CPU: %.0f samples/s per core "
	       "(%.0fx slower)\n",
	       few, dt2, few / dt2, (dt2 / few) / (dt / r.nr));
	struct unwind_stats st;
	unwind_get_stats(u, &st);
	printf("unwinders built: %llu, binaries reported: %llu (%llu failed, %llu files opened), "
	       "samples stopped on an "
	       "error: %llu\n",
	       (unsigned long long)st.dwfl_new, (unsigned long long)st.modules,
	       (unsigned long long)st.module_fail, (unsigned long long)st.bins_opened,
	       (unsigned long long)st.incomplete);
	unwind_free(u);
	symbols_free(sym);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	for (int i = 0; i < r.nr; i++)
		free(r.v[i].stack);
	free(r.v);

	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0 && system("command -v perf >/dev/null 2>&1") == 0) {
		self[n] = '\0';
		perf_rate(self, secs);
	} else {
		printf("perf is not installed: no comparison\n");
	}
	return 0;
}
