/* sampler: sampling events and their rings, drained into hotspots and side-band callbacks. */
#ifndef PFMTOP_SAMPLER_H
#define PFMTOP_SAMPLER_H

#include "hotspots.h"
#include "records.h"
#include "ring.h"
#include "sbqueue.h"
#include "stacks.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct probe;

#define SAMPLER_DEFAULT_FREQ 4000 /* -F: Hz per CPU */
/*
 * Data pages per ring (--mmap-pages). 128 pages (512 KiB) plus the control
 * page is 516 KiB, exactly the default kernel.perf_event_mlock_kb, which the
 * kernel grants an unprivileged user per online CPU. At 4000 Hz and 56-byte
 * samples a CPU fills it in about 2.3 s; wakeups come every quarter.
 */
#define SAMPLER_DEFAULT_PAGES 128
#define SAMPLER_MAX_NOTES     4
#define SAMPLER_NOTE_LEN      320

/* What every sample carries; 56 bytes a record. */
#define SAMPLER_SAMPLE_TYPE                                                                        \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

/*
 * The sample_type for a fixed period (-c; 0: frequency mode). A fixed
 * period is every sample's weight, so PERF_SAMPLE_PERIOD is left out: with
 * it, the kernel takes a sample at every occurrence of a software event
 * (page-faults, context-switches, ...: perf_swevent_event() reports each
 * one's own period), whatever sample_period says.
 */
static inline uint64_t sampler_sample_type(uint64_t period, bool callchain)
{
	const uint64_t t =
	    period ? SAMPLER_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_PERIOD : SAMPLER_SAMPLE_TYPE;

	return callchain ? t | PERF_SAMPLE_CALLCHAIN : t;
}

/* --call-graph dwarf adds the user registers and stack to each sample; its
 * callchain then holds the kernel part only (exclude_callchain_user). */
#define SAMPLER_DWARF_TYPE (PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

#define SAMPLER_MAX_RATE_PATH "/proc/sys/kernel/perf_event_max_sample_rate"

/* Where to sample: pid -1 with cpu N is CPU N system-wide; pid P with cpu
 * -1 follows task P on every CPU (see sampler_config.inherit). */
struct sampler_target {
	pid_t pid;
	int cpu;
};

/*
 * Side band, so that symbols can follow the tasks' address spaces. Each
 * callback gets the decoded record (r->mmap, r->comm or r->task, plus
 * r->id from the sample_id_all trailer: pid, tid, time, cpu, id); it and
 * the strings it points to live only during the call. NULL callbacks are
 * skipped.
 */
struct sampler_sideband {
	void (*mmap)(const struct record *r, void *arg); /* MMAP and MMAP2 (r->mmap.mmap2) */
	void (*comm)(const struct record *r, void *arg); /* r->comm.exec: exec, not a rename */
	void (*fork)(const struct record *r, void *arg);
	void (*exit)(const struct record *r, void *arg);
	void *arg;
};

struct sampler_config {
	const struct sampler_target *targets;
	int nr_targets;
	/*
	 * Follow children created after the open. The kernel refuses to map
	 * the ring of an inherited event opened on cpu -1, so a task target
	 * with inherit becomes one event per CPU in cpus (all online CPUs when
	 * nr_cpus is 0), and the events of one CPU share one ring
	 * (PERF_EVENT_IOC_SET_OUTPUT). Without inherit a task target is one
	 * event and one ring.
	 */
	bool inherit;
	const int *cpus;
	int nr_cpus;
	bool enable_on_exec; /* start at the target's next exec, not at sampler_enable() */
	bool user_only;      /* exclude_kernel (paranoid 2 without CAP_PERFMON) */
	uint64_t freq;       /* -F HZ; 0 = SAMPLER_DEFAULT_FREQ unless period is set */
	uint64_t period;     /* -c N: a fixed period, wins over freq */
	/*
	 * --sample-event: type, config, config1, config2 and the exclude_*
	 * bits are taken from it (events_resolve() output). NULL: cycles if it
	 * opens, else cpu-clock with the reason in sampler.why.
	 */
	const struct perf_event_attr *event;
	const char *event_name;    /* for messages; "" or NULL = "the sample event" */
	unsigned mmap_pages;       /* data pages per ring, a power of two; 0 = default */
	const struct probe *probe; /* for explanations; may be NULL */
	struct hotspots *hot;      /* gets every sample; may be NULL */
	/* -g: samples carry their call chains (PERF_SAMPLE_CALLCHAIN, as deep as
	 * kernel.perf_event_max_stack), added here; NULL: none. */
	struct stacks *stacks;
	/*
	 * --call-graph dwarf (stack_bytes > 0; stacks is then not used):
	 * samples carry the user registers in regs_mask and stack_bytes of the
	 * user stack (attr.sample_stack_user, a multiple of 8 below 65535),
	 * and a callchain of their kernel part only. Each sample goes to
	 * sample() in time order with the side band (after the MMAPs that came
	 * before it), its record valid during the call only.
	 */
	struct sampler_dwarf {
		uint32_t stack_bytes;
		uint64_t regs_mask;
		void (*sample)(const struct record *r, void *arg);
		void *arg;
	} dwarf;
	struct sampler_sideband sb;
	const char *max_rate_path; /* NULL = SAMPLER_MAX_RATE_PATH (tests point it elsewhere) */
};

