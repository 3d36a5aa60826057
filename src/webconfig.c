/* webconfig: the exporter's --web-config file (TLS, basic auth), in the Prometheus format. */
#include "webconfig.h"

#include "util.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#define DEPTH_MAX  16   /* mappings and lists inside each other (the format needs 3) */
#define USERS_MAX  1000 /* basic auth is for a few users; each one is a bcrypt run */
#define BCRYPT_LEN 60   /* "$2b$10$", 22 characters of salt, 31 of hash */
#define QUOTE_MAX  60   /* characters of a key or a user name quoted in a message */
#define HOW_HASH   "make one with htpasswd -nBC 10 \"\" | tr -d ':\\n'"

/* The keys of tls_server_config the toolkit documents; the files first. */
enum tls_key {
	TLS_CERT_FILE,
	TLS_KEY_FILE,
	TLS_CLIENT_CA_FILE,
	TLS_CLIENT_AUTH_TYPE,
	TLS_MIN_VERSION,
	/* ignored: the TLS library's defaults apply */
	TLS_MAX_VERSION,
	TLS_CIPHER_SUITES,
	TLS_PREFER_SERVER_CIPHER_SUITES,
	TLS_CURVE_PREFERENCES,
	/* refused: ignoring them would let in what the user meant to keep out */
	TLS_CERT,
	TLS_KEY,
	TLS_CLIENT_CA,
	TLS_CLIENT_ALLOWED_SANS,
	NR_TLS_KEYS,
	NR_TLS_FILES = TLS_CLIENT_CA_FILE + 1,
};

static const char *const tls_keys[NR_TLS_KEYS] = {
    "cert_file",
    "key_file",
    "client_ca_file",
    "client_auth_type",
    "min_version",
    "max_version",
    "cipher_suites",
    "prefer_server_cipher_suites",
    "curve_preferences",
    "cert",
    "key",
    "client_ca",
    "client_allowed_sans",
};

enum top_key { TOP_TLS, TOP_HTTP, TOP_USERS, TOP_RATE_LIMIT, NR_TOP_KEYS };

static const char *const top_keys[NR_TOP_KEYS] = {
    "tls_server_config",
    "http_server_config",
    "basic_auth_users",
    "rate_limit",
};

/* One load: the libyaml parser, its current event, what the file names. */
struct parse {
	yaml_parser_t yp;
	yaml_event_t ev; /* the current event, when have_ev */
	bool have_ev;
	int depth; /* collections open at the current event */
	const char *path, *text;
	char *err;
	size_t errlen;
	struct webconfig *wc;
	int cap_users;
	size_t tls_line;               /* tls_server_config's line; 0: not given */
	int nr_tls;                    /* keys in it */
	size_t tls_lines[NR_TLS_KEYS]; /* each key's line; 0: not given */
	char *files[NR_TLS_FILES];     /* as written; NULL: not given */
};

