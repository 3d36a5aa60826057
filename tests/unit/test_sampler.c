/* test_sampler: sampling attrs, event fallback, ring setup and drains on the fake sys. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "fake_sys.h"
#include "hotspots.h"
#include "records.h"
#include "sampler.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t page;
static char rate_path[64];

/* ---- the kernel's side: writing records into a fake ring ---- */

struct writer {
	struct perf_event_mmap_page *ctl;
	unsigned char *data;
	uint64_t size, head;
};

static void w_attach(struct writer *w, int fd)
{
	struct fake_event *e = fake_sys_event(fd);

	assert_non_null(e);
	assert_non_null(e->ring);
	w->ctl = e->ring;
	w->data = (unsigned char *)e->ring + page;
	w->size = e->ring_len - page;
	w->head = w->ctl->data_head;
}

static void w_put(struct writer *w, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		w->data[(w->head + i) & (w->size - 1)] = b[i];
	w->head += len;
}

static void w_u64(struct writer *w, uint64_t v)
{
	w_put(w, &v, 8);
}

static void w_header(struct writer *w, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = size};

	w_put(w, &h, sizeof(h));
}

static void w_publish(struct writer *w)
{
	__atomic_store_n(&w->ctl->data_head, w->head, __ATOMIC_RELEASE);
}

#define ID 4242

static uint64_t w_time = 777; /* the time the next trailer carries */

/* sample_id_all trailer for SAMPLER_SAMPLE_TYPE: tid, time, cpu, identifier. */
static void w_trailer(struct writer *w, uint32_t pid, uint32_t tid, uint32_t cpu)
{
	w_u64(w, (uint64_t)tid << 32 | pid);
	w_u64(w, w_time);
	w_u64(w, cpu);
	w_u64(w, ID);
}

static void w_sample(struct writer *w, uint16_t mode, uint32_t pid, uint32_t tid, uint64_t ip,
		     uint32_t cpu, uint64_t period)
{
	w_header(w, PERF_RECORD_SAMPLE, mode, 56);
	w_u64(w, ID);
	w_u64(w, ip);
	w_u64(w, (uint64_t)tid << 32 | pid);
	w_u64(w, 1000);
	w_u64(w, cpu);
	w_u64(w, period);
}

static void w_lost(struct writer *w, uint64_t lost, uint32_t cpu)
{
	w_header(w, PERF_RECORD_LOST, 0, 8 + 16 + 32);
	w_u64(w, ID);
	w_u64(w, lost);
	w_trailer(w, 0, 0, cpu);
}

static void w_lost_samples(struct writer *w, uint64_t lost, uint32_t cpu)
{
	w_header(w, PERF_RECORD_LOST_SAMPLES, 0, 8 + 8 + 32);
	w_u64(w, lost);
	w_trailer(w, 0, 0, cpu);
}

static void w_throttle(struct writer *w, uint32_t type, uint32_t cpu)
{
	w_header(w, type, 0, 8 + 24 + 32);
	w_u64(w, 5555);
	w_u64(w, ID);
	w_u64(w, ID + 1);
	w_trailer(w, 0, 0, cpu);
}

static void w_mmap2(struct writer *w, uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len,
		    uint64_t pgoff, const char *file, uint32_t cpu)
{
	char name[64] = {0};
	size_t nl = (strlen(file) + 1 + 7) & ~(size_t)7;

	assert_true(nl <= sizeof(name));
	memcpy(name, file, strlen(file));
	w_header(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, (uint16_t)(8 + 64 + nl + 32));
	w_u64(w, (uint64_t)tid << 32 | pid);
	w_u64(w, addr);
	w_u64(w, len);
	w_u64(w, pgoff);
	w_u64(w, (uint64_t)3 << 32 | 8); /* maj 8, min 3 */
	w_u64(w, 123456);                /* ino */
	w_u64(w, 7);                     /* ino_generation */
	w_u64(w, (uint64_t)2 << 32 | 5); /* prot r-x, flags MAP_PRIVATE */
	w_put(w, name, nl);
	w_trailer(w, pid, tid, cpu);
}

static void w_comm(struct writer *w, uint16_t misc, uint32_t pid, uint32_t tid, const char *comm,
		   uint32_t cpu)
{
	char name[32] = {0};
	size_t nl = (strlen(comm) + 1 + 7) & ~(size_t)7;

	memcpy(name, comm, strlen(comm));
	w_header(w, PERF_RECORD_COMM, misc, (uint16_t)(8 + 8 + nl + 32));
	w_u64(w, (uint64_t)tid << 32 | pid);
	w_put(w, name, nl);
	w_trailer(w, pid, tid, cpu);
}

static void w_task(struct writer *w, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		   uint32_t ptid, uint32_t cpu)
{
	w_header(w, type, 0, 8 + 24 + 32);
	w_u64(w, (uint64_t)ppid << 32 | pid);
	w_u64(w, (uint64_t)ptid << 32 | tid);
	w_u64(w, 999);
	w_trailer(w, pid, tid, cpu);
}

/* ---- the caller's side: side-band callbacks that keep copies ---- */

struct sb_seen {
	int nr_mmap, nr_comm, nr_fork, nr_exit;
	struct records_mmap mmap;
	char file[64];
	struct records_id mmap_id;
	struct records_comm comm;
	char comm_name[32];
	struct records_task fork, exit;
	uint32_t exit_cpu;
};

static void on_mmap(const struct record *r, void *arg)
{
	struct sb_seen *s = arg;

	s->nr_mmap++;
	s->mmap = r->mmap;
	snprintf(s->file, sizeof(s->file), "%s", r->mmap.filename);
	s->mmap.filename = NULL;
	s->mmap_id = r->id;
}

static void on_comm(const struct record *r, void *arg)
{
	struct sb_seen *s = arg;

	s->nr_comm++;
	s->comm = r->comm;
	snprintf(s->comm_name, sizeof(s->comm_name), "%s", r->comm.comm);
	s->comm.comm = NULL;
}

