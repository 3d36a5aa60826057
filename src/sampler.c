/* sampler: sampling events per CPU or task, their rings, and the drain into hotspots. */
#include "sampler.h"

#include "explain.h"
#include "probe.h"
#include "sys.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define SAMPLER_MLOCK_PATH  "/proc/sys/kernel/perf_event_mlock_kb"
#define SAMPLER_ONLINE_PATH "/sys/devices/system/cpu/online"
#define SAMPLER_MAX_CPUS    4096

/*
 * What the sampling events' read() returns: {value, id, lost}. The lost
 * count (Linux 6.0) is the one way to learn of drops in a ring that gets
 * no more records, and so no PERF_RECORD_LOST.
 */
#define SAMPLER_READ_FORMAT (PERF_FORMAT_ID | PERF_FORMAT_LOST)

static void sb_dispatch(const struct record *rec, void *arg);

static const struct perf_event_attr sampler_cycles = {
    .type = PERF_TYPE_HARDWARE,
    .config = PERF_COUNT_HW_CPU_CYCLES,
};

static const struct perf_event_attr sampler_cpu_clock = {
    .type = PERF_TYPE_SOFTWARE,
    .config = PERF_COUNT_SW_CPU_CLOCK,
};

/* What sampler_open() works with beyond the config. */
struct sampler_plan {
	const struct sampler_config *cfg;
	uint64_t freq, period;
	size_t page;
	char *err;
	size_t errlen;
};

static void sampler_note(struct sampler *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sampler_note(struct sampler *s, const char *fmt, ...)
{
	va_list ap;

	if (s->nr_notes >= SAMPLER_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(s->notes[s->nr_notes++], SAMPLER_NOTE_LEN, fmt, ap);
	va_end(ap);
}

static void sampler_err(const struct sampler_plan *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sampler_err(const struct sampler_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->err || !p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
}

static long sampler_read_long(const char *path)
{
	long long v;

	if (util_read_int(path, &v) || v < 0 || v > (long long)0x7fffffff)
		return -1;
	return (long)v;
}

static bool is_pow2(unsigned v)
{
	return v && !(v & (v - 1));
}

/* The attr for one stream: the event's identity, then everything sampling needs. */
static void sampler_attr(struct perf_event_attr *a, const struct perf_event_attr *ev,
                         const struct sampler_plan *p, bool inherit, unsigned pages, bool read_lost)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel || p->cfg->user_only;
	a->exclude_hv = ev->exclude_hv;
	a->exclude_idle = ev->exclude_idle;
	a->exclude_host = ev->exclude_host;
	a->exclude_guest = ev->exclude_guest;
	a->sample_type = sampler_sample_type(p->period, p->cfg->stacks != NULL);
	if (p->cfg->dwarf.stack_bytes) {
		a->sample_type |= SAMPLER_DWARF_TYPE;
		a->sample_regs_user = p->cfg->dwarf.regs_mask;
		a->sample_stack_user = p->cfg->dwarf.stack_bytes;
		a->exclude_callchain_user = 1;
	}
	a->read_format = read_lost ? SAMPLER_READ_FORMAT : 0;
	if (p->period) {
		a->sample_period = p->period;
	} else {
		a->freq = 1;
		a->sample_freq = p->freq;
	}
	a->sample_id_all = 1;
	a->mmap = 1; /* the kernel reports executable mappings only when mmap is set */
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->disabled = 1;
	a->inherit = inherit;
	a->enable_on_exec = p->cfg->enable_on_exec;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)((size_t)pages * p->page / 4);
}

static int sampler_open_fd(struct sampler *s, const struct sampler_stream *st,
                           const struct perf_event_attr *ev, const struct sampler_plan *p,
                           unsigned pages, struct perf_event_attr *used)
{
	struct perf_event_attr a;
	int fd;

	sampler_attr(&a, ev, p, st->pid != -1 && p->cfg->inherit, pages, s->read_lost);
	fd = sys->perf_event_open(&a, st->pid, st->cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && s->read_lost) {
		/*
		 * Kernels before 6.0 refuse read_format bits they do not know.
		 * Only if the event opens without them is that the reason:
		 * then every later open leaves them out too.
		 */
		a.read_format = 0;
		fd = sys->perf_event_open(&a, st->pid, st->cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd >= 0)
			s->read_lost = false;
	}
	if (fd < 0)
		return errno ? -errno : -EINVAL;
	if (used)
		*used = a;
	return fd;
}

/* An existing per-CPU ring on cpu, or NULL. */
static struct sampler_ring *ring_on_cpu(struct sampler *s, int cpu)
{
	if (cpu < 0)
		return NULL;
	for (int i = 0; i < s->nr_rings; i++)
		if (s->rings[i].cpu == cpu)
			return &s->rings[i];
	return NULL;
}

enum stage { STAGE_OPEN, STAGE_MAP };

/*
 * Open stream i with event ev and give it a ring: the one already on its
 * CPU (SET_OUTPUT) or its own, mapped at s->pages data pages, halving them
 * while the kernel refuses the mapping (EPERM: perf_event_mlock_kb; ENOMEM).
 * Returns 0, or a negative errno and the stage that failed.
 */
static int sampler_setup_stream(struct sampler *s, int i, const struct perf_event_attr *ev,
                                const struct sampler_plan *p, enum stage *stage)
{
	struct sampler_stream *st = &s->streams[i];
	struct perf_event_attr used;
	struct sampler_ring *r;
	int fd, err;

	for (;;) {
		*stage = STAGE_OPEN;
		fd = sampler_open_fd(s, st, ev, p, s->pages, &used);
		if (fd < 0)
			return fd;
		if (sys->ioctl(fd, PERF_EVENT_IOC_ID, (unsigned long)&st->id))
			st->id = 0;
		r = ring_on_cpu(s, st->cpu);
		if (r && !sys->ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, (unsigned long)r->fd)) {
			st->ring = (int)(r - s->rings);
			break;
		}
		*stage = STAGE_MAP;
		r = &s->rings[s->nr_rings];
		memset(r, 0, sizeof(*r));
		err = ring_map(&r->ring, fd, s->pages);
		if (!err) {
			r->fd = fd;
			r->cpu = st->cpu;
			r->pid = st->pid;
			r->pages = s->pages;
			st->ring = s->nr_rings++;
			break;
		}
		sys->close(fd);
		if ((err != -EPERM && err != -ENOMEM) || s->pages <= 1)
			return err;
		s->pages /= 2;
	}
	st->fd = fd;
	st->err = 0;
	if (!s->attr.size)
		s->attr = used;
	return 0;
}

