/* test_dso_cache: binaries' symbol tables cached by build id (src/dso_cache.c). */
#include "symbols_priv.h"

#include <dlfcn.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#define NR 300 /* symbols of the hand-made table: above the smallest one cached */

static char dir[] = "/tmp/test_dso_cache.XXXXXX";

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void empty_dir(void)
{
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	assert_int_equal(mkdir(dir, 0700), 0);
}

/* The only table file in dir, into path. */
static void table_file(char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "dso-", 4)) {
			snprintf(path, len, "%s/%s", dir, de->d_name);
			n++;
		}
	closedir(d);
	assert_int_equal(n, 1);
}

static void make_table(struct symtab *t)
{
	size_t at = 0;

	t->syms = calloc(NR, sizeof(*t->syms));
	t->pool = malloc(NR * 16);
	assert_non_null(t->syms);
	assert_non_null(t->pool);
	for (size_t i = 0; i < NR; i++) {
		t->syms[i] =
		    (struct sym){.start = 0x1000 + 0x40 * i, .size = 0x40, .name = (uint32_t)at};
		at += (size_t)sprintf(t->pool + at, "fn_%zu", i) + 1;
	}
	t->nr = NR;
	t->pool_len = at;
}

static struct dcache_key key_of(void)
{
	struct dcache_key k = {.build_id = {0xab, 0xcd, 0x01, 0x02},
	                       .build_id_len = 20,
	                       .kind = DCACHE_DEBUG,
	                       .dev = 0x801,
	                       .ino = 4242,
	                       .size = 123456,
	                       .mtime_sec = 1700000000,
	                       .ctime_sec = 1700000001};
	return k;
}

/* A table written for a key is read back whole for that key only. */
static void test_round_trip_and_key(void **state)
{
	struct symbols *s = symbols_new();
	struct symtab t = {0}, got = {0};
	struct dcache_key k = key_of(), other;
	struct symbols_stats st;

	(void)state;
	empty_dir();
	assert_int_equal(symbols_set_cache_dir(s, dir), 0);
	make_table(&t);
	sym_dcache_store(s, &k, &t);
	symbols_stats(s, &st);
	assert_int_equal(st.dso_cache_writes, 1);

	assert_true(sym_dcache_load(s, &k, &got));
	assert_non_null(got.map);
	assert_int_equal(got.nr, NR);
	for (size_t i = 0; i < NR; i++) {
		assert_int_equal(got.syms[i].start, t.syms[i].start);
		assert_int_equal(got.syms[i].size, t.syms[i].size);
		assert_string_equal(got.pool + got.syms[i].name, t.pool + t.syms[i].name);
	}
	assert_int_equal(sym_symtab_find(&got, 0x1000 + 0x40 * 7 + 5), 7);
	sym_symtab_free(&got);

	/* any part of the key that differs: not that file's table */
	other = k;
	other.mtime_nsec = 1;
	assert_false(sym_dcache_load(s, &other, &got));
	other = k;
	other.ctime_sec++;
	assert_false(sym_dcache_load(s, &other, &got));
	other = k;
	other.ino++;
	assert_false(sym_dcache_load(s, &other, &got));
	other = k;
	other.size--;
	assert_false(sym_dcache_load(s, &other, &got));
	other = k;
	other.kind = DCACHE_BINARY;
	assert_false(sym_dcache_load(s, &other, &got));
	other = k;
	other.build_id[19] = 1;
	assert_false(sym_dcache_load(s, &other, &got));
	assert_null(got.map);

	/* no build id: kept under a name of its file status, and read back
	 * for that status only */
	empty_dir();
	other = k;
	other.build_id_len = 0;
	sym_dcache_store(s, &other, &t);
	char path[PATH_MAX];
	table_file(path, sizeof(path));
	assert_non_null(strstr(path, "/dso-n"));
	assert_true(sym_dcache_load(s, &other, &got));
	assert_int_equal(got.nr, NR);
	sym_symtab_free(&got);
	assert_false(sym_dcache_load(s, &k, &got)); /* with a build id: another table */
	struct dcache_key moved = other;
	moved.ino++;
	assert_false(sym_dcache_load(s, &moved, &got));
	moved = other;
	moved.ctime_nsec++;
	assert_false(sym_dcache_load(s, &moved, &got));
	/* a hash that collides (another status's table under this name) only misses */
	moved = other;
	moved.mtime_nsec = 7;
	char bytes[1 << 16];
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	ssize_t n = read(fd, bytes, sizeof(bytes));
	close(fd);
	assert_true(n > 0 && n < (ssize_t)sizeof(bytes));
	empty_dir();
	sym_dcache_store(s, &moved, &t);
	table_file(path, sizeof(path));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, (size_t)n), n);
	close(fd);
	assert_false(sym_dcache_load(s, &moved, &got));
	assert_null(got.map);
	empty_dir();
	/* a small table is read faster than a file is checked: not written */
	t.nr = 100;
	sym_dcache_store(s, &k, &t);
	symbols_stats(s, &st);
	assert_int_equal(st.dso_cache_writes, 3);
	t.nr = NR;
	sym_symtab_free(&t);
	symbols_free(s);
}

