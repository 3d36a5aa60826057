/* preset: INI presets (via inih) checked into plain structs; search path, fallbacks, validator. */
#include "preset_priv.h"

#include "model.h"
#include "presets_builtin.h"
#include "util.h"

#include <ini.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PFMTOP_DATADIR_REL
#define PFMTOP_DATADIR_REL "share/pfmtop"
#endif

_Static_assert(PRESET_METRICS_MAX <= MODEL_MAX_METRICS, "the model must hold every metric");
_Static_assert(PRESET_METRIC_NAME_MAX <= sizeof(((struct model_metric *)0)->name),
               "metric names must fit the model");
_Static_assert(PRESET_UNIT_MAX <= sizeof(((struct model_metric *)0)->unit),
               "metric units must fit the model");

#define VALUE_MAX        4096 /* one value, continuation lines joined */
#define SEGS_MAX         64   /* lines of one value */
#define DEFAULT_FORMAT   "%.2f"
#define FORMAT_WIDTH_MAX 32 /* a metric's cell: wider ones print nothing useful */
#define FORMAT_PREC_MAX  17 /* digits a double holds */
#define STR_(x)          #x
#define STR(x)           STR_(x)
#define KEYS_HINT        "description, events, sort, fallback.EVENT or metric.NAME[.format|.unit|.title]"

/* ---- small helpers ---- */

void preset_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strnlen(buf, len);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

bool preset_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* ---- phase 1: lines, sections and raw key = value entries ---- */

struct seg {
	int line, col;   /* where this piece of the value starts in the file */
	size_t off, len; /* and where it sits in the joined value */
};

struct entry {
	char key[256];
	int line;
	char *value; /* malloc'd, vlen bytes and a NUL */
	size_t vlen;
	size_t vstart; /* 1 when the value was wrapped in double quotes */
	int nr_segs, cap_segs;
	struct seg *seg; /* malloc'd */
};

struct section {
	char name[PRESET_NAME_MAX];
	char pmu[PRESET_PMU_MAX]; /* normalised: "a, b" */
	int line;
	int nr_entries, cap_entries;
	struct entry *entries;
};

/*
 * inih parses; the reader and handler below add what this format needs. inih
 * passes no line number: the reader counts lines and keeps the raw one, for
 * columns. inih splits at '=' or ':' and ends a line at " ;", but only '='
 * separates here (':' is part of event names) and a key's `backquoted` part
 * may hold '=' and ';': the reader hides those bytes from inih. inih reports
 * neither a section header (it keeps 49 bytes of one) nor where a line failed.
 */
struct parse {
	const char *file, *text;
	size_t len, off;
	int lineno;
	const char *line;       /* the current line, in text */
	size_t line_len, first; /* its length without trailing blanks, its first non-blank */
	bool have_key;          /* a key since the last section header (inih's prev_name) */
	bool cont;              /* the current line continues that key's value */
	int nr_sec, cap_sec;
	struct section *sec;
	struct preset_error *err;
	int ret;
};

/* Copy line lineno (1-based) of text into buf, without its newline. */
static void copy_line(const char *text, size_t len, int lineno, char *buf, size_t buflen)
{
	size_t off = 0, end;

	buf[0] = '\0';
	for (int l = 1; l < lineno && off < len; l++) {
		const char *nl = memchr(text + off, '\n', len - off);

		if (!nl)
			return;
		off = (size_t)(nl - text) + 1;
	}
	for (end = off; end < len && text[end] != '\n' && text[end] != '\0'; end++)
		;
	while (end > off && text[end - 1] == '\r')
		end--;
	if (end - off >= buflen)
		end = off + buflen - 1;
	memcpy(buf, text + off, end - off);
	buf[end - off] = '\0';
}

__attribute__((format(printf, 4, 5))) static int perr(struct parse *ps, int line, int col,
                                                      const char *fmt, ...)
{
	struct preset_error *err = ps->err;
	va_list ap;

	if (ps->ret)
		return ps->ret;
	ps->ret = -EINVAL;
	snprintf(err->file, sizeof(err->file), "%s", ps->file);
	err->line = line;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		copy_line(ps->text, ps->len, line, err->src, sizeof(err->src));
	else
		err->src[0] = '\0';
	return ps->ret;
}

bool preset_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

static bool pmu_char(char c)
{
	return preset_name_char(c) || c == '*' || c == '?';
}

