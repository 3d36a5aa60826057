/* dso: binaries and their ELF symbols, separate debug files, the vDSO. */
#include "symbols_priv.h"

#include <lzma.h>
#include <sys/sysmacros.h>
#include <zlib.h>

/* A MiniDebugInfo ELF larger than this is not read. */
#define MINIDEBUG_MAX (64u << 20)

/* ---- binaries ---- */

static size_t dso_hash(uint32_t maj, uint32_t min, uint64_t ino, const char *path)
{
	uint64_t h = 1469598103934665603ULL;

	if (ino) {
		h ^= ino;
		h *= 1099511628211ULL;
		h ^= (uint64_t)maj << 32 | min;
		h *= 1099511628211ULL;
		return h ^ h >> 29;
	}
	for (; *path; path++) {
		h ^= (unsigned char)*path;
		h *= 1099511628211ULL;
	}
	return h ^ h >> 29;
}

static bool dso_is(const struct dso *d, uint32_t maj, uint32_t min, uint64_t ino, const char *path)
{
	if (ino)
		return d->ino == ino && d->maj == maj && d->min == min;
	return !d->ino && !strcmp(d->path, path);
}

void sym_dso_destroy(struct dso *d)
{
	free(d->segs);
	sym_symtab_free(&d->tab);
	free(d->path);
	free(d->file);
	free(d->opened);
	free(d->debug_path);
	free(d);
}

static void unused_unlink(struct symbols *s, struct dso *d)
{
	if (d->uprev)
		d->uprev->unext = d->unext;
	else
		s->unused_head = d->unext;
	if (d->unext)
		d->unext->uprev = d->uprev;
	else
		s->unused_tail = d->uprev;
	d->uprev = d->unext = NULL;
	d->unused = false;
	s->nr_unused--;
}

static void dso_evict(struct symbols *s, struct dso *d)
{
	struct dso **pp = &s->dsos[dso_hash(d->maj, d->min, d->ino, d->path) % s->dsos_buckets];

	while (*pp && *pp != d)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = d->hnext;
	if (d->unused)
		unused_unlink(s, d);
	s->nr_dsos--;
	s->stats.binaries = s->nr_dsos;
	sym_dso_destroy(d);
}

void sym_dso_ref(struct symbols *s, struct dso *d)
{
	if (d->unused)
		unused_unlink(s, d);
	d->refs++;
}

void sym_dso_put(struct symbols *s, struct dso *d)
{
	if (--d->refs)
		return;
	d->unused = true;
	d->uprev = s->unused_tail;
	d->unext = NULL;
	if (s->unused_tail)
		s->unused_tail->unext = d;
	else
		s->unused_head = d;
	s->unused_tail = d;
	s->nr_unused++;
	if (s->nr_unused > UNUSED_KEEP)
		dso_evict(s, s->unused_head);
}

int sym_dsos_grow(struct symbols *s)
{
	size_t nb = s->dsos_buckets ? s->dsos_buckets * 2 : 64, i;
	struct dso **b = calloc(nb, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < s->dsos_buckets; i++) {
		struct dso *d = s->dsos[i], *next;

		for (; d; d = next) {
			size_t h = dso_hash(d->maj, d->min, d->ino, d->path) % nb;

			next = d->hnext;
			d->hnext = b[h];
			b[h] = d;
		}
	}
	free(s->dsos);
	s->dsos = b;
	s->dsos_buckets = nb;
	return 0;
}

/* The binary for this file, found or added (unread, no references). */
struct dso *sym_dso_get(struct symbols *s, const char *path, uint32_t maj, uint32_t min,
                        uint64_t ino)
{
	struct dso *d;
	size_t h;

	if (s->dsos_buckets) {
		h = dso_hash(maj, min, ino, path) % s->dsos_buckets;
		for (d = s->dsos[h]; d; d = d->hnext)
			if (dso_is(d, maj, min, ino, path))
				return d;
	}
	if (s->nr_dsos >= s->dsos_buckets && sym_dsos_grow(s))
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->maj = maj;
	d->min = min;
	d->ino = ino;
	d->deleted = sym_has_suffix(path, " (deleted)");
	d->path = strdup(path);
	d->file = strndup(path, strlen(path) - (d->deleted ? strlen(" (deleted)") : 0));
	if (!d->path || !d->file) {
		sym_dso_destroy(d);
		return NULL;
	}
	d->base = sym_basename_of(d->file);
	h = dso_hash(maj, min, ino, path) % s->dsos_buckets;
	d->hnext = s->dsos[h];
	s->dsos[h] = d;
	s->nr_dsos++;
	s->stats.binaries = s->nr_dsos;
	return d;
}

