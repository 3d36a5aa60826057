/* expr: metric expressions: a recursive-descent compiler to RPN, an evaluator and a printer. */
#include "expr.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tok {
	TOK_END,
	TOK_NUM,
	TOK_NAME,  /* bare name */
	TOK_QNAME, /* `quoted name` */
	TOK_PLUS,
	TOK_MINUS,
	TOK_STAR,
	TOK_SLASH,
	TOK_LPAREN,
	TOK_RPAREN,
	TOK_COMMA,
};

struct token {
	enum tok kind;
	size_t pos; /* offset of the first character */
	double num;
	char name[EXPR_NAME_MAX];
};

struct parser {
	const char *src;
	size_t pos; /* where the lexer continues */
	struct token tok;
	struct expr *e;
	struct expr_error *err;
	int depth;
	int sp; /* simulated evaluation stack */
	bool failed;
};

static const struct {
	const char *name;
	enum expr_opcode code;
	int min_args, max_args;
} funcs[] = {
    {"ratio", EXPR_OP_RATIO, 2, 2},
    {"min", EXPR_OP_MIN, 1, 255},
    {"max", EXPR_OP_MAX, 1, 255},
};

#define NR_FUNCS (sizeof(funcs) / sizeof(funcs[0]))

/* ---- numbers, independent of LC_NUMERIC ---- */

static locale_t c_numeric(void)
{
	static locale_t loc;

	if (!loc)
		loc = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	return loc;
}

static double parse_double(const char *s)
{
	locale_t loc = c_numeric();

	return loc ? strtod_l(s, NULL, loc) : strtod(s, NULL);
}

/* Shortest of %.15g/%.16g/%.17g that reads back as v, in the C locale. */
static void format_double(double v, char *buf, size_t len)
{
	locale_t loc = c_numeric(), old = loc ? uselocale(loc) : (locale_t)0;

	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (parse_double(buf) == v)
			break;
	}
	if (loc)
		uselocale(old);
}

/* ---- errors ---- */