static void on_fork(const struct record *r, void *arg)
{
	struct sb_seen *s = arg;

	s->nr_fork++;
	s->fork = r->task;
}

static void on_exit_(const struct record *r, void *arg)
{
	struct sb_seen *s = arg;

	s->nr_exit++;
	s->exit = r->task;
	s->exit_cpu = r->id.cpu;
}

/* ---- open rules ---- */

static int nr_hw_refused;

static int refuse_hardware(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	if (a->type == PERF_TYPE_HARDWARE) {
		nr_hw_refused++;
		return ENOENT;
	}
	return 0;
}

static int refuse_all(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	return a->type == PERF_TYPE_HARDWARE ? ENOENT : EACCES;
}

static int gone_999(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	if (a->type == PERF_TYPE_HARDWARE)
		return ENOENT;
	return pid == 999 ? ESRCH : 0;
}

static int emfile_cpu1(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	if (a->type == PERF_TYPE_HARDWARE)
		return ENOENT;
	return cpu == 1 ? EMFILE : 0;
}

/* ---- mmap failures: the fake's ops with mmap wrapped ---- */

static const struct sys_ops *fake_ops;
static struct sys_ops wrapped_ops;
static size_t mmap_limit; /* mmap of more than this fails with EPERM */
static int nr_mmap_refused;

static void *limited_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (len > mmap_limit) {
		nr_mmap_refused++;
		errno = EPERM;
		return MAP_FAILED;
	}
	return fake_ops->mmap(addr, len, prot, flags, fd, off);
}

static void install_mmap_limit(size_t limit)
{
	fake_ops = sys;
	wrapped_ops = *fake_ops;
	wrapped_ops.mmap = limited_mmap;
	mmap_limit = limit;
	nr_mmap_refused = 0;
	sys_set_ops(&wrapped_ops);
}

/* ---- fixtures ---- */

static void write_rate(long v)
{
	FILE *f = fopen(rate_path, "w");

	assert_non_null(f);
	fprintf(f, "%ld\n", v);
	fclose(f);
}

static int setup(void **state)
{
	fake_sys_install();
	nr_hw_refused = 0;
	snprintf(rate_path, sizeof(rate_path), "/tmp/pfmtop-test-rate-XXXXXX");
	int fd = mkstemp(rate_path);

	if (fd < 0)
		return -1;
	close(fd);
	write_rate(100000);
	return 0;
}

static int teardown(void **state)
{
	fake_sys_reset();
	sys_set_ops(NULL);
	unlink(rate_path);
	return 0;
}

static const int two_cpus[] = {0, 1};
static const struct sampler_target cpu_targets[] = {{-1, 0}, {-1, 1}};

static struct sampler_config base_config(void)
{
	struct sampler_config c = {
		.targets = cpu_targets,
		.nr_targets = 2,
		.max_rate_path = rate_path,
	};

	return c;
}

/* Every ring freed and every fd closed. */
static void assert_all_released(void)
{
	assert_int_equal(fake_sys_nr_open_fds(), 0);
	for (int i = 0; i < fake_sys_nr_opened(); i++)
		assert_null(fake_sys_event_at(i)->ring);
}

struct fd_list {
	int n;
	int fd[16];
};

static void collect_fd(int fd, void *arg)
{
	struct fd_list *l = arg;

	assert_true(l->n < 16);
	l->fd[l->n++] = fd;
}

/* ---- tests ---- */

static void test_system_wide_attrs_and_fallback(void **state)
{
	struct sampler_config c = base_config();
	struct sampler s;
	char err[512];

	fake_sys_set_open_rule(refuse_hardware);
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	/* cycles was tried once, on the first CPU, then cpu-clock everywhere. */
	assert_int_equal(nr_hw_refused, 1);
	assert_true(s.fallback);
	assert_string_equal(s.event, "cpu-clock");
	assert_non_null(strstr(s.why, "Sampling cpu-clock instead of cycles: "));
	assert_non_null(strstr(s.why, "\"cycles\""));
	assert_int_equal(s.nr_notes, 0);
	assert_int_equal(fake_sys_nr_opened(), 2);
	assert_int_equal(s.nr_streams, 2);
	assert_int_equal(s.nr_rings, 2);
	assert_int_equal(s.pages, SAMPLER_DEFAULT_PAGES);

	for (int i = 0; i < 2; i++) {
		struct fake_event *e = fake_sys_event_at(i);
		const struct perf_event_attr *a = &e->attr;

		assert_int_equal(e->pid, -1);
		assert_int_equal(e->cpu, i);
		assert_int_equal(e->group_fd, -1);
		assert_true(e->flags & PERF_FLAG_FD_CLOEXEC);
		assert_int_equal(a->size, sizeof(*a));
		assert_int_equal(a->type, PERF_TYPE_SOFTWARE);
		assert_int_equal(a->config, PERF_COUNT_SW_CPU_CLOCK);
		assert_int_equal(a->sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
						     PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER);
		assert_int_equal(a->freq, 1);
		assert_int_equal(a->sample_freq, SAMPLER_DEFAULT_FREQ);
		assert_int_equal(a->sample_id_all, 1);
		assert_int_equal(a->mmap, 1);
		assert_int_equal(a->mmap2, 1);
		assert_int_equal(a->comm, 1);
		assert_int_equal(a->comm_exec, 1);
		assert_int_equal(a->task, 1);
		assert_int_equal(a->disabled, 1);
		assert_int_equal(a->inherit, 0);
		assert_int_equal(a->enable_on_exec, 0);
		assert_int_equal(a->exclude_kernel, 0);
		assert_int_equal(a->watermark, 1);
		assert_int_equal(a->wakeup_watermark, SAMPLER_DEFAULT_PAGES * page / 4);
		/* {value, id, lost}: drops in a ring that gets no LOST record */
		assert_int_equal(a->read_format, PERF_FORMAT_ID | PERF_FORMAT_LOST);
		/* Its own ring, read-write, 1 + 128 pages. */
		assert_non_null(e->ring);
		assert_int_equal(e->ring_len, (SAMPLER_DEFAULT_PAGES + 1) * page);
		assert_int_equal(s.streams[i].fd, e->fd);
		assert_int_equal(s.streams[i].id, e->id);
		assert_int_equal(s.streams[i].ring, i);
		assert_int_equal(s.rings[i].fd, e->fd);
		assert_int_equal(s.rings[i].cpu, i);
		assert_int_equal(s.rings[i].pid, -1);
		assert_int_equal(s.rings[i].pages, SAMPLER_DEFAULT_PAGES);
		assert_int_equal(e->nr_enable, 0);
	}
	assert_memory_equal(&s.attr, &fake_sys_event_at(0)->attr, sizeof(s.attr));
	assert_int_equal(s.max_rate_start, 100000);

	assert_int_equal(sampler_enable(&s), 0);
	assert_int_equal(fake_sys_event_at(0)->nr_enable, 1);
	assert_int_equal(fake_sys_event_at(1)->nr_enable, 1);
	assert_int_equal(sampler_disable(&s), 0);
	assert_int_equal(fake_sys_event_at(1)->nr_disable, 1);
	sampler_close(&s);
	assert_all_released();
	sampler_close(&s); /* twice is fine */
}