/* Add the function symbols of elf's first section of this type to b. 0,
 * -ENOENT when there is none or it holds no functions, -ENOMEM. */
static int add_syms(struct tabbuild *b, Elf *elf, Elf64_Word type)
{
	Elf_Scn *scn = NULL, *strs;
	GElf_Shdr sh, ssh;
	Elf_Data *data;
	size_t i, n, before = b->nr;
	int err = 0;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			break;
	if (!scn || !sh.sh_entsize)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data)
		return -ENOENT;
	n = sh.sh_size / sh.sh_entsize;
	/* at most n symbols, their names at most the string table */
	strs = elf_getscn(elf, sh.sh_link);
	if (strs && gelf_getshdr(strs, &ssh) && ssh.sh_size < ((size_t)1 << 30) && n < (1u << 24))
		err = sym_build_reserve(b, n, (size_t)ssh.sh_size);
	for (i = 0; !err && i < n; i++) {
		GElf_Sym sym;
		const char *name;
		size_t len;
		int stt, stb;

		if (!gelf_getsym(data, i, &sym))
			break;
		stt = GELF_ST_TYPE(sym.st_info);
		stb = GELF_ST_BIND(sym.st_info);
		if ((stt != STT_FUNC && stt != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		/* "memcpy@@GLIBC_2.14" is memcpy, as perf names it */
		len = symbols_unversioned_len(name);
		err = sym_build_add(
		    b, sym.st_value, sym.st_size, name, len,
		    sym_rank_of(sym.st_size, stb == STB_LOCAL, stb == STB_WEAK, name, len));
	}
	return err ? err : b->nr > before ? 0 : -ENOENT;
}

/* d's table from the builder when err is 0 (freed either way). */
static int finish_syms(struct dso *d, struct tabbuild *b, int err)
{
	if (err) {
		sym_build_free(b);
		return err;
	}
	return sym_build_finish(b, &d->tab);
}

/* Read the function symbols of the first section of this type, and the
 * PLT stubs of bin (the binary elf is the debug file of, or elf itself).
 * -ENOENT when there is no such section or it holds no functions. */
static int dso_read_syms(struct dso *d, Elf *elf, Elf *bin, Elf64_Word type)
{
	struct tabbuild b = {0};
	int err = add_syms(&b, elf, type);

	return finish_syms(d, &b, err ? err : sym_plt_add(&b, bin));
}

/*
 * MiniDebugInfo: the xz-compressed ELF in .gnu_debugdata, whose .symtab
 * holds the functions a stripped binary's .dynsym lacks (Fedora and others
 * ship binaries so). Decompressed into a malloc'd buffer of *len bytes, at
 * most MINIDEBUG_MAX; NULL when there is none or it is not whole xz.
 */
static unsigned char *minidebug(Elf *elf, size_t *len)
{
	lzma_stream st = LZMA_STREAM_INIT;
	unsigned char *out = NULL, *nb;
	size_t shstrndx, cap = 0;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Shdr sh;
	lzma_ret r;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".gnu_debugdata"))
			break;
	}
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data || !data->d_buf || !data->d_size ||
	    lzma_stream_decoder(&st, MINIDEBUG_MAX, 0) != LZMA_OK)
		return NULL;
	st.next_in = data->d_buf;
	st.avail_in = data->d_size;
	do {
		if (st.avail_out == 0) {
			size_t used = cap - st.avail_out;

			cap = cap ? cap * 2 : data->d_size * 4 + 4096;
			if (cap > MINIDEBUG_MAX || !(nb = realloc(out, cap)))
				goto fail;
			out = nb;
			st.next_out = out + used;
			st.avail_out = cap - used;
		}
		r = lzma_code(&st, LZMA_FINISH);
	} while (r == LZMA_OK || (r == LZMA_BUF_ERROR && st.avail_out == 0));
	if (r != LZMA_STREAM_END)
		goto fail;
	*len = cap - st.avail_out;
	lzma_end(&st);
	return out;
