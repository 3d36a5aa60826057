/* unwind: user call chains from a sample's registers and stack copy (DWARF CFI, elfutils libdwfl).
 */
#include "unwind.h"

#include "symbols.h"
#include "util.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest binary copied to keep it from changing under libdw. */
#define STABLE_COPY_MAX (256u << 20)
/* stable_fd()'s copies: bytes a second, the most in one call, and how long
 * a copy left unasked for holds its place */
#define STABLE_COPY_RATE     (16ull << 20)
#define STABLE_COPY_SLICE    (2ull << 20)
#define STABLE_COPY_KEEP_NS  5000000000ull
#define STABLE_COPY_RETRY_NS 50000000ull /* a map whose copy waits: asked again after */

/* Binaries kept open for every process's unwinder; past it, the one
 * reported longest ago is let go (processes holding it keep it). */
#define UNWIND_MAX_BINS 128

/*
 * One Dwfl per process, kept across samples: its modules are the binaries
 * the process maps (from the symbolizer's mappings, files opened the way it
 * opens them), reported once each, so that each binary's CFI tables are
 * read once per process and reused by every sample. The binaries' files
 * themselves are opened and mapped once for all processes (struct ubin):
 * the Dwfl of each process that maps libc takes a reference to one libelf
 * handle of it, so a new process costs no file opened, read or mapped for
 * a binary seen before, and its pages are faulted in once. When the mappings
 * change the new binaries are added to it; when one it holds went away it
 * is rebuilt. Unwinding reads the registers and the stack copy of the
 * sample being unwound (struct uproc.cur), and other memory from the
 * binaries' own file images.
 */

enum umap_state {
	UMAP_NEW,      /* not reported yet */
	UMAP_REPORTED, /* its binary is a module of the Dwfl */
	UMAP_FAILED,   /* its binary could not be opened or read */
};

/* A file mapping of the process, as the symbolizer had it. */
struct umap {
	uint64_t start, end, pgoff;
	const void *binary;
	char *path, *name; /* copies */
	enum umap_state state;
	uint64_t retry_ns; /* UMAP_NEW put off (its copy under way): not asked before */
};

/*
 * A binary opened for unwinding, shared by the processes' Dwfls: known by
 * its file's identity (device, inode, size, change time), so a binary
 * replaced on disk is another one. The cache holds one reference to elf;
 * each module reported with it holds another (libelf counts them), and fd
 * is closed with the last (by libdwfl, or here when the cache's is last).
 */
struct ubin {
	Elf *elf; /* NULL: a free slot */
	int fd;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec ctime;
	uint64_t used; /* unwind.clock when last reported */
};

struct uproc {
	pid_t pid; /* 0: a free slot */
	Dwfl *dwfl;
	bool attached;     /* dwfl_attach_state() done */
	uint64_t gen;      /* the symbolizer's mappings generation reported */
	uint64_t used;     /* unwind.clock at the last sample */
	struct umap *maps; /* in address order */
	int nr_maps;
	struct unwind *u;
	const struct unwind_sample *cur; /* the sample being unwound */
	uint64_t sp;                     /* its stack pointer */
	struct ubin *pending;            /* the binary cb_find_elf hands over */
	const char *pending_path;        /* and its path, as the process names it */
};

/* A file being copied into a memfd (stable_fd), identified by its status. */
struct ucopy {
	dev_t dev;
	ino_t ino;
	off_t size, done;
	struct timespec mtime;
	uint64_t touched_ns;
	int mfd; /* -1: none under way */
};

struct unwind {
	struct symbols *sym;
	struct uproc procs[UNWIND_MAX_PROCS];
	struct ubin bins[UNWIND_MAX_BINS];
	uint64_t clock;
	bool no_cache;
	struct symbols_map *mbuf; /* symbols_maps() scratch */
	int mbuf_cap;
	struct ucopy copy;     /* stable_fd()'s copy under way */
	uint64_t copy_last_ns; /* when its last slice was copied */
	bool copy_deferred;    /* the last stable_fd() put its file off */
	struct unwind_stats st;
};

/* perf's x86-64 register numbers to DWARF's, for the ones sampled. */
static const struct {
	int perf, dwarf;
} regmap[] = {
    {UNWIND_X86_BX, 3},   {UNWIND_X86_BP, 6},   {UNWIND_X86_SP, 7},   {UNWIND_X86_R12, 12},
    {UNWIND_X86_R13, 13}, {UNWIND_X86_R14, 14}, {UNWIND_X86_R15, 15}, {UNWIND_X86_IP, 16},
};

