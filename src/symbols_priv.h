/* symbols_priv.h: the parts of the symbolizer (symtab, ksyms, ksym_cache, dso,
 * dso_cache, procmaps, perfmap, symbols) and what they share. Only they, and
 * their tests, include it. */
#ifndef PFMTOP_SYMBOLS_PRIV_H
#define PFMTOP_SYMBOLS_PRIV_H

#include "symbols.h"

#include "util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BOOT_ID_LEN 36
/* Longest build id taken; GNU ld writes 20 bytes (SHA-1), some use 16 or 32. */
#define BUILD_ID_MAX 64

/* A symbol with no size ends where the next one starts; the last one of a
 * table (or of a kernel module) gets this much. */
#define SYM_TAIL 4096

/* Binaries no process maps any more, kept in case they come back. */
#define UNUSED_KEEP 64

/* How far back a lookup walks for a symbol that encloses later ones. */
#define NEST_BACK 4

/* Bytes read from kallsyms at a time. Its lines are under 600 bytes; one
 * as long as this or longer would be skipped. */
#define KALLSYMS_BUF (128 * 1024)

/* The kernel table cache checks this much of kallsyms (one read). */
#define KCACHE_HEAD 4096

/* Names, each NUL-terminated, at offsets below UINT32_MAX. */
struct pool {
	char *buf;
	size_t len, cap;
};

/* One symbol: [start, start + size), its name at pool + name. */
struct sym {
	uint64_t start;
	uint32_t size;
	uint32_t name;
};

/* Symbols sorted by start (starts unique), names in one pool; both
 * malloc'd, or both in a cache file mapped at map (map_len bytes). */
struct symtab {
	struct sym *syms;
	size_t nr;
	char *pool;
	size_t pool_len; /* bytes of it in use */
	void *map;
	size_t map_len;
};

/* A symbol as read, before aliases are merged. */
struct rawsym {
	uint64_t start, size;
	uint32_t name;
	int64_t rank; /* of two aliases, the higher rank names the address */
};

struct tabbuild {
	struct rawsym *v;
	size_t nr, cap;
	struct pool pool;
};

/* A kernel text symbol: it starts at hi << 32 | lo, its name is at pool +
 * name. kallsyms gives no sizes: it ends where the next symbol of its
 * module starts, the last one of a module SYM_TAIL after its start. */
struct ksym {
	uint32_t lo, hi;
	uint32_t name : 30;
	uint32_t local : 1, weak : 1; /* type t, type w or W: they rank aliases */
};

#define KSYM_POOL_MAX (1u << 30) /* ksym.name */

/* Consecutive kallsyms lines of one module: the names pooled from pool on,
 * up to the next run's, are its symbols'. */
struct krun {
	uint32_t pool;
	uint32_t mod; /* its label ("[ext4]") in the pool; 0, an empty name, for the core kernel */
};

/* Addresses [lo, hi): the core kernel's or a module's, from its first
 * symbol to kspan_end() of its last. */
struct kspan {
	uint64_t lo, hi;
};

/* The kernel's text symbols, sorted by start (starts unique). Names are
 * pooled in kallsyms order, so the run a symbol was read in, and with it
 * its module, follows from where its name is. They are pooled as read:
 * control bytes are replaced when a lookup copies them out.
 *
 * Read from kallsyms, the arrays are malloc'd. Loaded from the cache they
 * point into its read-only mapping (map): then the offsets in them are
 * checked as they are used, and spans says which addresses the table
 * covers. */
struct ktab {
	struct ksym *syms;
	size_t nr, cap;
	size_t sorted; /* while reading: syms[0, sorted) are in address order */
	struct krun *runs;
	size_t nr_runs, runs_cap;
	struct pool pool;
	void *map; /* the cache file mapped, or NULL */
	size_t map_len;
	/* kallsyms' addresses now less the table's: not 0 only for a cache
	 * file of an earlier boot of the same kernel placed elsewhere (KASLR) */
	uint64_t slide;
	const struct kspan *spans;
	size_t nr_spans;
};