fail:
	lzma_end(&st);
	free(out);
	return NULL;
}

/* A binary without .symtab: its .dynsym, the .symtab of its MiniDebugInfo
 * when it has one, and its PLT stubs. -ENOENT when none names a function. */
static int dso_read_stripped(struct dso *d, Elf *elf)
{
	struct tabbuild b = {0};
	int err = add_syms(&b, elf, SHT_DYNSYM), merr = -ENOENT;
	size_t len;
	unsigned char *mini = err == -ENOMEM ? NULL : minidebug(elf, &len);

	if (mini) {
		Elf *m = elf_memory((char *)mini, len);

		if (m && elf_kind(m) == ELF_K_ELF)
			merr = add_syms(&b, m, SHT_SYMTAB);
		if (m)
			elf_end(m);
		free(mini);
	}
	if (err == -ENOMEM || merr == -ENOMEM)
		return finish_syms(d, &b, -ENOMEM);
	size_t before = b.nr;
	int perr = sym_plt_add(&b, elf);

	if (perr)
		return finish_syms(d, &b, perr);
	return finish_syms(d, &b, err && merr && b.nr == before ? -ENOENT : 0);
}

/*
 * d's function symbols from elf, read from fd (kind says which file that
 * is: a debug file, or the binary itself, whose .dynsym and MiniDebugInfo
 * count when stripped), with the PLT stubs of bin, the binary: from the
 * cache file for d's build id and fd's file when there is a valid one,
 * else read and then cached. 0, or -ENOENT when elf names no function,
 * -ENOMEM.
 */
static int dso_read_cached(struct symbols *s, struct dso *d, enum dcache_kind kind, int fd,
                           Elf *elf, Elf *bin, bool stripped_too)
{
	struct dcache_key k = {.kind = kind};
	struct stat st;
	bool keyed = fd >= 0 && !fstat(fd, &st);
	int err;

	/* A binary without a build id is known by its status alone. */
	if (keyed) {
		memcpy(k.build_id, d->build_id, d->build_id_len);
		k.build_id_len = d->build_id_len;
		sym_dcache_key_stat(&k, &st);
		if (sym_dcache_load(s, &k, &d->tab)) {
			s->stats.dso_cache_hits++;
			return 0;
		}
	}
	err = dso_read_syms(d, elf, bin, SHT_SYMTAB);
	if (err == -ENOENT && stripped_too)
		err = dso_read_stripped(d, elf);
	if (!err && keyed)
		sym_dcache_store(s, &k, &d->tab);
	return err;
}

/* Open path read-only if it is a regular file (and, when ino is not 0,
 * that inode). fd or -errno. */
static int open_regular(const char *path, uint64_t ino)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (ino && st.st_ino != ino)) {
		close(fd);
		return -ENOENT;
	}
	return fd;
}

/* ---- separate debug files ---- */

/* Where distributions install debug files (gdb's and perf's default). */
/* The largest file a .gnu_debuglink's CRC is computed over (see
 * debug_by_link_name). */
#define DEBUGLINK_CRC_MAX ((off_t)64 << 20)
#define DEBUG_DIR         "/usr/lib/debug"

int symbols_elf_build_id(Elf *elf, unsigned char *id, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name, desc;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			continue;
		while (off < data->d_size && (off = gelf_getnote(data, off, &nh, &name, &desc))) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != sizeof(ELF_NOTE_GNU) ||
			    !nh.n_descsz || nh.n_descsz > len ||
			    name + nh.n_namesz > data->d_size ||
			    desc + nh.n_descsz > data->d_size ||
			    memcmp((const char *)data->d_buf + name, ELF_NOTE_GNU,
			           sizeof(ELF_NOTE_GNU)))
				continue;
			memcpy(id, (const char *)data->d_buf + desc, nh.n_descsz);
			return (int)nh.n_descsz;
		}
	}
	return -ENOENT;
}

