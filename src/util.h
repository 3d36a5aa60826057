/* util: small helpers shared by the core: CPU lists, time, strings, files. */
#ifndef PFMTOP_UTIL_H
#define PFMTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Parse a CPU list ("0-3,8,10-11") into cpus (sorted, unique), at most max
 * entries. Returns the count, or -EINVAL (malformed) / -E2BIG (too many). */
int util_cpulist_parse(const char *s, int *cpus, int max);

/* Monotonic and wall clocks in nanoseconds. */
uint64_t util_now_ns(void);
uint64_t util_wall_ns(void);

/* Copy src into dst of size len, always NUL-terminated; returns dst. */
char *util_strlcpy(char *dst, const char *src, size_t len);

/* Read a small text file into buf (NUL-terminated, trailing newline
 * stripped); 0 or -errno. */
int util_read_file(const char *path, char *buf, size_t len);

/* Read a file holding one integer; 0 or -errno. */
int util_read_int(const char *path, long long *out);

/* Parse a duration in seconds with an optional fraction ("0.5", "2") into
 * nanoseconds; -EINVAL unless 0.01 s <= d <= 1 day. */
int util_parse_seconds(const char *s, uint64_t *ns);

/* Store dir as a root prefix in root (size len): "" for "/" or NULL, no
 * trailing slash. Test hooks use it to read /proc and /sys from fixtures. */
void util_set_root(char *root, size_t len, const char *dir);

/* A resource limit as text: the number, or "unlimited". Returns buf. */
const char *util_limit_text(uint64_t v, char *buf, size_t len);

#endif
