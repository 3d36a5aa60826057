/* fuzz_records.h: the input layout shared by the harness and its seed generator. */
#ifndef PFMTOP_FUZZ_RECORDS_H
#define PFMTOP_FUZZ_RECORDS_H

#include <linux/perf_event.h>
#include <stdint.h>

/*
 * Input: 17 bytes of header, then the ring's data area (zero-filled or cut
 * to its size).
 *
 *   byte 0      bits 0-1  sample format (index into fuzz_formats)
 *               bit  2    sample_id_all
 *               bits 3-5  data area = 64 << n bytes
 *               bit  6    data_head is taken as is (else tail + u16)
 *   bytes 1-8   data_tail (little endian)
 *   bytes 9-16  data_head, or its low 16 bits as head - tail
 */
#define FUZZ_HDR 17

/* attr.sample_regs_user of the formats with REGS_USER: bp, sp, ip. */
#define FUZZ_REGS_USER ((1ull << 6) | (1ull << 7) | (1ull << 8))

struct fuzz_format {
	uint64_t sample_type;
	uint64_t branch_sample_type;
};

static const struct fuzz_format fuzz_formats[4] = {
	/* What the app opens. */
	{PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD,
	 0},
	/* Every fixed field, a callchain, raw data, user registers and stack
	 * (FUZZ_REGS_USER). */
	{PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
		 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER,
	 0},
	/* Branch stack with hw_idx and per-branch counters, trailing weight. */
	{PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK |
		 PERF_SAMPLE_WEIGHT,
	 PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_HW_INDEX | (1ull << 19)},
	/* PERF_SAMPLE_READ: decoding stops before it. */
	{PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
		 PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
	 0},
};

#endif
