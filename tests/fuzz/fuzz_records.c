/* fuzz_records: libFuzzer harness for ring_drain() and records_decode() over arbitrary rings. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_records.h"
#include "records.h"
#include "ring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_ctx {
	struct records_format fmt;
	uint64_t records;
	volatile uint64_t sink;
};

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			__builtin_trap();                                                          \
	} while (0)

static uint64_t le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int inside(const void *p, size_t len, const unsigned char *lo, size_t size)
{
	const unsigned char *c = p;

	return c >= lo && len <= size && (size_t)(c - lo) <= size - len;
}

/* Touch everything a decoded record points at, so the sanitizer sees any
 * pointer that escapes the record. */
static void use_record(struct fuzz_ctx *c, const struct record *r, const unsigned char *rec,
		       size_t size)
{
	uint64_t acc = r->id.pid ^ r->id.time ^ r->id.id;

	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		if (r->sample.ips) {
			CHECK(inside(r->sample.ips, r->sample.nr_ips * 8, rec, size));
			for (uint64_t i = 0; i < r->sample.nr_ips; i++)
				acc += r->sample.ips[i];
		}
		if (r->sample.raw) {
			CHECK(inside(r->sample.raw, r->sample.raw_size, rec, size));
			for (uint32_t i = 0; i < r->sample.raw_size; i++)
				acc += ((const uint8_t *)r->sample.raw)[i];
		}
		if (r->sample.branches) {
			CHECK(inside(r->sample.branches,
				     r->sample.nr_branches * sizeof(struct perf_branch_entry), rec,
				     size));
			for (uint64_t i = 0; i < r->sample.nr_branches; i++)
				acc += r->sample.branches[i].from ^ r->sample.branches[i].to;
		}
		if (r->sample.branch_counters) {
			CHECK(inside(r->sample.branch_counters, r->sample.nr_branches * 8, rec,
				     size));
			for (uint64_t i = 0; i < r->sample.nr_branches; i++)
				acc += r->sample.branch_counters[i];
		}
		if (r->sample.regs) {
			CHECK(inside(r->sample.regs, (size_t)r->sample.nr_regs * 8, rec, size));
			for (uint32_t i = 0; i < r->sample.nr_regs; i++)
				acc += r->sample.regs[i];
		}
		if (r->sample.stack) {
			CHECK(r->sample.stack_dyn_size <= r->sample.stack_size);
			CHECK(inside(r->sample.stack, r->sample.stack_size + 8, rec, size));
			for (uint64_t i = 0; i < r->sample.stack_size; i++)
				acc += r->sample.stack[i];
		}
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2: {
		size_t n = strlen(r->mmap.filename);

		CHECK(inside(r->mmap.filename, n + 1, rec, size));
		acc += n;
		if (r->mmap.build_id) {
			CHECK(r->mmap.build_id_size <= 20);
			CHECK(inside(r->mmap.build_id, 20, rec, size));
			for (int i = 0; i < r->mmap.build_id_size; i++)
				acc += r->mmap.build_id[i];
		}
		break;
	}
	case PERF_RECORD_COMM: {
		size_t n = strlen(r->comm.comm);

		CHECK(inside(r->comm.comm, n + 1, rec, size));
		acc += n;
		break;
	}
	default:
		break;
	}
	c->sink += acc;
}

static void on_record(const struct perf_event_header *h, void *arg)
{
	struct fuzz_ctx *c = arg;
	struct record r;
	unsigned char *copy;
	int ret;

	CHECK(h->size >= 8 && !(h->size & 7) && !((uintptr_t)h & 7));
	c->records++;
	/* Decode from an exact-size copy: a read past size is a heap overflow. */
	copy = malloc(h->size);
	CHECK(copy);
	memcpy(copy, h, h->size);
	ret = records_decode(&c->fmt, (const struct perf_event_header *)copy, &r);
	CHECK(ret == 0 || ret == RECORDS_SKIP || ret == -EINVAL || ret == -EOPNOTSUPP);
	CHECK(r.type == h->type && r.size == h->size);
	if (ret == 0)
		use_record(c, &r, copy, h->size);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_event_mmap_page *ctl;
	struct fuzz_ctx c;
	struct ring r;
	unsigned char *ring;
	size_t ring_size, n;
	uint64_t tail, head;
	uint8_t cfg;
	int ret;

	if (size < FUZZ_HDR)
		return 0;
	cfg = data[0];
	tail = le64(data + 1);
	head = le64(data + 9);
	if (!(cfg & 0x40))
		head = tail + (head & 0xffff);
	ring_size = (size_t)64 << ((cfg >> 3) & 7);

	memset(&c, 0, sizeof(c));
	records_format_init(&c.fmt, fuzz_formats[cfg & 3].sample_type,
			    fuzz_formats[cfg & 3].branch_sample_type, cfg & 4);
	records_format_set_regs_user(&c.fmt, FUZZ_REGS_USER);

	ctl = calloc(1, sizeof(*ctl));
	ring = aligned_alloc(64, ring_size);
	CHECK(ctl && ring);
	memset(ring, 0, ring_size);
	n = size - FUZZ_HDR < ring_size ? size - FUZZ_HDR : ring_size;
	memcpy(ring, data + FUZZ_HDR, n);
	ctl->data_tail = tail;
	ctl->data_head = head;

	CHECK(ring_init_mem(&r, ctl, ring, ring_size) == 0);
	ret = ring_drain(&r, on_record, &c);
	CHECK(ret >= 0 && (uint64_t)ret == c.records);
	/* A drain always ends at the head it loaded, one way or the other. */
	CHECK(ctl->data_tail == head && r.tail == head);
	CHECK(r.stats.bytes + r.stats.dropped == head - tail);
	CHECK(r.stats.corrupt <= 1);
	/* Nothing new: the second drain is empty. */
	CHECK(ring_drain(&r, on_record, &c) == 0);
	ring_unmap(&r);
	free(ring);
	free(ctl);
	return 0;
}
