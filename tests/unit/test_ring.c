/* test_ring: the ring read protocol over fake rings written record by record. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_sys.h"
#include "records.h"
#include "ring.h"

/* ---- a ring over plain memory, and a writer that plays the kernel ---- */

struct mem_ring {
	struct perf_event_mmap_page *ctl;
	unsigned char *data;
	size_t size;
	uint64_t head; /* written, not necessarily published */
};

static void mr_attach(struct mem_ring *m, struct perf_event_mmap_page *ctl, unsigned char *data,
		      size_t size)
{
	m->ctl = ctl;
	m->data = data;
	m->size = size;
	m->head = ctl->data_head;
}

/* A fresh ring of size bytes whose head and tail both start at start. */
static void mr_init(struct mem_ring *m, size_t size, uint64_t start)
{
	struct perf_event_mmap_page *ctl = calloc(1, sizeof(*ctl));
	unsigned char *data = aligned_alloc(64, size);

	assert_non_null(ctl);
	assert_non_null(data);
	memset(data, 0xa5, size); /* garbage, not zeroes, outside the records */
	ctl->data_head = start;
	ctl->data_tail = start;
	mr_attach(m, ctl, data, size);
}

static void mr_free(struct mem_ring *m)
{
	free(m->ctl);
	free(m->data);
}

/* Copy bytes in at head, wrapping at the end like the kernel does. */
static void mr_write(struct mem_ring *m, const void *src, size_t len)
{
	const unsigned char *s = src;

	for (size_t i = 0; i < len; i++)
		m->data[(m->head + i) & (m->size - 1)] = s[i];
	m->head += len;
}

static void mr_publish(struct mem_ring *m)
{
	__atomic_store_n(&m->ctl->data_head, m->head, __ATOMIC_RELEASE);
}

/* The sample format the app uses. */
#define ST_APP                                                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define SAMPLE_SIZE 56

/* A 56-byte ST_APP sample whose fields derive from seq. */
static void put_sample(struct mem_ring *m, uint64_t seq)
{
	uint64_t w[7];
	struct perf_event_header h = {
		.type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER, .size = SAMPLE_SIZE};

	memcpy(&w[0], &h, sizeof(h));
	w[1] = 9000 + seq;                         /* identifier */
	w[2] = 0x400000 + seq * 16;                /* ip */
	w[3] = (uint64_t)(1000 + seq) << 32 | 100; /* pid 100, tid 1000+seq */
	w[4] = 5000000 + seq;                      /* time */
	w[5] = seq % 4;                            /* cpu, res */
	w[6] = 100000;                             /* period */
	mr_write(m, w, sizeof(w));
}

/* A record of type with size bytes of body words seq ^ index. */
static void put_raw(struct mem_ring *m, uint32_t type, uint16_t size, uint64_t seq)
{
	uint64_t w[64];
	struct perf_event_header h = {.type = type, .misc = 0, .size = size};

	assert_true(size >= 8 && size <= sizeof(w));
	memcpy(&w[0], &h, sizeof(h));
	for (size_t i = 1; i < size / 8u; i++)
		w[i] = seq ^ i;
	mr_write(m, w, size);
}

static void put_header(struct mem_ring *m, uint32_t type, uint16_t size)
{
	struct perf_event_header h = {.type = type, .misc = 0, .size = size};

	mr_write(m, &h, sizeof(h));
}

/* ---- a callback that decodes and keeps what it saw ---- */

#define MAX_SEEN 64

struct seen {
	struct records_format fmt;
	int n;
	int ret[MAX_SEEN];
	struct record rec[MAX_SEEN]; /* pointers inside are stale after the callback */
	const void *where[MAX_SEEN];
	char comm[MAX_SEEN][16];
};

static void on_record(const struct perf_event_header *h, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < MAX_SEEN);
	assert_int_equal((uintptr_t)h & 7, 0);
	s->where[s->n] = h;
	s->ret[s->n] = records_decode(&s->fmt, h, &s->rec[s->n]);
	if (s->ret[s->n] == 0 && h->type == PERF_RECORD_COMM)
		strncpy(s->comm[s->n], s->rec[s->n].comm.comm, sizeof(s->comm[0]) - 1);
	s->n++;
}

