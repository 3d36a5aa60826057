/* util: small helpers shared by the core: CPU lists, time, strings, files. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

int util_cpulist_parse(const char *s, int *cpus, int max)
{
	int n = 0;
	const char *p = s;

	while (*p == ' ')
		p++;
	if (!*p)
		return -EINVAL;
	while (*p) {
		char *end;
		long lo, hi;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		lo = strtol(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			hi = strtol(p, &end, 10);
			p = end;
		}
		if (hi < lo || hi > 65535)
			return -EINVAL;
		for (long c = lo; c <= hi; c++) {
			if (n == max)
				return -E2BIG;
			cpus[n++] = (int)c;
		}
		if (*p == ',')
			p++;
		else if (*p == '\n' || *p == ' ')
			break;
		else if (*p)
			return -EINVAL;
	}
	qsort(cpus, (size_t)n, sizeof(*cpus), cmp_int);
	int u = 0;
	for (int i = 0; i < n; i++)
		if (u == 0 || cpus[u - 1] != cpus[i])
			cpus[u++] = cpus[i];
	return u;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t util_now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t util_wall_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

char *util_strlcpy(char *dst, const char *src, size_t len)
{
	if (len) {
		size_t n = strnlen(src, len - 1);
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return dst;
}

int util_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

int util_read_int(const char *path, long long *out)
{
	char buf[64], *end;
	int err = util_read_file(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	*out = strtoll(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int util_parse_seconds(const char *s, uint64_t *ns)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(d) || d < 0.01 || d > 86400)
		return -EINVAL;
	*ns = (uint64_t)llround(d * 1e9);
	return 0;
}

void util_set_root(char *root, size_t len, const char *dir)
{
	size_t n;

	root[0] = '\0';
	if (!dir || !strcmp(dir, "/"))
		return;
	n = strlen(dir);
	if (n >= len)
		return;
	memcpy(root, dir, n + 1);
	while (n > 1 && root[n - 1] == '/')
		root[--n] = '\0';
}

const char *util_limit_text(uint64_t v, char *buf, size_t len)
{
	if (v == (uint64_t)RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%" PRIu64, v);
	return buf;
}