/* A PT_LOAD: file bytes [off, off + filesz) load at vaddr. */
struct seg {
	uint64_t off, filesz, vaddr;
};

enum dso_state {
	DSO_NEW,    /* not read yet */
	DSO_LOADED, /* segments and symbols read (symbols may be none) */
	DSO_FAILED, /* could not be opened or is not ELF */
};

/* A mapped file, shared by every process that maps it. */
struct dso {
	struct dso *hnext;         /* hash chain */
	struct dso *uprev, *unext; /* unused list while refs == 0 */
	bool unused;
	unsigned long refs; /* mappings pointing here */
	uint32_t maj, min;
	uint64_t ino; /* 0: keyed by path */
	bool deleted;
	enum dso_state state;
	struct seg *segs;
	size_t nr_segs;
	struct symtab tab;
	/* What was read when it was loaded (for annotate): the path opened,
	 * the debug file its symbols came from (NULL: none), its build id,
	 * and whether that file was another inode than the one mapped. */
	char *opened, *debug_path;
	unsigned char build_id[64];
	uint8_t build_id_len;
	bool replaced;         /* the file read is not the one mapped */
	bool replaced_on_disk; /* read through map_files: the one at its path is another */
	uid_t owner;           /* of the file read: what its debug file may be */
	char *path;            /* as reported: the key when ino is 0 */
	char *file;            /* path without " (deleted)" */
	const char *base;      /* basename, inside file */
};

enum map_kind {
	MAPPING_FILE,    /* a binary */
	MAPPING_ANON,    /* anonymous: JIT code lives here (perf map) */
	MAPPING_SPECIAL, /* [vdso], [vsyscall], [uprobes]: no file to read */
};

struct map {
	uint64_t start, end, pgoff;
	enum map_kind kind;
	struct dso *dso;   /* MAPPING_FILE */
	const char *label; /* otherwise: a static string */
};

/* A process's perf-PID.map and the file it came from. */
struct jit {
	bool tried, loaded;
	pid_t ns_pid;     /* the process's pid in its own namespace, 0 not read yet */
	uint64_t next_ns; /* a miss re-checks the file from then on (sym_now_ns()) */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct symtab tab;
};

struct proc {
	struct proc *hnext;
	pid_t pid;
	bool scanned;     /* /proc/PID/maps was read (or tried) since start or exec */
	bool exited;      /* waiting for symbols_reap() */
	int reap_in;      /* exited: symbols_reap() calls left before it goes */
	uint64_t gen;     /* symbols.maps_gen at the last change to maps */
	struct map *maps; /* sorted by start, not overlapping */
	size_t nr, cap;
	struct jit jit;
};

enum kernel_state {
	KERNEL_NOT_TRIED,
	KERNEL_LOADED,
	KERNEL_HIDDEN, /* zero addresses */
	KERNEL_FAILED, /* unreadable */
};

#define SYM_GONE_SLOTS     64
#define SYM_GONE_NS        1000000000ull /* 1 s */
#define SYM_JIT_RECHECK_NS 200000000ull  /* a perf map re-checked on a miss at most this often */
#define SYM_JIT_READ_MAX   ((off_t)SYMBOLS_JIT_READ_MIB << 20)
#define SYM_JIT_TOTAL_MAX  ((size_t)SYMBOLS_JIT_TOTAL_MIB << 20)

struct symbols {
	char root[PATH_MAX]; /* "" stands for "/" */

	enum kernel_state kstate;
	struct ktab ktab;
	size_t kallsyms_buf; /* read size; 0: KALLSYMS_BUF */
	bool krefreshed;     /* a table from the cache had its one full read (or try) */
	enum { KCACHE_DEFAULT, KCACHE_DIR, KCACHE_OFF } kcache;
	char kcache_dir[PATH_MAX]; /* KCACHE_DIR */

