/* gen_annotate_seeds DIR ELF: fuzz_annotate's seeds: ELF (built -O1 -g) with its divloop, and a kcore image. */
#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void header(FILE *f, int mode, uint64_t start, uint64_t size)
{
	fputc(mode, f);
	for (int i = 0; i < 8; i++)
		fputc((int)(start >> (8 * i) & 0xff), f);
	for (int i = 0; i < 8; i++)
		fputc((int)(size >> (8 * i) & 0xff), f);
}

/* divloop's start and size from the ELF's .symtab. */
static int find(const char *path, uint64_t *start, uint64_t *size)
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

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *n;

			if (gelf_getsym(d, (int)i, &s) && (n = elf_strptr(elf, sh.sh_link, s.st_name)) &&
			    !strcmp(n, "divloop")) {
				*start = s.st_value;
				*size = s.st_size;
			}
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return *size ? 0 : -1;
}

static int seed(const char *dir, int n, int mode, uint64_t start, uint64_t size, const void *body,
                size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%02d", dir, n);
	f = fopen(path, "w");
	if (!f)
		return -1;
	header(f, mode, start, size);
	fwrite(body, 1, len, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	static const unsigned char code[] = {0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x75, 0xfc, 0x5d, 0xc3};
	const uint64_t at = 0xffffffff81000000ull;
	uint64_t start = 0, size = 0;
	struct {
		Elf64_Ehdr e;
		Elf64_Phdr ph;
		unsigned char body[32];
	} core;
	char *buf;
	long len;
	FILE *f;

	if (argc != 3 || find(argv[2], &start, &size) || !(f = fopen(argv[2], "r")) ||
	    fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)len)) || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "usage: gen_annotate_seeds DIR ELF (with a divloop symbol)\n");
		return 1;
	}
	fclose(f);
	memset(&core, 0, sizeof(core));
	memcpy(core.e.e_ident, ELFMAG, SELFMAG);
	core.e.e_ident[EI_CLASS] = ELFCLASS64;
	core.e.e_ident[EI_DATA] = ELFDATA2LSB;
	core.e.e_type = ET_CORE;
	core.e.e_machine = EM_X86_64;
	core.e.e_phoff = offsetof(__typeof__(core), ph);
	core.e.e_phentsize = sizeof(Elf64_Phdr);
	core.e.e_phnum = 1;
	core.ph = (Elf64_Phdr){.p_type = PT_LOAD,
	                       .p_offset = offsetof(__typeof__(core), body),
	                       .p_vaddr = at,
	                       .p_filesz = sizeof(core.body)};
	memcpy(core.body, code, sizeof(code));
	if (seed(argv[1], 0, 0, start, size, buf, (size_t)len) ||
	    seed(argv[1], 1, 2, start, size, buf, (size_t)len) ||
	    seed(argv[1], 2, 1, at, sizeof(code), &core, sizeof(core)))
		return 1;
	free(buf);
	return 0;
}