/* "[preset NAME]" or "[preset NAME:PMU, PMU]" at l[i] (a '['). */
static int section_begin(struct parse *ps, const char *l, size_t n, size_t i)
{
	size_t close, a, b, c;
	struct section *s;
	char pmu[PRESET_PMU_MAX] = "";
	const char *colon;

	for (close = i + 1; close < n && l[close] != ']'; close++)
		;
	if (close == n)
		return perr(ps, ps->lineno, (int)i + 1, "section header without closing ']'");
	for (c = close + 1; c < n && preset_is_blank(l[c]); c++)
		;
	if (c < n && l[c] != ';' && l[c] != '#')
		return perr(ps, ps->lineno, (int)c + 1, "unexpected text after ']'");
	for (a = i + 1; a < close && preset_is_blank(l[a]); a++)
		;
	if (close - a < 6 || strncmp(l + a, "preset", 6) ||
	    (close - a > 6 && !preset_is_blank(l[a + 6])))
		return perr(ps, ps->lineno, (int)a + 1,
		            "unknown section '[%.*s]' (expected [preset NAME] or "
		            "[preset NAME:PMU])",
		            (int)(close - i - 1), l + i + 1);
	for (a += 6; a < close && preset_is_blank(l[a]); a++)
		;
	colon = memchr(l + a, ':', close - a);
	b = colon ? (size_t)(colon - l) : close;
	while (b > a && preset_is_blank(l[b - 1]))
		b--;
	if (a == b)
		return perr(ps, ps->lineno, (int)a + 1, "missing preset name");
	for (size_t k = a; k < b; k++)
		if (!preset_name_char(l[k]))
			return perr(ps, ps->lineno, (int)k + 1,
			            "invalid character '%c' in preset name (use letters, digits, "
			            "'_' and '-')",
			            l[k]);
	if (b - a >= PRESET_NAME_MAX)
		return perr(ps, ps->lineno, (int)a + 1,
		            "preset name too long (at most %d characters)", PRESET_NAME_MAX - 1);
	if (colon) {
		size_t p = (size_t)(colon - l) + 1;

		for (;;) {
			size_t q, e;

			while (p < close && preset_is_blank(l[p]))
				p++;
			for (q = p; q < close && l[q] != ','; q++)
				;
			for (e = q; e > p && preset_is_blank(l[e - 1]); e--)
				;
			if (e == p)
				return perr(ps, ps->lineno, (int)p + 1, "missing PMU name");
			for (size_t k = p; k < e; k++)
				if (!pmu_char(l[k]))
					return perr(ps, ps->lineno, (int)k + 1,
					            "invalid character '%c' in PMU pattern", l[k]);
			if (strlen(pmu) + (e - p) + 3 >= sizeof(pmu))
				return perr(ps, ps->lineno, (int)p + 1, "too many PMU patterns");
			preset_appendf(pmu, sizeof(pmu), "%s%.*s", pmu[0] ? ", " : "", (int)(e - p),
			               l + p);
			if (q == close)
				break;
			p = q + 1;
		}
	}
	for (int k = 0; k < ps->nr_sec; k++) {
		s = &ps->sec[k];
		if (strlen(s->name) == b - a && !strncmp(s->name, l + a, b - a) &&
		    !strcmp(s->pmu, pmu))
			return perr(ps, ps->lineno, (int)i + 1,
			            "duplicate section [preset %s%s%s] (first at line %d)", s->name,
			            pmu[0] ? ":" : "", pmu, s->line);
	}
	if (util_grow(&ps->sec, ps->nr_sec, &ps->cap_sec, sizeof(*ps->sec), 8))
		return ps->ret = -ENOMEM;
	s = &ps->sec[ps->nr_sec++];
	memset(s, 0, sizeof(*s));
	memcpy(s->name, l + a, b - a);
	snprintf(s->pmu, sizeof(s->pmu), "%s", pmu);
	s->line = ps->lineno;
	return 0;
}

static size_t skip_blanks(const char *l, size_t i, size_t n)
{
	while (i < n && isspace((unsigned char)l[i]))
		i++;
	return i;
}

/* Where line lineno (l, n bytes) starts for inih: after a UTF-8 BOM on
 * line 1, and blanks. */
static size_t line_start(const char *l, size_t n, int lineno)
{
	return skip_blanks(l, lineno == 1 && n >= 3 && !memcmp(l, "\xEF\xBB\xBF", 3) ? 3 : 0, n);
}

#define HIDDEN '\x01' /* in place of a byte inih must not act on */

/* Hide from inih, in the key part of line s (up to the first '=' outside
 * backquotes), every ':' and, in backquotes, '=' and ';'. */
static void hide_separators(char *s)
{
	bool quoted = false;

	for (; *s && (quoted || *s != '='); s++) {
		if (*s == '`')
			quoted = !quoted;
		else if (*s == ':' || (quoted && (*s == '=' || *s == ';')))
			*s = HIDDEN;
	}
}

/* inih line reader over the text. */
static char *reader(char *str, int num, void *stream)
{
	struct parse *ps = stream;
	const char *l = ps->text + ps->off, *nl;
	size_t n;

	if (ps->ret || ps->off >= ps->len)
		return NULL;
	nl = memchr(l, '\n', ps->len - ps->off);
	n = nl ? (size_t)(nl - l) : ps->len - ps->off;
	ps->off += n + (nl != NULL);
	ps->lineno++;
	if (n >= (size_t)num) {
		perr(ps, ps->lineno, num,
		     "line too long (at most %d characters; continue a value on an indented line)",
		     num - 1);
		return NULL;
	}
	while (n && isspace((unsigned char)l[n - 1]))
		n--;
	memcpy(str, l, n);
	str[n] = '\0';
	ps->line = l;
	ps->line_len = n;
	ps->first = line_start(l, n, ps->lineno);
	/* inih's order: an indented line after a key continues its value (a
	 * comment or blank line is no call), else '[' starts a header, which
	 * inih does not report: read it here (a marker line fed to inih would
	 * shift its line numbers, and still not name a long header) */
	ps->cont = ps->first > 0 && ps->have_key;
	if (ps->cont)
		return str;
	if (ps->first < n && l[ps->first] == '[') {
		ps->have_key = false;
		return section_begin(ps, l, n, ps->first) ? NULL : str;
	}
	hide_separators(str);
	return str;
}

