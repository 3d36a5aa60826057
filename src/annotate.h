/* annotate: one function's machine code, disassembled, with its samples per instruction. */
#ifndef PFMTOP_ANNOTATE_H
#define PFMTOP_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Like perf annotate: the code of one function is read from the ELF file on
 * disk (a user function) or from /proc/kcore (a kernel function, root
 * only), disassembled with capstone (AT&T syntax on x86, like objdump and
 * perf), and each instruction gets its share of the function's samples.
 * Where the binary or its separate debug file has DWARF line tables
 * (libdw), the source lines are put between the instructions, with their
 * text when the source file can be read (a regular file, named by an
 * absolute path that is not a symbolic link, owned by root or
 * by the binary's owner). Jumps and calls whose target is inside the
 * function carry the index of the target's line, so that a viewer can
 * follow them.
 *
 * The ELF file, its DWARF, the source files and kcore are all read as
 * hostile input: every offset and size is checked, functions are cut at
 * ANNOTATE_MAX_BYTES, files are opened only when they are regular, and the
 * text of every line is safe to print (untrusted_text()).
 *
 * The binary is checked against the mapping's build id when the caller
 * knows it: a binary replaced or deleted since it was mapped shows no
 * code, only why (annotate.why), never wrong code.
 */

#define ANNOTATE_MAX_BYTES (256u * 1024) /* longer functions are cut (annotate.truncated) */
#define ANNOTATE_TEXT      192           /* bytes of a line's text */
#define ANNOTATE_BUILD_ID  64            /* longest build id taken */
#define ANNOTATE_MAX_LINES (1 << 20)     /* lines of one function, at most */
#define ANNOTATE_WHY       512

enum annotate_kind {
	ANNOTATE_INSN,   /* an instruction */
	ANNOTATE_SOURCE, /* "file.c:12  the source line" before its instructions */
};

struct annotate_line {
	enum annotate_kind kind;
	uint64_t addr; /* INSN: its address in the file's addresses (kernel: the running one) */
	uint64_t weight, samples;
	double share; /* percent of the function's weight, 0..100 */
	int target;   /* INSN: the line a jump or call inside the function goes to, else -1 */
	char text[ANNOTATE_TEXT];
};

/* What to annotate. */
struct annotate_func {
	const char *file;     /* the binary (ELF) as the symbolizer read it; NULL for the kernel */
	const char *debug;    /* its separate debug file, NULL or "": the binary's own DWARF */
	uint64_t start, size; /* the function, in the file's addresses (kernel: the running ones) */
	uint64_t bias;        /* a running address is a file address plus bias */
	/* The build id of the file the process mapped, when known (0 bytes:
	 * unknown; the code is then read unchecked, and the header says so). */
	unsigned char build_id[ANNOTATE_BUILD_ID];
	size_t build_id_len;
	bool replaced;     /* the file at that path is known not to be the one mapped */
	const char *note;  /* said with the check, e.g. how file relates to the mapped one */
	bool deleted;      /* the mapped file was deleted */
	bool kernel;       /* read the code from kcore */
	const char *kcore; /* NULL: /proc/kcore */
	bool no_source;    /* leave the source lines out */
};

/* The result: lines in address order, source lines before their code. */
struct annotate {
	struct annotate_line *lines;
	int nr, cap;
	int *insn; /* indices of the INSN lines, in address order */
	int nr_insn;
	int hottest;              /* the INSN line with the most weight, -1 with no samples */
	uint64_t start, end;      /* the function's [start, end) in the file's addresses */
	uint64_t bias;            /* as given */
	uint64_t weight, samples; /* counted on its instructions */
	uint64_t stray;           /* samples that fell inside an instruction, not at its start */
	uint64_t outside;         /* samples outside [start, end) (not counted) */
	bool truncated;           /* longer than ANNOTATE_MAX_BYTES: the rest is left out */
	bool has_source;          /* DWARF line tables were found */
	char check[ANNOTATE_WHY]; /* how the code was checked ("build-id 1a2b... matches") */
	char why[ANNOTATE_WHY];   /* no code (nr 0): why, in one sentence */
};

/* One sampled address (a running address) and its tallies. */
struct annotate_sample {
	uint64_t ip;
	uint64_t weight, samples;
};

/*
 * Read and disassemble f into a (zeroed or freed first; annotate_free()
 * it in any case). Returns 0 with the lines, or -errno with a->why saying
 * why there is no code: the file cannot be opened or is not ELF for a
 * known machine, the function is not inside a loaded segment, the build
 * id differs from the mapping's, kcore is not readable.
 */
int annotate_load(struct annotate *a, const struct annotate_func *f);

/* Set every line's samples from s[0..n) (replacing earlier counts), the
 * shares, the totals and the hottest line. */
void annotate_count(struct annotate *a, const struct annotate_sample *s, size_t n);

/* The INSN line at or holding file address addr, or -1. */
int annotate_find(const struct annotate *a, uint64_t addr);

/*
 * Write a as text: a title line (caller's), the check, the samples, then
 * "PERCENT ADDRESS: INSTRUCTION" per line, source lines indented, the
 * hottest instruction marked with '>' in the first column and "<- hottest"
 * at the end, a jump's target line given as "-> ADDRESS". Text in a is
 * already safe.
 */
void annotate_print(FILE *f, const struct annotate *a);

void annotate_free(struct annotate *a);

/* The build id of the file at path, into id (len bytes): its length, 0
 * when it has none (or is no ELF file), -errno when it cannot be opened. */
int annotate_file_build_id(const char *path, unsigned char *id, size_t len);

#endif
