/* symbols: turns kernel and user instruction addresses into function names. */
#ifndef PFMTOP_SYMBOLS_H
#define PFMTOP_SYMBOLS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct Elf;

/* The build id in elf's NT_GNU_BUILD_ID note (bounds-checked): its length,
 * or -ENOENT. */
int symbols_elf_build_id(struct Elf *elf, unsigned char *id, size_t len);

/*
 * Where names come from:
 * - kernel: <root>/proc/kallsyms, text symbols only, sorted where kallsyms
 *   does not list them in address order (modules, bpf, ftrace). When
 *   kptr_restrict hides the addresses (all zero) kernel ips resolve to
 *   "[kernel]" with status SYMBOLS_KERNEL_HIDDEN.
 * - user: the executable mappings of each process, from /proc/PID/maps
 *   (symbols_process_scan(), or lazily on the first lookup of a pid never
 *   scanned) and from MMAP/MMAP2 records (symbols_mmap()). A mapped file is
 *   a "binary", shared by every process that maps it: keyed by (dev, inode)
 *   when known, else by path, and read once, lazily, on the first lookup
 *   that lands in it: .symtab functions, else .dynsym, via libelf, their
 *   names without a symbol version (as perf shows them: "memcpy", not
 *   "memcpy@@GLIBC_2.14"), plus "func@plt" for each entry of the PLT (as
 *   perf synthesizes them, from the PLT relocations). Binaries
 *   are opened through /proc/PID/root/PATH first (other mount namespaces,
 *   containers), then PATH.
 * - separate debug files (libc6-dbg, glibc-debuginfo ...) hold the full
 *   .symtab of a stripped binary, internal functions included; when one is
 *   found its .symtab is used instead of the binary's tables. Looked up as
 *   gdb and perf do: by the binary's build id,
 *   /usr/lib/debug/.build-id/XX/YYYY.debug (the file's own build id must
 *   match), then by its .gnu_debuglink name (the file's CRC-32 must match)
 *   beside the binary, in .debug/ there and in /usr/lib/debug/DIR/; each
 *   through /proc/PID/root first, then as is. It is read as part of loading
 *   the binary: one cache entry, read once. A "(deleted)" binary is read through
 *   /proc/PID/map_files/ or a file at its old path with the same inode;
 *   failing that its ips show as "module+0xOFF".
 * - JIT code: /tmp/perf-PID.map ("START SIZE name", hex), looked up when an
 *   ip falls in an anonymous executable mapping, in no mapping at all, or in
 *   a file that cannot be read as ELF (a JIT's memfd or /dev/shm file); read
 *   inside the process's mount namespace first (with its namespace pid) and
 *   re-read when the file changes. It is trusted when owned by root, by us
 *   or by the process's owner.
 *
 * - the kernel table is also kept in a per-boot cache file (see
 *   symbols_set_cache_dir()): mapped read-only instead of reading kallsyms
 *   when it is still valid, so a start costs no kallsyms read and no copy.
 *
 * Lookups are binary searches; nothing here is meant to run per sample.
 * Resolve at refresh time, for the rows that are shown.
 *
 * Pids are process ids (tgid): maps belong to processes, not threads.
 */

struct symbols;

#define SYMBOLS_NAME_MAX   512 /* longer names are truncated */
#define SYMBOLS_MODULE_MAX 64

enum symbols_status {
	SYMBOLS_FOUND,         /* name: the function; offset: ip - its start */
	SYMBOLS_NO_SYMBOL,     /* binary known, no symbol: name "module+0xOFF" */
	SYMBOLS_UNKNOWN,       /* no mapping (or anonymous, no perf map): "[unknown]" */
	SYMBOLS_KERNEL_HIDDEN, /* kernel ip, kallsyms hidden or unreadable: "[kernel]" */
};

/*
 * A resolved address, copied out (no pointers into the cache). name is
 * always displayable as is. For SYMBOLS_NO_SYMBOL, offset is the address
 * inside the binary: the ELF virtual address when the binary could be read
 * (what addr2line -e module takes), else the file offset.
 */
