/* records: decoder for the records a perf ring carries (samples and side band). */
#ifndef PFMTOP_RECORDS_H
#define PFMTOP_RECORDS_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What the decoder must know about the event that wrote the records: the
 * attr's sample_type, branch_sample_type and sample_id_all. Build it once
 * per event with records_format_init() (plain data, copy it freely).
 *
 * Decodable PERF_RECORD_SAMPLE fields, in the kernel's layout order:
 * IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, CALLCHAIN,
 * RAW, BRANCH_STACK, REGS_USER (needs attr.sample_regs_user: see
 * records_format_set_regs_user()), STACK_USER. Fields the kernel writes
 * after STACK_USER (WEIGHT, DATA_SRC, ...) cannot move the ones before
 * them and are ignored. PERF_SAMPLE_READ sits between PERIOD and
 * CALLCHAIN and needs read_format, which this decoder does not take:
 * decoding stops before it (see records_decode()).
 */
struct records_format {
	uint64_t sample_type;        /* attr.sample_type */
	uint64_t branch_sample_type; /* attr.branch_sample_type */
	bool sample_id_all;          /* attr.sample_id_all */
	uint64_t sample_regs_user;   /* attr.sample_regs_user (records_format_set_regs_user()) */
	/* Derived by records_format_init(); do not set by hand. */
	uint32_t sample_fixed;   /* bytes of the fixed sample fields IDENTIFIER..PERIOD */
	uint32_t id_trailer;     /* bytes of the sample_id trailer on other records */
	uint64_t sample_fields;  /* sample_type bits a SAMPLE decodes into */
	uint64_t trailer_fields; /* sample_type bits the trailer carries, 0 if !sample_id_all */
};

/*
 * Fill fmt for an event opened with these attr fields. Returns 0, or
 * -EOPNOTSUPP when samples will not decode past PERIOD (PERF_SAMPLE_READ
 * is selected); fmt is filled either way and stays usable.
 */
int records_format_init(struct records_format *fmt, uint64_t sample_type,
                        uint64_t branch_sample_type, bool sample_id_all);

/* Set the register mask the event was opened with (attr.sample_regs_user):
 * a REGS_USER field holds one u64 per bit set, after its abi word. Call it
 * after records_format_init(), which clears it. */
void records_format_set_regs_user(struct records_format *fmt, uint64_t mask);

/* misc & PERF_RECORD_MISC_CPUMODE_MASK: an enum, not a set of bits. */
enum records_cpumode {
	RECORDS_CPUMODE_UNKNOWN = PERF_RECORD_MISC_CPUMODE_UNKNOWN,
	RECORDS_CPUMODE_KERNEL = PERF_RECORD_MISC_KERNEL,
	RECORDS_CPUMODE_USER = PERF_RECORD_MISC_USER,
	RECORDS_CPUMODE_HYPERVISOR = PERF_RECORD_MISC_HYPERVISOR,
	RECORDS_CPUMODE_GUEST_KERNEL = PERF_RECORD_MISC_GUEST_KERNEL,
	RECORDS_CPUMODE_GUEST_USER = PERF_RECORD_MISC_GUEST_USER,
	/* 6 and 7 are not assigned; they come through as is. */
};

/*
 * The fields a sample and the sample_id_all trailer share. For a SAMPLE
 * they are the sample's own; for other records they come from the trailer
 * (all zero without sample_id_all). id is PERF_SAMPLE_ID or
 * PERF_SAMPLE_IDENTIFIER (the same value: the primary event's id, the
 * parent's for inherited clones); stream_id is the event's own id.
 */
struct records_id {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
	uint64_t stream_id;
	uint32_t cpu;
};

/* PERF_RECORD_SAMPLE. Pointers point into the record. */
struct records_sample {
	uint64_t ip;
	uint64_t addr;
	uint64_t period;
	uint64_t nr_ips; /* CALLCHAIN: entries, PERF_CONTEXT_* markers included */
	const uint64_t *ips;
	uint32_t raw_size; /* RAW: bytes at raw (padding included) */
	const void *raw;
	uint64_t nr_branches; /* BRANCH_STACK */
	uint64_t hw_idx;      /* with PERF_SAMPLE_BRANCH_HW_INDEX, else 0 */
	const struct perf_branch_entry *branches;
	const uint64_t *branch_counters; /* nr_branches of them with
	                                  * PERF_SAMPLE_BRANCH_COUNTERS, else NULL */
	/* REGS_USER: abi is PERF_SAMPLE_REGS_ABI_NONE (no user registers: a
	 * kernel thread, or a sample taken in kernel code of one), _32 or _64;
	 * then regs holds nr_regs values, one per bit of the format's mask in
	 * ascending bit order (NULL and 0 with ABI_NONE). */
	uint64_t regs_abi;
	uint32_t nr_regs;
	const uint64_t *regs;
	/* STACK_USER: the bytes copied from the user stack at the sampled sp;
	 * stack_size is what the record reserves (0: nothing copied), and
	 * stack_dyn_size (<= stack_size) how many of those bytes are real. */
	uint64_t stack_size;
	uint64_t stack_dyn_size;
	const unsigned char *stack;
};

