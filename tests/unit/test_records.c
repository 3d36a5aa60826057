/* test_records: the record decoder on hand-built records of every type. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "records.h"

/* ---- a little record builder, u64-aligned like the ring ---- */

struct rb {
	uint64_t words[1024];
	size_t len; /* bytes */
};

static unsigned char *rb_bytes(struct rb *b)
{
	return (unsigned char *)b->words;
}

static void rb_start(struct rb *b, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = 0};

	memset(b, 0, sizeof(*b));
	memcpy(b->words, &h, sizeof(h));
	b->len = sizeof(h);
}

static void rb_u64(struct rb *b, uint64_t v)
{
	memcpy(rb_bytes(b) + b->len, &v, 8);
	b->len += 8;
}

static void rb_u32(struct rb *b, uint32_t v)
{
	memcpy(rb_bytes(b) + b->len, &v, 4);
	b->len += 4;
}

static void rb_u32x2(struct rb *b, uint32_t lo, uint32_t hi)
{
	rb_u32(b, lo);
	rb_u32(b, hi);
}

/* A string with its NUL, padded with NULs to 8 bytes like the kernel does. */
static void rb_str(struct rb *b, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(rb_bytes(b) + b->len, s, n);
	b->len += (n + 7) & ~(size_t)7;
}

static const struct perf_event_header *rb_end(struct rb *b)
{
	struct perf_event_header *h = (struct perf_event_header *)b->words;

	h->size = (uint16_t)b->len;
	return h;
}

/* Values the sample_id_all trailer carries in these tests. */
#define T_PID 4242u
#define T_TID 4243u
#define T_TIME 0x1122334455667788ull
#define T_ID 77ull
#define T_STREAM 78ull
#define T_CPU 3u

