/* test_symbol_names: names as perf shows them: no symbol versions, "func@plt" for PLT stubs. */
#include "symbols.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* Above PID_MAX_LIMIT (4194304): never a live process. */
#define FAKE_PID 5000001

/* Where the test binaries are mapped: file offset 0 there, addresses = offsets. */
#define MAP_AT    0x7f0000000000ULL
#define FILE_SIZE 0x8000

static char tmpdir[PATH_MAX];

/* One section of a test binary: alloc sections are written at their
 * address (file offset = address), the others after them. */
struct xsec {
	const char *name;
	uint32_t type;
	uint64_t flags, addr;
	const void *data;
	size_t size;   /* 0: the data's, strlen-free (given) */
	uint32_t link; /* a section index: 1 is the first of the list */
	uint64_t entsize;
	uint64_t claim; /* when not 0: the size the header claims */
};

/* Write a 64-bit ELF of machine with these sections (n of them) to
 * tmpdir/name; its path into path. */
static void write_binary(const char *name, uint16_t machine, const struct xsec *secs, int n,
                         char *path, size_t len)
{
	unsigned char *buf = calloc(1, FILE_SIZE);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Phdr *ph = (Elf64_Phdr *)(buf + sizeof(*eh));
	char shstr[512] = "";
	size_t shlen = 1, off = 0x6000;
	Elf64_Shdr sh[24] = {{0}};
	FILE *f;

	assert_non_null(buf);
	assert_true(n + 2 <= (int)(sizeof(sh) / sizeof(sh[0])));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = machine;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	*ph = (Elf64_Phdr){.p_type = PT_LOAD,
	                   .p_flags = PF_R | PF_X,
	                   .p_filesz = FILE_SIZE,
	                   .p_memsz = FILE_SIZE,
	                   .p_align = 0x1000};
	for (int i = 0; i < n; i++) {
		const struct xsec *x = &secs[i];
		size_t at = x->addr ? x->addr : off;

		assert_true(at + x->size <= 0x7000);
		if (x->data)
			memcpy(buf + at, x->data, x->size);
		if (!x->addr)
			off = (off + x->size + 7) & ~(size_t)7;
		sh[i + 1] = (Elf64_Shdr){.sh_name = shlen,
		                         .sh_type = x->type,
		                         .sh_flags = x->flags,
		                         .sh_addr = x->addr,
		                         .sh_offset = at,
		                         .sh_size = x->claim ? x->claim : x->size,
		                         .sh_link = x->link,
		                         .sh_addralign = 1,
		                         .sh_entsize = x->entsize};
		assert_true(shlen + strlen(x->name) + 1 < sizeof(shstr));
		memcpy(shstr + shlen, x->name, strlen(x->name) + 1);
		shlen += strlen(x->name) + 1;
	}
	memcpy(shstr + shlen, ".shstrtab", sizeof(".shstrtab"));
	sh[n + 1] = (Elf64_Shdr){.sh_name = shlen,
	                         .sh_type = SHT_STRTAB,
	                         .sh_offset = 0x7000,
	                         .sh_size = shlen + sizeof(".shstrtab"),
	                         .sh_addralign = 1};
	memcpy(buf + 0x7000, shstr, shlen + sizeof(".shstrtab"));
	eh->e_shoff = 0x7400;
	eh->e_shnum = n + 2;
	eh->e_shstrndx = n + 1;
	memcpy(buf + 0x7400, sh, (size_t)(n + 2) * sizeof(Elf64_Shdr));

	assert_true(snprintf(path, len, "%s/%s", tmpdir, name) < (int)len);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, FILE_SIZE, f), FILE_SIZE);
	assert_int_equal(fclose(f), 0);
	free(buf);
}

static int setup(void **state)
{
	struct symbols *s = symbols_new();

	assert_non_null(s);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	symbols_free(*state);
	return 0;
}

