/* gen_dso_seeds DIR: writes DIR/seed-00, a valid symbol table cache file for
 * the key of fuzz_dso_cache (fuzz_dso_cache.h). */
#include "fuzz_dso_cache.h"

int main(int argc, char **argv)
{
	char dir[] = "/tmp/gen_dso_seeds.XXXXXX", file[PATH_MAX], seed[PATH_MAX];
	struct symbols *s = symbols_new();
	struct dcache_key k = dfx_key();
	struct symtab t = {0};
	size_t at = 0;
	int ret = 1;

	if (argc != 2 || !s || !mkdtemp(dir)) {
		fprintf(stderr, "usage: gen_dso_seeds DIR\n");
		return 2;
	}
	t.syms = calloc(DFX_SYMS, sizeof(*t.syms));
	t.pool = malloc(DFX_SYMS * 24);
	if (!t.syms || !t.pool)
		return 1;
	for (size_t i = 0; i < DFX_SYMS; i++) {
		t.syms[i] = (struct sym){.start = DFX_BASE + 0x30 * i,
		                         .size = i % 7 ? 0x30 : 0x10,
		                         .name = (uint32_t)at};
		at += (size_t)sprintf(t.pool + at, "function_%zu", i) + 1;
	}
	t.nr = DFX_SYMS;
	t.pool_len = at;
	symbols_set_cache_dir(s, dir);
	sym_dcache_store(s, &k, &t);
	dfx_file(dir, file, sizeof(file));
	snprintf(seed, sizeof(seed), "%s/seed-00", argv[1]);
	if (!rename(file, seed))
		ret = 0;
	else
		fprintf(stderr, "gen_dso_seeds: no cache file written\n");
	rmdir(dir);
	sym_symtab_free(&t);
	symbols_free(s);
	return ret;
}
