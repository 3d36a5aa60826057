/* annotate: a function's code from its ELF file or kcore, disassembled (capstone), with source
 * lines (libdw). */
#include "annotate.h"
#include "dlbind.h"

#include "symbols.h"
#include "untrusted.h"
#include "util.h"

#include <capstone/capstone.h>
#include <dlfcn.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Source files read for their lines: at most this big, this many at once. */
#define SOURCE_MAX_BYTES (4u << 20)
#define SOURCE_FILES     8
/* DWARF line entries of one function taken, and CUs walked without aranges. */
#define MAX_LINE_ROWS (1u << 20)
/* The DWARF of files up to this size is read (whole, into memory), with
 * this many zero bytes after it. */
#define DWARF_MAX_FILE (256ull << 20)
#define DWARF_PAD      65536
#define MAX_CUS        200000

static void why(struct annotate *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void why(struct annotate *a, const char *fmt, ...)
{
	char raw[ANNOTATE_WHY];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	untrusted_text(a->why, sizeof(a->why), raw);
}

/* Open path read-only if it is a regular file: fd, with *st, or -errno.
 * It is looked at before it is opened, so that a path naming a device or a
 * FIFO is never opened (opening some devices does something); with
 * nofollow, a symbolic link is not followed either (paths from DWARF). */
static int open_file(const char *path, struct stat *st, bool nofollow)
{
	struct stat pre;
	int fd;

	if ((nofollow ? lstat(path, &pre) : stat(path, &pre)))
		return -errno;
	if (!S_ISREG(pre.st_mode))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_dev != pre.st_dev ||
	    st->st_ino != pre.st_ino) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static int open_regular(const char *path, struct stat *st)
{
	return open_file(path, st, false);
}

/* Read exactly len bytes at off: 0 or -errno (-EIO when short). */
static int pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	if (off > (uint64_t)INT64_MAX - len)
		return -EINVAL;
	n = util_pread_full(fd, buf, len, off);
	return n < 0 ? (int)n : (size_t)n == len ? 0 : -EIO;
}

static int add_line(struct annotate *a, enum annotate_kind kind, uint64_t addr, const char *text)
{
	struct annotate_line *l;

	if (a->nr >= ANNOTATE_MAX_LINES)
		return -E2BIG;
	if (util_grow(&a->lines, a->nr, &a->cap, sizeof(*a->lines), 256))
		return -ENOMEM;
	l = &a->lines[a->nr++];
	memset(l, 0, sizeof(*l));
	l->kind = kind;
	l->addr = addr;
	l->target = -1;
	untrusted_text(l->text, sizeof(l->text), text);
	return 0;
}

/* ---- the build id ---- */