/* DEBUG_DIR/.build-id/XX/YYYY.debug for build id id: the first byte names
 * the directory, the rest the file. 0, or -EINVAL / -ENAMETOOLONG. */
static int build_id_path(char *out, size_t len, const unsigned char *id, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t prefix = strlen(DEBUG_DIR "/.build-id/"), need = prefix + 2 * n + 1 + 6 + 1, i;
	char *p;

	/* gdb and perf want a directory byte and at least one more */
	if (n < 2)
		return -EINVAL;
	if (need > len)
		return -ENAMETOOLONG;
	memcpy(out, DEBUG_DIR "/.build-id/", prefix);
	p = out + prefix;
	for (i = 0; i < n; i++) {
		if (i == 1)
			*p++ = '/';
		*p++ = hex[id[i] >> 4];
		*p++ = hex[id[i] & 0xf];
	}
	memcpy(p, ".debug", sizeof(".debug"));
	return 0;
}

/*
 * The .gnu_debuglink of elf: the debug file's name (a plain file name,
 * looked up in fixed directories) and the CRC-32 of its contents. 0, or
 * -ENOENT when there is none or it is malformed.
 */
static int elf_debuglink(Elf *elf, char *name, size_t len, uint32_t *crc)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx, n, at;
	const unsigned char *b;
	Elf_Data *data;
	const char *sname, *ident;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		sname = elf_strptr(elf, shstrndx, sh.sh_name);
		if (sname && !strcmp(sname, ".gnu_debuglink"))
			break;
	}
	if (!scn)
		return -ENOENT;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return -ENOENT;
	b = data->d_buf;
	n = strnlen((const char *)b, data->d_size);
	/* the name, NUL, padding to 4, then the CRC in the file's byte order */
	at = (n + 1 + 3) & ~(size_t)3;
	if (!n || n >= len || at + 4 > data->d_size)
		return -ENOENT;
	/* a name with a slash could point anywhere: not a debug file name */
	if (memchr(b, '/', n) || !strcmp((const char *)b, ".") || !strcmp((const char *)b, ".."))
		return -ENOENT;
	memcpy(name, b, n + 1);
	ident = elf_getident(elf, NULL);
	if (ident && ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)b[at] << 24 | (uint32_t)b[at + 1] << 16 |
		       (uint32_t)b[at + 2] << 8 | b[at + 3];
	else
		*crc = (uint32_t)b[at + 3] << 24 | (uint32_t)b[at + 2] << 16 |
		       (uint32_t)b[at + 1] << 8 | b[at];
	return 0;
}

/* CRC-32 of the whole file behind fd (read from offset 0): the one
 * .gnu_debuglink records is zlib's crc32(). */
static int file_crc32(int fd, uint32_t *out)
{
	unsigned char buf[16384];
	uint32_t crc = 0;
	off_t off = 0;

	for (;;) {
		ssize_t n = pread(fd, buf, sizeof(buf), off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!n)
			break;
		crc = (uint32_t)crc32(crc, buf, (uInt)n);
		off += n;
	}
	*out = crc;
	return 0;
}

/*
 * fd (taken) if the debug file behind it, at full, may speak for a binary
 * of owner's: written by root or by owner alone (writable by no one else),
 * and one that owner could read. A file another user planted (in a mount
 * namespace of theirs, beside a binary of root's) names nothing. fd or
 * -EPERM, fd closed.
 */
static int debug_trusted(int fd, const char *full, uid_t owner)
{
	char why[96];
	struct stat st;

	if (!fstat(fd, &st) && !util_untrusted(&st, owner, true, why, sizeof(why)) &&
	    util_readable_by(full, &st, owner))
		return fd;
	close(fd);
	return -EPERM;
}

/* Open a debug file for a binary of owner's at path as pid sees it (its
 * root first, like the binaries), then as we do. fd or -errno. */