static void rb_trailer(struct rb *b, const struct records_format *fmt)
{
	uint64_t st = fmt->sample_type;

	if (!fmt->sample_id_all)
		return;
	if (st & PERF_SAMPLE_TID)
		rb_u32x2(b, T_PID, T_TID);
	if (st & PERF_SAMPLE_TIME)
		rb_u64(b, T_TIME);
	if (st & PERF_SAMPLE_ID)
		rb_u64(b, T_ID);
	if (st & PERF_SAMPLE_STREAM_ID)
		rb_u64(b, T_STREAM);
	if (st & PERF_SAMPLE_CPU)
		rb_u32x2(b, T_CPU, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		rb_u64(b, T_ID);
}

static void check_trailer(const struct records_format *fmt, const struct record *r)
{
	uint64_t st = fmt->sample_type;

	if (!fmt->sample_id_all) {
		assert_int_equal(r->fields, 0);
		assert_int_equal(r->id.pid, 0);
		assert_int_equal(r->id.time, 0);
		assert_int_equal(r->id.id, 0);
		return;
	}
	assert_int_equal(r->fields, fmt->trailer_fields);
	assert_int_equal(r->id.pid, (st & PERF_SAMPLE_TID) ? T_PID : 0);
	assert_int_equal(r->id.tid, (st & PERF_SAMPLE_TID) ? T_TID : 0);
	assert_int_equal(r->id.time, (st & PERF_SAMPLE_TIME) ? T_TIME : 0);
	assert_int_equal(r->id.id, (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) ? T_ID : 0);
	assert_int_equal(r->id.stream_id, (st & PERF_SAMPLE_STREAM_ID) ? T_STREAM : 0);
	assert_int_equal(r->id.cpu, (st & PERF_SAMPLE_CPU) ? T_CPU : 0);
}

/*
 * Decode a copy of rec that is exactly rec->size bytes of heap, so that the
 * sanitizer build catches any read past the end.
 */
static int decode_exact(const struct records_format *fmt, const struct perf_event_header *rec,
			struct record *out, void **keep)
{
	void *copy = aligned_alloc(8, (rec->size + 7u) & ~7u);

	assert_non_null(copy);
	memcpy(copy, rec, rec->size);
	*keep = copy;
	return records_decode(fmt, copy, out);
}

/* The trailer formats every side-band test runs under. */
static const uint64_t trailer_types[] = {
	0,
	PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
		PERF_SAMPLE_IDENTIFIER,
	PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN,
	PERF_SAMPLE_TIME,
};

#define NR_TRAILER_TYPES (sizeof(trailer_types) / sizeof(trailer_types[0]))

/* Run body(fmt) for every trailer format, with and without sample_id_all. */
static void for_each_format(void (*body)(const struct records_format *fmt))
{
	struct records_format fmt;

	for (size_t i = 0; i < NR_TRAILER_TYPES; i++) {
		for (int all = 0; all < 2; all++) {
			assert_int_equal(records_format_init(&fmt, trailer_types[i], 0, all), 0);
			body(&fmt);
		}
	}
}

/*
 * Every truncation of a well-formed record must fail cleanly with -EINVAL,
 * except where the shorter record is still well formed: a side-band string
 * that still holds a NUL, or (size >= ok_from) sample fields the decoder
 * ignores. Each truncation is decoded from an exact-size heap copy.
 */
static void check_truncations_from(const struct records_format *fmt, const struct rb *b,
				   size_t ok_from)
{
	const struct perf_event_header *full = (const void *)b->words;

	for (uint16_t size = 8; size < full->size; size += 8) {
		struct record r;
		void *copy;
		struct perf_event_header h = *full;
		int ret;

		h.size = size;
		copy = aligned_alloc(8, size);
		assert_non_null(copy);
		memcpy(copy, full, size);
		memcpy(copy, &h, sizeof(h));
		ret = records_decode(fmt, copy, &r);
		if (ret == 0) {
			assert_true(full->type == PERF_RECORD_MMAP || full->type == PERF_RECORD_MMAP2 ||
				    full->type == PERF_RECORD_COMM || size >= ok_from);
		} else {
			assert_int_equal(ret, -EINVAL);
		}
		free(copy);
	}
}

static void check_truncations(const struct records_format *fmt, const struct rb *b)
{
	check_truncations_from(fmt, b, SIZE_MAX);
}

/* ---- side-band records ---- */

static void body_mmap(const struct records_format *fmt)
{
	struct rb b;
	struct record r;
	void *keep;

	rb_start(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	rb_u32x2(&b, 100, 101);
	rb_u64(&b, 0x400000);
	rb_u64(&b, 0x2000);
	rb_u64(&b, 0x1000);
	rb_str(&b, "/usr/bin/some-program");
	rb_trailer(&b, fmt);
	assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), 0);
	assert_int_equal(r.type, PERF_RECORD_MMAP);
	assert_int_equal(r.cpumode, RECORDS_CPUMODE_USER);
	assert_int_equal(r.mmap.pid, 100);
	assert_int_equal(r.mmap.tid, 101);
	assert_int_equal(r.mmap.addr, 0x400000);
	assert_int_equal(r.mmap.len, 0x2000);
	assert_int_equal(r.mmap.pgoff, 0x1000);
	assert_false(r.mmap.mmap2);
	assert_string_equal(r.mmap.filename, "/usr/bin/some-program");
	check_trailer(fmt, &r);
	free(keep);
	check_truncations(fmt, &b);
}

static void test_mmap(void **state)
{
	for_each_format(body_mmap);
}

static void body_mmap2_inode(const struct records_format *fmt)
{
	struct rb b;
	struct record r;
	void *keep;

	rb_start(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	rb_u32x2(&b, 200, 201);
	rb_u64(&b, 0x7f0000000000);
	rb_u64(&b, 0x1b000);
	rb_u64(&b, 0x3000);
	rb_u32x2(&b, 8, 1); /* maj, min */
	rb_u64(&b, 123456); /* ino */
	rb_u64(&b, 9);      /* ino_generation */
	rb_u32x2(&b, 5, 2); /* prot, flags */
	rb_str(&b, "/lib/x86_64-linux-gnu/libc.so.6");
	rb_trailer(&b, fmt);
	assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), 0);
	assert_int_equal(r.type, PERF_RECORD_MMAP2);
	assert_int_equal(r.mmap.pid, 200);
	assert_int_equal(r.mmap.tid, 201);
	assert_int_equal(r.mmap.addr, 0x7f0000000000);
	assert_int_equal(r.mmap.len, 0x1b000);
	assert_int_equal(r.mmap.pgoff, 0x3000);
	assert_true(r.mmap.mmap2);
	assert_false(r.mmap.has_build_id);
	assert_int_equal(r.mmap.maj, 8);
	assert_int_equal(r.mmap.min, 1);
	assert_int_equal(r.mmap.ino, 123456);
	assert_int_equal(r.mmap.ino_generation, 9);
	assert_int_equal(r.mmap.prot, 5);
	assert_int_equal(r.mmap.flags, 2);
	assert_null(r.mmap.build_id);
	assert_string_equal(r.mmap.filename, "/lib/x86_64-linux-gnu/libc.so.6");
	check_trailer(fmt, &r);
	free(keep);
	check_truncations(fmt, &b);
}

