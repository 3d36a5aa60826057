/* colspec: a view's column setup as text ("PID,-THR,page-faults:12") and its merge with the view's
 * columns. */
#include "colspec.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One item of text[*pos..]: up to an unescaped ',' or the end. */
static int next_item(const char *text, size_t *pos, char *out, size_t len)
{
	size_t o = 0, i = *pos;

	for (; text[i] && text[i] != ','; i++) {
		char c = text[i];
		if (c == '\\' && (text[i + 1] == ',' || text[i + 1] == '\\'))
			c = text[++i];
		if (o + 1 >= len)
			return -1;
		out[o++] = c;
	}
	out[o] = '\0';
	*pos = text[i] ? i + 1 : i;
	return 0;
}

int colspec_parse(const char *text, struct colspec_item *it, int max, char *err, size_t errlen)
{
	size_t pos = 0;
	int n = 0;
	char item[80];

	err[0] = '\0';
	if (!text[0])
		return 0;
	while (1) {
		struct colspec_item c = {0};
		char *name = item, *colon;
		if (next_item(text, &pos, item, sizeof(item))) {
			snprintf(err, errlen, "column %d: name too long", n + 1);
			return -1;
		}
		while (isspace((unsigned char)*name))
			name++;
		for (size_t k = strlen(name); k && isspace((unsigned char)name[k - 1]); k--)
			name[k - 1] = '\0';
		if (*name == '-') {
			c.hidden = true;
			name++;
		}
		/* NAME:W: the width after the last ':' (event names hold ':') */
		colon = strrchr(name, ':');
		if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
			long w = strtol(colon + 1, NULL, 10);
			if (w < 1 || w > COLSPEC_MAX_WIDTH) {
				snprintf(err, errlen, "column '%.*s': width %s is not 1 to %d",
				         (int)(colon - name), name, colon + 1, COLSPEC_MAX_WIDTH);
				return -1;
			}
			c.width = (int)w;
			*colon = '\0';
		}
		if (!name[0]) {
			snprintf(err, errlen, "column %d: no name", n + 1);
			return -1;
		}
		if (strlen(name) >= sizeof(c.name)) {
			snprintf(err, errlen, "column %d: name too long", n + 1);
			return -1;
		}
		for (int k = 0; k < n; k++)
			if (!strcmp(it[k].name, name)) {
				snprintf(err, errlen, "column '%s' given twice", name);
				return -1;
			}
		if (n == max) {
			snprintf(err, errlen, "more than %d columns", max);
			return -1;
		}
		strcpy(c.name, name);
		it[n++] = c;
		if (!text[pos])
			break;
	}
	return n;
}

int colspec_format(const struct colspec_item *it, int n, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return -1;
	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		char item[160], w[16] = "";
		size_t k = 0;
		if (it[i].hidden)
			item[k++] = '-';
		for (const char *s = it[i].name; *s && k + 2 < sizeof(item); s++) {
			if (*s == ',' || *s == '\\')
				item[k++] = '\\';
			item[k++] = *s;
		}
		item[k] = '\0';
		if (it[i].width > 0)
			snprintf(w, sizeof(w), ":%d", it[i].width);
		int m = snprintf(buf + o, len - o, "%s%s%s", i ? "," : "", item, w);
		if (m < 0 || (size_t)m >= len - o) {
			buf[0] = '\0';
			return -1;
		}
		o += (size_t)m;
	}
	return 0;
}

void colspec_merge(const char *const *names, int nd, const struct colspec_item *it, int n,
                   int *order, bool *hidden, int *width)
{
	int no = 0, spec_of[COLSPEC_MAX];

	if (nd > COLSPEC_MAX)
		nd = COLSPEC_MAX;
	for (int d = 0; d < nd; d++) {
		spec_of[d] = -1;
		hidden[d] = false;
		width[d] = 0;
		for (int k = 0; k < n; k++)
			if (!strcmp(names[d], it[k].name)) {
				spec_of[d] = k;
				hidden[d] = it[k].hidden;
				width[d] = it[k].width;
			}
	}
	/* the named ones, in the spec's order */
	for (int k = 0; k < n; k++)
		for (int d = 0; d < nd; d++)
			if (spec_of[d] == k)
				order[no++] = d;
	/* the others after the column they follow by default */
	for (int d = 0; d < nd; d++) {
		int at = 0;
		if (spec_of[d] >= 0)
			continue;
		for (int j = 0; j < no; j++)
			if (order[j] < d && j + 1 > at)
				at = j + 1; /* after the last placed of those before it */
		memmove(&order[at + 1], &order[at], (size_t)(no - at) * sizeof(*order));
		order[at] = d;
		no++;
	}
}