struct symbols_result {
	enum symbols_status status;
	uint64_t offset;
	char name[SYMBOLS_NAME_MAX];
	/* basename of the binary; "[kernel]" or "[module]" for the kernel;
	 * "[jit]" (perf map), "[vdso]", "[anon]", "[heap]", "[unknown]" ... */
	char module[SYMBOLS_MODULE_MAX];
};

/* Where the kernel table came from. */
enum symbols_kernel_source {
	SYMBOLS_KERNEL_NONE,     /* not loaded (yet), hidden or unreadable */
	SYMBOLS_KERNEL_KALLSYMS, /* read from kallsyms */
	SYMBOLS_KERNEL_CACHE,    /* mapped from the cache file */
};

/* A perf map is read from its last SYMBOLS_JIT_READ_MIB MiB at most, and
 * re-read once a second at most when that large (proportionally more often
 * when smaller); the tables of every process's perf maps hold
 * SYMBOLS_JIT_TOTAL_MIB MiB at most, the largest of other processes' tables
 * dropped first (README, "Memory"). */
#define SYMBOLS_JIT_READ_MIB  4
#define SYMBOLS_JIT_TOTAL_MIB 8

struct symbols_stats {
	unsigned long elf_loads;    /* binaries read (the cache works if this stays low) */
	unsigned long elf_failures; /* binaries that could not be opened or parsed */
	unsigned long debug_loads;  /* binaries named from a separate debug file */
	unsigned long jit_loads;    /* perf-PID.map files read */
	unsigned long jit_cut;      /* of those, read from their last SYMBOLS_JIT_READ_MIB only */
	unsigned long jit_dropped;  /* perf maps' tables dropped to keep their bytes bounded */
	size_t jit_bytes;           /* bytes the perf maps' tables hold */
	size_t binaries;            /* binaries held (mapped by someone or recently) */
	size_t processes;           /* processes tracked */
	size_t kernel_symbols;      /* text symbols from kallsyms */
	enum symbols_kernel_source kernel_source;
	/* The cache at the last symbols_load_kernel() (NULL before it), one
	 * word: "hit" (used); not looked at: "off" (disabled), "nodir" (no
	 * cache directory of ours), "noboot" (no boot id), "nomodules"
	 * (/proc/modules unreadable); "missing" (no file for this boot); or
	 * why it was rejected: "type", "owner", "mode" (not a regular file of
	 * ours that only we can write), "size", "magic", "version",
	 * "corrupt" (not a table of this pfmtop; also set when a lookup in a
	 * mapped table meets a bad offset), "boot", "modules", "head"
	 * (another boot, a module (un)loaded since, kallsyms now differs or
	 * hides its addresses). */
	const char *kernel_cache;
	unsigned long kallsyms_reads;                   /* full reads of kallsyms */
	unsigned long cache_writes;                     /* cache files written */
	unsigned long dso_cache_hits, dso_cache_writes; /* binaries' tables mapped, written */
};

/* A new, empty resolver (reading nothing yet), or NULL when out of memory
 * or when libelf is unusable. Free with symbols_free(). */
struct symbols *symbols_new(void);

/* Free s and everything it caches. NULL is fine. */
void symbols_free(struct symbols *s);

/* Read /proc and /tmp below root instead of / (tests); NULL restores "/".
 * Binaries are read below it too. 0, or -ENAMETOOLONG (root unchanged). */
int symbols_set_root(struct symbols *s, const char *root);

/* (Re)load the kernel table: from the cache file when it is valid, else
 * from <root>/proc/kallsyms (then written to the cache). 0 when loaded,
 * including when the addresses are hidden (see symbols_kernel_hidden());
 * -errno when kallsyms cannot be read (kernel ips then resolve as hidden
 * too). Kernel lookups call it once by themselves when it was never
 * called. A table from the cache holds no dynamic code (BPF, ftrace and
 * kprobe trampolines ...): the first kernel ip it cannot place makes one
 * full read of kallsyms, used from then on. */
int symbols_load_kernel(struct symbols *s);