static void hex(char *out, size_t len, const unsigned char *id, size_t n)
{
	size_t i;

	for (i = 0; i < n && 2 * i + 2 < len; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
	out[2 * i] = '\0';
}

/* ---- capstone ---- */

#ifndef PFMTOP_CAPSTONE_SONAME
#define PFMTOP_CAPSTONE_SONAME "libcapstone.so.4"
#endif

/* capstone's functions, from the library opened for one annotate_load(). */
struct capstone {
	__typeof__(cs_open) *open;
	__typeof__(cs_option) *option;
	__typeof__(cs_close) *close;
	__typeof__(cs_malloc) *malloc;
	__typeof__(cs_free) *free;
	__typeof__(cs_disasm_iter) *disasm_iter;
	__typeof__(cs_insn_group) *insn_group;
};

struct disasm {
	struct capstone cs;
	void *dl; /* dlopen()'s handle */
	csh h;
	cs_arch arch;
};

/* A disassembler for the ELF's machine, or why there is none. */
static int disasm_open(struct disasm *d, const GElf_Ehdr *eh, char *why, size_t whylen)
{
	static const struct dlbind_lib lib = {
	    .soname = PFMTOP_CAPSTONE_SONAME,
	    .test_env = "PFMTOP_TEST_CAPSTONE",
	    .package = "libcapstone4",
	    .without = "annotate cannot disassemble",
	};
	static const struct dlbind_sym syms[] = {
	    DLBIND(struct capstone, open, cs_open),
	    DLBIND(struct capstone, option, cs_option),
	    DLBIND(struct capstone, close, cs_close),
	    DLBIND(struct capstone, malloc, cs_malloc),
	    DLBIND(struct capstone, free, cs_free),
	    DLBIND(struct capstone, disasm_iter, cs_disasm_iter),
	    DLBIND(struct capstone, insn_group, cs_insn_group),
	};
	cs_mode mode;

	switch (eh->e_machine) {
	case EM_X86_64:
		d->arch = CS_ARCH_X86;
		mode = eh->e_ident[EI_CLASS] == ELFCLASS32 ? CS_MODE_32 : CS_MODE_64;
		break;
	case EM_386:
		d->arch = CS_ARCH_X86;
		mode = CS_MODE_32;
		break;
	case EM_AARCH64:
		d->arch = CS_ARCH_ARM64;
		mode = CS_MODE_ARM;
		break;
	default:
		snprintf(why, whylen, "machine %u: no disassembler for it here",
		         (unsigned)eh->e_machine);
		return -ENOEXEC;
	}
	if (eh->e_ident[EI_DATA] == ELFDATA2MSB)
		mode |= CS_MODE_BIG_ENDIAN;
	d->dl = dlbind_open(&lib, syms, sizeof(syms) / sizeof(syms[0]), &d->cs, why, whylen);
	if (!d->dl)
		return -ELIBACC;
	if (d->cs.open(d->arch, mode, &d->h) != CS_ERR_OK) {
		snprintf(why, whylen, "machine %u: capstone cannot disassemble it",
		         (unsigned)eh->e_machine);
		dlclose(d->dl);
		d->dl = NULL;
		return -ENOEXEC;
	}
	if (d->arch == CS_ARCH_X86)
		d->cs.option(d->h, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	d->cs.option(d->h, CS_OPT_DETAIL, CS_OPT_ON);
	return 0;
}

static void disasm_close(struct disasm *d)
{
	if (!d->dl)
		return;
	d->cs.close(&d->h);
	dlclose(d->dl);
	d->dl = NULL;
}

/* The immediate target of a jump or call, if it has one. */
static bool branch_target(const struct disasm *dis, const cs_insn *in, uint64_t *to)
{
	const cs_detail *d = in->detail;

	if (!d || !(dis->cs.insn_group(dis->h, in, CS_GRP_JUMP) ||
	            dis->cs.insn_group(dis->h, in, CS_GRP_CALL)))
		return false;
	if (dis->arch == CS_ARCH_X86) {
		for (int i = 0; i < d->x86.op_count && i < 8; i++)
			if (d->x86.operands[i].type == X86_OP_IMM) {
				*to = (uint64_t)d->x86.operands[i].imm;
				return true;
			}
	} else if (dis->arch == CS_ARCH_ARM64) {
		for (int i = 0; i < d->arm64.op_count && i < 8; i++)
			if (d->arm64.operands[i].type == ARM64_OP_IMM) {
				*to = (uint64_t)d->arm64.operands[i].imm;
				return true;
			}
	}
	return false;
}

/* ---- source lines ---- */

struct row {
	uint64_t addr;
	const char *file; /* libdw's, valid while the Dwarf is */
	int line;
	size_t order;
};

struct srcfile {
	char *path;
	char *text; /* NULL: unreadable */
	size_t len;
	size_t *starts; /* offset of each line */
	size_t nr;
};

struct source {
	Dwarf *dw;
	Elf *elf;
	int fd;
	char *image; /* the file libdw reads, followed by zeros */
	struct row *rows;
	size_t nr, next;
	const char *file; /* the last (file, line) shown */
	int line;
	struct srcfile files[SOURCE_FILES];
	size_t nr_files;
	uid_t owner;
};

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static void add_rows(struct source *src, Dwarf_Die *cu, uint64_t start, uint64_t end)
{
	Dwarf_Lines *lines;
	size_t n;

	if (dwarf_getsrclines(cu, &lines, &n) || n > MAX_LINE_ROWS)
		return;
	for (size_t i = 0; i < n && src->nr < MAX_LINE_ROWS; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		bool end_seq = false;
		int lineno;
		const char *file;

		if (!l || dwarf_lineaddr(l, &addr) || addr < start || addr >= end ||
		    dwarf_lineendsequence(l, &end_seq) || end_seq || dwarf_lineno(l, &lineno) ||
		    lineno <= 0 || !(file = dwarf_linesrc(l, NULL, NULL)))
			continue;
		struct row *r = realloc(src->rows, (src->nr + 1) * sizeof(*r));
		if (!r)
			return;
		src->rows = r;
		src->rows[src->nr] = (struct row){addr, file, lineno, src->nr};
		src->nr++;
	}
}

/*
 * The whole file in memory, followed by DWARF_PAD zero bytes, as an Elf:
 * libdw (elfutils 0.188) reads some strings of a line table with strlen()
 * and may run past the end of a section that lacks its NUL; in one buffer
 * with zeros after it, such a read stays inside memory we own and stops.
 * (Compressed sections are inflated by libdw into buffers of their own:
 * that case is libdw's.) NULL when the file is too big or unreadable.
 */
static Elf *elf_padded(int fd, char **image)
{
	struct stat st;
	Elf *elf;

	*image = NULL;
	if (fstat(fd, &st) || st.st_size <= 0 || (uint64_t)st.st_size > DWARF_MAX_FILE)
		return NULL;
	*image = calloc(1, (size_t)st.st_size + DWARF_PAD);
	if (!*image || pread_all(fd, *image, (size_t)st.st_size, 0) ||
	    !(elf = elf_memory(*image, (size_t)st.st_size))) {
		free(*image);
		*image = NULL;
		return NULL;
	}
	return elf;
}

static void source_open(struct source *src, const struct annotate_func *f, int bin, uint64_t start,
                        uint64_t end)
{
	Dwarf_Die cu;
	struct stat st;

	src->fd = -1;
	if (f->debug && f->debug[0])
		src->fd = open_regular(f->debug, &st);
	src->elf = elf_padded(src->fd >= 0 ? src->fd : bin, &src->image);
	if (!src->elf && src->fd >= 0) /* the binary's own DWARF, then */
		src->elf = elf_padded(bin, &src->image);
	if (!src->elf || elf_kind(src->elf) != ELF_K_ELF)
		return;
	src->dw = dwarf_begin_elf(src->elf, DWARF_C_READ, NULL);
	if (!src->dw)
		return;
	if (dwarf_addrdie(src->dw, start, &cu)) {
		add_rows(src, &cu, start, end);
	} else {
		/* No aranges for it: the CUs whose ranges hold the start. */
		Dwarf_Off off = 0, next;
		size_t hsize;
		int k = 0;

		while (k++ < MAX_CUS &&
		       !dwarf_nextcu(src->dw, off, &next, &hsize, NULL, NULL, NULL)) {
			if (dwarf_offdie(src->dw, off + hsize, &cu) &&
			    dwarf_haspc(&cu, start) == 1) {
				add_rows(src, &cu, start, end);
				break;
			}
			off = next;
		}
	}
	if (src->nr)
		qsort(src->rows, src->nr, sizeof(*src->rows), row_cmp);
}

/* Line lineno of file, safe text, or NULL. Files are read once; only
 * regular files owned by root or by the binary's owner, that the binary's
 * owner could read themselves: the line table is the binary's author's, and
 * "#line 1 \"/etc/shadow\"" must not make root's pfmtop print that file. */
static const char *source_text(struct source *src, const char *file, int lineno, char *buf,
                               size_t len)
{
	struct srcfile *sf = NULL;

	for (size_t i = 0; i < src->nr_files; i++)
		if (!strcmp(src->files[i].path, file))
			sf = &src->files[i];
	if (!sf) {
		struct stat st;
		int fd;

		if (src->nr_files == SOURCE_FILES)
			return NULL;
		sf = &src->files[src->nr_files];
		memset(sf, 0, sizeof(*sf));
		sf->path = strdup(file);
		if (!sf->path)
			return NULL;
		src->nr_files++;
		fd = file[0] == '/' ? open_file(file, &st, true) : -ENOENT;
		if (fd < 0)
			return NULL;
		if ((st.st_uid == 0 || st.st_uid == src->owner) &&
		    util_readable_by(file, &st, src->owner) && st.st_size > 0 &&
		    (uint64_t)st.st_size <= SOURCE_MAX_BYTES &&
		    (sf->text = malloc((size_t)st.st_size))) {
			sf->len = (size_t)st.st_size;
			if (pread_all(fd, sf->text, sf->len, 0)) {
				free(sf->text);
				sf->text = NULL;
			}
		}
		close(fd);
		if (!sf->text)
			return NULL;
		size_t nr = 1;
		for (size_t i = 0; i < sf->len; i++)
			nr += sf->text[i] == '\n';
		sf->starts = malloc(nr * sizeof(*sf->starts));
		if (!sf->starts) {
			free(sf->text);
			sf->text = NULL;
			return NULL;
		}
		sf->starts[sf->nr++] = 0;
		for (size_t i = 0; i < sf->len; i++)
			if (sf->text[i] == '\n' && i + 1 < sf->len)
				sf->starts[sf->nr++] = i + 1;
	}
	if (!sf->text || lineno < 1 || (size_t)lineno > sf->nr)
		return NULL;
	size_t at = sf->starts[lineno - 1], n = 0;
	while (at + n < sf->len && sf->text[at + n] != '\n' && n + 1 < len)
		n++;
	memcpy(buf, sf->text + at, n);
	buf[n] = '\0';
	/* tabs as spaces, leading blanks dropped */
	for (char *c = buf; *c; c++)
		if (*c == '\t')
			*c = ' ';
	return buf + strspn(buf, " ");
}

/* Before the instruction at addr: the source line it starts, if it is
 * another one than the last shown. */
static int source_before(struct annotate *a, struct source *src, uint64_t addr)
{
	const struct row *r = NULL;
	char text[ANNOTATE_TEXT], line[ANNOTATE_TEXT + 64];
	const char *base, *body;

	while (src->next < src->nr && src->rows[src->next].addr <= addr)
		r = &src->rows[src->next++];
	if (!r || (r->line == src->line && src->file && !strcmp(r->file, src->file)))
		return 0;
	src->file = r->file;
	src->line = r->line;
	base = strrchr(r->file, '/');
	base = base ? base + 1 : r->file;
	body = source_text(src, r->file, r->line, text, sizeof(text));
	snprintf(line, sizeof(line), "%s:%d%s%s", base, r->line, body ? "  " : "",
	         body ? body : "");
	a->has_source = true;
	return add_line(a, ANNOTATE_SOURCE, 0, line);
}

static void source_close(struct source *src)
{
	for (size_t i = 0; i < src->nr_files; i++) {
		free(src->files[i].path);
		free(src->files[i].text);
		free(src->files[i].starts);
	}
	free(src->rows);
	if (src->dw)
		dwarf_end(src->dw);
	if (src->elf)
		elf_end(src->elf);
	free(src->image);
	if (src->fd >= 0)
		close(src->fd);
}

/* ---- disassembly ---- */

static int by_addr(const void *pa, const void *pb, void *arg)
{
	const struct annotate_line *l = arg;
	uint64_t x = l[*(const int *)pa].addr, y = l[*(const int *)pb].addr;

	return x < y ? -1 : x > y;
}

static int disassemble(struct annotate *a, const struct disasm *dis, const uint8_t *code,
                       size_t size, uint64_t start, struct source *src)
{
	cs_insn *in = dis->cs.malloc(dis->h);
	/* each instruction takes a byte at least, and has one source line
	 * before it at most: lines stay below 2 * size + 1 */
	const size_t max_lines = 2 * size + 1;
	uint64_t *targets = calloc(max_lines, sizeof(*targets));
	const uint8_t *p = code;
	uint64_t addr = start;
	size_t left = size;
	int ret = 0;

	if (!in || !targets) {
		ret = -ENOMEM;
		goto out;
	}
	while (left && !ret) {
		char text[ANNOTATE_TEXT];
		uint64_t to, here = addr;

		if (src && src->nr && (ret = source_before(a, src, here)))
			break;
		if (dis->cs.disasm_iter(dis->h, &p, &left, &addr, in)) {
			snprintf(text, sizeof(text), "%s%s%s", in->mnemonic,
			         in->op_str[0] ? " " : "", in->op_str);
			ret = add_line(a, ANNOTATE_INSN, here, text);
			if (!ret && branch_target(dis, in, &to) && to >= start &&
			    to < start + size && (size_t)a->nr <= max_lines)
				targets[a->nr - 1] = to + 1;
		} else {
			/* not an instruction: one byte, then go on */
			snprintf(text, sizeof(text), "(bad) .byte 0x%02x", *p);
			ret = add_line(a, ANNOTATE_INSN, here, text);
			p++;
			left--;
			addr++;
		}
	}
	if (ret)
		goto out;
	a->insn = malloc((a->nr ? (size_t)a->nr : 1) * sizeof(*a->insn));
	if (!a->insn) {
		ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < a->nr; i++)
		if (a->lines[i].kind == ANNOTATE_INSN)
			a->insn[a->nr_insn++] = i;
	/* lines in address order already; kept sorted for annotate_find() */
	qsort_r(a->insn, (size_t)a->nr_insn, sizeof(*a->insn), by_addr, a->lines);
	/* Targets found: a line index each (a target inside an instruction
	 * has no line: not followed). */
	for (int i = 0; i < a->nr && (size_t)i < max_lines; i++) {
		int t;

		if (!targets[i])
			continue;
		t = annotate_find(a, targets[i] - 1);
		if (t >= 0 && a->lines[t].addr == targets[i] - 1)
			a->lines[i].target = t;
	}
out:
	free(targets);
	if (in)
		dis->cs.free(in, 1);
	return ret;
}

int annotate_find(const struct annotate *a, uint64_t addr)
{
	int lo = 0, hi = a->nr_insn;

	/* the last instruction starting at or below addr */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (a->lines[a->insn[mid]].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= a->end || addr < a->start)
		return -1;
	return a->insn[lo - 1];
}

/* ---- where the code comes from ---- */

/* The bytes [start, start + size) of a file whose PT_LOADs (from its
 * program headers) place them: into *out (malloc'd). */
static int read_from_segments(int fd, const GElf_Phdr *ph, size_t nr, uint64_t start, size_t size,
                              uint8_t **out)
{
	for (size_t i = 0; i < nr; i++) {
		if (ph[i].p_type != PT_LOAD || start < ph[i].p_vaddr ||
		    start - ph[i].p_vaddr > ph[i].p_filesz ||
		    size > ph[i].p_filesz - (start - ph[i].p_vaddr))
			continue;
		*out = malloc(size ? size : 1);
		if (!*out)
			return -ENOMEM;
		int ret = pread_all(fd, *out, size, ph[i].p_offset + (start - ph[i].p_vaddr));
		if (ret) {
			free(*out);
			*out = NULL;
		}
		return ret;
	}
	return -ERANGE;
}

/* kcore, parsed by hand (its size is the address space: no libelf). */
static int read_kcore(struct annotate *a, const struct annotate_func *f, size_t size,
                      uint8_t **code, GElf_Ehdr *eh)
{
	const char *path = f->kcore ? f->kcore : "/proc/kcore";
	Elf64_Ehdr e;
	Elf64_Phdr *raw = NULL;
	GElf_Phdr *ph = NULL;
	struct stat st;
	int fd = open_regular(path, &st), ret;

	if (fd < 0) {
		if (fd == -ENOENT)
			why(a,
			    "kernel code is read from %s, which this kernel does not have "
			    "(built without CONFIG_PROC_KCORE)",
			    path);
		else if (fd == -EACCES || fd == -EPERM)
			why(a,
			    "kernel code is read from %s, which only root can read: run pfmtop "
			    "as root",
			    path);
		else
			why(a, "kernel code is read from %s, which cannot be read: %s", path,
			    strerror(-fd));
		return fd;
	}
	ret = pread_all(fd, &e, sizeof(e), 0);
	if (ret || memcmp(e.e_ident, ELFMAG, SELFMAG) || e.e_ident[EI_CLASS] != ELFCLASS64 ||
	    e.e_phentsize != sizeof(Elf64_Phdr) || !e.e_phnum || e.e_phnum > 4096) {
		why(a, "%s is not an ELF core file this pfmtop reads", path);
		ret = -ENOEXEC;
		goto out;
	}
	raw = calloc(e.e_phnum, sizeof(*raw));
	ph = calloc(e.e_phnum, sizeof(*ph));
	if (!raw || !ph) {
		ret = -ENOMEM;
		goto out;
	}
	ret = pread_all(fd, raw, (size_t)e.e_phnum * sizeof(*raw), e.e_phoff);
	if (ret) {
		why(a, "%s: cannot read its program headers", path);
		goto out;
	}
	for (size_t i = 0; i < e.e_phnum; i++)
		ph[i] = (GElf_Phdr){.p_type = raw[i].p_type,
		                    .p_offset = raw[i].p_offset,
		                    .p_vaddr = raw[i].p_vaddr,
		                    .p_filesz = raw[i].p_filesz};
	ret = read_from_segments(fd, ph, e.e_phnum, f->start, size, code);
	if (ret)
		why(a, "the kernel's code at 0x%" PRIx64 " is not in %s (%s)", f->start, path,
		    strerror(-ret));
	memset(eh, 0, sizeof(*eh));
	memcpy(eh->e_ident, e.e_ident, EI_NIDENT);
	eh->e_machine = e.e_machine;
out:
	free(raw);
	free(ph);
	close(fd);
	return ret;
}

/* Check the build id of elf against the mapping's: 0, or -ESTALE with why. */
static int check_build_id(struct annotate *a, const struct annotate_func *f, Elf *elf)
{
	unsigned char id[ANNOTATE_BUILD_ID];
	char want[2 * ANNOTATE_BUILD_ID + 1], got[2 * ANNOTATE_BUILD_ID + 1];
	int n = symbols_elf_build_id(elf, id, sizeof(id));

	hex(want, sizeof(want), f->build_id, f->build_id_len);
	if (n > 0)
		hex(got, sizeof(got), id, (size_t)n);
	if (!f->build_id_len) {
		snprintf(a->check, sizeof(a->check),
		         "the mapping's build-id is not known: code read unchecked%s%s",
		         n > 0 ? " (the file has build-id " : "", n > 0 ? got : "");
		if (n > 0)
			strcat(a->check, ")");
		return 0;
	}
	if (n <= 0) {
		why(a,
		    "%s has no build-id now, the mapped file had %s: replaced since it was "
		    "mapped; its code is not shown",
		    f->file, want);
		return -ESTALE;
	}
	if ((size_t)n != f->build_id_len || memcmp(id, f->build_id, (size_t)n)) {
		why(a,
		    "%s has build-id %s, the mapped file had %s: replaced since it was mapped; "
		    "its code is not shown",
		    f->file, got, want);
		return -ESTALE;
	}
	snprintf(a->check, sizeof(a->check), "build-id %s matches the mapped file%s%s", got,
	         f->note ? "; " : "", f->note ? f->note : "");
	return 0;
}

int annotate_file_build_id(const char *path, unsigned char *id, size_t len)
{
	struct stat st;
	int fd = open_regular(path, &st), n;
	Elf *elf;

	elf_version(EV_CURRENT);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf && elf_kind(elf) == ELF_K_ELF ? symbols_elf_build_id(elf, id, len) : 0;
	if (n < 0)
		n = 0; /* none */
	if (elf)
		elf_end(elf);
	close(fd);
	return n;
}

int annotate_load(struct annotate *a, const struct annotate_func *f)
{
	struct source src = {.fd = -1};
	uint8_t *code = NULL;
	GElf_Ehdr eh;
	Elf *elf = NULL;
	struct disasm dis = {.dl = NULL};
	int fd = -1, ret;
	size_t size;

	memset(a, 0, sizeof(*a));
	elf_version(EV_CURRENT);
	a->hottest = -1;
	a->start = f->start;
	a->bias = f->bias;
	size = f->size > ANNOTATE_MAX_BYTES ? ANNOTATE_MAX_BYTES : (size_t)f->size;
	a->truncated = f->size > ANNOTATE_MAX_BYTES;
	a->end = f->start + size;
	if (!size || f->start + size < f->start) {
		why(a, "the function has no size");
		return -EINVAL;
	}
	if (f->kernel) {
		ret = read_kcore(a, f, size, &code, &eh);
		if (ret)
			goto out;
		snprintf(a->check, sizeof(a->check), "read from the running kernel (/proc/kcore)");
	} else {
		struct stat st;

		if (f->deleted) {
			why(a, "%s was deleted since it was mapped: its code is not shown",
			    f->file ? f->file : "?");
			ret = -ESTALE;
			goto out;
		}
		if (f->replaced) {
			why(a,
			    "%s is not the file that was mapped (replaced since it was mapped): "
			    "its code is not shown",
			    f->file ? f->file : "?");
			ret = -ESTALE;
			goto out;
		}
		fd = f->file ? open_regular(f->file, &st) : -ENOENT;
		if (fd < 0) {
			why(a, "cannot open %s: %s%s", f->file ? f->file : "the binary",
			    strerror(-fd), fd == -ENOENT ? " (deleted since it was mapped?)" : "");
			ret = fd;
			goto out;
		}
		src.owner = st.st_uid;
		elf = elf_begin(fd, ELF_C_READ, NULL);
		if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
			why(a, "%s is not an ELF file", f->file);
			ret = -ENOEXEC;
			goto out;
		}
		ret = check_build_id(a, f, elf);
		if (ret)
			goto out;
		size_t phnum;
		if (elf_getphdrnum(elf, &phnum) || phnum > 65535) {
			why(a, "%s: no program headers", f->file);
			ret = -ENOEXEC;
			goto out;
		}
		GElf_Phdr *ph = calloc(phnum ? phnum : 1, sizeof(*ph));
		if (!ph) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < phnum; i++)
			if (!gelf_getphdr(elf, (int)i, &ph[i]))
				ph[i].p_type = PT_NULL;
		ret = read_from_segments(fd, ph, phnum, f->start, size, &code);
		free(ph);
		if (ret) {
			why(a, "%s: the function at 0x%" PRIx64 " is not in a loaded segment (%s)",
			    f->file, f->start, strerror(-ret));
			goto out;
		}
	}
	char msg[ANNOTATE_WHY];
	ret = disasm_open(&dis, &eh, msg, sizeof(msg));
	if (ret) {
		why(a, "%s", msg);
		goto out;
	}
	if (!f->kernel && !f->no_source)
		source_open(&src, f, fd, a->start, a->end);
	ret = disassemble(a, &dis, code, size, f->start, &src);
	if (ret)
		why(a, "cannot disassemble: %s", strerror(-ret));
out:
	source_close(&src);
	disasm_close(&dis);
	free(code);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (ret) {
		/* no code rather than a part of it */
		char keep[ANNOTATE_WHY];

		memcpy(keep, a->why, sizeof(keep));
		annotate_free(a);
		memcpy(a->why, keep, sizeof(keep));
		if (!a->why[0])
			why(a, "%s", strerror(-ret));
	}
	return ret;
}