/* PERF_RECORD_MMAP and PERF_RECORD_MMAP2. */
struct records_mmap {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	bool mmap2;        /* the fields below are set */
	bool has_build_id; /* misc & PERF_RECORD_MISC_MMAP_BUILD_ID */
	uint32_t maj, min; /* !has_build_id */
	uint64_t ino, ino_generation;
	uint8_t build_id_size; /* has_build_id: <= 20 */
	const uint8_t *build_id;
	uint32_t prot, flags;
	const char *filename; /* NUL-terminated inside the record */
};

/* PERF_RECORD_COMM. */
struct records_comm {
	uint32_t pid, tid;
	bool exec;        /* misc & PERF_RECORD_MISC_COMM_EXEC: exec, not PR_SET_NAME */
	const char *comm; /* NUL-terminated inside the record */
};

/* PERF_RECORD_FORK and PERF_RECORD_EXIT. */
struct records_task {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

/* PERF_RECORD_LOST: the kernel dropped `lost` records for event id. */
struct records_lost {
	uint64_t id, lost;
};

/* PERF_RECORD_LOST_SAMPLES: samples dropped (e.g. by the PMU). */
struct records_lost_samples {
	uint64_t lost;
};

/* PERF_RECORD_THROTTLE and PERF_RECORD_UNTHROTTLE. */
struct records_throttle {
	uint64_t time, id, stream_id;
};

/* PERF_RECORD_SWITCH and PERF_RECORD_SWITCH_CPU_WIDE: a context switch on
 * the CPU that wrote it. The task switched out (out) or in is the
 * record's id.tid (sample_id_all with PERF_SAMPLE_TID); a CPU-wide record
 * also names the other task, the one coming in or going out. */
struct records_switch {
	bool out;      /* misc & PERF_RECORD_MISC_SWITCH_OUT */
	bool cpu_wide; /* next_prev_* are set */
	uint32_t next_prev_pid, next_prev_tid;
};

/* One decoded record: tagged by type. */
struct record {
	uint32_t type; /* PERF_RECORD_* */
	uint16_t misc;
	uint16_t size;
	enum records_cpumode cpumode;
	/* sample_type bits decoded into id (and, for a SAMPLE, sample). */
	uint64_t fields;
	struct records_id id;
	union {
		struct records_sample sample;             /* SAMPLE */
		struct records_mmap mmap;                 /* MMAP, MMAP2 */
		struct records_comm comm;                 /* COMM */
		struct records_task task;                 /* FORK, EXIT */
		struct records_lost lost;                 /* LOST */
		struct records_lost_samples lost_samples; /* LOST_SAMPLES */
		struct records_throttle throttle;         /* THROTTLE, UNTHROTTLE */
		struct records_switch sw;                 /* SWITCH, SWITCH_CPU_WIDE */
	};
	/* Not decoded: a SAMPLE's ring, as 1 + its index, set by the sampler
	 * that counts it when it leaves the time-ordered queue; 0 unknown. */
	uint32_t deferred;
};

/* records_decode() result for a record type it does not decode. */
#define RECORDS_SKIP 1

/*
 * Decode one record (as handed over by ring_drain(): 8-byte aligned, valid
 * for rec->size bytes) written by an event with format fmt. Nothing past
 * rec->size is read. Pointers in out point into rec and live as long as it
 * does. Fields not selected (not in out->fields) are zero.
 *
 * Returns 0 when decoded; RECORDS_SKIP for a type this decoder does not
 * know (type, misc, size and cpumode are set: advance by size); -EINVAL
 * for a record that is truncated or malformed (a field or string runs past
 * the end, a string without its NUL, a build id over 20 bytes, a
 * misaligned rec); -EOPNOTSUPP for a SAMPLE whose format selects
 * PERF_SAMPLE_READ, after decoding the fields before it (out->fields says
 * which). On error out holds what was decoded so far.
 */
int records_decode(const struct records_format *fmt, const struct perf_event_header *rec,
                   struct record *out);

/* Name of a PERF_RECORD_* type ("SAMPLE", "MMAP2", ...), "UNKNOWN" if new. */
const char *records_type_name(uint32_t type);

#endif