static int debug_open(const struct symbols *s, pid_t pid, uid_t owner, const char *path, char *full)
{
	int fd = -ENOENT;

	if (!sym_root_path(s, full, PATH_MAX, "/proc/%d/root%s", (int)pid, path)) {
		fd = open_regular(full, 0);
		if (fd >= 0 && (fd = debug_trusted(fd, full, owner)) >= 0)
			return fd;
	}
	if (!sym_root_path(s, full, PATH_MAX, "%s", path) && (fd = open_regular(full, 0)) >= 0)
		fd = debug_trusted(fd, full, owner);
	return fd;
}

/* fd (taken) if it is an ELF file with build id id (n bytes), with *elf
 * set; else -ENOENT, fd closed. A debug file carries its binary's note:
 * anything else is stale. */
static int elf_with_build_id(int fd, const unsigned char *id, size_t n, Elf **elf)
{
	unsigned char got[BUILD_ID_MAX];

	*elf = elf_begin(fd, ELF_C_READ, NULL);
	if (*elf && elf_kind(*elf) == ELF_K_ELF &&
	    symbols_elf_build_id(*elf, got, sizeof(got)) == (int)n && !memcmp(got, id, n))
		return fd;
	elf_end(*elf);
	close(fd);
	return -ENOENT;
}

/*
 * perf's build-id cache of the user running pfmtop: ~/.debug/.build-id/XX/
 * REST links to a directory holding "debug" (from debuginfod) and "elf" (the
 * binary as it was cached, with its symbols). Its links are followed, but a
 * file is taken only if that user owns it or anyone may read it: root's
 * pfmtop shows nothing a link could point it at that the user cannot see.
 */
static int debug_in_home(const unsigned char *id, size_t n, Elf **elf, char *path)
{
	static const char *const names[] = {"/debug", "/elf", ""};
	const char *home = getenv("HOME");
	char hex[2 * BUILD_ID_MAX + 1];
	struct stat hs, st;

	if (!home || home[0] != '/' || n < 2 || stat(home, &hs))
		return -ENOENT;
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		int len = snprintf(path, PATH_MAX, "%s/.debug/.build-id/%.2s/%s%s", home, hex,
		                   hex + 2, names[k]);
		int fd = len > 0 && (size_t)len < PATH_MAX ? open_regular(path, 0) : -ENOENT;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || (st.st_uid != hs.st_uid && !(st.st_mode & S_IROTH))) {
			close(fd);
			continue;
		}
		fd = elf_with_build_id(fd, id, n, elf);
		if (fd >= 0)
			return fd;
	}
	return -ENOENT;
}

/* A debug file for a binary with build id id (n bytes, 0: none), or
 * -ENOENT: under DEBUG_DIR, then in the user's perf cache. *elf is set on
 * success; the caller ends it and closes the fd. */
static int debug_by_build_id(const struct symbols *s, pid_t pid, uid_t owner,
                             const unsigned char *id, size_t n, Elf **elf, char *got)
{
	char path[PATH_MAX];
	int fd = -ENOENT;

	if (!build_id_path(path, sizeof(path), id, n))
		fd = debug_open(s, pid, owner, path, got);
	if (fd >= 0 && (fd = elf_with_build_id(fd, id, n, elf)) >= 0)
		return fd;
	return s->root[0] ? -ENOENT : debug_in_home(id, n, elf, got);
}

/*
 * A debug file named name (a .gnu_debuglink) for the binary at file (of
 * owner's, with build id id of n bytes, n 0: none), where gdb looks: beside
 * the binary, in .debug/ there, and under DEBUG_DIR with the binary's
 * directory. fd with *elf set and its path in got (PATH_MAX bytes), or
 * -ENOENT. The file must carry the binary's build id; only a binary without
 * one falls back to the link's CRC, and then of a file of at most
 * DEBUGLINK_CRC_MAX bytes: the name is the binary's author's, and a CRC
 * costs a read of the whole file, in the loop (a sparse 20 GB file named by
 * a link took a minute).
 */
