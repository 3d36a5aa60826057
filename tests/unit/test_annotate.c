/* test_annotate: disassembly, source lines, jump targets, shares, build-id checks, kcore, hostile files, watches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "annotate.h"
#include "hotspots.h"
#include "symbols.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A program with a known loop, built -O1 -g into a temporary directory. */
static const char prog_src[] = "int hot(int n);\n"
                               "int hot(int n)\n"
                               "{\n"
                               "\tint s = 0;\n"
                               "\tfor (int i = 0; i < n; i++)\n"
                               "\t\ts += i * i;\n"
                               "\treturn s;\n"
                               "}\n"
                               "int main(int argc, char **argv)\n"
                               "{\n"
                               "\treturn hot(argc);\n"
                               "}\n";

struct fixture {
	char dir[64];
	char bin[128];
	char src[128];
	uint64_t start, size; /* hot() */
	unsigned char id[64];
	size_t idlen;
};

static struct fixture fx;

/* hot()'s symbol and the build id, with libelf. */
static int read_elf(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(d = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				const char *n;

				if (gelf_getsym(d, (int)i, &s) &&
				    (n = elf_strptr(elf, sh.sh_link, s.st_name)) && !strcmp(n, "hot")) {
					fx.start = s.st_value;
					fx.size = s.st_size;
				}
			}
		} else if (sh.sh_type == SHT_NOTE) {
			GElf_Nhdr nh;
			size_t off = 0, name, desc;

			while ((off = gelf_getnote(d, off, &nh, &name, &desc)))
				if (nh.n_type == NT_GNU_BUILD_ID && nh.n_descsz <= sizeof(fx.id)) {
					memcpy(fx.id, (char *)d->d_buf + desc, nh.n_descsz);
					fx.idlen = nh.n_descsz;
				}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return fx.start && fx.size ? 0 : -1;
}

static int setup(void **state)
{
	char cmd[512];
	FILE *f;

	snprintf(fx.dir, sizeof(fx.dir), "/tmp/pfmtop-annotate-XXXXXX");
	if (!mkdtemp(fx.dir))
		return -1;
	snprintf(fx.src, sizeof(fx.src), "%s/prog.c", fx.dir);
	snprintf(fx.bin, sizeof(fx.bin), "%s/prog", fx.dir);
	f = fopen(fx.src, "w");
	if (!f)
		return -1;
	fputs(prog_src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -O1 -g -fno-inline -Wl,--build-id -o %s %s", fx.bin, fx.src);
	if (system(cmd))
		return -1;
	return read_elf(fx.bin);
}

static int teardown(void **state)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx.dir);
	return system(cmd) ? -1 : 0;
}

static struct annotate_func func(void)
{
	struct annotate_func f = {
	    .file = fx.bin, .start = fx.start, .size = fx.size, .bias = 0x555500000000ull};

	memcpy(f.build_id, fx.id, fx.idlen);
	f.build_id_len = fx.idlen;
	return f;
}

static void test_disassembly(void **state)
{
	struct annotate_func f = func();
	struct annotate a;
	int loops = 0, insns = 0, src = 0;

	assert_int_equal(annotate_load(&a, &f), 0);
	assert_true(a.nr > 0);
	assert_true(strstr(a.check, "matches") != NULL);
	/* the first line of code is the function's first byte */
	assert_int_equal(a.lines[a.insn[0]].addr, fx.start);
	for (int i = 0; i < a.nr; i++) {
		const struct annotate_line *l = &a.lines[i];

		if (l->kind == ANNOTATE_SOURCE) {
			src++;
			assert_non_null(strstr(l->text, "prog.c:"));
			continue;
		}
		insns++;
		assert_true(l->addr >= fx.start && l->addr < fx.start + fx.size);
		/* the loop's branch back, and its target line an instruction before it */
		if (l->target >= 0) {
			assert_int_equal(a.lines[l->target].kind, ANNOTATE_INSN);
			assert_true(a.lines[l->target].addr >= fx.start);
			if (a.lines[l->target].addr < l->addr)
				loops++;
		}
	}
	assert_int_equal(insns, a.nr_insn);
	assert_true(a.has_source);
	assert_true(src >= 2);
	assert_true(loops >= 1);
	/* the source text is shown (the file is ours) */
	bool body = false;
	for (int i = 0; i < a.nr; i++)
		body |= a.lines[i].kind == ANNOTATE_SOURCE && strstr(a.lines[i].text, "s += i * i");
	assert_true(body);
	annotate_free(&a);
}

