/* fuzz_hotspots: libFuzzer harness for the hotspot table (adds, intervals, trims, queries). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hotspots.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			__builtin_trap();                                                          \
	} while (0)

/*
 * The input is a table setup byte, then operations of 3 bytes: add a
 * sample, close an interval (after a trim, as the viewer does), change a
 * pid's symbols, query and merge, resolve symbols ahead, clear. A plain
 * array of every possible key follows along; after each operation the
 * table must be sound (every key found where it is, used right), keep
 * every sample of this interval exactly, keep the totals, and, while
 * nothing was dropped, keep the since-start weight of every symbol
 * exactly.
 *
 * Keys: pid 1..4, tid (by thread) 2 per pid, CPU 0..2, user or kernel, 80
 * ips 8 bytes apart. Symbols: 0x40 bytes (8 ips) or, for a pid whose
 * symbols changed an odd number of times, 0x80 bytes; user ips from
 * 0x10200 have none (UNKNOWN), nor have pid 4's kernel ones (NONE). Sums
 * are checked per 0x80-byte symbol, which folding by either size keeps.
 */

#define PIDS  4
#define TIDS  2
#define CPUS  3
#define IPS   80
#define NKEYS (PIDS * TIDS * CPUS * 2 * IPS)

#define USER_BASE 0x10000ull
#define KERN_BASE 0xffffffff81000000ull

struct ref {
	uint64_t weight, samples;   /* in the table (not overflowed at add) */
	uint64_t iweight, isamples; /* this interval */
};

struct fuzz {
	struct hotspots h;
	bool by_thread;
	unsigned changes[PIDS + 1]; /* symbol changes per pid */
	struct ref keys[NKEYS];
	uint64_t total_w, total_s, interval_w, interval_s;
	uint64_t add_overflow_w; /* since start, samples that found no slot */
	uint64_t taken_w, taken_iw; /* the weight of keys taken out (exits) */
	uint64_t sums[NKEYS];    /* scratch: weight per 0x80-byte symbol */
};

static struct fuzz F;

static uint64_t key_ip(int kernel, unsigned k)
{
	return (kernel ? KERN_BASE : USER_BASE) + 8ull * k;
}

static unsigned key_index(uint32_t pid, uint32_t tid, int cpu, int kernel, uint64_t ip)
{
	const unsigned t = tid % 10;
	const unsigned k = (unsigned)((ip - (kernel ? KERN_BASE : USER_BASE)) / 8);

	return (((((pid - 1) * TIDS + t) * CPUS + (unsigned)cpu) * 2 + (unsigned)kernel) * IPS) + k;
}

static enum hotspots_sym sym_of(const struct hotspots_row *r, uint64_t *start, void *arg)
{
	const uint64_t mask = F.changes[r->pid] % 2 ? ~0x7full : ~0x3full;

	(void)arg;
	CHECK(r->pid >= 1 && r->pid <= PIDS);
	if (r->kernel) {
		if (r->pid == 4)
			return HOTSPOTS_SYM_NONE;
	} else if (r->ip >= USER_BASE + 0x200) {
		return HOTSPOTS_SYM_UNKNOWN;
	}
	*start = r->ip & mask;
	return HOTSPOTS_SYM_FOUND;
}

static uint64_t plain_key(const struct hotspots_row *r)
{
	uint64_t start;

	return sym_of(r, &start, NULL) == HOTSPOTS_SYM_FOUND ? start | 1 : 0;
}

static uint64_t cached_key(const struct hotspots_row *r, void *arg)
{
	uint64_t start;
	uint64_t key = hotspots_symbol(&F.h, r, sym_of, NULL, &start) == HOTSPOTS_SYM_FOUND
			       ? start | 1
			       : 0;

	(void)arg;
	CHECK(key == plain_key(r)); /* a cached symbol is never stale */
	return key;
}

/* The reference index of the first key of k's 0x80-byte symbol. */
static unsigned symbol_of_key(unsigned k)
{
	const unsigned j = k % IPS;

	return k - j + (j & ~15u);
}

/* A key taken out of the table: its figures leave it. */
static void take_count(const struct hotspots_slot *s, void *arg)
{
	(void)arg;
	F.taken_w += s->weight;
	if (s->igen == F.h.gen)
		F.taken_iw += s->iweight;
}

static void check(void)
{
	const struct hotspots *h = &F.h;
	uint64_t w = 0, iw = 0;
	uint32_t n = 0;

	CHECK(h->total.weight == F.total_w && h->total.samples == F.total_s);
	CHECK(h->interval.weight == F.interval_w && h->interval.samples == F.interval_s);
	CHECK((uint64_t)h->used * 4 <= (uint64_t)h->cap * 3);
	memset(F.sums, 0, sizeof(F.sums));
	for (uint32_t i = 0; i < h->cap; i++) {
		const struct hotspots_slot *s = &h->slots[i];
		unsigned k;

		if (!s->used)
			continue;
		n++;
		CHECK(hotspots_find(h, s->pid, s->tid, s->ip, (enum records_cpumode)s->cpumode,
				    s->cpu) == s);
		k = key_index(s->pid, s->tid, s->cpu, hotspots_kernel_mode(s->cpumode), s->ip);
		CHECK(k < NKEYS);
		w += s->weight;
		F.sums[symbol_of_key(k)] += s->weight;
		if (s->igen == h->gen) {
			/* Busy: never folded, exact. */
			CHECK(s->iweight == F.keys[k].iweight && s->isamples == F.keys[k].isamples);
			iw += s->iweight;
		}
	}
	CHECK(n == h->used);
	CHECK(w + h->total.overflow_weight + F.taken_w == F.total_w);
	CHECK(iw + h->interval.overflow_weight + F.taken_iw == F.interval_w);
	for (unsigned k = 0; k < NKEYS; k++) {
		const struct ref *r = &F.keys[k];

		if (r->isamples) { /* every key of this interval is there */
			const unsigned j = k % IPS, kern = k / IPS % 2, cpu = k / IPS / 2 % CPUS;
			const unsigned t = k / IPS / 2 / CPUS % TIDS,
			               pid = 1 + k / IPS / 2 / CPUS / TIDS;
			const struct hotspots_slot *s = hotspots_find(
				h, pid, pid * 10 + t, key_ip((int)kern, j),
				kern ? RECORDS_CPUMODE_KERNEL : RECORDS_CPUMODE_USER, (int)cpu);

			CHECK(s && s->igen == h->gen);
		}
		if (!h->dropped && symbol_of_key(k) == k) {
			uint64_t want = 0;

			for (unsigned j = 0; j < 16 && k + j < NKEYS; j++)
				want += F.keys[k + j].weight;
			CHECK(F.sums[k] == want);
		}
	}
}