static void sampler_explain(const struct sampler *s, const struct sampler_plan *p, int err,
                            const char *name, const struct perf_event_attr *ev,
                            const struct sampler_stream *st, char *buf, size_t len)
{
	struct perf_event_attr a;
	struct explain_ctx ctx = {
	    .probe = p->cfg->probe,
	    .event = name,
	    .attr = &a,
	    .pid = st->pid,
	    .cpu = st->cpu,
	};

	sampler_attr(&a, ev, p, st->pid != -1 && p->cfg->inherit, s->pages, s->read_lost);
	explain_open_error(err, &ctx, buf, len);
}

static void sampler_map_error(const struct sampler *s, const struct sampler_plan *p, int err)
{
	long mlock_kb = p->cfg->probe && p->cfg->probe->mlock_kb > 0
	                    ? p->cfg->probe->mlock_kb
	                    : sampler_read_long(SAMPLER_MLOCK_PATH);
	char kb[32] = "?";

	if (mlock_kb >= 0)
		snprintf(kb, sizeof(kb), "%ld", mlock_kb);
	if (err == -EPERM || err == -ENOMEM)
		sampler_err(
		    p,
		    "The kernel refused to map even a one-page sampling ring (%s): the "
		    "locked memory perf grants an unprivileged user (kernel.perf_event_mlock_kb "
		    "= %s KiB per CPU, then RLIMIT_MEMLOCK) is used up; raise that sysctl or "
		    "ulimit -l, or run as root or with CAP_IPC_LOCK",
		    strerror(-err), kb);
	else
		sampler_err(p, "Mapping the sampling ring failed: %s", strerror(-err));
}

