/* gen_ksym_seeds DIR: writes DIR/seed-00, a valid kernel symbol cache file
 * for the fixture of fuzz_ksym_cache (see fuzz_ksym_cache.h). */
#include <ftw.h>

#include "fuzz_ksym_cache.h"
#include "symbols.h"

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

int main(int argc, char **argv)
{
	char root[PATH_MAX], cache[PATH_MAX], file[PATH_MAX], seed[PATH_MAX];
	struct symbols *s = symbols_new();
	struct symbols_stats st;

	if (argc != 2 || !s) {
		fprintf(stderr, "usage: gen_ksym_seeds DIR\n");
		return 2;
	}
	if (kfx_make(root)) {
		perror("gen_ksym_seeds: fixture");
		return 1;
	}
	kfx_paths(root, cache, file);
	snprintf(seed, sizeof(seed), "%s/seed-00", argv[1]);
	symbols_set_root(s, root);
	symbols_set_cache_dir(s, cache);
	symbols_load_kernel(s);
	symbols_stats(s, &st);
	if (st.cache_writes != 1 || rename(file, seed)) {
		fprintf(stderr, "gen_ksym_seeds: no cache file written (%s)\n",
		        st.kernel_cache ? st.kernel_cache : "?");
		return 1;
	}
	symbols_free(s);
	return nftw(root, rm_entry, 8, FTW_DEPTH | FTW_PHYS) ? 1 : 0;
}