	struct proc **procs;
	size_t nr_procs, procs_buckets;
	size_t jit_bytes;  /* held by the perf maps' tables */
	uint64_t maps_gen; /* bumped at every change to a process's mappings */

	struct dso **dsos;
	size_t nr_dsos, dsos_buckets;
	struct dso *unused_head, *unused_tail; /* oldest first */
	size_t nr_unused;

	struct symbols_stats stats;

	/* Processes whose /proc/PID/maps could not be read (gone, mostly:
	 * their samples outlive them): not read again for SYM_GONE_NS, unless
	 * the side band tells of the pid meanwhile (sym_proc_add()). */
	struct {
		pid_t pid;
		uint64_t until_ns;
	} gone[SYM_GONE_SLOTS];

	/* The vDSO the kernel maps into every (native) process: read once,
	 * from pfmtop's own memory, never from a process's. */
	struct dso *vdso;
	uint64_t vdso_size;
	bool vdso_tried;
};

/* The first bytes of kallsyms, as read. */
struct khead {
	char buf[KCACHE_HEAD];
	size_t len;
};

/* What /proc/modules says of the modules loaded: a hash of the name, size,
 * state and address of each (not of the reference counts and users, which
 * change with use), and their names. */
struct kmods {
	uint64_t hash, len; /* FNV-1a of those fields, bytes hashed (NO_MODULES: no file) */
	char *names;        /* "ext4\0xfs\0" ... */
	size_t names_len;
};

/* What the cache is checked against and named by, taken before kallsyms is
 * read (a module loaded during the read then invalidates the file). */
struct kenv {
	const char *why; /* NULL: the cache can be used; else why not (stats) */
	char dir[PATH_MAX];
	char boot_id[BOOT_ID_LEN + 1];
	struct kmods mods;
	unsigned char kbuild[BUILD_ID_MAX]; /* the running kernel's build id */
	size_t kbuild_len;                  /* 0: none found */
};

/* ksym_cache.c, shared with dso_cache.c: the cache directory and its files */
const char *sym_cache_dir_path(const struct symbols *s, char *dir, size_t len);
int sym_cache_dir_open(const char *dir, bool create);
DIR *sym_cache_dir_list(int dfd);
int sym_cache_temp_open(int dfd, const char *prefix, char *tmp, size_t len);
bool sym_cache_commit(int dfd, int fd, bool ok, const void *hdr, size_t hlen, const char *tmp,
                      const char *name);

/* dso_cache.c: binaries' symbol tables cached by build id. The key names
 * the file the table was read from. */
enum dcache_kind { DCACHE_DEBUG = 1, DCACHE_BINARY = 2 };
struct dcache_key {
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len; /* 0: no build id, nothing cached */
	enum dcache_kind kind;
	uint64_t dev, ino, size;
	int64_t mtime_sec, mtime_nsec, ctime_sec, ctime_nsec;
};
void sym_dcache_key_stat(struct dcache_key *k, const struct stat *st);
/* Map the cached table for k into t (replacing what t held): true, or
 * false with t unchanged. */
bool sym_dcache_load(const struct symbols *s, const struct dcache_key *k, struct symtab *t);
/* Write t, just read from k's file, as its cache file (silent on failure;
 * small tables are not written). */
void sym_dcache_store(struct symbols *s, const struct dcache_key *k, const struct symtab *t);

/* symtab.c: symbol tables, and the helpers every part uses */
const char *sym_basename_of(const char *path);
bool sym_has_prefix(const char *s, const char *prefix);
bool sym_has_suffix(const char *s, const char *suffix);
void sym_result_set(struct symbols_result *out, enum symbols_status status, const char *name,
                    uint64_t offset, const char *module);
void sym_result_no_symbol(struct symbols_result *out, const char *module, uint64_t offset);
int sym_build_reserve(struct tabbuild *b, size_t n, size_t names);
void sym_build_free(struct tabbuild *b);
int sym_build_add(struct tabbuild *b, uint64_t start, uint64_t size, const char *name, size_t len,
                  int64_t rank);