/* The name (and offset) at address addr of the binary at path, mapped in pid. */
static void name_at(struct symbols *s, pid_t pid, const char *path, uint64_t addr, char *out,
                    size_t len)
{
	struct symbols_result r;

	assert_int_equal(symbols_mmap(s, pid, MAP_AT, FILE_SIZE, 0, path, 0, 0, 0), 0);
	assert_int_equal(symbols_resolve(s, pid, MAP_AT + addr, false, &r), 0);
	assert_int_equal(symbols_format(&r, out, len), 0);
}

static void expect_name(struct symbols *s, pid_t pid, const char *path, uint64_t addr,
                        const char *want)
{
	char got[SYMBOLS_NAME_MAX + 32];

	name_at(s, pid, path, addr, got, sizeof(got));
	if (strcmp(got, want))
		fail_msg("%s at 0x%llx: %s, not %s", strrchr(path, '/') + 1,
		         (unsigned long long)addr, got, want);
}

/* The string tables and symbol tables every test binary has. */
static const char dynstr[] = "\0puts\0getpid\0free\0__cxa_finalize\0memcpy@@GLIBC_2.14";
enum { D_PUTS = 1, D_GETPID = 6, D_FREE = 13, D_CXA = 18, D_MEMCPY = 33 };
static const char strtab[] = "\0_init\0work@@VER_2\0old_work@VER_1\0@odd\0work_plain";
enum { S_INIT = 1, S_WORK = 7, S_OLD = 19, S_ODD = 34, S_PLAIN = 39 };

#define FUNC(name, value, size)                                                                    \
	{                                                                                          \
		.st_name = (name), .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,  \
		.st_value = (value), .st_size = (size)                                             \
	}
#define UNDEF(name)                                                                                \
	{                                                                                          \
		.st_name = (name), .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC)                  \
	}

static const Elf64_Sym symtab[] = {
    {0},
    FUNC(S_INIT, 0x1000, 0), /* no size: it would run into the PLT */
    FUNC(S_WORK, 0x1400, 0x20),
    FUNC(S_OLD, 0x1420, 0x10),
    FUNC(S_ODD, 0x1430, 0x10),
    FUNC(S_PLAIN, 0x1440, 0x10),
};
static const Elf64_Sym dynsym[] = {
    {0}, UNDEF(D_PUTS), UNDEF(D_GETPID), UNDEF(D_FREE), UNDEF(D_CXA), UNDEF(D_MEMCPY),
};

/* Sections 1-4 of every test binary: .symtab, .strtab, .dynsym, .dynstr. */
#define BASE_SECTIONS                                                                              \
	{".symtab", SHT_SYMTAB, 0, 0, symtab, sizeof(symtab), 2, sizeof(Elf64_Sym), 0},            \
	    {".strtab", SHT_STRTAB, 0, 0, strtab, sizeof(strtab), 0, 0, 0},                        \
	    {".dynsym",      SHT_DYNSYM, SHF_ALLOC,         0x200, dynsym,                         \
	     sizeof(dynsym), 4,          sizeof(Elf64_Sym), 0},                                    \
	{                                                                                          \
		".dynstr", SHT_STRTAB, SHF_ALLOC, 0x400, dynstr, sizeof(dynstr), 0, 0, 0           \
	}
#define DYNSYM_INDEX 3
#define CODE         (SHF_ALLOC | SHF_EXECINSTR)

static Elf64_Rela rela(uint64_t slot, uint32_t sym, uint32_t type)
{
	return (Elf64_Rela){.r_offset = slot, .r_info = ELF64_R_INFO(sym, type)};
}