/* Corrupt a byte range of the file, then expect it refused. */
static void refused_after(struct symbols *s, const struct dcache_key *k, off_t at,
                          const void *bytes, size_t n)
{
	char path[PATH_MAX];
	struct symtab got = {0};
	int fd;

	table_file(path, sizeof(path));
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, n, at), (ssize_t)n);
	close(fd);
	assert_false(sym_dcache_load(s, k, &got));
	assert_null(got.map);
}

/* Nothing in the file is trusted: a bad offset, unsorted symbols, a pool
 * without its last NUL, a truncated file, a file others may write, a
 * symlink: each refused (and the caller reads the binary again). */
static void test_refused(void **state)
{
	struct symbols *s = symbols_new();
	struct dcache_key k = key_of();
	struct symtab t = {0}, got = {0};
	const size_t hdr = 192; /* struct dcache_hdr */
	char path[PATH_MAX], link[PATH_MAX + 8];
	const uint32_t bad = 0xffffffffu;
	const uint64_t low = 0x10;
	struct stat st;

	(void)state;
	assert_int_equal(symbols_set_cache_dir(s, dir), 0);
	make_table(&t);
	empty_dir();
	sym_dcache_store(s, &k, &t);
	assert_true(sym_dcache_load(s, &k, &got)); /* the header size is as above */
	assert_ptr_equal((char *)got.syms, (char *)got.map + hdr);
	sym_symtab_free(&got);

	/* symbol 5's name offset past the pool */
	refused_after(s, &k, (off_t)(hdr + 5 * sizeof(struct sym) + offsetof(struct sym, name)),
	              &bad, sizeof(bad));
	/* symbol 9 starts before symbol 8 */
	empty_dir();
	sym_dcache_store(s, &k, &t);
	refused_after(s, &k, (off_t)(hdr + 9 * sizeof(struct sym)), &low, sizeof(low));
	/* the pool's last NUL gone */
	empty_dir();
	sym_dcache_store(s, &k, &t);
	table_file(path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	refused_after(s, &k, st.st_size - 1, "x", 1);

	/* one byte short */
	empty_dir();
	sym_dcache_store(s, &k, &t);
	table_file(path, sizeof(path));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 1), 0);
	assert_false(sym_dcache_load(s, &k, &got));

	/* writable by others */
	empty_dir();
	sym_dcache_store(s, &k, &t);
	table_file(path, sizeof(path));
	assert_int_equal(chmod(path, 0666), 0);
	assert_false(sym_dcache_load(s, &k, &got));
	assert_int_equal(chmod(path, 0600), 0);
	assert_true(sym_dcache_load(s, &k, &got));
	sym_symtab_free(&got);

	/* a symlink in its place, to a valid table */
	snprintf(link, sizeof(link), "%s.real", path);
	assert_int_equal(rename(path, link), 0);
	assert_int_equal(symlink(link, path), 0);
	assert_false(sym_dcache_load(s, &k, &got));
	assert_null(got.map);
	sym_symtab_free(&t);
	symbols_free(s);
}

