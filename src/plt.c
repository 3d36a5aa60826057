/* plt: "func@plt" symbols for the entries of a binary's PLT, named from its PLT relocations. */
#include "symbols_priv.h"

/*
 * A call into a shared library goes through a stub in the caller's PLT,
 * which no symbol table names: a sample there would take the name of the
 * symbol before it (_init). perf names each stub after the function it
 * jumps to, "puts@plt"; so do we.
 *
 * Entry i of the PLT jumps through the i-th GOT slot of .got.plt, which the
 * i-th jump slot relocation of .rela.plt (.rel.plt on i386) fills: sorted
 * by the slot they fill, the relocations name the entries in order. The
 * layouts:
 * - x86-64 and i386: a 16-byte header (the lazy resolver's), then 16-byte
 *   entries; with IBT the entries called are in .plt.sec (16 bytes each, no
 *   header) and .plt keeps only the lazy stubs. .plt.got (x86-64) holds
 *   stubs for functions whose GOT slot .rela.dyn fills (GLOB_DAT): each is
 *   a jmp *disp(%rip), whose slot names it.
 * - aarch64: a 32-byte header, then 16-byte entries (24 with BTI or PAC).
 * - either without the header when the PLT is exactly its entries.
 * The header gets a symbol of its own, ".plt" (as perf has it), so that it
 * is not the tail of the symbol before it.
 *
 * All of it comes from the file: counts are bounded by what the sections
 * hold, indices go through libelf's checked accessors, names are cut.
 */

/* Relocations read from one section at most. */
#define PLT_MAX (1u << 18)

/* Names are cut to this many bytes (rows cut them shorter still). */
#define PLT_NAME_MAX 1024

struct plt_rel {
	uint64_t off; /* the GOT slot the relocation fills */
	uint32_t sym; /* index in the symbol table, 0 for none */
};

/* The relocation types that fill a slot a stub jumps through. */
struct plt_types {
	uint32_t a, b;
};

struct plt_syms {
	Elf_Data *data;
	size_t strndx;
};

/* The section named name, its header in *sh; NULL if there is none. */
static Elf_Scn *plt_section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/* A section of code in the file, at an address that does not wrap. */
static bool plt_code(const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR) && sh->sh_addr &&
	       sh->sh_size && sh->sh_addr + sh->sh_size > sh->sh_addr;
}

/* The symbol table the relocation section rsh refers to, for names. */
static bool plt_syms_of(Elf *elf, const GElf_Shdr *rsh, struct plt_syms *out)
{
	Elf_Scn *scn = rsh->sh_link ? elf_getscn(elf, rsh->sh_link) : NULL;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) ||
	    (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
		return false;
	out->data = elf_getdata(scn, NULL);
	out->strndx = sh.sh_link;
	return out->data && out->data->d_buf;
}

static int plt_rel_cmp(const void *a, const void *b)
{
	const struct plt_rel *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/* The relocations of types t in the REL or RELA section scn, sorted by the
 * slot they fill, into *out (malloc'd). How many, or -ENOMEM. */
static ssize_t plt_rels(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct plt_types t,
                        struct plt_rel **out)
{
	bool rela = sh->sh_type == SHT_RELA;
	size_t ent = gelf_fsize(elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT), n, k = 0;
	Elf_Data *data;

	*out = NULL;
	if ((sh->sh_type != SHT_RELA && sh->sh_type != SHT_REL) || !ent || sh->sh_entsize != ent)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf)
		return 0;
	n = data->d_size / ent;
	if (n > PLT_MAX)
		n = PLT_MAX;
	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		uint64_t off, info;

		if (rela ? !gelf_getrela(data, (int)i, &ra) : !gelf_getrel(data, (int)i, &r))
			break;
		off = rela ? ra.r_offset : r.r_offset;
		info = rela ? ra.r_info : r.r_info;
		if (GELF_R_TYPE(info) != t.a && GELF_R_TYPE(info) != t.b)
			continue;
		(*out)[k++] = (struct plt_rel){.off = off, .sym = (uint32_t)GELF_R_SYM(info)};
	}
	qsort(*out, k, sizeof(**out), plt_rel_cmp);
	return (ssize_t)k;
}

/* Add "NAME@plt" for the stub at [addr, addr + size) that jumps to symbol
 * sym of syms (nothing for a nameless one: an IFUNC's IRELATIVE slot). */
static int plt_add_stub(struct tabbuild *b, Elf *elf, const struct plt_syms *syms, uint32_t sym,
                        uint64_t addr, uint64_t size)
{
	char name[PLT_NAME_MAX + sizeof("@plt")];
	const char *s;
	GElf_Sym es;
	size_t len;

	if (!sym || !gelf_getsym(syms->data, (int)sym, &es) ||
	    !(s = elf_strptr(elf, syms->strndx, es.st_name)) || !*s)
		return 0;
	len = symbols_unversioned_len(s);
	if (len > PLT_NAME_MAX)
		len = PLT_NAME_MAX;
	memcpy(name, s, len);
	memcpy(name + len, "@plt", sizeof("@plt"));
	len += strlen("@plt");
	/* ranked below any symbol the file has at that address */
	return sym_build_add(b, addr, size, name, len, sym_rank_of(true, true, false, name, len));
}

