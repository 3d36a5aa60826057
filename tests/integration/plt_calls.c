/* plt_calls SECS: call abs() through the PLT for SECS seconds of CPU time,
 * then exit 0: a program whose samples land in a PLT stub (test_plt_names).
 * Built with -fno-builtin, so that abs() is a call into libc. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

volatile int sink;

int main(int argc, char **argv)
{
	char *end;
	double secs, start;
	int acc = 1;

	if (argc != 2 || (secs = strtod(argv[1], &end)) < 0 || *end || end == argv[1]) {
		fprintf(stderr, "usage: plt_calls SECS\n");
		return 2;
	}
	start = cpu_seconds();
	while (cpu_seconds() - start < secs)
		for (int i = 0; i < 100000; i++)
			acc = abs(acc - i);
	sink = acc;
	return 0;
}