static void reset_ref(void)
{
	memset(F.keys, 0, sizeof(F.keys));
	F.total_w = F.total_s = F.interval_w = F.interval_s = F.add_overflow_w = 0;
	F.taken_w = F.taken_iw = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hotspots_row rows[64];

	if (size < 1)
		return 0;
	memset(F.changes, 0, sizeof(F.changes));
	reset_ref();
	F.by_thread = data[0] & 0x80;
	/* A soft cap of 1..64 keys, and a hard one now and then. */
	if (hotspots_init(&F.h, F.by_thread ? HOTSPOTS_BY_THREAD : 0, data[0] & 0x40 ? 200 : 0,
			  1 + (data[0] & 0x3f)))
		return 0;
	for (size_t i = 1; i + 3 <= size; i += 3) {
		const uint8_t op = data[i], a = data[i + 1], b = data[i + 2];

		switch (op % 16) {
		default: { /* add */
			const uint32_t pid = 1 + a % PIDS;
			const uint32_t tid = pid * 10 + (a >> 2) % TIDS;
			const int cpu = (a >> 3) % CPUS, kernel = (a >> 5) & 1;
			const uint64_t ip = key_ip(kernel, b % IPS);
			const uint64_t period = 1 + (op >> 4) * 37;
			struct ref *r = &F.keys[key_index(pid, F.by_thread ? tid : pid * 10, cpu,
							  kernel, ip)];
			int ret = hotspots_add(
			    &F.h, pid, tid, ip,
			    kernel ? RECORDS_CPUMODE_KERNEL : RECORDS_CPUMODE_USER, cpu, period);

			F.total_w += period;
			F.total_s++;
			F.interval_w += period;
			F.interval_s++;
			if (ret) {
				CHECK(ret == -ENOSPC);
				F.add_overflow_w += period;
				/* Only the hard cap turns samples away. */
				CHECK(F.h.used >= F.h.max_entries);
			} else {
				r->weight += period;
				r->samples++;
				r->iweight += period;
				r->isamples++;
			}
			break;
		}
		case 10: /* close the interval */
		case 11:
			hotspots_trim(&F.h, a & 1 ? sym_of : NULL, NULL);
			if (a & 2) {
				/* A second trim in the same interval changes nothing
				 * that matters. */
				hotspots_trim(&F.h, sym_of, NULL);
			}
			check();
			hotspots_interval_reset(&F.h);
			for (unsigned k = 0; k < NKEYS; k++)
				F.keys[k].iweight = F.keys[k].isamples = 0;
			F.interval_w = F.interval_s = 0;
			F.taken_iw = 0;
			break;
		case 12: /* exec, exit, mmap: the pid's symbols change */
			F.changes[1 + a % PIDS] += 1 + (b & 1);
			hotspots_symbols_changed(&F.h, 1 + a % PIDS);
			break;
		case 13: { /* the viewer's query, with a filter now and then */
			struct hotspots_filter f = HOTSPOTS_FILTER_ALL;
			struct hotspots_totals t;
			int n;

			if (a & 1)
				f.cpu = (a >> 1) % CPUS;
			if (a & 8)
				f.pid = 1 + (a >> 4) % PIDS;
			n = hotspots_top(&F.h, a & 0x80 ? HOTSPOTS_TOTAL : HOTSPOTS_INTERVAL, &f,
			                 rows, (int)(b % 65), &t);
			CHECK(n >= 0 && n <= 64 && (size_t)n <= t.rows);
			n = hotspots_merge(rows, n, cached_key, NULL,
					   b & 0x80 ? HOTSPOTS_MERGE_PID : 0);
			CHECK(n >= 0);
			break;
		}
		case 14: /* a trim whenever, or a process exits */
			if (a & 1) {
				const uint32_t pid = 1 + (a >> 1) % PIDS;

				/* the process exits: its keys leave, whole */
				hotspots_take_pids(&F.h, &pid, 1, take_count, NULL);
				for (unsigned k = 0; k < NKEYS; k++)
					if (1 + k / IPS / 2 / CPUS / TIDS == pid)
						memset(&F.keys[k], 0, sizeof(F.keys[k]));
			} else {
				hotspots_trim(&F.h, sym_of, NULL);
			}
			break;
		case 15:
			if (a == 0xff) {
				hotspots_clear(&F.h);
				reset_ref();
			}
			break;
		}
		check();
	}
	hotspots_fini(&F.h);
	return 0;
}