static int fail(struct parse *p, int ret, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One sentence in err: "PATH:LINE: " (or "PATH: " without a line) and fmt. Returns ret. */
static int fail(struct parse *p, int ret, size_t line, const char *fmt, ...)
{
	char shown[UTIL_PATH_SHOWN + 1];
	va_list ap;
	int n;

	if (!p->errlen)
		return ret;
	util_path_elided(shown, sizeof(shown), p->path);
	if (line)
		n = snprintf(p->err, p->errlen, "%s:%zu: ", shown, line);
	else
		n = snprintf(p->err, p->errlen, "%s: ", shown);
	if (n < 0 || (size_t)n >= p->errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return ret;
}

static int no_memory(struct parse *p)
{
	return fail(p, -ENOMEM, 0, "out of memory while reading it");
}

/* s in quotes for a message, cut after QUOTE_MAX bytes. Returns buf. */
static const char *quoted(char *buf, size_t len, const char *s)
{
	return util_quote_elided(buf, len, s, QUOTE_MAX, NULL);
}

/* The line of the current event, counted from 1. */
static size_t here(const struct parse *p)
{
	return p->ev.start_mark.line + 1;
}

/* The line of byte offset in the text (libyaml's reader errors give offsets only). */
static size_t line_at(const char *text, size_t offset)
{
	size_t line = 1;

	for (size_t i = 0; i < offset && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/* What libyaml could not read: not UTF-8 (reader) or not YAML (scanner,
 * parser), at a line and column. */
static int yaml_failed(struct parse *p)
{
	const yaml_parser_t *yp = &p->yp;
	const char *problem = yp->problem ? yp->problem : "unreadable";

	if (yp->error == YAML_MEMORY_ERROR)
		return no_memory(p);
	if (yp->error == YAML_READER_ERROR)
		return fail(p, -EINVAL, line_at(p->text, yp->problem_offset),
		            "not UTF-8 text: %s (at byte %zu): save it as UTF-8, without control "
		            "characters",
		            problem, yp->problem_offset);
	if (!p->errlen)
		return -EINVAL;
	if (yp->context)
		snprintf(p->err, p->errlen, "%s:%zu:%zu: not valid YAML: %s (%s at line %zu)",
		         p->path, yp->problem_mark.line + 1, yp->problem_mark.column + 1, problem,
		         yp->context, yp->context_mark.line + 1);
	else
		snprintf(p->err, p->errlen, "%s:%zu:%zu: not valid YAML: %s", p->path,
		         yp->problem_mark.line + 1, yp->problem_mark.column + 1, problem);
	return -EINVAL;
}

/*
 * The next event into p->ev (the previous one freed). Aliases are refused
 * here, whatever they stand for: without them no value can be made to
 * stand for many (the "billion laughs"), and the format has no use for
 * them. Nesting is bounded here too, before anything is skipped or kept.
 */
static int next(struct parse *p)
{
	if (p->have_ev)
		yaml_event_delete(&p->ev);
	p->have_ev = false;
	if (!yaml_parser_parse(&p->yp, &p->ev))
		return yaml_failed(p);
	p->have_ev = true;
	switch (p->ev.type) {
	case YAML_ALIAS_EVENT:
		return fail(
		    p, -EINVAL, here(p),
		    "YAML aliases are not supported (here *%.*s): write the value out in full",
		    QUOTE_MAX, (const char *)p->ev.data.alias.anchor);
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT:
		if (++p->depth > DEPTH_MAX)
			return fail(p, -EINVAL, here(p),
			            "lists and mappings are nested more than %d deep: the format "
			            "needs 3",
			            DEPTH_MAX);
		return 0;
	case YAML_MAPPING_END_EVENT:
	case YAML_SEQUENCE_END_EVENT:
		p->depth--;
		return 0;
	default:
		return 0;
	}
}

/* Past the value that starts at the current event (a scalar, or a whole
 * list or mapping). */
static int skip_value(struct parse *p)
{
	int outside = p->depth - 1, ret = 0;

	if (p->ev.type != YAML_MAPPING_START_EVENT && p->ev.type != YAML_SEQUENCE_START_EVENT)
		return 0;
	while (!ret && p->depth > outside)
		ret = next(p);
	return ret;
}

/* The current scalar's text (a key, or a value). */
static const char *key(const struct parse *p)
{
	return (const char *)p->ev.data.scalar.value;
}

static bool is_scalar(const struct parse *p)
{
	return p->ev.type == YAML_SCALAR_EVENT;
}

/* An empty value, or YAML's null written plain ("key:", "key: ~"). */
static bool is_null(const struct parse *p)
{
	static const char *const nulls[] = {"~", "null", "Null", "NULL"};

	if (!is_scalar(p))
		return false;
	if (!p->ev.data.scalar.length)
		return true;
	if (p->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(nulls); i++)
		if (!strcmp(key(p), nulls[i]))
			return true;
	return false;
}

/* A "\0" escape puts a NUL in a double-quoted string: C would cut it there. */
static bool has_nul(const struct parse *p)
{
	return strlen((const char *)p->ev.data.scalar.value) != p->ev.data.scalar.length;
}

/*
 * The current event as the string value of what (for messages): *s NULL
 * when it is null or empty ("not given"), else the text, valid until the
 * next event. -EINVAL for a list, a mapping, a NUL byte.
 */
static int value_string(struct parse *p, const char *what, const char **s)
{
	*s = NULL;
	if (!is_scalar(p))
		return fail(p, -EINVAL, here(p), "%s must be a string, not a list or a mapping",
		            what);
	if (has_nul(p))
		return fail(p, -EINVAL, here(p), "%s holds a NUL byte (\\0): remove it", what);
	if (!is_null(p))
		*s = (const char *)p->ev.data.scalar.value;
	return 0;
}

/* The next key of the mapping being read: 1 with the key the current
 * event, 0 at the mapping's end, or -errno. */
static int next_key(struct parse *p, const char *where)
{
	int ret = next(p);

	if (ret)
		return ret;
	if (p->ev.type == YAML_MAPPING_END_EVENT)
		return 0;
	if (!is_scalar(p))
		return fail(p, -EINVAL, here(p), "a key %s is a list or a mapping: keys are names",
		            where);
	if (has_nul(p))
		return fail(p, -EINVAL, here(p), "a key %s holds a NUL byte (\\0): remove it",
		            where);
	return 1;
}

/* The index of the current key in names, or -1. */
static int lookup(const struct parse *p, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(key(p), names[i]))
			return i;
	return -1;
}

/* The current key's line into *line, or an error when it was seen before
 * (YAML leaves duplicate keys to the application; the toolkit refuses them). */
static int once(struct parse *p, size_t *line, const char *name)
{
	if (*line)
		return fail(p, -EINVAL, here(p), "%s is given twice (lines %zu and %zu): keep one",
		            name, *line, here(p));
	*line = here(p);
	return 0;
}

static int take_file(struct parse *p, int k)
{
	const char *s;
	int ret = value_string(p, tls_keys[k], &s);

	if (ret || !s)
		return ret;
	p->files[k] = strdup(s);
	return p->files[k] ? 0 : no_memory(p);
}

static int take_client_auth(struct parse *p)
{
	static const char *const unchecked[] = {"RequestClientCert", "RequireAnyClientCert",
	                                        "VerifyClientCertIfGiven"};
	char q[QUOTE_MAX + 8];
	const char *s;
	int ret = value_string(p, "client_auth_type", &s);

	if (ret || !s || !strcmp(s, "NoClientCert"))
		return ret;
	if (!strcmp(s, "RequireAndVerifyClientCert")) {
		p->wc->client_auth = WEBCONFIG_REQUIRE_CLIENT_CERT;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(unchecked); i++)
		if (!strcmp(s, unchecked[i]))
			return fail(
			    p, -EINVAL, here(p),
			    "client_auth_type %s lets clients in without a verified "
			    "certificate, which pfmtop does not do: use "
			    "RequireAndVerifyClientCert (with client_ca_file) or NoClientCert",
			    s);
	return fail(
	    p, -EINVAL, here(p),
	    "client_auth_type %s is unknown: use NoClientCert or RequireAndVerifyClientCert",
	    quoted(q, sizeof(q), s));
}

static int take_min_version(struct parse *p)
{
	char q[QUOTE_MAX + 8];
	const char *s;
	int ret = value_string(p, "min_version", &s);

	if (ret || !s)
		return ret;
	if (!strcmp(s, "TLS12") || !strcmp(s, "TLS13")) {
		util_strlcpy(p->wc->min_version, s, sizeof(p->wc->min_version));
		return 0;
	}
	if (!strcmp(s, "TLS10") || !strcmp(s, "TLS11"))
		return fail(p, -EINVAL, here(p),
		            "min_version %s is not supported (TLS 1.0 and 1.1 are obsolete): use "
		            "TLS12 or TLS13",
		            s);
	return fail(p, -EINVAL, here(p), "min_version %s is unknown: use TLS12 or TLS13",
	            quoted(q, sizeof(q), s));
}

/* The keys pfmtop cannot honour: refused at the key's line. */
static int refuse_tls_key(struct parse *p, int k)
{
	if (k == TLS_CLIENT_ALLOWED_SANS)
		return fail(p, -EINVAL, here(p),
		            "client_allowed_sans is not supported (pfmtop does not match the names "
		            "in client certificates): remove it, and have client_ca_file sign only "
		            "the clients to let in");
	return fail(p, -EINVAL, here(p),
	            "an inline %s is not supported: put the PEM text in a file and name it with "
	            "%s_file",
	            tls_keys[k], tls_keys[k]);
}

static int tls_value(struct parse *p, int k)
{
	switch (k) {
	case TLS_CERT_FILE:
	case TLS_KEY_FILE:
	case TLS_CLIENT_CA_FILE:
		return take_file(p, k);
	case TLS_CLIENT_AUTH_TYPE:
		return take_client_auth(p);
	case TLS_MIN_VERSION:
		return take_min_version(p);
	default:
		return skip_value(p);
	}
}

static int parse_tls(struct parse *p)
{
	int ret, k;

	while ((ret = next_key(p, "in tls_server_config")) > 0) {
		k = lookup(p, tls_keys, NR_TLS_KEYS);
		if (k < 0)
			return fail(
			    p, -EINVAL, here(p),
			    "an unknown key in tls_server_config: see "
			    "https://prometheus.io/docs/prometheus/latest/configuration/https/");
		if (k >= TLS_CERT)
			return refuse_tls_key(p, k);
		ret = once(p, &p->tls_lines[k], tls_keys[k]);
		if (!ret)
			ret = next(p);
		if (!ret)
			ret = tls_value(p, k);
		if (ret)
			return ret;
		p->nr_tls++;
	}
	return ret;
}

static bool is_b64(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '/';
}

/* "$2a$", "$2b$" or "$2y$", a cost of 04 to 31, "$" and 53 characters of
 * bcrypt's base64: what libxcrypt's bcrypt takes. */
static bool is_bcrypt(const char *h)
{
	int cost;

	if (strlen(h) != BCRYPT_LEN || strncmp(h, "$2", 2) || h[3] != '$' || h[6] != '$')
		return false;
	if (h[2] != 'a' && h[2] != 'b' && h[2] != 'y')
		return false;
	if (h[4] < '0' || h[4] > '9' || h[5] < '0' || h[5] > '9')
		return false;
	cost = (h[4] - '0') * 10 + (h[5] - '0');
	if (cost < 4 || cost > 31)
		return false;
	for (int i = 7; i < BCRYPT_LEN; i++)
		if (!is_b64(h[i]))
			return false;
	return true;
}

/* A user name basic auth can carry, not seen before (q: it quoted). */
static int check_name(struct parse *p, const char *name, const char *q)
{
	const struct webconfig *wc = p->wc;

	if (!name[0])
		return fail(p, -EINVAL, here(p),
		            "an empty user name in basic_auth_users: give the user a name");
	if (strchr(name, ':'))
		return fail(p, -EINVAL, here(p),
		            "user %s holds ':', which basic auth cannot carry: rename the user", q);
	if (wc->nr_users >= USERS_MAX)
		return fail(p, -EINVAL, here(p),
		            "more than %d users in basic_auth_users: use a reverse proxy to log in "
		            "that many",
		            USERS_MAX);
	for (int i = 0; i < wc->nr_users; i++)
		if (!strcmp(wc->users[i].name, name))
			return fail(p, -EINVAL, here(p),
			            "user %s is listed twice in basic_auth_users: keep one", q);
	return 0;
}

/* The current key's user and the hash after it, checked, added to wc->users. */
static int add_user(struct parse *p)
{
	struct webconfig *wc = p->wc;
	char q[QUOTE_MAX + 8], what[QUOTE_MAX + 40], *name, *hash;
	const char *s;
	int ret;

	quoted(q, sizeof(q), key(p));
	ret = check_name(p, key(p), q);
	if (ret)
		return ret;
	name = strdup(key(p));
	if (!name)
		return no_memory(p);
	snprintf(what, sizeof(what), "the password hash of user %s", q);
	ret = next(p);
	if (!ret)
		ret = value_string(p, what, &s);
	if (!ret && !s)
		ret = fail(p, -EINVAL, here(p), "user %s has no password hash: " HOW_HASH, q);
	if (!ret && !is_bcrypt(s))
		ret = fail(p, -EINVAL, here(p),
		           "%s is not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters): " HOW_HASH,
		           what);
	hash = ret ? NULL : strdup(s);
	if (!ret &&
	    (!hash || util_grow(&wc->users, wc->nr_users, &p->cap_users, sizeof(*wc->users), 4)))
		ret = no_memory(p);
	if (ret) {
		free(name);
		free(hash);
		return ret;
	}
	wc->users[wc->nr_users++] = (struct webconfig_user){.name = name, .hash = hash};
	return 0;
}

static int parse_users(struct parse *p)
{
	int ret;

	while ((ret = next_key(p, "in basic_auth_users")) > 0) {
		ret = add_user(p);
		if (ret)
			return ret;
	}
	return ret;
}

/* The value of top-level key k, at the current event. */
static int top_value(struct parse *p, int k)
{
	if (k == TOP_HTTP)
		return skip_value(p); /* HTTP/2 and extra headers: nothing pfmtop serves */
	if (is_null(p))
		return 0;
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return fail(p, -EINVAL, here(p), "%s must be a mapping (keys and values)",
		            top_keys[k]);
	return k == TOP_TLS ? parse_tls(p) : parse_users(p);
}

static int parse_top(struct parse *p)
{
	size_t lines[NR_TOP_KEYS] = {0};
	int ret, k;

	while ((ret = next_key(p, "at the top")) > 0) {
		k = lookup(p, top_keys, NR_TOP_KEYS);
		if (k < 0)
			return fail(p, -EINVAL, here(p),
			            "an unknown key: the keys at the top are tls_server_config, "
			            "http_server_config and basic_auth_users");
		if (k == TOP_RATE_LIMIT)
			return fail(
			    p, -EINVAL, here(p),
			    "rate_limit is not supported: remove it (a reverse proxy can limit "
			    "requests)");
		ret = once(p, &lines[k], top_keys[k]);
		if (!ret)
			ret = next(p);
		if (!ret)
			ret = top_value(p, k);
		if (ret)
			return ret;
	}
	p->tls_line = lines[TOP_TLS];
	return ret;
}

/* The whole stream: no document (only comments), or one whose top is a
 * mapping (or null: "---" alone). */
static int parse_stream(struct parse *p)
{
	int ret = next(p); /* the stream's start */

	if (!ret)
		ret = next(p);
	if (ret || p->ev.type == YAML_STREAM_END_EVENT)
		return ret;
	ret = next(p); /* past the document's start */
	if (ret)
		return ret;
	if (p->ev.type == YAML_MAPPING_START_EVENT)
		ret = parse_top(p);
	else if (!is_null(p))
		return fail(p, -EINVAL, here(p),
		            "the file must be a mapping of keys (tls_server_config:, "
		            "basic_auth_users:), not a list or a string");
	if (!ret)
		ret = next(p); /* the document's end */
	if (!ret)
		ret = next(p);
	if (!ret && p->ev.type != YAML_STREAM_END_EVENT)
		ret = fail(p, -EINVAL, here(p),
		           "a second YAML document (---) starts here: a web config file holds one");
	return ret;
}

/* The combinations the toolkit refuses too, or that would not do what the
 * user meant. */
static int check_tls(struct parse *p)
{
	const bool cert = p->files[TLS_CERT_FILE], key = p->files[TLS_KEY_FILE];
	const size_t *l = p->tls_lines;

	if (cert != key)
		return fail(
		    p, -EINVAL, cert ? l[TLS_CERT_FILE] : l[TLS_KEY_FILE],
		    "tls_server_config gives %s but no %s: give both (or neither, for plain "
		    "HTTP)",
		    cert ? "cert_file" : "key_file", cert ? "key_file" : "cert_file");
	if (!cert && p->nr_tls)
		return fail(p, -EINVAL, p->tls_line,
		            "tls_server_config gives no cert_file and key_file: give both to serve "
		            "HTTPS, or remove tls_server_config for plain HTTP");
	if (p->wc->client_auth == WEBCONFIG_REQUIRE_CLIENT_CERT && !p->files[TLS_CLIENT_CA_FILE])
		return fail(
		    p, -EINVAL, l[TLS_CLIENT_AUTH_TYPE],
		    "client_auth_type RequireAndVerifyClientCert needs client_ca_file: name "
		    "the CA certificates that sign the clients' certificates");
	if (p->files[TLS_CLIENT_CA_FILE] && p->wc->client_auth != WEBCONFIG_REQUIRE_CLIENT_CERT)
		return fail(p, -EINVAL, l[TLS_CLIENT_CA_FILE],
		            "client_ca_file is given but client_auth_type is not "
		            "RequireAndVerifyClientCert: set client_auth_type: "
		            "RequireAndVerifyClientCert, or remove client_ca_file");
	return 0;
}

/* file as the config at cfg names it: absolute, or relative to cfg's
 * directory (as the toolkit reads it), into out. 0 or -ENAMETOOLONG. */
static int resolve(const char *cfg, const char *file, char *out, size_t len)
{
	const char *slash = strrchr(cfg, '/');
	int n;

	if (file[0] == '/' || !slash)
		n = snprintf(out, len, "%s", file);
	else
		n = snprintf(out, len, "%.*s/%s", (int)(slash - cfg), cfg, file);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* All size bytes of fd into *text (malloc'd, NUL-terminated), *len bytes. 0 or -errno. */
static int read_all(int fd, size_t size, char **text, size_t *len)
{
	char *buf = malloc(size + 1);
	size_t got = 0;

	if (!buf)
		return -ENOMEM;
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			explicit_bzero(buf, got);
			free(buf);
			return err;
		}
		if (n == 0)
			break; /* it shrank: what is there */
		got += (size_t)n;
	}
	buf[got] = '\0';
	*text = buf;
	*len = got;
	return 0;
}

/*
 * Why a file others may change (or, secret, read) must not be used: 0, or
 * -EPERM with a phrase to follow its name in why, saying what to do.
 */
static int check_mode(const char *path, const struct stat *st, bool secret, char *why,
                      size_t whylen)
{
	char phrase[160];

	if (util_untrusted(st, getuid(), true, phrase, sizeof(phrase))) {
		if (st->st_uid == getuid() || st->st_uid == 0)
			snprintf(why, whylen, "is %s: chmod go-w %s", phrase, path);
		else
			snprintf(why, whylen,
			         "is %s: make root or the user running pfmtop its owner", phrase);
		return -EPERM;
	}
	if (secret && (st->st_mode & S_IROTH)) {
		snprintf(why, whylen, "is readable by others (mode %04o): chmod o-r %s",
		         (unsigned)(st->st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

/*
 * Read a regular file of at most WEBCONFIG_FILE_MAX bytes that check_mode()
 * accepts into *text (malloc'd, NUL-terminated) of *len bytes. 0, or -errno
 * with a phrase to follow the file's name in why ("does not exist").
 */
static int read_file(const char *path, bool secret, char **text, size_t *len, char *why,
                     size_t whylen)
{
	char phrase[160];
	struct stat st;
	int ret, fd = util_open_config(AT_FDCWD, path, false, &st, phrase, sizeof(phrase));

	*text = NULL;
	if (fd < 0) {
		if (phrase[0])
			snprintf(why, whylen, "is %s", phrase);
		else if (fd == -ENOENT)
			snprintf(why, whylen, "does not exist");
		else
			snprintf(why, whylen, "cannot be opened: %s", strerror(-fd));
		/* the name given is wrong (a directory, a path through a file):
		 * the config is the user's to fix, as for a FIFO */
		return fd == -EISDIR || fd == -ENOTDIR || fd == -ELOOP || fd == -ENAMETOOLONG
		           ? -EINVAL
		           : fd;
	}
	ret = check_mode(path, &st, secret, why, whylen);
	if (!ret && st.st_size > WEBCONFIG_FILE_MAX) {
		snprintf(why, whylen, "is larger than %d KiB: is it the right file?",
		         WEBCONFIG_FILE_MAX / 1024);
		ret = -EINVAL;
	}
	if (!ret) {
		ret = read_all(fd, (size_t)st.st_size, text, len);
		if (ret)
			snprintf(why, whylen, "cannot be read: %s", strerror(-ret));
	}
	close(fd);
	return ret;
}

static void wipe_free(char *s, size_t len)
{
	if (s)
		explicit_bzero(s, len);
	free(s);
}

/* File k of tls_server_config read and checked for PEM into *out. */
static int read_pem(struct parse *p, int k, char **out)
{
	char full[PATH_MAX], why[PATH_MAX + 160], shown[UTIL_PATH_SHOWN + 1], *text;
	size_t len, line = p->tls_lines[k];
	int ret;

	if (resolve(p->path, p->files[k], full, sizeof(full)))
		return fail(p, -EINVAL, line, "%s is too long a path: shorten it", tls_keys[k]);
	ret = read_file(full, k == TLS_KEY_FILE, &text, &len, why, sizeof(why));
	if (ret)
		return fail(p, ret, line, "%s %s %s", tls_keys[k],
		            util_path_elided(shown, sizeof(shown), full), why);
	if (memchr(text, '\0', len) || !strstr(text, "-----BEGIN ")) {
		wipe_free(text, len);
		return fail(p, -EINVAL, line,
		            "%s %s is not PEM text (no -----BEGIN line): convert it, e.g. with "
		            "openssl x509 -outform pem (certificates) or openssl pkey (keys)",
		            tls_keys[k], full);
	}
	*out = text;
	return 0;
}

static int read_pems(struct parse *p)
{
	char **pem[NR_TLS_FILES] = {&p->wc->cert_pem, &p->wc->key_pem, &p->wc->client_ca_pem};
	int ret = 0;

	for (int k = 0; k < NR_TLS_FILES && !ret; k++)
		if (p->files[k])
			ret = read_pem(p, k, pem[k]);
	return ret;
}

/* The config's text parsed and checked, the files it names read. */
static int load_text(struct parse *p)
{
	int ret;

	if (!yaml_parser_initialize(&p->yp))
		return no_memory(p);
	yaml_parser_set_encoding(&p->yp, YAML_UTF8_ENCODING);
	yaml_parser_set_input_string(&p->yp, (const unsigned char *)p->text, strlen(p->text));
	ret = parse_stream(p);
	if (p->have_ev)
		yaml_event_delete(&p->ev);
	p->have_ev = false;
	yaml_parser_delete(&p->yp);
	if (!ret)
		ret = check_tls(p);
	if (!ret)
		ret = read_pems(p);
	return ret;
}

int webconfig_load(struct webconfig *wc, const char *path, char *err, size_t errlen)
{
	struct parse p = {.path = path, .err = err, .errlen = errlen, .wc = wc};
	char why[PATH_MAX + 160], *text;
	size_t len;
	int ret;

	memset(wc, 0, sizeof(*wc));
	if (errlen)
		err[0] = '\0';
	ret = read_file(path, false, &text, &len, why, sizeof(why));
	if (ret) {
		char shown[UTIL_PATH_SHOWN + 1];

		if (errlen)
			snprintf(err, errlen, "%s %s", util_path_elided(shown, sizeof(shown), path),
			         why);
		return ret;
	}
	/* UTF-8 only (as libyaml is told below), taken as a C string: line_at()
	 * stops at the first NUL, which gives its line. */
	if (len >= 2 &&
	    ((text[0] == '\xff' && text[1] == '\xfe') || (text[0] == '\xfe' && text[1] == '\xff')))
		ret = fail(&p, -EINVAL, 0, "UTF-16 text: save it as UTF-8");
	else if (memchr(text, '\0', len))
		ret = fail(&p, -EINVAL, line_at(text, len),
		           "a NUL byte here, which YAML text cannot hold: remove it");
	p.text = text;
	if (!ret)
		ret = load_text(&p);
	for (int k = 0; k < NR_TLS_FILES; k++)
		free(p.files[k]);
	free(text);
	if (ret)
		webconfig_free(wc);
	return ret;
}

bool webconfig_wants_auth(const struct webconfig *wc)
{
	return wc->nr_users > 0;
}

/* a equals b (what we hold), in a time that depends on b's length only. */
static bool same(const char *a, const char *b)
{
	size_t blen = strlen(b), alen = strnlen(a, blen + 1);
	volatile unsigned char diff = alen != blen;

	for (size_t i = 0; i < blen; i++)
		diff |= (unsigned char)b[i] ^ (unsigned char)(i < alen ? a[i] : 0);
	return !diff;
}

bool webconfig_check_user(const struct webconfig *wc, const char *user, const char *password)
{
	/* A made-up salt and hash after the "$2b$NN$" of the user of the
	 * highest cost: an unknown user takes as long as the slowest known
	 * one (a user of a lower cost is still faster to check). */
	static const char dummy_tail[] = "PfmtopUnknownUserSalt."
	                                 "PfmtopUnknownUserHashNeverMatch";
	char dummy[BCRYPT_LEN + 1];
	const char *hash = NULL, *out, *costliest;
	struct crypt_data *cd;
	bool ok;

	_Static_assert(sizeof(dummy_tail) == BCRYPT_LEN - 7 + 1, "a bcrypt hash's tail");
	if (!wc->nr_users || !user || !password)
		return false;
	costliest = wc->users[0].hash;
	for (int i = 0; i < wc->nr_users; i++) {
		bool match = same(user, wc->users[i].name);

		hash = match ? wc->users[i].hash : hash; /* no early exit: all names compared */
		/* "$2b$NN$": the cost's two digits compare as text */
		if (memcmp(wc->users[i].hash + 4, costliest + 4, 2) > 0)
			costliest = wc->users[i].hash;
	}
	snprintf(dummy, sizeof(dummy), "%.7s%s", costliest, dummy_tail);
	cd = calloc(1, sizeof(*cd)); /* 32 KiB: not for the stack */
	if (!cd)
		return false;
	out = crypt_r(password, hash ? hash : dummy, cd);
	/* libxcrypt fails with "*0" or "*1" (or NULL elsewhere): never a match */
	ok = out && out[0] == '$' && same(out, hash ? hash : dummy) && hash;
	explicit_bzero(cd, sizeof(*cd));
	free(cd);
	return ok;
}

void webconfig_free(struct webconfig *wc)
{
	if (wc->key_pem)
		wipe_free(wc->key_pem, strlen(wc->key_pem));
	free(wc->cert_pem);
	free(wc->client_ca_pem);
	for (int i = 0; i < wc->nr_users; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
	}
	free(wc->users);
	memset(wc, 0, sizeof(*wc));
}
