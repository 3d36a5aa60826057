/* view_text: safe text fitted to screen columns (wide and combining characters; ASCII without
 * UTF-8). */
#include "view_priv.h"

#include "spark.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

bool view_text_utf8(void)
{
	return spark_utf8_locale();
}

/* The UTF-8 character at s (valid: untrusted_text() made it so): its
 * length, its code point in *cp. */
static int next_char(const unsigned char *s, uint32_t *cp)
{
	int n = s[0] < 0x80 ? 1 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	uint32_t c = n == 1 ? s[0] : s[0] & (0x7f >> n);

	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* not valid after all: a byte */
			return *cp = 0xfffd, 1;
		c = c << 6 | (s[i] & 0x3f);
	}
	*cp = c;
	return n;
}

/* Columns code point cp takes: wcwidth's, 1 for what it does not know. */
static int cp_width(uint32_t cp)
{
	int w = cp < 0x80 ? 1 : wcwidth((wchar_t)cp);

	return w < 0 ? 1 : w;
}

int view_text_width(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;
	int w = 0;
	bool utf8 = view_text_utf8();

	while (*u) {
		int n = next_char(u, &cp);

		w += utf8 || cp < 0x80 ? cp_width(cp) : 4 * n; /* \xNN a byte */
		u += n;
	}
	return w;
}

int view_text_fit(char *out, size_t len, const char *s, int width, bool left, bool pad)
{
	const unsigned char *u = (const unsigned char *)s;
	bool utf8 = view_text_utf8();
	size_t o = 0;
	int used = 0, total = view_text_width(s), lead = 0;
	uint32_t cp;

	if (!len)
		return 0;
	if (!left && total < width)
		lead = width - total;
	for (; lead > 0 && o + 1 < len; lead--, used++)
		out[o++] = ' ';
	while (*u) {
		int n = next_char(u, &cp);

		if (utf8 || cp < 0x80) {
			int w = cp_width(cp);

			if (used + w > width || o + (size_t)n >= len)
				break;
			memcpy(out + o, u, (size_t)n);
			o += (size_t)n;
			used += w;
		} else {
			/* no UTF-8 on this terminal: its bytes as \xNN */
			if (used + 4 * n > width || o + 4 * (size_t)n >= len)
				break;
			for (int i = 0; i < n; i++)
				o += (size_t)snprintf(out + o, len - o, "\\x%02x", u[i]);
			used += 4 * n;
		}
		u += n;
	}
	/* a wide character that did not fit leaves a column: blank */
	for (; pad && used < width && o + 1 < len; used++)
		out[o++] = ' ';
	out[o] = '\0';
	return used;
}
