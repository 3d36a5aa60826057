/* gen_seeds: writes a seed corpus for fuzz_records (well-formed rings of every record type). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_records.h"

struct seed {
	uint8_t cfg;
	uint64_t tail, head;
	size_t size; /* data area */
	uint8_t data[8192];
	const struct fuzz_format *fmt;
	int id_all;
};

static void put(struct seed *s, const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		s->data[(s->head + i) & (s->size - 1)] = b[i];
	s->head += len;
}

static void put64(struct seed *s, uint64_t v)
{
	put(s, &v, 8);
}

static void put32x2(struct seed *s, uint32_t a, uint32_t b)
{
	uint64_t v = (uint64_t)b << 32 | a;

	put64(s, v);
}

static void put_str(struct seed *s, const char *str)
{
	uint8_t pad[64] = {0};
	size_t n = strlen(str) + 1;

	memcpy(pad, str, n);
	put(s, pad, (n + 7) & ~(size_t)7);
}

static uint64_t begin(struct seed *s, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = 0};
	uint64_t at = s->head;

	put(s, &h, sizeof(h));
	return at;
}

static void end(struct seed *s, uint64_t at)
{
	uint16_t size = (uint16_t)(s->head - at);

	s->data[(at + 6) & (s->size - 1)] = (uint8_t)size;
	s->data[(at + 7) & (s->size - 1)] = (uint8_t)(size >> 8);
}