static int count_prefix(const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static void put_file(const char *name, time_t mtime)
{
	char path[PATH_MAX];
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
}

/* Writing a table keeps the 512 most recently used files (and 256 MB):
 * past that, the oldest go down to 384 (192 MB), the new one stays; a temporary file left behind
 * an hour ago goes, a recent one (being written) stays. */
static void test_sweep(void **state)
{
	struct symbols *s = symbols_new();
	struct dcache_key k = key_of();
	struct symtab t = {0}, got = {0};
	time_t now = time(NULL);
	char name[64];

	(void)state;
	empty_dir();
	assert_int_equal(symbols_set_cache_dir(s, dir), 0);
	for (int i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "dso-%04d-1", i);
		put_file(name, now - 100000 + i); /* dso-0000-1 is the oldest */
	}
	put_file(".dso-old", now - 7200);
	put_file(".dso-new", now);
	put_file("kallsyms-other", now - 100000); /* not this cache's to remove */
	make_table(&t);
	sym_dcache_store(s, &k, &t);
	assert_int_equal(count_prefix("dso-"), 384);
	assert_int_equal(count_prefix(".dso-old"), 0);
	assert_int_equal(count_prefix(".dso-new"), 1);
	assert_int_equal(count_prefix("kallsyms-"), 1);
	assert_int_equal(count_prefix("dso-0216-1"), 0); /* the 217 oldest went */
	assert_int_equal(count_prefix("dso-0217-1"), 1);
	assert_true(sym_dcache_load(s, &k, &got)); /* the new one stayed */
	sym_symtab_free(&got);

	/* 256 MB in all at most: three old 100 MB files (sparse), the two
	 * oldest go to leave 192 MB at most */
	empty_dir();
	for (int i = 0; i < 3; i++) {
		char path[PATH_MAX];

		struct timespec ts[2] = {{now - 1000 + i, 0}, {now - 1000 + i, 0}};

		snprintf(name, sizeof(name), "dso-big%d-1", i);
		put_file(name, now);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		assert_int_equal(truncate(path, 100 << 20), 0);
		assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	}
	sym_dcache_store(s, &k, &t);
	assert_int_equal(count_prefix("dso-big0"), 0);
	assert_int_equal(count_prefix("dso-big1"), 0);
	assert_int_equal(count_prefix("dso-big2"), 1);
	assert_int_equal(count_prefix("dso-"), 2);
	sym_symtab_free(&t);
	symbols_free(s);
}

/* End to end on libc as this process maps it: the first resolver reads it
 * and writes its table; the next maps that table and names every address
 * as the first did. */
static void test_libc(void **state)
{
	static const char *const names[] = {"qsort", "getpid", "strtoull", "malloc", "fopen"};
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	struct symbols_result want[5], got;
	struct symbols_stats st;
	struct symbols *s;

	(void)state;
	assert_non_null(libc);
	empty_dir();
	s = symbols_new();
	assert_int_equal(symbols_set_cache_dir(s, dir), 0);
	for (size_t i = 0; i < 5; i++) {
		uintptr_t a = (uintptr_t)dlsym(libc, names[i]);

		assert_int_equal(symbols_resolve(s, getpid(), a + 1, false, &want[i]), 0);
		assert_int_equal(want[i].status, SYMBOLS_FOUND);
	}
	symbols_stats(s, &st);
	symbols_free(s);
	if (!st.dso_cache_writes) {
		dlclose(libc);
		skip(); /* a libc without a build id */
	}
	assert_int_equal(st.dso_cache_hits, 0);

	s = symbols_new();
	assert_int_equal(symbols_set_cache_dir(s, dir), 0);
	for (size_t i = 0; i < 5; i++) {
		uintptr_t a = (uintptr_t)dlsym(libc, names[i]);

		assert_int_equal(symbols_resolve(s, getpid(), a + 1, false, &got), 0);
		assert_int_equal(got.status, SYMBOLS_FOUND);
		assert_string_equal(got.name, want[i].name);
		assert_string_equal(got.module, want[i].module);
		assert_int_equal(got.offset, want[i].offset);
	}
	symbols_stats(s, &st);
	assert_true(st.dso_cache_hits >= 1);
	assert_int_equal(st.dso_cache_writes, 0);
	symbols_free(s);

	/* no cache directory: read as before, nothing written */
	s = symbols_new();
	assert_int_equal(symbols_set_cache_dir(s, NULL), 0);
	assert_int_equal(
	    symbols_resolve(s, getpid(), (uintptr_t)dlsym(libc, "qsort") + 1, false, &got), 0);
	assert_string_equal(got.name, want[0].name);
	symbols_stats(s, &st);
	assert_int_equal(st.dso_cache_hits + st.dso_cache_writes, 0);
	symbols_free(s);
	dlclose(libc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip_and_key),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_sweep),
	    cmocka_unit_test(test_libc),
	};
	int ret;

	/* the kernel table is not looked at here: not into ~/.cache either */
	setenv("PFMTOP_NO_KSYM_CACHE", "1", 1);
	if (!mkdtemp(dir))
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return ret;
}