static void test_versions_stripped(void **state)
{
	struct symbols *s = *state;
	const struct xsec secs[] = {BASE_SECTIONS};
	char path[PATH_MAX], module[64];

	write_binary("libversions.so", EM_X86_64, secs, 4, path, sizeof(path));
	expect_name(s, FAKE_PID, path, 0x1404, "work+0x4");
	expect_name(s, FAKE_PID, path, 0x1420, "old_work");
	expect_name(s, FAKE_PID, path, 0x1430, "@odd"); /* no name before the '@' */
	expect_name(s, FAKE_PID, path, 0x1440, "work_plain");

	/* a name looked up with its version still finds the function */
	assert_true(symbols_has_name(s, "work", module, sizeof(module)));
	assert_string_equal(module, "libversions.so");
	assert_true(symbols_has_name(s, "work@@VER_2", module, sizeof(module)));
	assert_true(symbols_has_name(s, "old_work@VER_1", module, sizeof(module)));
	assert_false(symbols_has_name(s, "work@plt", module, sizeof(module)));
	assert_false(symbols_has_name(s, "wor", module, sizeof(module)));
	unlink(path);
}

static void test_name_is(void **state)
{
	assert_int_equal(symbols_unversioned_len("memcpy@@GLIBC_2.14"), 6);
	assert_int_equal(symbols_unversioned_len("pthread_kill@GLIBC_2.2.5"), 12);
	assert_int_equal(symbols_unversioned_len("puts@plt"), 8);
	assert_int_equal(symbols_unversioned_len("@odd"), 4);
	assert_int_equal(symbols_unversioned_len(""), 0);
	assert_true(symbols_name_is("memcpy", "memcpy"));
	assert_true(symbols_name_is("memcpy", "memcpy@@GLIBC_2.14"));
	assert_true(symbols_name_is("memcpy", "memcpy@GLIBC_2.2.5"));
	assert_false(symbols_name_is("memcpy", "memcpy_avx"));
	assert_false(symbols_name_is("memcpy_avx", "memcpy@@GLIBC_2.14"));
	assert_false(symbols_name_is("puts", "puts@plt"));
	assert_true(symbols_name_is("puts@plt", "puts@plt"));
}

/* x86-64, lazy binding: .plt is a header and 16-byte entries in the order
 * of the GOT slots (the relocations are not: IFUNCs go elsewhere), and
 * .plt.got stubs jump through slots .rela.dyn fills. */
static void test_plt_x86_64(void **state)
{
	struct symbols *s = *state;
	const Elf64_Rela plt_rels[] = {
	    rela(0x3020, 2, R_X86_64_JUMP_SLOT), /* slot 1: getpid */
	    rela(0x3018, 1, R_X86_64_JUMP_SLOT), /* slot 0: puts */
	    rela(0x3030, 3, R_X86_64_JUMP_SLOT), /* slot 3: free */
	    rela(0x3028, 0, R_X86_64_IRELATIVE), /* slot 2: an IFUNC, no name */
	    rela(0x3040, 5, R_X86_64_TLSDESC),   /* no PLT entry */
	};
	const Elf64_Rela dyn_rels[] = {
	    rela(0x3100, 0, R_X86_64_RELATIVE),
	    rela(0x3008, 4, R_X86_64_GLOB_DAT),
	    rela(0x3010, 5, R_X86_64_GLOB_DAT),
	};
	/* .plt.got at 0x1080, 16-byte stubs: jmp *disp(%rip) to slot 0x3008,
	 * endbr64; bnd jmp to 0x3010, then something that is no stub */
	unsigned char got[48] = {0xff, 0x25, 0, 0, 0, 0, 0x66, 0x90};
	int32_t d0 = 0x3008 - (0x1080 + 6), d1 = 0x3010 - (0x1090 + 4 + 1 + 6);
	char path[PATH_MAX];

	memcpy(got + 2, &d0, 4);
	memcpy(got + 16, "\xf3\x0f\x1e\xfa\xf2\xff\x25", 7);
	memcpy(got + 23, &d1, 4);
	memset(got + 32, 0xcc, 16);
	const struct xsec secs[] = {
	    BASE_SECTIONS,
	    {".rela.plt", SHT_RELA, SHF_ALLOC, 0x600, plt_rels, sizeof(plt_rels), DYNSYM_INDEX,
	     sizeof(Elf64_Rela), 0},
	    {".rela.dyn", SHT_RELA, SHF_ALLOC, 0x800, dyn_rels, sizeof(dyn_rels), DYNSYM_INDEX,
	     sizeof(Elf64_Rela), 0},
	    {".init", SHT_PROGBITS, CODE, 0x1000, NULL, 0x20, 0, 0, 0},
	    {".plt", SHT_PROGBITS, CODE, 0x1020, NULL, 16 + 4 * 16, 0, 16, 0},
	    {".plt.got", SHT_PROGBITS, CODE, 0x1080, got, sizeof(got), 0, 16, 0},
	};

	write_binary("plt_x86_64", EM_X86_64, secs, 9, path, sizeof(path));
	expect_name(s, FAKE_PID, path, 0x1010, "_init+0x10");
	expect_name(s, FAKE_PID, path, 0x1024, ".plt+0x4");
	expect_name(s, FAKE_PID, path, 0x1030, "puts@plt");
	expect_name(s, FAKE_PID, path, 0x1046, "getpid@plt+0x6");
	expect_name(s, FAKE_PID, path, 0x1050, "plt_x86_64+0x1050"); /* the IFUNC's */
	expect_name(s, FAKE_PID, path, 0x106f, "free@plt+0xf");
	expect_name(s, FAKE_PID, path, 0x1080, "__cxa_finalize@plt");
	expect_name(s, FAKE_PID, path, 0x1094, "memcpy@plt+0x4"); /* its version dropped */
	expect_name(s, FAKE_PID, path, 0x10a0, "plt_x86_64+0x10a0");
	expect_name(s, FAKE_PID, path, 0x1400, "work");
	unlink(path);
}

