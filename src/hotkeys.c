/* hotkeys: the keys hotspot rows are grouped by (perf top's --sort keys). */
#include "hotkeys.h"

#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *const names[HOTKEYS_NR] = {"sym", "dso", "comm", "pid", "tid", "cpu"};

static const char *const cycle[] = {"dso,sym", "sym",  "comm,dso,sym", "pid,sym",
                                    "dso",     "comm", "pid",          "cpu"};

const char *hotkeys_name(enum hotkeys_key key)
{
	return (unsigned)key < HOTKEYS_NR ? names[key] : "?";
}

static int key_of(const char *s, size_t len)
{
	if (len == 6 && !strncmp(s, "symbol", 6))
		return HOTKEYS_SYM;
	for (int i = 0; i < HOTKEYS_NR; i++)
		if (strlen(names[i]) == len && !strncmp(s, names[i], len))
			return i;
	return -1;
}

int hotkeys_parse(const char *s, struct hotkeys *k, char *err, size_t errlen)
{
	struct hotkeys out = {0};
	const char *p = s;

	if (!s || !*s) {
		snprintf(err, errlen,
		         "no grouping keys: give a comma list of sym, dso, comm, pid, "
		         "tid, cpu");
		return -EINVAL;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int key = key_of(p, len);

		if (!len) {
			snprintf(err, errlen,
			         "an empty key in '%.64s'; give a comma list of sym, "
			         "dso, comm, pid, tid, cpu",
			         s);
			return -EINVAL;
		}
		if (key < 0) {
			snprintf(err, errlen,
			         "'%.*s' is not a grouping key; use sym, dso, comm, "
			         "pid, tid or cpu",
			         len > 32 ? 32 : (int)len, p);
			return -EINVAL;
		}
		if (hotkeys_has(&out, (enum hotkeys_key)key)) {
			snprintf(err, errlen, "'%s' is given twice", names[key]);
			return -EINVAL;
		}
		out.key[out.nr++] = (enum hotkeys_key)key;
		if (!comma)
			break;
		p = comma + 1;
	}
	*k = out;
	return 0;
}

void hotkeys_format(const struct hotkeys *k, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < k->nr && n < len; i++) {
		int w = snprintf(buf + n, len - n, "%s%s", i ? "," : "", hotkeys_name(k->key[i]));
		if (w < 0)
			return;
		n += (size_t)w;
	}
}

bool hotkeys_has(const struct hotkeys *k, enum hotkeys_key key)
{
	for (int i = 0; i < k->nr; i++)
		if (k->key[i] == key)
			return true;
	return false;
}

const char *hotkeys_next(const char *current)
{
	for (size_t i = 0; i < ARRAY_SIZE(cycle); i++)
		if (current && !strcmp(current, cycle[i]))
			return cycle[(i + 1) % ARRAY_SIZE(cycle)];
	return cycle[0];
}
