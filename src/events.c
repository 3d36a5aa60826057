/* events: resolve event names (sysfs PMUs, raw, tracepoints, libpfm4) to perf_event_attr. */
#include "events_priv.h"
#include "pfmlib.h"

#include <linux/hw_breakpoint.h>
#include <perfmon/pfmlib_perf_event.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define EVENTS_PMU_ROOT "/sys/bus/event_source/devices"

/* Longest term list or alias file we accept. */

int events_init(char *err, size_t errlen)
{
	return pfmlib_get(err, errlen) ? 0 : -EIO;
}

const char *events_pmu_root(const struct event_roots *r)
{
	return r && r->pmu_devices ? r->pmu_devices : EVENTS_PMU_ROOT;
}

/* snprintf that reports truncation: 0 or -ENAMETOOLONG (buf holds a prefix). */
int events_strfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool events_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool has_events_dir(const char *root)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events", root);
	return events_is_dir(path);
}

const char *events_tracefs(const struct event_roots *r)
{
	static const char *const defaults[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	size_t i;

	if (r && r->tracefs)
		return has_events_dir(r->tracefs) ? r->tracefs : NULL;
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		if (has_events_dir(defaults[i]))
			return defaults[i];
	return NULL;
}

int events_tracefs_denied(const struct event_roots *r, char *buf, size_t len)
{
	static const char *const defaults[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
	char path[PATH_MAX];
	struct stat st;

	if (r && r->tracefs)
		return 0;
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		snprintf(path, sizeof(path), "%s/events", defaults[i]);
		if (stat(path, &st) == 0 || errno != EACCES)
			continue;
		/* The mount point itself can be looked at: say what it is. */
		if (stat(defaults[i], &st) == 0)
			snprintf(buf, len,
			         "tracefs at %s is mode %04o, owner uid %u, and you (uid %u) may "
			         "not read it: tracepoints are named there; run as root, or make "
			         "it readable (mount -o remount,mode=0755 %s)",
			         defaults[i], (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
			         (unsigned)getuid(), defaults[i]);
		else
			snprintf(buf, len,
			         "tracefs under %s cannot be read by you (uid %u): tracepoints "
			         "are named there; run as root",
			         defaults[i], (unsigned)getuid());
		return -EACCES;
	}
	return 0;
}

/* Read a small text file into buf without its trailing whitespace. */
int events_read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

/* Parse "0x1f" (hex) or "31" (decimal), the whole string. */
static int parse_u64(const char *s, uint64_t *v)
{
	int base = 10;
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	return errno || *end ? -EINVAL : 0;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Parse s (the whole string) as modifiers. 0, or -EINVAL when it is not
 * one (an unknown letter, more than three 'p', empty). */
int events_mods_parse(const char *s, struct mods *m)
{
	memset(m, 0, sizeof(*m));
	if (!*s || strlen(s) >= sizeof(m->rest))
		return -EINVAL;
	for (; *s; s++) {
		switch (*s) {
		case 'u':
			m->uk |= MOD_U;
			continue;
		case 'k':
			m->uk |= MOD_K;
			continue;
		case 'h':
			m->h = true;
			break;
		case 'p':
			if (++m->precise > 3)
				return -EINVAL;
			break;
		case 'H':
			m->host = true;
			break;
		case 'G':
			m->guest = true;
			break;
		case 'I':
			m->idle = true;
			break;
		case 'S':
			m->read = true;
			break;
		case 'D':
			m->pinned = true;
			break;
		case 'W':
			m->weak = true;
			break;
		case 'e':
			m->exclusive = true;
			break;
		default:
			return -EINVAL;
		}
		m->rest[strlen(m->rest)] = *s;
	}
	return 0;
}

/* Cut a trailing ":MODIFIERS" off name into *m (zeroed when there is none;
 * "pmu::event" keeps its "::"). */
void events_mods_strip(char *name, struct mods *m)
{
	char *colon = strrchr(name, ':');

	memset(m, 0, sizeof(*m));
	if (!colon || colon == name || colon[-1] == ':')
		return;
	if (events_mods_parse(colon + 1, m) == 0)
		*colon = '\0';
	else
		memset(m, 0, sizeof(*m));
}

/* What the modifiers besides u and k change, once the event is resolved. */
static void mods_apply_rest(struct event_desc *d, const struct mods *m)
{
	struct perf_event_attr *a = &d->attr;

	if (m->h) {
		/* the hypervisor too (alone: only it) */
		a->exclude_hv = 0;
		if (!m->uk) {
			a->exclude_user = 1;
			a->exclude_kernel = 1;
		}
	}
	a->precise_ip = (unsigned)m->precise;
	if (m->host != m->guest) {
		a->exclude_guest = m->host;
		a->exclude_host = m->guest;
	} else if (m->host) {
		a->exclude_guest = 0;
		a->exclude_host = 0;
	}
	if (m->idle)
		a->exclude_idle = 1;
	if (m->pinned)
		a->pinned = 1;
	if (m->exclusive)
		a->exclusive = 1;
	if (m->rest[0]) {
		size_t n = strlen(d->encoding);
		snprintf(d->encoding + n, sizeof(d->encoding) - n, " [:%s]", m->rest);
	}
}

/* The modifier rule for sources libpfm4 does not handle; exclude_hv as perf does. */
static void mod_apply(struct perf_event_attr *attr, int mod)
{
	if (!mod)
		return;
	attr->exclude_hv = 1;
	if (!(mod & MOD_K))
		attr->exclude_kernel = 1;
	if (!(mod & MOD_U))
		attr->exclude_user = 1;
}

static const char *mod_suffix(int mod)
{
	static const char *const suffix[] = {"", "u", "k", "uk"};

	return suffix[mod & 3];
}

/* ---- sysfs PMUs: pmu/term=val,alias,flag/ ---- */

struct sysfs_ctx {
	const char *pmu;
	char dir[PATH_MAX]; /* <root>/<pmu> */
	struct event_desc *d;
	char terms[EVENTS_ENC_MAX]; /* canonical terms applied so far */
	char *err;
	size_t errlen;
};

/* Put val into the bits a format file ("config1:0-7,32-35") names. */
static int format_apply(struct sysfs_ctx *c, const char *term, const char *format, uint64_t val)
{
	struct perf_event_attr *attr = &c->d->attr;
	char buf[128], *colon, *range, *save;
	unsigned int lo[16], hi[16], width = 0;
	int i, nr = 0;
	__u64 *field;

	snprintf(buf, sizeof(buf), "%s", format);
	colon = strchr(buf, ':');
	if (!colon)
		goto bad;
	*colon = '\0';
	if (!strcmp(buf, "config"))
		field = &attr->config;
	else if (!strcmp(buf, "config1"))
		field = &attr->config1;
	else if (!strcmp(buf, "config2"))
		field = &attr->config2;
	else
		goto bad;
	for (range = strtok_r(colon + 1, ",", &save); range; range = strtok_r(NULL, ",", &save)) {
		if (nr == 16)
			goto bad;
		i = sscanf(range, "%u-%u", &lo[nr], &hi[nr]);
		if (i == 1)
			hi[nr] = lo[nr];
		if (i < 1 || hi[nr] < lo[nr] || hi[nr] > 63)
			goto bad;
		width += hi[nr] - lo[nr] + 1;
		nr++;
	}
	if (!nr)
		goto bad;
	if (width < 64 && val >> width) {
		snprintf(c->err, c->errlen,
		         "value 0x%llx is too wide for term '%s' of PMU '%s' (%u bits: %s)",
		         (unsigned long long)val, term, c->pmu, width, format);
		return -EINVAL;
	}
	for (i = 0; i < nr; i++) {
		unsigned int bits = hi[i] - lo[i] + 1;
		uint64_t mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;

		*field = (*field & ~(mask << lo[i])) | ((val & mask) << lo[i]);
		val = bits == 64 ? 0 : val >> bits;
	}
	return 0;
bad:
	snprintf(c->err, c->errlen, "cannot parse format '%s' of term '%s' in %s/format", format,
	         term, c->dir);
	return -EINVAL;
}

/* Write "a, b, c" (sorted entries of dir, minus hidden ones) into buf. */
static void list_dir(const char *dir, char *buf, size_t len)
{
	struct dirent **ents;
	size_t off = 0;
	int i, n;

	buf[0] = '\0';
	n = scandir(dir, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.' && off < len)
			off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
			                ents[i]->d_name);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

static int sysfs_terms(struct sysfs_ctx *c, const char *terms, bool in_alias);

/* The part of d->name that a refusal is about (see struct event_desc). */
static void set_err_at(struct event_desc *d, size_t at, size_t len)
{
	d->err_at = (unsigned short)at;
	d->err_len = (unsigned short)(len ? len : 1);
}

/* Expand an alias from <pmu>/events/, with its optional .scale and .unit. */
static int sysfs_alias(struct sysfs_ctx *c, const char *path)
{
	char buf[TERMS_MAX], extra[PATH_MAX + 8], scale[64];
	int ret;

	ret = events_read_text(path, buf, sizeof(buf));
	if (ret < 0) {
		snprintf(c->err, c->errlen, "cannot read %s: %s", path, strerror(-ret));
		return ret;
	}
	if (!events_strfmt(extra, sizeof(extra), "%s.scale", path) &&
	    events_read_text(extra, scale, sizeof(scale)) == 0)
		c->d->scale = strtod(scale, NULL);
	if (!events_strfmt(extra, sizeof(extra), "%s.unit", path))
		events_read_text(extra, c->d->unit, sizeof(c->d->unit));
	return sysfs_terms(c, buf, true);
}

/* One term: "name=value", a flag "name" (value 1) or, outside aliases, an alias. */
static int sysfs_term(struct sysfs_ctx *c, char *term, bool in_alias)
{
	char path[PATH_MAX + 80], format[128], valid[256], *eq = strchr(term, '=');
	struct perf_event_attr *attr = &c->d->attr;
	uint64_t val = 1;
	size_t off;
	int ret;

	if (eq) {
		*eq = '\0';
		if (parse_u64(trim(eq + 1), &val) < 0) {
			snprintf(c->err, c->errlen,
			         "bad value '%s' for '%s' of PMU '%s': use hex (0x..) or decimal",
			         trim(eq + 1), trim(term), c->pmu);
			return -EINVAL;
		}
	}
	term = trim(term);
	if (!term[0] || strchr(term, '/') || term[0] == '.') {
		snprintf(c->err, c->errlen, "empty or bad term in '%s'", c->d->name);
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/events/%s", c->dir, term);
	if (!eq && !in_alias && access(path, R_OK) == 0)
		return sysfs_alias(c, path);

	snprintf(path, sizeof(path), "%s/format/%s", c->dir, term);
	if (events_read_text(path, format, sizeof(format)) == 0) {
		ret = format_apply(c, term, format, val);
		if (ret < 0)
			return ret;
	} else if (!strcmp(term, "config")) {
		attr->config = val;
	} else if (!strcmp(term, "config1")) {
		attr->config1 = val;
	} else if (!strcmp(term, "config2")) {
		attr->config2 = val;
	} else {
		snprintf(path, sizeof(path), "%s/format", c->dir);
		list_dir(path, valid, sizeof(valid));
		snprintf(c->err, c->errlen,
		         "unknown %s '%s' for PMU '%s': valid terms are %s, "
		         "or an event from 'pfmtop --list-events \"%s/*\"'",
		         eq ? "term" : "event or term", term, c->pmu, valid[0] ? valid : "(none)",
		         c->pmu);
		return eq ? -EINVAL : -ENOENT;
	}
	off = strlen(c->terms);
	snprintf(c->terms + off, sizeof(c->terms) - off, "%s%s=0x%llx", off ? "," : "", term,
	         (unsigned long long)val);
	return 0;
}

static int sysfs_terms(struct sysfs_ctx *c, const char *terms, bool in_alias)
{
	char buf[TERMS_MAX], *term, *next;
	int ret;

	if (strlen(terms) >= sizeof(buf)) {
		snprintf(c->err, c->errlen, "term list too long in '%s'", c->d->name);
		return -EINVAL;
	}
	strcpy(buf, terms);
	next = trim(buf);
	if (!*next)
		return 0;
	while ((term = strsep(&next, ","))) {
		/* where it was written (an alias's own terms: the alias's) */
		size_t at = in_alias ? 0 : (size_t)(terms - c->pmu) + (size_t)(term - buf);
		size_t n = strlen(term);

		ret = sysfs_term(c, term, in_alias);
		if (ret < 0) {
			if (!in_alias)
				set_err_at(c->d, at, n);
			return ret;
		}
	}
	return 0;
}

static bool sysfs_is_software(const char *pmu)
{
	static const char *const soft[] = {"software", "tracepoint", "breakpoint", "kprobe",
	                                   "uprobe"};
	size_t i;

	for (i = 0; i < sizeof(soft) / sizeof(soft[0]); i++)
		if (!strcmp(pmu, soft[i]))
			return true;
	return false;
}

/* The modifiers of src added to those in dst. */
static void mods_merge(struct mods *dst, const struct mods *src)
{
	size_t n = strlen(dst->rest);

	dst->uk |= src->uk;
	dst->h |= src->h;
	dst->precise = dst->precise > src->precise ? dst->precise : src->precise;
	dst->host |= src->host;
	dst->guest |= src->guest;
	dst->idle |= src->idle;
	dst->read |= src->read;
	dst->pinned |= src->pinned;
	dst->weak |= src->weak;
	dst->exclusive |= src->exclusive;
	snprintf(dst->rest + n, sizeof(dst->rest) - n, "%s", src->rest);
}

static int resolve_sysfs(const struct event_roots *r, char *spec, struct mods *mods,
                         struct event_desc *d, char *err, size_t errlen)
{
	int mod;
	struct sysfs_ctx c = {.pmu = spec, .d = d, .err = err, .errlen = errlen};
	char *open = strchr(spec, '/'), *close = strrchr(spec, '/');
	char path[PATH_MAX + 16], buf[64], cfg[96] = "";
	uint64_t type;
	int ret;

	if (open == close) {
		snprintf(err, errlen, "missing closing '/' in '%s': write it as pmu/terms/",
		         d->name);
		return -EINVAL;
	}
	*open = '\0';
	*close = '\0';
	if (close[1]) {
		struct mods tail;

		if (events_mods_parse(close + 1, &tail)) {
			snprintf(err, errlen,
			         "unknown modifier '%s' after '%s/.../': " EVENTS_MODS_HINT,
			         close + 1, spec);
			set_err_at(d, (size_t)(close + 1 - spec), strlen(close + 1));
			return -EINVAL;
		}
		mods_merge(mods, &tail);
	}
	mod = mods->uk;
	if (!spec[0] || spec[0] == '.') {
		snprintf(err, errlen, "bad PMU name in '%s'", d->name);
		return -EINVAL;
	}
	if (events_strfmt(c.dir, sizeof(c.dir), "%s/%s", events_pmu_root(r), spec) ||
	    events_strfmt(path, sizeof(path), "%s/type", c.dir) ||
	    events_read_text(path, buf, sizeof(buf)) < 0 || parse_u64(buf, &type) < 0) {
		snprintf(err, errlen, "no PMU '%s' on this machine (see %s)", spec,
		         events_pmu_root(r));
		set_err_at(d, 0, strlen(spec));
		return -ENODEV;
	}
	d->attr.type = (uint32_t)type;
	ret = sysfs_terms(&c, open + 1, false);
	if (ret < 0)
		return ret;
	mod_apply(&d->attr, mod);

	snprintf(path, sizeof(path), "%s/cpumask", c.dir);
	events_read_text(path, d->cpumask, sizeof(d->cpumask));
	snprintf(d->pmu, sizeof(d->pmu), "%s", spec);
	d->source = EVENTS_SRC_SYSFS;
	d->hardware = !sysfs_is_software(spec);
	if (d->attr.config1)
		snprintf(cfg, sizeof(cfg), ", config1 0x%llx", (unsigned long long)d->attr.config1);
	if (d->attr.config2)
		snprintf(cfg + strlen(cfg), sizeof(cfg) - strlen(cfg), ", config2 0x%llx",
		         (unsigned long long)d->attr.config2);
	events_strfmt(d->encoding, sizeof(d->encoding), "%s/%s/%s (type %u, config 0x%llx%s)", spec,
	              c.terms, mod_suffix(mod), d->attr.type, (unsigned long long)d->attr.config,
	              cfg);
	return 0;
}

/* ---- raw rNNNN ---- */

static bool is_raw(const char *s)
{
	if (s[0] != 'r')
		return false;
	s += (s[1] == '0' && s[2] == 'x') ? 3 : 1;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return false;
	return true;
}

static void resolve_raw(const char *base, int mod, struct event_desc *d)
{
	const char *hex = base + ((base[1] == '0' && base[2] == 'x') ? 3 : 1);

	d->attr.type = PERF_TYPE_RAW;
	d->attr.config = strtoull(hex, NULL, 16);
	mod_apply(&d->attr, mod);
	d->source = EVENTS_SRC_RAW;
	d->hardware = true;
	snprintf(d->pmu, sizeof(d->pmu), "raw");
	snprintf(d->encoding, sizeof(d->encoding), "r%llx%s%s (type %u, config 0x%llx)",
	         (unsigned long long)d->attr.config, mod ? ":" : "", mod_suffix(mod), PERF_TYPE_RAW,
	         (unsigned long long)d->attr.config);
}

/* ---- tracepoints subsys:name ---- */

/* Two non-empty parts of [a-z0-9_-] around a single ':'. */
static bool tp_shape(const char *s)
{
	const char *colon = strchr(s, ':');

	if (!colon || colon == s || !colon[1] || strchr(colon + 1, ':'))
		return false;
	for (; *s; s++)
		if (*s != ':' && !islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '_' && *s != '-')
			return false;
	return true;
}

/* 0 when base names a tracepoint, 1 when it does not, or a negative errno. */
static int resolve_tracepoint(const struct event_roots *r, const char *base, int mod,
                              struct event_desc *d, char *err, size_t errlen)
{
	const char *tfs = events_tracefs(r);
	char sub[EVENTS_NAME_MAX], path[PATH_MAX + 2 * EVENTS_NAME_MAX], buf[32];
	const char *name;
	uint64_t id;

	if (!tfs || !tp_shape(base))
		return 1;
	name = strchr(base, ':') + 1;
	snprintf(sub, sizeof(sub), "%.*s", (int)(name - base - 1), base);
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tfs, sub, name);
	if (events_read_text(path, buf, sizeof(buf)) < 0)
		return 1;
	if (parse_u64(buf, &id) < 0) {
		snprintf(err, errlen, "bad tracepoint id '%s' in %s", buf, path);
		return -EINVAL;
	}
	d->attr.type = PERF_TYPE_TRACEPOINT;
	d->attr.config = id;
	mod_apply(&d->attr, mod);
	d->source = EVENTS_SRC_TRACEPOINT;
	snprintf(d->pmu, sizeof(d->pmu), "tracepoint");
	snprintf(d->encoding, sizeof(d->encoding), "%s%s%s (tracepoint id %llu)", base,
	         mod ? ":" : "", mod_suffix(mod), (unsigned long long)id);
	return 0;
}

/* ---- the kernel's generic events, without libpfm4 ---- */

/*
 * perf's names for the generic hardware, software and cache events, encoded
 * exactly as libpfm4 encodes them (its "perf" PMU, PFM_OS_PERF_EVENT_EXT,
 * default privilege levels user and kernel): the same attr fields and the
 * same fstr as encoding. Most runs name nothing else, and then libpfm4 is
 * never loaded. tests/unit/test_events_builtin.c checks every entry with
 * every modifier against libpfm4 itself.
 *
 * Lookups are byte for byte: libpfm4 compares names without regard to case,
 * so "Cycles" or "CYCLES" go to it and come back the same.
 *
 * x86 only: libpfm4 looks a name up in the CPU's PMU before its "perf" PMU,
 * and this list is checked against the x86 PMU tables (18k events; the only
 * clash is Knights Corner's BRANCHES, so "branches" is left to libpfm4).
 * Other architectures' tables were not checked (s390's cpum_cf has an
 * INSTRUCTIONS counter, for one): there every name goes to libpfm4.
 */
struct builtin_event {
	const char *name;  /* as perf spells it */
	const char *event; /* libpfm4's perf:: event, as in its fstr */
	__u32 type;
	__u64 config;
};

#define HW(n, e)                                                                                   \
	{                                                                                          \
		n, #e, PERF_TYPE_HARDWARE, e                                                       \
	}
#define SW(n, e)                                                                                   \
	{                                                                                          \
		n, #e, PERF_TYPE_SOFTWARE, e                                                       \
	}
#define HWC(n, c, op, res)                                                                         \
	{                                                                                          \
		n, "PERF_COUNT_HW_CACHE_" #c ":" #op ":" #res, PERF_TYPE_HW_CACHE,                 \
		    PERF_COUNT_HW_CACHE_##c | PERF_COUNT_HW_CACHE_OP_##op << 8 |                   \
		        PERF_COUNT_HW_CACHE_RESULT_##res << 16                                     \
	}
static const struct builtin_event builtin_events[] = {
#if defined(__x86_64__) || defined(__i386__)
    HW("cycles", PERF_COUNT_HW_CPU_CYCLES),
    HW("cpu-cycles", PERF_COUNT_HW_CPU_CYCLES),
    HW("instructions", PERF_COUNT_HW_INSTRUCTIONS),
    HW("cache-references", PERF_COUNT_HW_CACHE_REFERENCES),
    HW("cache-misses", PERF_COUNT_HW_CACHE_MISSES),
    HW("branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
    HW("branch-misses", PERF_COUNT_HW_BRANCH_MISSES),
    HW("bus-cycles", PERF_COUNT_HW_BUS_CYCLES),
    HW("stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND),
    HW("stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND),
    HW("ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES),
    SW("cpu-clock", PERF_COUNT_SW_CPU_CLOCK),
    SW("task-clock", PERF_COUNT_SW_TASK_CLOCK),
    SW("page-faults", PERF_COUNT_SW_PAGE_FAULTS),
    SW("faults", PERF_COUNT_SW_PAGE_FAULTS),
    SW("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES),
    SW("cs", PERF_COUNT_SW_CONTEXT_SWITCHES),
    SW("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS),
    SW("migrations", PERF_COUNT_SW_CPU_MIGRATIONS),
    SW("minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN),
    SW("major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ),
    /* The cache events libpfm4 has perf's names for (a preset's fallback,
     * like the default's LLC-load-misses, is resolved when the event it
     * stands in for does not open: on every machine without a PMU). */
    HWC("L1-dcache-loads", L1D, READ, ACCESS),
    HWC("L1-dcache-load-misses", L1D, READ, MISS),
    HWC("L1-dcache-stores", L1D, WRITE, ACCESS),
    HWC("L1-dcache-store-misses", L1D, WRITE, MISS),
    HWC("L1-dcache-prefetches", L1D, PREFETCH, ACCESS),
    HWC("L1-dcache-prefetch-misses", L1D, PREFETCH, MISS),
    HWC("L1-icache-loads", L1I, READ, ACCESS),
    HWC("L1-icache-load-misses", L1I, READ, MISS),
    HWC("L1-icache-prefetches", L1I, PREFETCH, ACCESS),
    HWC("L1-icache-prefetch-misses", L1I, PREFETCH, MISS),
    HWC("LLC-loads", LL, READ, ACCESS),
    HWC("LLC-load-misses", LL, READ, MISS),
    HWC("LLC-stores", LL, WRITE, ACCESS),
    HWC("LLC-store-misses", LL, WRITE, MISS),
    HWC("LLC-prefetches", LL, PREFETCH, ACCESS),
    HWC("LLC-prefetch-misses", LL, PREFETCH, MISS),
    HWC("dTLB-loads", DTLB, READ, ACCESS),
    HWC("dTLB-load-misses", DTLB, READ, MISS),
    HWC("dTLB-stores", DTLB, WRITE, ACCESS),
    HWC("dTLB-store-misses", DTLB, WRITE, MISS),
    HWC("dTLB-prefetches", DTLB, PREFETCH, ACCESS),
    HWC("dTLB-prefetch-misses", DTLB, PREFETCH, MISS),
    HWC("iTLB-loads", ITLB, READ, ACCESS),
    HWC("iTLB-load-misses", ITLB, READ, MISS),
    HWC("branch-loads", BPU, READ, ACCESS),
    HWC("branch-load-misses", BPU, READ, MISS),
    HWC("node-loads", NODE, READ, ACCESS),
    HWC("node-load-misses", NODE, READ, MISS),
    HWC("node-stores", NODE, WRITE, ACCESS),
    HWC("node-store-misses", NODE, WRITE, MISS),
    HWC("node-prefetches", NODE, PREFETCH, ACCESS),
    HWC("node-prefetch-misses", NODE, PREFETCH, MISS),
#endif
    {NULL, NULL, 0, 0},
};
#undef HW
#undef SW
#undef HWC

const char *events_builtin_name(int i)
{
	if (i < 0 || (size_t)i >= sizeof(builtin_events) / sizeof(builtin_events[0]))
		return NULL;
	return builtin_events[i].name;
}

/* 0 when base is in the table, 1 when it is not. */
static int resolve_builtin(const char *base, int mod, struct event_desc *d)
{
	const struct builtin_event *b;
	int u, k;

	for (b = builtin_events; b->name && strcmp(b->name, base); b++)
		;
	if (!b->name)
		return 1;
	/* No modifier means libpfm4's default levels, user and kernel. */
	u = !mod || (mod & MOD_U);
	k = !mod || (mod & MOD_K);
	d->attr.type = b->type;
	d->attr.config = b->config;
	d->attr.exclude_user = !u;
	d->attr.exclude_kernel = !k;
	d->attr.exclude_hv = 1;    /* h=0 */
	d->attr.exclude_guest = 1; /* mg=0 */
	d->source = EVENTS_SRC_LIBPFM;
	d->hardware = b->type != PERF_TYPE_SOFTWARE;
	snprintf(d->pmu, sizeof(d->pmu), "perf");
	snprintf(d->encoding, sizeof(d->encoding), "perf::%s:u=%d:k=%d%s:excl=0:mg=0:mh=1",
	         b->event, u, k, b->type != PERF_TYPE_SOFTWARE ? ":h=0:precise=0" : "");
	return 0;
}

/* ---- libpfm4 ---- */

/* true when libpfm4 knows PMU name but did not detect it here. */
static bool libpfm_pmu_absent(const struct pfmlib *lib, const char *name, size_t len)
{
	pfm_pmu_info_t info;
	int i;

	pfm_for_all_pmus(i)
	{
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (lib->get_pmu_info(i, &info) == PFM_SUCCESS && strlen(info.name) == len &&
		    !strncmp(info.name, name, len))
			return !info.is_present;
	}
	return false;
}

/* The first absent PMU (only: NULL for any) that has an event called name
 * (up to its first ':'), in pmu; false when none has. */
static bool libpfm_absent_event(const struct pfmlib *lib, const char *only, const char *name,
                                char *pmu, size_t len)
{
	size_t n = strcspn(name, ":");
	pfm_pmu_info_t info;
	pfm_event_info_t ei;
	int i;

	pfm_for_all_pmus(i)
	{
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (lib->get_pmu_info(i, &info) != PFM_SUCCESS || info.is_present ||
		    (only && strcmp(info.name, only)))
			continue;
		for (int e = info.first_event; e != -1; e = lib->get_event_next(e)) {
			memset(&ei, 0, sizeof(ei));
			ei.size = sizeof(ei);
			if (lib->get_event_info(e, PFM_OS_NONE, &ei) == PFM_SUCCESS &&
			    strlen(ei.name) == n && !strncasecmp(ei.name, name, n)) {
				snprintf(pmu, len, "%s", info.name);
				return true;
			}
		}
	}
	return false;
}

static int resolve_libpfm(const char *base, int mod, struct event_desc *d, char *err, size_t errlen)
{
	static const char *const suffix[] = {"", ":u", ":k", ":u:k"};
	char name[EVENTS_NAME_MAX + 8], *fstr = NULL, *sep, why[320];
	const struct pfmlib *lib = pfmlib_get(why, sizeof(why));
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret;

	if (!lib) {
		/* perhaps a name of a PMU, but not one known here: a gap, not a typo */
		snprintf(err, errlen, "unknown event '%s': %s", d->name, why);
		return -ENODEV;
	}
	snprintf(name, sizeof(name), "%s%s", base, suffix[mod & 3]);
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	ret = lib->get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_ERR_NOTFOUND) {
		char pmu[64];

		/* An event of a PMU that is not here is a gap of this machine
		 * (-ENODEV); a name that no PMU has is a mistake (-ENOENT). */
		sep = strstr(base, "::");
		if (sep && libpfm_pmu_absent(lib, base, (size_t)(sep - base))) {
			snprintf(pmu, sizeof(pmu), "%.*s", (int)(sep - base), base);
			bool has = libpfm_absent_event(lib, pmu, sep + 2, pmu, sizeof(pmu));
			snprintf(err, errlen,
			         "unknown event '%s': PMU '%.*s' is not present on this "
			         "machine%s; " EVENTS_HINT,
			         d->name, (int)(sep - base), base,
			         has ? "" : " and has no such event");
			return has ? -ENODEV : -ENOENT;
		}
		if (!sep && libpfm_absent_event(lib, NULL, base, pmu, sizeof(pmu))) {
			snprintf(err, errlen,
			         "unknown event '%s': an event of PMU '%s' (and perhaps others), "
			         "which is not present on this machine; " EVENTS_HINT,
			         d->name, pmu);
			return -ENODEV;
		}
		snprintf(err, errlen, "unknown event '%s': " EVENTS_HINT, d->name);
		return -ENOENT;
	}
	if (ret != PFM_SUCCESS) {
		snprintf(err, errlen, "cannot use event '%s': %s; " EVENTS_HINT, d->name,
		         lib->strerror(ret));
		free(fstr);
		return ret == PFM_ERR_NOMEM ? -ENOMEM : -EINVAL;
	}
	if (mod && (attr.exclude_user != !(mod & MOD_U) || attr.exclude_kernel != !(mod & MOD_K))) {
		snprintf(err, errlen, "event '%s' does not honour the modifier ':%s'", d->name,
		         mod_suffix(mod));
		free(fstr);
		return -EINVAL;
	}
	d->attr.type = attr.type;
	d->attr.config = attr.config;
	d->attr.config1 = attr.config1;
	d->attr.config2 = attr.config2;
	d->attr.exclude_user = attr.exclude_user;
	d->attr.exclude_kernel = attr.exclude_kernel;
	d->attr.exclude_hv = attr.exclude_hv;
	d->attr.exclude_idle = attr.exclude_idle;
	d->attr.exclude_host = attr.exclude_host;
	d->attr.exclude_guest = attr.exclude_guest;
	d->source = EVENTS_SRC_LIBPFM;
	d->hardware = attr.type == PERF_TYPE_HARDWARE || attr.type == PERF_TYPE_HW_CACHE ||
	              attr.type == PERF_TYPE_RAW || attr.type >= PERF_TYPE_MAX;
	if (fstr) {
		snprintf(d->encoding, sizeof(d->encoding), "%s", fstr);
		sep = strstr(fstr, "::");
		snprintf(d->pmu, sizeof(d->pmu), "%.*s", sep ? (int)(sep - fstr) : 0, fstr);
		free(fstr);
	}
	return 0;
}

/* ---- hardware breakpoints mem:ADDR[/LEN][:rwx] ---- */

static int resolve_breakpoint(const char *spec, struct event_desc *d, char *err, size_t errlen)
{
	const char *p = spec + 4, *rwx = NULL;
	char *end;
	uint64_t addr, len = 0;
	unsigned type = 0;

	errno = 0;
	addr = strtoull(p, &end, 0);
	if (end == p || errno) {
		snprintf(err, errlen, "'%s': mem: needs an address, e.g. mem:0x404020:w", spec);
		set_err_at(d, 4, strcspn(p, "/:"));
		return -EINVAL;
	}
	if (*end == '/') {
		p = end + 1;
		len = strtoull(p, &end, 0);
		if (end == p || errno || !(len == 1 || len == 2 || len == 4 || len == 8)) {
			snprintf(err, errlen, "'%s': a breakpoint covers 1, 2, 4 or 8 bytes", spec);
			set_err_at(d, (size_t)(p - spec), strcspn(p, ":"));
			return -EINVAL;
		}
	}
	if (*end == ':') {
		rwx = end + 1;
		for (p = end + 1; *p && *p != ':'; p++) {
			unsigned bit = *p == 'r'   ? HW_BREAKPOINT_R
			               : *p == 'w' ? HW_BREAKPOINT_W
			               : *p == 'x' ? HW_BREAKPOINT_X
			                           : 0;
			if (!bit || (type & bit)) {
				snprintf(err, errlen, "'%s': the access is r, w, x or rw, at %zu",
				         spec, (size_t)(p - spec) + 1);
				set_err_at(d, (size_t)(p - spec), 1);
				return -EINVAL;
			}
			type |= bit;
		}
		end = (char *)p;
	}
	if (*end) {
		snprintf(err, errlen, "'%s': unexpected '%s' after the breakpoint", spec, end);
		set_err_at(d, (size_t)(end - spec), strlen(end));
		return -EINVAL;
	}
	if (!type)
		type = HW_BREAKPOINT_R | HW_BREAKPOINT_W; /* perf's default */
	if ((type & HW_BREAKPOINT_X) && type != HW_BREAKPOINT_X) {
		snprintf(err, errlen, "'%s': an execute breakpoint cannot also be r or w", spec);
		set_err_at(d, (size_t)(rwx - spec), strlen(rwx));
		return -EINVAL;
	}
	d->attr.type = PERF_TYPE_BREAKPOINT;
	d->attr.bp_addr = addr;
	d->attr.bp_type = type;
	d->attr.bp_len = type == HW_BREAKPOINT_X ? sizeof(long) : len ? len : HW_BREAKPOINT_LEN_4;
	d->source = EVENTS_SRC_BREAKPOINT;
	snprintf(d->pmu, sizeof(d->pmu), "breakpoint");
	snprintf(d->encoding, sizeof(d->encoding),
	         "breakpoint at 0x%llx, %llu bytes, on %s%s%s (type %u)", (unsigned long long)addr,
	         (unsigned long long)d->attr.bp_len, type & HW_BREAKPOINT_R ? "r" : "",
	         type & HW_BREAKPOINT_W ? "w" : "", type & HW_BREAKPOINT_X ? "x" : "",
	         PERF_TYPE_BREAKPOINT);
	return 0;
}

/* ---- software events libpfm4 has no name for ---- */

static const struct {
	const char *name;
	__u64 config;
} sw_extra[] = {
    {"alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS},
    {"dummy", PERF_COUNT_SW_DUMMY},
    {"bpf-output", PERF_COUNT_SW_BPF_OUTPUT},
};

/* 0 when base is one of them, 1 when it is not. */
static int resolve_sw_extra(const char *base, int mod, struct event_desc *d)
{
	for (size_t i = 0; i < sizeof(sw_extra) / sizeof(sw_extra[0]); i++) {
		if (strcmp(base, sw_extra[i].name))
			continue;
		d->attr.type = PERF_TYPE_SOFTWARE;
		d->attr.config = sw_extra[i].config;
		d->attr.exclude_user = mod && !(mod & MOD_U);
		d->attr.exclude_kernel = mod && !(mod & MOD_K);
		d->attr.exclude_hv = 1;
		d->source = EVENTS_SRC_LIBPFM;
		snprintf(d->pmu, sizeof(d->pmu), "software");
		snprintf(d->encoding, sizeof(d->encoding), "software %s (type %u, config %llu)%s%s",
		         base, PERF_TYPE_SOFTWARE, (unsigned long long)sw_extra[i].config,
		         mod ? " :" : "", mod_suffix(mod));
		return 0;
	}
	return 1;
}

/* ---- a named event with terms: cpu-clock/period=100000,name=tick/ ---- */

/*
 * perf's terms on an event that is not a sysfs PMU: name (the column's
 * label), period and freq (sampling settings: nothing to change when
 * counting, taken so that a perf command line works). Anything else is
 * refused with the terms that are known.
 */
static int named_terms(char *terms, size_t off, struct event_desc *d, char *err, size_t errlen)
{
	char *term, *next = terms;

	while ((term = strsep(&next, ","))) {
		size_t at = off + (size_t)(term - terms), n = strlen(term);
		char *eq = strchr(term, '='), *val = eq ? trim(eq + 1) : NULL;
		uint64_t v;

		if (eq)
			*eq = '\0';
		term = trim(term);
		if (!strcmp(term, "name") && val && *val && strlen(val) < sizeof(d->name) &&
		    !strpbrk(val, ",{}/:")) {
			snprintf(d->name, sizeof(d->name), "%s", val);
		} else if ((!strcmp(term, "period") || !strcmp(term, "freq")) && val &&
		           !parse_u64(val, &v)) {
			continue;
		} else {
			snprintf(err, errlen,
			         "unknown term '%s%s%s' on '%s': an event that is not a PMU takes "
			         "name=LABEL, period=N and freq=N",
			         term, val ? "=" : "", val ? val : "", d->name);
			set_err_at(d, at, n);
			return -EINVAL;
		}
	}
	return 0;
}

/* Is name[0, len) a PMU directory under the sysfs root? */
static bool is_pmu(const struct event_roots *r, const char *name, size_t len)
{
	char path[PATH_MAX + EVENTS_NAME_MAX];

	if (!len || len >= EVENTS_NAME_MAX || memchr(name, '.', 1))
		return false;
	return !events_strfmt(path, sizeof(path), "%s/%.*s/type", events_pmu_root(r), (int)len,
	                      name) &&
	       access(path, R_OK) == 0;
}

static int resolve_base(const struct event_roots *r, char *base, const struct mods *m,
                        struct event_desc *d, char *err, size_t errlen);

/* "event/terms/": a named event (not a PMU) with perf's terms. 1 when the
 * part before the '/' is no event: a PMU name then, as resolve_sysfs() says. */
static int resolve_named(const struct event_roots *r, char *base, const struct mods *m,
                         struct event_desc *d, char *err, size_t errlen)
{
	char *open = strchr(base, '/'), *close = strrchr(base, '/'), terms[TERMS_MAX];
	char label[EVENTS_NAME_MAX];

	if (open == close || close[1] || strlen(open + 1) >= sizeof(terms))
		return 1;
	snprintf(terms, sizeof(terms), "%.*s", (int)(close - open - 1), open + 1);
	*open = '\0';
	snprintf(label, sizeof(label), "%s", d->name);
	if (resolve_base(r, base, m, d, err, errlen)) {
		*open = '/';
		return 1;
	}
	snprintf(d->name, sizeof(d->name), "%s", label);
	return named_terms(terms, (size_t)(open + 1 - base), d, err, errlen);
}

/* base without its modifiers: every form but mem: and named events. */
static int resolve_base(const struct event_roots *r, char *base, const struct mods *m,
                        struct event_desc *d, char *err, size_t errlen)
{
	int ret;

	if (is_raw(base)) {
		const char *hex = base + ((base[1] == '0' && base[2] == 'x') ? 3 : 1);

		hex += strspn(hex, "0");
		if (strlen(hex) > 16) {
			snprintf(
			    err, errlen,
			    "%.40s...: a raw event's config is 64 bits (at most 16 hex digits)",
			    base);
			return -EINVAL;
		}
		resolve_raw(base, m->uk, d);
		return 0;
	}
	ret = resolve_tracepoint(r, base, m->uk, d, err, errlen);
	if (ret <= 0)
		return ret;
	if (!resolve_builtin(base, m->uk, d) || !resolve_sw_extra(base, m->uk, d))
		return 0;
	return resolve_libpfm(base, m->uk, d, err, errlen);
}

/* Why base, which did not resolve, does not: a bad modifier after a name
 * that is an event, or an unknown tracepoint (and why tracefs cannot say). */
static int explain_unknown(const struct event_roots *r, const char *spec, const char *base, int ret,
                           struct event_desc *d, char *err, size_t errlen)
{
	const char *colon = strrchr(base, ':');
	struct event_desc probe;
	char head[EVENTS_NAME_MAX];

	if (colon && colon > base && colon[-1] != ':' && colon[1]) {
		struct mods none = {0};
		char e2[8];
		snprintf(head, sizeof(head), "%.*s", (int)(colon - base), base);
		memset(&probe, 0, sizeof(probe));
		if (!resolve_builtin(head, 0, &probe) || !resolve_sw_extra(head, 0, &probe) ||
		    (tp_shape(head) &&
		     resolve_tracepoint(r, head, none.uk, &probe, e2, sizeof(e2)) == 0)) {
			snprintf(err, errlen,
			         "unknown modifier '%s' in '%s' (column %zu): " EVENTS_MODS_HINT,
			         colon + 1, spec, (size_t)(colon - base) + 2);
			set_err_at(d, (size_t)(colon - base) + 1, strlen(colon + 1));
			return -EINVAL;
		}
	}
	if (ret == -ENOENT && tp_shape(base)) {
		if (!events_tracefs(r) && events_tracefs_denied(r, err, errlen))
			return -EACCES;
		if (!events_tracefs(r)) {
			snprintf(err, errlen,
			         "tracefs is not mounted: run 'mount -t tracefs nodev "
			         "/sys/kernel/tracing' as root");
			return -ENODEV;
		}
		snprintf(err, errlen,
		         "unknown event '%s': no such tracepoint in %s/events; " EVENTS_HINT, spec,
		         events_tracefs(r));
	}
	return ret;
}

int events_resolve(const struct event_roots *r, const char *spec, struct event_desc *out, char *err,
                   size_t errlen)
{
	char base[EVENTS_NAME_MAX];
	struct mods m;
	int ret;

	memset(out, 0, sizeof(*out));
	out->attr.size = sizeof(struct perf_event_attr);
	out->scale = 1.0;
	if (!spec[0] || strlen(spec) >= sizeof(out->name)) {
		snprintf(err, errlen, "event name %s", spec[0] ? "too long" : "is empty");
		return -EINVAL;
	}
	strcpy(out->name, spec);
	if (!strncmp(spec, "mem:", 4))
		return resolve_breakpoint(spec, out, err, errlen);
	strcpy(base, spec);
	events_mods_strip(base, &m);

	if (strchr(base, '/')) {
		size_t head = strcspn(base, "/");
		ret = is_pmu(r, base, head) ? 1 : resolve_named(r, base, &m, out, err, errlen);
		if (ret == 1) {
			memset(&out->attr, 0, sizeof(out->attr));
			out->attr.size = sizeof(struct perf_event_attr);
			ret = resolve_sysfs(r, base, &m, out, err, errlen);
		}
	} else {
		ret = resolve_base(r, base, &m, out, err, errlen);
		if (ret)
			ret = explain_unknown(r, spec, base, ret, out, err, errlen);
	}
	if (!ret)
		mods_apply_rest(out, &m);
	return ret;
}

const char *events_builtin_event(int i)
{
	return events_builtin_name(i) ? builtin_events[i].event : NULL;
}