static void test_cycles_when_it_opens(void **state)
{
	struct sampler_config c = base_config();
	struct sampler s;

	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_false(s.fallback);
	assert_string_equal(s.why, "");
	assert_string_equal(s.event, "cycles");
	assert_int_equal(fake_sys_event_at(0)->attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(fake_sys_event_at(0)->attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(fake_sys_event_at(1)->attr.type, PERF_TYPE_HARDWARE);
	sampler_close(&s);
	assert_all_released();
}

static void test_explicit_event_period_user_only(void **state)
{
	struct perf_event_attr ev = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.exclude_hv = 1,
	};
	struct sampler_config c = base_config();
	struct sampler s;

	c.event = &ev;
	c.event_name = "task-clock";
	c.period = 250000;
	c.freq = 99; /* the period wins */
	c.user_only = true;
	c.mmap_pages = 8;
	fake_sys_set_open_rule(refuse_hardware);
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(nr_hw_refused, 0); /* no cycles attempt */
	assert_string_equal(s.event, "task-clock");
	assert_false(s.fallback);
	for (int i = 0; i < 2; i++) {
		const struct fake_event *e = fake_sys_event_at(i);

		assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(e->attr.config, PERF_COUNT_SW_TASK_CLOCK);
		assert_int_equal(e->attr.freq, 0);
		assert_int_equal(e->attr.sample_period, 250000);
		/* A fixed period is the weight: with PERF_SAMPLE_PERIOD the kernel
		 * would sample every occurrence of a software event. */
		assert_int_equal(e->attr.sample_type,
				 SAMPLER_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_PERIOD);
		assert_int_equal(e->attr.exclude_kernel, 1);
		assert_int_equal(e->attr.exclude_hv, 1);
		assert_int_equal(e->attr.exclude_user, 0);
		assert_int_equal(e->attr.wakeup_watermark, 8 * page / 4);
		assert_int_equal(e->ring_len, 9 * page);
	}
	sampler_close(&s);
	assert_all_released();
}

static void test_explicit_event_refused(void **state)
{
	struct perf_event_attr ev = {.type = PERF_TYPE_HARDWARE, .config = 1};
	struct sampler_config c = base_config();
	struct sampler s;
	char err[512];

	c.event = &ev;
	c.event_name = "instructions";
	fake_sys_set_open_rule(refuse_hardware);
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "\"instructions\""));
	assert_int_equal(fake_sys_nr_open_fds(), 0);
	sampler_close(&s);
}

static void test_nothing_opens(void **state)
{
	struct sampler_config c = base_config();
	struct sampler s;
	char err[1024];

	fake_sys_set_open_rule(refuse_all);
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), -EACCES);
	/* The sentence is about cpu-clock, with the cycles reason after it. */
	assert_non_null(strstr(err, "\"cpu-clock\""));
	assert_non_null(strstr(err, "instead of cycles"));
	assert_int_equal(fake_sys_nr_open_fds(), 0);
	sampler_close(&s);
}

static void test_task_targets(void **state)
{
	const struct sampler_target tasks[] = {{1234, -1}, {5678, -1}};
	struct sampler_config c = base_config();
	struct sampler s;

	/* Without inherit: one event and one ring per task, cpu -1. */
	c.targets = tasks;
	c.nr_targets = 2;
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(s.nr_streams, 2);
	assert_int_equal(s.nr_rings, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fake_sys_event_at(i)->pid, tasks[i].pid);
		assert_int_equal(fake_sys_event_at(i)->cpu, -1);
		assert_int_equal(fake_sys_event_at(i)->attr.inherit, 0);
		assert_int_equal(s.rings[i].cpu, -1);
		assert_int_equal(s.rings[i].pid, tasks[i].pid);
	}
	sampler_close(&s);
	assert_all_released();

	/* With inherit: each task on each CPU, one ring per CPU shared through
	 * SET_OUTPUT (the kernel will not map an inherited cpu -1 event). */
	fake_sys_reset();
	c.inherit = true;
	c.cpus = two_cpus;
	c.nr_cpus = 2;
	c.enable_on_exec = true;
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(s.nr_streams, 4);
	assert_int_equal(s.nr_open, 4);
	assert_int_equal(s.nr_rings, 2);
	for (int i = 0; i < 4; i++) {
		struct fake_event *e = fake_sys_event_at(i);

		assert_int_equal(e->pid, tasks[i / 2].pid);
		assert_int_equal(e->cpu, i % 2);
		assert_int_equal(e->attr.inherit, 1);
		assert_int_equal(e->attr.enable_on_exec, 1);
		assert_int_equal(s.streams[i].ring, i % 2);
		if (i < 2) {
			assert_non_null(e->ring);
		} else {
			/* No mapping of its own: its output goes to the first
			 * task's ring on the same CPU. */
			assert_null(e->ring);
			assert_int_equal(e->last_ioctl_arg, (unsigned long)s.rings[i % 2].fd);
		}
	}
	/* Only the ring owners are watched. */
	struct fd_list fl = {0};

	sampler_for_each_fd(&s, collect_fd, &fl);
	assert_int_equal(fl.n, 2);
	assert_int_equal(fl.fd[0], fake_sys_event_at(0)->fd);
	assert_int_equal(fl.fd[1], fake_sys_event_at(1)->fd);
	/* enable_on_exec: the kernel starts them, not sampler_enable(). */
	assert_int_equal(sampler_enable(&s), 0);
	assert_int_equal(fake_sys_event_at(0)->nr_enable, 0);
	/* A redirected event's fd drains its CPU's ring. */
	assert_int_equal(sampler_drain(&s, fake_sys_event_at(3)->fd), 0);
	sampler_close(&s);
	assert_all_released();
}