static int debug_by_link_name(const struct symbols *s, const char *file, pid_t pid, uid_t owner,
                              const char *name, uint32_t want, const unsigned char *id, size_t n,
                              Elf **elf, char *got)
{
	static const struct {
		const char *pre, *mid;
	} dirs[] = {{"", "/"}, {"", "/.debug/"}, {DEBUG_DIR, "/"}};
	const char *slash = strrchr(file, '/');
	char path[PATH_MAX];
	uint32_t crc = 0;
	size_t i;

	if (!slash || !name[0] || strchr(name, '/'))
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		int len = snprintf(path, sizeof(path), "%s%.*s%s%s", dirs[i].pre,
		                   (int)(slash - file), file, dirs[i].mid, name);
		struct stat st;
		int fd;

		/* the binary itself (a link naming its own file) is no debug file */
		if (len < 0 || (size_t)len >= sizeof(path) || !strcmp(path, file))
			continue;
		fd = debug_open(s, pid, owner, path, got);
		if (fd < 0)
			continue;
		if (n) {
			if ((fd = elf_with_build_id(fd, id, n, elf)) >= 0)
				return fd;
			continue;
		}
		if (!fstat(fd, &st) && st.st_size <= DEBUGLINK_CRC_MAX && !file_crc32(fd, &crc) &&
		    crc == want) {
			*elf = elf_begin(fd, ELF_C_READ, NULL);
			if (*elf && elf_kind(*elf) == ELF_K_ELF)
				return fd;
			elf_end(*elf);
		}
		close(fd);
	}
	return -ENOENT;
}

/* The debug file the binary's .gnu_debuglink names: fd with *elf set, or
 * -ENOENT. */
static int debug_by_link(const struct symbols *s, const struct dso *d, pid_t pid, Elf *bin,
                         Elf **elf, char *got)
{
	char name[NAME_MAX + 1];
	uint32_t want;

	if (elf_debuglink(bin, name, sizeof(name), &want))
		return -ENOENT;
	return debug_by_link_name(s, d->file, pid, d->owner, name, want, d->build_id,
	                          d->build_id_len, elf, got);
}

/*
 * Function symbols from the binary's separate debug file (libc6-dbg and
 * the like), which holds the full .symtab a stripped binary lacks: found
 * by build id, else by .gnu_debuglink. Its addresses are the binary's, so
 * the binary's segments still map file offsets to them. 0 when read, or
 * -ENOENT when there is no usable debug file (or it names no function).
 */
static int dso_read_debug(struct symbols *s, struct dso *d, pid_t pid, Elf *bin)
{
	int fd = -ENOENT, err;
	char got[PATH_MAX];
	Elf *elf = NULL;

	if (d->build_id_len)
		fd = debug_by_build_id(s, pid, d->owner, d->build_id, d->build_id_len, &elf, got);
	if (fd < 0)
		fd = debug_by_link(s, d, pid, bin, &elf, got);
	if (fd < 0)
		return -ENOENT;
	err = dso_read_cached(s, d, DCACHE_DEBUG, fd, elf, bin, false);
	if (!err) {
		free(d->debug_path);
		d->debug_path = strdup(got);
	}
	elf_end(elf);
	close(fd);
	return err;
}

/* The loadable segments and function symbols of elf (read from fd, or from
 * memory when fd < 0) into d; pid < 0: no debug file is looked for. */
static int dso_read_image(struct symbols *s, struct dso *d, pid_t pid, Elf *elf, int fd)
{
	size_t phnum, i;
	int err;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &phnum))
		return -ENOEXEC;
	int idlen = symbols_elf_build_id(elf, d->build_id, sizeof(d->build_id));
	d->build_id_len = idlen > 0 ? (uint8_t)idlen : 0;
	d->segs = calloc(phnum ? phnum : 1, sizeof(*d->segs));
	if (!d->segs)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nr_segs++] =
		    (struct seg){.off = ph.p_offset, .filesz = ph.p_filesz, .vaddr = ph.p_vaddr};
	}
	/* a debug file's .symtab is the fullest, then the binary's own */
	if (pid >= 0 && !dso_read_debug(s, d, pid, elf)) {
		s->stats.debug_loads++;
		return 0;
	}
	err = dso_read_cached(s, d, DCACHE_BINARY, fd, elf, elf, true);
	if (err == -ENOENT)
		err = 0; /* stripped: ips still get module+0xVADDR */
	return err;
}

