/* bench_records: records/s through ring_drain + records_decode + a (pid, ip) hotspot table. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "records.h"
#include "ring.h"

#define SAMPLE_TYPE                                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define RING_SIZE (512u * 1024)  /* one data area, as a 128-page mapping would have */
#define START_OFF 40u            /* records tile the ring from here: one wraps per lap */
#define SECONDS 1.5
#define AGG_BITS 15              /* 32768 slots for ~8k distinct (pid, ip) */

/* ---- the synthetic ring ---- */

struct writer {
	unsigned char *data;
	uint64_t pos;
	uint64_t rng;
};

static uint64_t rnd(struct writer *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static void put(struct writer *w, const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		w->data[(w->pos + i) & (RING_SIZE - 1)] = b[i];
	w->pos += len;
}

static void put64(struct writer *w, uint64_t v)
{
	put(w, &v, 8);
}

static void put_header(struct writer *w, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = size};

	put(w, &h, sizeof(h));
}

/* sample_id_all trailer for SAMPLE_TYPE: tid, time, cpu, identifier. */
static void put_trailer(struct writer *w, uint32_t pid, uint64_t time)
{
	put64(w, (uint64_t)(pid + 1) << 32 | pid);
	put64(w, time);
	put64(w, 2);
	put64(w, 4711);
}

static void put_sample(struct writer *w, uint64_t time)
{
	uint64_t r = rnd(w);
	uint32_t pid = 1000 + (uint32_t)(r & 63);
	bool kernel = ((r >> 6) & 15) == 0;
	/* Skewed: a few hot functions per task, a long tail of cold ones. */
	uint64_t slot = (r >> 17) & 1 ? (r >> 10) & 7 : (r >> 10) & 127;
	uint64_t ip = kernel ? 0xffffffff81000000ull + slot * 48 : 0x400000ull + slot * 32;

	put_header(w, PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER,
		   56);
	put64(w, 4711);                               /* identifier */
	put64(w, ip);                                 /* ip */
	put64(w, (uint64_t)(pid + (r >> 40 & 3)) << 32 | pid); /* pid, tid */
	put64(w, time);                               /* time */
	put64(w, (r >> 50) & 7);                      /* cpu, res */
	put64(w, 100000 + ((r >> 53) & 1023));        /* period (frequency mode) */
}

static void put_comm(struct writer *w, uint64_t time, size_t name_bytes)
{
	char name[256] = {0};

	memset(name, 'w', name_bytes - 1);
	put_header(w, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC,
		   (uint16_t)(8 + 8 + name_bytes + 32));
	put64(w, (uint64_t)1001 << 32 | 1001);
	put(w, name, name_bytes);
	put_trailer(w, 1001, time);
}

static void put_mmap2(struct writer *w, uint64_t time)
{
	static const char file[40] = "/usr/lib/x86_64-linux-gnu/libfoo.so.6";

	put_header(w, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, 8 + 64 + 40 + 32);
	put64(w, (uint64_t)1002 << 32 | 1002);
	put64(w, 0x7f1234560000ull);
	put64(w, 0x1b000);
	put64(w, 0);
	put64(w, (uint64_t)1 << 32 | 8); /* maj, min */
	put64(w, 1234567);               /* ino */
	put64(w, 1);                     /* ino_generation */
	put64(w, (uint64_t)2 << 32 | 5); /* prot, flags */
	put(w, file, sizeof(file));
	put_trailer(w, 1002, time);
}

/*
 * Fill exactly RING_SIZE bytes with records, starting at START_OFF, so the
 * image is a valid ring for tail = START_OFF + k * RING_SIZE and
 * head = tail + RING_SIZE: every lap drains the same records.
 */
static uint64_t build_ring(unsigned char *data)
{
	struct writer w = {.data = data, .pos = START_OFF, .rng = 0x9e3779b97f4a7c15ull};
	const uint64_t end = START_OFF + RING_SIZE;
	uint64_t n = 0, time = 1000000;

	/* Leave at least 56 bytes for the closing COMM. */
	while (end - w.pos >= 112 + 152) {
		time += 1000;
		if (n % 997 == 996)
			put_mmap2(&w, time);
		else if (n % 1499 == 1498)
			put_comm(&w, time, 16);
		else
			put_sample(&w, time);
		n++;
	}
	while (end - w.pos >= 112) {
		put_sample(&w, time);
		n++;
	}
	put_comm(&w, time, (size_t)(end - w.pos) - 48);
	return n + 1;
}

/* ---- consumers ---- */

struct agg_slot {
	uint64_t ip;
	uint32_t pid;
	uint32_t used;
	uint64_t samples;
	uint64_t period;
};