static void seen_init(struct seen *s)
{
	memset(s, 0, sizeof(*s));
	records_format_init(&s->fmt, ST_APP, 0, true);
}

static void check_sample(const struct seen *s, int i, uint64_t seq)
{
	const struct record *r = &s->rec[i];

	assert_int_equal(s->ret[i], 0);
	assert_int_equal(r->type, PERF_RECORD_SAMPLE);
	assert_int_equal(r->cpumode, RECORDS_CPUMODE_USER);
	assert_int_equal(r->id.id, 9000 + seq);
	assert_int_equal(r->sample.ip, 0x400000 + seq * 16);
	assert_int_equal(r->id.pid, 100);
	assert_int_equal(r->id.tid, 1000 + seq);
	assert_int_equal(r->id.time, 5000000 + seq);
	assert_int_equal(r->id.cpu, seq % 4);
	assert_int_equal(r->sample.period, 100000);
}

/* ---- tests ---- */

static void test_init_checks(void **state)
{
	struct perf_event_mmap_page ctl = {0};
	uint64_t buf[64];
	struct ring r;

	assert_int_equal(ring_init_mem(&r, &ctl, buf, 0), -EINVAL);
	assert_int_equal(ring_init_mem(&r, &ctl, buf, 4), -EINVAL);
	assert_int_equal(ring_init_mem(&r, &ctl, buf, 24), -EINVAL);
	assert_int_equal(ring_init_mem(&r, &ctl, (char *)buf + 4, 256), -EINVAL);
	assert_int_equal(ring_init_mem(&r, NULL, buf, 256), -EINVAL);
	assert_int_equal(ring_drain(&r, on_record, NULL), -EINVAL);
	assert_int_equal(ring_pending(&r), 0);
	ring_unmap(&r);
	ring_unmap(&r);

	assert_int_equal(ring_init_mem(&r, &ctl, buf, sizeof(buf)), 0);
	assert_int_equal(r.data_size, sizeof(buf));
	assert_int_equal(r.mask, sizeof(buf) - 1);
	assert_int_equal(ring_drain(&r, NULL, NULL), -EINVAL);
	ring_unmap(&r);
	assert_null(r.ctl);
}