/*
 * The kernel table cache: after reading kallsyms, the table of the core
 * kernel and of the modules /proc/modules lists is written to
 * dir/kallsyms-BOOT_ID (mode 0600, atomically; files of other boots there
 * are removed), and symbols_load_kernel() maps that file instead of reading
 * kallsyms while it is valid: same boot, same modules (the name, size,
 * state and address of each line of /proc/modules), same first
 * lines of kallsyms (so its addresses are still visible to us), a regular
 * file owned by us that only we can write, consistent throughout. dir is
 * created (0700) when missing; it is used only when it is a directory of
 * ours (not a symlink) that only we can write, its parent ours too when it
 * has to be created. NULL: no cache. By default: $XDG_CACHE_HOME/pfmtop
 * (an absolute path), else $HOME/.cache/pfmtop, none when
 * PFMTOP_NO_KSYM_CACHE is set (not to "0") or when the process runs with
 * elevated privileges (secure_getenv()). 0, or -ENAMETOOLONG (unchanged).
 */
int symbols_set_cache_dir(struct symbols *s, const char *dir);

/* Read kallsyms bytes at a time (tests: lines split across reads); 0
 * restores the default (128 KiB). Lines that long or longer are skipped. */
void symbols_set_kallsyms_buffer(struct symbols *s, size_t bytes);

/* True when kallsyms was read and showed only zero addresses
 * (kptr_restrict, or no CAP_SYSLOG), or could not be read at all. */
bool symbols_kernel_hidden(const struct symbols *s);

/* Replace what is known of pid's mappings with the executable mappings in
 * <root>/proc/PID/maps. 0, or -errno (-ENOENT: the process is gone; what
 * was known is kept). */
int symbols_process_scan(struct symbols *s, pid_t pid);

/*
 * A new mapping of pid (PERF_RECORD_MMAP or MMAP2): [start, start + len)
 * from file offset pgoff of filename (as the record spells it: "//anon",
 * "[vdso]", "/path (deleted)" ... are understood). maj, min and ino
 * identify the file for MMAP2 records without a build id; pass ino 0 when
 * unknown (MMAP, build-id MMAP2): the binary is then keyed by path. Only
 * pass executable mappings (what MMAP records carry without mmap_data).
 * The mapping replaces whatever it overlaps. 0, or -EINVAL / -ENOMEM.
 */
int symbols_mmap(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
                 const char *filename, uint32_t maj, uint32_t min, uint64_t ino);

/* PERF_RECORD_FORK (pid, ppid): child starts with parent's mappings
 * (mappings already recorded for child are kept on top). parent == child
 * (a new thread) does nothing. 0 or -ENOMEM. */
int symbols_fork(struct symbols *s, pid_t parent, pid_t child);

/* PERF_RECORD_COMM with the exec flag: forget pid's mappings and JIT map;
 * they are rebuilt from MMAP records and, on the next lookup, from
 * /proc/PID/maps. */
void symbols_exec(struct symbols *s, pid_t pid);

/* PERF_RECORD_EXIT of a process (pid == tid): pid's mappings stay
 * resolvable (its last samples still need names) until symbols_reap(). */
void symbols_exit(struct symbols *s, pid_t pid);

/* Forget the processes symbols_exit() marked SYMBOLS_REAP_AFTER calls ago,
 * but for those keep(pid, arg) wants kept (keep may be NULL); call it after
 * each refresh has resolved its rows. The exit may have been read just
 * before a refresh, while rows of that process still come in the next one:
 * hence the grace. A caller that shows totals keeps the processes its rows
 * still name (a command's final totals may come many refreshes after its
 * exit on a busy machine), SYMBOLS_KEEP_EXITED at most. Binaries nobody maps
 * any more are kept in a small cache and freed as newer ones join it. */
#define SYMBOLS_REAP_AFTER 2
/* Exited processes kept for keep() at most: the longest gone go first. */
#define SYMBOLS_KEEP_EXITED 256
void symbols_reap(struct symbols *s, bool (*keep)(pid_t pid, void *arg), void *arg);

/*
 * Resolve ip, a kernel address when kernel is true (pid is then ignored),
 * else an address in process pid, into *out. Reads kallsyms, /proc/PID/maps,
 * binaries and perf maps as needed, and caches them. Returns 0 with *out
 * filled (whatever the status), or -ENOMEM (*out then says "[unknown]").
 */
