/* test_ring_live: a real cpu-clock sampling ring on this process, drained and decoded. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "records.h"
#include "ring.h"
#include "sys.h"

#define SKIP 77
#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |                   \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER)
#define PERIOD_NS 100000

static int failures;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

struct live {
	struct records_format fmt;
	pid_t pid, tid;
	uint64_t id;
	long ncpu;
	void *exec_map;
	unsigned samples, ours, bad_decode, bad_period, bad_cpu, time_backwards;
	unsigned comm_ours, mmap2_ours, other;
	uint64_t last_time, t_start, t_end, out_of_run;
};

static void on_record(const struct perf_event_header *h, void *arg)
{
	struct live *l = arg;
	struct record r;
	int ret = records_decode(&l->fmt, h, &r);

	if (ret == RECORDS_SKIP) {
		l->other++;
		return;
	}
	if (ret) {
		fprintf(stderr, "decode %s (size %u): %d\n", records_type_name(h->type), h->size,
		        ret);
		l->bad_decode++;
		return;
	}
	/* With sample_id_all every record carries tid and time; side band
	 * records may come before the first sample, so check order on all. */
	if (r.id.time < l->last_time)
		l->time_backwards++;
	l->last_time = r.id.time;
	if (r.id.time < l->t_start || r.id.time > l->t_end)
		l->out_of_run++;

	switch (r.type) {
	case PERF_RECORD_SAMPLE:
		l->samples++;
		if (r.id.pid == (uint32_t)l->pid && r.id.tid == (uint32_t)l->tid &&
		    r.id.id == l->id)
			l->ours++;
		if (r.sample.period != PERIOD_NS)
			l->bad_period++;
		if (r.id.cpu >= (uint32_t)l->ncpu)
			l->bad_cpu++;
		break;
	case PERF_RECORD_COMM:
		if (r.comm.pid == (uint32_t)l->pid && !r.comm.exec &&
		    !strcmp(r.comm.comm, "pfmtop-live"))
			l->comm_ours++;
		break;
	case PERF_RECORD_MMAP2:
		if (r.mmap.pid == (uint32_t)l->pid && r.mmap.addr == (uintptr_t)l->exec_map)
			l->mmap2_ours++;
		break;
	default:
		l->other++;
		break;
	}
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

static uint64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double now(void)
{
	return (double)raw_ns() / 1e9;
}

int main(void)
{
	struct perf_event_attr attr;
	struct ring r;
	struct live l;
	int paranoid = read_paranoid();
	volatile uint64_t sink = 0;
	int fd, err, drained = 0;

	memset(&l, 0, sizeof(l));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_period = PERIOD_NS;
	attr.sample_type = SAMPLE_TYPE;
	attr.sample_id_all = 1;
	attr.comm = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.task = 1;
	attr.disabled = 1;
	/* The default perf clock is per CPU and, in a VM without a stable TSC,
	 * not ordered across CPUs: a thread that migrates could see time go
	 * back. CLOCK_MONOTONIC_RAW is one clock for all CPUs, never slewed,
	 * and the same one clock_gettime reads, so record times can also be
	 * checked against the run's own start and end. */
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC_RAW;
	attr.exclude_kernel = paranoid >= 2 && geteuid() != 0;
	records_format_init(&l.fmt, attr.sample_type, 0, attr.sample_id_all);
	l.pid = getpid();
	l.tid = (pid_t)syscall(SYS_gettid);
	l.ncpu = sysconf(_SC_NPROCESSORS_CONF);

	fd = sys->perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == EACCES || err == EPERM || err == ENOENT || err == ENOSYS ||
		    err == ENODEV || err == EOPNOTSUPP) {
			printf("skip: perf_event_open(cpu-clock, sampling) failed: %s "
			       "(perf_event_paranoid=%d)\n",
			       strerror(err), paranoid);
			return SKIP;
		}
		fprintf(stderr, "perf_event_open: %s\n", strerror(err));
		return 1;
	}
	if (sys->ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&l.id)) {
		fprintf(stderr, "PERF_EVENT_IOC_ID: %s\n", strerror(errno));
		return 1;
	}
	/* Two data pages: ~28 KB of records over 8 KB, so the ring laps a few
	 * times and records straddle its end on a real kernel too. */
	err = ring_map(&r, fd, 2);
	if (err == -EPERM || err == -ENOMEM) {
		printf("skip: cannot map a 2-page ring: %s (perf_event_mlock_kb?)\n",
		       strerror(-err));
		sys->close(fd);
		return SKIP;
	}
	if (err) {
		fprintf(stderr, "ring_map: %s\n", strerror(-err));
		return 1;
	}
	l.t_start = raw_ns();
	l.t_end = UINT64_MAX;
	CHECK(sys->ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0);

	/* Side band we can recognise: a rename (COMM without the exec flag)
	 * and a new executable mapping (MMAP2). */
	prctl(PR_SET_NAME, "pfmtop-live", 0, 0, 0);
	l.exec_map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(l.exec_map != MAP_FAILED);

	/* Spin ~50 ms, draining along the way like the app will. */
	double end = now() + 0.05;
	while (now() < end) {
		for (int i = 0; i < 10000; i++)
			sink += (uint64_t)i * 7;
		err = ring_drain(&r, on_record, &l);
		CHECK(err >= 0);
		drained += err > 0 ? err : 0;
	}
	CHECK(sys->ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0);
	l.t_end = raw_ns();
	err = ring_drain(&r, on_record, &l);
	CHECK(err >= 0);
	drained += err > 0 ? err : 0;

	printf("records %d: samples %u (ours %u), comm %u, mmap2 %u, other %u; "
	       "ring: %llu bytes, %llu wrapped, %llu corrupt; exclude_kernel=%d; "
	       "time: %u backwards, %llu outside the run\n",
	       drained, l.samples, l.ours, l.comm_ours, l.mmap2_ours, l.other,
	       (unsigned long long)r.stats.bytes, (unsigned long long)r.stats.wraps_copied,
	       (unsigned long long)r.stats.corrupt, (int)attr.exclude_kernel, l.time_backwards,
	       (unsigned long long)l.out_of_run);

	CHECK(l.samples >= 10); /* ~500 expected; leave room for a loaded machine */
	CHECK(l.ours == l.samples);
	CHECK(l.bad_decode == 0);
	CHECK(l.bad_period == 0);
	CHECK(l.bad_cpu == 0);
	CHECK(l.time_backwards == 0);
	CHECK(l.out_of_run == 0);
	CHECK(l.comm_ours == 1);
	CHECK(l.mmap2_ours == 1);
	CHECK(r.stats.corrupt == 0);
	CHECK(r.ctl->data_tail == __atomic_load_n(&r.ctl->data_head, __ATOMIC_ACQUIRE));
	CHECK(r.stats.records == (uint64_t)drained);

	if (l.exec_map != MAP_FAILED)
		munmap(l.exec_map, 4096);
	ring_unmap(&r);
	sys->close(fd);
	(void)sink;
	return failures ? 1 : 0;
}
