/* bench_hotspots: the viewer's hotspot refresh (query, merge, names, trim) and its memory. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hotspots.h"
#include "symbols.h"

/*
 * One process (this one) sampled at 4000 Hz on 2 CPUs: 8000 samples a tick,
 * most of them on a hot set of ips, COLD percent (default 5) anywhere in
 * its executable mappings, so that new keys keep coming as on a busy
 * system (the viewer saw ~400 new keys a second in bench_tui.sh). Two tables
 * get the same samples and are refreshed as profile_tick() does it:
 *
 *   uncached: no soft cap; the merge key resolved through symbols_resolve()
 *             for every row of every refresh (the viewer before the cache);
 *   cached:   soft cap 8192, keys from hotspots_symbol(), hotspots_trim()
 *             after each refresh.
 *
 * Both name the rows shown. Prints the refresh time per tick, the add
 * cost, and each table's size at the end.
 *
 *   bench_hotspots [interval|total] [COLD]
 */

#define TICKS      40
#define PER_TICK   8000
#define HOT_IPS    2000
#define QUERY_ROWS 4096
#define SHOWN      500
#define SOFT_CAP   8192

struct text {
	uint64_t start, end;
};

static struct text texts[256];
static int nr_texts;
static struct symbols *sym;
static pid_t self;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* This process's executable file mappings. */
static void read_texts(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	while (f && fgets(line, sizeof(line), f) &&
	       nr_texts < (int)(sizeof(texts) / sizeof(*texts))) {
		unsigned long long a, b;
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &a, &b, perms) == 3 && perms[2] == 'x' &&
		    strchr(line, '/'))
			texts[nr_texts++] = (struct text){a, b};
	}
	if (f)
		fclose(f);
}

static uint64_t random_ip(uint64_t *seed)
{
	const struct text *t = &texts[rnd(seed) % (uint64_t)nr_texts];

	return t->start + rnd(seed) % (t->end - t->start);
}

static int resolves;

static void resolve(const struct hotspots_row *row, struct symbols_result *r)
{
	resolves++;
	symbols_resolve(sym, (pid_t)row->pid, row->ip, row->kernel, r);
}

static uint64_t plain_key(const struct hotspots_row *row, void *arg)
{
	struct symbols_result r;

	(void)arg;
	resolve(row, &r);
	return r.status == SYMBOLS_FOUND ? (row->ip - r.offset) | 1 : 0;
}

static enum hotspots_sym symbol_of(const struct hotspots_row *row, uint64_t *start, void *arg)
{
	struct symbols_result r;

	(void)arg;
	resolve(row, &r);
	if (r.status != SYMBOLS_FOUND)
		return HOTSPOTS_SYM_UNKNOWN;
	*start = row->ip - r.offset;
	return HOTSPOTS_SYM_FOUND;
}

static uint64_t cached_key(const struct hotspots_row *row, void *arg)
{
	uint64_t start;

	if (hotspots_symbol(arg, row, symbol_of, NULL, &start) != HOTSPOTS_SYM_FOUND)
		return 0;
	return start | 1;
}

struct run {
	const char *name;
	struct hotspots h;
	bool cached;
	double ms, ms_max;
	int resolves;
	uint32_t max_used, max_cap;
};

static void refresh(struct run *r, enum hotspots_mode mode, struct hotspots_row *rows, bool count)
{
	struct symbols_result res;
	double t0 = now_ms(), dt;
	int n, before = resolves;

	n = hotspots_top(&r->h, mode, NULL, rows, QUERY_ROWS, NULL);
	n = hotspots_merge(rows, n, r->cached ? cached_key : plain_key, &r->h, HOTSPOTS_MERGE_PID);
	for (int i = 0; i < n && i < SHOWN; i++)
		resolve(&rows[i], &res);
	if (r->cached)
		hotspots_trim(&r->h, symbol_of, NULL);
	hotspots_interval_reset(&r->h);
	dt = now_ms() - t0;
	if (count) {
		r->ms += dt;
		r->ms_max = dt > r->ms_max ? dt : r->ms_max;
		r->resolves += resolves - before;
	}
}

