/* memburn memfrob SECS: memfrob (an exported, non-ifunc libc function) a
 *   4 MiB buffer over and over for SECS seconds of CPU time; its samples land
 *   in libc.so.6's "memfrob", named in .dynsym even in a stripped libc.
 * memburn memset SECS: memset a 4 MiB buffer over and over for SECS seconds
 *   of CPU time, so most samples land in libc's memset implementation
 *   (__memset_avx2_unaligned_erms and friends in libc.so.6).
 * memburn zero SECS: read /dev/zero in 1 MiB chunks for SECS seconds of CPU
 *   time, so most samples land in the kernel, zeroing user memory
 *   (clear_user, rep_stos_alternative, iov_iter_zero ...).
 * Exit 0, or 2 on bad usage, 1 if /dev/zero cannot be read. */
#define _GNU_SOURCE /* memfrob */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUF (4UL << 20)
#define CHUNK (1UL << 20)

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char *end, *buf;
	double secs, start;
	int mode, fd = -1;

	if (argc != 3 || (mode = !strcmp(argv[1], "memset")   ? 1
	                         : !strcmp(argv[1], "memfrob") ? 2
	                         : !strcmp(argv[1], "zero")    ? 3
	                                                       : 0) == 0 ||
	    (secs = strtod(argv[2], &end)) <= 0 || *end || end == argv[2]) {
		fprintf(stderr, "usage: memburn memset|memfrob|zero SECS\n");
		return 2;
	}
	buf = malloc(BUF);
	if (!buf) {
		perror("memburn: malloc");
		return 1;
	}
	memset(buf, 0, BUF);
	if (mode == 3 && (fd = open("/dev/zero", O_RDONLY)) < 0) {
		perror("memburn: /dev/zero");
		return 1;
	}
	start = cpu_seconds();
	for (unsigned n = 0; cpu_seconds() - start < secs; n++) {
		if (mode == 1) {
			memset(buf, (int)(n & 0xff), BUF);
		} else if (mode == 2) {
			memfrob(buf, BUF);
		} else if (read(fd, buf, CHUNK) != (ssize_t)CHUNK) {
			perror("memburn: read /dev/zero");
			return 1;
		}
		/* The buffer is "used": neither the memset nor the read may go. */
		__asm__ volatile("" : : "r"(buf) : "memory");
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return 0;
}
