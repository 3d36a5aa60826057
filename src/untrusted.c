/* untrusted: text from outside (names, paths, symbols, user input) made safe for each sink. */
#include "untrusted.h"

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

/*
 * The length of the valid UTF-8 sequence at s (1-4), with its code point in
 * *cp; 0 when s does not start one (a stray continuation byte, an overlong
 * form, a surrogate, past U+10FFFF, or cut short).
 */
static int utf8_char(const unsigned char *s, uint32_t *cp)
{
	int n;
	uint32_t c = s[0], min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		n = 2;
		c &= 0x1f;
		min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 3;
		c &= 0x0f;
		min = 0x800;
	} else if ((c & 0xf8) == 0xf0) {
		n = 4;
		c &= 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* The marks and embeddings, overrides and isolates of the Unicode bidi
 * algorithm (UAX #9): a name holding U+202E shows the rest of the line
 * backwards. */
static bool is_bidi_control(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * One character of s as safe text into buf (at least 8 bytes, not
 * terminated): its length in buf; *used gets the bytes of s it stood for.
 */
static int text_char(const char *s, char buf[8], int *used, bool keep_newlines)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	int n = utf8_char(u, &cp);

	if (n == 0) { /* a byte of invalid UTF-8 */
		*used = 1;
		return snprintf(buf, 8, "\\x%02x", u[0]);
	}
	*used = n;
	if (cp == '\n' && keep_newlines) {
		buf[0] = '\n';
		return 1;
	}
	if (cp < 0x20 || cp == 0x7f) {
		buf[0] = '^';
		buf[1] = cp == 0x7f ? '?' : (char)(cp + '@');
		return 2;
	}
	if (cp >= 0x80 && cp <= 0x9f)
		return snprintf(buf, 8, "\\x%02x", cp);
	if (is_bidi_control(cp)) /* would reorder what follows it on the line */
		return snprintf(buf, 8, "\\u%04x", cp);
	memcpy(buf, s, (size_t)n);
	return n;
}

char *untrusted_text(char *out, size_t len, const char *s)
{
	size_t o = 0;
	char buf[8];
	int used, n;

	if (!len)
		return out;
	while (*s) {
		n = text_char(s, buf, &used, false);
		if (o + (size_t)n >= len)
			break;
		memcpy(out + o, buf, (size_t)n);
		o += (size_t)n;
		s += used;
	}
	out[o] = '\0';
	return out;
}

void untrusted_fputs(FILE *f, const char *s, bool keep_newlines)
{
	char buf[8];
	int used, n;

	while (*s) {
		n = text_char(s, buf, &used, keep_newlines);
		fwrite(buf, 1, (size_t)n, f);
		s += used;
	}
}

int untrusted_width(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	int w = 0;

	while (*u) {
		int n = utf8_char(u, &cp), cw;

		if (!n) { /* not made safe: a byte, a column */
			w++;
			u++;
			continue;
		}
		/* wide characters take two columns, combining ones none; what
		 * the locale does not know (a C locale: all but ASCII) one */
		cw = cp < 0x80 ? 1 : wcwidth((wchar_t)cp);
		w += cw < 0 ? 1 : cw;
		u += n;
	}
	return w;
}

bool untrusted_json(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	bool replaced = false;
	uint32_t cp;
	int n;

	fputc('"', f);
	while (*u) {
		/* A run of plain ASCII goes out as it is, in one write. */
		const unsigned char *run = u;
		while (*u >= 0x20 && *u < 0x7f && *u != '"' && *u != '\\')
			u++;
		if (u > run)
			fwrite(run, 1, (size_t)(u - run), f);
		if (!*u)
			break;
		n = utf8_char(u, &cp);
		if (n == 0) {
			fputs("\\ufffd", f);
			replaced = true;
			u++;
			continue;
		}
		if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (char)cp);
		else if (cp == '\n')
			fputs("\\n", f);
		else if (cp == '\t')
			fputs("\\t", f);
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			fprintf(f, "\\u%04x", (unsigned)cp);
		else
			fwrite(u, 1, (size_t)n, f);
		u += n;
	}
	fputc('"', f);
	return replaced;
}

void untrusted_json_field(FILE *f, const char *key, const char *s)
{
	fputc('"', f);
	fputs(key, f);
	fputs("\":", f);
	if (!untrusted_json(f, s))
		return;
	fprintf(f, ",\"%s_raw\":\"", key);
	for (const unsigned char *u = (const unsigned char *)s; *u; u++)
		fprintf(f, "%02x", *u);
	fputc('"', f);
}

void untrusted_complain(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("pfmtop: ", stderr);
	untrusted_fputs(stderr, buf, true);
}
