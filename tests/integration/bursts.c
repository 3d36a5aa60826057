/* bursts PAGES MS TIMES: TIMES times, map PAGES fresh anonymous pages, write
 * one byte to each, unmap them and sleep MS milliseconds: page faults in
 * bursts that straddle any interval edge. At least PAGES * TIMES faults.
 * Exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long arg(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v > 0 ? v : -1;
}

int main(int argc, char **argv)
{
	long psz = sysconf(_SC_PAGESIZE), pages, ms, times;

	if (argc != 4 || (pages = arg(argv[1])) < 0 || (ms = arg(argv[2])) < 0 ||
	    (times = arg(argv[3])) < 0) {
		fprintf(stderr, "usage: bursts PAGES MS TIMES\n");
		return 2;
	}
	for (long t = 0; t < times; t++) {
		size_t len = (size_t)pages * (size_t)psz;
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

		if (p == MAP_FAILED) {
			perror("bursts: mmap");
			return 1;
		}
		madvise(p, len, MADV_NOHUGEPAGE); /* one fault per page */
		for (long i = 0; i < pages; i++)
			((volatile char *)p)[i * psz] = 1;
		munmap(p, len);
		nanosleep(&ts, NULL);
	}
	return 0;
}
