/* jitmap SECS [NAMES_PER_S] [DUTY%]: a hostile JIT for SECS seconds. It
 * runs in anonymous executable code it maps anew, region after region, and
 * writes /tmp/perf-PID.map with NAMES_PER_S (default 9000) new 500-byte
 * names a second covering that code: appended, and the file rewritten with
 * only the live regions' names whenever it passes 16 MB. It spins DUTY%
 * (default 40) of the time, in 10 ms periods. Prints "ready" once the map
 * is first written. x86-64 only (other machines: it exits 77). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define REGION   16384 /* bytes of code per region */
#define SYM      64    /* bytes per named function */
#define LIVE     32    /* regions mapped at once */
#define NAME_LEN 500
#define FILE_MAX (16L << 20)

static unsigned char *regions[LIVE];
static unsigned long gens[LIVE];
static _Atomic(unsigned char *) current;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A region of code: a sled of nops run 256 times round, then a return
 * (about a millisecond a call). */
static unsigned char *region_new(void)
{
	unsigned char *r =
	    mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static const unsigned char head[] = {0xb9, 0x00, 0x01, 0x00, 0x00}; /* mov ecx, 256 */
	static const unsigned char tail[] = {0xff, 0xc9,                    /* dec ecx */
	                                     0x0f, 0x85};                   /* jnz rel32 */
	size_t n;
	int32_t rel;

	if (r == MAP_FAILED)
		return NULL;
	memset(r, 0x90, REGION);
	memcpy(r, head, sizeof(head));
	n = REGION - 16;
	memcpy(r + n, tail, sizeof(tail));
	rel = (int32_t)((long)sizeof(head) - (long)(n + sizeof(tail) + 4));
	memcpy(r + n + sizeof(tail), &rel, 4);
	r[n + sizeof(tail) + 4] = 0xc3; /* ret */
	if (mprotect(r, REGION, PROT_READ | PROT_EXEC)) {
		munmap(r, REGION);
		return NULL;
	}
	return r;
}

static void names_of(FILE *f, const unsigned char *r, unsigned long gen)
{
	char pad[NAME_LEN + 1];

	memset(pad, 'x', NAME_LEN);
	pad[NAME_LEN - 40] = '\0';
	for (size_t off = 0; off < REGION; off += SYM)
		fprintf(f, "%lx %x jit_g%lu_o%zu_%s\n", (unsigned long)(uintptr_t)(r + off), SYM,
		        gen, off, pad);
}

static void *spinner(void *arg)
{
	const double duty = *(double *)arg;

	for (;;) {
		const double t0 = now_s();
		struct timespec nap = {0, (long)(10e6 * (1 - duty))};

		while (now_s() - t0 < 0.01 * duty) {
			unsigned char *r = atomic_load(&current);

			if (r)
				((void (*)(void))r)();
		}
		nanosleep(&nap, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const double secs = argc > 1 ? atof(argv[1]) : 60;
	const double rate = argc > 2 ? atof(argv[2]) : 9000;
	double duty = argc > 3 ? atof(argv[3]) / 100 : 0.4;
	const double per_region = rate / (REGION / SYM); /* regions a second */
	char path[64];
	unsigned long gen = 0;
	pthread_t th;
	FILE *f;
	double start, next;

#if !defined(__x86_64__)
	fprintf(stderr, "jitmap: x86-64 only\n");
	return 77;
#endif
	if (duty <= 0 || duty > 1)
		duty = 0.4;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	if (pthread_create(&th, NULL, spinner, &duty))
		return 1;
	start = next = now_s();
	while (now_s() - start < secs) {
		const int slot = (int)(gen % LIVE);
		unsigned char *r = region_new();

		if (!r)
			break;
		atomic_store(&current, r);
		/* the oldest goes: the spinner left it LIVE regions ago */
		if (regions[slot])
			munmap(regions[slot], REGION);
		regions[slot] = r;
		gens[slot] = gen;
		if (ftell(f) > FILE_MAX) { /* rewritten: the live regions only */
			rewind(f);
			if (ftruncate(fileno(f), 0))
				break;
			for (int i = 0; i < LIVE; i++)
				if (regions[i])
					names_of(f, regions[i], gens[i]);
		} else {
			names_of(f, r, gen);
		}
		fflush(f);
		if (gen++ == 0) {
			printf("ready\n");
			fflush(stdout);
		}
		next += 1 / per_region;
		if (next > now_s()) {
			const double d = next - now_s();
			struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};

			nanosleep(&ts, NULL);
		}
	}
	fclose(f);
	unlink(path);
	return 0;
}