/* x86-64 with IBT: the entries called are in .plt.sec; .plt is one symbol. */
static void test_plt_sec(void **state)
{
	struct symbols *s = *state;
	const Elf64_Rela plt_rels[] = {
	    rela(0x3018, 1, R_X86_64_JUMP_SLOT),
	    rela(0x3020, 2, R_X86_64_JUMP_SLOT),
	    rela(0x3028, 3, R_X86_64_JUMP_SLOT),
	};
	const struct xsec secs[] = {
	    BASE_SECTIONS,
	    {".rela.plt", SHT_RELA, SHF_ALLOC, 0x600, plt_rels, sizeof(plt_rels), DYNSYM_INDEX,
	     sizeof(Elf64_Rela), 0},
	    {".init", SHT_PROGBITS, CODE, 0x1000, NULL, 0x20, 0, 0, 0},
	    {".plt", SHT_PROGBITS, CODE, 0x1020, NULL, 16 + 3 * 16, 0, 16, 0},
	    {".plt.sec", SHT_PROGBITS, CODE, 0x1060, NULL, 3 * 16, 0, 16, 0},
	};
	char path[PATH_MAX];

	write_binary("plt_sec", EM_X86_64, secs, 8, path, sizeof(path));
	expect_name(s, FAKE_PID, path, 0x1040, ".plt+0x20");
	expect_name(s, FAKE_PID, path, 0x1060, "puts@plt");
	expect_name(s, FAKE_PID, path, 0x1074, "getpid@plt+0x4");
	expect_name(s, FAKE_PID, path, 0x1080, "free@plt");
	unlink(path);
}

