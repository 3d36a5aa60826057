/*
 * libFuzzer harness: hostile names (a process's name, user, cgroup, a
 * symbol and module, a note, an event name, the target) from the input go
 * into a model, which the text and JSON renderers write. The text must hold
 * no control byte but newlines and be valid UTF-8 without C1 controls; each
 * JSON line must be valid UTF-8 with no raw control byte, and lexically
 * strict JSON (strings, escapes, brackets).
 */
#include "model.h"
#include "snapshot.h"
#include "util.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Length of the valid UTF-8 character at s (1-4), its code point in *cp;
 * 0 when invalid. Written apart from src/untrusted.c on purpose. */
static int utf8(const unsigned char *s, const unsigned char *end, uint32_t *cp)
{
	static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
	int n = s[0] < 0x80                   ? 1
	        : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
	        : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
	        : s[0] >= 0xf0 && s[0] < 0xf5 ? 4
	                                      : 0;
	uint32_t c = n == 1 ? s[0] : n == 2 ? s[0] & 0x1fu : n == 3 ? s[0] & 0x0fu : s[0] & 0x07u;

	if (!n || s + n > end)
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static void check_text(const unsigned char *s, size_t len)
{
	const unsigned char *start = s, *end = s + len;
	uint32_t cp;

	while (s < end) {
		int n = utf8(s, end, &cp);
		if (!n || (cp < 0x20 && cp != '\n') || (cp >= 0x7f && cp <= 0x9f)) {
			fprintf(stderr, "text: byte 0x%02x at %zu, after: %.*s\n", *s,
			        (size_t)(s - start), (int)(s - start < 60 ? s - start : 60),
			        (const char *)s - (s - start < 60 ? s - start : 60));
			abort();
		}
		s += n;
	}
}

/* One JSON line: valid UTF-8, no raw control byte, every string well
 * formed, brackets balanced. */
static void check_json_line(const unsigned char *s, const unsigned char *end)
{
	int depth = 0;
	uint32_t cp;

	while (s < end) {
		int n = utf8(s, end, &cp);
		if (!n || cp < 0x20)
			abort();
		if (cp == '{' || cp == '[') {
			depth++;
		} else if (cp == '}' || cp == ']') {
			if (--depth < 0)
				abort();
		} else if (cp == '"') {
			for (s++;; s += n) {
				if (s >= end)
					abort();
				n = utf8(s, end, &cp);
				if (!n || cp < 0x20)
					abort();
				if (cp == '"')
					break;
				if (cp != '\\')
					continue;
				if (s + 1 >= end || !strchr("\"\\/bfnrtu", s[1]))
					abort();
				if (s[1] == 'u') {
					for (int i = 2; i < 6; i++)
						if (s + i >= end ||
						    !strchr("0123456789abcdefABCDEF", s[i]))
							abort();
					n = 6;
				} else {
					n = 2;
				}
			}
			n = 1;
		}
		s += n;
	}
	if (depth)
		abort();
}

/* The next field of the input: up to a NUL, at most max - 1 bytes. */
static void field(const uint8_t **p, const uint8_t *end, char *out, size_t max)
{
	size_t n = 0;

	while (*p < end && **p && n + 1 < max)
		out[n++] = (char)*(*p)++;
	out[n] = '\0';
	if (*p < end)
		(*p)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data, *end = data + size;
	struct model m;
	char *buf = NULL, note[256];
	size_t len = 0;
	FILE *f;

	if (model_init(&m, 1))
		return 0;
	m.seq = 1;
	m.interval_s = 1.0;
	m.mode = MODEL_TASKS;
	m.tasks_counted = true;
	field(&p, end, m.target, sizeof(m.target));
	field(&p, end, m.events[0].name, sizeof(m.events[0].name));
	field(&p, end, m.events[0].why, sizeof(m.events[0].why));
	m.events[0].state = COUNTER_UNSUPPORTED;
	field(&p, end, note, sizeof(note));
	model_note(&m, "%s", note);
	struct model_row *t = model_add_task(&m);
	struct model_hotspot *h = model_add_hotspot(&m);
	if (t) {
		t->pid = t->tid = 42;
		field(&p, end, t->comm, sizeof(t->comm));
		field(&p, end, t->user, sizeof(t->user));
		field(&p, end, t->cgroup, sizeof(t->cgroup));
		field(&p, end, t->note, sizeof(t->note));
		t->cpu_pct = NAN;
		m.show_cgroups = true;
	}
	if (h) {
		m.sampling.enabled = true;
		h->pid = 42;
		field(&p, end, h->comm, sizeof(h->comm));
		field(&p, end, h->symbol, sizeof(h->symbol));
		field(&p, end, h->module, sizeof(h->module));
		field(&p, end, m.sampling.why, sizeof(m.sampling.why));
	}
	for (int fmt = 0; fmt < 2; fmt++) {
		f = open_memstream(&buf, &len);
		if (!f)
			break;
		snapshot_write(f, &m, fmt ? SNAPSHOT_JSON : SNAPSHOT_TEXT);
		fclose(f);
		if (!fmt) {
			check_text((const unsigned char *)buf, len);
		} else {
			/* One line, ending in its newline. */
			if (!len || buf[len - 1] != '\n' || memchr(buf, '\n', len - 1))
				abort();
			check_json_line((const unsigned char *)buf,
			                (const unsigned char *)buf + len - 1);
		}
		free(buf);
		buf = NULL;
	}
	model_fini(&m);
	return 0;
}