void annotate_count(struct annotate *a, const struct annotate_sample *s, size_t n)
{
	uint64_t best = 0;

	a->weight = a->samples = a->stray = a->outside = 0;
	a->hottest = -1;
	for (int i = 0; i < a->nr; i++) {
		a->lines[i].weight = a->lines[i].samples = 0;
		a->lines[i].share = 0;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t addr = s[i].ip - a->bias;
		int l = annotate_find(a, addr);

		if (l < 0) {
			a->outside += s[i].samples;
			continue;
		}
		if (a->lines[l].addr != addr)
			a->stray += s[i].samples;
		a->lines[l].weight += s[i].weight;
		a->lines[l].samples += s[i].samples;
		a->weight += s[i].weight;
		a->samples += s[i].samples;
	}
	for (int k = 0; k < a->nr_insn; k++) {
		struct annotate_line *l = &a->lines[a->insn[k]];

		l->share = a->weight ? 100.0 * (double)l->weight / (double)a->weight : 0;
		if (l->weight > best) {
			best = l->weight;
			a->hottest = a->insn[k];
		}
	}
}

void annotate_print(FILE *f, const struct annotate *a)
{
	if (!a->nr) {
		fprintf(f, "  no code: %s\n", a->why[0] ? a->why : "nothing to show");
		return;
	}
	fprintf(f, "  %s\n", a->check);
	fprintf(f, "  %" PRIu64 " samples in the function", a->samples);
	if (a->hottest >= 0)
		fprintf(f, "; hottest: %" PRIx64 " (%.2f%%)", a->lines[a->hottest].addr,
		        a->lines[a->hottest].share);
	if (a->stray)
		fprintf(f, "; %" PRIu64 " inside an instruction", a->stray);
	fprintf(f, "%s%s\n", a->truncated ? "; cut at 256 KiB" : "",
	        a->has_source ? "" : "; no source lines (no DWARF line table found)");
	fprintf(f, "  Percent  Address           Instruction\n");
	for (int i = 0; i < a->nr; i++) {
		const struct annotate_line *l = &a->lines[i];

		if (l->kind == ANNOTATE_SOURCE) {
			fprintf(f, "%29s%s\n", "", l->text);
			continue;
		}
		fputc(i == a->hottest ? '>' : ' ', f);
		if (l->samples)
			fprintf(f, " %7.2f", l->share);
		else
			fprintf(f, " %7s", "");
		fprintf(f, "  %16" PRIx64 ":  %s", l->addr, l->text);
		if (l->target >= 0)
			fprintf(f, "  -> %" PRIx64, a->lines[l->target].addr);
		fputs(i == a->hottest ? "  <- hottest\n" : "\n", f);
	}
}

void annotate_free(struct annotate *a)
{
	free(a->lines);
	free(a->insn);
	memset(a, 0, sizeof(*a));
	a->hottest = -1;
}
