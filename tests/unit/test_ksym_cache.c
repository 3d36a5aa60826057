/* test_ksym_cache: the per-boot cache of the kernel symbol table (symbols.c). */
#include "symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#define BOOT_A "0b7c5a1e-2d3f-4e5a-8b6c-7d8e9fa0b1c2"
#define BOOT_B "9f8e7d6c-5b4a-4321-8fed-cba987654321"

/* The header of the cache file, as src/symbols.c writes it (struct
 * kcache_hdr): the tests corrupt its fields one by one. */
struct hdr {
	char magic[8];
	uint32_t version, hdr_size;
	uint32_t sym_size, run_size, span_size, order;
	uint64_t file_size;
	char boot_id[40];
	uint64_t modules_hash, modules_len;
	uint32_t kbuild_len, pad;
	unsigned char kbuild[64];
	uint64_t head_off, head_len;
	uint64_t syms_off, nr_syms;
	uint64_t runs_off, nr_runs;
	uint64_t spans_off, nr_spans;
	uint64_t pool_off, pool_len;
};

/* The synthetic kernel: core text, two real modules (in /proc/modules),
 * BPF programs and an ftrace trampoline (dynamic: not modules). */
#define CORE_BASE  0xffffffff81000000ull
#define CORE_NR    3000
#define EXT4_BASE  0xffffffffc0001000ull
#define EXT4_NR    200
#define XFS_BASE   0xffffffffc0100000ull
#define XFS_NR     150
#define BPF_BASE   0xffffffffc0400000ull
#define BPF_NR     3
#define BPF_NEAR   0xffffffffc0008000ull /* the page after ext4's last one */
#define FTRACE_IP  0xffffffffc0600000ull
#define TAIL       4096 /* SYM_TAIL */
#define PROBES_MAX 65536
#define LABEL_MAX  (SYMBOLS_NAME_MAX + SYMBOLS_MODULE_MAX + 64)

static const char modules_text[] = "ext4 966656 2 - Live 0xffffffffc0001000\n"
                                   "xfs 1900544 0 - Live 0xffffffffc0100000\n";

static uint64_t core_addr(int i)
{
	return CORE_BASE + (uint64_t)i * 0x60 + (uint64_t)(i % 7) * 8;
}

/* Where the span of a table that ends with a symbol at a ends: TAIL
 * past it, but not into the next page. */
static uint64_t span_end(uint64_t a)
{
	uint64_t page_end = (a | 0xfff) + 1;

	return page_end < a + TAIL ? page_end : a + TAIL;
}

/* A fixture root (proc/kallsyms, proc/modules, boot_id) and a cache
 * directory below it, not made yet. */
struct fx {
	char root[64];
	char cache[PATH_MAX];
	char file[PATH_MAX]; /* the cache file of BOOT_A */
	char *text;          /* kallsyms as written */
	size_t len;
	/* what gen_kallsyms() writes: the kernel placed slide bytes further,
	 * the core kernel only (no modules), per-CPU (absolute) symbols first */
	uint64_t slide;
	bool core_only, percpu;
};

static void path_of(char *out, const struct fx *f, const char *rel)
{
	assert_true(snprintf(out, PATH_MAX, "%s/%s", f->root, rel) < PATH_MAX);
}

static void put(const struct fx *f, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	FILE *fp;

	path_of(path, f, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite(data, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

static void put_str(const struct fx *f, const char *rel, const char *text)
{
	put(f, rel, text, strlen(text));
}

/* The whole file at path, malloc'd; its size in *len. */
static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	FILE *fp = fopen(path, "r");

	assert_non_null(fp);
	assert_int_equal(fstat(fileno(fp), &st), 0);
	buf = malloc(st.st_size + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, st.st_size, fp), (size_t)st.st_size);
	fclose(fp);
	*len = st.st_size;
	return buf;
}

static void spit(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, 0600), 0);
	assert_int_equal(close(fd), 0);
}

/* kallsyms text: the core kernel (with data symbols and aliases), then
 * ext4, BPF programs, xfs and a trampoline, as the kernel lists them.
 * zero: every address 0 (kptr_restrict). dynamic: the BPF and ftrace lines. */
static char *gen_kallsyms(const struct fx *f, size_t *len, bool zero, bool dynamic)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int i;

#define LINE(addr, ...)                                                                            \
	do {                                                                                       \
		n += snprintf(buf + n, cap - n, "%016" PRIx64 " ", zero ? 0 : (uint64_t)(addr));   \
		n += snprintf(buf + n, cap - n, __VA_ARGS__);                                      \
		assert_true(n < cap);                                                              \
	} while (0)

	assert_non_null(buf);
	if (f->percpu) {
		LINE(0, "A fixed_percpu_data\n");
		LINE(0x1000, "A cpu_debug_store\n");
	}
	LINE(CORE_BASE + f->slide, "T _stext\n");
	for (i = 0; i < CORE_NR; i++) {
		char type = i % 5 == 0 ? 't' : i % 11 == 0 ? 'W' : 'T';

		LINE(core_addr(i) + f->slide, "%c core_fn_%d\n", type, i);
		if (i % 17 == 0)
			LINE(core_addr(i) + f->slide, "t alias_%d\n", i);
		if (i % 13 == 0)
			LINE(core_addr(i) + f->slide + 0x10, "D data_%d\n", i);
	}
	if (f->core_only) {
		*len = n;
		return buf;
	}
	for (i = 0; i < EXT4_NR; i++)
		LINE(EXT4_BASE + i * 0x80, "%c ext4_fn_%d\t[ext4]\n", i % 2 ? 't' : 'T', i);
	if (dynamic) {
		for (i = 0; i < BPF_NR; i++)
			LINE(BPF_BASE + i * 0x1000, "t bpf_prog_%016x_f%d\t[bpf]\n", 0xabc0 + i, i);
		LINE(BPF_NEAR, "t bpf_prog_near\t[bpf]\n");
	}
	for (i = 0; i < XFS_NR; i++)
		LINE(XFS_BASE + i * 0x40, "t xfs_fn_%d\t[xfs]\n", i);
	if (dynamic)
		LINE(FTRACE_IP, "t ftrace_trampoline\t[__builtin__ftrace]\n");