/* inih split the current line into a key of klen bytes (at ps->first) and
 * value, at the first '=' after the key. */
static int add_entry(struct parse *ps, size_t klen, const char *value)
{
	const char *l = ps->line;
	struct section *s = &ps->sec[ps->nr_sec - 1];
	size_t eq = skip_blanks(l, ps->first + klen, ps->line_len);
	size_t col = skip_blanks(l, eq + 1, ps->line_len) + 1, vlen = strlen(value);
	struct entry *e;

	if (klen >= sizeof(e->key))
		return perr(ps, ps->lineno, (int)ps->first + 1, "key too long");
	if (util_grow(&s->entries, s->nr_entries, &s->cap_entries, sizeof(*s->entries), 8))
		return ps->ret = -ENOMEM;
	e = &s->entries[s->nr_entries];
	*e = (struct entry){.line = ps->lineno, .vlen = vlen};
	memcpy(e->key, l + ps->first, klen); /* the raw bytes, none hidden */
	e->value = malloc(vlen + 1);
	if (!e->value || util_grow(&e->seg, 0, &e->cap_segs, sizeof(*e->seg), 1)) {
		free(e->value);
		return ps->ret = -ENOMEM;
	}
	s->nr_entries++;
	memcpy(e->value, value, vlen + 1);
	e->nr_segs = 1;
	e->seg[0] = (struct seg){ps->lineno, (int)col, 0, vlen};
	return 0;
}

/* An indented line (value, at ps->first) continues the last value. inih
 * passes it whole: it ends before an inline comment (';' after a blank) here,
 * as a key's value does. */
static int continue_entry(struct parse *ps, const char *value)
{
	struct section *s = &ps->sec[ps->nr_sec - 1];
	struct entry *e = &s->entries[s->nr_entries - 1];
	size_t sep = e->vlen ? 1 : 0, n = 0;
	int col = (int)ps->first + 1;
	char *grown;

	while (value[n] && !(value[n] == ';' && n && isspace((unsigned char)value[n - 1])))
		n++;
	while (n && isspace((unsigned char)value[n - 1]))
		n--;
	if (e->nr_segs == SEGS_MAX)
		return perr(ps, ps->lineno, col, "value continued over too many lines (at most %d)",
		            SEGS_MAX);
	if (e->vlen + sep + n >= VALUE_MAX)
		return perr(ps, ps->lineno, col, "value too long (at most %d characters)",
		            VALUE_MAX - 1);
	grown = realloc(e->value, e->vlen + sep + n + 1);
	if (!grown || util_grow(&e->seg, e->nr_segs, &e->cap_segs, sizeof(*e->seg), 4)) {
		if (grown)
			e->value = grown;
		return ps->ret = -ENOMEM;
	}
	e->value = grown;
	if (sep)
		e->value[e->vlen++] = ' ';
	e->seg[e->nr_segs++] = (struct seg){ps->lineno, col, e->vlen, n};
	memcpy(e->value + e->vlen, value, n);
	e->vlen += n;
	e->value[e->vlen] = '\0';
	return 0;
}

/* inih handler: one call per key line or continuation line. */
static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *ps = user;
	int col = (int)ps->first + 1;

	if (ps->cont)
		continue_entry(ps, value);
	else if (!*section)
		perr(ps, ps->lineno, col, "key outside a [preset NAME] section");
	else if (!*name)
		perr(ps, ps->lineno, col, "missing key before '='");
	else
		add_entry(ps, strlen(name), value);
	ps->have_key = true;
	return !ps->ret;
}

/* inih found no '=' on line lineno (outside a comment or backquotes). */
static int split_error(struct parse *ps, int lineno)
{
	char l[sizeof(ps->err->src)];
	int col;

	copy_line(ps->text, ps->len, lineno, l, sizeof(l));
	col = (int)line_start(l, strlen(l), lineno) + 1;
	if (!ps->nr_sec || ps->sec[0].line > lineno)
		return perr(ps, lineno, col, "key outside a [preset NAME] section");
	return perr(ps, lineno, col, "expected 'key = value' or '[section]'");
}

/* ---- phase 2: meaning of the entries ---- */

/* Where value offset off of e is in the file. */
static void map_off(const struct entry *e, size_t off, int *line, int *col)
{
	int k = 0;

	off += e->vstart;
	while (k + 1 < e->nr_segs && e->seg[k + 1].off <= off)
		k++;
	*line = e->seg[k].line;
	*col = e->seg[k].col +
	       (int)(off - e->seg[k].off > e->seg[k].len ? e->seg[k].len : off - e->seg[k].off);
}

/* The value without surrounding double quotes. */
static const char *val(const struct entry *e)
{
	return e->value + e->vstart;
}

__attribute__((format(printf, 4, 5))) static int verr(struct parse *ps, const struct entry *e,
                                                      size_t off, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	int line, col;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	map_off(e, off, &line, &col);
	return perr(ps, line, col, "%s", msg);
}