static void test_bad_config(void **state)
{
	const struct sampler_target bad[] = {{-1, -1}};
	struct sampler_config c = base_config();
	struct sampler s;
	char err[512];

	c.mmap_pages = 48;
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "power of two"));
	c.mmap_pages = 0;
	c.nr_targets = 0;
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), -EINVAL);
	c.targets = bad;
	c.nr_targets = 1;
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "pid -1 with cpu -1"));
	assert_int_equal(fake_sys_nr_opened(), 0);
	sampler_close(&s);
}

static void test_task_gone(void **state)
{
	const struct sampler_target tasks[] = {{999, -1}, {1000, -1}};
	struct sampler_config c = base_config();
	struct sampler s;
	char err[512];

	/* The first task is gone: no verdict on the event from it, the second
	 * decides (cycles refused, cpu-clock opens) and the first is kept with
	 * its errno. */
	c.targets = tasks;
	c.nr_targets = 2;
	fake_sys_set_open_rule(gone_999);
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), 0);
	assert_string_equal(s.event, "cpu-clock");
	assert_int_equal(s.streams[0].fd, -1);
	assert_int_equal(s.streams[0].err, ESRCH);
	assert_int_equal(s.streams[0].ring, -1);
	assert_true(s.streams[1].fd >= 0);
	assert_int_equal(s.nr_open, 1);
	assert_int_equal(s.nr_rings, 1);
	assert_int_equal(s.rings[0].pid, 1000);
	sampler_close(&s);
	assert_all_released();

	/* Every task gone: ESRCH and a sentence. */
	c.nr_targets = 1;
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "999"));
	sampler_close(&s);
	assert_all_released();
}

static void test_fd_limit(void **state)
{
	struct sampler_config c = base_config();
	struct sampler s;
	char err[512];

	fake_sys_set_open_rule(emfile_cpu1);
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), -EMFILE);
	assert_non_null(strstr(err, "file descriptors"));
	assert_all_released();
	sampler_close(&s);
}

static void test_freq_clamped(void **state)
{
	struct sampler_config c = base_config();
	struct sampler s;

	write_rate(1000);
	c.freq = 4000;
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(fake_sys_event_at(0)->attr.sample_freq, 1000);
	assert_int_equal(s.nr_notes, 1);
	assert_non_null(strstr(s.notes[0], "1000 Hz instead of 4000 Hz"));
	sampler_close(&s);

	/* A period is not limited by the rate. */
	fake_sys_reset();
	c.period = 10;
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(fake_sys_event_at(0)->attr.sample_period, 10);
	assert_int_equal(s.nr_notes, 0);
	sampler_close(&s);
	assert_all_released();
}

static void test_mlock_degrade(void **state)
{
	struct sampler_config c = base_config();
	struct sampler s;
	char err[512];

	/* Rings over 8 data pages are refused with EPERM: 32 -> 16 -> 8, each
	 * step reopening the event with a watermark that fits. */
	install_mmap_limit(9 * page);
	c.mmap_pages = 32;
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), 0);
	assert_int_equal(nr_mmap_refused, 2); /* the second CPU starts at 8 */
	assert_int_equal(s.pages, 8);
	assert_int_equal(s.nr_rings, 2);
	assert_int_equal(s.rings[0].pages, 8);
	assert_int_equal(s.rings[1].pages, 8);
	assert_int_equal(fake_sys_nr_open_fds(), 2);
	assert_int_equal(fake_sys_nr_opened(), 4);
	for (int i = 0; i < 2; i++) {
		struct fake_event *e = fake_sys_event(s.rings[i].fd);

		assert_int_equal(e->attr.wakeup_watermark, 8 * page / 4);
		assert_int_equal(e->ring_len, 9 * page);
	}
	assert_int_equal(s.nr_notes, 1);
	assert_non_null(strstr(s.notes[0], "from 32 to 8 pages"));
	sampler_close(&s);
	assert_all_released();

	/* Not even one page: EPERM, a sentence, nothing left open. */
	fake_sys_reset();
	mmap_limit = page;
	assert_int_equal(sampler_open(&s, &c, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "perf_event_mlock_kb"));
	assert_all_released();
	sampler_close(&s);
}

