/* touch_pages N: map N fresh anonymous pages and write one byte to each, so
 * the process takes at least N page faults. Exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n, psz = sysconf(_SC_PAGESIZE);
	char *end, *p;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: touch_pages N\n");
		return 2;
	}
	p = mmap(NULL, (size_t)n * (size_t)psz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("touch_pages: mmap");
		return 1;
	}
	/* No MAP_POPULATE and no transparent huge pages: one fault per page. */
	madvise(p, (size_t)n * (size_t)psz, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * psz] = 1;
	munmap(p, (size_t)n * (size_t)psz);
	return 0;
}