/* Register perf number reg of smp into *v; false when it was not sampled. */
static bool sample_reg(const struct unwind_sample *smp, int reg, uint64_t *v)
{
	uint32_t idx;

	if (!(smp->mask & (1ull << reg)))
		return false;
	idx = (uint32_t)__builtin_popcountll(smp->mask & ((1ull << reg) - 1));
	if (idx >= smp->nr_regs)
		return false;
	*v = smp->regs[idx];
	return true;
}

/*
 * An fd libdw can map safely. libdw maps the files it reads, and a file
 * cut short under a mapping kills the reader with SIGBUS: a file that
 * someone other than root owns, or that others may write, could be cut by
 * them while pfmtop reads it. Such a file is copied into a sealed memfd
 * (once per process that maps it); root's files are used as they are.
 *
 * The copy is made in slices, one file at a time, at STABLE_COPY_RATE
 * bytes a second at most: until it is whole, -EAGAIN and u->copy_deferred
 * (the caller asks again at a later sample, STABLE_COPY_RETRY_NS on). A
 * user who makes large binaries of their own cannot keep the loop copying
 * (such copies ran at 64-600 MB/s here: one 160 MB binary stalled it for up
 * to 2 s). fd is taken; returns the fd to use, or -errno.
 */
static int stable_fd(struct unwind *u, int fd)
{
	struct ucopy *cp = &u->copy;
	const uint64_t now = util_now_ns();
	struct stat st;
	char buf[65536];
	bool same;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH)))
		return fd;
	if (st.st_size <= 0 || (uint64_t)st.st_size > STABLE_COPY_MAX) {
		close(fd);
		return -EFBIG;
	}
	same = cp->mfd >= 0 && cp->dev == st.st_dev && cp->ino == st.st_ino &&
	       cp->size == st.st_size && cp->mtime.tv_sec == st.st_mtim.tv_sec &&
	       cp->mtime.tv_nsec == st.st_mtim.tv_nsec;
	if (!same && cp->mfd >= 0 && now - cp->touched_ns < STABLE_COPY_KEEP_NS)
		goto later; /* another file's copy goes on first */
	if (!same) {
		if (cp->mfd >= 0)
			close(cp->mfd);
		*cp = (struct ucopy){
		    .dev = st.st_dev,
		    .ino = st.st_ino,
		    .size = st.st_size,
		    .mtime = st.st_mtim,
		    .mfd = memfd_create("pfmtop-unwind", MFD_CLOEXEC | MFD_ALLOW_SEALING)};
		if (cp->mfd < 0) {
			close(fd);
			return -errno;
		}
	}
	cp->touched_ns = now;
	/* the bytes this call may copy: the rate's, since the last slice */
	uint64_t allow = (now - u->copy_last_ns) / 1000 * (STABLE_COPY_RATE / 1000) / 1000;
	if (allow > STABLE_COPY_SLICE)
		allow = STABLE_COPY_SLICE;
	if (allow < sizeof(buf) && cp->done < cp->size)
		goto later;
	u->copy_last_ns = now;
	for (uint64_t end = (uint64_t)cp->done + allow;
	     cp->done < cp->size && (uint64_t)cp->done < end;) {
		ssize_t n = pread(fd, buf, sizeof(buf), cp->done);

		if (n <= 0 || write(cp->mfd, buf, (size_t)n) != n) {
			cp->size = cp->done; /* cut short meanwhile: what was read is the file */
			break;
		}
		cp->done += n;
	}
	if (cp->done < cp->size)
		goto later;
	close(fd);
	fd = cp->mfd;
	cp->mfd = -1;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)) {
		close(fd);
		return -errno;
	}
	return fd;
later:
	close(fd);
	u->copy_deferred = true;
	u->st.copies_deferred++;
	return -EAGAIN;
}

/* ---- libdwfl callbacks ---- */

/* A module's file: the shared binary report_map() is reporting, with a
 * reference of its own; nothing for any other (none is asked for). */