static int dso_read_elf(struct symbols *s, struct dso *d, pid_t pid, int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int err;

	if (!elf)
		return -ENOEXEC;
	err = dso_read_image(s, d, pid, elf, fd);
	elf_end(elf);
	return err;
}

/*
 * Open the file behind map m of pid. A deleted file is read through
 * map_files (the very file the process maps) or at its old path if the
 * inode still matches; a live one through the process's root first.
 */
static int dso_open(struct symbols *s, const struct dso *d, pid_t pid, const struct map *m,
                    char *path)
{
	uint64_t ino = d->deleted ? d->ino : 0;
	int fd = -ENOENT;

	if (d->deleted &&
	    !sym_root_path(s, path, PATH_MAX, "/proc/%d/map_files/%llx-%llx", (int)pid,
	                   (unsigned long long)m->start, (unsigned long long)m->end)) {
		fd = open_regular(path, 0);
		if (fd >= 0)
			return fd;
	}
	if (d->file[0] != '/')
		return -ENOENT;
	if (!sym_root_path(s, path, PATH_MAX, "/proc/%d/root%s", (int)pid, d->file)) {
		fd = open_regular(path, ino);
		if (fd >= 0)
			return fd;
	}
	if (!sym_root_path(s, path, PATH_MAX, "%s", d->file))
		fd = open_regular(path, ino);
	return fd;
}

static void dso_load(struct symbols *s, struct dso *d, pid_t pid, const struct map *m)
{
	char path[PATH_MAX], mpath[PATH_MAX];
	int fd = dso_open(s, d, pid, m, path), err;
	struct stat st;

	if (fd >= 0) {
		/* The mapping named an inode: is the file at its path still that
		 * one? If not (replaced since it was mapped), the very file the
		 * process maps, through map_files, when we may open it. Only on
		 * the mapping's device: an overlayfs path stats on another one,
		 * with inode numbers of its own. */
		d->replaced = d->ino && (fstat(fd, &st) ||
		                         (major(st.st_dev) == d->maj &&
		                          minor(st.st_dev) == d->min && st.st_ino != d->ino));
		d->replaced_on_disk = false;
		if (d->replaced &&
		    !sym_root_path(s, mpath, sizeof(mpath), "/proc/%d/map_files/%llx-%llx",
		                   (int)pid, (unsigned long long)m->start,
		                   (unsigned long long)m->end)) {
			int mfd = open_regular(mpath, d->ino);

			if (mfd >= 0) {
				close(fd);
				fd = mfd;
				memcpy(path, mpath, sizeof(path));
				d->replaced = false;
				d->replaced_on_disk = true;
			}
		}
		free(d->opened);
		d->opened = strdup(path);
		d->owner = fstat(fd, &st) ? (uid_t)-1 : st.st_uid;
	}
	if (fd < 0) {
		d->state = DSO_FAILED;
		s->stats.elf_failures++;
		return;
	}
	err = dso_read_elf(s, d, pid, fd);
	close(fd);
	if (err) {
		free(d->segs);
		d->segs = NULL;
		d->nr_segs = 0;
		sym_symtab_free(&d->tab);
		d->state = DSO_FAILED;
		s->stats.elf_failures++;
		return;
	}
	d->state = DSO_LOADED;
	s->stats.elf_loads++;
}

/* The loaded segment holding file offset off (PT_LOAD file ranges do not
 * overlap). */
static const struct seg *dso_seg(const struct dso *d, uint64_t off)
{
	size_t i;

	for (i = 0; i < d->nr_segs; i++)
		if (off - d->segs[i].off < d->segs[i].filesz)
			return &d->segs[i];
	return NULL;
}

/* ip in map m of an image d: its function, or module+0xVADDR. */
void sym_resolve_in(const struct dso *d, const struct map *m, uint64_t ip,
                    struct symbols_result *out)
{
	uint64_t off = ip - m->start + m->pgoff, vaddr;
	const struct seg *seg;
	ssize_t i;

	if (d->state != DSO_LOADED || !(seg = dso_seg(d, off))) {
		sym_result_no_symbol(out, d->base, off);
		return;
	}
	vaddr = off - seg->off + seg->vaddr;
	i = sym_symtab_find(&d->tab, vaddr);
	if (i < 0) {
		sym_result_no_symbol(out, d->base, vaddr);
		return;
	}
	sym_result_set(out, SYMBOLS_FOUND, d->tab.pool + d->tab.syms[i].name,
	               vaddr - d->tab.syms[i].start, d->base);
}