static bool fatal_open_error(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOMEM;
}

/* Lay out the streams: task targets with inherit become one per CPU. */
static int sampler_plan_streams(struct sampler *s, const struct sampler_plan *p)
{
	const struct sampler_config *cfg = p->cfg;
	const int *cpus = cfg->cpus;
	int nr_cpus = cfg->nr_cpus, *online = NULL, n = 0, err = 0;
	bool expand = false;

	for (int i = 0; i < cfg->nr_targets; i++) {
		if (cfg->targets[i].pid == -1 && cfg->targets[i].cpu < 0) {
			sampler_err(p, "Sampling all tasks needs one target per CPU: the kernel "
			               "refuses pid -1 with cpu -1");
			return -EINVAL;
		}
		expand |= cfg->inherit && cfg->targets[i].pid != -1 && cfg->targets[i].cpu < 0;
	}
	if (expand && nr_cpus <= 0) {
		char list[1024];
		const char *text = list;

		if (cfg->probe && cfg->probe->cpus_online[0])
			text = cfg->probe->cpus_online;
		else if (util_read_file(SAMPLER_ONLINE_PATH, list, sizeof(list)))
			list[0] = '\0';
		online = malloc(SAMPLER_MAX_CPUS * sizeof(*online));
		if (!online)
			return -ENOMEM;
		nr_cpus = util_cpulist_parse(text, online, SAMPLER_MAX_CPUS);
		cpus = online;
		if (nr_cpus <= 0) {
			sampler_err(p,
			            "Following children of a task needs one ring per CPU, and "
			            "the online CPUs could not be read from " SAMPLER_ONLINE_PATH);
			err = -EINVAL;
			goto out;
		}
	}
	for (int i = 0; i < cfg->nr_targets; i++) {
		const struct sampler_target *t = &cfg->targets[i];

		n += cfg->inherit && t->pid != -1 && t->cpu < 0 ? nr_cpus : 1;
	}
	s->streams = calloc((size_t)n, sizeof(*s->streams));
	s->rings = calloc((size_t)n, sizeof(*s->rings));
	if (!s->streams || !s->rings) {
		err = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < cfg->nr_targets; i++) {
		const struct sampler_target *t = &cfg->targets[i];
		bool per_cpu = cfg->inherit && t->pid != -1 && t->cpu < 0;

		for (int c = 0; c < (per_cpu ? nr_cpus : 1); c++) {
			struct sampler_stream *st = &s->streams[s->nr_streams++];

			st->pid = t->pid;
			st->cpu = per_cpu ? cpus[c] : t->cpu;
			st->fd = -1;
			st->ring = -1;
		}
	}
out:
	free(online);
	return err;
}

/*
 * Pick the event on the first stream that can tell: the caller's, else
 * cycles, else cpu-clock. Streams whose task is gone (ESRCH) are skipped.
 * Returns 0 with *ev set, or a negative errno with err written.
 */