static int cb_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                       char **file_name, Elf **elfp)
{
	struct uproc *p = *userdata;
	struct ubin *b = p ? p->pending : NULL;

	(void)mod, (void)modname, (void)base;
	*elfp = NULL;
	if (!b)
		return -1;
	*elfp = elf_begin(b->fd, ELF_C_READ_MMAP_PRIVATE, b->elf); /* the same handle, counted */
	if (!*elfp)
		return -1;
	/* Its name, for cb_find_debuginfo's .gnu_debuglink search (libdwfl
	 * frees it). */
	free(*file_name);
	*file_name = strdup(p->pending_path);
	return b->fd;
}

/* True when the ELF file at fd has a .debug_frame section (read without a
 * mapping; nothing is decompressed). */
static bool has_debug_frame(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			found = gelf_getshdr(scn, &sh) &&
			        (name = elf_strptr(elf, shstrndx, sh.sh_name)) &&
			        !strcmp(name, ".debug_frame");
		}
	}
	elf_end(elf);
	return found;
}

/*
 * A separate debug file, where the symbolizer looks for it, for its
 * .debug_frame: only asked for when a binary's .eh_frame does not cover a
 * pc. One without .debug_frame (Debian's -dbg packages have none: their
 * code is in .eh_frame) is not handed over: libdw would decompress all its
 * debug sections, megabytes for libc, in every process, for nothing.
 */
static int cb_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
                             Dwarf_Addr base, const char *file_name, const char *debuglink_file,
                             GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct uproc *p = *userdata;
	const unsigned char *id;
	GElf_Addr vaddr;
	int n;

	(void)modname, (void)base;
	*debuginfo_file_name = NULL;
	if (!p)
		return -1;
	n = dwfl_module_build_id(mod, &id, &vaddr);
	n = symbols_debug_open(p->u->sym, p->pid, file_name, n > 0 ? id : NULL,
	                       n > 0 ? (size_t)n : 0, debuglink_file, debuglink_crc);
	if (n < 0)
		return -1;
	if (!has_debug_frame(n)) {
		close(n);
		return -1;
	}
	n = stable_fd(p->u, n);
	return n >= 0 ? n : -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = cb_find_elf,
    .find_debuginfo = cb_find_debuginfo,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct uproc *p = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return p->cur ? p->cur->tid : 0;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl, (void)tid;
	*thread_argp = arg;
	return true;
}

/* 8 bytes at addr in the file image of the binary mapped there. */
static bool read_from_file(Dwfl *dwfl, uint64_t addr, uint64_t *out)
{
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
	GElf_Addr bias;
	size_t nph, size;
	Elf *elf;
	char *img;

	if (!mod || !(elf = dwfl_module_getelf(mod, &bias)) || elf_getphdrnum(elf, &nph))
		return false;
	img = elf_rawfile(elf, &size);
	if (!img)
		return false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t v = addr - bias;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (v < ph.p_vaddr || ph.p_filesz < 8 || v - ph.p_vaddr > ph.p_filesz - 8)
			continue;
		v = v - ph.p_vaddr + ph.p_offset;
		if (v > size || size - v < 8)
			return false;
		memcpy(out, img + v, 8);
		return true;
	}
	return false;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	const struct uproc *p = arg;
	const struct unwind_sample *smp = p->cur;
	uint64_t v;

	if (!smp)
		return false;
	if (addr >= p->sp && smp->stack_size >= 8 && addr - p->sp <= smp->stack_size - 8) {
		memcpy(&v, smp->stack + (addr - p->sp), 8);
		*result = v;
		return true;
	}
	if (read_from_file(dwfl, addr, &v)) {
		*result = v;
		return true;
	}
	return false;
}

static bool cb_set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct uproc *p = arg;

	for (size_t i = 0; i < ARRAY_SIZE(regmap); i++) {
		Dwarf_Word w;
		uint64_t v;

		if (!sample_reg(p->cur, regmap[i].perf, &v))
			continue;
		w = v;
		if (!dwfl_thread_state_registers(thread, regmap[i].dwarf, 1, &w))
			return false;
		if (regmap[i].perf == UNWIND_X86_IP)
			dwfl_thread_state_register_pc(thread, w);
	}
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = cb_next_thread,
    .get_thread = cb_get_thread,
    .memory_read = cb_memory_read,
    .set_initial_registers = cb_set_initial_registers,
};

/* ---- per-process state ---- */

static void umaps_free(struct uproc *p)
{
	for (int i = 0; i < p->nr_maps; i++) {
		free(p->maps[i].path);
		free(p->maps[i].name);
	}
	free(p->maps);
	p->maps = NULL;
	p->nr_maps = 0;
}

