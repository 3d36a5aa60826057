/* fuzz_ksym_cache: libFuzzer harness for the kernel symbol cache file of
 * src/symbols.c. Each input is written as the cache file of a fixture
 * kernel (fuzz_ksym_cache.h), loaded by symbols_load_kernel() (mapped when
 * its checks pass, else kallsyms is read and the file rewritten) and used
 * for kernel lookups all over the fixture's address ranges and beyond. The
 * seed (gen_ksym_seeds) is a valid file, so mutations reach both the checks
 * and the lookups in a table that passed them. */
#include <fcntl.h>
#include <ftw.h>

#include "fuzz_ksym_cache.h"
#include "symbols.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[PATH_MAX], cache[PATH_MAX], file[PATH_MAX];

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			__builtin_trap();                                                          \
	} while (0)

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void cleanup(void)
{
	nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	CHECK(!kfx_make(root));
	kfx_paths(root, cache, file);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t bases[] = {KFX_CORE, KFX_EXT4, KFX_BPF, KFX_XFS, KFX_FTRACE, 0};
	struct symbols *s = symbols_new();
	struct symbols_result r;
	struct symbols_stats st;
	int fd;

	CHECK(s);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	CHECK(write(fd, data, size) == (ssize_t)size);
	close(fd);
	symbols_set_root(s, root);
	symbols_set_cache_dir(s, cache);
	CHECK(!symbols_load_kernel(s));
	for (size_t b = 0; b < sizeof(bases) / sizeof(*bases); b++)
		for (uint64_t off = 0; off < 0x8000; off += 0x1e7) {
			CHECK(!symbols_resolve(s, 0, bases[b] + off, true, &r));
			CHECK(r.status == SYMBOLS_FOUND || r.status == SYMBOLS_UNKNOWN);
			CHECK(memchr(r.name, '\0', sizeof(r.name)));
			CHECK(memchr(r.module, '\0', sizeof(r.module)));
		}
	symbols_stats(s, &st);
	CHECK(st.kallsyms_reads <= 1);
	symbols_free(s);
	return 0;
}