static int sampler_choose(struct sampler *s, const struct sampler_plan *p,
                          const struct perf_event_attr **ev)
{
	const struct sampler_config *cfg = p->cfg;
	const struct perf_event_attr *cand[2];
	const char *names[2];
	int nr_cand, c = 0, first_err = 0, first_i = -1;
	enum stage stage;

	if (cfg->event) {
		cand[0] = cfg->event;
		names[0] =
		    cfg->event_name && cfg->event_name[0] ? cfg->event_name : "the sample event";
		nr_cand = 1;
	} else {
		cand[0] = &sampler_cycles;
		names[0] = "cycles";
		cand[1] = &sampler_cpu_clock;
		names[1] = "cpu-clock";
		nr_cand = 2;
	}
	for (int i = 0; i < s->nr_streams;) {
		struct sampler_stream *st = &s->streams[i];
		int err = sampler_setup_stream(s, i, cand[c], p, &stage);

		if (!err) {
			*ev = cand[c];
			util_strlcpy(s->event, names[c], sizeof(s->event));
			return 0;
		}
		if (stage == STAGE_MAP) {
			sampler_map_error(s, p, err);
			return err;
		}
		if (fatal_open_error(err)) {
			sampler_explain(s, p, -err, names[c], cand[c], st, p->err, p->errlen);
			return err;
		}
		if (err == -ESRCH) {
			/* The task is gone: no verdict on the event; try the next. */
			st->err = ESRCH;
			if (!first_err) {
				first_err = err;
				first_i = i;
			}
			i++;
			continue;
		}
		if (c + 1 < nr_cand) {
			char why[400];

			sampler_explain(s, p, -err, names[c], cand[c], st, why, sizeof(why));
			snprintf(s->why, sizeof(s->why), "Sampling %s instead of %s: %s",
			         names[c + 1], names[c], why);
			s->fallback = true;
			c++;
			continue; /* same stream, next event */
		}
		sampler_explain(s, p, -err, names[c], cand[c], st, p->err, p->errlen);
		if (s->fallback && p->err && p->errlen) {
			size_t l = strlen(p->err);

			snprintf(p->err + l, p->errlen - l, " (%s)", s->why);
		}
		return err;
	}
	/* Every task was gone. */
	sampler_explain(s, p, ESRCH, names[c], cand[c], &s->streams[first_i < 0 ? 0 : first_i],
	                p->err, p->errlen);
	return first_err ? first_err : -ESRCH;
}

int sampler_open(struct sampler *s, const struct sampler_config *cfg, char *err, size_t errlen)
{
	struct sampler_plan p = {.cfg = cfg, .err = err, .errlen = errlen};
	const struct perf_event_attr *ev = NULL;
	const unsigned want = cfg->mmap_pages ? cfg->mmap_pages : SAMPLER_DEFAULT_PAGES;
	long psz = sysconf(_SC_PAGESIZE);
	int ret, nr_open = 0;
	enum stage stage;

	memset(s, 0, sizeof(*s));
	if (err && errlen)
		err[0] = '\0';
	p.page = psz > 0 ? (size_t)psz : 4096;
	if (!cfg->targets || cfg->nr_targets <= 0) {
		sampler_err(&p, "Nothing to sample: no CPU or task was given");
		return -EINVAL;
	}
	if (!is_pow2(want) || (size_t)want * p.page / 4 > 0xffffffffu) {
		sampler_err(&p,
		            "--mmap-pages %u is not a power of two of a sensible size; use 1, 2, "
		            "4, ... (default %d)",
		            want, SAMPLER_DEFAULT_PAGES);
		return -EINVAL;
	}
	s->pages = want;
	s->hot = cfg->hot;
	s->stacks = cfg->stacks;
	s->sb = cfg->sb;
	sbqueue_init(&s->sbq, sb_dispatch, s);
	s->enable_on_exec = cfg->enable_on_exec;
	s->read_lost = true;
	util_strlcpy(s->max_rate_path,
	             cfg->max_rate_path ? cfg->max_rate_path : SAMPLER_MAX_RATE_PATH,
	             sizeof(s->max_rate_path));
	s->max_rate_start = sampler_read_long(s->max_rate_path);
	s->max_rate_now = s->max_rate_start;
	p.period = cfg->period;
	s->period = cfg->period;
	records_format_init(&s->fmt,
	                    sampler_sample_type(p.period, cfg->stacks != NULL) |
	                        (cfg->dwarf.stack_bytes ? SAMPLER_DWARF_TYPE : 0),
	                    0, true);
	records_format_set_regs_user(&s->fmt, cfg->dwarf.stack_bytes ? cfg->dwarf.regs_mask : 0);
	s->dwarf = cfg->dwarf;
	if (cfg->dwarf.stack_bytes &&
	    (cfg->dwarf.stack_bytes % 8 || cfg->dwarf.stack_bytes > 65528 || !cfg->dwarf.sample)) {
		sampler_err(&p,
		            "--call-graph dwarf,%u: the stack size must be a multiple of 8 "
		            "up to 65528",
		            cfg->dwarf.stack_bytes);
		return -EINVAL;
	}
	p.freq = cfg->freq ? cfg->freq : SAMPLER_DEFAULT_FREQ;
	if (!p.period && s->max_rate_start > 0 && p.freq > (uint64_t)s->max_rate_start) {
		sampler_note(
		    s,
		    "Sampling at %ld Hz instead of %llu Hz: kernel.perf_event_max_sample_rate "
		    "is %ld, and the kernel refuses more; raise that sysctl to sample faster",
		    s->max_rate_start, (unsigned long long)p.freq, s->max_rate_start);
		p.freq = (uint64_t)s->max_rate_start;
	}

	ret = sampler_plan_streams(s, &p);
	if (ret)
		goto out_close;
	ret = sampler_choose(s, &p, &ev);
	if (ret)
		goto out_close;
	for (int i = 0; i < s->nr_streams; i++) {
		struct sampler_stream *st = &s->streams[i];

		if (st->fd >= 0) {
			nr_open++;
			continue;
		}
		if (st->err) /* skipped while choosing */
			continue;
		ret = sampler_setup_stream(s, i, ev, &p, &stage);
		if (!ret) {
			nr_open++;
			continue;
		}
		if (stage == STAGE_MAP) {
			sampler_map_error(s, &p, ret);
			goto out_close;
		}
		if (fatal_open_error(ret)) {
			sampler_explain(s, &p, -ret, s->event, ev, st, err, errlen);
			goto out_close;
		}
		st->err = -ret;
	}
	if (s->pages < want)
		sampler_note(
		    s,
		    "Sampling rings cut from %u to %u pages: the kernel refused to lock "
		    "more memory (kernel.perf_event_mlock_kb per CPU, then RLIMIT_MEMLOCK); "
		    "expect lost samples at high rates, or raise that sysctl",
		    want, s->pages);
	s->nr_open = nr_open;
	return 0;

out_close:
	sampler_close(s);
	return ret;
}