__attribute__((format(printf, 3, 4))) static int fail(struct parser *p, size_t pos, const char *fmt,
                                                      ...)
{
	va_list ap;

	if (p->failed)
		return -EINVAL;
	p->failed = true;
	p->err->col = (int)pos + 1;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ---- lexer ---- */

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_punct(char c)
{
	return c == '.' || c == ':' || c == '-';
}

/* Length of the bare name at s, 0 when s does not start one. */
static size_t bare_name_len(const char *s)
{
	size_t i = 0, j;

	if (!is_alnum(s[0]) || is_digit(s[0]))
		return 0;
	while (is_alnum(s[i]))
		i++;
	for (;;) {
		for (j = i; is_punct(s[j]); j++)
			;
		if (j == i || !is_alnum(s[j]))
			return i;
		for (i = j; is_alnum(s[i]); i++)
			;
	}
}

bool expr_is_bare_name(const char *name)
{
	size_t n = bare_name_len(name);

	return n && !name[n];
}

static int lex_number(struct parser *p, size_t start)
{
	const char *s = p->src;
	size_t i = start;
	char buf[64];

	while (is_digit(s[i]))
		i++;
	if (s[i] == '.') {
		i++;
		while (is_digit(s[i]))
			i++;
	}
	if ((s[i] == 'e' || s[i] == 'E') &&
	    (is_digit(s[i + 1]) || ((s[i + 1] == '+' || s[i + 1] == '-') && is_digit(s[i + 2])))) {
		i += 2;
		while (is_digit(s[i]))
			i++;
	}
	if (is_alnum(s[i]) || s[i] == '.')
		return fail(p, start, "malformed number");
	if (i - start >= sizeof(buf))
		return fail(p, start, "number too long");
	memcpy(buf, s + start, i - start);
	buf[i - start] = '\0';
	p->tok.num = parse_double(buf);
	if (!isfinite(p->tok.num))
		return fail(p, start, "number out of range");
	p->tok.kind = TOK_NUM;
	p->pos = i;
	return 0;
}

static int lex_quoted(struct parser *p, size_t start)
{
	const char *s = p->src, *end;
	size_t n;

	end = strpbrk(s + start + 1, "`\n");
	if (!end || *end != '`')
		return fail(p, start, "unterminated quoted name (missing closing '`')");
	n = (size_t)(end - (s + start + 1));
	if (!n)
		return fail(p, start, "empty quoted name");
	if (n >= EXPR_NAME_MAX)
		return fail(p, start, "name too long (at most %d characters)", EXPR_NAME_MAX - 1);
	memcpy(p->tok.name, s + start + 1, n);
	p->tok.name[n] = '\0';
	p->tok.kind = TOK_QNAME;
	p->pos = (size_t)(end - s) + 1;
	return 0;
}

/* Read the next token into p->tok. */
static int lex(struct parser *p)
{
	static const char singles[] = "+-*/(),";
	static const enum tok kinds[] = {TOK_PLUS,   TOK_MINUS,  TOK_STAR, TOK_SLASH,
	                                 TOK_LPAREN, TOK_RPAREN, TOK_COMMA};
	const char *s = p->src, *c;
	size_t i = p->pos, n;

	while (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
		i++;
	p->tok.pos = i;
	if (!s[i]) {
		p->tok.kind = TOK_END;
		p->pos = i;
		return 0;
	}
	if (is_digit(s[i]) || (s[i] == '.' && is_digit(s[i + 1])))
		return lex_number(p, i);
	n = bare_name_len(s + i);
	if (n) {
		if (n >= EXPR_NAME_MAX)
			return fail(p, i, "name too long (at most %d characters)",
			            EXPR_NAME_MAX - 1);
		memcpy(p->tok.name, s + i, n);
		p->tok.name[n] = '\0';
		p->tok.kind = TOK_NAME;
		p->pos = i + n;
		return 0;
	}
	if (s[i] == '`')
		return lex_quoted(p, i);
	c = strchr(singles, s[i]);
	if (c) {
		p->tok.kind = kinds[c - singles];
		p->pos = i + 1;
		return 0;
	}
	if (s[i] > ' ' && s[i] < 0x7f)
		return fail(p, i, "unexpected character '%c'", s[i]);
	return fail(p, i, "unexpected byte 0x%02x", (unsigned char)s[i]);
}

/* ---- code generation ---- */

static int emit(struct parser *p, enum expr_opcode code, int argc, size_t pos)
{
	struct expr *e = p->e;
	struct expr_op *op;

	if (e->nr_ops == EXPR_OPS_MAX)
		return fail(p, pos, "expression too long (at most %d operations)", EXPR_OPS_MAX);
	op = &e->op[e->nr_ops++];
	memset(op, 0, sizeof(*op));
	op->code = (unsigned char)code;
	op->argc = (unsigned char)argc;
	op->col = (int)pos + 1;
	if (code == EXPR_OP_NUM || code == EXPR_OP_VAR)
		p->sp++;
	else
		p->sp -= argc - 1;
	if (p->sp > e->depth)
		e->depth = p->sp;
	return 0;
}

static int emit_var(struct parser *p, const char *name, size_t pos)
{
	struct expr *e = p->e;
	int v = expr_find_var(e, name), ret;

	if (v < 0) {
		if (e->nr_vars == EXPR_VARS_MAX)
			return fail(p, pos, "too many distinct names (at most %d)", EXPR_VARS_MAX);
		v = e->nr_vars++;
		snprintf(e->var[v], sizeof(e->var[v]), "%s", name);
		e->var_col[v] = (int)pos + 1;
	}
	ret = emit(p, EXPR_OP_VAR, 0, pos);
	if (!ret)
		e->op[e->nr_ops - 1].var = (short)v;
	return ret;
}

/* ---- parser ---- */

static int parse_expr(struct parser *p);

static const char *tok_text(const struct token *t, char *buf, size_t len)
{
	static const char *const text[] = {
	    [TOK_PLUS] = "'+'",   [TOK_MINUS] = "'-'",  [TOK_STAR] = "'*'",  [TOK_SLASH] = "'/'",
	    [TOK_LPAREN] = "'('", [TOK_RPAREN] = "')'", [TOK_COMMA] = "','",
	};

	switch (t->kind) {
	case TOK_END:
		return "end of expression";
	case TOK_NUM:
		return "number";
	case TOK_NAME:
	case TOK_QNAME:
		snprintf(buf, len, "name '%.60s'", t->name);
		return buf;
	default:
		return text[t->kind];
	}
}

static int unexpected(struct parser *p, const char *expected)
{
	char buf[80];

	return fail(p, p->tok.pos, "unexpected %s, expected %s",
	            tok_text(&p->tok, buf, sizeof(buf)), expected);
}

static int parse_call(struct parser *p, size_t name_pos)
{
	char fname[EXPR_NAME_MAX];
	size_t k, paren_pos;
	int argc = 0, ret;

	snprintf(fname, sizeof(fname), "%s", p->tok.name);
	for (k = 0; k < NR_FUNCS; k++)
		if (!strcmp(funcs[k].name, fname))
			break;
	if (k == NR_FUNCS)
		return fail(p, name_pos, "unknown function '%.60s' (known: ratio, min, max)",
		            fname);
	ret = lex(p); /* the '(' */
	if (ret)
		return ret;
	paren_pos = p->tok.pos;
	ret = lex(p);
	if (ret)
		return ret;
	if (p->tok.kind == TOK_RPAREN)
		return fail(p, name_pos, "%s() takes %s%d argument%s, not 0", fname,
		            funcs[k].min_args == funcs[k].max_args ? "" : "at least ",
		            funcs[k].min_args, funcs[k].min_args == 1 ? "" : "s");
	for (;;) {
		ret = parse_expr(p);
		if (ret)
			return ret;
		argc++;
		if (p->tok.kind == TOK_RPAREN)
			break;
		if (p->tok.kind != TOK_COMMA) {
			char what[48];

			snprintf(what, sizeof(what), "',' or ')' (call at column %zu)",
			         paren_pos + 1);
			return unexpected(p, what);
		}
		ret = lex(p);
		if (ret)
			return ret;
	}
	if (argc < funcs[k].min_args || argc > funcs[k].max_args)
		return fail(p, name_pos, "%s() takes %s%d argument%s, not %d", fname,
		            funcs[k].min_args == funcs[k].max_args ? "" : "at least ",
		            funcs[k].min_args, funcs[k].min_args == 1 ? "" : "s", argc);
	ret = emit(p, funcs[k].code, argc, name_pos);
	return ret ? ret : lex(p);
}

static int parse_primary(struct parser *p)
{
	size_t pos = p->tok.pos;
	int ret;

	switch (p->tok.kind) {
	case TOK_NUM:
		ret = emit(p, EXPR_OP_NUM, 0, pos);
		if (ret)
			return ret;
		p->e->op[p->e->nr_ops - 1].num = p->tok.num;
		return lex(p);
	case TOK_NAME: {
		size_t i = p->pos;

		while (p->src[i] == ' ' || p->src[i] == '\t')
			i++;
		if (p->src[i] == '(')
			return parse_call(p, pos);
		ret = emit_var(p, p->tok.name, pos);
		return ret ? ret : lex(p);
	}
	case TOK_QNAME:
		ret = emit_var(p, p->tok.name, pos);
		return ret ? ret : lex(p);
	case TOK_LPAREN:
		ret = lex(p);
		if (!ret)
			ret = parse_expr(p);
		if (ret)
			return ret;
		if (p->tok.kind != TOK_RPAREN) {
			char what[48];

			snprintf(what, sizeof(what), "')' to close the '(' at column %zu", pos + 1);
			return unexpected(p, what);
		}
		return lex(p);
	default:
		return unexpected(p, "a number, name or '('");
	}
}

static int parse_unary(struct parser *p)
{
	enum tok kind = p->tok.kind;
	size_t pos = p->tok.pos;
	int ret;

	if (++p->depth > EXPR_DEPTH_MAX)
		return fail(p, pos, "expression nested too deeply (at most %d levels)",
		            EXPR_DEPTH_MAX);
	if (kind == TOK_MINUS || kind == TOK_PLUS) {
		ret = lex(p);
		if (!ret)
			ret = parse_unary(p);
		if (!ret && kind == TOK_MINUS)
			ret = emit(p, EXPR_OP_NEG, 1, pos);
	} else {
		ret = parse_primary(p);
	}
	p->depth--;
	return ret;
}

static int parse_term(struct parser *p)
{
	int ret = parse_unary(p);

	while (!ret && (p->tok.kind == TOK_STAR || p->tok.kind == TOK_SLASH)) {
		enum expr_opcode code = p->tok.kind == TOK_STAR ? EXPR_OP_MUL : EXPR_OP_DIV;
		size_t pos = p->tok.pos;

		ret = lex(p);
		if (!ret)
			ret = parse_unary(p);
		if (!ret)
			ret = emit(p, code, 2, pos);
	}
	return ret;
}

static int parse_expr(struct parser *p)
{
	int ret = parse_term(p);

	while (!ret && (p->tok.kind == TOK_PLUS || p->tok.kind == TOK_MINUS)) {
		enum expr_opcode code = p->tok.kind == TOK_PLUS ? EXPR_OP_ADD : EXPR_OP_SUB;
		size_t pos = p->tok.pos;

		ret = lex(p);
		if (!ret)
			ret = parse_term(p);
		if (!ret)
			ret = emit(p, code, 2, pos);
	}
	return ret;
}

int expr_compile(const char *src, struct expr *e, struct expr_error *err)
{
	struct parser p = {.src = src, .e = e, .err = err};
	int ret;

	memset(e, 0, sizeof(*e));
	err->col = 0;
	err->msg[0] = '\0';
	ret = lex(&p);
	if (ret)
		return ret;
	if (p.tok.kind == TOK_END)
		return fail(&p, 0, "empty expression");
	ret = parse_expr(&p);
	if (ret)
		return ret;
	if (p.tok.kind == TOK_RPAREN)
		return fail(&p, p.tok.pos, "unmatched ')'");
	if (p.tok.kind != TOK_END)
		return unexpected(&p, "an operator");
	return 0;
}

/* ---- evaluation ---- */

static double finite_or_nan(double v)
{
	return isfinite(v) ? v : NAN;
}

double expr_eval(const struct expr *e, expr_lookup_fn lookup, void *arg)
{
	double st[EXPR_OPS_MAX], a, b, r;
	int sp = 0;

	for (int i = 0; i < e->nr_ops; i++) {
		const struct expr_op *op = &e->op[i];
		int argc = op->code == EXPR_OP_NUM || op->code == EXPR_OP_VAR ? 0 : op->argc;

		if (argc > sp || (argc == 0 && sp == EXPR_OPS_MAX))
			return NAN; /* not a compiled expression */
		switch (op->code) {
		case EXPR_OP_NUM:
			st[sp++] = op->num;
			continue;
		case EXPR_OP_VAR:
			if (op->var < 0 || op->var >= e->nr_vars)
				return NAN;
			st[sp++] = finite_or_nan(lookup(op->var, e->var[op->var], arg));
			continue;
		case EXPR_OP_NEG:
			st[sp - 1] = -st[sp - 1];
			continue;
		case EXPR_OP_MIN:
		case EXPR_OP_MAX:
			r = st[sp - argc];
			for (int k = sp - argc + 1; k < sp; k++) {
				if (isnan(st[k]) || isnan(r))
					r = NAN;
				else if (op->code == EXPR_OP_MIN ? st[k] < r : st[k] > r)
					r = st[k];
			}
			sp -= argc;
			st[sp++] = r;
			continue;
		default:
			break;
		}
		if (argc != 2)
			return NAN;
		b = st[--sp];
		a = st[sp - 1];
		switch (op->code) {
		case EXPR_OP_ADD:
			r = a + b;
			break;
		case EXPR_OP_SUB:
			r = a - b;
			break;
		case EXPR_OP_MUL:
			r = a * b;
			break;
		case EXPR_OP_DIV:
		case EXPR_OP_RATIO:
			r = b == 0 ? NAN : a / b;
			break;
		default:
			return NAN;
		}
		st[sp - 1] = finite_or_nan(r);
	}
	return sp == 1 ? finite_or_nan(st[0]) : NAN;
}

/* ---- names ---- */

int expr_check(const struct expr *e, bool (*known)(const char *name, void *arg), void *arg,
               struct expr_error *err)
{
	for (int i = 0; i < e->nr_ops; i++) {
		const struct expr_op *op = &e->op[i];

		if (op->code != EXPR_OP_VAR || known(e->var[op->var], arg))
			continue;
		err->col = op->col;
		snprintf(err->msg, sizeof(err->msg), "unknown event '%.100s'", e->var[op->var]);
		return -ENOENT;
	}
	return 0;
}

int expr_rename(struct expr *e, int var, const char *name)
{
	if (var < 0 || var >= e->nr_vars)
		return -EINVAL;
	if (strlen(name) >= sizeof(e->var[var]))
		return -ENAMETOOLONG;
	snprintf(e->var[var], sizeof(e->var[var]), "%s", name);
	return 0;
}

int expr_find_var(const struct expr *e, const char *name)
{
	for (int v = 0; v < e->nr_vars; v++)
		if (!strcmp(e->var[v], name))
			return v;
	return -1;
}

/* ---- printing ---- */

struct out {
	char *buf;
	size_t len, pos;
	bool full;
};

static void put(struct out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->full)
		return;
	if (o->pos + n >= o->len) {
		n = o->len - o->pos - 1;
		o->full = true;
	}
	memcpy(o->buf + o->pos, s, n);
	o->pos += n;
	o->buf[o->pos] = '\0';
}

static int prec(const struct expr_op *op)
{
	switch (op->code) {
	case EXPR_OP_ADD:
	case EXPR_OP_SUB:
		return 1;
	case EXPR_OP_MUL:
	case EXPR_OP_DIV:
		return 2;
	case EXPR_OP_NEG:
		return 3;
	default:
		return 4;
	}
}

static void print_node(const struct expr *e, const int *start, int i, struct out *o);

static void print_child(const struct expr *e, const int *start, int i, bool paren, struct out *o)
{
	if (paren)
		put(o, "(");
	print_node(e, start, i, o);
	if (paren)
		put(o, ")");
}

static void print_node(const struct expr *e, const int *start, int i, struct out *o)
{
	static const char *const binop[] = {
	    [EXPR_OP_ADD] = " + ",
	    [EXPR_OP_SUB] = " - ",
	    [EXPR_OP_MUL] = " * ",
	    [EXPR_OP_DIV] = " / ",
	};
	const struct expr_op *op = &e->op[i];
	int child[EXPR_OPS_MAX], n = 0;
	char num[40];

	switch (op->code) {
	case EXPR_OP_NUM:
		format_double(op->num, num, sizeof(num));
		put(o, num);
		return;
	case EXPR_OP_VAR:
		if (expr_is_bare_name(e->var[op->var])) {
			put(o, e->var[op->var]);
		} else {
			put(o, "`");
			put(o, e->var[op->var]);
			put(o, "`");
		}
		return;
	case EXPR_OP_NEG:
		put(o, "-"); /* "--a": two minus tokens, no deeper than the source */
		print_child(e, start, i - 1, prec(&e->op[i - 1]) < 3, o);
		return;
	default:
		break;
	}
	/* Children end at i - 1, start[i - 1] - 1, ...: collect them, last first. */
	for (int j = i - 1; n < op->argc && j >= 0; j = start[j] - 1)
		child[n++] = j;
	if (op->code >= EXPR_OP_ADD && op->code <= EXPR_OP_DIV) {
		int p = prec(op);

		print_child(e, start, child[1], prec(&e->op[child[1]]) < p, o);
		put(o, binop[op->code]);
		print_child(e, start, child[0], prec(&e->op[child[0]]) <= p, o);
		return;
	}
	put(o, op->code == EXPR_OP_RATIO ? "ratio(" : op->code == EXPR_OP_MIN ? "min(" : "max(");
	for (int k = n - 1; k >= 0; k--) {
		print_node(e, start, child[k], o);
		if (k)
			put(o, ", ");
	}
	put(o, ")");
}

int expr_format(const struct expr *e, char *buf, size_t len)
{
	struct out o = {.buf = buf, .len = len};
	int start[EXPR_OPS_MAX];

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	if (e->nr_ops <= 0 || e->nr_ops > EXPR_OPS_MAX)
		return -EINVAL;
	for (int i = 0; i < e->nr_ops; i++) {
		const struct expr_op *op = &e->op[i];
		int s = i;

		if (op->code != EXPR_OP_NUM && op->code != EXPR_OP_VAR)
			for (int k = 0; k < op->argc && s > 0; k++)
				s = start[s - 1];
		start[i] = s;
	}
	print_node(e, start, e->nr_ops - 1, &o);
	return o.full ? -ENOSPC : 0;
}

/* ---- error messages ---- */

int expr_error_format(char *buf, size_t len, const char *file, int line, int col, const char *msg,
                      const char *src_line)
{
	char tmp[1];
	size_t n = 0, w;
	int k;

	if (!len) {
		buf = tmp;
		len = sizeof(tmp);
	}
#define ADD(...)                                                                                   \
	do {                                                                                       \
		k = snprintf(buf + (n < len ? n : len - 1), n < len ? len - n : 1, __VA_ARGS__);   \
		n += k > 0 ? (size_t)k : 0;                                                        \
	} while (0)
	if (file)
		ADD("%s:", file);
	if (line > 0)
		ADD("%d:", line);
	if (col > 0 && line > 0)
		ADD("%d:", col);
	else if (col > 0)
		ADD("column %d:", col);
	ADD("%s%s\n", n ? " " : "", msg);
	if (src_line) {
		w = strcspn(src_line, "\n");
		ADD("    %.*s\n", (int)w, src_line);
		if (col > 0) {
			ADD("    ");
			for (size_t i = 0; i + 1 < (size_t)col && i < w; i++) {
				unsigned char c = (unsigned char)src_line[i];

				if ((c & 0xc0) == 0x80)
					continue; /* UTF-8 continuation: same column */
				ADD("%c", c == '\t' ? '\t' : ' ');
			}
			ADD("^\n");
		}
	}
#undef ADD
	return (int)n;
}