static void trailer(struct seed *s)
{
	uint64_t st = s->fmt->sample_type;

	if (!s->id_all)
		return;
	if (st & PERF_SAMPLE_TID)
		put32x2(s, 10, 11);
	if (st & PERF_SAMPLE_TIME)
		put64(s, 1000);
	if (st & PERF_SAMPLE_ID)
		put64(s, 7);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(s, 8);
	if (st & PERF_SAMPLE_CPU)
		put32x2(s, 1, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(s, 7);
}

static void sample(struct seed *s, uint64_t i)
{
	uint64_t st = s->fmt->sample_type, at = begin(s, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER);

	if (st & PERF_SAMPLE_IDENTIFIER)
		put64(s, 7);
	if (st & PERF_SAMPLE_IP)
		put64(s, 0x400000 + i);
	if (st & PERF_SAMPLE_TID)
		put32x2(s, 10, 11);
	if (st & PERF_SAMPLE_TIME)
		put64(s, 1000 + i);
	if (st & PERF_SAMPLE_ADDR)
		put64(s, 0xdead);
	if (st & PERF_SAMPLE_ID)
		put64(s, 7);
	if (st & PERF_SAMPLE_STREAM_ID)
		put64(s, 8);
	if (st & PERF_SAMPLE_CPU)
		put32x2(s, 1, 0);
	if (st & PERF_SAMPLE_PERIOD)
		put64(s, 100000);
	if (st & PERF_SAMPLE_READ)
		put64(s, 42);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put64(s, 3);
		put64(s, PERF_CONTEXT_USER);
		put64(s, 0x400000);
		put64(s, 0x400100);
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t rs = 12;
		uint8_t raw[12] = {1, 2, 3};

		put(s, &rs, 4);
		put(s, raw, 12);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		put64(s, 2);
		if (s->fmt->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			put64(s, 1);
		for (int b = 0; b < 6; b++)
			put64(s, 0x1000 + (uint64_t)b);
		if (s->fmt->branch_sample_type & (1ull << 19)) {
			put64(s, 5);
			put64(s, 6);
		}
	}
	if (st & PERF_SAMPLE_REGS_USER) {
		put64(s, PERF_SAMPLE_REGS_ABI_64);
		for (int r = 0; r < __builtin_popcountll(FUZZ_REGS_USER); r++)
			put64(s, 0x7ffc0000 + (uint64_t)r);
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		put64(s, 32);
		for (int w = 0; w < 4; w++)
			put64(s, 0x401000 + (uint64_t)w);
		put64(s, 24);
	}
	if (st & PERF_SAMPLE_WEIGHT)
		put64(s, 99);
	end(s, at);
}

static void side_band(struct seed *s, int build_id)
{
	uint64_t at;

	at = begin(s, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	put32x2(s, 10, 11);
	put_str(s, "program");
	trailer(s);
	end(s, at);

	at = begin(s, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	put32x2(s, 10, 11);
	put64(s, 0x400000);
	put64(s, 0x1000);
	put64(s, 0);
	put_str(s, "/usr/bin/program");
	trailer(s);
	end(s, at);

	at = begin(s, PERF_RECORD_MMAP2,
		   PERF_RECORD_MISC_USER | (build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0));
	put32x2(s, 10, 11);
	put64(s, 0x7f0000000000);
	put64(s, 0x2000);
	put64(s, 0);
	if (build_id) {
		uint8_t u[24] = {20, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef};

		put(s, u, sizeof(u));
	} else {
		put32x2(s, 8, 1);
		put64(s, 1234);
		put64(s, 1);
	}
	put32x2(s, 5, 2);
	put_str(s, "/lib/libc.so.6");
	trailer(s);
	end(s, at);

	for (uint32_t t = PERF_RECORD_EXIT; t <= PERF_RECORD_FORK; t++) {
		if (t == PERF_RECORD_EXIT || t == PERF_RECORD_FORK) {
			at = begin(s, t, 0);
			put32x2(s, 12, 10);
			put32x2(s, 12, 11);
			put64(s, 2000);
		} else { /* THROTTLE, UNTHROTTLE */
			at = begin(s, t, 0);
			put64(s, 2000);
			put64(s, 7);
			put64(s, 8);
		}
		trailer(s);
		end(s, at);
	}

	at = begin(s, PERF_RECORD_LOST, 0);
	put64(s, 7);
	put64(s, 3);
	trailer(s);
	end(s, at);

	at = begin(s, PERF_RECORD_LOST_SAMPLES, 0);
	put64(s, 4);
	trailer(s);
	end(s, at);

	at = begin(s, PERF_RECORD_SWITCH, 0);
	trailer(s);
	end(s, at);
}

static void start(struct seed *s, int fmt, int id_all, int size_log, uint64_t tail)
{
	memset(s, 0, sizeof(*s));
	s->fmt = &fuzz_formats[fmt];
	s->id_all = id_all;
	s->size = (size_t)64 << size_log;
	s->tail = s->head = tail;
	s->cfg = (uint8_t)(fmt | (id_all ? 4 : 0) | (size_log << 3));
}

static int emit(const char *dir, int n, struct seed *s, int raw_head)
{
	char path[4096];
	uint8_t hdr[FUZZ_HDR];
	uint64_t head = s->head;
	FILE *f;

	if (raw_head)
		s->cfg |= 0x40;
	hdr[0] = s->cfg;
	memcpy(hdr + 1, &s->tail, 8);
	if (!raw_head)
		head -= s->tail;
	memcpy(hdr + 9, &head, 8);
	snprintf(path, sizeof(path), "%s/seed-%02d", dir, n);
	f = fopen(path, "wb");
	if (!f || fwrite(hdr, 1, sizeof(hdr), f) != sizeof(hdr) ||
	    fwrite(s->data, 1, s->size, f) != s->size || fclose(f)) {
		perror(path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct seed s;
	int n = 0, err = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	for (int fmt = 0; fmt < 4; fmt++) {
		for (int id_all = 0; id_all < 2; id_all++) {
			/* From zero, and wrapping (started 24 bytes before the end). */
			for (int wrap = 0; wrap < 2; wrap++) {
				start(&s, fmt, id_all, 5, wrap ? 3 * 2048 - 24 : 0);
				for (uint64_t i = 0; i < 4; i++)
					sample(&s, i);
				side_band(&s, wrap);
				sample(&s, 9);
				err |= emit(argv[1], n++, &s, 0);
			}
		}
	}
	/* A corrupt header in the middle, and a lapped reader. */
	start(&s, 0, 1, 3, 0);
	sample(&s, 0);
	put64(&s, 0);
	sample(&s, 1);
	err |= emit(argv[1], n++, &s, 0);
	start(&s, 0, 1, 1, 64);
	for (uint64_t i = 0; i < 20; i++)
		sample(&s, i);
	err |= emit(argv[1], n++, &s, 1);
	return err;
}