/* events_parse_list() on the value of e, errors mapped to the file. */
static int parse_list(struct parse *ps, const struct entry *e, struct events_list *l, size_t *offs)
{
	char err[256];
	int col = 0, used = 0;
	const char *v = val(e);

	memset(l, 0, sizeof(*l));
	if (!*v)
		return verr(ps, e, 0, "empty event list");
	if (events_parse_list(v, l, err, sizeof(err))) {
		if (sscanf(err, "column %d: %n", &col, &used) >= 1 && used > 0 && col > 0)
			return verr(ps, e, (size_t)col - 1, "%s", err + used);
		return verr(ps, e, 0, "%s", err);
	}
	/* where each name is in the value; the value is the file's text, not
	 * kept with the list */
	for (int i = 0; i < l->nr; i++) {
		offs[i] = l->at[i];
		l->src[i] = NULL;
	}
	for (int i = 0; i < l->nr; i++) {
		if (strchr(l->name[i], '`'))
			return verr(ps, e, offs[i], "event names cannot contain '`'");
		for (int j = 0; j < i; j++)
			if (!strcmp(l->name[i], l->name[j]))
				return verr(ps, e, offs[i], "event '%s' is listed twice",
				            l->name[i]);
	}
	return 0;
}

struct fallback_def {
	char event[EVENTS_NAME_MAX];
	const struct entry *e;
	int event_col; /* of EVENT in the key */
	int nr;
	char name[PRESET_FALLBACKS_MAX][EVENTS_NAME_MAX];
	size_t offs[PRESET_FALLBACKS_MAX]; /* of each name in the value */
};

struct metric_def {
	char name[PRESET_METRIC_NAME_MAX];
	const struct entry *expr, *format, *unit, *title;
	struct preset_metric m;
};

/* What one section says, before merging. */
struct sec_data {
	const struct section *s;
	const struct entry *desc, *events, *sort;
	struct events_list list;
	size_t offs[EVENTS_LIST_MAX];
	int nr_fb;
	struct fallback_def fb[EVENTS_LIST_MAX];
	int nr_m;
	struct metric_def m[PRESET_METRICS_MAX];
};

/* Canonical form of a key (fallback.`x` = fallback.x) and where the part
 * after "fallback." or "metric." starts. */
static void canon_key(const char *key, char *out, size_t len, size_t *rest)
{
	const char *r = key;
	size_t n;

	*rest = 0;
	if (starts_with(key, "fallback."))
		*rest = strlen("fallback.");
	else if (starts_with(key, "metric."))
		*rest = strlen("metric.");
	r = key + *rest;
	n = strlen(r);
	if (*rest && n >= 2 && r[0] == '`' && r[n - 1] == '`')
		snprintf(out, len, "%.*s%.*s", (int)*rest, key, (int)(n - 2), r + 1);
	else
		snprintf(out, len, "%s", key);
}

static bool valid_metric_name(const char *s)
{
	if (!isalpha((unsigned char)s[0]))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_%/-", *s))
			return false;
	return true;
}

/* Digits at *p as a number (capped), *p moved past them. */
static long digits_value(const char **p)
{
	long v = 0;

	for (; isdigit((unsigned char)**p); (*p)++)
		if (v < 100000)
			v = v * 10 + (**p - '0');
	return v;
}

/* One double conversion (%f %e %g, any case, optional l), flags, a width
 * up to FORMAT_WIDTH_MAX and a precision up to FORMAT_PREC_MAX; %% allowed.
 * NULL when fine, else why not, with *where at the offending part. */
static const char *format_problem(const char *f, size_t *where)
{
	int convs = 0;

	for (const char *p = f; *p; p++) {
		size_t start = (size_t)(p - f);

		if (*p != '%')
			continue;
		*where = start;
		if (p[1] == '%') {
			p++;
			continue;
		}
		p++;
		while (*p && strchr("-+ #0", *p))
			p++;
		*where = (size_t)(p - f);
		if (digits_value(&p) > FORMAT_WIDTH_MAX)
			return "format width too large (at most " STR(FORMAT_WIDTH_MAX) ")";
		if (*p == '.') {
			p++;
			*where = (size_t)(p - f);
			if (digits_value(&p) > FORMAT_PREC_MAX)
				return "format precision too large (at most " STR(
				    FORMAT_PREC_MAX) ")";
		}
		if (*p == 'l')
			p++;
		*where = start;
		if (!*p || !strchr("fFeEgG", *p))
			return "only %f, %e or %g conversions (with flags, width and "
			       "precision) format a metric";
		convs++;
	}
	if (convs != 1) {
		*where = 0;
		return convs ? "more than one conversion in format"
		             : "format has no conversion (e.g. %.2f)";
	}
	return NULL;
}

static struct metric_def *metric_def(struct sec_data *d, const char *name)
{
	for (int k = 0; k < d->nr_m; k++)
		if (!strcmp(d->m[k].name, name))
			return &d->m[k];
	return NULL;
}

