/* bench_stacks: call chains added per second (the -g hot path after the
 * decode): 12-frame chains, 4000 distinct ones over 50 processes, as a
 * busy machine sampled with frame pointers gives them. */
#include <linux/perf_event.h>
#include <stdio.h>
#include <time.h>

#include "stacks.h"

#define FRAMES 12
#define KEYS   4000
#define ADDS   20000000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
	printf("stacks_add: %.1f M chains/s (%d frames, %u distinct, %llu dropped)\n",
	       ADDS / dt / 1e6, FRAMES, t.used, (unsigned long long)t.dropped);
	stacks_fini(&t);
	return 0;
}
