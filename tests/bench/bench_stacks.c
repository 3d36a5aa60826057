/* bench_stacks: call chains added per second (the -g hot path after the
 * decode): 12-frame chains, 4000 distinct ones over 50 processes, as a
 * busy machine sampled with frame pointers gives them. Then a refresh's
 * call trees over a full table (65,536 distinct chains): the walk over the
 * keys and calltree's children, self and top paths for 10 rows, with each
 * chain's functions already known (profile resolves a chain once and keeps
 * its functions with the key), since the start and for an interval in
 * which 8,000 chains had samples. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <time.h>

#include "calltree.h"
#include "stacks.h"

#include <stdlib.h>
#include <string.h>

#define FRAMES 12
#define KEYS   4000
#define ADDS   20000000

/* CPU time: the machine may be shared, and busy. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A refresh's call trees, as profile_call_trees() does them. */
#define TREE_KEYS 65536
#define TREE_FUNCS 5000
#define TREE_ROUNDS 20

struct walk {
	struct calltree *ct;
	const uint32_t *funcs; /* per key: FRAMES - 1 function ids */
};

static void add_one(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples,
                    uint64_t *user, void *arg)
{
	struct walk *w = arg;
	/* the key's word says where its functions are, as profile keeps them */
	calltree_add(w->ct, w->funcs + (*user - 1) * (FRAMES - 1), nr - 1, 0, samples);
}

static void number(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples,
                   uint64_t *user, void *arg)
{
	uint64_t *next = arg;

	*user = ++*next;
}

/* Every eighth key's chain, copied, up to 8000. */
struct some {
	struct {
		uint32_t pid;
		uint64_t ips[FRAMES];
	} * v;
	int n;
};

static void pick(uint32_t pid, const uint64_t *ips, uint32_t nr, uint64_t samples, uint64_t *user,
                 void *arg)
{
	struct some *c = arg;

	if (*user % 8 || c->n >= 8000 || nr != FRAMES)
		return;
	c->v[c->n].pid = pid;
	memcpy(c->v[c->n].ips, ips, sizeof(c->v[0].ips));
	c->n++;
}

static int trees(void)
{
	static uint64_t chain[FRAMES];
	struct stacks t;
	struct calltree ct = {0};
	uint32_t *funcs = malloc((size_t)TREE_KEYS * (FRAMES - 1) * sizeof(*funcs));
	uint32_t target[10];
	uint64_t cls[10] = {0}, next = 0, x = 88172645463325252ull;
	struct calltree_result res[10];
	struct walk w = {&ct, funcs};

	if (!funcs)
		return 1;
	stacks_init(&t, 0);
	chain[0] = PERF_CONTEXT_USER;
	for (int k = 0; k < TREE_KEYS; k++) {
		for (int f = 1; f < FRAMES; f++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			chain[f] = 0x400000 + x % 0x100000;
		}
		stacks_add(&t, (uint32_t)(k % 200), chain, FRAMES);
	}
	stacks_walk(&t, false, number, &next);
	for (uint64_t k = 0; k < (uint64_t)TREE_KEYS * (FRAMES - 1); k++) {
		/* hot leaves and common callers near the root, like real profiles */
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		funcs[k] = 1 + (uint32_t)(x % (k % (FRAMES - 1) < 2 ? 50 : TREE_FUNCS - 1));
	}
	for (int i = 0; i < 10; i++)
		target[i] = 1 + (uint32_t)i * 3;
	for (int mode = 0; mode < 2; mode++) {
		double t0, dt;

		if (mode) { /* an interval: 8,000 of the stored chains get a sample */
			struct some c = {malloc(8000 * sizeof(*c.v)), 0};

			if (!c.v)
				return 1;
			stacks_interval_reset(&t);
			stacks_walk(&t, false, pick, &c);
			for (int i = 0; i < c.n; i++)
				stacks_add(&t, c.v[i].pid, c.v[i].ips, FRAMES);
			free(c.v);
		}
		t0 = now_s();
		for (int r = 0; r < TREE_ROUNDS; r++) {
			calltree_begin(&ct, TREE_FUNCS + 1, target, cls, 10);
			stacks_walk(&t, mode == 1, add_one, &w);
			calltree_finish(&ct, res);
		}
		dt = (now_s() - t0) / TREE_ROUNDS;
		printf("call trees, %s: %.2f ms a refresh (%u distinct chains of %d frames, %llu "
		       "samples walked, 10 rows; the heaviest row: children %llu, self %llu, %d "
		       "caller paths; %zu distinct paths)\n",
		       mode ? "an interval of 8000 chains" : "since the start", dt * 1e3, t.used,
		       FRAMES - 1, (unsigned long long)ct.total, (unsigned long long)res[0].children,
		       (unsigned long long)res[0].self, res[0].nr_callers, ct.nr_cand);
	}
	calltree_fini(&ct);
	stacks_fini(&t);
	free(funcs);
	return 0;
}

int main(void)
{
	static uint64_t chains[KEYS][FRAMES];
	struct stacks t;
	uint64_t x = 88172645463325252ull;
	double t0, dt;

	for (int k = 0; k < KEYS; k++) {
		chains[k][0] = PERF_CONTEXT_USER;
		for (int f = 1; f < FRAMES; f++)
			chains[k][f] = 0x400000 + (uint64_t)(k * 7 + f * 131) % 50000;
	}
	stacks_init(&t, 0);
	t0 = now_s();
	for (int i = 0; i < ADDS; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		const int k = (int)(x % KEYS);
		stacks_add(&t, (uint32_t)(k % 50), chains[k], FRAMES);
	}
	dt = now_s() - t0;
	printf("stacks_add: %.1f M chains/s (%d frames, %u distinct, %llu dropped), the table "
	       "%zu KiB\n",
	       ADDS / dt / 1e6, FRAMES, t.used, (unsigned long long)t.dropped, stacks_bytes(&t) / 1024);
	stacks_fini(&t);
	return trees();
}