/* aarch64: a 32-byte header, then 16-byte entries, or 24-byte ones (BTI, PAC). */
static void test_plt_aarch64(void **state)
{
	struct symbols *s = *state;
	const Elf64_Rela plt_rels[] = {
	    rela(0x3018, 1, R_AARCH64_JUMP_SLOT),
	    rela(0x3020, 2, R_AARCH64_JUMP_SLOT),
	    rela(0x3028, 3, R_AARCH64_JUMP_SLOT),
	};
	char path[PATH_MAX];

	for (int bti = 0; bti < 2; bti++) {
		const uint64_t entry = bti ? 24 : 16;
		const struct xsec secs[] = {
		    BASE_SECTIONS,
		    {".rela.plt", SHT_RELA, SHF_ALLOC, 0x600, plt_rels, sizeof(plt_rels),
		     DYNSYM_INDEX, sizeof(Elf64_Rela), 0},
		    {".init", SHT_PROGBITS, CODE, 0x1000, NULL, 0x20, 0, 0, 0},
		    {".plt", SHT_PROGBITS, CODE, 0x1020, NULL, 32 + 3 * entry, 0, 16, 0},
		};

		write_binary(bti ? "plt_a64_bti" : "plt_a64", EM_AARCH64, secs, 7, path,
		             sizeof(path));
		expect_name(s, FAKE_PID + bti, path, 0x101c, "_init+0x1c");
		expect_name(s, FAKE_PID + bti, path, 0x1030, ".plt+0x10");
		expect_name(s, FAKE_PID + bti, path, 0x1040, "puts@plt");
		expect_name(s, FAKE_PID + bti, path, 0x1040 + entry + 8, "getpid@plt+0x8");
		expect_name(s, FAKE_PID + bti, path, 0x1040 + 2 * entry, "free@plt");
		unlink(path);
	}
}

/* Lies in the PLT's sections cost their names, never more: the rest of
 * the binary still resolves. */
static void test_plt_hostile(void **state)
{
	struct symbols *s = *state;
	const Elf64_Rela plt_rels[] = {
	    rela(0x3018, 1000000, R_X86_64_JUMP_SLOT), /* past .dynsym */
	    rela(0x3020, 2, R_X86_64_JUMP_SLOT),
	    rela(0x3028, 3, R_X86_64_JUMP_SLOT), /* these two: past .plt's end */
	    rela(0x3030, 1, R_X86_64_JUMP_SLOT),
	};
	static const struct {
		uint32_t link;
		uint64_t entsize, claim, plt_size;
	} cases[] = {
	    {DYNSYM_INDEX, sizeof(Elf64_Rela), 0, 16 + 2 * 16}, /* bad index, short .plt */
	    {77, sizeof(Elf64_Rela), 0, 16 + 3 * 16},           /* no such symbol table */
	    {2, sizeof(Elf64_Rela), 0, 16 + 3 * 16},            /* a string table */
	    {DYNSYM_INDEX, 7, 0, 16 + 3 * 16},                  /* entries of no size */
	    {DYNSYM_INDEX, 0, 0, 16 + 3 * 16},
	    {DYNSYM_INDEX, sizeof(Elf64_Rela), 1ull << 40, 16 + 3 * 16}, /* past the file */
	    {DYNSYM_INDEX, sizeof(Elf64_Rela), 0, 1ull << 62},           /* a huge .plt */
	};
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct xsec secs[] = {
		    BASE_SECTIONS,
		    {".rela.plt", SHT_RELA, SHF_ALLOC, 0x600, plt_rels, sizeof(plt_rels),
		     cases[i].link, cases[i].entsize, cases[i].claim},
		    {".init", SHT_PROGBITS, CODE, 0x1000, NULL, 0x20, 0, 0, 0},
		    {".plt", SHT_PROGBITS, CODE, 0x1020, NULL, 0x40, 0, 16, cases[i].plt_size},
		};
		char got[SYMBOLS_NAME_MAX + 32], file[32];

		/* a binary of its own for each: one path is read once */
		snprintf(file, sizeof(file), "plt_hostile%zu", i);
		write_binary(file, EM_X86_64, secs, 7, path, sizeof(path));
		expect_name(s, FAKE_PID + (pid_t)i, path, 0x1404, "work+0x4");
		name_at(s, FAKE_PID + (pid_t)i, path, 0x1030, got, sizeof(got));
		if (strstr(got, "@plt"))
			fail_msg("case %zu: %s", i, got);
		if (i == 0) {
			/* the entries that are there are named, not the ones past it */
			expect_name(s, FAKE_PID, path, 0x1040, "getpid@plt");
			expect_name(s, FAKE_PID, path, 0x1050, "plt_hostile0+0x1050");
		} else if (i < 6) {
			/* no usable relocations: no stub is named */
			name_at(s, FAKE_PID + (pid_t)i, path, 0x1040, got, sizeof(got));
			if (strstr(got, "@plt"))
				fail_msg("case %zu: %s", i, got);
		}
		unlink(path);
	}
}