static void test_mmap2_inode(void **state)
{
	for_each_format(body_mmap2_inode);
}

static void body_mmap2_build_id(const struct records_format *fmt)
{
	static const uint8_t id[20] = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
				       7,    8,    9,    10,   11, 12, 13, 14, 15, 16};
	struct rb b;
	struct record r;
	void *keep;
	uint64_t w[3] = {0};
	unsigned char *p = (unsigned char *)w;

	rb_start(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	rb_u32x2(&b, 300, 301);
	rb_u64(&b, 0x1000);
	rb_u64(&b, 0x2000);
	rb_u64(&b, 0);
	p[0] = 20; /* build_id_size, 3 reserved bytes, build_id[20] */
	memcpy(p + 4, id, 20);
	for (int i = 0; i < 3; i++)
		rb_u64(&b, w[i]);
	rb_u32x2(&b, 7, 0x1002);
	rb_str(&b, "/usr/lib/debug/thing");
	rb_trailer(&b, fmt);
	assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), 0);
	assert_true(r.mmap.mmap2);
	assert_true(r.mmap.has_build_id);
	assert_int_equal(r.mmap.build_id_size, 20);
	assert_memory_equal(r.mmap.build_id, id, 20);
	assert_int_equal(r.mmap.maj, 0);
	assert_int_equal(r.mmap.ino, 0);
	assert_int_equal(r.mmap.prot, 7);
	assert_int_equal(r.mmap.flags, 0x1002);
	assert_string_equal(r.mmap.filename, "/usr/lib/debug/thing");
	check_trailer(fmt, &r);
	free(keep);
	check_truncations(fmt, &b);

	/* A build id longer than the 20 bytes the union holds is malformed. */
	p[0] = 21;
	memcpy(rb_bytes(&b) + 8 + 32, w, sizeof(w));
	assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
}

static void test_mmap2_build_id(void **state)
{
	for_each_format(body_mmap2_build_id);
}

static void body_comm(const struct records_format *fmt)
{
	struct rb b;
	struct record r;
	void *keep;

	for (int exec = 0; exec < 2; exec++) {
		rb_start(&b, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
		rb_u32x2(&b, 400, 401);
		rb_str(&b, exec ? "new-program" : "worker/3");
		rb_trailer(&b, fmt);
		assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), 0);
		assert_int_equal(r.type, PERF_RECORD_COMM);
		assert_int_equal(r.comm.pid, 400);
		assert_int_equal(r.comm.tid, 401);
		assert_int_equal(r.comm.exec, exec);
		assert_string_equal(r.comm.comm, exec ? "new-program" : "worker/3");
		check_trailer(fmt, &r);
		free(keep);
		check_truncations(fmt, &b);
	}
}

static void test_comm(void **state)
{
	for_each_format(body_comm);
}

static void body_task(const struct records_format *fmt)
{
	static const uint32_t types[] = {PERF_RECORD_FORK, PERF_RECORD_EXIT};
	struct rb b;
	struct record r;
	void *keep;

	for (int i = 0; i < 2; i++) {
		rb_start(&b, types[i], 0);
		rb_u32x2(&b, 500, 499); /* pid, ppid */
		rb_u32x2(&b, 502, 498); /* tid, ptid */
		rb_u64(&b, 987654321);
		rb_trailer(&b, fmt);
		assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), 0);
		assert_int_equal(r.type, types[i]);
		assert_int_equal(r.task.pid, 500);
		assert_int_equal(r.task.ppid, 499);
		assert_int_equal(r.task.tid, 502);
		assert_int_equal(r.task.ptid, 498);
		assert_int_equal(r.task.time, 987654321);
		check_trailer(fmt, &r);
		free(keep);
		check_truncations(fmt, &b);
	}
}

static void test_fork_exit(void **state)
{
	for_each_format(body_task);
}

