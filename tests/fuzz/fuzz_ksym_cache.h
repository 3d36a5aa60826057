/* The kernel fuzz_ksym_cache and its seed generator share: kallsyms, modules
 * and a boot id below a temporary root, and the cache directory in it. */
#ifndef FUZZ_KSYM_CACHE_H
#define FUZZ_KSYM_CACHE_H

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KFX_BOOT_ID "5e1f0c2a-7b3d-4c9e-a1f2-0d3c4b5a6978"
#define KFX_CORE    UINT64_C(0xffffffff81000000)
#define KFX_CORE_NR 400
#define KFX_EXT4    UINT64_C(0xffffffffc0001000)
#define KFX_EXT4_NR 60
#define KFX_BPF     UINT64_C(0xffffffffc0003000)
#define KFX_XFS     UINT64_C(0xffffffffc0100000)
#define KFX_XFS_NR  40
#define KFX_FTRACE  UINT64_C(0xffffffffc0600000)

static int kfx_put(const char *root, const char *rel, const char *text, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", root, rel) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fwrite(text, 1, len, f) != len) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* Make the fixture below a new directory written into root (PATH_MAX). 0 or -1. */
static int kfx_make(char *root)
{
	static const char *dirs[] = {
	    "proc",  "proc/sys", "proc/sys/kernel", "proc/sys/kernel/random",
	    "cache", "sys",      "sys/kernel"};
	/* the kernel's notes: its GNU build id (a mutated file whose boot id
	 * differs is then taken for an earlier boot's, and checked as one) */
	static const unsigned char notes[] = {4,    0,    0,    0,    20,   0,    0,    0,    3,
	                                      0,    0,    0,    'G',  'N',  'U',  0,    0x11, 0x22,
	                                      0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
	                                      0xcc, 0xdd, 0xee, 0xff, 1,    2,    3,    4,    5};
	static const char modules[] = "ext4 966656 1 - Live 0xffffffffc0001000\n"
	                              "xfs 1900544 0 - Live 0xffffffffc0100000\n";
	size_t cap = 256 * 1024, n = 0;
	char path[PATH_MAX], *text;
	int i, r;

	strcpy(root, "/tmp/fuzz_ksym_cache.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	for (i = 0; i < (int)(sizeof(dirs) / sizeof(*dirs)); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		if (mkdir(path, !strcmp(dirs[i], "cache") ? 0700 : 0755) && errno != EEXIST)
			return -1;
	}
	text = malloc(cap);
	if (!text)
		return -1;
#define L(...) (n += snprintf(text + n, cap - n, __VA_ARGS__))
	L("%016" PRIx64 " T _stext\n", KFX_CORE);
	for (i = 0; i < KFX_CORE_NR; i++) {
		L("%016" PRIx64 " %c core_%d\n", KFX_CORE + i * 0x50 + (i % 5) * 8,
		  i % 3 ? 'T' : 't', i);
		if (i % 9 == 0)
			L("%016" PRIx64 " D data_%d\n", KFX_CORE + i * 0x50 + 0x20, i);
	}
	for (i = 0; i < KFX_EXT4_NR; i++)
		L("%016" PRIx64 " t ext4_%d\t[ext4]\n", KFX_EXT4 + i * 0x60, i);
	L("%016" PRIx64 " t bpf_prog_0123456789abcdef_f\t[bpf]\n", KFX_BPF);
	for (i = 0; i < KFX_XFS_NR; i++)
		L("%016" PRIx64 " T xfs_%d\t[xfs]\n", KFX_XFS + i * 0x40, i);
	L("%016" PRIx64 " t ftrace_trampoline\t[__builtin__ftrace]\n", KFX_FTRACE);
#undef L
	r = n < cap ? kfx_put(root, "proc/kallsyms", text, n) : -1;
	free(text);
	if (!r)
		r = kfx_put(root, "proc/modules", modules, strlen(modules));
	if (!r)
		r = kfx_put(root, "proc/sys/kernel/random/boot_id", KFX_BOOT_ID "\n",
		            strlen(KFX_BOOT_ID "\n"));
	if (!r)
		r = kfx_put(root, "sys/kernel/notes", (const char *)notes, sizeof(notes));
	return r;
}

/* The cache directory and the cache file of the fixture below root. */
static void kfx_paths(const char *root, char *cache, char *file)
{
	snprintf(cache, PATH_MAX, "%s/cache", root);
	snprintf(file, PATH_MAX, "%s/cache/kallsyms-" KFX_BOOT_ID, root);
}

#endif