static int sampler_ioctl_all(struct sampler *s, unsigned long req)
{
	int ret = 0;

	for (int i = 0; i < s->nr_streams; i++) {
		if (s->streams[i].fd < 0)
			continue;
		if (sys->ioctl(s->streams[i].fd, req, 0) && !ret)
			ret = errno ? -errno : -EIO;
	}
	return ret;
}

int sampler_enable(struct sampler *s)
{
	if (s->enable_on_exec)
		return 0;
	return sampler_ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int sampler_disable(struct sampler *s)
{
	return sampler_ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

void sampler_for_each_fd(const struct sampler *s, void (*fn)(int fd, void *arg), void *arg)
{
	for (int i = 0; i < s->nr_rings; i++)
		fn(s->rings[i].fd, arg);
}

struct drain_ctx {
	struct sampler *s;
	struct sampler_ring *r;
};

/* The side-band callbacks, as the queue hands records over in order. */
static void count_sample(const struct sampler *s, const struct record *rec)
{
	if (s->hot)
		hotspots_add(s->hot, rec->id.pid, rec->id.tid, rec->sample.ip, rec->cpumode,
		             (int)rec->id.cpu, s->period ? s->period : rec->sample.period);
	if (s->stacks && rec->sample.nr_ips)
		stacks_add(s->stacks, rec->id.pid, rec->sample.ips, rec->sample.nr_ips);
}

static void sb_dispatch(const struct record *rec, void *arg)
{
	const struct sampler *s = arg;
	void (*fn)(const struct record *, void *) = NULL;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		fn = s->sb.mmap;
		break;
	case PERF_RECORD_COMM:
		fn = s->sb.comm;
		break;
	case PERF_RECORD_FORK:
		fn = s->sb.fork;
		break;
	case PERF_RECORD_EXIT:
		fn = s->sb.exit;
		break;
	case PERF_RECORD_SAMPLE:
		if (rec->deferred && rec->deferred <= (uint32_t)s->nr_rings)
			s->rings[rec->deferred - 1].cur.samples++;
		count_sample(s, rec);
		if (s->dwarf.sample)
			s->dwarf.sample(rec, s->dwarf.arg);
		return;
	}
	if (fn)
		fn(rec, s->sb.arg);
}

/* Both figures count the same drops: the larger one is the ring's loss. */
static void ring_lost_update(struct sampler_ring *r)
{
	r->cur.lost_samples = r->lost_in_records > r->lost_read ? r->lost_in_records : r->lost_read;
}

static void sampler_on_record(const struct perf_event_header *h, void *arg)
{
	struct drain_ctx *c = arg;
	struct sampler *s = c->s;
	struct sampler_health *hl = &c->r->cur;
	struct record rec;
	int ret = records_decode(&s->fmt, h, &rec);

	hl->records++;
	if (ret == RECORDS_SKIP) {
		hl->skipped++;
		return;
	}
	if (ret < 0) {
		hl->decode_errors++;
		return;
	}
	sbqueue_seen(&s->sbq, &rec);
	switch (rec.type) {
	case PERF_RECORD_SAMPLE:
		/* Every sample waits in the queue with the side band, so that it
		 * is counted (and named) between the COMM, MMAP and EXIT records
		 * of every ring before and after it: an exec on one CPU and the
		 * samples of the old program on another. It joins the table and
		 * the ring's health when it leaves the queue. */
		rec.deferred = (uint32_t)(c->r - s->rings) + 1;
		sbqueue_push_sample(&s->sbq, &rec, h);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		hl->sideband++;
		sbqueue_push(&s->sbq, &rec);
		break;
	case PERF_RECORD_LOST:
		hl->lost_records++;
		c->r->lost_in_records += rec.lost.lost;
		ring_lost_update(c->r);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		hl->lost_samples_hw += rec.lost_samples.lost;
		break;
	case PERF_RECORD_THROTTLE:
		hl->throttles++;
		hl->throttled = true;
		break;
	case PERF_RECORD_UNTHROTTLE:
		hl->unthrottles++;
		hl->throttled = false;
		break;
	default:
		hl->skipped++;
		break;
	}
}

static int sampler_drain_ring(struct sampler *s, struct sampler_ring *r)
{
	struct drain_ctx c = {.s = s, .r = r};
	int n = ring_drain(&r->ring, sampler_on_record, &c);

	r->cur.corrupt = r->ring.stats.corrupt;
	r->cur.dropped_bytes = r->ring.stats.dropped;
	return n;
}

static bool sampler_has_fd(const struct sampler *s, int fd)
{
	for (int i = 0; i < s->nr_rings; i++)
		if (s->rings[i].fd == fd)
			return true;
	/* An event that writes into another's ring. */
	for (int i = 0; i < s->nr_streams; i++)
		if (s->streams[i].fd == fd && s->streams[i].ring >= 0)
			return true;
	return false;
}

static int sampler_drain_all(void *ctx)
{
	struct sampler *s = ctx;
	int total = 0;

	for (int i = 0; i < s->nr_rings; i++) {
		int n = sampler_drain_ring(s, &s->rings[i]);

		if (n > 0)
			total += n;
	}
	return total;
}

/* Any wake-up drains every ring: side-band records go out in time order
 * across them (struct sbqueue). */
int sampler_drain(struct sampler *s, int fd)
{
	if (fd >= 0 && !sampler_has_fd(s, fd))
		return -EBADF;
	return sbqueue_round(&s->sbq, sampler_drain_all, s);
}

static void health_sub(struct sampler_health *d, const struct sampler_health *a,
                       const struct sampler_health *b)
{
	d->records = a->records - b->records;
	d->samples = a->samples - b->samples;
	d->sideband = a->sideband - b->sideband;
	d->lost_records = a->lost_records - b->lost_records;
	d->lost_samples = a->lost_samples - b->lost_samples;
	d->lost_samples_hw = a->lost_samples_hw - b->lost_samples_hw;
	d->throttles = a->throttles - b->throttles;
	d->unthrottles = a->unthrottles - b->unthrottles;
	d->corrupt = a->corrupt - b->corrupt;
	d->dropped_bytes = a->dropped_bytes - b->dropped_bytes;
	d->decode_errors = a->decode_errors - b->decode_errors;
	d->skipped = a->skipped - b->skipped;
	d->throttled = a->throttled || d->throttles > 0;
}

static void health_add(struct sampler_health *d, const struct sampler_health *a)
{
	d->records += a->records;
	d->samples += a->samples;
	d->sideband += a->sideband;
	d->lost_records += a->lost_records;
	d->lost_samples += a->lost_samples;
	d->lost_samples_hw += a->lost_samples_hw;
	d->throttles += a->throttles;
	d->unthrottles += a->unthrottles;
	d->corrupt += a->corrupt;
	d->dropped_bytes += a->dropped_bytes;
	d->decode_errors += a->decode_errors;
	d->skipped += a->skipped;
	d->throttled = d->throttled || a->throttled;
}

/*
 * Take in the per-ring lost counts read at the last tick, then read each
 * event's ({value, id, lost}) and total them per ring for the next one (for
 * this one too when now). A failed or short read keeps the last count: the
 * kernel's only grows.
 */
static void sampler_read_lost(struct sampler *s, bool now)
{
	if (!s->read_lost)
		return;
	for (int i = 0; i < s->nr_rings; i++) {
		s->rings[i].lost_read = s->rings[i].lost_read_next;
		s->rings[i].lost_read_next = 0;
	}
	for (int i = 0; i < s->nr_streams; i++) {
		struct sampler_stream *st = &s->streams[i];
		uint64_t v[3];

		if (st->fd < 0 || st->ring < 0)
			continue;
		if (sys->read(st->fd, v, sizeof(v)) == (ssize_t)sizeof(v) &&
		    (!st->id || v[1] == st->id) && v[2] > st->lost)
			st->lost = v[2];
		s->rings[st->ring].lost_read_next += st->lost;
	}
	for (int i = 0; i < s->nr_rings; i++) {
		if (now)
			s->rings[i].lost_read = s->rings[i].lost_read_next;
		ring_lost_update(&s->rings[i]);
	}
}

static int sampler_tick_as(struct sampler *s, bool final)
{
	int n = sampler_drain(s, -1);
	long rate = sampler_read_long(s->max_rate_path);

	/* after the drain: LOST records written since the last tick are in */
	sampler_read_lost(s, final);
	if (final)
		sbqueue_flush(&s->sbq, UINT64_MAX);

	if (rate >= 0) {
		s->max_rate_now = rate;
		if (s->max_rate_start > 0 && rate < s->max_rate_start)
			s->max_rate_lowered = true;
	}
	for (int i = 0; i < s->nr_rings; i++) {
		struct sampler_ring *r = &s->rings[i];

		health_sub(&r->last, &r->cur, &r->mark);
		r->mark = r->cur;
	}
	return n;
}

int sampler_tick(struct sampler *s)
{
	return sampler_tick_as(s, false);
}

int sampler_tick_final(struct sampler *s)
{
	return sampler_tick_as(s, true);
}

int sampler_health(const struct sampler *s, int ring, enum sampler_span span,
                   struct sampler_health *out)
{
	memset(out, 0, sizeof(*out));
	if (ring >= s->nr_rings || ring < -1)
		return -EINVAL;
	for (int i = ring < 0 ? 0 : ring; i < (ring < 0 ? s->nr_rings : ring + 1); i++)
		health_add(out, span == SAMPLER_INTERVAL ? &s->rings[i].last : &s->rings[i].cur);
	return 0;
}

const char *sampler_rate_note(const struct sampler *s, char *buf, size_t len)
{
	if (!buf || !len)
		return buf;
	buf[0] = '\0';
	if (!s->max_rate_lowered)
		return buf;
	snprintf(buf, len,
	         "The kernel lowered kernel.perf_event_max_sample_rate from %ld to %ld during the "
	         "run (sampling interrupts took too long; see dmesg): events asking for more "
	         "samples per second per CPU are throttled; lower -F or raise the sysctl again",
	         s->max_rate_start, s->max_rate_now);
	return buf;
}

void sampler_close(struct sampler *s)
{
	for (int i = 0; i < s->nr_rings; i++)
		ring_unmap(&s->rings[i].ring);
	for (int i = 0; i < s->nr_streams; i++)
		if (s->streams[i].fd >= 0)
			sys->close(s->streams[i].fd);
	free(s->rings);
	free(s->streams);
	sbqueue_free(&s->sbq);
	memset(s, 0, sizeof(*s));
}