static int interpret_metric(struct parse *ps, struct sec_data *d, const struct entry *e,
                            const char *rest, int rest_col)
{
	static const char *const attrs[] = {".format", ".unit", ".title"};
	char name[256];
	struct metric_def *md;
	size_t n = strlen(rest);
	int attr = -1;

	for (int k = 0; k < 3; k++) {
		size_t an = strlen(attrs[k]);

		if (n > an && !strcmp(rest + n - an, attrs[k])) {
			attr = k;
			n -= an;
		}
	}
	snprintf(name, sizeof(name), "%.*s", (int)n, rest);
	if (!n)
		return perr(ps, e->line, rest_col, "missing metric name after 'metric.'");
	if (strchr(name, '.'))
		return perr(ps, e->line, 1,
		            "unknown key '%s' (a metric's attributes are format, unit and title)",
		            e->key);
	if (!valid_metric_name(name))
		return perr(ps, e->line, rest_col,
		            "invalid metric name '%s' (a letter, then letters, digits, '_', "
		            "'%%', '/' or '-')",
		            name);
	if (n >= PRESET_METRIC_NAME_MAX)
		return perr(ps, e->line, rest_col, "metric name too long (at most %d characters)",
		            PRESET_METRIC_NAME_MAX - 1);
	md = metric_def(d, name);
	if (!md) {
		if (d->nr_m == PRESET_METRICS_MAX)
			return perr(ps, e->line, 1, "too many metrics (at most %d)",
			            PRESET_METRICS_MAX);
		md = &d->m[d->nr_m++];
		memset(md, 0, sizeof(*md));
		memcpy(md->name, name, n);
	}
	switch (attr) {
	case -1: {
		struct expr_error xe;

		md->expr = e;
		if (expr_compile(val(e), &md->m.expr, &xe))
			return verr(ps, e, (size_t)xe.col - 1, "%s", xe.msg);
		if (expr_format(&md->m.expr, md->m.text, sizeof(md->m.text)))
			return verr(ps, e, 0, "expression too long");
		md->m.line = e->line;
		return 0;
	}
	case 0: {
		size_t where = 0;
		const char *why = format_problem(val(e), &where);

		md->format = e;
		if (why)
			return verr(ps, e, where, "%s", why);
		if (strlen(val(e)) >= PRESET_FORMAT_MAX)
			return verr(ps, e, 0, "format too long (at most %d characters)",
			            PRESET_FORMAT_MAX - 1);
		return 0;
	}
	case 1:
		md->unit = e;
		if (strlen(val(e)) >= PRESET_UNIT_MAX)
			return verr(ps, e, 0, "unit too long (at most %d characters)",
			            PRESET_UNIT_MAX - 1);
		return 0;
	default:
		md->title = e;
		if (strlen(val(e)) >= PRESET_METRIC_NAME_MAX)
			return verr(ps, e, 0, "title too long (at most %d characters)",
			            PRESET_METRIC_NAME_MAX - 1);
		return 0;
	}
}

static int interpret_fallback(struct parse *ps, struct sec_data *d, const struct entry *e,
                              const char *event, int event_col)
{
	struct fallback_def *fb = &d->fb[d->nr_fb];
	size_t offs[EVENTS_LIST_MAX];
	struct events_list *l;

	if (!*event)
		return perr(ps, e->line, event_col, "missing event name after 'fallback.'");
	if (strlen(event) >= EVENTS_NAME_MAX)
		return perr(ps, e->line, event_col, "event name too long");
	if (d->nr_fb == EVENTS_LIST_MAX)
		return perr(ps, e->line, 1, "too many fallbacks");
	l = malloc(sizeof(*l));
	if (!l)
		return ps->ret = -ENOMEM;
	memset(fb, 0, sizeof(*fb));
	snprintf(fb->event, sizeof(fb->event), "%s", event);
	fb->e = e;
	fb->event_col = event_col;
	if (parse_list(ps, e, l, offs))
		goto out;
	if (strchr(val(e), '{')) {
		verr(ps, e, strcspn(val(e), "{"), "fallbacks cannot be grouped");
		goto out;
	}
	if (l->nr > PRESET_FALLBACKS_MAX) {
		verr(ps, e, offs[PRESET_FALLBACKS_MAX], "too many fallbacks (at most %d)",
		     PRESET_FALLBACKS_MAX);
		goto out;
	}
	fb->nr = l->nr;
	for (int k = 0; k < l->nr; k++) {
		memcpy(fb->name[k], l->name[k], sizeof(fb->name[k]));
		fb->offs[k] = offs[k];
	}
	d->nr_fb++;
out:
	free(l);
	return ps->ret;
}

/* Drop surrounding double quotes from a value (fix the offsets). */
static void unquote(struct entry *e)
{
	if (e->vlen >= 2 && e->value[0] == '"' && e->value[e->vlen - 1] == '"') {
		e->value[e->vlen - 1] = '\0';
		e->vstart = 1;
	}
}