static void test_drain_basic(void **state)
{
	struct mem_ring m;
	struct ring r;
	struct seen s;
	uint64_t w[6] = {0};
	struct perf_event_header h = {.type = PERF_RECORD_COMM, .misc = PERF_RECORD_MISC_COMM_EXEC,
				      .size = 64};

	mr_init(&m, 4096, 0);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	seen_init(&s);
	assert_int_equal(ring_drain(&r, on_record, &s), 0);
	assert_int_equal(s.n, 0);

	for (uint64_t i = 0; i < 3; i++)
		put_sample(&m, i);
	/* COMM with the sample_id_all trailer of ST_APP: tid, time, cpu, identifier. */
	memcpy(&w[0], &h, sizeof(h));
	w[1] = (uint64_t)101 << 32 | 100;
	memcpy(&w[2], "pfmtop-test", 12);
	mr_write(&m, w, 32);
	w[0] = (uint64_t)101 << 32 | 100;
	w[1] = 777;
	w[2] = 2;
	w[3] = 9001;
	mr_write(&m, w, 32);
	/* Not published yet: nothing to see. */
	assert_int_equal(ring_pending(&r), 0);
	assert_int_equal(ring_drain(&r, on_record, &s), 0);
	mr_publish(&m);
	assert_int_equal(ring_pending(&r), 3 * SAMPLE_SIZE + 64);

	assert_int_equal(ring_drain(&r, on_record, &s), 4);
	assert_int_equal(s.n, 4);
	for (int i = 0; i < 3; i++)
		check_sample(&s, i, (uint64_t)i);
	assert_int_equal(s.ret[3], 0);
	assert_int_equal(s.rec[3].type, PERF_RECORD_COMM);
	assert_true(s.rec[3].comm.exec);
	assert_string_equal(s.comm[3], "pfmtop-test");
	assert_int_equal(s.rec[3].id.time, 777);
	assert_int_equal(s.rec[3].id.cpu, 2);
	assert_int_equal(s.rec[3].id.id, 9001);
	/* Records are handed over in place when they do not wrap. */
	assert_ptr_equal(s.where[0], m.data);

	/* data_tail is written back and equals the head the drain saw. */
	assert_int_equal(m.ctl->data_tail, m.head);
	assert_int_equal(r.tail, m.head);
	assert_int_equal(ring_pending(&r), 0);
	assert_int_equal(r.stats.records, 4);
	assert_int_equal(r.stats.bytes, 3 * SAMPLE_SIZE + 64);
	assert_int_equal(r.stats.corrupt, 0);
	assert_int_equal(r.stats.wraps_copied, 0);

	/* Nothing new: nothing handed over, tail unchanged. */
	assert_int_equal(ring_drain(&r, on_record, &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(m.ctl->data_tail, m.head);
	ring_unmap(&r);
	mr_free(&m);
}

static void test_straddle(void **state)
{
	struct mem_ring m;
	struct ring r;
	struct seen s;
	const size_t size = 256;
	/* Counters far from zero, 24 bytes before the end of the buffer on the
	 * third lap: the 56-byte sample's body wraps. */
	const uint64_t start = 3 * size - 24;

	mr_init(&m, size, start);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	seen_init(&s);
	put_sample(&m, 7);
	mr_publish(&m);
	assert_int_equal(ring_drain(&r, on_record, &s), 1);
	check_sample(&s, 0, 7);
	assert_ptr_equal(s.where[0], r.bounce);
	assert_int_equal(r.stats.wraps_copied, 1);
	assert_int_equal(m.ctl->data_tail, start + SAMPLE_SIZE);

	/* Now at offset 32: three samples and a record that ends exactly at
	 * the end of the buffer, all handed over in place. */
	for (uint64_t i = 0; i < 3; i++)
		put_sample(&m, 10 + i); /* 32 .. 200 */
	put_raw(&m, 0x4242, 56, 1);     /* 200 .. 256 */
	mr_publish(&m);
	s.n = 0;
	assert_int_equal(ring_drain(&r, on_record, &s), 4);
	for (int i = 0; i < 3; i++)
		check_sample(&s, i, 10 + (uint64_t)i);
	assert_int_equal(s.ret[3], RECORDS_SKIP);
	assert_int_equal(s.rec[3].size, 56);
	assert_ptr_equal(s.where[3], m.data + 200);
	assert_int_equal(r.stats.wraps_copied, 1);

	/* Up to the last 8 bytes; then a sample whose header is those 8 bytes
	 * and whose whole body is at the start (copied), then one in place. */
	put_raw(&m, 0x4242, 248, 2);
	mr_publish(&m);
	s.n = 0;
	assert_int_equal(ring_drain(&r, on_record, &s), 1);
	assert_ptr_equal(s.where[0], m.data);
	put_sample(&m, 20); /* 248: header at the end, body wraps */
	put_sample(&m, 21); /* 48 */
	mr_publish(&m);
	s.n = 0;
	assert_int_equal(ring_drain(&r, on_record, &s), 2);
	check_sample(&s, 0, 20);
	assert_ptr_equal(s.where[0], r.bounce);
	check_sample(&s, 1, 21);
	assert_ptr_equal(s.where[1], m.data + 48);
	assert_int_equal(r.stats.wraps_copied, 2);
	assert_int_equal(r.stats.corrupt, 0);
	assert_int_equal(r.stats.records, 8);
	assert_int_equal(m.ctl->data_tail, m.head);
	ring_unmap(&r);
	mr_free(&m);
}

static void test_lapped(void **state)
{
	struct mem_ring m;
	struct ring r;
	struct seen s;

	mr_init(&m, 512, 64);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	seen_init(&s);

	/* The head ran several laps ahead (or is wild): drop everything, even
	 * though every offset still holds a plausible 64-byte record. */
	for (uint64_t i = 0; i < 40; i++)
		put_raw(&m, 0x4242, 64, i);
	mr_publish(&m);
	assert_true(m.head - 64 > m.size);
	assert_int_equal(ring_drain(&r, on_record, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(r.stats.corrupt, 1);
	assert_int_equal(r.stats.dropped, 40 * 64);
	assert_int_equal(m.ctl->data_tail, m.head);

	/* The next records are read normally. */
	put_sample(&m, 50);
	put_sample(&m, 51);
	mr_publish(&m);
	assert_int_equal(ring_drain(&r, on_record, &s), 2);
	check_sample(&s, 0, 50);
	check_sample(&s, 1, 51);
	assert_int_equal(r.stats.corrupt, 1);

	/* A head behind the tail is just as wild. */
	m.ctl->data_head = m.head - 8;
	assert_int_equal(ring_drain(&r, on_record, &s), 0);
	assert_int_equal(r.stats.corrupt, 2);
	assert_int_equal(m.ctl->data_tail, m.head - 8);
	ring_unmap(&r);
	mr_free(&m);
}

/* One good record, a bad header of size bad_size, then more good ones that
 * cannot be trusted any more: only the first is handed over. */
static void check_bad_size(uint16_t bad_size, uint64_t start)
{
	struct mem_ring m;
	struct ring r;
	struct seen s;

	mr_init(&m, 1024, start);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	seen_init(&s);
	put_sample(&m, 1);
	put_header(&m, PERF_RECORD_SAMPLE, bad_size);
	for (uint64_t i = 0; i < 4; i++)
		put_sample(&m, 2 + i);
	mr_publish(&m);
	assert_int_equal(ring_drain(&r, on_record, &s), 1);
	check_sample(&s, 0, 1);
	assert_int_equal(r.stats.corrupt, 1);
	assert_int_equal(r.stats.dropped, 8 + 4 * SAMPLE_SIZE);
	assert_int_equal(r.stats.records, 1);
	assert_int_equal(m.ctl->data_tail, m.head);

	/* Resynchronised: the next drain works. */
	put_sample(&m, 9);
	mr_publish(&m);
	assert_int_equal(ring_drain(&r, on_record, &s), 1);
	check_sample(&s, 1, 9);
	assert_int_equal(r.stats.corrupt, 1);
	assert_int_equal(m.ctl->data_tail, m.head);
	ring_unmap(&r);
	mr_free(&m);
}

static void test_bad_sizes(void **state)
{
	static const uint16_t bad[] = {
		0,     /* zero */
		4,     /* smaller than the header */
		12,    /* not a multiple of 8 */
		61,    /* not a multiple of 8 either */
		1024,  /* more than what is available */
		4096,  /* more than the ring */
		65528, /* the largest a header can say */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		check_bad_size(bad[i], 0);
		check_bad_size(bad[i], 1024 * 5 - 40); /* across the end too */
	}
}

static void test_partial_and_unaligned(void **state)
{
	struct mem_ring m;
	struct ring r;
	struct seen s;

	/* A head that stops mid-record (the header says more than there is). */
	mr_init(&m, 512, 0);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	seen_init(&s);
	put_sample(&m, 1);
	put_sample(&m, 2);
	m.ctl->data_head = m.head - 16;
	assert_int_equal(ring_drain(&r, on_record, &s), 1);
	assert_int_equal(r.stats.corrupt, 1);
	assert_int_equal(m.ctl->data_tail, m.head - 16);
	ring_unmap(&r);
	mr_free(&m);

	/* A head that is not 8-byte aligned leaves less than a header. */
	mr_init(&m, 512, 0);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	seen_init(&s);
	put_sample(&m, 1);
	m.ctl->data_head = m.head + 4;
	assert_int_equal(ring_drain(&r, on_record, &s), 1);
	assert_int_equal(r.stats.corrupt, 1);
	assert_int_equal(m.ctl->data_tail, m.head + 4);
	/* The tail is now unaligned too: the next drain resynchronises again
	 * rather than reading a header that straddles the end. */
	m.ctl->data_head = m.head + 4 + 64;
	assert_int_equal(ring_drain(&r, on_record, &s), 0);
	assert_int_equal(r.stats.corrupt, 2);
	ring_unmap(&r);
	mr_free(&m);

	/* A tail handed over unaligned at init. */
	mr_init(&m, 512, 4);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	seen_init(&s);
	put_sample(&m, 1);
	mr_publish(&m);
	assert_int_equal(ring_drain(&r, on_record, &s), 0);
	assert_int_equal(r.stats.corrupt, 1);
	assert_int_equal(m.ctl->data_tail, m.head);
	ring_unmap(&r);
	mr_free(&m);
}

static void test_unknown_types_skipped(void **state)
{
	struct mem_ring m;
	struct ring r;
	struct seen s;

	mr_init(&m, 1024, 0);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	seen_init(&s);
	put_sample(&m, 1);
	put_raw(&m, 0x4242, 40, 0);
	put_raw(&m, PERF_RECORD_AUX, 8, 0);
	put_raw(&m, PERF_RECORD_KSYMBOL, 200, 0);
	put_sample(&m, 2);
	mr_publish(&m);
	assert_int_equal(ring_drain(&r, on_record, &s), 5);
	check_sample(&s, 0, 1);
	assert_int_equal(s.ret[1], RECORDS_SKIP);
	assert_int_equal(s.rec[1].type, 0x4242);
	assert_int_equal(s.ret[2], RECORDS_SKIP);
	assert_int_equal(s.ret[3], RECORDS_SKIP);
	assert_int_equal(s.rec[3].size, 200);
	check_sample(&s, 4, 2);
	assert_int_equal(r.stats.corrupt, 0);
	ring_unmap(&r);
	mr_free(&m);
}

/* Producer and consumer interleaved over many laps of a small ring, with
 * record sizes that put every possible split across the end. */
struct lap_check {
	uint64_t next_seq;
	uint64_t sizes[4096];
	int bad;
};

static void on_lap_record(const struct perf_event_header *h, void *arg)
{
	struct lap_check *c = arg;
	const uint64_t *w = (const uint64_t *)(const void *)h;
	uint64_t seq = c->next_seq++;

	if (h->type != 0x4000 || h->size != c->sizes[seq % 4096])
		c->bad++;
	for (size_t i = 1; i < h->size / 8u; i++)
		if (w[i] != (seq ^ i))
			c->bad++;
}

static void test_many_laps(void **state)
{
	struct mem_ring m;
	struct ring r;
	struct lap_check *c = calloc(1, sizeof(*c));
	uint64_t seq = 0, x = 12345;
	const size_t size = 512;

	assert_non_null(c);
	mr_init(&m, size, 0);
	assert_int_equal(ring_init_mem(&r, m.ctl, m.data, m.size), 0);
	for (int round = 0; round < 3000; round++) {
		/* Write a few records while they fit behind the reader. */
		for (;;) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			uint16_t sz = (uint16_t)(8 + 8 * ((x >> 33) % 30));

			if (m.head + sz - m.ctl->data_tail > size)
				break;
			c->sizes[seq % 4096] = sz;
			put_raw(&m, 0x4000, sz, seq++);
		}
		mr_publish(&m);
		assert_true(ring_drain(&r, on_lap_record, c) > 0);
		assert_int_equal(m.ctl->data_tail, m.head);
	}
	assert_int_equal(c->bad, 0);
	assert_int_equal(c->next_seq, seq);
	assert_int_equal(r.stats.records, seq);
	assert_int_equal(r.stats.corrupt, 0);
	assert_true(r.stats.wraps_copied > 100);
	ring_unmap(&r);
	mr_free(&m);
	free(c);
}

/* ---- ring_map through the sys seam ---- */

static const struct sys_ops *fake_ops;
static struct sys_ops spy_ops;
static int spy_prot, spy_flags;
static size_t spy_len;
static uint64_t spy_data_offset, spy_data_size; /* what the "kernel" fills in */
static int spy_fail; /* errno to fail mmap with */
static int spy_munmaps;

static void *spy_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct perf_event_mmap_page *ctl;

	spy_prot = prot;
	spy_flags = flags;
	spy_len = len;
	if (spy_fail) {
		errno = spy_fail;
		return MAP_FAILED;
	}
	ctl = fake_ops->mmap(addr, len, prot, flags, fd, off);
	if (ctl != MAP_FAILED) {
		ctl->data_offset = spy_data_offset;
		ctl->data_size = spy_data_size;
	}
	return ctl;
}

static int spy_munmap(void *addr, size_t len)
{
	spy_munmaps++;
	return fake_ops->munmap(addr, len);
}

static int open_fake_event(void)
{
	struct perf_event_attr attr = {.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE};
	int fd;

	fake_sys_install();
	fake_ops = sys;
	spy_ops = *fake_ops;
	spy_ops.mmap = spy_mmap;
	spy_ops.munmap = spy_munmap;
	sys_set_ops(&spy_ops);
	spy_data_offset = spy_data_size = 0;
	spy_fail = 0;
	spy_munmaps = 0;
	fd = sys->perf_event_open(&attr, 0, -1, -1, 0);
	assert_true(fd >= 0);
	return fd;
}

static void test_map_through_sys(void **state)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int fd = open_fake_event();
	struct fake_event *e = fake_sys_event(fd);
	struct ring r;
	struct mem_ring m;
	struct seen s;

	/* Data pages must be a power of two; nothing is mapped otherwise. */
	assert_int_equal(ring_map(&r, fd, 0), -EINVAL);
	assert_int_equal(ring_map(&r, fd, 3), -EINVAL);
	assert_int_equal(ring_map(&r, fd, 12), -EINVAL);
	assert_null(e->ring);

	/* An old kernel: data_offset/data_size zero, data one page in. */
	assert_int_equal(ring_map(&r, fd, 4), 0);
	assert_int_equal(spy_prot, PROT_READ | PROT_WRITE);
	assert_int_equal(spy_flags, MAP_SHARED);
	assert_int_equal(spy_len, 5 * page);
	assert_ptr_equal(r.map, e->ring);
	assert_ptr_equal(r.ctl, e->ring);
	assert_ptr_equal(r.data, (unsigned char *)e->ring + page);
	assert_int_equal(r.data_size, 4 * page);

	mr_attach(&m, r.ctl, r.data, r.data_size);
	seen_init(&s);
	put_sample(&m, 1);
	put_sample(&m, 2);
	mr_publish(&m);
	assert_int_equal(ring_drain(&r, on_record, &s), 2);
	check_sample(&s, 1, 2);
	assert_int_equal(r.ctl->data_tail, 2 * SAMPLE_SIZE);
	ring_unmap(&r);
	assert_null(e->ring);
	assert_int_equal(spy_munmaps, 1);

	/* A kernel that says where the data is: honoured. */
	spy_data_offset = 2 * page;
	spy_data_size = 2 * page;
	assert_int_equal(ring_map(&r, fd, 4), 0);
	assert_ptr_equal(r.data, (unsigned char *)e->ring + 2 * page);
	assert_int_equal(r.data_size, 2 * page);
	assert_int_equal(r.mask, 2 * page - 1);
	ring_unmap(&r);

	/* A data area that does not fit the mapping, or is not a power of two:
	 * refused, and the mapping is released. */
	spy_munmaps = 0;
	spy_data_offset = page;
	spy_data_size = 8 * page;
	assert_int_equal(ring_map(&r, fd, 4), -EINVAL);
	assert_null(e->ring);
	spy_data_size = 3 * page;
	assert_int_equal(ring_map(&r, fd, 4), -EINVAL);
	assert_null(e->ring);
	assert_int_equal(spy_munmaps, 2);
	assert_null(r.map);

	/* mmap's errno comes back negated (EPERM: over perf_event_mlock_kb). */
	spy_fail = EPERM;
	assert_int_equal(ring_map(&r, fd, 4), -EPERM);
	spy_fail = 0;
	assert_int_equal(ring_map(&r, fd + 1000, 4), -EBADF);

	sys_set_ops(NULL);
	fake_sys_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_checks),
		cmocka_unit_test(test_drain_basic),
		cmocka_unit_test(test_straddle),
		cmocka_unit_test(test_lapped),
		cmocka_unit_test(test_bad_sizes),
		cmocka_unit_test(test_partial_and_unaligned),
		cmocka_unit_test(test_unknown_types_skipped),
		cmocka_unit_test(test_many_laps),
		cmocka_unit_test(test_map_through_sys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