/* The PLT's header and entries, named after the jump slots of .rela.plt. */
static int plt_entries(struct tabbuild *b, Elf *elf, size_t shstrndx, uint16_t machine)
{
	const bool x86 = machine == EM_X86_64 || machine == EM_386;
	struct plt_types t = {R_X86_64_JUMP_SLOT, R_X86_64_IRELATIVE};
	GElf_Shdr plt, sec, rsh;
	uint64_t base, size, header = x86 ? 16 : 32, entry = 16, nr;
	struct plt_syms syms;
	struct plt_rel *rels;
	Elf_Scn *rscn;
	ssize_t n;
	bool has_sec;
	int err = 0;

	if (machine == EM_386)
		t = (struct plt_types){R_386_JMP_SLOT, R_386_IRELATIVE};
	else if (machine == EM_AARCH64)
		t = (struct plt_types){R_AARCH64_JUMP_SLOT, R_AARCH64_IRELATIVE};
	if (!plt_section(elf, shstrndx, ".plt", &plt) || !plt_code(&plt))
		return 0;
	rscn = plt_section(elf, shstrndx, machine == EM_386 ? ".rel.plt" : ".rela.plt", &rsh);
	if (!rscn || !plt_syms_of(elf, &rsh, &syms))
		return 0;
	n = plt_rels(elf, rscn, &rsh, t, &rels);
	if (n <= 0)
		return (int)n;
	has_sec = x86 && plt_section(elf, shstrndx, ".plt.sec", &sec) && plt_code(&sec);
	if (has_sec) {
		base = sec.sh_addr;
		size = sec.sh_size;
		header = 0;
	} else {
		base = plt.sh_addr;
		size = plt.sh_size;
		/* BTI and PAC make aarch64's entries 24 bytes */
		if (machine == EM_AARCH64 && size > header && (size - header) / 24 == (uint64_t)n &&
		    (size - header) % 24 == 0)
			entry = 24;
		if (size / entry == (uint64_t)n && size % entry == 0)
			header = 0;
	}
	/* the header, or with .plt.sec the whole of .plt: the lazy stubs */
	if (has_sec || header)
		err = sym_build_add(b, plt.sh_addr, has_sec ? plt.sh_size : header, ".plt", 4,
		                    sym_rank_of(true, true, false, ".plt", 4));
	nr = size > header ? (size - header) / entry : 0;
	for (uint64_t i = 0; !err && i < nr && i < (uint64_t)n; i++)
		err = plt_add_stub(b, elf, &syms, rels[i].sym, base + header + i * entry, entry);
	free(rels);
	return err;
}

/* The slot a .plt.got stub jumps through: it is "[endbr64] [bnd] jmp
 * *disp32(%rip)"; false for anything else. */
static bool plt_got_slot(const unsigned char *p, size_t len, uint64_t addr, uint64_t *slot)
{
	static const unsigned char endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa};
	size_t o = 0;
	int32_t disp;

	if (len >= sizeof(endbr64) && !memcmp(p, endbr64, sizeof(endbr64)))
		o += sizeof(endbr64);
	if (o < len && p[o] == 0xf2)
		o++;
	if (o + 6 > len || p[o] != 0xff || p[o + 1] != 0x25)
		return false;
	disp = (int32_t)((uint32_t)p[o + 2] | (uint32_t)p[o + 3] << 8 | (uint32_t)p[o + 4] << 16 |
	                 (uint32_t)p[o + 5] << 24);
	*slot = addr + o + 6 + (uint64_t)(int64_t)disp;
	return true;
}

/* x86-64's .plt.got stubs, named after the GOT slot each jumps through. */
static int plt_got(struct tabbuild *b, Elf *elf, size_t shstrndx)
{
	const struct plt_types t = {R_X86_64_GLOB_DAT, R_X86_64_JUMP_SLOT};
	GElf_Shdr sh, rsh;
	struct plt_syms syms;
	struct plt_rel *rels;
	Elf_Scn *scn, *rscn;
	Elf_Data *data;
	uint64_t nr;
	ssize_t n;
	int err = 0;

	scn = plt_section(elf, shstrndx, ".plt.got", &sh);
	if (!scn || !plt_code(&sh) || (sh.sh_entsize != 8 && sh.sh_entsize != 16))
		return 0;
	data = elf_getdata(scn, NULL);
	rscn = plt_section(elf, shstrndx, ".rela.dyn", &rsh);
	if (!data || !data->d_buf || !rscn || !plt_syms_of(elf, &rsh, &syms))
		return 0;
	n = plt_rels(elf, rscn, &rsh, t, &rels);
	if (n <= 0)
		return (int)n;
	nr = (data->d_size < sh.sh_size ? data->d_size : sh.sh_size) / sh.sh_entsize;
	for (uint64_t i = 0; !err && i < nr && i < PLT_MAX; i++) {
		uint64_t addr = sh.sh_addr + i * sh.sh_entsize;
		struct plt_rel key, *r;

		if (!plt_got_slot((const unsigned char *)data->d_buf + i * sh.sh_entsize,
		                  sh.sh_entsize, addr, &key.off))
			continue;
		r = bsearch(&key, rels, (size_t)n, sizeof(*rels), plt_rel_cmp);
		if (r)
			err = plt_add_stub(b, elf, &syms, r->sym, addr, sh.sh_entsize);
	}
	free(rels);
	return err;
}

/* Add the PLT stubs of elf (the binary itself: a debug file has no PLT
 * data) to b. 0, also when it has none or they cannot be read, or -ENOMEM. */
int sym_plt_add(struct tabbuild *b, Elf *elf)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	int err;

	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	if (eh.e_machine != EM_X86_64 && eh.e_machine != EM_386 && eh.e_machine != EM_AARCH64)
		return 0;
	err = plt_entries(b, elf, shstrndx, eh.e_machine);
	if (!err && eh.e_machine == EM_X86_64)
		err = plt_got(b, elf, shstrndx);
	return err;
}