#undef LINE
	*len = n;
	return buf;
}

static void fx_kallsyms(struct fx *f, bool zero, bool dynamic)
{
	free(f->text);
	f->text = gen_kallsyms(f, &f->len, zero, dynamic);
	put(f, "proc/kallsyms", f->text, f->len);
}

static void fx_init(struct fx *f)
{
	char path[PATH_MAX];

	memset(f, 0, sizeof(*f));
	strcpy(f->root, "/tmp/test_ksym_cache.XXXXXX");
	assert_non_null(mkdtemp(f->root));
	path_of(path, f, "proc/sys/kernel/random");
	for (char *p = path + strlen(f->root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			assert_true(!mkdir(path, 0755) || errno == EEXIST);
			*p = '/';
		}
	assert_int_equal(mkdir(path, 0755), 0);
	put_str(f, "proc/sys/kernel/random/boot_id", BOOT_A "\n");
	put_str(f, "proc/modules", modules_text);
	fx_kallsyms(f, false, true);
	path_of(f->cache, f, "cache/pfmtop"); /* two levels to make */
	assert_true(snprintf(f->file, sizeof(f->file), "%s/kallsyms-" BOOT_A, f->cache) <
	            (int)sizeof(f->file));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void fx_free(struct fx *f)
{
	assert_int_equal(nftw(f->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(f->text);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	fx_init(f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fx_free(*state);
	free(*state);
	return 0;
}

/* A resolver on f's root and cache directory. */
static struct symbols *fx_symbols(const struct fx *f)
{
	struct symbols *s = symbols_new();

	assert_non_null(s);
	assert_int_equal(symbols_set_root(s, f->root), 0);
	assert_int_equal(symbols_set_cache_dir(s, f->cache), 0);
	return s;
}

static void stats(struct symbols *s, struct symbols_stats *st)
{
	symbols_stats(s, st);
}

/* Load the kernel table in a new resolver: it came from source, the cache
 * said cache (a reason), kallsyms was read reads times. */
static struct symbols *load(const struct fx *f, enum symbols_kernel_source source,
                            const char *cache, unsigned long reads)
{
	struct symbols *s = fx_symbols(f);
	struct symbols_stats st;

	assert_int_equal(symbols_load_kernel(s), 0);
	stats(s, &st);
	assert_non_null(st.kernel_cache);
	assert_string_equal(st.kernel_cache, cache);
	assert_int_equal(st.kernel_source, source);
	assert_int_equal(st.kallsyms_reads, reads);
	return s;
}

/* The first load writes the cache, the second maps it. */
static void prime(const struct fx *f)
{
	struct symbols_stats st;
	struct symbols *s = load(f, SYMBOLS_KERNEL_KALLSYMS, "missing", 1);

	stats(s, &st);
	assert_int_equal(st.cache_writes, 1);
	symbols_free(s);
	symbols_free(load(f, SYMBOLS_KERNEL_CACHE, "hit", 0));
}

static void label(struct symbols *s, uint64_t ip, char *buf, size_t len)
{
	struct symbols_result r;

	assert_int_equal(symbols_resolve(s, 0, ip, true, &r), 0);
	snprintf(buf, len, "%d %s+0x%" PRIx64 " %s", (int)r.status, r.name, r.offset, r.module);
}

/* Addresses around every line of f's kallsyms, and some far away. */
static size_t probes(const struct fx *f, uint64_t *ips)
{
	static const int64_t delta[] = {-1, 0, 1, 0x17, 0x3f, 0x40, 0xfff, 0x1000, 0x1001};
	static const uint64_t far[] = {
	    0, 1, 0xffffffff80000000ull, 0xffffffffc0000000ull, 0xffffffffc0800000ull, UINT64_MAX};
	size_t n = 0;

	for (const char *line = f->text; *line; line = strchr(line, '\n') + 1) {
		uint64_t a = strtoull(line, NULL, 16);

		for (size_t i = 0; i < sizeof(delta) / sizeof(*delta); i++) {
			assert_true(n < PROBES_MAX);
			ips[n++] = a + delta[i];
		}
	}
	for (size_t i = 0; i < sizeof(far) / sizeof(*far); i++)
		ips[n++] = far[i];
	return n;
}

/* Is ip where the cache's table covers (the core kernel's and each real
 * module's span: first symbol to span_end() of the last)? */
static bool placed(uint64_t ip)
{
	return (ip >= CORE_BASE && ip < span_end(core_addr(CORE_NR - 1))) ||
	       (ip >= EXT4_BASE && ip < span_end(EXT4_BASE + (EXT4_NR - 1) * 0x80)) ||
	       (ip >= XFS_BASE && ip < span_end(XFS_BASE + (XFS_NR - 1) * 0x40));
}

static void test_miss_then_hit(void **state)
{
	struct fx *f = *state;
	static uint64_t ips[PROBES_MAX];
	char a[LABEL_MAX], b[LABEL_MAX];
	struct symbols *fresh, *cached;
	struct symbols_stats st, st2;
	size_t n = probes(f, ips), placed_nr = 0;
	struct stat sb;

	fresh = load(f, SYMBOLS_KERNEL_KALLSYMS, "missing", 1);
	stats(fresh, &st);
	assert_int_equal(st.cache_writes, 1);
	assert_int_equal(lstat(f->file, &sb), 0);
	assert_true(S_ISREG(sb.st_mode));
	assert_int_equal(sb.st_mode & 07777, 0600);
	assert_int_equal(sb.st_uid, geteuid());
	assert_int_equal(stat(f->cache, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);

	cached = load(f, SYMBOLS_KERNEL_CACHE, "hit", 0);
	stats(cached, &st2);
	assert_int_equal(st2.cache_writes, 0);
	assert_false(symbols_kernel_hidden(cached));
	/* the dynamic symbols are not in the file */
	assert_int_equal(st2.kernel_symbols, st.kernel_symbols - BPF_NR - 2);

	for (size_t i = 0; i < n; i++) {
		if (!placed(ips[i]))
			continue;
		label(fresh, ips[i], a, sizeof(a));
		label(cached, ips[i], b, sizeof(b));
		assert_string_equal(a, b);
		placed_nr++;
	}
	assert_true(placed_nr > 20000);
	stats(cached, &st2);
	assert_int_equal(st2.kallsyms_reads, 0);
	assert_int_equal(st2.kernel_source, SYMBOLS_KERNEL_CACHE);

	/* reloading maps it again */
	assert_int_equal(symbols_load_kernel(cached), 0);
	stats(cached, &st2);
	assert_string_equal(st2.kernel_cache, "hit");
	assert_int_equal(st2.kallsyms_reads, 0);

	/* the rest, the BPF programs and the trampoline among them, needs
	 * one full read: then everything matches */
	for (size_t i = 0; i < n; i++) {
		label(fresh, ips[i], a, sizeof(a));
		label(cached, ips[i], b, sizeof(b));
		assert_string_equal(a, b);
	}
	stats(cached, &st2);
	assert_int_equal(st2.kallsyms_reads, 1);
	assert_int_equal(st2.kernel_source, SYMBOLS_KERNEL_KALLSYMS);
	assert_int_equal(st2.kernel_symbols, st.kernel_symbols);
	symbols_free(fresh);
	symbols_free(cached);
}

static void assert_kernel(struct symbols *s, uint64_t ip, const char *name, uint64_t off,
                          const char *module)
{
	struct symbols_result r;

	assert_int_equal(symbols_resolve(s, 0, ip, true, &r), 0);
	assert_int_equal(r.status, SYMBOLS_FOUND);
	assert_string_equal(r.name, name);
	assert_int_equal(r.offset, off);
	assert_string_equal(r.module, module);
}

static void assert_reads(struct symbols *s, unsigned long reads, unsigned long writes)
{
	struct symbols_stats st;

	stats(s, &st);
	assert_int_equal(st.kallsyms_reads, reads);
	assert_int_equal(st.cache_writes, writes);
}

static void test_dynamic_ip_one_read(void **state)
{
	struct fx *f = *state;
	struct symbols_result r;
	struct symbols *s;

	/* written while no BPF program was loaded */
	fx_kallsyms(f, false, false);
	prime(f);
	/* then one is, and a trampoline: kallsyms grows at its end */
	fx_kallsyms(f, false, true);
	s = load(f, SYMBOLS_KERNEL_CACHE, "hit", 0);
	assert_kernel(s, core_addr(10) + 4, "core_fn_10", 4, "[kernel]");
	assert_kernel(s, EXT4_BASE + 0x85, "ext4_fn_1", 5, "[ext4]");
	assert_kernel(s, XFS_BASE + 0x40, "xfs_fn_1", 0, "[xfs]");
	assert_reads(s, 0, 0);

	/* a BPF program: one full read, then it resolves */
	assert_kernel(s, BPF_BASE + 0x1010, "bpf_prog_000000000000abc1_f1", 0x10, "[bpf]");
	assert_reads(s, 1, 1);
	assert_kernel(s, FTRACE_IP + 8, "ftrace_trampoline", 8, "[__builtin__ftrace]");
	assert_kernel(s, BPF_BASE, "bpf_prog_000000000000abc0_f0", 0, "[bpf]");
	assert_kernel(s, BPF_NEAR + 0x10, "bpf_prog_near", 0x10, "[bpf]");
	/* nothing there: no more reads */
	assert_int_equal(symbols_resolve(s, 0, 0x1234, true, &r), 0);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	assert_int_equal(symbols_resolve(s, 0, 0xffffffffc0700000ull, true, &r), 0);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	assert_kernel(s, core_addr(11), "core_fn_11", 0, "[kernel]");
	assert_reads(s, 1, 1);
	symbols_free(s);

	/* the file written then is a valid cache too */
	s = load(f, SYMBOLS_KERNEL_CACHE, "hit", 0);
	/* an ip in no span, with nothing at it either: one read all the same */
	assert_int_equal(symbols_resolve(s, 0, 0x1234, true, &r), 0);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	assert_reads(s, 1, 1);
	assert_int_equal(symbols_resolve(s, 0, 0x1234, true, &r), 0);
	assert_kernel(s, FTRACE_IP, "ftrace_trampoline", 0, "[__builtin__ftrace]");
	assert_reads(s, 1, 1);
	symbols_free(s);

	/* a BPF program on the page after a module's last: within TAIL of
	 * the module's last symbol, yet not taken for it */
	s = load(f, SYMBOLS_KERNEL_CACHE, "hit", 0);
	assert_kernel(s, EXT4_BASE + (EXT4_NR - 1) * 0x80 + 0x10, "ext4_fn_199", 0x10, "[ext4]");
	assert_reads(s, 0, 0);
	assert_kernel(s, BPF_NEAR + 0x20, "bpf_prog_near", 0x20, "[bpf]");
	assert_reads(s, 1, 1);
	symbols_free(s);
}

/* Rewrite the cache file through fn, then expect the next load to reject it
 * for why, read kallsyms and write a valid file again. */
static void expect_rejected(const struct fx *f, const char *why)
{
	struct symbols *s = load(f, SYMBOLS_KERNEL_KALLSYMS, why, 1);
	struct symbols_stats st;

	stats(s, &st);
	assert_int_equal(st.cache_writes, 1);
	assert_kernel(s, core_addr(5) + f->slide + 1, "core_fn_5", 1, "[kernel]");
	symbols_free(s);
	symbols_free(load(f, SYMBOLS_KERNEL_CACHE, "hit", 0));
}

/* The cache file's bytes with the field at off (width bytes) set to v. */
static void patch(const struct fx *f, size_t off, size_t width, uint64_t v)
{
	size_t len;
	char *buf = slurp(f->file, &len);

	assert_true(off + width <= len);
	if (width == 1) {
		buf[off] = (char)v;
	} else if (width == 4) {
		uint32_t x = (uint32_t)v;

		memcpy(buf + off, &x, 4);
	} else {
		assert_int_equal(width, 8);
		memcpy(buf + off, &v, 8);
	}
	spit(f->file, buf, len);
	free(buf);
}

static struct hdr header(const struct fx *f)
{
	struct hdr h;
	size_t len;
	char *buf = slurp(f->file, &len);

	assert_true(len >= sizeof(h));
	memcpy(&h, buf, sizeof(h));
	free(buf);
	return h;
}

#define PATCH(f, field, v)                                                                         \
	patch(f, offsetof(struct hdr, field), sizeof(((struct hdr *)0)->field), v)

static void test_reject_environment(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX], text[256];
	size_t len;
	char *buf;

	prime(f);

	/* another boot: the file of BOOT_A copied as BOOT_B's */
	put_str(f, "proc/sys/kernel/random/boot_id", BOOT_B "\n");
	buf = slurp(f->file, &len);
	assert_true(snprintf(path, sizeof(path), "%s/kallsyms-" BOOT_B, f->cache) < PATH_MAX);
	spit(path, buf, len);
	free(buf);
	expect_rejected(f, "boot");
	assert_int_equal(access(f->file, F_OK), -1); /* BOOT_A's: stale, removed */
	put_str(f, "proc/sys/kernel/random/boot_id", BOOT_A "\n");
	symbols_free(load(f, SYMBOLS_KERNEL_KALLSYMS, "missing", 1));
	assert_int_equal(access(path, F_OK), -1); /* and now BOOT_B's */

	/* a module loaded, unloaded, moved; /proc/modules gone */
	snprintf(text, sizeof(text), "%snfs 4096 0 - Live 0xffffffffc0200000\n", modules_text);
	put_str(f, "proc/modules", text);
	expect_rejected(f, "modules");
	put_str(f, "proc/modules", "ext4 966656 2 - Live 0xffffffffc0001000\n");
	expect_rejected(f, "modules");
	put_str(f, "proc/modules", "ext4 966656 2 - Live 0xffffffffc0002000\n");
	expect_rejected(f, "modules");
	put_str(f, "proc/modules", "ext4 966656 2 - Loading 0xffffffffc0002000\n");
	expect_rejected(f, "modules");
	path_of(path, f, "proc/modules");
	assert_int_equal(unlink(path), 0);
	expect_rejected(f, "modules");
	put_str(f, "proc/modules", "");
	expect_rejected(f, "modules");
	/* reference counts and users change with use: not a new kernel */
	put_str(f, "proc/modules", modules_text);
	expect_rejected(f, "modules");
	put_str(f, "proc/modules",
	        "ext4 966656 7 jbd2,mbcache, Live 0xffffffffc0001000\n"
	        "xfs 1900544 3 - Live 0xffffffffc0100000\n");
	symbols_free(load(f, SYMBOLS_KERNEL_CACHE, "hit", 0));

	/* kallsyms starts differently (another kernel, KASLR) */
	f->text[17] = f->text[17] == 'T' ? 't' : 'T';
	put(f, "proc/kallsyms", f->text, f->len);
	expect_rejected(f, "head");
	f->text[5] = f->text[5] == '1' ? '2' : '1';
	put(f, "proc/kallsyms", f->text, f->len);
	expect_rejected(f, "head");
	/* a change past the first 4 KiB is not seen (it cannot be the core
	 * kernel's) */
	fx_kallsyms(f, false, true);
	expect_rejected(f, "head");
	memcpy(strstr(f->text, "xfs_fn_3"), "xfs_fn_X", 8);
	put(f, "proc/kallsyms", f->text, f->len);
	symbols_free(load(f, SYMBOLS_KERNEL_CACHE, "hit", 0));
}

/* sys/kernel/notes with a Linux note, then a GNU build id whose 20 bytes
 * are all id (nothing: no notes file). */
static void fx_notes(const struct fx *f, int id)
{
	unsigned char notes[12 + 8 + 4 + 12 + 4 + 20];
	const uint32_t linux_note[3] = {6, 4, 0x101}, gnu[3] = {4, 20, 3};
	char path[PATH_MAX];

	path_of(path, f, "sys/kernel/notes");
	if (id < 0) {
		assert_true(!unlink(path) || errno == ENOENT);
		return;
	}
	path_of(path, f, "sys");
	assert_true(!mkdir(path, 0755) || errno == EEXIST);
	path_of(path, f, "sys/kernel");
	assert_true(!mkdir(path, 0755) || errno == EEXIST);
	memset(notes, 0, sizeof(notes));
	memcpy(notes, linux_note, 12);
	memcpy(notes + 12, "Linux\0\0", 8);
	memcpy(notes + 24, gnu, 12);
	memcpy(notes + 36, "GNU", 4);
	memset(notes + 40, id, 20);
	put(f, "sys/kernel/notes", notes, sizeof(notes));
}

/* The cache directory holding only the file boot BOOT_A wrote (from
 * kallsyms as f has it now); then the machine booted again as BOOT_B. */
static void fx_earlier_boot(struct fx *f)
{
	char path[PATH_MAX];

	put_str(f, "proc/sys/kernel/random/boot_id", BOOT_A "\n");
	if (!access(f->cache, F_OK))
		assert_int_equal(nftw(f->cache, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
	symbols_free(load(f, SYMBOLS_KERNEL_KALLSYMS, "missing", 1));
	assert_int_equal(access(f->file, F_OK), 0);
	put_str(f, "proc/sys/kernel/random/boot_id", BOOT_B "\n");
	assert_true(snprintf(path, sizeof(path), "%s/kallsyms-" BOOT_B, f->cache) < PATH_MAX);
	assert_int_equal(access(path, F_OK), -1);
}

/* Every probe of f's kallsyms the cache's table places resolves in s as in
 * a table read now from kallsyms (no cache); how many did. */
static size_t same_as_kallsyms(const struct fx *f, struct symbols *s)
{
	static uint64_t ips[PROBES_MAX];
	char a[LABEL_MAX], b[LABEL_MAX];
	struct symbols *fresh = fx_symbols(f);
	size_t n = probes(f, ips), done = 0;

	assert_int_equal(symbols_set_cache_dir(fresh, NULL), 0);
	for (size_t i = 0; i < n; i++) {
		if (!placed(ips[i] - f->slide))
			continue;
		label(fresh, ips[i], a, sizeof(a));
		label(s, ips[i], b, sizeof(b));
		assert_string_equal(a, b);
		done++;
	}
	symbols_free(fresh);
	return done;
}

/* The first run after a boot uses the file of an earlier boot of the same
 * kernel (its build id), with the modules where they were: not one read of
 * kallsyms; the file then goes by this boot's name. */
static void test_earlier_boot(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX];
	struct symbols *s;

	fx_notes(f, 0x5a);
	fx_earlier_boot(f);
	s = load(f, SYMBOLS_KERNEL_CACHE, "earlier boot", 0);
	assert_true(same_as_kallsyms(f, s) > 20000);
	assert_reads(s, 0, 0);
	symbols_free(s);
	assert_int_equal(access(f->file, F_OK), -1);
	assert_true(snprintf(path, sizeof(path), "%s/kallsyms-" BOOT_B, f->cache) < PATH_MAX);
	assert_int_equal(access(path, F_OK), 0);
	s = load(f, SYMBOLS_KERNEL_CACHE, "earlier boot", 0); /* by its new name */
	assert_reads(s, 0, 0);
	symbols_free(s);

	/* not the same kernel build, or no build id to tell: read, and this
	 * boot's own file written */
	fx_earlier_boot(f);
	fx_notes(f, 0x5b);
	expect_rejected(f, "boot");
	fx_notes(f, 0x5a);
	fx_earlier_boot(f);
	fx_notes(f, -1);
	expect_rejected(f, "missing");
	fx_notes(f, 0x5a);

	/* the modules elsewhere now: each was placed on its own */
	fx_earlier_boot(f);
	put_str(f, "proc/modules",
	        "ext4 966656 2 - Live 0xffffffffc0201000\n"
	        "xfs 1900544 0 - Live 0xffffffffc0300000\n");
	expect_rejected(f, "modules");
}

/* KASLR placed the kernel elsewhere at this boot: the earlier boot's table
 * of a kernel without modules is used with the offset the first lines of
 * kallsyms give (per-CPU symbols, absolute, do not move). */
static void test_earlier_boot_slid(void **state)
{
	struct fx *f = *state;
	struct symbols_result r;
	char path[PATH_MAX];
	struct symbols *s;

	f->core_only = f->percpu = true;
	path_of(path, f, "proc/modules");
	assert_int_equal(unlink(path), 0);
	fx_kallsyms(f, false, false);
	fx_notes(f, 0x77);
	fx_earlier_boot(f);
	f->slide = 0x2a00000;
	fx_kallsyms(f, false, false);
	s = load(f, SYMBOLS_KERNEL_CACHE, "earlier boot", 0);
	assert_kernel(s, core_addr(5) + f->slide + 1, "core_fn_5", 1, "[kernel]");
	assert_true(same_as_kallsyms(f, s) > 20000);
	assert_reads(s, 0, 0);
	/* an address the table does not place: the one full read, as with any
	 * cache; that table is kallsyms' own, with no offset */
	assert_int_equal(symbols_resolve(s, 0, BPF_BASE, true, &r), 0);
	assert_int_equal(r.status, SYMBOLS_UNKNOWN);
	assert_reads(s, 1, 1);
	assert_kernel(s, core_addr(7) + f->slide + 2, "core_fn_7", 2, "[kernel]");
	symbols_free(s);

	/* the first lines do not all move by one page-aligned offset, or an
	 * absolute one moved, or the addresses are hidden now: read */
	f->slide = 0;
	fx_earlier_boot(f);
	f->slide = 0x2a00800;
	fx_kallsyms(f, false, false);
	expect_rejected(f, "head");

	f->slide = 0;
	fx_earlier_boot(f);
	f->slide = 0x2a00000;
	fx_kallsyms(f, false, false);
	memcpy(strstr(f->text, "ffffffff83a001a0"), "ffffffff83a011a0", 16);
	put(f, "proc/kallsyms", f->text, f->len);
	expect_rejected(f, "head");

	f->slide = 0;
	fx_earlier_boot(f);
	f->slide = 0x2a00000;
	fx_kallsyms(f, false, false);
	memcpy(f->text, "0000000000001000", 16);
	put(f, "proc/kallsyms", f->text, f->len);
	expect_rejected(f, "head");

	f->slide = 0;
	fx_earlier_boot(f);
	fx_kallsyms(f, true, false);
	s = load(f, SYMBOLS_KERNEL_NONE, "head", 1);
	assert_true(symbols_kernel_hidden(s));
	symbols_free(s);
	/* nor is the earlier boot's copy of them kept */
	assert_int_equal(access(f->file, F_OK), -1);

	/* a module loaded since: its own offset is not known */
	fx_kallsyms(f, false, false);
	fx_earlier_boot(f);
	put_str(f, "proc/modules", "ext4 966656 2 - Live 0xffffffffc0001000\n");
	expect_rejected(f, "modules");
}

static void test_reject_hidden(void **state)
{
	struct fx *f = *state;
	struct symbols_result r;
	struct symbols_stats st;
	struct symbols *s = fx_symbols(f);

	prime(f);
	/* kptr_restrict now hides the addresses from us */
	fx_kallsyms(f, true, true);
	assert_int_equal(symbols_load_kernel(s), 0);
	assert_true(symbols_kernel_hidden(s));
	stats(s, &st);
	assert_string_equal(st.kernel_cache, "head");
	assert_int_equal(st.kernel_source, SYMBOLS_KERNEL_NONE);
	assert_int_equal(st.kallsyms_reads, 1);
	assert_int_equal(st.cache_writes, 0);
	assert_int_equal(symbols_resolve(s, 0, core_addr(3), true, &r), 0);
	assert_int_equal(r.status, SYMBOLS_KERNEL_HIDDEN);
	/* and the copy of them is gone */
	assert_int_equal(access(f->file, F_OK), -1);
	symbols_free(s);

	/* hidden from the start: nothing written */
	s = load(f, SYMBOLS_KERNEL_NONE, "missing", 1);
	assert_true(symbols_kernel_hidden(s));
	assert_int_equal(access(f->file, F_OK), -1);
	symbols_free(s);
	fx_kallsyms(f, false, true);
	prime(f);
}

static void test_reject_file(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX];
	size_t len;
	char *good;

	prime(f);
	good = slurp(f->file, &len);

	assert_int_equal(chmod(f->file, 0620), 0);
	expect_rejected(f, "mode");
	assert_int_equal(chmod(f->file, 0602), 0);
	expect_rejected(f, "mode");
	assert_int_equal(chmod(f->file, 0644), 0); /* readable is fine */
	symbols_free(load(f, SYMBOLS_KERNEL_CACHE, "hit", 0));
	if (geteuid() == 0) {
		assert_int_equal(chown(f->file, 65534, 65534), 0);
		expect_rejected(f, "owner");
	}

	/* a symlink to a good copy, a directory, a FIFO */
	assert_true(snprintf(path, sizeof(path), "%s/copy", f->cache) < PATH_MAX);
	spit(path, good, len);
	assert_int_equal(unlink(f->file), 0);
	assert_int_equal(symlink(path, f->file), 0);
	expect_rejected(f, "type");
	assert_int_equal(unlink(path), 0);
	assert_int_equal(unlink(f->file), 0);
	assert_int_equal(mkdir(f->file, 0700), 0);
	symbols_free(load(f, SYMBOLS_KERNEL_KALLSYMS, "type", 1)); /* cannot be replaced */
	assert_int_equal(rmdir(f->file), 0);
	assert_int_equal(mkfifo(f->file, 0600), 0);
	expect_rejected(f, "type");

	/* not ours: magic, version, this build's layout */
	PATCH(f, magic[0], 'X');
	expect_rejected(f, "magic");
	PATCH(f, version, 1); /* an older pfmtop's */
	expect_rejected(f, "version");
	PATCH(f, sym_size, 16);
	expect_rejected(f, "version");
	PATCH(f, order, 0x04030201);
	expect_rejected(f, "version");
	PATCH(f, hdr_size, 8);
	expect_rejected(f, "version");

	/* truncated, grown */
	spit(f->file, good, 10);
	expect_rejected(f, "size");
	spit(f->file, good, len - 1);
	expect_rejected(f, "size");
	spit(f->file, "", 0);
	expect_rejected(f, "size");
	good = realloc(good, len + 8);
	memset(good + len, 0, 8);
	spit(f->file, good, len + 8);
	expect_rejected(f, "size");
	free(good);
}

static void test_reject_corrupt(void **state)
{
	struct fx *f = *state;
	const struct {
		size_t off, width;
		int64_t delta; /* added to the field */
		bool set;      /* or the field set to delta */
	} cases[] = {
	    {offsetof(struct hdr, syms_off), 8, 1 << 30, false},
	    {offsetof(struct hdr, syms_off), 8, 4, false}, /* misaligned */
	    {offsetof(struct hdr, syms_off), 8, 0, true},  /* over the header */
	    {offsetof(struct hdr, nr_syms), 8, 1 << 20, false},
	    {offsetof(struct hdr, nr_syms), 8, INT64_MAX, true},
	    {offsetof(struct hdr, nr_syms), 8, 0, true},
	    {offsetof(struct hdr, runs_off), 8, -8, true},
	    {offsetof(struct hdr, nr_runs), 8, 0, true},
	    {offsetof(struct hdr, nr_runs), 8, 1 << 24, false},
	    {offsetof(struct hdr, spans_off), 8, 1 << 30, false},
	    {offsetof(struct hdr, nr_spans), 8, 1ll << 60, true},
	    {offsetof(struct hdr, head_off), 8, 1, false},
	    {offsetof(struct hdr, head_len), 8, 0, true},
	    {offsetof(struct hdr, head_len), 8, -1, false}, /* not a whole line */
	    {offsetof(struct hdr, head_len), 8, 8192, true},
	    {offsetof(struct hdr, pool_off), 8, 8, false},  /* not at the empty name */
	    {offsetof(struct hdr, pool_len), 8, -1, false}, /* not NUL-terminated */
	    {offsetof(struct hdr, pool_len), 8, 1, false},  /* past the end */
	    {offsetof(struct hdr, pool_len), 8, 0, true},
	    {offsetof(struct hdr, boot_id), 8, -1, true}, /* not NUL-terminated */
	};

	prime(f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct hdr h = header(f);
		uint64_t v;

		memcpy(&v, (char *)&h + cases[i].off, 8);
		v = cases[i].set ? (uint64_t)cases[i].delta : v + (uint64_t)cases[i].delta;
		if (cases[i].off == offsetof(struct hdr, boot_id)) {
			size_t len;
			char *buf = slurp(f->file, &len);

			memset(buf + cases[i].off, 'a', sizeof(h.boot_id));
			spit(f->file, buf, len);
			free(buf);
		} else {
			patch(f, cases[i].off, cases[i].width, v);
		}
		expect_rejected(f, "corrupt");
	}
}

/* A name offset past the pool, in a symbol (struct ksym: lo, hi, then
 * name in the low 30 bits) or a run's module label (struct krun: pool,
 * mod): the file is taken, the lookup that meets it reads kallsyms. */
static void test_corrupt_offsets(void **state)
{
	struct fx *f = *state;
	struct symbols_stats st;
	struct symbols *s;
	struct hdr h;

	prime(f);
	h = header(f);
	patch(f, h.syms_off + 12 * 4 + 8, 4, 0x3fffffff); /* the 5th symbol's name */
	s = load(f, SYMBOLS_KERNEL_CACHE, "hit", 0);
	assert_kernel(s, core_addr(100), "core_fn_100", 0, "[kernel]");
	assert_reads(s, 0, 0);
	assert_kernel(s, core_addr(4) + 2, "core_fn_4", 2, "[kernel]");
	assert_reads(s, 1, 1);
	stats(s, &st);
	assert_string_equal(st.kernel_cache, "corrupt");
	symbols_free(s);

	s = load(f, SYMBOLS_KERNEL_CACHE, "hit", 0); /* written anew by that read */
	assert_kernel(s, core_addr(4) + 2, "core_fn_4", 2, "[kernel]");
	symbols_free(s);
	h = header(f);
	assert_true(h.nr_runs >= 3);
	patch(f, h.runs_off + 8 * 1 + 4, 4, 0xfffffff0); /* [ext4] */
	s = load(f, SYMBOLS_KERNEL_CACHE, "hit", 0);
	assert_kernel(s, XFS_BASE + 0x44, "xfs_fn_1", 4, "[xfs]");
	assert_reads(s, 0, 0);
	assert_kernel(s, EXT4_BASE + 0x81, "ext4_fn_1", 1, "[ext4]");
	assert_reads(s, 1, 1);
	symbols_free(s);
}

/* Truncated at every length, the header's size made to agree: the checks
 * of the arrays reject it, or what is left is a usable table. */
static void test_truncations(void **state)
{
	struct fx *f = *state;
	struct symbols_result r;
	struct symbols_stats st;
	size_t len, step;
	char *good;

	prime(f);
	good = slurp(f->file, &len);
	step = len / 1000 + 1;
	for (size_t n = 0; n < len; n += n < sizeof(struct hdr) + 64 ? 1 : step) {
		struct symbols *s = fx_symbols(f);
		char *buf = malloc(n + 1);
		uint64_t size = n;

		memcpy(buf, good, n);
		if (n >= offsetof(struct hdr, file_size) + 8)
			memcpy(buf + offsetof(struct hdr, file_size), &size, 8);
		spit(f->file, buf, n);
		assert_int_equal(symbols_load_kernel(s), 0);
		stats(s, &st);
		assert_int_equal(st.kernel_source, SYMBOLS_KERNEL_KALLSYMS);
		assert_int_equal(symbols_resolve(s, 0, core_addr(7), true, &r), 0);
		assert_string_equal(r.name, "core_fn_7");
		symbols_free(s);
		free(buf);
	}
	free(good);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Random bytes changed, mostly in the header and the arrays: never a crash
 * (the sanitizer build checks every access); a file still taken is used
 * for lookups that either name something or fall back to one read. */
static void test_random_corruption(void **state)
{
	struct fx *f = *state;
	static uint64_t ips[PROBES_MAX];
	size_t len, n = probes(f, ips), hits = 0;
	struct hdr h;
	char *good;

	prime(f);
	good = slurp(f->file, &len);
	memcpy(&h, good, sizeof(h));
	for (int iter = 0; iter < 600; iter++) {
		char *buf = malloc(len);
		struct symbols *s = fx_symbols(f);
		struct symbols_result r;
		struct symbols_stats st;
		int flips = 1 + rng() % 8;

		memcpy(buf, good, len);
		for (int k = 0; k < flips; k++) {
			/* the header, the symbols and runs, or anywhere */
			uint64_t where = rng() % 3;
			size_t off = where == 0   ? rng() % sizeof(h)
			             : where == 1 ? h.syms_off + rng() % (h.pool_off - h.syms_off)
			                          : rng() % len;

			buf[off] ^= (char)(1 + rng() % 255);
		}
		spit(f->file, buf, len);
		assert_int_equal(symbols_load_kernel(s), 0);
		stats(s, &st);
		hits += st.kernel_source == SYMBOLS_KERNEL_CACHE;
		for (size_t i = 0; i < n; i += 1 + rng() % 64) {
			assert_int_equal(symbols_resolve(s, 0, ips[i], true, &r), 0);
			assert_true(r.status == SYMBOLS_FOUND || r.status == SYMBOLS_UNKNOWN);
			assert_true(strlen(r.name) < sizeof(r.name));
		}
		stats(s, &st);
		assert_true(st.kallsyms_reads <= 1);
		symbols_free(s);
		free(buf);
	}
	print_message("%zu of 600 corrupted files were still used\n", hits);
	free(good);
}

static void test_stale_files_removed(void **state)
{
	struct fx *f = *state;
	const char *gone[] = {"kallsyms-" BOOT_B, "kallsyms-old", ".kallsyms-1-dead"};
	const char *kept[] = {".kallsyms-2-busy", "notes", "kallsyms"};
	const struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};
	char path[PATH_MAX];

	prime(f);
	for (size_t i = 0; i < 3; i++) {
		assert_true(snprintf(path, sizeof(path), "%s/%s", f->cache, gone[i]) < PATH_MAX);
		spit(path, "x", 1);
		assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
		assert_true(snprintf(path, sizeof(path), "%s/%s", f->cache, kept[i]) < PATH_MAX);
		spit(path, "x", 1);
	}
	assert_int_equal(unlink(f->file), 0);
	symbols_free(load(f, SYMBOLS_KERNEL_KALLSYMS, "missing", 1));
	assert_int_equal(access(f->file, F_OK), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_true(snprintf(path, sizeof(path), "%s/%s", f->cache, gone[i]) < PATH_MAX);
		assert_int_equal(access(path, F_OK), -1);
		assert_true(snprintf(path, sizeof(path), "%s/%s", f->cache, kept[i]) < PATH_MAX);
		assert_int_equal(access(path, F_OK), 0);
	}
}

/* No cache: nothing written, kallsyms read each time. */
static void expect_no_cache(const struct fx *f, const char *why)
{
	struct symbols_stats st;
	struct symbols *s = load(f, SYMBOLS_KERNEL_KALLSYMS, why, 1);

	stats(s, &st);
	assert_int_equal(st.cache_writes, 0);
	symbols_free(s);
}

static void test_directory(void **state)
{
	struct fx *f = *state;
	char path[PATH_MAX], real[PATH_MAX];
	struct symbols *s;

	/* group-writable, or a symlink: not ours */
	prime(f);
	assert_int_equal(chmod(f->cache, 0770), 0);
	expect_no_cache(f, "nodir");
	assert_int_equal(chmod(f->cache, 0700), 0);
	assert_true(snprintf(real, sizeof(real), "%s.real", f->cache) < PATH_MAX);
	assert_int_equal(rename(f->cache, real), 0);
	assert_int_equal(symlink(real, f->cache), 0);
	expect_no_cache(f, "nodir");
	assert_int_equal(unlink(f->cache), 0);
	assert_int_equal(rename(real, f->cache), 0);
	symbols_free(load(f, SYMBOLS_KERNEL_CACHE, "hit", 0));
	if (geteuid() == 0) {
		/* someone else's: not used, and nothing is made inside a
		 * directory of someone else's */
		assert_int_equal(chown(f->cache, 65534, 65534), 0);
		expect_no_cache(f, "nodir");
		assert_int_equal(chown(f->cache, geteuid(), getegid()), 0);
		assert_int_equal(unlink(f->file), 0);
		assert_int_equal(rmdir(f->cache), 0);
		path_of(path, f, "cache");
		assert_int_equal(chown(path, 65534, 65534), 0);
		expect_no_cache(f, "missing");
		assert_int_equal(access(f->cache, F_OK), -1);
	}

	/* off */
	s = fx_symbols(f);
	assert_int_equal(symbols_set_cache_dir(s, NULL), 0);
	assert_int_equal(symbols_load_kernel(s), 0);
	assert_reads(s, 1, 0);
	symbols_free(s);

	/* no boot id */
	path_of(path, f, "proc/sys/kernel/random/boot_id");
	put_str(f, "proc/sys/kernel/random/boot_id", "not-a-boot-id\n");
	expect_no_cache(f, "noboot");
	assert_int_equal(unlink(path), 0);
	expect_no_cache(f, "noboot");
}

static void restore_env(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

/* Without symbols_set_cache_dir(): $XDG_CACHE_HOME/pfmtop, else
 * $HOME/.cache/pfmtop, none with PFMTOP_NO_KSYM_CACHE. */
static void test_environment(void **state)
{
	struct fx *f = *state;
	char dir[PATH_MAX], path[PATH_MAX], *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
	struct symbols_stats st;
	struct symbols *s;

	home = home ? strdup(home) : NULL;
	xdg = xdg ? strdup(xdg) : NULL;
	unsetenv("PFMTOP_NO_KSYM_CACHE");
	path_of(dir, f, "xdg");
	setenv("XDG_CACHE_HOME", dir, 1);
	s = symbols_new();
	assert_int_equal(symbols_set_root(s, f->root), 0);
	assert_int_equal(symbols_load_kernel(s), 0);
	assert_reads(s, 1, 1);
	assert_true(snprintf(path, sizeof(path), "%s/pfmtop/kallsyms-" BOOT_A, dir) < PATH_MAX);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(symbols_load_kernel(s), 0);
	assert_reads(s, 1, 1);
	symbols_stats(s, &st);
	assert_int_equal(st.kernel_source, SYMBOLS_KERNEL_CACHE);

	setenv("PFMTOP_NO_KSYM_CACHE", "1", 1);
	assert_int_equal(symbols_load_kernel(s), 0);
	symbols_stats(s, &st);
	assert_string_equal(st.kernel_cache, "off");
	assert_int_equal(st.kallsyms_reads, 2);
	setenv("PFMTOP_NO_KSYM_CACHE", "0", 1);
	assert_int_equal(symbols_load_kernel(s), 0);
	symbols_stats(s, &st);
	assert_string_equal(st.kernel_cache, "hit");

	/* relative: ignored */
	setenv("XDG_CACHE_HOME", "relative/dir", 1);
	path_of(dir, f, "home");
	assert_int_equal(mkdir(dir, 0700), 0);
	setenv("HOME", dir, 1);
	assert_int_equal(symbols_load_kernel(s), 0);
	symbols_stats(s, &st);
	assert_string_equal(st.kernel_cache, "missing");
	assert_true(snprintf(path, sizeof(path), "%s/.cache/pfmtop/kallsyms-" BOOT_A, dir) <
	            PATH_MAX);
	assert_int_equal(access(path, F_OK), 0);
	symbols_free(s);
	setenv("PFMTOP_NO_KSYM_CACHE", "1", 1);
	restore_env("HOME", home);
	restore_env("XDG_CACHE_HOME", xdg);
	free(home);
	free(xdg);
}

/* Is label ("[ext4]\n" ...) a module of /proc/modules? */
static bool live_module(const char *label)
{
	char line[1024], name[256];
	size_t n = strcspn(label + 1, "]");
	bool found = false;
	FILE *fp = fopen("/proc/modules", "r");

	if (!fp || n >= sizeof(name))
		goto out;
	memcpy(name, label + 1, n);
	name[n] = '\0';
	while (!found && fgets(line, sizeof(line), fp))
		found = !strncmp(line, name, n) && line[n] == ' ';
out:
	if (fp)
		fclose(fp);
	return found;
}

/* The live kernel, when kallsyms shows its addresses: the table from the
 * cache names everything it places as a fresh read does. */
static void test_live(void **state)
{
	char dir[] = "/tmp/test_ksym_cache.live.XXXXXX", a[LABEL_MAX], b[LABEL_MAX];
	struct symbols *fresh = symbols_new(), *cached = symbols_new();
	unsigned long long addr;
	struct symbols_stats st;
	size_t n = 0, compared = 0;
	char line[1024], type, *mod;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(symbols_set_cache_dir(fresh, dir), 0);
	assert_int_equal(symbols_set_cache_dir(cached, dir), 0);
	if (symbols_load_kernel(fresh) || symbols_kernel_hidden(fresh)) {
		print_message("kallsyms unreadable or hidden: not compared\n");
		goto out;
	}
	assert_int_equal(symbols_load_kernel(cached), 0);
	symbols_stats(cached, &st);
	if (st.kernel_source != SYMBOLS_KERNEL_CACHE) {
		/* /proc/modules changed in between, say */
		print_message("the cache was not used (%s): not compared\n", st.kernel_cache);
		goto out;
	}
	fp = fopen("/proc/kallsyms", "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		/* text: what samples hit */
		if (n++ % 7 || sscanf(line, "%llx %c", &addr, &type) != 2 || !strchr("tTwW", type))
			continue;
		mod = strchr(line, '[');
		if (mod && !live_module(mod))
			continue; /* dynamic code: read on demand */
		for (int d = 0; d < 3; d++) {
			label(fresh, addr + d * 3, a, sizeof(a));
			label(cached, addr + d * 3, b, sizeof(b));
			assert_string_equal(a, b);
			compared++;
		}
	}
	fclose(fp);
	symbols_stats(cached, &st);
	assert_int_equal(st.kallsyms_reads, 0);
	print_message("%zu lookups compared\n", compared);
	assert_true(compared > 1000);
out:
	symbols_free(fresh);
	symbols_free(cached);
	assert_int_equal(nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_miss_then_hit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dynamic_ip_one_read, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reject_environment, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_earlier_boot, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_earlier_boot_slid, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reject_hidden, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reject_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reject_corrupt, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_corrupt_offsets, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_truncations, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_random_corruption, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stale_files_removed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_directory, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_environment, setup, teardown),
	    cmocka_unit_test(test_live),
	};

	/* never the real ~/.cache: the tests name their directories */
	setenv("PFMTOP_NO_KSYM_CACHE", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
