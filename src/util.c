/* util: small helpers shared by the core: CPU lists, time, strings, files. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
		if (*p == ',') {
			p++;
			if (*p < '0' || *p > '9')
				return -EINVAL; /* an empty item: "0,", "0,,1" */
		} else if (*p == '\n' || *p == ' ')
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

int util_grow(void *items, int nr, int *cap, size_t elem, int first)
{
	void **p = items;

	if (nr < *cap)
		return 0;
	if (*cap > INT_MAX / 2)
		return -EOVERFLOW;
	int n = *cap ? *cap * 2 : first;
	void *q = realloc(*p, (size_t)n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* The mapping's length, in front of the memory handed out (64 bytes keep
 * its alignment for any type). */
#define BIG_HEAD 64

void *util_big_zalloc(size_t size)
{
	char *m;

	if (size > SIZE_MAX - BIG_HEAD)
		return NULL;
	size += BIG_HEAD;
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	memcpy(m, &size, sizeof(size));
	return m + BIG_HEAD;
}

void util_big_free(void *p)
{
	size_t size;

	if (!p)
		return;
	memcpy(&size, (char *)p - BIG_HEAD, sizeof(size));
	munmap((char *)p - BIG_HEAD, size);
}

int util_u32_cmp(const void *a, const void *b)
{
	const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

double util_boot_s(void)
{
	return (double)clock_ns(CLOCK_BOOTTIME) / 1e9;
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

ssize_t util_pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
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
	double d;

	if (util_parse_decimal(s, 0.01, 86400, &d))
		return -EINVAL;
	*ns = (uint64_t)llround(d * 1e9);
	return 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int util_parse_long(const char *s, long min, long max, long *out)
{
	const char *p = s;
	char *end;
	long v;

	if (*p == '-' && min < 0)
		p++;
	if (!is_digit(*p))
		return -EINVAL;
	for (const char *q = p; *q; q++)
		if (!is_digit(*q))
			return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int util_parse_decimal(const char *s, double min, double max, double *out)
{
	const char *p = s;
	size_t digits = 0;
	char *end;
	double v;

	if (*p == '-' && min < 0)
		p++;
	for (; is_digit(*p); p++)
		digits++;
	if (*p == '.') {
		if (!is_digit(p[1]))
			return -EINVAL; /* "5." */
		for (p++; is_digit(*p); p++)
			digits++;
	}
	if (!digits || *p || digits > 40)
		return -EINVAL;
	/* Only digits and one '.' are left: strtod cannot see hex, nan or an
	 * exponent, and a decimal point it does not take ends it early. */
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *util_quote_elided(char *buf, size_t len, const char *s, size_t max, const char *noun)
{
	size_t n = strlen(s), cut = max, items = 1;
	int slashes = 0;

	if (n <= max) {
		snprintf(buf, len, "'%s'", s);
		return buf;
	}
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '/')
			slashes++;
		else if (s[i] == ',' && !(slashes % 2)) {
			items++;
			if (noun && i < max)
				cut = i + 1;
		}
	}
	if (noun)
		snprintf(buf, len, "'%.*s...(%zu %s)'", (int)cut, s, items, noun);
	else
		snprintf(buf, len, "'%.*s...'", (int)cut, s);
	return buf;
}

/* A UTF-8 continuation byte: no character starts there. */
static bool utf8_cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

const char *util_path_elided(char *buf, size_t len, const char *path)
{
	size_t n = strlen(path), head = (UTIL_PATH_SHOWN - 3) / 2, tail;

	if (n <= UTIL_PATH_SHOWN) {
		snprintf(buf, len, "%s", path);
		return buf;
	}
	tail = n - (UTIL_PATH_SHOWN - 3 - head);
	while (head && utf8_cont((unsigned char)path[head]))
		head--;
	while (tail < n && utf8_cont((unsigned char)path[tail]))
		tail++;
	snprintf(buf, len, "%.*s...%s", (int)head, path, path + tail);
	return buf;
}

const char *util_untrusted(const struct stat *st, uid_t uid, bool root_ok, char *buf, size_t len)
{
	if (st->st_uid != uid && !(root_ok && st->st_uid == 0)) {
		if (uid == 0)
			snprintf(buf, len, "owned by uid %u, not by root", (unsigned)st->st_uid);
		else
			snprintf(buf, len, "owned by uid %u, not by %s (uid %u)",
			         (unsigned)st->st_uid, root_ok ? "root or you" : "you",
			         (unsigned)uid);
		return buf;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(buf, len, "writable by %s (mode %04o)",
		         st->st_mode & S_IWOTH ? "others" : "its group",
		         (unsigned)(st->st_mode & 07777));
		return buf;
	}
	return NULL;
}

/* mode (of a file owned by owner) grants uid the bits own (S_IRUSR...) */
static bool mode_lets(const struct stat *st, uid_t uid, mode_t own, mode_t other)
{
	return (st->st_uid == uid && (st->st_mode & own)) || (st->st_mode & other);
}

bool util_readable_by(const char *path, const struct stat *st, uid_t uid)
{
	char dir[PATH_MAX];
	size_t n = strlen(path);
	struct stat ds;

	if (!uid)
		return true;
	if (path[0] != '/' || n >= sizeof(dir) || !mode_lets(st, uid, S_IRUSR, S_IROTH))
		return false;
	memcpy(dir, path, n + 1);
	/* each directory above it, from the closest: "/a/b/c" -> "/a/b", "/a" */
	for (char *slash = strrchr(dir, '/'); slash && slash > dir; slash = strrchr(dir, '/')) {
		*slash = '\0';
		if (stat(dir, &ds) || !S_ISDIR(ds.st_mode) ||
		    !mode_lets(&ds, uid, S_IXUSR, S_IXOTH))
			return false;
	}
	return !stat("/", &ds) && mode_lets(&ds, uid, S_IXUSR, S_IXOTH);
}

int util_open_config(int dirfd, const char *path, bool trust, struct stat *st, char *why,
                     size_t whylen)
{
	int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	int err = 0;

	why[0] = '\0';
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		err = -errno;
	} else if (!S_ISREG(st->st_mode)) {
		snprintf(why, whylen, "not a regular file");
		err = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	} else if (trust && util_untrusted(st, getuid(), true, why, whylen)) {
		err = -EPERM;
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

int util_read_config(int dirfd, const char *path, bool trust, size_t max, char **text, size_t *len,
                     char *why, size_t whylen)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd = util_open_config(dirfd, path, trust, &st, why, whylen);

	*text = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return -EFBIG;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			free(buf);
			close(fd);
			return err;
		}
		if (n == 0)
			break; /* it shrank: what is there */
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

int util_open_config_dir(const char *path, char *why, size_t whylen)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	why[0] = '\0';
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (util_untrusted(&st, getuid(), true, why, whylen)) {
		close(fd);
		return -EPERM;
	}
	return fd;
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

void util_heap_tidy(uint64_t *last_ns, uint64_t now_ns)
{
	if (!*last_ns) {
		/* fixed: glibc's threshold otherwise rises to the largest block
		 * freed, and the big tables then come from the heap */
		mallopt(M_MMAP_THRESHOLD, 256 * 1024);
		*last_ns = now_ns ? now_ns : 1;
	}
	if (now_ns - *last_ns < UTIL_HEAP_TIDY_NS)
		return;
	*last_ns = now_ns;
	malloc_trim(0);
}
