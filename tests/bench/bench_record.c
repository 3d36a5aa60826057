/* bench_record: a recording's bytes and CPU per snapshot, from a JSON Lines
 * run (pfmtop -b --format json), at the recording's compression levels. */
#include "model.h"
#include "model_json.h"
#include "pfr.h"
#include "snapshot.h"
#include "timeline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SNAPS 100000
#define PASSES    3

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct {
		int level;
		unsigned key_every;
	} runs[] = {{-5, PFR_KEY_EVERY}, {-1, PFR_KEY_EVERY},
	            {1, PFR_KEY_EVERY},  {2, PFR_KEY_EVERY},
	            {3, PFR_KEY_EVERY},  {6, PFR_KEY_EVERY},
	            {9, PFR_KEY_EVERY},  {PFR_LEVEL, PFR_KEY_EVERY},
	            {15, PFR_KEY_EVERY}, {PFR_LEVEL, 10},
	            {PFR_LEVEL, 30},     {PFR_LEVEL, 300}};
	static struct model models[MAX_SNAPS];
	char *line = NULL, err[256];
	size_t cap = 0;
	ssize_t n;
	int nr = 0;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr,
		        "usage: bench_record RUN.jsonl (pfmtop -b --format json -o RUN.jsonl)\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	while (nr < MAX_SNAPS && (n = getline(&line, &cap, f)) > 0)
		if (!model_from_json(&models[nr], line, (size_t)n, err, sizeof(err)))
			model_round(&models[nr++]); /* as pfmtop records them (older runs) */
	fclose(f);
	free(line);
	if (nr < 2) {
		fprintf(stderr, "%s: fewer than 2 snapshots\n", argv[1]);
		return 1;
	}
	printf("%d snapshots of %s\n", nr, argv[1]);
	/* Each figure the least of PASSES passes over the snapshots: a busy
	 * machine only ever adds to it. */
	double best = 1e9;
	for (int pass = 0; pass < PASSES; pass++) {
		double t0 = cpu_s();
		for (int i = 0; i < nr; i++) {
			size_t len;

			free(snapshot_render(&models[i], SNAPSHOT_JSON, false, &len));
		}
		best = fmin(best, cpu_s() - t0);
	}
	printf("the JSON alone: %.3f ms CPU/snap\n", best / nr * 1e3);
	/* pfr_encode() renders the JSON itself: its figure is the recorder's */
	double rec_bytes = 0, rec_ms = 0;
	printf("%6s %6s %12s %12s %14s %14s\n", "level", "key", "bytes/snap", "JSON/snap",
	       "MB/day at 1/s", "ms CPU/snap");
	for (size_t l = 0; l < sizeof(runs) / sizeof(runs[0]); l++) {
		struct pfr_writer w;

		best = 1e9;
		for (int pass = 0; pass < PASSES; pass++) {
			pfr_writer_init(&w, runs[l].key_every);
			w.level = runs[l].level;
			double t0 = cpu_s();
			for (int i = 0; i < nr; i++) {
				size_t len;

				free(pfr_encode(&w, &models[i], i == 0, &len));
			}
			best = fmin(best, cpu_s() - t0);
			if (pass < PASSES - 1)
				pfr_writer_fini(&w);
		}
		if (w.level == PFR_LEVEL && w.key_every == PFR_KEY_EVERY)
			rec_bytes = (double)w.bytes / nr, rec_ms = best / nr * 1e3;
		printf("%6d %6u %12.0f %12.0f %14.1f %14.3f%s\n", w.level, w.key_every,
		       (double)w.bytes / nr, (double)w.raw / nr, (double)w.bytes / nr * 86400 / 1e6,
		       best / nr * 1e3,
		       w.key_every != PFR_KEY_EVERY ? ""
		       : w.level == PFR_LEVEL       ? "  <- recordings"
		       : w.level == TIMELINE_LEVEL  ? "  <- the view's history"
		                                    : "");
		pfr_writer_fini(&w);
	}
	/* at -d 1: a snapshot a second */
	printf("a recording: %.0f bytes a snapshot, %.1f MB a day at -d 1; the recorder (JSON "
	       "and compression): %.3f ms a snapshot, %.2f%% of a core at -d 1\n",
	       rec_bytes, rec_bytes * 86400 / 1e6, rec_ms, rec_ms / 10);
	for (int i = 0; i < nr; i++)
		model_fini(&models[i]);
	return 0;
}
