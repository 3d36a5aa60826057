/* timeline: snapshots to look back at: a recording (--replay) or the live viewer's history. */
#include "timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int timeline_open_file(struct timeline *t, int fd, char *err, size_t errlen)
{
	int ret;

	memset(t, 0, sizeof(*t));
	t->pos = -1;
	ret = pfr_open(&t->r, fd, err, errlen);
	if (ret && !err[0])
		snprintf(err, errlen, "%s", strerror(-ret));
	return ret;
}

int timeline_open_history(struct timeline *t, uint64_t keep_ns)
{
	memset(t, 0, sizeof(*t));
	t->pos = -1;
	t->history = true;
	t->keep_ns = keep_ns;
	t->max_bytes = TIMELINE_HISTORY_BYTES;
	if (pfr_open_memory(&t->r))
		return -ENOMEM;
	if (pfr_writer_init(&t->w, 0)) {
		pfr_close(&t->r);
		return -ENOMEM;
	}
	t->w.level = TIMELINE_LEVEL;
	return 0;
}

void timeline_close(struct timeline *t)
{
	if (t->have_m)
		model_fini(&t->m);
	pfr_close(&t->r);
	if (t->history)
		pfr_writer_fini(&t->w);
	memset(t, 0, sizeof(*t));
	t->pos = -1;
}

/* Bytes the history's frames hold. */
static size_t held(const struct timeline *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->r.nr; i++)
		n += PFR_HEADER_LEN + t->r.frames[i].len;
	return n;
}

/* Forget the oldest key frame runs while the frames hold more than max_bytes. */
static void trim_bytes(struct timeline *t)
{
	while (t->bytes > t->max_bytes) {
		const size_t nr = t->r.nr;
		size_t k = 1;

		while (k < nr && !t->r.frames[k].is_key)
			k++;
		if (k >= nr)
			return; /* one run: it stays */
		timeline_forget(t, (long)k);
		if (t->r.nr == nr)
			return; /* the clock went back: nothing is older */
	}
}

int timeline_add(struct timeline *t, const struct model *m)
{
	size_t len, before = t->r.nr;
	unsigned char *frame = pfr_encode(&t->w, m, false, &len), *kept;
	int ret;

	if (!frame)
		return -errno;
	/* made room for the worst case, zstd's bound on the whole JSON: kept,
	 * it takes its own size (a tenth of that or less) */
	kept = realloc(frame, len);
	if (kept)
		frame = kept;
	ret = pfr_append(&t->r, frame, len);
	if (ret) {
		pfr_writer_rekey(&t->w);
		return ret;
	}
	if (t->r.nr == before + 1)
		t->bytes += len;
	if (m->wall_ns > t->keep_ns) {
		pfr_forget_before(&t->r, m->wall_ns - t->keep_ns);
		if (t->pos >= 0)
			t->pos -= (long)(before + 1 - t->r.nr);
		if (t->pos < 0 && t->have_m) {
			model_fini(&t->m);
			t->have_m = false;
			t->pos = -1;
		}
		if (t->r.nr != before + 1)
			t->bytes = held(t);
	}
	trim_bytes(t);
	return 0;
}

void timeline_forget(struct timeline *t, long n)
{
	size_t before = t->r.nr;

	if (n <= 0 || (size_t)n >= t->r.nr)
		return;
	pfr_forget_before(&t->r, t->r.frames[n].wall_ns);
	t->bytes = held(t);
	if (t->pos >= 0)
		t->pos -= (long)(before - t->r.nr);
	if (t->pos < 0 && t->have_m) {
		model_fini(&t->m);
		t->have_m = false;
		t->pos = -1;
	}
}

const struct model *timeline_show(struct timeline *t, long pos, char *err, size_t errlen)
{
	struct model m;
	int ret;

	if (!t->r.nr) {
		snprintf(err, errlen, "nothing recorded yet");
		return NULL;
	}
	if (pos < 0)
		pos = 0;
	if (pos >= (long)t->r.nr)
		pos = (long)t->r.nr - 1;
	if (t->have_m && pos == t->pos && t->rebuilds == t->r.rebuilds)
		return &t->m;
	ret = pfr_read(&t->r, (size_t)pos, &m, err, errlen);
	if (ret)
		return NULL;
	if (t->have_m)
		model_fini(&t->m);
	t->m = m;
	t->have_m = true;
	t->pos = pos;
	t->rebuilds = t->r.rebuilds;
	return &t->m;
}

int timeline_parse_time(const char *text, uint64_t ref_wall_ns, uint64_t *wall_ns)
{
	time_t ref = (time_t)(ref_wall_ns / 1000000000ull), when;
	struct tm tm;
	int y, mo, d, h, mi, s = 0, n = 0;
	char sep;

	localtime_r(&ref, &tm);
	if (sscanf(text, "%4d-%2d-%2d%c%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi, &n) == 6 &&
	    (sep == ' ' || sep == 'T')) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
	} else if (n = 0, sscanf(text, "%2d:%2d%n", &h, &mi, &n) != 2) {
		return -EINVAL;
	}
	if (text[n] == ':') {
		int m2 = 0;

		if (sscanf(text + n, ":%2d%n", &s, &m2) != 1)
			return -EINVAL;
		n += m2;
	}
	if (text[n] || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60)
		return -EINVAL;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	tm.tm_isdst = -1;
	when = mktime(&tm);
	if (when == (time_t)-1 || when < 0)
		return -EINVAL;
	*wall_ns = (uint64_t)when * 1000000000ull;
	return 0;
}

void timeline_clock(uint64_t wall_ns, char *buf, size_t len)
{
	time_t t = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;
	char day[32];

	localtime_r(&t, &tm);
	strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03u", day, (unsigned)(wall_ns / 1000000ull % 1000));
}