void sym_resolve_file(struct symbols *s, struct proc *p, const struct map *m, uint64_t ip,
                      struct symbols_result *out)
{
	if (m->dso->state == DSO_NEW)
		dso_load(s, m->dso, p->pid, m);
	sym_resolve_in(m->dso, m, ip, out);
}

int symbols_map_open(struct symbols *s, pid_t pid, const struct symbols_map *m)
{
	const struct proc *p = sym_proc_find(s, pid);
	const struct map *mp = p ? sym_proc_lookup(p, m->start) : NULL;

	if (!mp || mp->kind != MAPPING_FILE || mp->start != m->start || mp->dso != m->binary)
		return -ENOENT;
	char path[PATH_MAX];

	return dso_open(s, mp->dso, pid, mp, path);
}

int symbols_debug_open(struct symbols *s, pid_t pid, const char *file, const unsigned char *id,
                       size_t n, const char *link, uint32_t crc)
{
	char got[PATH_MAX];
	struct stat st;
	Elf *elf = NULL;
	int fd = -ENOENT;

	/* the binary's owner, for what its debug file may be */
	if (!file || file[0] != '/' || n > BUILD_ID_MAX ||
	    sym_root_path(s, got, sizeof(got), "/proc/%d/root%s", (int)pid, file) ||
	    (stat(got, &st) && (sym_root_path(s, got, sizeof(got), "%s", file) || stat(got, &st))))
		return -ENOENT;
	if (n)
		fd = debug_by_build_id(s, pid, st.st_uid, id, n, &elf, got);
	if (fd < 0 && link && strlen(link) <= NAME_MAX)
		fd = debug_by_link_name(s, file, pid, st.st_uid, link, crc, id, n, &elf, got);
	if (fd >= 0)
		elf_end(elf);
	return fd;
}

/* ---- the vDSO ---- */

/* The largest vDSO taken (they are a few pages). */
#define VDSO_MAX (1u << 20)

/* pfmtop's own [vdso] mapping, from /proc/self/maps. 0 or -ENOENT. */
static int own_vdso(uint64_t *start, uint64_t *size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	int ret = -ENOENT;

	if (!f)
		return -ENOENT;
	while (ret && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;
		if (strstr(line, " [vdso]") && sscanf(line, "%llx-%llx", &a, &b) == 2 && b > a &&
		    b - a <= VDSO_MAX) {
			*start = a;
			*size = b - a;
			ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/*
 * The kernel maps the same vDSO image into every native process: its
 * symbols are read once, from the copy in pfmtop's own memory (nothing is
 * read from another process). A mapping of another size (a 32-bit
 * process's image) is not this one. NULL when there is none.
 */
const struct dso *sym_vdso_get(struct symbols *s, uint64_t size)
{
	uint64_t start, own;
	char *copy;
	Elf *elf;

	if (!s->vdso_tried) {
		s->vdso_tried = true;
		if (own_vdso(&start, &own))
			return NULL;
		copy = malloc(own);
		s->vdso = calloc(1, sizeof(*s->vdso));
		if (!copy || !s->vdso || !(s->vdso->path = strdup("[vdso]")) ||
		    !(s->vdso->file = strdup("[vdso]"))) {
			free(copy);
			if (s->vdso)
				sym_dso_destroy(s->vdso);
			s->vdso = NULL;
			return NULL;
		}
		memcpy(copy, (const void *)(uintptr_t)start, own);
		s->vdso->base = s->vdso->file;
		elf = elf_memory(copy, own);
		if (!elf || dso_read_image(s, s->vdso, -1, elf, -1)) {
			sym_dso_destroy(s->vdso);
			s->vdso = NULL;
		} else {
			s->vdso->state = DSO_LOADED;
			s->vdso_size = own;
		}
		if (elf)
			elf_end(elf);
		free(copy);
	}
	return s->vdso && size == s->vdso_size ? s->vdso : NULL;
}