static int load_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr;
	return 1; /* the first object is the program */
}

/* Every "func@plt" objdump sees in this very program is what its samples
 * there are named, with the program as their module. */
static void test_own_plt_like_objdump(void **state)
{
	struct symbols *s = *state;
	char exe[PATH_MAX], cmd[PATH_MAX + 128], line[1024], name[512];
	uint64_t bias = 0;
	unsigned long long addr;
	int seen = 0;
	ssize_t n;
	FILE *p;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(cmd, sizeof(cmd), "objdump -d -j .plt -j .plt.sec -j .plt.got '%s' 2>/dev/null",
	         exe);
	if (system("command -v objdump >/dev/null 2>&1"))
		skip(); /* no objdump to ask */
	dl_iterate_phdr(load_bias, &bias);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		struct symbols_result r;

		size_t len;

		/* "puts@plt", not "*ABS*+0x9f0@plt" (an IFUNC) nor "puts@plt-0x10" */
		if (sscanf(line, "%llx <%511[^>]>:", &addr, name) != 2 || name[0] == '*' ||
		    (len = strlen(name)) < 5 || strcmp(name + len - 4, "@plt"))
			continue;
		assert_int_equal(symbols_resolve(s, getpid(), bias + addr, false, &r), 0);
		if (r.status != SYMBOLS_FOUND || strcmp(r.name, name) || r.offset)
			fail_msg("0x%llx: objdump says %s, we say %s+0x%llx", addr, name, r.name,
			         (unsigned long long)r.offset);
		assert_string_equal(r.module, strrchr(exe, '/') + 1);
		assert_int_equal(symbols_resolve(s, getpid(), bias + addr + 2, false, &r), 0);
		assert_string_equal(r.name, name);
		assert_int_equal(r.offset, 2);
		seen++;
	}
	pclose(p);
	assert_true(seen > 0); /* this program calls libc through its PLT */
}

/* libc's own table (its debug file's, when installed, spells versions into
 * names): none of its names, as looked up, keeps one. */
static void test_libc_unversioned(void **state)
{
	static const char *const names[] = {"__libc_start_main", "memcpy", "clock_gettime",
	                                    "pthread_kill", "qsort"};
	struct symbols *s = *state;
	void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);

	assert_non_null(libc);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *addr = dlsym(libc, names[i]);
		struct symbols_result r;

		if (!addr)
			continue;
		assert_int_equal(symbols_resolve(s, getpid(), (uintptr_t)addr, false, &r), 0);
		assert_int_equal(r.status, SYMBOLS_FOUND);
		if (strchr(r.name, '@'))
			fail_msg("%s is named %s", names[i], r.name);
	}
	dlclose(libc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_name_is),
	    cmocka_unit_test_setup_teardown(test_versions_stripped, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plt_x86_64, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plt_sec, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plt_aarch64, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_plt_hostile, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_own_plt_like_objdump, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_libc_unversioned, setup, teardown),
	};
	char cache[PATH_MAX + 16], rm[PATH_MAX + 16];
	int ret;

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_symbol_names.XXXXXX");
	if (!mkdtemp(tmpdir))
		return 1;
	/* tables read here are not cached in the user's cache directory */
	snprintf(cache, sizeof(cache), "%s/cache", tmpdir);
	setenv("XDG_CACHE_HOME", cache, 1);
	setenv("PFMTOP_NO_KSYM_CACHE", "1", 1);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", tmpdir);
	if (system(rm))
		ret = ret ? ret : 1;
	return ret;
}