static int interpret_section(struct parse *ps, struct section *s, struct sec_data *d)
{
	char(*keys)[256] = calloc((size_t)s->nr_entries + 1, sizeof(*keys));

	if (!keys)
		return ps->ret = -ENOMEM;
	d->s = s; /* d comes zeroed */
	for (int i = 0; i < s->nr_entries && !ps->ret; i++) {
		struct entry *e = &s->entries[i];
		size_t rest;

		unquote(e);
		canon_key(e->key, keys[i], sizeof(keys[i]), &rest);
		for (int j = 0; j < i; j++)
			if (!strcmp(keys[i], keys[j])) {
				perr(ps, e->line, 1, "duplicate key '%s' (first at line %d)",
				     e->key, s->entries[j].line);
				break;
			}
		if (ps->ret)
			break;
		if (!strcmp(e->key, "description")) {
			d->desc = e;
			if (strlen(val(e)) >= PRESET_DESC_MAX)
				verr(ps, e, PRESET_DESC_MAX - 1,
				     "description too long (at most %d characters)",
				     PRESET_DESC_MAX - 1);
		} else if (!strcmp(e->key, "events")) {
			d->events = e;
			parse_list(ps, e, &d->list, d->offs);
		} else if (!strcmp(e->key, "sort")) {
			d->sort = e;
			if (!*val(e))
				verr(ps, e, 0, "empty sort key");
		} else if (rest && e->key[0] == 'f') {
			const char *ev = keys[i] + rest;
			int col = (int)rest + 1 + (e->key[rest] == '`');

			if (strchr(ev, '`'))
				perr(ps, e->line, col, "event names cannot contain '`'");
			else
				interpret_fallback(ps, d, e, ev, col);
		} else if (rest) {
			interpret_metric(ps, d, e, e->key + rest, (int)rest + 1);
		} else {
			perr(ps, e->line, 1, "unknown key '%s' (expected " KEYS_HINT ")", e->key);
		}
	}
	free(keys);
	for (int k = 0; k < d->nr_m && !ps->ret; k++) {
		struct metric_def *md = &d->m[k];
		const struct entry *a = md->format ? md->format : md->unit ? md->unit : md->title;

		if (!md->expr)
			perr(ps, a->line, 1, "%s without metric.%s in this section", a->key,
			     md->name);
	}
	return ps->ret;
}

int preset_find_event(const struct preset *p, const char *name)
{
	for (int i = 0; i < p->nr_events; i++)
		if (!strcmp(p->ev[i].name, name))
			return i;
	return -1;
}

static bool known_event(const char *name, void *arg)
{
	return preset_find_event(arg, name) >= 0;
}

static void set_events(struct preset *p, const struct events_list *l)
{
	p->nr_events = l->nr;
	p->nr_groups = l->nr_groups;
	for (int i = 0; i < l->nr; i++) {
		memset(&p->ev[i], 0, sizeof(p->ev[i]));
		snprintf(p->ev[i].name, sizeof(p->ev[i].name), "%s", l->name[i]);
		p->ev[i].group = l->group[i];
	}
}

/* Attach the fallbacks of d to p's events, checking them against p. */
static int apply_fallbacks(struct parse *ps, const struct sec_data *d, struct preset *p)
{
	for (int f = 0; f < d->nr_fb; f++) {
		const struct fallback_def *fb = &d->fb[f];
		int i = preset_find_event(p, fb->event);

		if (i < 0)
			return perr(ps, fb->e->line, fb->event_col,
			            "fallback for '%s', which is not in events", fb->event);
		for (int k = 0; k < fb->nr; k++) {
			const char *name = fb->name[k];

			if (!strcmp(name, fb->event))
				return verr(ps, fb->e, fb->offs[k],
				            "'%s' cannot fall back to itself", name);
			if (preset_find_event(p, name) >= 0)
				return verr(ps, fb->e, fb->offs[k],
				            "fallback '%s' is itself listed in events", name);
			for (int j = 0; j < k; j++)
				if (!strcmp(name, fb->name[j]))
					return verr(ps, fb->e, fb->offs[k],
					            "fallback '%s' is listed twice", name);
			for (int o = 0; o < p->nr_events; o++)
				for (int j = 0; o != i && j < p->ev[o].nr_fallbacks; j++)
					if (!strcmp(name, p->ev[o].fallback[j]))
						return verr(ps, fb->e, fb->offs[k],
						            "fallback '%s' is already a "
						            "fallback of '%s'",
						            name, p->ev[o].name);
		}
		p->ev[i].nr_fallbacks = fb->nr;
		memcpy(p->ev[i].fallback, fb->name, sizeof(fb->name));
	}
	return 0;
}

static void set_metrics(struct preset *p, const struct sec_data *d)
{
	p->nr_metrics = d->nr_m;
	for (int k = 0; k < d->nr_m; k++) {
		const struct metric_def *md = &d->m[k];
		struct preset_metric *m = &p->metric[k];

		*m = md->m;
		snprintf(m->name, sizeof(m->name), "%s", md->name);
		snprintf(m->title, sizeof(m->title), "%s", md->title ? val(md->title) : md->name);
		snprintf(m->unit, sizeof(m->unit), "%s", md->unit ? val(md->unit) : "");
		snprintf(m->format, sizeof(m->format), "%s",
		         md->format ? val(md->format) : DEFAULT_FORMAT);
	}
}

/* Type-check the metrics of md against p's events. variant: the section
 * whose events inherited metrics now face (NULL when md's own). */
static int check_metrics(struct parse *ps, const struct sec_data *md, const struct preset *p,
                         const struct section *variant)
{
	for (int k = 0; k < md->nr_m; k++) {
		const struct metric_def *m = &md->m[k];
		struct expr_error xe;

		if (!expr_check(&m->m.expr, known_event, (void *)p, &xe))
			continue;
		if (variant)
			return verr(ps, m->expr, (size_t)xe.col - 1,
			            "%s (not in the events of [preset %s:%s])", xe.msg,
			            variant->name, variant->pmu);
		return verr(ps, m->expr, (size_t)xe.col - 1,
		            "%s (not in the events of this preset)", xe.msg);
	}
	return 0;
}