static void test_counts(void **state)
{
	struct annotate_func f = func();
	struct annotate a;

	assert_int_equal(annotate_load(&a, &f), 0);
	assert_true(a.nr_insn >= 3);
	uint64_t i1 = a.lines[a.insn[1]].addr, i2 = a.lines[a.insn[2]].addr;
	struct annotate_sample s[] = {
	    {i1 + f.bias, 300, 3},           /* 75% of the weight */
	    {i2 + f.bias, 100, 1},           /* 25% */
	    {fx.start + fx.size + f.bias, 50, 5}, /* outside: not counted */
	};
	annotate_count(&a, s, 3);
	assert_int_equal(a.samples, 4);
	assert_int_equal(a.weight, 400);
	assert_int_equal(a.outside, 5);
	assert_int_equal(a.hottest, a.insn[1]);
	assert_true(a.lines[a.insn[1]].share > 74.99 && a.lines[a.insn[1]].share < 75.01);
	assert_true(a.lines[a.insn[2]].share > 24.99 && a.lines[a.insn[2]].share < 25.01);
	/* counted again: replaced, not added */
	annotate_count(&a, s, 1);
	assert_int_equal(a.samples, 3);
	assert_true(a.lines[a.insn[1]].share > 99.99);
	assert_int_equal(a.lines[a.insn[2]].samples, 0);
	/* inside an instruction (when it is longer than a byte): its own, counted as stray */
	for (int k = 0; k + 1 < a.nr_insn; k++) {
		uint64_t at = a.lines[a.insn[k]].addr;
		if (a.lines[a.insn[k + 1]].addr - at > 1) {
			struct annotate_sample mid = {at + 1 + f.bias, 1, 1};
			annotate_count(&a, &mid, 1);
			assert_int_equal(a.stray, 1);
			assert_int_equal(a.hottest, a.insn[k]);
			break;
		}
	}
	/* the text has the hottest marked */
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	annotate_count(&a, s, 2);
	annotate_print(out, &a);
	fclose(out);
	assert_non_null(strstr(buf, "<- hottest"));
	assert_non_null(strstr(buf, "\n>   75.00"));
	free(buf);
	annotate_free(&a);
}

