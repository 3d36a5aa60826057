/* test_sampler_live: sample this process with cpu-clock and find the spinning function on top. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hotspots.h"
#include "sampler.h"

#define SKIP         77
#define FREQ         1000
#define SPIN_SECONDS 0.3

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/*
 * The spinning function sits alone in its own section: the linker then
 * defines __start_/__stop_ symbols around it, which bound its code exactly,
 * whatever order the compiler lays functions out in.
 */
#define SPIN_SECTION pfmtop_live_spin
#define STR_(x)      #x
#define STR(x)       STR_(x)
extern const char __start_pfmtop_live_spin[], __stop_pfmtop_live_spin[];

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

__attribute__((noinline, used, section(STR(SPIN_SECTION)))) static void spin(double seconds)
{
	/* seconds of this thread's CPU time, not of the clock: cpu-clock samples
	 * only when it runs, and on a busy machine it runs part of the time
	 * (but give up after 30 s of the clock) */
	const double end = now(CLOCK_THREAD_CPUTIME_ID) + seconds;
	const double give_up = now(CLOCK_MONOTONIC) + 30;

	do {
		uint64_t x = sink;

		/* ~1 ms of arithmetic between clock reads. */
		for (unsigned i = 0; i < 1000000; i++)
			x = x * 6364136223846793005ull + i;
		sink = x;
	} while (now(CLOCK_THREAD_CPUTIME_ID) < end && now(CLOCK_MONOTONIC) < give_up);
}

static int read_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static bool skippable(int err)
{
	return err == -EACCES || err == -EPERM || err == -ENOENT || err == -ENOSYS ||
	       err == -ENODEV || err == -EOPNOTSUPP;
}

int main(void)
{
	const struct perf_event_attr cpu_clock = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
	};
	const struct sampler_target self = {.pid = getpid(), .cpu = -1};
	const int paranoid = read_paranoid();
	struct sampler_config cfg = {
		.targets = &self,
		.nr_targets = 1,
		.freq = FREQ,
		.event = &cpu_clock,
		.event_name = "cpu-clock",
		.user_only = paranoid >= 2 && geteuid() != 0,
	};
	const uintptr_t lo = (uintptr_t)__start_pfmtop_live_spin;
	const uintptr_t hi = (uintptr_t)__stop_pfmtop_live_spin;
	struct hotspots_filter filter = HOTSPOTS_FILTER_ALL;
	struct sampler_health h;
	struct hotspots_totals tot;
	struct hotspots_row top[5];
	struct hotspots hot;
	struct sampler s;
	char err[512];
	int fds_before = count_fds(), ret, n;

	if (hotspots_init(&hot, 0, 0, 0)) {
		fprintf(stderr, "hotspots_init failed\n");
		return 1;
	}
	cfg.hot = &hot;
	ret = sampler_open(&s, &cfg, err, sizeof(err));
	if (ret && skippable(ret)) {
		printf(
		    "skip: cannot sample cpu-clock on this process (perf_event_paranoid=%d): %s\n",
		    paranoid, err);
		hotspots_fini(&hot);
		return SKIP;
	}
	if (ret) {
		fprintf(stderr, "sampler_open: %s: %s\n", strerror(-ret), err);
		return 1;
	}
	CHECK(s.nr_rings == 1);
	CHECK(sampler_enable(&s) == 0);
	spin(SPIN_SECONDS);
	CHECK(sampler_disable(&s) == 0);
	CHECK(sampler_tick(&s) >= 0);

	CHECK(sampler_health(&s, -1, SAMPLER_TOTAL, &h) == 0);
	filter.pid = getpid();
	n = hotspots_top(&hot, HOTSPOTS_TOTAL, &filter, top, 5, &tot);
	printf("samples %llu (lost %llu, throttles %llu, corrupt %llu, decode errors %llu); "
	       "spin() at [%#lx, %#lx)\n",
	       (unsigned long long)h.samples, (unsigned long long)h.lost_samples,
	       (unsigned long long)h.throttles, (unsigned long long)h.corrupt,
	       (unsigned long long)h.decode_errors, (unsigned long)lo, (unsigned long)hi);
	for (int i = 0; i < n; i++)
		printf("  #%d pid %u ip %#llx %s weight %llu samples %llu share %.1f%%%s\n", i,
		       top[i].pid, (unsigned long long)top[i].ip, top[i].kernel ? "kernel" : "user",
		       (unsigned long long)top[i].weight, (unsigned long long)top[i].samples,
		       top[i].share, top[i].ip >= lo && top[i].ip < hi ? "  <- spin()" : "");

	CHECK(lo < hi);
	CHECK(h.samples > 100);
	CHECK(h.corrupt == 0);
	CHECK(h.decode_errors == 0);
	CHECK(tot.samples == h.samples); /* every sample is ours */
	CHECK(n > 0);
	if (n > 0) {
		CHECK(top[0].pid == (uint32_t)getpid());
		CHECK(!top[0].kernel);
		CHECK(top[0].ip >= lo && top[0].ip < hi);
	}
	sampler_close(&s);
	hotspots_fini(&hot);

	/* The default choice: cycles, or cpu-clock with a reason. */
	cfg.event = NULL;
	cfg.event_name = NULL;
	cfg.hot = NULL;
	ret = sampler_open(&s, &cfg, err, sizeof(err));
	CHECK(ret == 0);
	if (!ret) {
		printf("default event: %s%s%s\n", s.event, s.fallback ? " -- " : "", s.why);
		CHECK(s.fallback ? !strcmp(s.event, "cpu-clock") && s.why[0]
				 : !strcmp(s.event, "cycles"));
	}
	sampler_close(&s);

	/* Nothing leaks: as many fds as before. */
	CHECK(count_fds() == fds_before);
	return failures ? 1 : 0;
}