/* Drain everything the kernel may write, check every figure. */
static void test_drain_records(void **state)
{
	struct sampler_config c = base_config();
	struct sampler_health h;
	struct hotspots hot;
	struct hotspots_row rows[8];
	struct hotspots_totals tot;
	struct hotspots_filter f = HOTSPOTS_FILTER_ALL;
	struct sb_seen seen = {0};
	struct writer w0, w1;
	struct sampler s;

	assert_int_equal(hotspots_init(&hot, 0, 0, 0), 0);
	c.hot = &hot;
	c.sb = (struct sampler_sideband){
		.mmap = on_mmap, .comm = on_comm, .fork = on_fork, .exit = on_exit_, .arg = &seen};
	c.mmap_pages = 1;
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(sampler_enable(&s), 0);
	w_attach(&w0, s.rings[0].fd);
	w_attach(&w1, s.rings[1].fd);

	/* CPU 0: side band, samples, loss and throttling. */
	w_mmap2(&w0, 300, 301, 0x7f0000001000ull, 0x2000, 0x1000, "/usr/bin/spin", 0);
	w_comm(&w0, PERF_RECORD_MISC_COMM_EXEC, 300, 300, "spin", 0);
	w_task(&w0, PERF_RECORD_FORK, 301, 300, 302, 300, 0);
	for (int i = 0; i < 3; i++)
		w_sample(&w0, PERF_RECORD_MISC_USER, 300, 301, 0x401000, 0, 1000);
	w_sample(&w0, PERF_RECORD_MISC_KERNEL, 0, 0, 0xffffffff81001000ull, 0, 3000);
	w_lost(&w0, 17, 0);
	w_lost(&w0, 3, 0);
	w_lost_samples(&w0, 5, 0);
	w_throttle(&w0, PERF_RECORD_THROTTLE, 0);
	w_task(&w0, PERF_RECORD_EXIT, 301, 300, 302, 300, 0);
	w_header(&w0, 0x4242, 0, 16); /* a type nobody decodes */
	w_u64(&w0, 0);
	w_publish(&w0);
	/* CPU 1: throttled and back, a sample of the same (pid, ip), then a
	 * COMM whose string has no NUL (refused by the decoder). */
	w_throttle(&w1, PERF_RECORD_THROTTLE, 1);
	w_throttle(&w1, PERF_RECORD_UNTHROTTLE, 1);
	w_sample(&w1, PERF_RECORD_MISC_USER, 300, 302, 0x401000, 1, 2000);
	w_header(&w1, PERF_RECORD_COMM, 0, 8 + 8 + 16 + 32);
	w_u64(&w1, (uint64_t)300 << 32 | 300);
	w_put(&w1, "12345678abcdefgh", 16);
	w_trailer(&w1, 300, 300, 1);

	/* Drain on CPU 0's EPOLLIN (CPU 1's records are not published yet). */
	assert_int_equal(sampler_drain(&s, s.rings[0].fd), 13);
	assert_int_equal(sampler_health(&s, 0, SAMPLER_TOTAL, &h), 0);
	assert_int_equal(h.records, 13);
	assert_int_equal(h.samples, 4);
	assert_int_equal(h.sideband, 4);
	assert_int_equal(h.lost_records, 2);
	assert_int_equal(h.lost_samples, 20);
	assert_int_equal(h.lost_samples_hw, 5);
	assert_int_equal(h.throttles, 1);
	assert_int_equal(h.unthrottles, 0);
	assert_true(h.throttled);
	assert_int_equal(h.skipped, 1);
	assert_int_equal(h.decode_errors, 0);
	assert_int_equal(h.corrupt, 0);
	assert_int_equal(sampler_health(&s, 1, SAMPLER_TOTAL, &h), 0);
	assert_int_equal(h.records, 0);

	/* Side band reached the callbacks with every field. */
	assert_int_equal(seen.nr_mmap, 1);
	assert_true(seen.mmap.mmap2);
	assert_int_equal(seen.mmap.pid, 300);
	assert_int_equal(seen.mmap.tid, 301);
	assert_int_equal(seen.mmap.addr, 0x7f0000001000ull);
	assert_int_equal(seen.mmap.len, 0x2000);
	assert_int_equal(seen.mmap.pgoff, 0x1000);
	assert_int_equal(seen.mmap.maj, 8);
	assert_int_equal(seen.mmap.min, 3);
	assert_int_equal(seen.mmap.ino, 123456);
	assert_int_equal(seen.mmap.ino_generation, 7);
	assert_int_equal(seen.mmap.prot, 5);
	assert_int_equal(seen.mmap.flags, 2);
	assert_string_equal(seen.file, "/usr/bin/spin");
	assert_int_equal(seen.mmap_id.time, 777);
	assert_int_equal(seen.mmap_id.id, ID);
	assert_int_equal(seen.nr_comm, 1);
	assert_true(seen.comm.exec);
	assert_int_equal(seen.comm.pid, 300);
	assert_string_equal(seen.comm_name, "spin");
	assert_int_equal(seen.nr_fork, 1);
	assert_int_equal(seen.fork.pid, 301);
	assert_int_equal(seen.fork.ppid, 300);
	assert_int_equal(seen.fork.tid, 302);
	assert_int_equal(seen.fork.ptid, 300);
	assert_int_equal(seen.fork.time, 999);
	assert_int_equal(seen.nr_exit, 1);
	assert_int_equal(seen.exit.pid, 301);
	assert_int_equal(seen.exit_cpu, 0);

	/* The rest on the tick. */
	w_publish(&w1);
	assert_int_equal(sampler_tick(&s), 4);
	assert_int_equal(sampler_health(&s, 1, SAMPLER_TOTAL, &h), 0);
	assert_int_equal(h.records, 4);
	assert_int_equal(h.samples, 1);
	assert_int_equal(h.throttles, 1);
	assert_int_equal(h.unthrottles, 1);
	assert_false(h.throttled);
	assert_int_equal(h.decode_errors, 1);
	assert_int_equal(h.corrupt, 0);
	assert_int_equal(seen.nr_comm, 1);
	/* The interval the tick closed: throttled at some time in it. */
	assert_int_equal(sampler_health(&s, 1, SAMPLER_INTERVAL, &h), 0);
	assert_int_equal(h.samples, 1);
	assert_true(h.throttled);
	/* All rings. */
	assert_int_equal(sampler_health(&s, -1, SAMPLER_TOTAL, &h), 0);
	assert_int_equal(h.records, 17);
	assert_int_equal(h.samples, 5);
	assert_int_equal(h.lost_samples, 20);
	assert_int_equal(h.lost_samples_hw, 5);
	assert_int_equal(h.throttles, 2);
	assert_int_equal(h.unthrottles, 1);
	assert_true(h.throttled); /* CPU 0 still is */
	assert_int_equal(h.decode_errors, 1);
	assert_int_equal(h.skipped, 1);
	assert_int_equal(sampler_health(&s, 2, SAMPLER_TOTAL, &h), -EINVAL);

	/* The samples are in the hotspots: (300, 0x401000) over both CPUs. */
	assert_int_equal(hotspots_top(&hot, HOTSPOTS_INTERVAL, &f, rows, 8, &tot), 2);
	assert_int_equal(tot.weight, 8000);
	assert_int_equal(rows[0].pid, 300);
	assert_int_equal(rows[0].ip, 0x401000);
	assert_int_equal(rows[0].weight, 5000);
	assert_int_equal(rows[0].samples, 4);
	assert_false(rows[0].kernel);
	assert_int_equal(rows[1].pid, 0);
	assert_true(rows[1].kernel);
	assert_int_equal(rows[1].weight, 3000);
	f.cpu = 1;
	assert_int_equal(hotspots_top(&hot, HOTSPOTS_INTERVAL, &f, rows, 8, &tot), 1);
	assert_int_equal(rows[0].weight, 2000);
	hotspots_interval_reset(&hot);

	/* A quiet interval: nothing new, CPU 0 still throttled. */
	assert_int_equal(sampler_tick(&s), 0);
	assert_int_equal(sampler_health(&s, -1, SAMPLER_INTERVAL, &h), 0);
	assert_int_equal(h.records, 0);
	assert_int_equal(h.lost_samples, 0);
	assert_true(h.throttled);
	assert_int_equal(sampler_health(&s, 1, SAMPLER_INTERVAL, &h), 0);
	assert_false(h.throttled);

	/* One data page: fill it to 8 bytes short of the end, drain, then a
	 * sample wraps the end; then a header of size 0 is corruption. */
	for (int i = 0; i < 3; i++)
		w_sample(&w1, PERF_RECORD_MISC_USER, 400, 400, 0x500000, 1, 1);
	uint16_t fill = (uint16_t)(w1.size - (w1.head & (w1.size - 1)) - 8);

	w_header(&w1, 0x4243, 0, fill);
	w_put(&w1, (char[4096]){0}, fill - 8u);
	w_publish(&w1);
	assert_int_equal(sampler_drain(&s, -1), 4);
	assert_int_equal(s.rings[1].ring.stats.corrupt, 0);
	w_sample(&w1, PERF_RECORD_MISC_USER, 400, 400, 0x500008, 1, 1);
	w_publish(&w1);
	assert_int_equal(sampler_drain(&s, s.rings[1].fd), 1);
	assert_int_equal(s.rings[1].ring.stats.wraps_copied, 1);
	w_header(&w1, PERF_RECORD_SAMPLE, 0, 0);
	w_u64(&w1, 0);
	w_publish(&w1);
	assert_int_equal(sampler_tick(&s), 0);
	assert_int_equal(sampler_health(&s, 1, SAMPLER_INTERVAL, &h), 0);
	assert_int_equal(h.samples, 4);
	assert_int_equal(h.corrupt, 1);
	assert_int_equal(h.dropped_bytes, 16);
	assert_int_equal(sampler_health(&s, -1, SAMPLER_TOTAL, &h), 0);
	assert_int_equal(h.corrupt, 1);
	assert_int_equal(hotspots_top(&hot, HOTSPOTS_INTERVAL, NULL, rows, 8, &tot), 2);
	assert_int_equal(tot.samples, 4);

	/* Not a ring's fd. */
	assert_int_equal(sampler_drain(&s, 12345), -EBADF);
	sampler_close(&s);
	assert_all_released();
	hotspots_fini(&hot);
}