static void test_build_id_mismatch(void **state)
{
	struct annotate_func f = func();
	struct annotate a;

	f.build_id[0] ^= 0xff;
	assert_int_equal(annotate_load(&a, &f), -ESTALE);
	assert_int_equal(a.nr, 0);
	assert_non_null(strstr(a.why, "replaced since it was mapped"));
	annotate_free(&a);

	f = func();
	f.replaced = true;
	assert_int_equal(annotate_load(&a, &f), -ESTALE);
	assert_non_null(strstr(a.why, "replaced"));
	annotate_free(&a);

	f = func();
	f.deleted = true;
	assert_int_equal(annotate_load(&a, &f), -ESTALE);
	assert_non_null(strstr(a.why, "deleted"));
	annotate_free(&a);

	/* unknown: read, and said */
	f = func();
	f.build_id_len = 0;
	assert_int_equal(annotate_load(&a, &f), 0);
	assert_non_null(strstr(a.check, "not known"));
	annotate_free(&a);
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static void test_hostile_files(void **state)
{
	char path[160];
	struct annotate_func f = func();
	struct annotate a;
	unsigned char junk[4096];

	/* not ELF */
	snprintf(path, sizeof(path), "%s/junk", fx.dir);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 131 + 7);
	write_file(path, junk, sizeof(junk));
	f.file = path;
	assert_true(annotate_load(&a, &f) < 0);
	assert_true(a.why[0]);
	annotate_free(&a);

	/* the ELF cut short after its headers: the code is not there */
	FILE *in = fopen(fx.bin, "r");
	size_t n = fread(junk, 1, 1024, in);
	fclose(in);
	snprintf(path, sizeof(path), "%s/short", fx.dir);
	write_file(path, junk, n);
	f = func();
	f.file = path;
	f.build_id_len = 0;
	assert_true(annotate_load(&a, &f) < 0);
	annotate_free(&a);

	/* a function outside every segment, of no size, far too big */
	f = func();
	f.start = 0x7fffffff0000ull;
	assert_int_equal(annotate_load(&a, &f), -ERANGE);
	annotate_free(&a);
	f = func();
	f.size = 0;
	assert_int_equal(annotate_load(&a, &f), -EINVAL);
	annotate_free(&a);
	f = func();
	f.start = UINT64_MAX - 4;
	f.size = 64;
	assert_true(annotate_load(&a, &f) < 0);
	annotate_free(&a);
	f = func();
	f.size = 1ull << 40; /* cut, and not in a segment then */
	assert_true(annotate_load(&a, &f) < 0);
	annotate_free(&a);

	/* not a regular file; missing */
	f = func();
	f.file = fx.dir;
	assert_true(annotate_load(&a, &f) < 0);
	annotate_free(&a);
	snprintf(path, sizeof(path), "%s/none", fx.dir);
	f.file = path;
	assert_int_equal(annotate_load(&a, &f), -ENOENT);
	assert_non_null(strstr(a.why, "deleted since it was mapped?"));
	annotate_free(&a);
}

/* A fake kcore: an ELF64 core whose one PT_LOAD holds a little code at a
 * kernel address. */
static void test_kcore(void **state)
{
	static const unsigned char code[] = {0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0,
	                                     0x75, 0xfc, 0x5d, 0xc3}; /* jne back to xor */
	const uint64_t at = 0xffffffff81000000ull;
	struct {
		Elf64_Ehdr e;
		Elf64_Phdr ph[2];
		unsigned char body[64];
	} core;
	char path[160];
	struct annotate_func f = {.kernel = true, .start = at + 16, .size = sizeof(code)};
	struct annotate a;

	memset(&core, 0, sizeof(core));
	memcpy(core.e.e_ident, ELFMAG, SELFMAG);
	core.e.e_ident[EI_CLASS] = ELFCLASS64;
	core.e.e_ident[EI_DATA] = ELFDATA2LSB;
	core.e.e_ident[EI_VERSION] = EV_CURRENT;
	core.e.e_type = ET_CORE;
	core.e.e_machine = EM_X86_64;
	core.e.e_phoff = offsetof(__typeof__(core), ph);
	core.e.e_phentsize = sizeof(Elf64_Phdr);
	core.e.e_phnum = 2;
	core.ph[0].p_type = PT_NOTE;
	core.ph[1] = (Elf64_Phdr){.p_type = PT_LOAD,
	                          .p_offset = offsetof(__typeof__(core), body),
	                          .p_vaddr = at,
	                          .p_filesz = sizeof(core.body),
	                          .p_memsz = sizeof(core.body)};
	memcpy(core.body + 16, code, sizeof(code));
	snprintf(path, sizeof(path), "%s/kcore", fx.dir);
	write_file(path, &core, sizeof(core));
	f.kcore = path;
	assert_int_equal(annotate_load(&a, &f), 0);
	assert_int_equal(a.nr_insn, 6);
	assert_int_equal(a.lines[a.insn[0]].addr, at + 16);
	assert_non_null(strstr(a.lines[a.insn[0]].text, "push"));
	/* jne -4 from at+16+8 goes to at+16+4: the xor */
	assert_int_equal(a.lines[a.insn[3]].target, a.insn[2]);
	assert_non_null(strstr(a.check, "kcore"));
	annotate_free(&a);

	/* past the segment's end: said, not read */
	f.start = at + 60;
	assert_true(annotate_load(&a, &f) < 0);
	assert_non_null(strstr(a.why, "not in"));
	annotate_free(&a);

	/* a kcore with a bad header, and none at all */
	core.e.e_phnum = 60000;
	write_file(path, &core, sizeof(core));
	f.start = at + 16;
	assert_int_equal(annotate_load(&a, &f), -ENOEXEC);
	annotate_free(&a);
	snprintf(path, sizeof(path), "%s/no-kcore", fx.dir);
	assert_int_equal(annotate_load(&a, &f), -ENOENT);
	assert_non_null(strstr(a.why, "CONFIG_PROC_KCORE"));
	annotate_free(&a);
}

