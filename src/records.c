/* records: bounds-checked decoding of PERF_RECORD_* records into struct record. */
#include "records.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Not in older uapi headers (Linux 6.8): per-branch counters after lbr[nr]. */
#define RECORDS_BRANCH_COUNTERS (1ULL << 19)

/* Sample fields of fixed size, IDENTIFIER..PERIOD, each 8 bytes. */
#define FIXED_BITS                                                                                 \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |            \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |             \
	 PERF_SAMPLE_PERIOD)
/* What sample_id_all appends to other records, each 8 bytes. */
#define TRAILER_BITS                                                                               \
	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |             \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)
/* Variable fields walked after READ. */
#define VAR_BITS                                                                                   \
	(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |                      \
	 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)

/* Fixed part of each side-band body, before strings and the trailer. */
#define MMAP_FIXED  32 /* pid, tid, addr, len, pgoff */
#define MMAP2_FIXED 64 /* + maj/min/ino/ino_generation or build id, prot, flags */
#define COMM_FIXED  8  /* pid, tid */

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int records_format_init(struct records_format *fmt, uint64_t sample_type,
                        uint64_t branch_sample_type, bool sample_id_all)
{
	memset(fmt, 0, sizeof(*fmt));
	fmt->sample_type = sample_type;
	fmt->branch_sample_type = branch_sample_type;
	fmt->sample_id_all = sample_id_all;
	fmt->sample_fixed = 8u * (uint32_t)__builtin_popcountll(sample_type & FIXED_BITS);
	fmt->sample_fields = sample_type & (FIXED_BITS | VAR_BITS);
	if (sample_id_all) {
		fmt->trailer_fields = sample_type & TRAILER_BITS;
		fmt->id_trailer = 8u * (uint32_t)__builtin_popcountll(fmt->trailer_fields);
	}
	if (sample_type & PERF_SAMPLE_READ) {
		fmt->sample_fields &= FIXED_BITS;
		return -EOPNOTSUPP;
	}
	return 0;
}

void records_format_set_regs_user(struct records_format *fmt, uint64_t mask)
{
	fmt->sample_regs_user = mask;
}

/* REGS_USER then STACK_USER, from p; 0 or -EINVAL. */
static int decode_user(const struct records_format *fmt, const unsigned char *p,
                       const unsigned char *end, struct record *out)
{
	const uint64_t st = fmt->sample_type;
	struct records_sample *s = &out->sample;

	if (st & PERF_SAMPLE_REGS_USER) {
		if (end - p < 8)
			return -EINVAL;
		s->regs_abi = rd64(p);
		p += 8;
		if (s->regs_abi != PERF_SAMPLE_REGS_ABI_NONE) {
			const uint32_t nr = (uint32_t)__builtin_popcountll(fmt->sample_regs_user);

			if (s->regs_abi > PERF_SAMPLE_REGS_ABI_64 || (size_t)(end - p) / 8 < nr)
				return -EINVAL;
			s->nr_regs = nr;
			s->regs = nr ? (const uint64_t *)(const void *)p : NULL;
			p += (size_t)nr * 8;
		}
		out->fields |= PERF_SAMPLE_REGS_USER;
	}
	if (st & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn;

		if (end - p < 8)
			return -EINVAL;
		size = rd64(p);
		p += 8;
		/* size, then size bytes, then dyn_size (only when size is not 0) */
		if (size) {
			if (size > (uint64_t)(end - p) || (uint64_t)(end - p) - size < 8 ||
			    (size & 7))
				return -EINVAL;
			dyn = rd64(p + size);
			if (dyn > size)
				return -EINVAL;
			s->stack = p;
			s->stack_size = size;
			s->stack_dyn_size = dyn;
		}
		out->fields |= PERF_SAMPLE_STACK_USER;
	}
	return 0;
}