static void body_lost(const struct records_format *fmt)
{
	struct rb b;
	struct record r;
	void *keep;

	rb_start(&b, PERF_RECORD_LOST, 0);
	rb_u64(&b, 55);
	rb_u64(&b, 1234);
	rb_trailer(&b, fmt);
	assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), 0);
	assert_int_equal(r.type, PERF_RECORD_LOST);
	assert_int_equal(r.lost.id, 55);
	assert_int_equal(r.lost.lost, 1234);
	check_trailer(fmt, &r);
	free(keep);
	check_truncations(fmt, &b);

	rb_start(&b, PERF_RECORD_LOST_SAMPLES, 0);
	rb_u64(&b, 99);
	rb_trailer(&b, fmt);
	assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), 0);
	assert_int_equal(r.type, PERF_RECORD_LOST_SAMPLES);
	assert_int_equal(r.lost_samples.lost, 99);
	check_trailer(fmt, &r);
	free(keep);
	check_truncations(fmt, &b);
}

static void test_lost(void **state)
{
	for_each_format(body_lost);
}

static void body_throttle(const struct records_format *fmt)
{
	static const uint32_t types[] = {PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE};
	struct rb b;
	struct record r;
	void *keep;

	for (int i = 0; i < 2; i++) {
		rb_start(&b, types[i], 0);
		rb_u64(&b, 111);
		rb_u64(&b, 222);
		rb_u64(&b, 333);
		rb_trailer(&b, fmt);
		assert_int_equal(decode_exact(fmt, rb_end(&b), &r, &keep), 0);
		assert_int_equal(r.type, types[i]);
		assert_int_equal(r.throttle.time, 111);
		assert_int_equal(r.throttle.id, 222);
		assert_int_equal(r.throttle.stream_id, 333);
		check_trailer(fmt, &r);
		free(keep);
		check_truncations(fmt, &b);
	}
}

static void test_throttle(void **state)
{
	for_each_format(body_throttle);
}

static void test_bad_strings(void **state)
{
	struct records_format fmt;
	struct rb b;
	struct record r;
	void *keep;

	records_format_init(&fmt, PERF_SAMPLE_TID | PERF_SAMPLE_TIME, 0, true);

	/* A filename that fills its space without a NUL. */
	rb_start(&b, PERF_RECORD_MMAP, 0);
	rb_u32x2(&b, 1, 1);
	rb_u64(&b, 0);
	rb_u64(&b, 0);
	rb_u64(&b, 0);
	memcpy(rb_bytes(&b) + b.len, "ABCDEFGH", 8);
	b.len += 8;
	rb_trailer(&b, &fmt);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);

	/* No room for a string at all. */
	rb_start(&b, PERF_RECORD_COMM, 0);
	rb_u32x2(&b, 1, 1);
	rb_trailer(&b, &fmt);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);

	/* A trailer longer than the record. */
	rb_start(&b, PERF_RECORD_LOST_SAMPLES, 0);
	rb_u64(&b, 1);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
}

/* Context switches: the task is the sample id's, the other one (CPU-wide
 * records only) the body's; a CPU-wide record without it is refused. */
static void test_switch(void **state)
{
	struct records_format fmt;
	struct rb b;
	struct record r;
	void *keep;

	records_format_init(&fmt, PERF_SAMPLE_TID, 0, true);
	rb_start(&b, PERF_RECORD_SWITCH_CPU_WIDE, PERF_RECORD_MISC_SWITCH_OUT);
	rb_u32x2(&b, 70, 71); /* next_prev_pid, next_prev_tid */
	rb_u32x2(&b, 50, 51); /* sample id: pid, tid */
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
	assert_true(r.sw.out && r.sw.cpu_wide);
	assert_int_equal(r.sw.next_prev_pid, 70);
	assert_int_equal(r.sw.next_prev_tid, 71);
	assert_int_equal(r.id.pid, 50);
	assert_int_equal(r.id.tid, 51);
	free(keep);

	rb_start(&b, PERF_RECORD_SWITCH_CPU_WIDE, 0);
	rb_u32x2(&b, 0, 0);
	rb_u32x2(&b, 9, 9);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
	assert_false(r.sw.out);
	assert_int_equal(r.sw.next_prev_tid, 0);
	assert_int_equal(r.id.tid, 9);
	free(keep);

	rb_start(&b, PERF_RECORD_SWITCH, PERF_RECORD_MISC_SWITCH_OUT);
	rb_u32x2(&b, 9, 10);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
	assert_true(r.sw.out);
	assert_false(r.sw.cpu_wide);
	assert_int_equal(r.id.tid, 10);
	free(keep);

	rb_start(&b, PERF_RECORD_SWITCH_CPU_WIDE, 0);
	rb_u32x2(&b, 9, 10); /* the sample id only */
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
}

