/* util: small helpers shared by the core: CPU lists, time, strings, files. */
#ifndef PFMTOP_UTIL_H
#define PFMTOP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Parse a CPU list ("0-3,8,10-11") into cpus (sorted, unique), at most max
 * entries. Returns the count, or -EINVAL (malformed) / -E2BIG (too many). */
int util_cpulist_parse(const char *s, int *cpus, int max);

/* Monotonic and wall clocks in nanoseconds. */
uint64_t util_now_ns(void);
uint64_t util_wall_ns(void);
/*
 * Room for one more element in the array *items (nr used, *cap allocated,
 * elem bytes each): the capacity doubles, from first. 0, or -ENOMEM with the
 * array as it was (or -EOVERFLOW past INT_MAX elements).
 */
int util_grow(void *items, int nr, int *cap, size_t elem, int first);

/* Zeroed memory for a large struct that is mostly room (a preset is ~70
 * KB): mapped on its own, so that the pages never written are never touched
 * (each touched page costs a page fault at every start). NULL when out of
 * memory; freed with util_big_free() (NULL is fine). */
void *util_big_zalloc(size_t size);
void util_big_free(void *p);

/* Seconds since boot (CLOCK_BOOTTIME: the clock of /proc start times). */
double util_boot_s(void);

/* qsort/bsearch order of uint32_t values. */
int util_u32_cmp(const void *a, const void *b);

/* Copy src into dst of size len, always NUL-terminated; returns dst. */
char *util_strlcpy(char *dst, const char *src, size_t len);

/* Read a small text file into buf (NUL-terminated, trailing newline
 * stripped); 0 or -errno. */
int util_read_file(const char *path, char *buf, size_t len);

/* pread() all of len bytes at off unless the file ends first (EINTR
 * retried): the bytes read, or -errno. */
ssize_t util_pread_full(int fd, void *buf, size_t len, uint64_t off);

/* Read a file holding one integer; 0 or -errno. */
int util_read_int(const char *path, long long *out);

/* Parse a duration in seconds with an optional fraction ("0.5", "2") into
 * nanoseconds (util_parse_decimal() rules); -EINVAL unless 0.01 s <= d <= 1 day. */
int util_parse_seconds(const char *s, uint64_t *ns);

/* Strict numbers for the command line: decimal digits only, with a leading
 * '-' when min < 0; no blanks, '+', hex, octal or exponents. 0 with *out
 * set, or -EINVAL when s is not such a number or lies outside [min, max]. */
int util_parse_long(const char *s, long min, long max, long *out);

/* The same with an optional fraction ("2", "0.5", ".5", "-1"): never "nan",
 * "inf", "0x10" or "1e3". 0 or -EINVAL. */
int util_parse_decimal(const char *s, double min, double max, double *out);

/* s for a message, in single quotes: whole when at most max characters,
 * else cut (after a comma when s is a comma list) and ended with
 * "...(N noun)" counting the list's items (commas inside pmu/.../ do not
 * split), or "..." alone when noun is NULL. Returns buf. */
const char *util_quote_elided(char *buf, size_t len, const char *s, size_t max, const char *noun);

/* path for a message: whole when at most UTIL_PATH_SHOWN bytes, else its
 * start and end around "..." (cut at UTF-8 character boundaries), so that
 * the reason after it is never cut off. Returns buf (at least
 * UTIL_PATH_SHOWN + 1 bytes for a whole cut). */
#define UTIL_PATH_SHOWN 160
const char *util_path_elided(char *buf, size_t len, const char *path);

/*
 * Why a settings file or directory (a preset, a theme, a cache) described
 * by st must not be used: NULL when it is owned by uid (or by root, when
 * root_ok) and neither its group nor others may write it; else a phrase for
 * a message in buf, e.g. "owned by uid 65534, not by root or you (uid 0)"
 * or "writable by group or others (mode 0777)".
 */
const char *util_untrusted(const struct stat *st, uid_t uid, bool root_ok, char *buf, size_t len);

/*
 * Whether the user uid could read the file at path (an absolute path; st,
 * its stat) by its mode bits alone: it and every directory above it open to
 * uid as owner, or to others (group bits are not trusted: pfmtop does not
 * know uid's groups). Always true for uid 0. What pfmtop reads as root on
 * behalf of another user's process (a source file its DWARF names, a debug
 * file) is shown only when that user could read it too.
 */
bool util_readable_by(const char *path, const struct stat *st, uid_t uid);

/*
 * Open a settings file to read it: O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_NOCTTY,
 * so that a FIFO or a terminal put in its place cannot hang pfmtop, at path
 * relative to dirfd (AT_FDCWD: a plain path). fstat() must show a regular
 * file (else -EISDIR or -EINVAL, "not a regular file"), and when trust is
 * true one that util_untrusted() accepts for the real uid, root allowed
 * (else -EPERM with its phrase). Returns the fd with *st filled, or -errno
 * with a phrase in why ("" for open's own errors: strerror says it).
 */
int util_open_config(int dirfd, const char *path, bool trust, struct stat *st, char *why,
                     size_t whylen);

/* util_open_config() and read the whole file, at most max bytes (else
 * -EFBIG), into *text (malloc'd, NUL-terminated; the caller frees it) of
 * *len bytes. 0 or -errno with why as util_open_config() fills it. */
int util_read_config(int dirfd, const char *path, bool trust, size_t max, char **text, size_t *len,
                     char *why, size_t whylen);

/* Open a settings directory (O_DIRECTORY|O_CLOEXEC) that util_untrusted()
 * accepts for the real uid, root allowed. The fd, or -errno (-EPERM with
 * the phrase in why, "" otherwise). */
int util_open_config_dir(const char *path, char *why, size_t whylen);

/* Store dir as a root prefix in root (size len): "" for "/" or NULL, no
 * trailing slash. Test hooks use it to read /proc and /sys from fixtures. */
void util_set_root(char *root, size_t len, const char *dir);

/* A resource limit as text: the number, or "unlimited". Returns buf. */
const char *util_limit_text(uint64_t v, char *buf, size_t len);

/* Give the heap's free memory back to the system, every UTIL_HEAP_TIDY_NS
 * at most (call it each refresh, with the caller's *last_ns, 0 at first): tables that start over
 * and snapshots that come and go leave free pages inside the heap that malloc keeps. The first call
 * also has allocations of 256 KiB and more mapped on their own (and unmapped when freed), whatever
 * sizes came before. */
#define UTIL_HEAP_TIDY_NS 10000000000ull
void util_heap_tidy(uint64_t *last_ns, uint64_t now_ns);

#endif
