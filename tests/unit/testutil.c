/* testutil: helpers the unit tests share (open fds, a child to reap). */
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

int testutil_nr_fds(bool (*match)(const char *link, const void *arg), const void *arg)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d))) {
		char path[PATH_MAX], link[PATH_MAX];
		ssize_t len;

		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len < 0)
			continue;
		link[len] = '\0';
		n += match(link, arg);
	}
	closedir(d);
	return n;
}

static bool link_is(const char *link, const void *arg)
{
	const char *path = arg;
	size_t len = strlen(path);

	return len && path[len - 1] == '/' ? !strncmp(link, path, len) : !strcmp(link, path);
}

int testutil_nr_fds_to(const char *path)
{
	return testutil_nr_fds(link_is, path);
}

static bool link_has_prefix(const char *link, const void *arg)
{
	return !strncmp(link, arg, strlen(arg));
}

int testutil_nr_fds_prefix(const char *prefix)
{
	return testutil_nr_fds(link_has_prefix, prefix);
}

static bool link_is_task(const char *link, const void *arg)
{
	(void)arg;
	return !strncmp(link, "/proc/", 6) && link[6] >= '0' && link[6] <= '9';
}

int testutil_nr_task_fds(void)
{
	return testutil_nr_fds(link_is_task, NULL);
}

pid_t testutil_child_waiting(int *go)
{
	int p[2];
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

const char *testutil_fixtures(void)
{
	const char *dir = getenv("PFMTOP_FIXTURES");
	struct stat st;

	if (!dir || !dir[0]) {
		fprintf(stderr, "PFMTOP_FIXTURES is not set: run the unit tests through ctest\n");
		exit(1);
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "PFMTOP_FIXTURES=%s: %s\n", dir,
			errno ? strerror(errno) : "not a directory");
		exit(1);
	}
	return dir;
}

void testutil_libpfm_unforced(void)
{
	unsetenv("LIBPFM_FORCE_PMU");
}

/* Copy len bytes in at the ring's head (wrapping), then publish them. */
static void ring_put(struct ring *r, const uint64_t *w, size_t len)
{
	uint64_t head = r->ctl->data_head;

	for (size_t i = 0; i < len; i++)
		r->data[(head + i) & r->mask] = ((const unsigned char *)w)[i];
	__atomic_store_n(&r->ctl->data_head, head + len, __ATOMIC_RELEASE);
}

static uint64_t pid_tid(pid_t pid, pid_t tid)
{
	uint32_t p[2] = {(uint32_t)pid, (uint32_t)tid};
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

void testutil_put_switch(struct ring *r, bool out, pid_t tid, pid_t other)
{
	struct perf_event_header h = {.type = PERF_RECORD_SWITCH_CPU_WIDE,
	                              .misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0,
	                              .size = 24};
	uint64_t w[3];

	memcpy(&w[0], &h, sizeof(h));
	w[1] = pid_tid(other, other); /* next_prev_pid, next_prev_tid */
	w[2] = pid_tid(tid, tid);     /* sample_id: pid, tid */
	ring_put(r, w, sizeof(w));
}

void testutil_put_lost(struct ring *r, uint64_t lost)
{
	struct perf_event_header h = {.type = PERF_RECORD_LOST, .size = 32};
	uint64_t w[4];

	memcpy(&w[0], &h, sizeof(h));
	w[1] = 0; /* id */
	w[2] = lost;
	w[3] = pid_tid(0, 0);
	ring_put(r, w, sizeof(w));
}