/* ---- side band in time order across rings ---- */

struct sb_log {
	char text[256];
};

static void log_add(const struct record *r, void *arg, const char *what)
{
	struct sb_log *l = arg;
	size_t n = strlen(l->text);

	snprintf(l->text + n, sizeof(l->text) - n, "%s%s@%llu", n ? " " : "", what,
	         (unsigned long long)r->id.time);
}

static void log_mmap(const struct record *r, void *arg)
{
	log_add(r, arg, r->mmap.filename);
}

static void log_comm(const struct record *r, void *arg)
{
	log_add(r, arg, r->comm.exec ? "exec" : r->comm.comm);
}

static void log_fork(const struct record *r, void *arg)
{
	log_add(r, arg, "fork");
}

static void log_exit(const struct record *r, void *arg)
{
	log_add(r, arg, "exit");
}

/*
 * A task forks on CPU 0, execs there, maps its libraries after moving to
 * CPU 1 and exits on CPU 0: each ring is in order, the two are not. Whatever
 * ring wakes, the callbacks see the records in time order (exec before the
 * mappings it makes way for), with their strings intact after the ring
 * space is reused.
 */
static void test_sideband_time_order(void **state)
{
	struct sampler_config c = base_config();
	struct sb_log log = {{0}};
	struct writer w0, w1;
	struct sampler s;

	c.sb = (struct sampler_sideband){
	    .mmap = log_mmap, .comm = log_comm, .fork = log_fork, .exit = log_exit, .arg = &log};
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(sampler_enable(&s), 0);
	w_attach(&w0, s.rings[0].fd);
	w_attach(&w1, s.rings[1].fd);
	w_time = 100;
	w_task(&w0, PERF_RECORD_FORK, 301, 300, 301, 300, 0);
	w_time = 110;
	w_comm(&w0, PERF_RECORD_MISC_COMM_EXEC, 301, 301, "spin", 0);
	w_time = 400;
	w_task(&w0, PERF_RECORD_EXIT, 301, 300, 301, 300, 0);
	w_publish(&w0);
	w_time = 120;
	w_mmap2(&w1, 301, 301, 0x400000, 0x1000, 0, "/bin/spin", 1);
	w_time = 130;
	w_mmap2(&w1, 301, 301, 0x7f0000000000ull, 0x1000, 0, "/lib/ld.so", 1);
	w_time = 110; /* the same time as the exec: after it, as read */
	w_comm(&w1, 0, 301, 301, "renamed", 1);
	w_time = 777;
	w_publish(&w1);

	/* CPU 1 wakes first: CPU 0's ring is read too, and all goes in order. */
	assert_int_equal(sampler_drain(&s, s.rings[1].fd), 6);
	assert_string_equal(log.text, "fork@100 exec@110 renamed@110 /bin/spin@120 "
	                              "/lib/ld.so@130 exit@400");

	/* Nothing is handed over twice; the last tick hands over the rest. */
	log.text[0] = '\0';
	assert_int_equal(sampler_tick_final(&s), 0);
	assert_string_equal(log.text, "");
	sampler_close(&s);
	assert_all_released();
}

