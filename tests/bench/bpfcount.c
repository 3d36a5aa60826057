/* bpfcount: a prototype of per-task counts taken by a BPF program at every
 * context switch from per-CPU counters (issue #32; src/bpf/taskcount.bpf.c).
 *
 * On every CPU one counter per event (pid -1, cpu N): task-clock,
 * page-faults, context-switches, cpu-migrations. A BPF program on the raw
 * tracepoint sched_switch reads them (bpf_perf_event_read_value) and adds
 * the delta since the CPU's previous switch to the outgoing task's entry
 * in a hash map. Nothing is written to a ring and no task has events.
 *
 * Usage: bpfcount [-t SECS] [-p PID] [-n COMM] [-E ENTRIES] [-q]
 * Every second, on stderr: map entries, own CPU time. At exit (SIGINT,
 * SIGTERM, or after SECS): the per-TID totals of process PID, or of tasks
 * whose last name is COMM (a comma-separated list; "*": tasks with 1,000 slices or more), and a
 * check that the tasks, the idle task, the dropped slices and what is in
 * flight add up to the CPUs' own final counts. Needs root. */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "taskcount.h"
#include "taskcount.skel.h"

static const struct {
	const char *name;
	uint64_t config;
} events[] = {
    {"task-clock", PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
};
#define NEV (int)(sizeof(events) / sizeof(events[0]))

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int count_entries(int fd)
{
	struct taskcount_key k, nk;
	int n = 0, first = 1;

	while (!bpf_map_get_next_key(fd, first ? NULL : &k, &nk)) {
		k = nk;
		first = 0;
		n++;
	}
	return n;
}

/* Is name one of the comma-separated names in list? */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		const char *e = strchrnul(p, ',');

		if ((size_t)(e - p) == n && !strncmp(p, name, n))
			return 1;
		p = *e ? e + 1 : e;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int secs = 0, quiet = 0, want_pid = 0, ncpu, opt, err, *fd;
	unsigned entries = 32768;
	const char *want_comm = NULL;
	struct taskcount *skel;
	unsigned long long cpu_total[NEV] = {0}, sum[NEV] = {0}, idle[NEV] = {0},
	                   dropped[NEV] = {0}, inflight[NEV] = {0};
	struct taskcount_key k, nk;
	struct taskcount_task v;
	double t0, c0;
	int first = 1, ntasks = 0;

	while ((opt = getopt(argc, argv, "t:p:n:E:q")) != -1) {
		switch (opt) {
		case 't':
			secs = atoi(optarg);
			break;
		case 'p':
			want_pid = atoi(optarg);
			break;
		case 'n':
			want_comm = optarg;
			break;
		case 'E':
			entries = (unsigned)atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			fprintf(stderr,
			        "usage: bpfcount [-t SECS] [-p PID] [-n COMM] [-E N] [-q]\n");
			return 2;
		}
	}
	ncpu = libbpf_num_possible_cpus();
	fd = calloc((size_t)(ncpu * NEV), sizeof(*fd));
	skel = taskcount__open();
	if (!skel || !fd) {
		fprintf(stderr, "bpfcount: open: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->nr_cpus = (unsigned)ncpu;
	skel->rodata->nr_events = NEV;
	bpf_map__set_max_entries(skel->maps.counters, (unsigned)(ncpu * NEV));
	bpf_map__set_max_entries(skel->maps.tasks, entries);
	if ((err = taskcount__load(skel))) {
		fprintf(stderr, "bpfcount: load: %s\n", strerror(-err));
		return 1;
	}
	for (int e = 0; e < NEV; e++)
		for (int c = 0; c < ncpu; c++) {
			struct perf_event_attr a = {
			    .type = PERF_TYPE_SOFTWARE,
			    .size = sizeof(a),
			    .config = events[e].config,
			    .disabled = 1,
			    .read_format =
			        PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
			};
			unsigned idx = (unsigned)(e * ncpu + c);
			int f =
			    (int)syscall(SYS_perf_event_open, &a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);

			fd[idx] = f;
			if (f < 0) {
				fprintf(stderr, "bpfcount: perf_event_open %s cpu %d: %s\n",
				        events[e].name, c, strerror(errno));
				continue; /* an offline CPU */
			}
			if (bpf_map_update_elem(bpf_map__fd(skel->maps.counters), &idx, &f,
			                        BPF_ANY))
				fprintf(stderr, "bpfcount: map %u: %s\n", idx, strerror(errno));
		}
	if ((err = taskcount__attach(skel))) {
		fprintf(stderr, "bpfcount: attach: %s\n", strerror(-err));
		return 1;
	}
	for (int i = 0; i < ncpu * NEV; i++)
		if (fd[i] >= 0)
			ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now_s();
	c0 = self_cpu();
	fprintf(stderr, "bpfcount: %d CPUs, %d events, %u entries\n", ncpu, NEV, entries);
	for (int tick = 1; !stop; tick++) {
		sleep(1);
		if (!quiet)
			fprintf(stderr, "t=%d entries %d cpu %.3f s\n", tick,
			        count_entries(bpf_map__fd(skel->maps.tasks)), self_cpu() - c0);
		if (secs && now_s() - t0 >= secs)
			break;
	}
	for (int i = 0; i < ncpu * NEV; i++)
		if (fd[i] >= 0)
			ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
	/* The counters stand still now; the map and the last readings catch up
	 * at the next switch on each CPU. What is read below is consistent
	 * either way: in flight is what no switch has taken yet. */
	usleep(100000);
	for (int e = 0; e < NEV; e++)
		for (int c = 0; c < ncpu; c++) {
			uint64_t r[3];

			if (fd[e * ncpu + c] >= 0 &&
			    read(fd[e * ncpu + c], r, sizeof(r)) == sizeof(r))
				cpu_total[e] += r[0];
		}
	{
		unsigned zero = 0;
		struct taskcount_counts *pc = calloc((size_t)ncpu, sizeof(*pc));

		bpf_map_lookup_elem(bpf_map__fd(skel->maps.last), &zero, pc);
		for (int c = 0; c < ncpu; c++)
			for (int e = 0; e < NEV; e++) {
				uint64_t r[3];

				if (fd[e * ncpu + c] >= 0 &&
				    read(fd[e * ncpu + c], r, sizeof(r)) == sizeof(r))
					inflight[e] += r[0] - pc[c].value[e];
			}
		for (unsigned s = 0; s < TASKCOUNT_SPILL_N; s++) {
			bpf_map_lookup_elem(bpf_map__fd(skel->maps.spill), &s, pc);
			for (int c = 0; c < ncpu; c++)
				for (int e = 0; e < NEV; e++)
					(s == TASKCOUNT_SPILL_IDLE ? idle : dropped)[e] +=
					    pc[c].value[e];
		}
		free(pc);
	}
	fprintf(stderr, "bpfcount: %.1f s, own CPU %.3f s\n", now_s() - t0, self_cpu() - c0);
	printf("%8s %8s %-16s", "tid", "tgid", "comm");
	for (int e = 0; e < NEV; e++)
		printf(" %16s", events[e].name);
	printf(" %8s\n", "slices");
	while (!bpf_map_get_next_key(bpf_map__fd(skel->maps.tasks), first ? NULL : &k, &nk)) {
		int show;

		k = nk;
		first = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.tasks), &k, &v))
			continue;
		ntasks++;
		for (int e = 0; e < NEV; e++)
			sum[e] += v.c.value[e];
		show = (want_pid && (int)v.tgid == want_pid) ||
		       (want_comm && (in_list(want_comm, v.comm) ||
		                      (!strcmp(want_comm, "*") && v.slices >= 1000)));
		if (!show)
			continue;
		printf("%8u %8u %-16.16s", k.tid, v.tgid, v.comm);
		for (int e = 0; e < NEV; e++)
			printf(" %16llu", v.c.value[e]);
		printf(" %8u\n", v.slices);
	}
	printf("%d tasks\n", ntasks);
	for (int e = 0; e < NEV; e++)
		printf(
		    "check: %-16s tasks %llu + idle %llu + dropped %llu + in flight %llu = %llu, "
		    "CPUs %llu%s\n",
		    events[e].name, sum[e], idle[e], dropped[e], inflight[e],
		    sum[e] + idle[e] + dropped[e] + inflight[e], cpu_total[e],
		    sum[e] + idle[e] + dropped[e] + inflight[e] == cpu_total[e] ? "" : " MISMATCH");
	taskcount__destroy(skel);
	return 0;
}
