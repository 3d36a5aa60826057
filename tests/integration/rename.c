/* rename HEX SECS: set this process's name (comm) to the bytes given in hex
 * (prctl PR_SET_NAME: any user can), print "ready" and spin for SECS seconds
 * of wall time, so that it is busy and counted. Exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	char name[16] = {0};
	size_t n = argc == 3 ? strlen(argv[1]) : 1;
	volatile unsigned long x = 0;
	double secs, start;

	if (argc != 3 || n % 2 || n / 2 > sizeof(name) - 1 || (secs = atof(argv[2])) <= 0) {
		fprintf(stderr, "usage: rename HEX SECS (at most 15 bytes)\n");
		return 2;
	}
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(argv[1] + 2 * i, "%2x", &v) != 1) {
			fprintf(stderr, "rename: '%s' is not hex\n", argv[1]);
			return 2;
		}
		name[i] = (char)v;
	}
	if (prctl(PR_SET_NAME, name, 0, 0, 0)) {
		perror("rename: prctl");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (start = now(); now() - start < secs;)
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i;
	return 0;
}