static void test_unknown_skipped(void **state)
{
	struct records_format fmt;
	struct rb b;
	struct record r;
	void *keep;
	static const uint32_t types[] = {PERF_RECORD_AUX, PERF_RECORD_KSYMBOL, 0, 0x7777};

	records_format_init(&fmt, PERF_SAMPLE_TID, 0, true);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		rb_start(&b, types[i], PERF_RECORD_MISC_KERNEL);
		rb_u64(&b, 1);
		rb_u64(&b, 2);
		rb_u64(&b, 3);
		assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), RECORDS_SKIP);
		assert_int_equal(r.type, types[i]);
		assert_int_equal(r.size, 32);
		assert_int_equal(r.cpumode, RECORDS_CPUMODE_KERNEL);
		free(keep);
	}
	assert_string_equal(records_type_name(PERF_RECORD_SAMPLE), "SAMPLE");
	assert_string_equal(records_type_name(PERF_RECORD_MMAP2), "MMAP2");
	assert_string_equal(records_type_name(0), "UNKNOWN");
	assert_string_equal(records_type_name(0x7777), "UNKNOWN");
}

static void test_header_checks(void **state)
{
	struct records_format fmt;
	uint64_t words[8] = {0};
	struct perf_event_header h = {.type = PERF_RECORD_LOST, .misc = 0, .size = 4};
	struct record r;

	records_format_init(&fmt, 0, 0, false);
	memcpy(words, &h, sizeof(h));
	assert_int_equal(records_decode(&fmt, (void *)words, &r), -EINVAL);

	/* A record that is not 8-byte aligned is refused, not misread. */
	h.size = 24;
	memcpy((char *)words + 4, &h, sizeof(h));
	assert_int_equal(records_decode(&fmt, (void *)((char *)words + 4), &r), -EINVAL);
}

static void test_cpumode_enum(void **state)
{
	static const struct {
		uint16_t misc;
		enum records_cpumode mode;
	} cases[] = {
		{0, RECORDS_CPUMODE_UNKNOWN},
		{PERF_RECORD_MISC_KERNEL, RECORDS_CPUMODE_KERNEL},
		{PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP, RECORDS_CPUMODE_USER},
		{PERF_RECORD_MISC_HYPERVISOR, RECORDS_CPUMODE_HYPERVISOR},
		{PERF_RECORD_MISC_GUEST_KERNEL | PERF_RECORD_MISC_EXACT_IP,
		 RECORDS_CPUMODE_GUEST_KERNEL},
		{PERF_RECORD_MISC_GUEST_USER | (1 << 13), RECORDS_CPUMODE_GUEST_USER},
	};
	struct records_format fmt;
	struct rb b;
	struct record r;

	records_format_init(&fmt, PERF_SAMPLE_IP, 0, false);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		rb_start(&b, PERF_RECORD_SAMPLE, cases[i].misc);
		rb_u64(&b, 0xabc);
		assert_int_equal(records_decode(&fmt, rb_end(&b), &r), 0);
		assert_int_equal(r.cpumode, cases[i].mode);
		assert_int_equal(r.misc, cases[i].misc);
		assert_int_equal(r.sample.ip, 0xabc);
	}
}

/* ---- samples ---- */

/* Distinct values per field, so a field read from the wrong slot shows. */
#define S_IDENT 0x1001ull
#define S_IP 0xffffffff81000010ull
#define S_PID 600u
#define S_TID 601u
#define S_TIME 0x2002ull
#define S_ADDR 0x3003ull
#define S_ID 0x1001ull /* ID and IDENTIFIER carry the same value */
#define S_STREAM 0x5005ull
#define S_CPU 7u
#define S_PERIOD 100000ull

/* Write the fixed fields of sample_type st in the kernel's order. */
static void rb_sample_fixed(struct rb *b, uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		rb_u64(b, S_IDENT);
	if (st & PERF_SAMPLE_IP)
		rb_u64(b, S_IP);
	if (st & PERF_SAMPLE_TID)
		rb_u32x2(b, S_PID, S_TID);
	if (st & PERF_SAMPLE_TIME)
		rb_u64(b, S_TIME);
	if (st & PERF_SAMPLE_ADDR)
		rb_u64(b, S_ADDR);
	if (st & PERF_SAMPLE_ID)
		rb_u64(b, S_ID);
	if (st & PERF_SAMPLE_STREAM_ID)
		rb_u64(b, S_STREAM);
	if (st & PERF_SAMPLE_CPU)
		rb_u32x2(b, S_CPU, 0);
	if (st & PERF_SAMPLE_PERIOD)
		rb_u64(b, S_PERIOD);
}

