/* forkburst N: fork N children that exit at once, all N alive (as zombies)
 * together before the first is reaped, then reap them and print their PIDs,
 * one a line. Exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long n;
	pid_t *pids;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: forkburst N\n");
		return 2;
	}
	pids = calloc((size_t)n, sizeof(*pids));
	if (!pids) {
		perror("forkburst: calloc");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("forkburst: fork");
			return 1;
		}
		if (pids[i] == 0)
			_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (waitpid(pids[i], NULL, 0) != pids[i]) {
			perror("forkburst: waitpid");
			return 1;
		}
	for (long i = 0; i < n; i++)
		printf("%d\n", (int)pids[i]);
	return 0;
}