struct bench {
	struct records_format fmt;
	struct agg_slot *table;
	uint64_t distinct, samples, side_band, errors, sum;
};

static void agg_add(struct bench *b, uint32_t pid, uint64_t ip, uint64_t period)
{
	const uint64_t mask = (1u << AGG_BITS) - 1;
	uint64_t h = (ip * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)pid * 0xc2b2ae3d27d4eb4full);

	for (uint64_t i = h >> (64 - AGG_BITS);; i = (i + 1) & mask) {
		struct agg_slot *s = &b->table[i];

		if (s->used && s->ip == ip && s->pid == pid) {
			s->samples++;
			s->period += period;
			return;
		}
		if (!s->used) {
			if (b->distinct == mask) /* full: count it as lost, never loop */
				return;
			s->used = 1;
			s->ip = ip;
			s->pid = pid;
			s->samples = 1;
			s->period = period;
			b->distinct++;
			return;
		}
	}
}

static void on_count(const struct perf_event_header *h, void *arg)
{
	struct bench *b = arg;

	b->sum += h->type;
}

static void on_decode(const struct perf_event_header *h, void *arg)
{
	struct bench *b = arg;
	struct record r;

	if (records_decode(&b->fmt, h, &r) < 0)
		b->errors++;
	b->sum += r.sample.ip;
}

static void on_aggregate(const struct perf_event_header *h, void *arg)
{
	struct bench *b = arg;
	struct record r;
	int ret = records_decode(&b->fmt, h, &r);

	if (ret < 0) {
		b->errors++;
		return;
	}
	if (r.type == PERF_RECORD_SAMPLE) {
		b->samples++;
		agg_add(b, r.id.pid, r.sample.ip, r.sample.period);
	} else {
		b->side_band++;
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Drain lap after lap for SECONDS; returns records/s. */
static double run(const char *what, struct ring *r, ring_record_fn fn, struct bench *b)
{
	uint64_t records = 0, laps = 0;
	double t0 = now(), t = t0;

	while (t - t0 < SECONDS) {
		for (int i = 0; i < 16; i++) {
			__atomic_store_n(&r->ctl->data_head, r->tail + RING_SIZE, __ATOMIC_RELEASE);
			int n = ring_drain(r, fn, b);

			if (n <= 0) {
				fprintf(stderr, "bench_records: drain returned %d\n", n);
				exit(1);
			}
			records += (uint64_t)n;
			laps++;
		}
		t = now();
	}
	double rate = (double)records / (t - t0);

	printf("  %-34s %12" PRIu64 " records in %.2f s: %7.2f M records/s (%.1f ns/record)\n",
	       what, records, t - t0, rate / 1e6, 1e9 / rate);
	return rate;
}

int main(void)
{
	struct perf_event_mmap_page *ctl = calloc(1, sizeof(*ctl));
	unsigned char *data = aligned_alloc(4096, RING_SIZE);
	struct bench b = {0};
	struct ring r;
	uint64_t per_lap;
	double rate;

	b.table = calloc((size_t)1 << AGG_BITS, sizeof(*b.table));
	if (!ctl || !data || !b.table) {
		fprintf(stderr, "bench_records: out of memory\n");
		return 1;
	}
	records_format_init(&b.fmt, SAMPLE_TYPE, 0, true);
	per_lap = build_ring(data);
	ctl->data_tail = ctl->data_head = START_OFF;
	if (ring_init_mem(&r, ctl, data, RING_SIZE)) {
		fprintf(stderr, "bench_records: ring_init_mem failed\n");
		return 1;
	}

	printf("bench_records: %u KiB ring, %" PRIu64 " records per lap (56-byte samples "
	       "IP|TID|TIME|CPU|PERIOD|IDENTIFIER, MMAP2 and COMM with sample_id_all), "
	       "one record wrapping per lap\n",
	       RING_SIZE / 1024, per_lap);
	run("drain only", &r, on_count, &b);
	run("drain + decode", &r, on_decode, &b);
	rate = run("drain + decode + aggregate(pid, ip)", &r, on_aggregate, &b);

	printf("  hotspot table: %" PRIu64 " distinct (pid, ip), %" PRIu64 " samples, %" PRIu64
	       " side band, %" PRIu64 " errors; ring: %" PRIu64 " wrapped, %" PRIu64
	       " corrupt (checksum %" PRIx64 ")\n",
	       b.distinct, b.samples, b.side_band, b.errors, r.stats.wraps_copied,
	       r.stats.corrupt, b.sum);
	printf("RESULT records_per_second=%.0f (target >= 25e6 on one core; not asserted)\n",
	       rate);
	ring_unmap(&r);
	free(b.table);
	free(data);
	free(ctl);
	return b.errors || r.stats.corrupt ? 1 : 0;
}