/* Health of a ring or of all rings. */
struct sampler_health {
	uint64_t records;      /* records handed over by the ring */
	uint64_t samples;      /* SAMPLE records decoded */
	uint64_t sideband;     /* MMAP, MMAP2, COMM, FORK, EXIT records */
	uint64_t lost_records; /* PERF_RECORD_LOST records: the ring was full */
	/*
	 * Records dropped in a full ring: the larger of the LOST records' sum
	 * and the ring's events' own counts (PERF_FORMAT_LOST, read on every
	 * sampler_tick() and taken in one tick later, see there). The kernel
	 * writes a LOST record only when the ring next takes a record, so a
	 * ring its task left never gets one; the two count the same drops,
	 * hence the larger, never the sum.
	 */
	uint64_t lost_samples;
	uint64_t lost_samples_hw; /* PERF_RECORD_LOST_SAMPLES: dropped before the ring */
	uint64_t throttles;       /* PERF_RECORD_THROTTLE */
	uint64_t unthrottles;     /* PERF_RECORD_UNTHROTTLE */
	bool throttled;           /* total: throttled now; interval: at any time in it */
	uint64_t corrupt;         /* ring resynchronisations (ring_stats.corrupt) */
	uint64_t dropped_bytes;   /* bytes thrown away by them */
	uint64_t decode_errors;   /* records records_decode() refused */
	uint64_t skipped;         /* record types not used (RECORDS_SKIP) */
};

enum sampler_span {
	SAMPLER_TOTAL,    /* since the open */
	SAMPLER_INTERVAL, /* between the last two sampler_tick() calls */
};

/* One opened event (a target, or a target on one CPU). Read-only. */
struct sampler_stream {
	pid_t pid;
	int cpu;
	int fd;  /* -1 when the open failed */
	int err; /* errno of the failed open, else 0 */
	uint64_t id;
	int ring;      /* index of the ring it writes to, -1 when not open */
	uint64_t lost; /* its PERF_FORMAT_LOST count as last read (0 when not readable) */
};

/* One mapped ring. Read-only for callers. */
struct sampler_ring {
	int fd;    /* the event that owns the mapping: poll it */
	int cpu;   /* -1 for a per-task ring */
	pid_t pid; /* the owner's target pid (-1 for a CPU) */
	unsigned pages;
	struct ring ring;
	uint64_t lost_in_records;   /* sum of its PERF_RECORD_LOST counts */
	uint64_t lost_read;         /* sum of its streams' lost counts in lost_samples */
	uint64_t lost_read_next;    /* that sum as read at the last tick: in at the next */
	struct sampler_health cur;  /* since the open */
	struct sampler_health mark; /* cur at the last sampler_tick() */
	struct sampler_health last; /* the interval the last sampler_tick() closed */
};

struct sampler {
	struct perf_event_attr attr; /* as opened (watermark for the requested pages) */
	char event[128];             /* "cycles", "cpu-clock" or the caller's name */
	bool fallback;               /* cpu-clock stands in for cycles */
	char why[512];               /* why, when fallback; else "" */
	int nr_notes;                /* other adjustments, one sentence each */
	char notes[SAMPLER_MAX_NOTES][SAMPLER_NOTE_LEN];
	unsigned pages; /* data pages of the last ring mapped */
	struct records_format fmt;
	uint64_t period; /* -c: every sample's weight (not in the records); 0: frequency mode */
	int nr_streams;
	int nr_open; /* streams that opened */
	struct sampler_stream *streams;
	int nr_rings;
	struct sampler_ring *rings; /* never reallocated: rings do not move */
	struct hotspots *hot;
	struct stacks *stacks;
	struct sampler_dwarf dwarf;
	struct sampler_sideband sb;
	struct sbqueue sbq; /* side band in time order across the rings */
	char max_rate_path[256];
	long max_rate_start;   /* perf_event_max_sample_rate at the open, -1 unknown */
	long max_rate_now;     /* as of the last sampler_tick() */
	bool max_rate_lowered; /* it dropped below max_rate_start at some tick */
	bool enable_on_exec;
	/* The events carry PERF_FORMAT_LOST (Linux 6.0+); false when the kernel
	 * refused it and they were opened without. */
	bool read_lost;
};

