/* pingpong N: a parent and a child pass one byte back and forth over two
 * pipes N times, both pinned to one CPU, so the byte can only move when the
 * CPU switches from one process to the other. Counting the switches away
 * from either process: 2 for the start-up handshake (the child says it is
 * ready, then waits for round 1), N parent -> child hand-overs and N - 1
 * child -> parent ones (the child's last is its exit, after its counters are
 * gone): at least 2N + 1 context switches. Without the pinning the two could
 * run side by side on two CPUs and a read could find its byte already there.
 * Exit 0. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int to_child[2], to_parent[2], status, cpu;
	long n;
	char *end, c = 'x';
	cpu_set_t set;
	pid_t pid;

	if (argc != 2 || (n = strtol(argv[1], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: pingpong N\n");
		return 2;
	}
	cpu = sched_getcpu();
	CPU_ZERO(&set);
	CPU_SET(cpu < 0 ? 0 : cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("pingpong: sched_setaffinity");
		return 1;
	}
	if (pipe(to_child) || pipe(to_parent)) {
		perror("pingpong: pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		if (write(to_parent[1], &c, 1) != 1)
			_exit(1);
		for (long i = 0; i < n; i++)
			if (read(to_child[0], &c, 1) != 1 || write(to_parent[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	if (read(to_parent[0], &c, 1) != 1) {
		fprintf(stderr, "pingpong: child did not start\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1) {
			fprintf(stderr, "pingpong: pipe broke at round %ld\n", i);
			return 1;
		}
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "pingpong: child failed\n");
		return 1;
	}
	return 0;
}