static int decode_sample(const struct records_format *fmt, const unsigned char *p,
                         const unsigned char *end, struct record *out)
{
	const uint64_t st = fmt->sample_type;
	struct records_sample *s = &out->sample;
	uint64_t nr, avail;

	/* Every field is written here, not by a memset of the whole record:
	 * this is the hot path, and a memset of struct record costs more than
	 * the rest of the decode. */
	out->id = (struct records_id){0};
	s->ip = s->addr = s->period = 0;
	s->nr_ips = s->nr_branches = s->hw_idx = 0;
	s->ips = NULL;
	s->raw_size = 0;
	s->raw = NULL;
	s->branches = NULL;
	s->branch_counters = NULL;
	s->regs_abi = s->stack_size = s->stack_dyn_size = 0;
	s->nr_regs = 0;
	s->regs = NULL;
	s->stack = NULL;
	if ((size_t)(end - p) < fmt->sample_fixed)
		return -EINVAL;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		out->id.id = rd64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_IP) {
		s->ip = rd64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_TID) {
		out->id.pid = rd32(p);
		out->id.tid = rd32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		out->id.time = rd64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_ADDR) {
		s->addr = rd64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_ID) {
		out->id.id = rd64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_STREAM_ID) {
		out->id.stream_id = rd64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_CPU) {
		out->id.cpu = rd32(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		s->period = rd64(p);
		p += 8;
	}
	out->fields = st & FIXED_BITS;
	if (!(st & (VAR_BITS | PERF_SAMPLE_READ)))
		return 0;
	if (st & PERF_SAMPLE_READ)
		return -EOPNOTSUPP;

	/* A record is at most 64 KiB, so avail bounds nr before any multiply. */
	if (st & PERF_SAMPLE_CALLCHAIN) {
		if (end - p < 8)
			return -EINVAL;
		nr = rd64(p);
		p += 8;
		avail = (uint64_t)(end - p);
		if (nr > avail / 8)
			return -EINVAL;
		s->nr_ips = nr;
		s->ips = (const uint64_t *)(const void *)p;
		p += nr * 8;
		out->fields |= PERF_SAMPLE_CALLCHAIN;
	}
	if (st & PERF_SAMPLE_RAW) {
		uint32_t size;

		if (end - p < 4)
			return -EINVAL;
		size = rd32(p);
		p += 4;
		/* The kernel pads size so that size + 4 keeps u64 alignment. */
		if (size > (uint64_t)(end - p) || ((size + 4u) & 7))
			return -EINVAL;
		s->raw_size = size;
		s->raw = p;
		p += size;
		out->fields |= PERF_SAMPLE_RAW;
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		if (end - p < 8)
			return -EINVAL;
		nr = rd64(p);
		p += 8;
		if (fmt->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX) {
			if (end - p < 8)
				return -EINVAL;
			s->hw_idx = rd64(p);
			p += 8;
		}
		avail = (uint64_t)(end - p);
		if (nr > avail || nr * sizeof(struct perf_branch_entry) > avail)
			return -EINVAL;
		s->branches = (const struct perf_branch_entry *)(const void *)p;
		p += nr * sizeof(struct perf_branch_entry);
		if (fmt->branch_sample_type & RECORDS_BRANCH_COUNTERS) {
			if (nr * 8 > (uint64_t)(end - p))
				return -EINVAL;
			s->branch_counters = (const uint64_t *)(const void *)p;
			p += nr * 8;
		}
		s->nr_branches = nr;
		out->fields |= PERF_SAMPLE_BRANCH_STACK;
	}
	if (st & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
		return decode_user(fmt, p, end, out);
	return 0;
}

/* The sample_id_all trailer, read from the end; sets *body_end to its start. */
static int decode_trailer(const struct records_format *fmt, const unsigned char *p,
                          const unsigned char **body_end, struct record *out)
{
	const uint64_t tf = fmt->trailer_fields;
	const unsigned char *end = *body_end;

	if ((size_t)(end - p) < fmt->id_trailer)
		return -EINVAL;
	p = end - fmt->id_trailer;
	*body_end = p;
	if (tf & PERF_SAMPLE_TID) {
		out->id.pid = rd32(p);
		out->id.tid = rd32(p + 4);
		p += 8;
	}
	if (tf & PERF_SAMPLE_TIME) {
		out->id.time = rd64(p);
		p += 8;
	}
	if (tf & PERF_SAMPLE_ID) {
		out->id.id = rd64(p);
		p += 8;
	}
	if (tf & PERF_SAMPLE_STREAM_ID) {
		out->id.stream_id = rd64(p);
		p += 8;
	}
	if (tf & PERF_SAMPLE_CPU) {
		out->id.cpu = rd32(p);
		p += 8;
	}
	if (tf & PERF_SAMPLE_IDENTIFIER)
		out->id.id = rd64(p);
	out->fields = tf;
	return 0;
}

/* A NUL-terminated string filling [p, end) (NUL padded to 8 bytes). */
static const char *string_in(const unsigned char *p, const unsigned char *end)
{
	if (p >= end || !memchr(p, '\0', (size_t)(end - p)))
		return NULL;
	return (const char *)p;
}

static int decode_mmap(const unsigned char *p, const unsigned char *end, struct record *out)
{
	struct records_mmap *m = &out->mmap;
	const bool v2 = out->type == PERF_RECORD_MMAP2;
	const size_t fixed = v2 ? MMAP2_FIXED : MMAP_FIXED;

	if ((size_t)(end - p) < fixed)
		return -EINVAL;
	m->pid = rd32(p);
	m->tid = rd32(p + 4);
	m->addr = rd64(p + 8);
	m->len = rd64(p + 16);
	m->pgoff = rd64(p + 24);
	if (v2) {
		m->mmap2 = true;
		if (out->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->has_build_id = true;
			m->build_id_size = p[32];
			m->build_id = p + 36;
			if (m->build_id_size > 20)
				return -EINVAL;
		} else {
			m->maj = rd32(p + 32);
			m->min = rd32(p + 36);
			m->ino = rd64(p + 40);
			m->ino_generation = rd64(p + 48);
		}
		m->prot = rd32(p + 56);
		m->flags = rd32(p + 60);
	}
	m->filename = string_in(p + fixed, end);
	return m->filename ? 0 : -EINVAL;
}

int records_decode(const struct records_format *fmt, const struct perf_event_header *rec,
                   struct record *out)
{
	const unsigned char *p = (const unsigned char *)(rec + 1);
	const unsigned char *end;
	int err;

	out->fields = 0;
	if ((uintptr_t)rec & 7) {
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	out->type = rec->type;
	out->misc = rec->misc;
	out->size = rec->size;
	out->cpumode = (enum records_cpumode)(rec->misc & PERF_RECORD_MISC_CPUMODE_MASK);
	if (rec->type == PERF_RECORD_SAMPLE && rec->size >= sizeof(*rec)) {
		end = (const unsigned char *)rec + rec->size;
		return decode_sample(fmt, p, end, out);
	}
	/* Side band is rare: clearing everything is fine here. */
	memset((char *)out + offsetof(struct record, id), 0,
	       sizeof(*out) - offsetof(struct record, id));
	if (rec->size < sizeof(*rec))
		return -EINVAL;
	end = (const unsigned char *)rec + rec->size;

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
	case PERF_RECORD_LOST:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		break;
	default:
		return RECORDS_SKIP;
	}
	if (fmt->sample_id_all) {
		err = decode_trailer(fmt, p, &end, out);
		if (err)
			return err;
	}

	const size_t len = (size_t)(end - p);

	switch (rec->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return decode_mmap(p, end, out);
	case PERF_RECORD_COMM:
		if (len < COMM_FIXED)
			return -EINVAL;
		out->comm.pid = rd32(p);
		out->comm.tid = rd32(p + 4);
		out->comm.exec = !!(rec->misc & PERF_RECORD_MISC_COMM_EXEC);
		out->comm.comm = string_in(p + COMM_FIXED, end);
		return out->comm.comm ? 0 : -EINVAL;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (len < 24)
			return -EINVAL;
		out->task.pid = rd32(p);
		out->task.ppid = rd32(p + 4);
		out->task.tid = rd32(p + 8);
		out->task.ptid = rd32(p + 12);
		out->task.time = rd64(p + 16);
		return 0;
	case PERF_RECORD_LOST:
		if (len < 16)
			return -EINVAL;
		out->lost.id = rd64(p);
		out->lost.lost = rd64(p + 8);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (len < 8)
			return -EINVAL;
		out->lost_samples.lost = rd64(p);
		return 0;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		out->sw.out = !!(rec->misc & PERF_RECORD_MISC_SWITCH_OUT);
		if (rec->type == PERF_RECORD_SWITCH)
			return 0;
		if (len < 8)
			return -EINVAL;
		out->sw.cpu_wide = true;
		out->sw.next_prev_pid = rd32(p);
		out->sw.next_prev_tid = rd32(p + 4);
		return 0;
	default: /* THROTTLE, UNTHROTTLE */
		if (len < 24)
			return -EINVAL;
		out->throttle.time = rd64(p);
		out->throttle.id = rd64(p + 8);
		out->throttle.stream_id = rd64(p + 16);
		return 0;
	}
}

static const char *const type_names[] = {
    [PERF_RECORD_MMAP] = "MMAP",
    [PERF_RECORD_LOST] = "LOST",
    [PERF_RECORD_COMM] = "COMM",
    [PERF_RECORD_EXIT] = "EXIT",
    [PERF_RECORD_THROTTLE] = "THROTTLE",
    [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
    [PERF_RECORD_FORK] = "FORK",
    [PERF_RECORD_READ] = "READ",
    [PERF_RECORD_SAMPLE] = "SAMPLE",
    [PERF_RECORD_MMAP2] = "MMAP2",
    [PERF_RECORD_AUX] = "AUX",
    [PERF_RECORD_ITRACE_START] = "ITRACE_START",
    [PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES",
    [PERF_RECORD_SWITCH] = "SWITCH",
    [PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
    [PERF_RECORD_NAMESPACES] = "NAMESPACES",
    [PERF_RECORD_KSYMBOL] = "KSYMBOL",
    [PERF_RECORD_BPF_EVENT] = "BPF_EVENT",
    [PERF_RECORD_CGROUP] = "CGROUP",
    [PERF_RECORD_TEXT_POKE] = "TEXT_POKE",
    [21] = "AUX_OUTPUT_HW_ID",
};

const char *records_type_name(uint32_t type)
{
	if (type < sizeof(type_names) / sizeof(type_names[0]) && type_names[type])
		return type_names[type];
	return "UNKNOWN";
}