/* What the kernel's read() of a sampling event returns: {value, id, lost}. */
static void queue_lost(int fd, uint64_t lost)
{
	const uint64_t v[3] = {123456, fake_sys_event(fd)->id, lost};

	fake_sys_queue_read(fd, v, sizeof(v));
}

static uint64_t ring_lost(const struct sampler *s, int ring, enum sampler_span span)
{
	struct sampler_health h;

	assert_int_equal(sampler_health(s, ring, span, &h), 0);
	return h.lost_samples;
}

/* A task left CPU 0's full ring: no LOST record ever comes, read() tells. */
static void test_lost_read_only(void **state)
{
	struct sampler_config c = base_config();
	struct sampler_health h;
	struct sampler s;
	int fd0;

	c.mmap_pages = 1;
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_true(s.read_lost);
	fd0 = s.rings[0].fd;

	/* Read at one tick, counted at the next (a LOST record may be due). */
	queue_lost(fd0, 500);
	assert_int_equal(sampler_tick(&s), 0);
	assert_int_equal(fake_sys_event(fd0)->last_read_len, 3 * sizeof(uint64_t));
	assert_int_equal(s.streams[0].lost, 500);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_INTERVAL), 0);
	assert_int_equal(sampler_tick(&s), 0);
	assert_int_equal(sampler_health(&s, 0, SAMPLER_INTERVAL, &h), 0);
	assert_int_equal(h.lost_samples, 500);
	assert_int_equal(h.lost_records, 0);
	assert_int_equal(h.records, 0);
	assert_int_equal(ring_lost(&s, 1, SAMPLER_TOTAL), 0);
	assert_int_equal(ring_lost(&s, -1, SAMPLER_TOTAL), 500);

	/* More drops: the interval has the difference. */
	queue_lost(fd0, 700);
	sampler_tick(&s);
	sampler_tick(&s);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_INTERVAL), 200);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_TOTAL), 700);

	/* A failed read (nothing queued: EAGAIN, or an error), one of another
	 * event or a short one keeps the last count. */
	fake_sys_queue_read_error(fd0, EIO);
	sampler_tick(&s);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_INTERVAL), 0);
	{
		const uint64_t other[3] = {1, 999999, 5000}, shrt[2] = {1, 2};

		fake_sys_queue_read(fd0, other, sizeof(other));
		fake_sys_queue_read(fd0, shrt, sizeof(shrt));
	}
	sampler_tick(&s);
	sampler_tick(&s);
	sampler_tick(&s);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_TOTAL), 700);
	assert_int_equal(ring_lost(&s, -1, SAMPLER_TOTAL), 700);

	/* The last tick has no next one: what it reads counts at once. */
	queue_lost(fd0, 750);
	sampler_tick_final(&s);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_INTERVAL), 50);
	assert_int_equal(ring_lost(&s, -1, SAMPLER_TOTAL), 750);
	sampler_close(&s);
	assert_all_released();
}

/* LOST records and read() report the same drops: counted once. */
static void test_lost_not_counted_twice(void **state)
{
	const struct sampler_target tasks[] = {{1234, -1}, {5678, -1}};
	struct sampler_config c = base_config();
	struct sampler_health h;
	struct writer w0;
	struct sampler s;

	/* Two tasks on two CPUs: streams 0 and 2 share CPU 0's ring. */
	c.targets = tasks;
	c.nr_targets = 2;
	c.inherit = true;
	c.cpus = two_cpus;
	c.nr_cpus = 2;
	c.mmap_pages = 1;
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(s.nr_rings, 2);
	assert_int_equal(s.streams[0].ring, 0);
	assert_int_equal(s.streams[2].ring, 0);
	w_attach(&w0, s.rings[0].fd);

	/* The kernel drops 20 and 5 records of the two, writes one LOST
	 * record of 25, and read() says 20 and 5. */
	w_lost(&w0, 25, 0);
	w_sample(&w0, PERF_RECORD_MISC_USER, 1234, 1234, 0x401000, 0, 1);
	w_publish(&w0);
	queue_lost(s.streams[0].fd, 20);
	queue_lost(s.streams[2].fd, 5);
	assert_int_equal(sampler_tick(&s), 2);
	assert_int_equal(sampler_health(&s, 0, SAMPLER_INTERVAL, &h), 0);
	assert_int_equal(h.lost_records, 1);
	assert_int_equal(h.lost_samples, 25);
	assert_int_equal(h.samples, 1);
	sampler_tick(&s);
	assert_int_equal(s.rings[0].lost_in_records, 25);
	assert_int_equal(s.rings[0].lost_read, 25);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_INTERVAL), 0);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_TOTAL), 25);

	/* 10 more dropped: read() sees them first, their LOST record comes
	 * by the next tick, and both land in that interval, once. */
	queue_lost(s.streams[0].fd, 30);
	queue_lost(s.streams[2].fd, 5);
	sampler_tick(&s);
	assert_int_equal(sampler_health(&s, 0, SAMPLER_INTERVAL, &h), 0);
	assert_int_equal(h.lost_records, 0);
	assert_int_equal(h.lost_samples, 0);
	w_lost(&w0, 10, 0);
	w_publish(&w0);
	sampler_tick(&s);
	assert_int_equal(sampler_health(&s, 0, SAMPLER_INTERVAL, &h), 0);
	assert_int_equal(h.lost_records, 1);
	assert_int_equal(h.lost_samples, 10);

	/* A LOST record ahead of read(): the records' sum, then nothing new. */
	w_lost(&w0, 4, 0);
	w_publish(&w0);
	sampler_tick(&s);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_INTERVAL), 4);
	queue_lost(s.streams[0].fd, 34);
	sampler_tick(&s);
	sampler_tick_final(&s);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_INTERVAL), 0);

	assert_int_equal(sampler_health(&s, -1, SAMPLER_TOTAL, &h), 0);
	assert_int_equal(h.lost_records, 3);
	assert_int_equal(h.lost_samples, 39);
	assert_int_equal(ring_lost(&s, 1, SAMPLER_TOTAL), 0);
	sampler_close(&s);
	assert_all_released();
}

