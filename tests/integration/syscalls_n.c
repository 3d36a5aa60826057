/* syscalls_n N: N getppid() system calls and N writes to the global 'hits'
 * (built without PIE, so that its address is fixed: 'syscalls_n --addr'
 * prints it for a mem: breakpoint). Exit 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile long hits;

int main(int argc, char **argv)
{
	char *end;
	long n;

	if (argc == 2 && !strcmp(argv[1], "--addr")) {
		printf("%p\n", (void *)&hits);
		return 0;
	}
	if (argc != 2 || (n = strtol(argv[1], &end, 10)) <= 0 || *end) {
		fprintf(stderr, "usage: syscalls_n N | --addr\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		syscall(SYS_getppid);
		hits = i;
	}
	return 0;
}
