/* fuzz_dso_cache.h: the key and table the DSO cache harness and its seed
 * generator share (src/dso_cache.c). */
#ifndef PFMTOP_FUZZ_DSO_CACHE_H
#define PFMTOP_FUZZ_DSO_CACHE_H

#include "symbols_priv.h"

#define DFX_SYMS 300
#define DFX_BASE 0x401000u

static inline struct dcache_key dfx_key(void)
{
	struct dcache_key k = {.build_id = {0x5e, 0xed, 0x00, 0x01},
	                       .build_id_len = 20,
	                       .kind = DCACHE_BINARY,
	                       .dev = 0x803,
	                       .ino = 77,
	                       .size = 1 << 20,
	                       .mtime_sec = 1700000000,
	                       .ctime_sec = 1700000000};
	return k;
}

/* The file a table for dfx_key() is written to, below dir. */
static inline void dfx_file(const char *dir, char *path, size_t len)
{
	snprintf(path, len, "%s/dso-5eed000100000000000000000000000000000000-2", dir);
}

#endif
