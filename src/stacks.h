/* stacks: call chains (PERF_SAMPLE_CALLCHAIN) aggregated per process, for folded output. */
#ifndef PFMTOP_STACKS_H
#define PFMTOP_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Frames kept of one chain (the kernel gives at most perf_event_max_stack,
 * 127 by default, plus its PERF_CONTEXT_* markers). */
#define STACKS_MAX_FRAMES 256

struct stacks_slot;

/*
 * Distinct (pid, chain) keys with their sample counts, in an open-addressing
 * table whose chains live in one arena. At most max keys (0: 65536): past
 * it, a new chain is counted in dropped, never stored.
 */
struct stacks {
	struct stacks_slot *slots;
	uint32_t cap, used, max;
	uint64_t *arena;
	size_t arena_used, arena_cap;
	uint64_t samples;       /* chains added (stored or dropped) */
	uint64_t dropped;       /* of those, not stored: the table was full */
	uint64_t interval_base; /* samples at the last stacks_interval_reset() */
};

int stacks_init(struct stacks *t, uint32_t max);
void stacks_fini(struct stacks *t);

/* Bytes the table holds (its slots and its arena of frames). */
size_t stacks_bytes(const struct stacks *t);

/* One sample's chain as the kernel wrote it (leaf first, PERF_CONTEXT_*
 * markers included; longer than STACKS_MAX_FRAMES: cut at the root end). */
void stacks_add(struct stacks *t, uint32_t pid, const uint64_t *ips, uint64_t nr);

/* Each key, in no particular order. */
typedef void (*stacks_fn)(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples,
                          void *arg);
void stacks_for_each(const struct stacks *t, stacks_fn fn, void *arg);

/* Start a new interval: what stacks_walk(interval) counts from now on.
 * O(keys); call it once per refresh. */
void stacks_interval_reset(struct stacks *t);

/* Each key with samples in the span (since the last
 * stacks_interval_reset() when interval, else since the start): samples
 * in that span, and a word of the caller's kept with the key (0 for a new
 * key; it goes with the key when the table grows). */
typedef void (*stacks_walk_fn)(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples,
                               uint64_t *user, void *arg);
void stacks_walk(struct stacks *t, bool interval, stacks_walk_fn fn, void *arg);

#endif