/*
 * Open the sampling events (disabled) on every target and map their rings.
 * Event choice: cfg->event, else cycles, else cpu-clock (fallback and why
 * set, why from explain_open_error()). A frequency above
 * perf_event_max_sample_rate is lowered to it (a note says so). A ring the
 * kernel refuses with EPERM (perf_event_mlock_kb) is retried with half the
 * pages, down to one (a note says so). A target that fails to open after
 * the event is chosen is kept with its errno (streams[i].err) when others
 * opened. Returns 0, or a negative errno with one sentence in err: -EINVAL
 * (no targets, mmap_pages not a power of two, a task target with inherit
 * and no CPUs), the open's errno when nothing opened, -EMFILE/-ENFILE,
 * -EPERM/-ENOMEM when not even a one-page ring maps. On error nothing is
 * left open. sampler_close() is safe either way.
 */
int sampler_open(struct sampler *s, const struct sampler_config *cfg, char *err, size_t errlen);

/* Enable every event (a no-op with enable_on_exec). 0 or -errno of the first failure. */
int sampler_enable(struct sampler *s);

/* Disable every event (pause). 0 or -errno of the first failure. */
int sampler_disable(struct sampler *s);

/*
 * Call fn for the fd of each ring, to watch for EPOLLIN (a quarter of the
 * ring filled: wakeup_watermark). A per-task ring's fd reports EPOLLHUP
 * when its task has exited: drain it once more and stop watching it (it
 * stays mapped until sampler_close(); events of other tasks sharing it are
 * then drained on the tick only).
 */
void sampler_for_each_fd(const struct sampler *s, void (*fn)(int fd, void *arg), void *arg);

/*
 * Drain every ring (fd is the ring, or an event writing into one, that
 * woke; -1 when none did): samples go to the hotspots, LOST, LOST_SAMPLES
 * and (UN)THROTTLE into the ring's health, and MMAP/MMAP2/COMM/FORK/EXIT to
 * the side-band callbacks in time order across the rings (see struct
 * sbqueue): those newer than what the other rings were read past
 * wait for the next drain. Returns the records handed over, or -EBADF for
 * an fd that is not a ring's.
 */
int sampler_drain(struct sampler *s, int fd);

/*
 * The refresh tick: drain every ring (a quiet ring still gets read), read
 * every event's lost count (when read_lost), re-read
 * perf_event_max_sample_rate (max_rate_now, max_rate_lowered), and close the
 * health interval. Then render (sampler_health(INTERVAL), hotspots_top())
 * and call hotspots_interval_reset(). Returns the records drained.
 *
 * The lost counts read now count in lost_samples from the next tick on:
 * the LOST record for the same drops is written only at the ring's first
 * record after a drain made room, so it is usually still to come, and
 * waiting an interval keeps it and the drops it reports together.
 */
int sampler_tick(struct sampler *s);

/* The last tick (the final figures): as sampler_tick(), and the lost counts
 * read now count at once, as there is no next interval to wait for; every
 * side-band record still waiting goes out. */
int sampler_tick_final(struct sampler *s);

/*
 * Health of ring i (0 .. nr_rings-1) or of all rings summed (ring -1;
 * throttled if any ring is), over span. 0, or -EINVAL for a bad index.
 */
int sampler_health(const struct sampler *s, int ring, enum sampler_span span,
                   struct sampler_health *out);

/* One sentence about perf_event_max_sample_rate having been lowered during
 * the run; "" when it was not. Returns buf. */
const char *sampler_rate_note(const struct sampler *s, char *buf, size_t len);

/* Unmap every ring and close every fd; s is zeroed (and may be opened again).
 * Safe on a zeroed, failed or closed sampler. */
void sampler_close(struct sampler *s);

#endif