static size_t table_bytes(const struct hotspots *h)
{
	/* The scratch's element type is private: 24 bytes (slot, weight, samples). */
	return (size_t)h->cap * sizeof(struct hotspots_slot) + h->scratch_cap * 24 +
	       h->fold_cap * sizeof(uint32_t);
}

int main(int argc, char **argv)
{
	const enum hotspots_mode mode =
		argc > 1 && !strcmp(argv[1], "total") ? HOTSPOTS_TOTAL : HOTSPOTS_INTERVAL;
	const unsigned cold = argc > 2 ? (unsigned)atoi(argv[2]) : 5;
	struct run runs[2] = {{.name = "uncached"}, {.name = "cached", .cached = true}};
	struct hotspots_row *rows = calloc(QUERY_ROWS, sizeof(*rows));
	uint64_t *hot = calloc(HOT_IPS, sizeof(*hot));
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	double add_ms = 0;
	long adds = 0;

	sym = symbols_new();
	self = getpid();
	read_texts();
	if (!rows || !hot || !sym || !nr_texts || symbols_process_scan(sym, self)) {
		fprintf(stderr, "bench_hotspots: setup failed\n");
		return 1;
	}
	if (hotspots_init(&runs[0].h, 0, 0, 0) || hotspots_init(&runs[1].h, 0, 0, SOFT_CAP)) {
		fprintf(stderr, "bench_hotspots: out of memory\n");
		return 1;
	}
	for (int i = 0; i < HOT_IPS; i++)
		hot[i] = random_ip(&seed);
	for (int tick = 0; tick < TICKS; tick++) {
		for (int r = 0; r < 2; r++) {
			uint64_t s = seed + (uint64_t)tick; /* the same samples for both */
			double t0 = now_ms();

			for (int i = 0; i < PER_TICK; i++) {
				uint64_t x = rnd(&s);
				/* The hot set, skewed towards its start, or anywhere. */
				uint64_t ip = x % 100 >= cold
				                  ? hot[(x >> 8) % (1 + (x >> 20) % HOT_IPS)]
				                  : random_ip(&s);

				hotspots_add(&runs[r].h, (uint32_t)self, (uint32_t)self, ip,
					     RECORDS_CPUMODE_USER, (int)((x >> 40) & 1), 250000);
			}
			if (r == 1) {
				add_ms += now_ms() - t0;
				adds += PER_TICK;
			}
			/* The first ticks load the binaries' symbols: not counted. */
			refresh(&runs[r], mode, rows, tick >= 5);
			if (runs[r].h.used > runs[r].max_used)
				runs[r].max_used = runs[r].h.used;
			if (runs[r].h.cap > runs[r].max_cap)
				runs[r].max_cap = runs[r].h.cap;
		}
	}
	printf(
	    "bench_hotspots: %d ticks of %d samples, %u%% cold (%s view), %d shown of %d merged\n",
	    TICKS, PER_TICK, cold, mode == HOTSPOTS_TOTAL ? "accumulated" : "interval", SHOWN,
	    QUERY_ROWS);
	printf("hotspots_add: %.1f ns/sample (cached table)\n", add_ms * 1e6 / (double)adds);
	printf("%-9s %11s %11s %13s %8s %8s %9s %9s %9s\n", "", "refresh ms", "max ms",
	       "resolves/tick", "keys", "slots", "max keys", "max slots", "bytes");
	for (int r = 0; r < 2; r++) {
		const struct run *u = &runs[r];

		printf("%-9s %11.3f %11.3f %13.0f %8u %8u %9u %9u %9zu\n", u->name,
		       u->ms / (TICKS - 5), u->ms_max, (double)u->resolves / (TICKS - 5), u->h.used,
		       u->h.cap, u->max_used, u->max_cap, table_bytes(&u->h));
	}
	printf("cached table: %" PRIu64 " keys folded, %" PRIu64 " dropped\n", runs[1].h.folded,
	       runs[1].h.dropped);
	hotspots_fini(&runs[0].h);
	hotspots_fini(&runs[1].h);
	symbols_free(sym);
	free(rows);
	free(hot);
	return 0;
}