void sym_symtab_free(struct symtab *t);
int sym_build_finish(struct tabbuild *b, struct symtab *t);
ssize_t sym_symtab_find(const struct symtab *t, uint64_t addr);
int sym_root_path(const struct symbols *s, char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int64_t sym_rank_of(bool sized, bool local, bool weak, const char *name, size_t len);

int64_t sym_pool_add(struct pool *p, const char *name, size_t len);

/* ksyms.c: the kernel's symbols from /proc/kallsyms, and kernel lookups */
void sym_ktab_free(struct ktab *t);
size_t sym_ktab_run_index(const struct ktab *t, const struct ksym *k);
int sym_ktab_find(const struct ktab *t, uint64_t addr, const struct ksym **found, const char **mod);
int sym_kallsyms_load(struct symbols *s, struct ktab *t, struct khead *head);
void sym_kernel_refresh(struct symbols *s);
void sym_resolve_kernel(struct symbols *s, uint64_t ip, struct symbols_result *out);
/* The size of the kernel function starting at start (to the next symbol), 0 if none. */
uint64_t sym_kernel_size(struct symbols *s, uint64_t start);

/* ksym_cache.c: the kernel table kept between runs */
void sym_kenv_get(const struct symbols *s, struct kenv *e);
void sym_kenv_free(struct kenv *e);
void sym_kcache_write(struct symbols *s, const struct kenv *e, const struct ktab *t,
                      const struct khead *head);

uint64_t sym_kspan_end(uint64_t a);

/* dso.c: binaries, their debug files and the vDSO */
void sym_dso_destroy(struct dso *d);
void sym_dso_ref(struct symbols *s, struct dso *d);
void sym_dso_put(struct symbols *s, struct dso *d);
int sym_dsos_grow(struct symbols *s);
struct dso *sym_dso_get(struct symbols *s, const char *path, uint32_t maj, uint32_t min,
                        uint64_t ino);
void sym_resolve_in(const struct dso *d, const struct map *m, uint64_t ip,
                    struct symbols_result *out);
void sym_resolve_file(struct symbols *s, struct proc *p, const struct map *m, uint64_t ip,
                      struct symbols_result *out);
const struct dso *sym_vdso_get(struct symbols *s, uint64_t size);

/* plt.c: "func@plt" symbols for the stubs of elf's PLT, added to b. 0
 * (none is fine), or -ENOMEM. */
int sym_plt_add(struct tabbuild *b, Elf *elf);

/* procmaps.c: processes and their mappings */
struct proc *sym_proc_find(const struct symbols *s, pid_t pid);
int sym_procs_grow(struct symbols *s);
struct proc *sym_proc_add(struct symbols *s, pid_t pid);
void sym_proc_remove(struct symbols *s, struct proc *p);
const struct map *sym_proc_lookup(const struct proc *p, uint64_t ip);
int sym_proc_scan(struct symbols *s, struct proc *p);
struct proc *sym_proc_get_scanned(struct symbols *s, pid_t pid);
/* CLOCK_MONOTONIC_COARSE in ns. */
uint64_t sym_now_ns(void);
/* pid's maps were unreadable less than SYM_GONE_NS ago (sym_proc_set_gone()). */
bool sym_proc_gone(const struct symbols *s, pid_t pid);
void sym_proc_set_gone(struct symbols *s, pid_t pid);

static inline void sym_proc_changed(struct symbols *s, struct proc *p)
{
	p->gen = ++s->maps_gen;
}

/* perfmap.c: JIT symbols from /tmp/perf-PID.map */
bool sym_resolve_jit(struct symbols *s, struct proc *p, uint64_t ip, struct symbols_result *out);

/* Hex digit values plus one ("0" is 1), 0 for any other byte. */
extern const unsigned char sym_hex_digit[256];

static inline uint64_t ksym_start(const struct ksym *k)
{
	return (uint64_t)k->hi << 32 | k->lo;
}

#endif