/* Let the cache's reference to b go (the fd with it when it was the last). */
static void ubin_drop(struct ubin *b)
{
	if (b->elf && elf_end(b->elf) == 0)
		close(b->fd);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}

static void uproc_drop(struct uproc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	umaps_free(p);
	memset(p, 0, sizeof(*p));
}

struct unwind *unwind_new(struct symbols *sym)
{
	struct unwind *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->sym = sym;
	u->copy.mfd = -1;
	for (int i = 0; i < UNWIND_MAX_BINS; i++)
		u->bins[i].fd = -1;
	return u;
}

void unwind_free(struct unwind *u)
{
	if (!u)
		return;
	for (int i = 0; i < UNWIND_MAX_PROCS; i++)
		uproc_drop(&u->procs[i]);
	for (int i = 0; i < UNWIND_MAX_BINS; i++)
		ubin_drop(&u->bins[i]);
	if (u->copy.mfd >= 0)
		close(u->copy.mfd);
	free(u->mbuf);
	free(u);
}

void unwind_forget(struct unwind *u, pid_t pid)
{
	for (int i = 0; u && i < UNWIND_MAX_PROCS; i++)
		if (u->procs[i].pid == pid && pid)
			uproc_drop(&u->procs[i]);
}

void unwind_set_caching(struct unwind *u, bool on)
{
	u->no_cache = !on;
}

void unwind_get_stats(const struct unwind *u, struct unwind_stats *out)
{
	*out = u->st;
}

/* pid's slot, or a free or the least recently used one (emptied). */
static struct uproc *uproc_get(struct unwind *u, pid_t pid)
{
	struct uproc *victim = NULL;

	for (int i = 0; i < UNWIND_MAX_PROCS; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	for (int i = 0; i < UNWIND_MAX_PROCS; i++) {
		struct uproc *p = &u->procs[i];

		if (!p->pid) {
			victim = p;
			break;
		}
		if (!victim || p->used < victim->used)
			victim = p;
	}
	uproc_drop(victim);
	victim->pid = pid;
	victim->u = u;
	return victim;
}

/*
 * Where a binary whose file offset pgoff is mapped at start lies: its load
 * bias, from its executable PT_LOAD holding pgoff (ELF keeps p_offset and
 * p_vaddr congruent, so start - pgoff + p_offset - p_vaddr is where its
 * vaddr 0 is), and the module's range as libdwfl counts it (from the first
 * PT_LOAD's aligned p_vaddr to the end of the highest one).
 */
static int load_range(Elf *elf, uint64_t start, uint64_t pgoff, uint64_t *bias, uint64_t *lo,
                      uint64_t *hi)
{
	size_t nph;
	bool found = false, first = true;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph))
		return -ENOEXEC;
	*lo = *hi = 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		uint64_t off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first)
			*lo = ph.p_vaddr & -(ph.p_align ? ph.p_align : 1);
		first = false;
		if (ph.p_vaddr + ph.p_memsz > *hi)
			*hi = ph.p_vaddr + ph.p_memsz;
		if (found || !(ph.p_flags & PF_X))
			continue;
		off = ph.p_offset & ~(uint64_t)0xfff;
		if (pgoff < off || pgoff - off >= ph.p_offset - off + ph.p_filesz)
			continue;
		*bias = start - pgoff + ph.p_offset - ph.p_vaddr;
		found = true;
	}
	if (!found || *hi <= *lo)
		return -ENOEXEC;
	*lo += *bias;
	*hi += *bias;
	return 0;
}

/*
 * The shared binary of the file open at fd (taken): the one kept when the
 * same file was opened before, else fd made stable, read and kept (in a
 * free slot, or the one used longest ago). NULL when it cannot be read.
 */
static struct ubin *ubin_get(struct unwind *u, int fd)
{
	struct ubin *b = NULL;
	struct stat st;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	for (int i = 0; i < UNWIND_MAX_BINS; i++) {
		struct ubin *c = &u->bins[i];