/* The sort key of sd (if any) must name a metric or event of p. */
static int check_sort(struct parse *ps, const struct sec_data *sd, struct preset *p,
                      const struct section *variant)
{
	const char *s;
	bool found;

	if (!sd->sort)
		return 0;
	s = val(sd->sort);
	found = preset_find_event(p, s) >= 0;
	for (int k = 0; k < p->nr_metrics && !found; k++)
		found = !strcmp(p->metric[k].name, s);
	if (!found) {
		if (variant)
			return verr(ps, sd->sort, 0,
			            "sort: '%s' is not a metric or event of [preset %s:%s]", s,
			            variant->name, variant->pmu);
		return verr(ps, sd->sort, 0, "sort: '%s' is not a metric or event of this preset",
		            s);
	}
	snprintf(p->sort, sizeof(p->sort), "%s", s);
	return 0;
}

static void set_origin(struct preset *p, const struct parse *ps, const struct section *s,
                       enum preset_origin origin)
{
	snprintf(p->name, sizeof(p->name), "%s", s->name);
	snprintf(p->pmu, sizeof(p->pmu), "%s", s->pmu);
	snprintf(p->file, sizeof(p->file), "%s", ps->file);
	p->line = s->line;
	p->origin = origin;
}

/* p (zeroed) = *bp, copying only what bp uses: a preset is ~70 KB, mostly
 * room for events and metrics it does not have, and each page touched is a
 * page fault at every start. */
static void copy_used(struct preset *p, const struct preset *bp)
{
	const size_t tail = offsetof(struct preset, origin);

	memcpy(p, bp, offsetof(struct preset, ev));
	memcpy(p->ev, bp->ev, (size_t)bp->nr_events * sizeof(bp->ev[0]));
	p->nr_metrics = bp->nr_metrics;
	memcpy(p->metric, bp->metric, (size_t)bp->nr_metrics * sizeof(bp->metric[0]));
	memcpy((char *)p + tail, (const char *)bp + tail, sizeof(*p) - tail);
}

/* p: zeroed */
static int build_base(struct parse *ps, const struct sec_data *d, struct preset *p,
                      enum preset_origin origin)
{
	set_origin(p, ps, d->s, origin);
	if (!d->events)
		return perr(ps, d->s->line, 1, "[preset %s] has no events", d->s->name);
	if (d->desc)
		snprintf(p->description, sizeof(p->description), "%s", val(d->desc));
	set_events(p, &d->list);
	if (apply_fallbacks(ps, d, p))
		return ps->ret;
	set_metrics(p, d);
	if (check_metrics(ps, d, p, NULL))
		return ps->ret;
	return check_sort(ps, d, p, NULL);
}

static int build_variant(struct parse *ps, const struct sec_data *base, const struct preset *bp,
                         const struct sec_data *d, struct preset *p, enum preset_origin origin)
{
	bool new_events = d->events != NULL;

	copy_used(p, bp);
	set_origin(p, ps, d->s, origin);
	if (d->desc)
		snprintf(p->description, sizeof(p->description), "%s", val(d->desc));
	if (new_events) {
		set_events(p, &d->list);
		/* keep the base's fallbacks for events still listed */
		for (int i = 0; i < p->nr_events; i++) {
			int b = preset_find_event(bp, p->ev[i].name);

			if (b >= 0 && !d->nr_fb) {
				p->ev[i].nr_fallbacks = bp->ev[b].nr_fallbacks;
				memcpy(p->ev[i].fallback, bp->ev[b].fallback,
				       sizeof(p->ev[i].fallback));
			}
		}
	}
	if (d->nr_fb) {
		for (int i = 0; i < p->nr_events; i++)
			p->ev[i].nr_fallbacks = 0;
		if (apply_fallbacks(ps, d, p))
			return ps->ret;
	} else if (new_events) {
		/* inherited fallbacks must still make sense with the new events */
		for (int i = 0; i < p->nr_events; i++)
			for (int k = 0; k < p->ev[i].nr_fallbacks; k++)
				if (preset_find_event(p, p->ev[i].fallback[k]) >= 0)
					for (int f = 0; f < base->nr_fb; f++)
						if (!strcmp(base->fb[f].event, p->ev[i].name))
							return perr(ps, base->fb[f].e->line,
							            base->fb[f].event_col,
							            "fallback '%s' of '%s' is "
							            "listed in the events of "
							            "[preset %s:%s]",
							            p->ev[i].fallback[k],
							            p->ev[i].name, d->s->name,
							            d->s->pmu);
	}
	if (d->nr_m)
		set_metrics(p, d);
	if (check_metrics(ps, d->nr_m ? d : base, p, d->nr_m ? NULL : d->s))
		return ps->ret;
	return check_sort(ps, d->sort ? d : base, p, d->sort ? NULL : d->s);
}

/* ---- the set ---- */

/* Index just past the group (base + variants) starting at i. */
int preset_group_end(const struct preset_set *set, int i)
{
	for (i++; i < set->nr && set->p[i]->pmu[0]; i++)
		;
	return i;
}

int preset_group_find(const struct preset_set *set, const char *name)
{
	for (int i = 0; i < set->nr; i = preset_group_end(set, i))
		if (!strcmp(set->p[i]->name, name))
			return i;
	return -1;
}