/* ---- the symbolizer's answer, end to end, in this very process ---- */

int annotate_probe(int n);
__attribute__((noinline)) int annotate_probe(int n)
{
	int s = 1;

	for (int i = 0; i < n; i++)
		s = s * 7 + i;
	return s;
}

static void test_own_function(void **state)
{
	struct symbols *s = symbols_new();
	struct symbols_code *c = calloc(1, sizeof(*c));
	const uintptr_t fn = (uintptr_t)annotate_probe;
	struct annotate_func f = {0};
	struct annotate a;

	assert_non_null(s);
	assert_non_null(c);
	assert_true(annotate_probe(3) != 0);
	assert_int_equal(symbols_process_scan(s, getpid()), 0);
	assert_int_equal(symbols_code(s, getpid(), fn + 2, false, c), 0);
	assert_string_equal(c->sym.name, "annotate_probe");
	assert_int_equal(c->start + c->bias, fn);
	assert_true(c->size > 0 && c->build_id_len > 0);
	assert_false(c->replaced || c->deleted);
	f.file = c->file;
	f.debug = c->debug;
	f.start = c->start;
	f.size = c->size;
	f.bias = c->bias;
	memcpy(f.build_id, c->build_id, c->build_id_len);
	f.build_id_len = c->build_id_len;
	assert_int_equal(annotate_load(&a, &f), 0);
	assert_non_null(strstr(a.check, "matches"));
	/* the code read from the file is the code that runs here: the same
	 * first instruction at the same address */
	assert_int_equal(a.lines[a.insn[0]].addr + a.bias, fn);
	/* a sample at the function's running address counts on its first line */
	struct annotate_sample smp = {fn, 1, 1};
	annotate_count(&a, &smp, 1);
	assert_int_equal(a.hottest, a.insn[0]);
	/* this file's lines, when the test is built with -g */
	if (a.has_source) {
		bool ours = false;
		for (int i = 0; i < a.nr; i++)
			ours |= a.lines[i].kind == ANNOTATE_SOURCE && strstr(a.lines[i].text, "test_annotate.c:");
		assert_true(ours);
	}
	annotate_free(&a);
	/* no function: said */
	assert_int_equal(symbols_code(s, getpid(), 8, false, c), -ENOENT);
	free(c);
	symbols_free(s);
}

/* ---- hotspots watches ---- */

#define U RECORDS_CPUMODE_USER
#define K RECORDS_CPUMODE_KERNEL

static uint64_t watched_samples(const struct hotspots *h, int w, uint64_t ip)
{
	struct hotspots_watch_ip v[HOTSPOTS_WATCH_IPS];
	size_t n = hotspots_watch_ips(h, w, v, HOTSPOTS_WATCH_IPS);

	for (size_t i = 0; i < n; i++)
		if (v[i].ip == ip)
			return v[i].samples;
	return 0;
}