static void check_sample_fixed(uint64_t st, const struct record *r)
{
	assert_int_equal(r->type, PERF_RECORD_SAMPLE);
	assert_int_equal(r->sample.ip, (st & PERF_SAMPLE_IP) ? S_IP : 0);
	assert_int_equal(r->id.pid, (st & PERF_SAMPLE_TID) ? S_PID : 0);
	assert_int_equal(r->id.tid, (st & PERF_SAMPLE_TID) ? S_TID : 0);
	assert_int_equal(r->id.time, (st & PERF_SAMPLE_TIME) ? S_TIME : 0);
	assert_int_equal(r->sample.addr, (st & PERF_SAMPLE_ADDR) ? S_ADDR : 0);
	assert_int_equal(r->id.id, (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) ? S_ID : 0);
	assert_int_equal(r->id.stream_id, (st & PERF_SAMPLE_STREAM_ID) ? S_STREAM : 0);
	assert_int_equal(r->id.cpu, (st & PERF_SAMPLE_CPU) ? S_CPU : 0);
	assert_int_equal(r->sample.period, (st & PERF_SAMPLE_PERIOD) ? S_PERIOD : 0);
}

static void test_sample_fixed_combinations(void **state)
{
	static const uint64_t bits[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,        PERF_SAMPLE_TID,
		PERF_SAMPLE_TIME,       PERF_SAMPLE_ADDR,      PERF_SAMPLE_ID,
		PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU,       PERF_SAMPLE_PERIOD,
	};

	/* Every subset of the nine fixed fields, with and without sample_id_all
	 * (which must not change how a SAMPLE is laid out). */
	for (unsigned mask = 0; mask < (1u << 9); mask++) {
		uint64_t st = 0;

		for (int i = 0; i < 9; i++)
			if (mask & (1u << i))
				st |= bits[i];
		for (int all = 0; all < 2; all++) {
			struct records_format fmt;
			struct rb b;
			struct record r;
			void *keep;

			assert_int_equal(records_format_init(&fmt, st, 0, all), 0);
			rb_start(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
			rb_sample_fixed(&b, st);
			assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
			check_sample_fixed(st, &r);
			assert_int_equal(r.fields, st);
			assert_null(r.sample.ips);
			free(keep);
			if (mask % 37 == 0)
				check_truncations(&fmt, &b);
		}
	}
}

static void test_sample_callchain_raw(void **state)
{
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN |
			    PERF_SAMPLE_RAW;
	const uint64_t ips[] = {PERF_CONTEXT_USER, 0x401000, 0x401234, 0x7f0000001000};
	const unsigned char raw[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
	struct records_format fmt;
	struct rb b;
	struct record r;
	void *keep;

	assert_int_equal(records_format_init(&fmt, st, 0, true), 0);
	rb_start(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_sample_fixed(&b, st);
	rb_u64(&b, 4);
	for (int i = 0; i < 4; i++)
		rb_u64(&b, ips[i]);
	rb_u32(&b, sizeof(raw));
	memcpy(rb_bytes(&b) + b.len, raw, sizeof(raw));
	b.len += sizeof(raw);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
	check_sample_fixed(st, &r);
	assert_int_equal(r.fields, st);
	assert_int_equal(r.sample.nr_ips, 4);
	assert_memory_equal(r.sample.ips, ips, sizeof(ips));
	assert_int_equal(r.sample.raw_size, sizeof(raw));
	assert_memory_equal(r.sample.raw, raw, sizeof(raw));
	free(keep);
	check_truncations(&fmt, &b);

	/* A callchain claiming more entries than the record holds. */
	uint64_t *nr = (uint64_t *)(rb_bytes(&b) + 8 + fmt.sample_fixed);
	*nr = 5;
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
	*nr = UINT64_MAX / 4;
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
	*nr = 4;

	/* A raw size running past the end, and one breaking u64 alignment. */
	uint32_t *rsz = (uint32_t *)(rb_bytes(&b) + 8 + fmt.sample_fixed + 8 + 32);
	*rsz = 20;
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
	*rsz = 11;
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
	*rsz = 4; /* shorter but aligned: fine, the rest is ignored */
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
	assert_int_equal(r.sample.raw_size, 4);
	free(keep);
}

static void test_sample_branch_stack(void **state)
{
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN |
			    PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;

	for (int variant = 0; variant < 3; variant++) {
		/* 0: plain, 1: HW_INDEX, 2: HW_INDEX and per-branch counters */
		uint64_t bst = PERF_SAMPLE_BRANCH_ANY;
		struct records_format fmt;
		struct rb b;
		struct record r;
		void *keep;

		if (variant >= 1)
			bst |= PERF_SAMPLE_BRANCH_HW_INDEX;
		if (variant == 2)
			bst |= 1ull << 19; /* PERF_SAMPLE_BRANCH_COUNTERS */
		assert_int_equal(records_format_init(&fmt, st, bst, false), 0);
		rb_start(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
		rb_sample_fixed(&b, st);
		rb_u64(&b, 1); /* callchain nr */
		rb_u64(&b, 0x400100);
		rb_u64(&b, 2); /* branch nr */
		if (variant >= 1)
			rb_u64(&b, 17);
		for (int i = 0; i < 2; i++) {
			rb_u64(&b, 0x1000 + (uint64_t)i); /* from */
			rb_u64(&b, 0x2000 + (uint64_t)i); /* to */
			rb_u64(&b, 0);                    /* flags */
		}
		if (variant == 2) {
			rb_u64(&b, 31);
			rb_u64(&b, 32);
		}
		rb_u64(&b, 444); /* weight: after the branch stack, ignored */
		rb_u64(&b, 555); /* data_src: ignored */
		assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
		check_sample_fixed(st, &r);
		assert_int_equal(r.fields, st & ~(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC));
		assert_int_equal(r.sample.nr_ips, 1);
		assert_int_equal(r.sample.ips[0], 0x400100);
		assert_int_equal(r.sample.nr_branches, 2);
		assert_int_equal(r.sample.hw_idx, variant >= 1 ? 17 : 0);
		assert_int_equal(r.sample.branches[1].from, 0x1001);
		assert_int_equal(r.sample.branches[1].to, 0x2001);
		if (variant == 2) {
			assert_non_null(r.sample.branch_counters);
			assert_int_equal(r.sample.branch_counters[1], 32);
		} else {
			assert_null(r.sample.branch_counters);
		}
		free(keep);
		/* Dropping weight and data_src leaves a valid shorter sample. */
		check_truncations_from(&fmt, &b, b.len - 16);
	}
}

static void test_sample_read_unsupported(void **state)
{
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD |
			    PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN;
	struct records_format fmt;
	struct rb b;
	struct record r;

	assert_int_equal(records_format_init(&fmt, st, 0, false), -EOPNOTSUPP);
	rb_start(&b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_sample_fixed(&b, st);
	rb_u64(&b, 12345); /* read_format values we cannot size */
	rb_u64(&b, 1);
	rb_u64(&b, 0x400000);
	assert_int_equal(records_decode(&fmt, rb_end(&b), &r), -EOPNOTSUPP);
	/* What comes before READ is still right, and says so. */
	assert_int_equal(r.fields, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD);
	assert_int_equal(r.sample.ip, S_IP);
	assert_int_equal(r.id.tid, S_TID);
	assert_int_equal(r.sample.period, S_PERIOD);
	assert_null(r.sample.ips);
}

static void test_sample_no_trailer(void **state)
{
	/* sample_id_all never adds a trailer to a SAMPLE: extra bytes at the
	 * end of a sample are ignored, not read as a trailer. */
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	struct records_format fmt;
	struct rb b;
	struct record r;

	records_format_init(&fmt, st, 0, true);
	rb_start(&b, PERF_RECORD_SAMPLE, 0);
	rb_sample_fixed(&b, st);
	rb_u64(&b, 0xdead);
	assert_int_equal(records_decode(&fmt, rb_end(&b), &r), 0);
	check_sample_fixed(st, &r);
}

/* REGS_USER and STACK_USER (what --call-graph dwarf samples), after a
 * callchain: well formed, then truncated at every length, then lying. */
#define REGS_MASK ((1ull << 6) | (1ull << 7) | (1ull << 8)) /* bp, sp, ip */

static void build_user_sample(struct rb *b, uint64_t st, uint64_t abi, uint64_t stack_size,
			      uint64_t dyn)
{
	rb_start(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);
	rb_sample_fixed(b, st);
	rb_u64(b, 2); /* callchain: kernel marker, one frame */
	rb_u64(b, PERF_CONTEXT_KERNEL);
	rb_u64(b, 0xffffffff81000000ull);
	rb_u64(b, abi);
	if (abi != PERF_SAMPLE_REGS_ABI_NONE) {
		rb_u64(b, 0x7ffc0010); /* bp */
		rb_u64(b, 0x7ffc0000); /* sp */
		rb_u64(b, 0x401000);   /* ip */
	}
	rb_u64(b, stack_size);
	for (uint64_t i = 0; i < stack_size / 8; i++)
		rb_u64(b, 0x1000 + i);
	if (stack_size)
		rb_u64(b, dyn);
}

static void test_sample_regs_stack_user(void **state)
{
	const uint64_t st = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	const size_t regs_at = 8 + 24 + 24; /* header, fixed, callchain */
	struct records_format fmt;
	struct rb b;
	struct record r;
	void *keep;

	(void)state;
	assert_int_equal(records_format_init(&fmt, st, 0, true), 0);
	records_format_set_regs_user(&fmt, REGS_MASK);
	build_user_sample(&b, st, PERF_SAMPLE_REGS_ABI_64, 64, 40);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
	assert_int_equal(r.fields, st);
	assert_int_equal(r.sample.nr_ips, 2);
	assert_int_equal(r.sample.regs_abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(r.sample.nr_regs, 3);
	assert_int_equal(r.sample.regs[1], 0x7ffc0000);
	assert_int_equal(r.sample.regs[2], 0x401000);
	assert_int_equal(r.sample.stack_size, 64);
	assert_int_equal(r.sample.stack_dyn_size, 40);
	assert_non_null(r.sample.stack);
	assert_int_equal(((const uint64_t *)(const void *)r.sample.stack)[7], 0x1007);
	free(keep);
	check_truncations(&fmt, &b);

	/* No user registers (a kernel thread) and no stack copied. */
	build_user_sample(&b, st, PERF_SAMPLE_REGS_ABI_NONE, 0, 0);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
	assert_int_equal(r.sample.regs_abi, PERF_SAMPLE_REGS_ABI_NONE);
	assert_int_equal(r.sample.nr_regs, 0);
	assert_null(r.sample.regs);
	assert_int_equal(r.sample.stack_size, 0);
	assert_null(r.sample.stack);
	free(keep);
	check_truncations(&fmt, &b);

	/* Lying records: an abi that does not exist, dyn_size over size, a size
	 * past the end, an unaligned size, a size that leaves no dyn_size. */
	build_user_sample(&b, st, PERF_SAMPLE_REGS_ABI_64, 64, 40);
	uint64_t *abi = (uint64_t *)(void *)(rb_bytes(&b) + regs_at);
	uint64_t *size = abi + 4, *dyn = size + 1 + 8;
	*abi = 3;
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
	*abi = PERF_SAMPLE_REGS_ABI_64;
	*dyn = 72;
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
	*dyn = 64; /* all of it: fine */
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), 0);
	free(keep);
	const uint64_t lies[] = {72, 65, 60, UINT64_MAX, UINT64_MAX - 7, 1ull << 63};
	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
		*size = lies[i];
		assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
		free(keep);
	}
	*size = 56; /* shorter: dyn_size is then read from the last stack word */
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);

	/* A mask larger than the record: the registers run past the end. */
	*size = 64;
	records_format_set_regs_user(&fmt, ~0ull);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
	/* A format without REGS_USER reads the same bytes as the stack size. */
	assert_int_equal(records_format_init(&fmt, st & ~(uint64_t)PERF_SAMPLE_REGS_USER, 0, true),
			 0);
	assert_int_equal(decode_exact(&fmt, rb_end(&b), &r, &keep), -EINVAL);
	free(keep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmap),
		cmocka_unit_test(test_mmap2_inode),
		cmocka_unit_test(test_mmap2_build_id),
		cmocka_unit_test(test_comm),
		cmocka_unit_test(test_fork_exit),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_throttle),
		cmocka_unit_test(test_bad_strings),
		cmocka_unit_test(test_unknown_skipped),
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_header_checks),
		cmocka_unit_test(test_cpumode_enum),
		cmocka_unit_test(test_sample_fixed_combinations),
		cmocka_unit_test(test_sample_callchain_raw),
		cmocka_unit_test(test_sample_branch_stack),
		cmocka_unit_test(test_sample_read_unsupported),
		cmocka_unit_test(test_sample_no_trailer),
		cmocka_unit_test(test_sample_regs_stack_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