/* Room for n more presets in set; 0 or -ENOMEM (set unchanged). */
static int set_reserve(struct preset_set *set, int n)
{
	int cap = set->cap ? set->cap : 16;
	struct preset **p;

	if (set->nr + n <= set->cap)
		return 0;
	while (cap < set->nr + n)
		cap *= 2;
	p = realloc(set->p, (size_t)cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	set->p = p;
	set->cap = cap;
	return 0;
}

/* Move the group g[0..n) into set (the set owns them from now on), in
 * place of any group of the same name. set_reserve() made room for n
 * first: this cannot fail. */
static void set_put(struct preset_set *set, struct preset **g, int n)
{
	int at = preset_group_find(set, g[0]->name), old = 0;
	struct preset **p = set->p;

	if (at >= 0) {
		old = preset_group_end(set, at) - at;
		g[0]->overrides = true;
		g[0]->overridden = p[at]->origin;
		for (int i = at; i < at + old; i++)
			util_big_free(p[i]);
	} else {
		at = set->nr;
	}
	memmove(p + at + n, p + at + old, (size_t)(set->nr - at - old) * sizeof(*p));
	memcpy(p + at, g, (size_t)n * sizeof(*p));
	set->nr += n - old;
}

static int build_all(struct parse *ps, struct preset_set *set, enum preset_origin origin)
{
	struct sec_data *d = util_big_zalloc((size_t)ps->nr_sec * sizeof(*d));
	struct preset **np = calloc((size_t)ps->nr_sec, sizeof(*np));
	struct preset **g = calloc((size_t)ps->nr_sec, sizeof(*g));
	int *base = calloc((size_t)ps->nr_sec, sizeof(*base)), n = 0;

	if (!d || !np || !g || !base) {
		ps->ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < ps->nr_sec; i++)
		if (!(np[i] = util_big_zalloc(sizeof(*np[i])))) {
			ps->ret = -ENOMEM;
			goto out;
		}
	for (int i = 0; i < ps->nr_sec && !ps->ret; i++)
		interpret_section(ps, &ps->sec[i], &d[i]);
	/* bases first (variants start from them), then variants, file order */
	for (int i = 0; i < ps->nr_sec && !ps->ret; i++)
		if (!ps->sec[i].pmu[0])
			build_base(ps, &d[i], np[i], origin);
	for (int i = 0; i < ps->nr_sec && !ps->ret; i++) {
		base[i] = -1;
		if (!ps->sec[i].pmu[0])
			continue;
		for (int j = 0; j < ps->nr_sec; j++)
			if (!ps->sec[j].pmu[0] && !strcmp(ps->sec[j].name, ps->sec[i].name))
				base[i] = j;
		if (base[i] < 0)
			perr(ps, ps->sec[i].line, 1,
			     "variant [preset %s:%s] has no [preset %s] in this file",
			     ps->sec[i].name, ps->sec[i].pmu, ps->sec[i].name);
		else
			build_variant(ps, &d[base[i]], np[base[i]], &d[i], np[i], origin);
	}
	if (ps->ret)
		goto out;
	/* Every check passed: from here on nothing fails, so an error above
	 * leaves set as it was. One group per base: the base, then its
	 * variants, put in the base's section order. */
	if (set_reserve(set, ps->nr_sec)) {
		ps->ret = -ENOMEM;
		goto out;
	}
	for (int i = 0; i < ps->nr_sec; i++) {
		if (ps->sec[i].pmu[0])
			continue;
		g[0] = np[i];
		np[i] = NULL;
		n = 1;
		for (int j = 0; j < ps->nr_sec; j++)
			if (ps->sec[j].pmu[0] && base[j] == i) {
				g[n++] = np[j];
				np[j] = NULL;
			}
		set_put(set, g, n);
	}
out:
	for (int i = 0; np && i < ps->nr_sec; i++)
		util_big_free(np[i]); /* not put in the set */
	util_big_free(d);
	free(np);
	free(g);
	free(base);
	return ps->ret;
}

int preset_parse(struct preset_set *set, const char *text, size_t len, const char *file,
                 enum preset_origin origin, struct preset_error *err)
{
	struct parse ps = {.file = file, .text = text, .len = len, .err = err};
	const char *nul = memchr(text, '\0', len);
	int ret;

	memset(err, 0, sizeof(*err));
	if (nul) {
		int line = 1;

		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		return perr(&ps, line, 0, "NUL byte in preset file");
	}
	ret = ini_parse_stream(reader, &ps, handler, &ps);
	if (ret > 0 && (!ps.ret || ret < ps.lineno)) {
		/* inih went on past a line it could not split: that came first */
		ps.ret = 0;
		split_error(&ps, ret);
	} else if (!ps.ret && ret < 0) {
		ps.ret = -ENOMEM;
	}
	if (!ps.ret)
		build_all(&ps, set, origin); /* an error leaves set unchanged */
	for (int i = 0; i < ps.nr_sec; i++) {
		for (int j = 0; j < ps.sec[i].nr_entries; j++) {
			free(ps.sec[i].entries[j].value);
			free(ps.sec[i].entries[j].seg);
		}
		free(ps.sec[i].entries);
	}
	free(ps.sec);
	return ps.ret;
}