static void test_watch(void **state)
{
	struct hotspots h;
	int w, k;

	assert_int_equal(hotspots_init(&h, 0, 0, 0), 0);
	/* before the watch: counted in from the table */
	hotspots_add(&h, 10, 10, 0x1000, U, 0, 1);
	hotspots_add(&h, 10, 10, 0x1004, U, 1, 1);
	hotspots_add(&h, 11, 11, 0x1004, U, 0, 1); /* another process */
	w = hotspots_watch(&h, 10, false, 0x1000, 0x1010);
	assert_true(w >= 0);
	assert_false(h.watch[w].partial);
	assert_int_equal(watched_samples(&h, w, 0x1000), 1);
	assert_int_equal(watched_samples(&h, w, 0x1004), 1);
	/* after: every sample in range of that pid, user mode only */
	hotspots_add(&h, 10, 12, 0x1004, U, 0, 3);
	hotspots_add(&h, 10, 10, 0x1010, U, 0, 1); /* past the end */
	hotspots_add(&h, 10, 10, 0x1008, K, 0, 1); /* kernel */
	hotspots_add(&h, 11, 11, 0x1008, U, 0, 1); /* other pid */
	assert_int_equal(watched_samples(&h, w, 0x1004), 2);
	assert_int_equal(h.watch[w].samples, 3);
	assert_int_equal(h.watch[w].weight, 5);
	/* the same range is the same watch; a kernel one takes every pid */
	assert_int_equal(hotspots_watch(&h, 10, false, 0x1000, 0x1010), w);
	k = hotspots_watch(&h, 0, true, 0x1000, 0x1010);
	assert_true(k >= 0 && k != w);
	assert_int_equal(watched_samples(&h, k, 0x1008), 1);
	hotspots_add(&h, 99, 99, 0x1008, K, 0, 1);
	assert_int_equal(watched_samples(&h, k, 0x1008), 2);
	/* bounded: addresses past the cap go to the overflow */
	int big = hotspots_watch(&h, 7, false, 0, 1u << 20);
	for (uint64_t ip = 0; ip < 2 * HOTSPOTS_WATCH_IPS; ip++)
		hotspots_add(&h, 7, 7, ip, U, 0, 1);
	assert_true(h.watch[big].nr < HOTSPOTS_WATCH_IPS);
	assert_true(h.watch[big].overflow > 0);
	assert_int_equal(h.watch[big].samples, 2 * HOTSPOTS_WATCH_IPS);
	/* no more than HOTSPOTS_MAX_WATCH at once; bad ranges refused */
	int got = 0;
	for (int i = 0; i < 2 * HOTSPOTS_MAX_WATCH; i++)
		got += hotspots_watch(&h, 1000 + i, false, 0, 16) >= 0;
	assert_int_equal(got, HOTSPOTS_MAX_WATCH - 3);
	assert_int_equal(hotspots_watch(&h, 5000, false, 0, 16), -ENOSPC);
	hotspots_unwatch(&h, w);
	assert_int_equal(hotspots_watch(&h, 1, false, 16, 16), -EINVAL);
	assert_true(hotspots_watch(&h, 5000, false, 0, 16) >= 0);
	/* a table that has folded keys cannot give the past exactly */
	hotspots_unwatch(&h, k);
	hotspots_clear(&h);
	h.folded = 1;
	w = hotspots_watch(&h, 10, false, 0x9000, 0x9010);
	assert_true(w >= 0);
	assert_true(h.watch[w].partial);
	hotspots_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_disassembly), cmocka_unit_test(test_counts),
	    cmocka_unit_test(test_build_id_mismatch), cmocka_unit_test(test_hostile_files),
	    cmocka_unit_test(test_kcore), cmocka_unit_test(test_own_function),
	    cmocka_unit_test(test_watch),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