int symbols_resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel,
                    struct symbols_result *out);

/*
 * A file mapping of a process, for an unwinder. binary names the mapped
 * file: two mappings of one file have the same pointer while the file is
 * mapped. path and name (its basename) live until pid's mappings next
 * change.
 */
struct symbols_map {
	uint64_t start, end, pgoff;
	const void *binary;
	const char *path;
	const char *name;
};

/*
 * pid's file mappings (the executable ones, which is what is tracked), in
 * address order: the first max of them into out. /proc/PID/maps is read
 * first when a lookup would read it. Returns how many there are (more than
 * max when out was too short), or -ENOENT when nothing is known of pid.
 * *gen is set to a value that changes whenever pid's mappings do (0 when
 * nothing is known).
 */
int symbols_maps(struct symbols *s, pid_t pid, struct symbols_map *out, int max, uint64_t *gen);

/* Open the file behind mapping m of pid (as symbols_maps() gave it) the
 * way lookups do: through /proc/PID/root, a deleted file through
 * /proc/PID/map_files; regular files only. fd (the caller closes it), or
 * -errno (-ENOENT when m is no longer a mapping of pid). */
int symbols_map_open(struct symbols *s, pid_t pid, const struct symbols_map *m);

/* Open the separate debug file of the binary at file (as pid names it)
 * where lookups look for it: by its build id id (n bytes; 0: none), checked
 * to carry it, else by its .gnu_debuglink name link (NULL: none) with CRC
 * crc. fd (the caller closes it), or -ENOENT. */
int symbols_debug_open(struct symbols *s, pid_t pid, const char *file, const unsigned char *id,
                       size_t n, const char *link, uint32_t crc);

/* The length of name without a symbol version ("memcpy@@GLIBC_2.14",
 * "pthread_kill@GLIBC_2.2.5": what follows the first '@' after at least one
 * byte), as binaries' names are read; "puts@plt" keeps its "@plt". */
size_t symbols_unversioned_len(const char *name);

/* Is name, a symbol's name as looked up, the one want asks for: the same,
 * or want with a version (symbols_unversioned_len()) it no longer has? */
bool symbols_name_is(const char *name, const char *want);

/* Write r as one label into buf: "name+0xOFF" ("name" at offset 0) for
 * found symbols, else r->name. 0, or -ENOSPC (truncated, NUL-terminated). */
int symbols_format(const struct symbols_result *r, char *buf, size_t len);

/* Where the code of the function holding an address is (for annotate). */
struct symbols_code {
	struct symbols_result sym; /* the function, as symbols_resolve() names it */
	bool kernel;
	char file[PATH_MAX];  /* the binary to read now ("" for the kernel) */
	char debug[PATH_MAX]; /* its separate debug file when its symbols came from one */
	uint64_t start, size; /* the function in the file's addresses (kernel: running ones) */
	uint64_t bias;        /* a running address is a file address plus bias */
	unsigned char build_id[64];
	size_t build_id_len;   /* of the file when the symbols were read (0: none) */
	bool replaced;         /* the file read then was another inode than the one mapped */
	bool replaced_on_disk; /* file is the mapped file (map_files): the one at its path
	                        * was replaced since it was mapped */
	char path[PATH_MAX];   /* the file's path as the process named it, as we see it */
	bool deleted;          /* the mapped file was deleted */
};

/*
 * The function holding ip (kernel or in process pid) and where its code
 * is, as the symbolizer found it: the binary it read, the load bias of the
 * mapping, the build id of that binary when it was read. 0, -ENOENT (no
 * function there: out->sym says what is), -ENOMEM.
 */
int symbols_code(struct symbols *s, pid_t pid, uint64_t ip, bool kernel, struct symbols_code *out);

/* Is there a function named name in a binary read so far or in the
 * kernel's table (symbols_name_is())? Its module's label into module (len
 * bytes) if so. */
bool symbols_has_name(const struct symbols *s, const char *name, char *module, size_t len);

/* Counters for tests, benchmarks and the health view. */
void symbols_stats(const struct symbols *s, struct symbols_stats *out);

#endif