		if (c->elf && c->dev == st.st_dev && c->ino == st.st_ino && c->size == st.st_size &&
		    c->ctime.tv_sec == st.st_ctim.tv_sec &&
		    c->ctime.tv_nsec == st.st_ctim.tv_nsec) {
			close(fd);
			c->used = u->clock;
			return c;
		}
		if (!b || (b->elf && (!c->elf || c->used < b->used)))
			b = c;
	}
	fd = stable_fd(u, fd);
	if (fd < 0)
		return NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return NULL;
	}
	ubin_drop(b);
	*b = (struct ubin){.elf = elf,
	                   .fd = fd,
	                   .dev = st.st_dev,
	                   .ino = st.st_ino,
	                   .size = st.st_size,
	                   .ctime = st.st_ctim,
	                   .used = u->clock};
	u->st.bins_opened++;
	return b;
}

/* Report the binary of p->maps[i] to p's Dwfl; its state is set either way. */
static void report_map(struct unwind *u, struct uproc *p, int i)
{
	struct umap *um = &p->maps[i];
	const struct symbols_map m = {.start = um->start,
	                              .end = um->end,
	                              .pgoff = um->pgoff,
	                              .binary = um->binary,
	                              .path = um->path,
	                              .name = um->name};
	uint64_t bias = 0, lo, hi, got;
	struct ubin *b;
	int fd;

	um->state = UMAP_FAILED;
	/* A binary mapped twice (two executable segments) is one module. */
	for (int k = 0; k < p->nr_maps; k++)
		if (k != i && p->maps[k].binary == um->binary &&
		    p->maps[k].state == UMAP_REPORTED) {
			um->state = UMAP_REPORTED;
			return;
		}
	fd = symbols_map_open(u->sym, p->pid, &m);
	u->copy_deferred = false;
	b = fd >= 0 ? ubin_get(u, fd) : NULL;
	if (!b && u->copy_deferred) {
		um->state = UMAP_NEW; /* tried again at a later sample, not the next ones */
		um->retry_ns = util_now_ns() + STABLE_COPY_RETRY_NS;
		return;
	}
	if (!b || load_range(b->elf, m.start, m.pgoff, &bias, &lo, &hi)) {
		u->st.module_fail++;
		return;
	}
	dwfl_report_begin_add(p->dwfl);
	Dwfl_Module *mod = dwfl_report_module(p->dwfl, m.name, lo, hi);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!mod) {
		u->st.module_fail++;
		return;
	}
	void **ud;
	if (dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = p; /* for cb_find_elf and cb_find_debuginfo */
	/* Its file now, while cb_find_elf knows which: libdwfl would ask for
	 * it at the first frame in it anyway. The bias must be ours. */
	p->pending = b;
	p->pending_path = m.path;
	Elf *elf = dwfl_module_getelf(mod, &got);
	p->pending = NULL;
	p->pending_path = NULL;
	if (!elf || got != bias) {
		u->st.module_fail++;
		return; /* a module with no file: unwinding stops in it */
	}
	um->state = UMAP_REPORTED;
	u->st.modules++;
}

/*
 * The binary mapped at addr reported to p's Dwfl, if there is one: modules
 * are reported as unwinding first reaches them (perf does the same), so a
 * process costs the binaries its samples run through, not all it maps.
 * Then the Dwfl is attached (that needs a module for the architecture).
 */
static void ensure_module(struct unwind *u, struct uproc *p, uint64_t addr)
{
	int lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (p->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < p->nr_maps && p->maps[lo].start <= addr && p->maps[lo].state == UMAP_NEW &&
	    (!p->maps[lo].retry_ns || util_now_ns() >= p->maps[lo].retry_ns))
		report_map(u, p, lo);
	if (!p->attached && lo < p->nr_maps && p->maps[lo].state == UMAP_REPORTED)
		p->attached = dwfl_attach_state(p->dwfl, NULL, p->pid, &thread_callbacks, p);
}

static bool same_map(const struct umap *a, const struct symbols_map *b)
{
	return a->start == b->start && a->end == b->end && a->binary == b->binary;
}

