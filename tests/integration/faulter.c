/* faulter SECS: for SECS seconds of wall time, map 256 fresh anonymous
 * pages, write one byte to each and unmap them, over and over: a process
 * that takes page faults all the time (tens of thousands a second). Exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE), n = 256;
	double secs, start;
	char *end;

	if (argc != 2 || (secs = strtod(argv[1], &end)) < 0 || *end || end == argv[1]) {
		fprintf(stderr, "usage: faulter SECS\n");
		return 2;
	}
	start = wall_seconds();
	while (wall_seconds() - start < secs) {
		char *p = mmap(NULL, (size_t)n * (size_t)psz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			perror("faulter: mmap");
			return 1;
		}
		madvise(p, (size_t)n * (size_t)psz, MADV_NOHUGEPAGE);
		for (long i = 0; i < n; i++)
			((volatile char *)p)[i * psz] = 1;
		munmap(p, (size_t)n * (size_t)psz);
	}
	return 0;
}