static int nr_lost_refused;

/* A kernel before 6.0: read_format bits it does not know are EINVAL. */
static int refuse_format_lost(const struct perf_event_attr *a, pid_t pid, int cpu, int group_fd)
{
	if (a->read_format & PERF_FORMAT_LOST) {
		nr_lost_refused++;
		return EINVAL;
	}
	return 0;
}

/* EINVAL for the event itself, whatever the read_format. */
static int refuse_hardware_einval(const struct perf_event_attr *a, pid_t pid, int cpu,
				  int group_fd)
{
	return a->type == PERF_TYPE_HARDWARE ? EINVAL : 0;
}

static void test_lost_format_refused(void **state)
{
	struct sampler_config c = base_config();
	struct writer w0;
	struct sampler s;

	nr_lost_refused = 0;
	fake_sys_set_open_rule(refuse_format_lost);
	c.mmap_pages = 1;
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	/* Refused once, then remembered: every event opened without it. */
	assert_int_equal(nr_lost_refused, 1);
	assert_false(s.read_lost);
	assert_string_equal(s.event, "cycles");
	assert_false(s.fallback);
	assert_int_equal(s.nr_open, 2);
	assert_int_equal(s.attr.read_format, 0);
	for (int i = 0; i < fake_sys_nr_opened(); i++)
		assert_int_equal(fake_sys_event_at(i)->attr.read_format, 0);

	/* No reads then (their layout would differ); LOST records still count. */
	w_attach(&w0, s.rings[0].fd);
	w_lost(&w0, 7, 0);
	w_publish(&w0);
	assert_int_equal(sampler_tick(&s), 1);
	assert_int_equal(fake_sys_event(s.rings[0].fd)->last_read_len, 0);
	assert_int_equal(fake_sys_event(s.rings[1].fd)->last_read_len, 0);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_TOTAL), 7);
	assert_int_equal(ring_lost(&s, 0, SAMPLER_INTERVAL), 7);
	sampler_close(&s);
	assert_all_released();

	/* EINVAL that is not about the format: cycles is refused either way,
	 * so nothing is concluded; cpu-clock opens with the lost count. */
	fake_sys_reset();
	fake_sys_set_open_rule(refuse_hardware_einval);
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_true(s.fallback);
	assert_string_equal(s.event, "cpu-clock");
	assert_true(s.read_lost);
	assert_int_equal(s.attr.read_format, PERF_FORMAT_ID | PERF_FORMAT_LOST);
	sampler_close(&s);
	assert_all_released();
}

static void test_max_rate_lowered(void **state)
{
	struct sampler_config c = base_config();
	struct sampler s;
	char note[512];

	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(s.max_rate_start, 100000);
	sampler_tick(&s);
	assert_false(s.max_rate_lowered);
	assert_string_equal(sampler_rate_note(&s, note, sizeof(note)), "");

	write_rate(50000);
	sampler_tick(&s);
	assert_true(s.max_rate_lowered);
	assert_int_equal(s.max_rate_now, 50000);
	sampler_rate_note(&s, note, sizeof(note));
	assert_non_null(strstr(note, "from 100000 to 50000"));

	/* Raised back: still said (it happened), with the value now. */
	write_rate(100000);
	sampler_tick(&s);
	assert_true(s.max_rate_lowered);
	assert_int_equal(s.max_rate_now, 100000);

	/* Unreadable: the last value stays. */
	unlink(rate_path);
	sampler_tick(&s);
	assert_int_equal(s.max_rate_now, 100000);
	sampler_close(&s);
	assert_all_released();
	write_rate(100000);

	/* Unknown at the start: never flagged. */
	fake_sys_reset();
	c.max_rate_path = "/nonexistent/perf_event_max_sample_rate";
	assert_int_equal(sampler_open(&s, &c, NULL, 0), 0);
	assert_int_equal(s.max_rate_start, -1);
	sampler_tick(&s);
	assert_false(s.max_rate_lowered);
	sampler_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_system_wide_attrs_and_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cycles_when_it_opens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explicit_event_period_user_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explicit_event_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_opens, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_targets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_config, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fd_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freq_clamped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mlock_degrade, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drain_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sideband_time_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_not_counted_twice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_format_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_max_rate_lowered, setup, teardown),
	};

	page = (size_t)sysconf(_SC_PAGESIZE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
