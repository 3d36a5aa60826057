/* unwind: user call chains from a sample's registers and stack copy (DWARF CFI, elfutils libdwfl).
 */
#ifndef PFMTOP_UNWIND_H
#define PFMTOP_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symbols;
struct unwind;

/* x86-64's perf register numbers (asm/perf_regs.h on x86, a fixed ABI),
 * spelled here so that the file builds on every architecture. */
enum unwind_x86_reg {
	UNWIND_X86_BX = 1,
	UNWIND_X86_BP = 6,
	UNWIND_X86_SP = 7,
	UNWIND_X86_IP = 8,
	UNWIND_X86_R12 = 20,
	UNWIND_X86_R13 = 21,
	UNWIND_X86_R14 = 22,
	UNWIND_X86_R15 = 23,
};

/* --call-graph dwarf is built for x86-64 only (registers, DWARF numbers). */
#if defined(__x86_64__)
#define UNWIND_SUPPORTED 1
#else
#define UNWIND_SUPPORTED 0
#endif

/*
 * attr.sample_regs_user for --call-graph dwarf on x86-64: what CFI needs to
 * start from, the instruction and stack pointers, and the registers a
 * function must preserve for its caller (rbx, rbp, r12-r15), which are the
 * only ones a caller's frame can get back. The others are scratch: after
 * the first call frame no rule recovers them.
 */
#define UNWIND_REGS_MASK                                                                           \
	((1ull << UNWIND_X86_BX) | (1ull << UNWIND_X86_BP) | (1ull << UNWIND_X86_SP) |             \
	 (1ull << UNWIND_X86_IP) | (1ull << UNWIND_X86_R12) | (1ull << UNWIND_X86_R13) |           \
	 (1ull << UNWIND_X86_R14) | (1ull << UNWIND_X86_R15))

/* --call-graph dwarf's default stack copy (perf's), and the kernel's
 * largest: sample_stack_user must be a multiple of 8 below 65535. */
#define UNWIND_STACK_DEFAULT 8192
#define UNWIND_STACK_MAX     65528

/* Processes whose unwinding state is kept; the one unused longest goes. */
#define UNWIND_MAX_PROCS 256

/* One sample, as records_decode() gives it (pointers into the record). */
struct unwind_sample {
	pid_t pid, tid;
	uint64_t abi;         /* PERF_SAMPLE_REGS_ABI_*: NONE means no user registers */
	uint64_t mask;        /* attr.sample_regs_user the registers follow */
	const uint64_t *regs; /* nr_regs values, in mask's ascending bit order */
	uint32_t nr_regs;
	const unsigned char *stack; /* the copy from the sampled sp up */
	uint64_t stack_size;        /* bytes of it that are real (dyn_size) */
};

struct unwind_stats {
	uint64_t samples;         /* unwind_sample() calls */
	uint64_t no_regs;         /* of those, with no usable user registers */
	uint64_t frames;          /* user frames returned */
	uint64_t incomplete;      /* samples whose unwinding stopped on an error */
	uint64_t dwfl_new;        /* per-process unwinders built */
	uint64_t modules;         /* binaries reported to them */
	uint64_t bins_opened;     /* binary files opened and read (shared by the processes) */
	uint64_t module_fail;     /* binaries that could not be opened or read */
	uint64_t copies_deferred; /* copies of other users' files put off (STABLE_COPY_RATE) */
};

/* A new unwinder taking mappings and binaries from sym (not owned), or NULL
 * when out of memory. */
struct unwind *unwind_new(struct symbols *sym);
void unwind_free(struct unwind *u);

/*
 * Unwind one sample's user stack: the sampled ip, then each caller's return
 * address, leaf first, at most max of them into ips. Frames found before
 * an error are kept. Returns how many (0 when the sample has no user
 * registers: a kernel thread, or a 32-bit task; always 0 unless
 * UNWIND_SUPPORTED).
 */
int unwind_sample(struct unwind *u, const struct unwind_sample *smp, uint64_t *ips, int max);

/* A process exec'd or exited: drop what was kept for it. */
void unwind_forget(struct unwind *u, pid_t pid);

/* Benchmarks: false drops each process's state after every sample. */
void unwind_set_caching(struct unwind *u, bool on);

void unwind_get_stats(const struct unwind *u, struct unwind_stats *out);

#endif
