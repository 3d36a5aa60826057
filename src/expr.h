/* expr: metric expressions over event names, compiled once to RPN and evaluated per row. */
#ifndef PFMTOP_EXPR_H
#define PFMTOP_EXPR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Grammar (whitespace between tokens is ignored):
 *
 *   expr    := term { ('+' | '-') term }
 *   term    := unary { ('*' | '/') unary }
 *   unary   := ('-' | '+') unary | primary
 *   primary := NUMBER | NAME | FUNC '(' expr { ',' expr } ')' | '(' expr ')'
 *
 *   NUMBER  := digits [ '.' digits ] [ ('e' | 'E') [ '+' | '-' ] digits ]
 *              or '.' digits [...]; decimal only, independent of the locale
 *   NAME    := bare name: [A-Za-z_][A-Za-z0-9_]* { [.:-]+ [A-Za-z0-9_]+ }
 *              so cache-misses, L1-dcache-load-misses, sched:sched_switch and
 *              pmu::EVENT:UMASK are single names; a '-' only subtracts when
 *              it is not followed by a letter, digit or '_' (write a - b);
 *            | `quoted name`: anything but '`' and newline, for sysfs names
 *              such as `msr/tsc/` or `cpu/event=0x3c,umask=0x0/`
 *   FUNC    := ratio (2 arguments), min, max (1 or more arguments)
 *
 * Evaluation: every name stands for a value supplied by the caller; NaN means
 * "not available". Any NaN operand gives NaN; a / 0 and ratio(a, 0) give NaN
 * (never an infinity); min and max are NaN when any argument is. An infinite
 * name value or an overflowing result is NaN too, so the result is always
 * finite or NaN. There are no conditionals.
 */

#define EXPR_OPS_MAX   64  /* operations (numbers, names, operators) */
#define EXPR_VARS_MAX  16  /* distinct names */
#define EXPR_NAME_MAX  128 /* longest name + 1 (same as EVENTS_NAME_MAX) */
#define EXPR_DEPTH_MAX 32  /* nesting of parentheses, calls and unary signs */

enum expr_opcode {
	EXPR_OP_NUM, /* push num */
	EXPR_OP_VAR, /* push the value of name var */
	EXPR_OP_NEG,
	EXPR_OP_ADD,
	EXPR_OP_SUB,
	EXPR_OP_MUL,
	EXPR_OP_DIV,
	EXPR_OP_RATIO, /* 2 arguments */
	EXPR_OP_MIN,   /* argc arguments */
	EXPR_OP_MAX,   /* argc arguments */
};

struct expr_op {
	unsigned char code; /* enum expr_opcode */
	unsigned char argc; /* arguments taken from the stack */
	short var;          /* EXPR_OP_VAR: index into expr.var */
	int col;            /* 1-based byte column of the token in the source */
	double num;         /* EXPR_OP_NUM */
};

/* A compiled expression. Plain data: copy it freely, nothing to free. */
struct expr {
	int nr_ops;
	struct expr_op op[EXPR_OPS_MAX]; /* reverse Polish order */
	int nr_vars;
	char var[EXPR_VARS_MAX][EXPR_NAME_MAX]; /* distinct names, in order of first use */
	int var_col[EXPR_VARS_MAX];             /* column of each name's first use */
	int depth;                              /* evaluation stack needed */
};

struct expr_error {
	int col; /* 1-based byte column in the source; one past the end for "unexpected end" */
	char msg[160];
};

/* Compile src into *e. Returns 0, or -EINVAL with err->col and err->msg set
 * (syntax error, unknown function, wrong number of arguments, too long or too
 * deeply nested). *e is unspecified on failure. */
int expr_compile(const char *src, struct expr *e, struct expr_error *err);

/* Supplies the value of name number var (its text is name); NaN = not
 * available. */
typedef double (*expr_lookup_fn)(int var, const char *name, void *arg);

/* Evaluate e; calls lookup once per name use. Returns a finite value or NaN. */
double expr_eval(const struct expr *e, expr_lookup_fn lookup, void *arg);

/* Check every name with known(); returns 0, or -ENOENT with err set to
 * "unknown event 'NAME'" at the column of the first use of the first name
 * known() rejects (in source order). */
int expr_check(const struct expr *e, bool (*known)(const char *name, void *arg), void *arg,
               struct expr_error *err);

/* Replace the text of name var by name (the evaluation order is unchanged).
 * 0, -EINVAL (var out of range) or -ENAMETOOLONG. Two vars may end up with
 * the same text; evaluation still works. */
int expr_rename(struct expr *e, int var, const char *name);

/* Index of the name spelled name, or -1. */
int expr_find_var(const struct expr *e, const char *name);

/* Write e back as canonical source text ("100 * cache-misses / instructions",
 * names quoted with backquotes when they are not bare names, parentheses only
 * where needed); compiling it gives the same expression. Returns 0, or
 * -ENOSPC when buf is too small (buf then holds a truncated, NUL-terminated
 * prefix). */
int expr_format(const struct expr *e, char *buf, size_t len);

/* True when name can be written bare in an expression (else it needs
 * backquotes). */
bool expr_is_bare_name(const char *name);

/*
 * Format an error the way compilers do, into buf (always NUL-terminated):
 *
 *   file:line:col: message
 *       <src_line>
 *       <spaces or tabs>^
 *
 * file may be NULL (omitted), line 0 (omitted), col 0 (no column and no caret
 * line), src_line NULL (no source and caret lines). The caret line copies the
 * tabs of src_line so that it lines up, and counts a UTF-8 character as one
 * column of width. Lines end in '\n'. Returns the length it wanted (like
 * snprintf).
 */
int expr_error_format(char *buf, size_t len, const char *file, int line, int col, const char *msg,
                      const char *src_line);

#endif