/* Bring p's list of mappings in line with the process's. 0 or -errno. */
static int uproc_sync(struct unwind *u, struct uproc *p)
{
	uint64_t gen;
	int n = symbols_maps(u->sym, p->pid, NULL, 0, &gen), k = 0;

	if (n >= 0 && p->dwfl && gen == p->gen)
		return 0; /* nothing changed: the common case */
	if (n > 0 && n > u->mbuf_cap) {
		struct symbols_map *b = realloc(u->mbuf, (size_t)n * sizeof(*b));

		if (!b)
			return -ENOMEM;
		u->mbuf = b;
		u->mbuf_cap = n;
	}
	if (n >= 0)
		n = symbols_maps(u->sym, p->pid, u->mbuf, u->mbuf_cap, &gen);
	if (n < 0)
		return n;
	if (n > u->mbuf_cap)
		n = u->mbuf_cap;
	/* A binary reported to it is gone (or moved): start again. Both lists
	 * are in address order. */
	for (int i = 0; p->dwfl && i < p->nr_maps; i++) {
		if (p->maps[i].state != UMAP_REPORTED)
			continue;
		while (k < n && u->mbuf[k].start < p->maps[i].start)
			k++;
		if (k >= n || !same_map(&p->maps[i], &u->mbuf[k])) {
			dwfl_end(p->dwfl);
			p->dwfl = NULL;
			p->attached = false;
			break;
		}
	}
	if (!p->dwfl) {
		p->dwfl = dwfl_begin(&dwfl_callbacks);
		if (!p->dwfl)
			return -ENOMEM;
		u->st.dwfl_new++;
		p->nr_maps = 0;
	}
	/* The new list, each mapping keeping what became of it. */
	struct umap *v = calloc((size_t)n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	k = 0;
	for (int i = 0; i < n; i++) {
		const struct symbols_map *m = &u->mbuf[i];

		v[i] = (struct umap){.start = m->start,
		                     .end = m->end,
		                     .pgoff = m->pgoff,
		                     .binary = m->binary,
		                     .path = NULL,
		                     .name = NULL,
		                     .state = UMAP_NEW};
		while (k < p->nr_maps && p->maps[k].start < m->start)
			k++;
		if (k < p->nr_maps && same_map(&p->maps[k], m))
			v[i].state = p->maps[k].state;
		v[i].path = strdup(m->path);
		v[i].name = strdup(m->name);
		if (!v[i].path || !v[i].name)
			v[i].state = UMAP_FAILED;
	}
	umaps_free(p);
	p->maps = v;
	p->nr_maps = n;
	p->gen = gen;
	return 0;
}

struct walk {
	struct unwind *u;
	struct uproc *p;
	uint64_t *ips;
	int n, max;
};

static int on_frame(Dwfl_Frame *f, void *arg)
{
	struct walk *w = arg;
	Dwarf_Addr pc;
	bool activation;

	if (w->n >= w->max || !dwfl_frame_pc(f, &pc, &activation))
		return DWARF_CB_ABORT;
	/* A frame that returns nowhere ends the chain (the outermost frame's
	 * return address is undefined, but a bogus 0 may come first). */
	if (!pc)
		return DWARF_CB_ABORT;
	w->ips[w->n++] = pc;
	/* its caller is found with the CFI of the binary pc is in */
	ensure_module(w->u, w->p, activation ? pc : pc - 1);
	return DWARF_CB_OK;
}

int unwind_sample(struct unwind *u, const struct unwind_sample *smp, uint64_t *ips, int max)
{
	struct walk w = {.u = u, .ips = ips, .max = max};
	uint64_t ip, sp;
	struct uproc *p;
	int ret;

	u->st.samples++;
	if (max <= 0 || !UNWIND_SUPPORTED)
		return 0;
	if (smp->abi != PERF_SAMPLE_REGS_ABI_64 || !sample_reg(smp, UNWIND_X86_IP, &ip) ||
	    !sample_reg(smp, UNWIND_X86_SP, &sp) || smp->pid <= 0 || smp->tid <= 0) {
		u->st.no_regs++;
		return 0;
	}
	p = uproc_get(u, smp->pid);
	p->used = ++u->clock;
	if (!uproc_sync(u, p))
		ensure_module(u, p, ip);
	if (!p->dwfl || !p->attached) {
		/* Nothing to unwind with: the sampled ip alone. */
		ips[0] = ip;
		u->st.frames++;
		u->st.incomplete++;
		if (u->no_cache)
			uproc_drop(p);
		return 1;
	}
	p->cur = smp;
	p->sp = sp;
	w.p = p;
	ret = dwfl_getthread_frames(p->dwfl, smp->tid, on_frame, &w);
	p->cur = NULL;
	if (w.n == 0) {
		ips[0] = ip;
		w.n = 1;
	}
	if (ret < 0 && w.n < max)
		u->st.incomplete++;
	u->st.frames += (uint64_t)w.n;
	if (u->no_cache)
		uproc_drop(p);
	return w.n;
}
