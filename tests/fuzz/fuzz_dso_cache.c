/* fuzz_dso_cache: libFuzzer harness for the binaries' symbol table cache
 * files of src/dso_cache.c. Each input is written as the cache file of a
 * fixed key (fuzz_dso_cache.h) and loaded by sym_dcache_load(): refused, or
 * mapped and then looked up all over its range and beyond, every name read
 * whole. The seed (gen_dso_seeds) is a valid file, so mutations reach both
 * the checks and lookups in a table that passed them. */
#include <ftw.h>

#include "fuzz_dso_cache.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/fuzz_dso_cache.XXXXXX", file[PATH_MAX];

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			__builtin_trap();                                                          \
	} while (0)

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	CHECK(mkdtemp(dir));
	dfx_file(dir, file, sizeof(file));
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbols *s = symbols_new();
	struct dcache_key k = dfx_key();
	struct symtab t = {0};
	int fd;

	CHECK(s);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	CHECK(write(fd, data, size) == (ssize_t)size);
	close(fd);
	symbols_set_cache_dir(s, dir);
	if (sym_dcache_load(s, &k, &t)) {
		size_t names = 0;

		CHECK(t.nr && t.map);
		for (uint64_t a = 0; a < DFX_BASE + 0x30 * DFX_SYMS + 0x2000; a += 0x11) {
			ssize_t i = sym_symtab_find(&t, a);

			if (i >= 0) {
				CHECK((size_t)i < t.nr);
				names += strlen(t.pool + t.syms[i].name);
			}
		}
		for (size_t i = 0; i < t.nr; i++)
			names += strlen(t.pool + t.syms[i].name);
		CHECK(names < SIZE_MAX);
	}
	sym_symtab_free(&t);
	symbols_free(s);
	return 0;
}
