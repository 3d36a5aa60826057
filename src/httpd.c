/* httpd: /metrics over HTTP(S) with libmicrohttpd, driven by the caller's epoll loop. */
#include "httpd.h"

#include "dlbind.h"
#include "util.h"
#include "webconfig.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define HTTPD_TIMEOUT_S     10          /* idle, and between requests on one connection */
#define HTTPD_HEADERS_S     5           /* from connecting to a request's complete headers */
#define HTTPD_ANSWER_S      30          /* from the headers to the response sent */
#define HTTPD_KEEPALIVE     100         /* requests on one connection */
#define HTTPD_REQUEST_BYTES (16 * 1024) /* request line and headers */
#define HTTPD_DEFAULT_RATE  1000
#define HTTPD_AUTH_OK_S     600 /* a login checked is remembered this long */
#define HTTPD_AUTH_FAIL_S   60  /* and a failed one */
/* bcrypt may take this share of the loop's time (100 ms a second): a
 * run starts when the budget is positive (it holds 25 ms at most, so
 * runs do not follow each other) and its time is taken from it. */
#define HTTPD_BCRYPT_SHARE 0.1
#define HTTPD_BCRYPT_BURST (25 * 1000000.0)
#define NS                 1000000000ull

#ifndef PFMTOP_MHD_SONAME
#define PFMTOP_MHD_SONAME "libmicrohttpd.so.12"
#endif

/* libmicrohttpd's functions (and the two of GnuTLS, its TLS library, that
 * check a client's certificate), from the library opened by httpd_open(). */
struct httpd_mhd {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_is_feature_supported) *is_feature_supported;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_buffer_with_free_callback_cls)
	    *create_response_from_buffer_with_free_callback_cls;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_basic_auth_get_username_password) *basic_auth_get_username_password;
	__typeof__(MHD_queue_basic_auth_fail_response) *queue_basic_auth_fail_response;
	__typeof__(MHD_free) *free;
	__typeof__(gnutls_certificate_get_peers) *get_peers;
	__typeof__(gnutls_certificate_verify_peers2) *verify_peers2;
	__typeof__(gnutls_hmac_fast) *hmac_fast;
};

/* Opens libmicrohttpd into h->mhd: 0, or -errno with one line in err. */
static int mhd_open(struct httpd *h, char *err, size_t errlen)
{
	static const struct dlbind_lib lib = {
	    .soname = PFMTOP_MHD_SONAME,
	    .test_env = "PFMTOP_TEST_MHD",
	    .package = "libmicrohttpd12",
	    .without = "--listen cannot serve metrics",
	};
	static const struct dlbind_sym syms[] = {
	    DLBIND(struct httpd_mhd, start_daemon, MHD_start_daemon),
	    DLBIND(struct httpd_mhd, stop_daemon, MHD_stop_daemon),
	    DLBIND(struct httpd_mhd, run, MHD_run),
	    DLBIND(struct httpd_mhd, get_timeout, MHD_get_timeout),
	    DLBIND(struct httpd_mhd, get_daemon_info, MHD_get_daemon_info),
	    DLBIND(struct httpd_mhd, get_connection_info, MHD_get_connection_info),
	    DLBIND(struct httpd_mhd, is_feature_supported, MHD_is_feature_supported),
	    DLBIND(struct httpd_mhd, create_response_from_buffer, MHD_create_response_from_buffer),
	    DLBIND(struct httpd_mhd, create_response_from_buffer_with_free_callback_cls,
	           MHD_create_response_from_buffer_with_free_callback_cls),
	    DLBIND(struct httpd_mhd, add_response_header, MHD_add_response_header),
	    DLBIND(struct httpd_mhd, queue_response, MHD_queue_response),
	    DLBIND(struct httpd_mhd, destroy_response, MHD_destroy_response),
	    DLBIND(struct httpd_mhd, lookup_connection_value, MHD_lookup_connection_value),
	    DLBIND(struct httpd_mhd, basic_auth_get_username_password,
	           MHD_basic_auth_get_username_password),
	    DLBIND(struct httpd_mhd, queue_basic_auth_fail_response,
	           MHD_queue_basic_auth_fail_response),
	    DLBIND(struct httpd_mhd, free, MHD_free),
	    /* a libmicrohttpd without TLS has no GnuTLS: no client certificates */
	    DLBIND_OPT(struct httpd_mhd, get_peers, gnutls_certificate_get_peers),
	    DLBIND_OPT(struct httpd_mhd, verify_peers2, gnutls_certificate_verify_peers2),
	    /* without it, no login is remembered: each one is a bcrypt run */
	    DLBIND_OPT(struct httpd_mhd, hmac_fast, gnutls_hmac_fast),
	};

	h->mhd = calloc(1, sizeof(*h->mhd));
	if (!h->mhd) {
		snprintf(err, errlen, "--listen: out of memory");
		return -ENOMEM;
	}
	h->dl = dlbind_open(&lib, syms, sizeof(syms) / sizeof(syms[0]), h->mhd, err, errlen);
	if (!h->dl) {
		free(h->mhd);
		h->mhd = NULL;
		return -ELIBACC; /* not the user's to fix with an option */
	}
	return 0;
}

static const unsigned httpd_codes[HTTPD_NR_CODES] = {200, 401, 404, 405, 413, 429, 500, 503};

struct httpd_blob *httpd_blob_new(const char *text, size_t len)
{
	struct httpd_blob *b = malloc(sizeof(*b) + len + 1);

	if (!b)
		return NULL;
	b->refs = 1;
	b->len = len;
	memcpy(b->data, text, len);
	b->data[len] = '\0';
	return b;
}

void httpd_blob_unref(struct httpd_blob *b)
{
	if (b && --b->refs == 0)
		free(b);
}

/* ---- the address ---- */

int httpd_parse_listen(const char *s, char *host, size_t hostlen, char *port, size_t portlen)
{
	const char *colon;
	size_t hl;

	if (!s || !*s)
		return -EINVAL;
	if (*s == '[') {
		const char *end = strchr(s, ']');

		if (!end || end[1] != ':')
			return -EINVAL;
		hl = (size_t)(end - s - 1);
		s++;
		colon = end + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon || memchr(s, ':', (size_t)(colon - s)))
			return -EINVAL; /* none, or a bare IPv6 address: it needs [] */
		hl = (size_t)(colon - s);
	}
	if (hl >= hostlen || strlen(colon + 1) >= portlen || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return -EINVAL;
	memcpy(host, s, hl);
	host[hl] = '\0';
	util_strlcpy(port, colon + 1, portlen);
	return atoi(port) > 0 && atoi(port) < 65536 ? 0 : -EINVAL;
}

static bool loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/* The listening socket, bound and listening. Ours, so that a bind error is
 * reported as what it is. */
static int bind_listen(struct httpd *h, const struct httpd_config *cfg, char *err, size_t errlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
	struct addrinfo *res = NULL;
	char host[256], port[8], addr[INET6_ADDRSTRLEN];
	int ret, fd, one = 1;

	if (httpd_parse_listen(cfg->listen, host, sizeof(host), port, sizeof(port))) {
		snprintf(err, errlen,
		         "--listen %s: give HOST:PORT, [IPV6]:PORT or :PORT (e.g. 127.0.0.1:9464)",
		         cfg->listen);
		return -EINVAL;
	}
	ret = getaddrinfo(host[0] ? host : "127.0.0.1", port, &hints, &res);
	if (ret) {
		snprintf(err, errlen, "--listen %s: %s", cfg->listen, gai_strerror(ret));
		return -ENOENT;
	}
	if (!loopback(res->ai_addr) && !cfg->allow_remote) {
		snprintf(err, errlen,
		         "--listen %s is not a loopback address: add --allow-remote to serve other "
		         "machines (and see --web-config for TLS and passwords)",
		         cfg->listen);
		freeaddrinfo(res);
		return -EACCES;
	}
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "--listen %s: %s", cfg->listen, strerror(errno));
		freeaddrinfo(res);
		return ret;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A connection is handed over when its first bytes are in (or after
	 * a second): a client that sends its request at once comes with it,
	 * and is not taken for one that holds a connection idle. */
	setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &one, sizeof(one));
	if (res->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 64)) {
		ret = -errno;
		snprintf(err, errlen, "--listen %s: %s%s", cfg->listen, strerror(errno),
		         errno == EADDRINUSE ? " (another program serves that port: choose another)"
		         : errno == EACCES   ? " (ports below 1024 need privileges: choose another)"
		                             : "");
		close(fd);
		freeaddrinfo(res);
		return ret;
	}
	if (res->ai_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)res->ai_addr)->sin6_addr, addr,
		          sizeof(addr));
	else
		inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, addr,
		          sizeof(addr));
	snprintf(h->where, sizeof(h->where), "%s://%s%s%s:%s/metrics",
	         cfg->web && cfg->web->cert_pem ? "https" : "http",
	         res->ai_family == AF_INET6 ? "[" : "", addr, res->ai_family == AF_INET6 ? "]" : "",
	         port);
	freeaddrinfo(res);
	h->sock = fd;
	return 0;
}

/* ---- connections ---- */

/* The slot of c (its socket context), or NULL. */
static struct httpd_conn *conn_of(const struct httpd *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    h->mhd->get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* Shut k's socket: MHD reads its end and closes it on its next pass. */
static void drop(struct httpd *h, struct httpd_conn *k)
{
	if (k->dropped)
		return;
	shutdown(k->fd, SHUT_RDWR);
	k->dropped = true;
	h->nr_live--;
}

/* How long k may stay in its phase: the first request's headers, the
 * next one's (idle in between), or its answer. */
static uint64_t allowed_ns(const struct httpd_conn *k)
{
	if (k->headers)
		return HTTPD_ANSWER_S * NS;
	return (k->requests ? HTTPD_TIMEOUT_S : HTTPD_HEADERS_S) * NS;
}

static bool same_ip(const struct httpd_conn *a, const struct httpd_conn *b)
{
	return a->family == b->family && !memcmp(a->ip, b->ip, sizeof(a->ip));
}

/* The live connection waiting longest for its headers (of ip's address
 * when ip is set), else one answered for over a second (a slow reader),
 * else NULL; those spared in this admission are left out. */
static struct httpd_conn *oldest(struct httpd *h, const struct httpd_conn *ip, uint64_t now)
{
	struct httpd_conn *best = NULL;
	bool best_waits = false;

	for (int i = 0; i < HTTPD_SLOTS; i++) {
		struct httpd_conn *k = &h->conns[i];
		bool waits = !k->headers;

		if (!k->c || k->dropped || k == ip || (ip && !same_ip(k, ip)) ||
		    k->spared == h->admits)
			continue;
		if (!waits && now - k->since_ns < NS)
			continue;
		if (!best || (waits && !best_waits) ||
		    (waits == best_waits && k->since_ns < best->since_ns)) {
			best = k;
			best_waits = waits;
		}
	}
	return best;
}

/* Whether k's client has sent bytes MHD has not read yet: a request
 * about to be read, not a client that holds its slot idle. */
static bool pending(const struct httpd_conn *k)
{
	int n = 0;

	return !ioctl(k->fd, FIONREAD, &n) && n > 0;
}

/* The live connection to drop for a newcomer (among those of its address
 * when ip is set): the one waiting longest for its headers, else one
 * answered for over a second (a slow reader), else NULL. One with bytes
 * waiting to be read is passed over (a client that sent its request at
 * once is not dropped for one that keeps reconnecting). */
static struct httpd_conn *victim(struct httpd *h, const struct httpd_conn *ip, uint64_t now)
{
	for (int tries = 0; tries < 8; tries++) {
		struct httpd_conn *v = oldest(h, ip, now);

		if (!v || !pending(v))
			return v;
		v->spared = h->admits;
	}
	return NULL;
}

/* A new connection k: room is made for it by dropping another (of its
 * address past HTTPD_PER_IP, of any past HTTPD_MAX_CONNECTIONS); when
 * every other is busy being answered, k itself goes. */
static void admit(struct httpd *h, struct httpd_conn *k)
{
	const uint64_t now = k->since_ns;
	int same = 0;

	h->admits++;
	for (int i = 0; i < HTTPD_SLOTS; i++)
		same += &h->conns[i] != k && h->conns[i].c && !h->conns[i].dropped &&
		        same_ip(&h->conns[i], k);
	if (same >= HTTPD_PER_IP) {
		struct httpd_conn *v = victim(h, k, now);

		drop(h, v ? v : k);
		if (!v)
			return;
	}
	if (h->nr_live > HTTPD_MAX_CONNECTIONS) {
		struct httpd_conn *v = victim(h, NULL, now);

		drop(h, v && v != k ? v : k);
	}
}

static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
                          enum MHD_ConnectionNotificationCode toe)
{
	struct httpd *h = cls;
	struct httpd_conn *k = *ctx;
	const union MHD_ConnectionInfo *fd, *addr;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (k && !k->dropped)
			h->nr_live--;
		if (k)
			memset(k, 0, sizeof(*k));
		*ctx = NULL;
		return;
	}
	for (int i = 0; i < HTTPD_SLOTS && !k; i++)
		if (!h->conns[i].c)
			k = &h->conns[i];
	fd = h->mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!k || !fd) {
		if (fd)
			shutdown(fd->connect_fd, SHUT_RDWR); /* no slot: MHD's limit is ours */
		return;
	}
	*k = (struct httpd_conn){.c = c, .fd = fd->connect_fd, .since_ns = util_now_ns()};
	addr = h->mhd->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (addr && addr->client_addr) {
		const struct sockaddr *sa = addr->client_addr;

		k->family = sa->sa_family;
		if (sa->sa_family == AF_INET)
			memcpy(k->ip, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		else if (sa->sa_family == AF_INET6)
			memcpy(k->ip, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
	*ctx = k;
	h->nr_live++;
	admit(h, k);
}

/* A request answered (or given up): the next one's headers are awaited. */
static void on_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
	struct httpd_conn *k = conn_of(cls, c);

	(void)toe;
	*req_cls = NULL;
	if (!k)
		return;
	k->headers = false;
	k->requests++;
	k->since_ns = util_now_ns();
}

/* Drop the connections past their deadline; the next deadline (0: none). */
static uint64_t overdue(struct httpd *h, uint64_t now)
{
	uint64_t next = 0;

	for (int i = 0; i < HTTPD_SLOTS; i++) {
		struct httpd_conn *k = &h->conns[i];
		uint64_t due = k->since_ns + allowed_ns(k);

		if (!k->c || k->dropped)
			continue;
		if (due <= now)
			drop(h, k);
		else if (!next || due < next)
			next = due;
	}
	return next;
}

/* ---- requests ---- */

static void count(struct httpd *h, unsigned code)
{
	for (int i = 0; i < HTTPD_NR_CODES; i++)
		if (h->codes[i] == code)
			h->counts[i]++;
}

/* The last request a connection gets says so (Connection: close). */
static void last_request(const struct httpd *h, struct MHD_Connection *c, struct MHD_Response *r)
{
	const struct httpd_conn *k = conn_of(h, c);

	if (k && k->requests + 1 >= HTTPD_KEEPALIVE)
		h->mhd->add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
}

/* A response of code with text; retry: seconds for Retry-After (429, 503). */
static enum MHD_Result reply_retry(struct httpd *h, struct MHD_Connection *c, unsigned code,
                                   const char *type, const char *text, unsigned retry)
{
	struct MHD_Response *r =
	    h->mhd->create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;
	char secs[16];

	if (!r)
		return MHD_NO;
	h->mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		h->mhd->add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (code == MHD_HTTP_TOO_MANY_REQUESTS || code == MHD_HTTP_SERVICE_UNAVAILABLE) {
		snprintf(secs, sizeof(secs), "%u", retry ? retry : 1);
		h->mhd->add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, secs);
	}
	last_request(h, c, r);
	ret = h->mhd->queue_response(c, code, r);
	h->mhd->destroy_response(r);
	count(h, code);
	return ret;
}

static enum MHD_Result reply(struct httpd *h, struct MHD_Connection *c, unsigned code,
                             const char *type, const char *text)
{
	return reply_retry(h, c, code, type, text, 1);
}

static void blob_done(void *arg)
{
	httpd_blob_unref(arg);
}

static enum MHD_Result metrics(struct httpd *h, struct MHD_Connection *c)
{
	const char *accept = h->mhd->lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	/* As Prometheus's client libraries do: OpenMetrics when asked for, else
	 * the 0.0.4 text format (curl, promtool, older scrapers). */
	enum om_dialect d = accept && strstr(accept, "application/openmetrics-text")
	                        ? OM_OPENMETRICS
	                        : OM_PROMETHEUS;
	struct httpd_blob *b = h->cfg.page(d, h->cfg.arg);
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!b && errno == EAGAIN)
		return reply(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain",
		             "no figures yet: the first interval has not ended\n");
	if (!b)
		return reply(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
		             "pfmtop could not render its metrics (out of memory)\n");
	r = h->mhd->create_response_from_buffer_with_free_callback_cls(b->len, b->data, blob_done,
	                                                               b);
	if (!r) {
		httpd_blob_unref(b);
		return MHD_NO;
	}
	h->mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, om_content_type(d));
	last_request(h, c, r);
	ret = h->mhd->queue_response(c, MHD_HTTP_OK, r);
	h->mhd->destroy_response(r);
	count(h, MHD_HTTP_OK);
	return ret;
}

/* A token bucket (*tokens, of h's last_ns): max_rate requests a second,
 * as many in a burst. Both buckets are filled up to now first. */
static bool within_rate(struct httpd *h, double *tokens)
{
	const uint64_t now = util_now_ns();
	const double rate = h->cfg.max_rate, add = (double)(now - h->last_ns) / 1e9 * rate;

	h->tokens = h->tokens + add > rate ? rate : h->tokens + add;
	h->anon_tokens = h->anon_tokens + add > rate ? rate : h->anon_tokens + add;
	h->last_ns = now;
	if (*tokens < 1)
		return false;
	*tokens -= 1;
	return true;
}

/* RequireAndVerifyClientCert: a certificate was shown and GnuTLS found it
 * signed by client_ca_file (given to it as the trust list). */
static bool client_verified(const struct httpd *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    h->mhd->get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	unsigned int status = 0, n = 0;
	gnutls_session_t s;

	if (!ci || !h->mhd->get_peers || !h->mhd->verify_peers2)
		return false;
	s = (gnutls_session_t)ci->tls_session;
	return h->mhd->get_peers(s, &n) && n > 0 &&
	       h->mhd->verify_peers2(s, &status) == GNUTLS_E_SUCCESS && status == 0;
}

/* ---- logins ---- */

/* The tag of user and password: HMAC-SHA-256 under a key drawn at start.
 * false when there is no key or no HMAC (nothing is remembered then). */
static bool auth_tag(const struct httpd *h, const char *user, const char *pass,
                     unsigned char tag[32])
{
	size_t ul = strlen(user), pl = strlen(pass);
	char *text;
	bool ok;

	if (!h->have_auth_key || !h->mhd->hmac_fast || ul + pl + 1 < ul)
		return false;
	text = malloc(ul + pl + 1);
	if (!text)
		return false;
	memcpy(text, user, ul + 1); /* "user\0pass": a user name holds no NUL */
	memcpy(text + ul + 1, pass, pl);
	ok = h->mhd->hmac_fast(GNUTLS_MAC_SHA256, h->auth_key, sizeof(h->auth_key), text,
	                       ul + pl + 1, tag) == 0;
	explicit_bzero(text, ul + pl + 1);
	free(text);
	return ok;
}

/* The login remembered under tag, or NULL. */
static const struct httpd_auth *auth_find(const struct httpd *h, const unsigned char *tag,
                                          uint64_t now)
{
	for (int i = 0; i < HTTPD_AUTH_CACHE; i++)
		if (h->auth[i].expires_ns > now && !memcmp(h->auth[i].tag, tag, 32))
			return &h->auth[i];
	return NULL;
}

/* Remember a login checked: in a free or expired entry, else over the
 * failure that expires first; a success also over the success that does,
 * a failure never over a success. */
static void auth_keep(struct httpd *h, const unsigned char *tag, bool ok, uint64_t now)
{
	struct httpd_auth *e = NULL;

	for (int i = 0; i < HTTPD_AUTH_CACHE; i++) {
		struct httpd_auth *a = &h->auth[i];

		if (a->expires_ns <= now) {
			e = a;
			break;
		}
		if (a->ok && !ok)
			continue;
		if (!e || (e->ok && !a->ok) || (e->ok == a->ok && a->expires_ns < e->expires_ns))
			e = a;
	}
	if (!e)
		return;
	memcpy(e->tag, tag, 32);
	e->ok = ok;
	e->expires_ns = now + (ok ? HTTPD_AUTH_OK_S : HTTPD_AUTH_FAIL_S) * NS;
}

/* bcrypt's budget, filled up to now: whether a run may start. */
static bool bcrypt_allowed(struct httpd *h, uint64_t now)
{
	h->bcrypt_ns += (double)(now - h->bcrypt_last_ns) * HTTPD_BCRYPT_SHARE;
	if (h->bcrypt_ns > HTTPD_BCRYPT_BURST)
		h->bcrypt_ns = HTTPD_BCRYPT_BURST;
	h->bcrypt_last_ns = now;
	return h->bcrypt_ns > 0;
}

/* Seconds until bcrypt's budget allows a run again. */
static unsigned bcrypt_wait(const struct httpd *h)
{
	return (unsigned)(-h->bcrypt_ns / HTTPD_BCRYPT_SHARE / 1e9) + 1;
}

enum auth { AUTH_OK, AUTH_FAILED, AUTH_BUSY };

/* Basic auth checked: remembered, or by bcrypt when its budget allows. */
static enum auth check_login(struct httpd *h, const char *user, const char *pass)
{
	unsigned char tag[32];
	const uint64_t now = util_now_ns();
	const bool tagged = auth_tag(h, user, pass, tag);
	const struct httpd_auth *a = tagged ? auth_find(h, tag, now) : NULL;
	uint64_t t0, ran;
	bool ok;

	if (a)
		return a->ok ? AUTH_OK : AUTH_FAILED;
	if (!bcrypt_allowed(h, now))
		return AUTH_BUSY;
	t0 = util_now_ns();
	ok = webconfig_check_user(h->cfg.web, user, pass);
	ran = util_now_ns() - t0;
	h->bcrypt_ns -= (double)ran;
	if (tagged)
		auth_keep(h, tag, ok, t0 + ran);
	explicit_bzero(tag, sizeof(tag));
	return ok ? AUTH_OK : AUTH_FAILED;
}

static enum auth authorized(struct httpd *h, struct MHD_Connection *c)
{
	char *pass = NULL;
	char *user;
	enum auth ret;

	if (h->cfg.web && h->cfg.web->client_auth == WEBCONFIG_REQUIRE_CLIENT_CERT &&
	    !client_verified(h, c))
		return AUTH_FAILED;
	if (!h->cfg.web || !webconfig_wants_auth(h->cfg.web))
		return AUTH_OK;
	user = h->mhd->basic_auth_get_username_password(c, &pass);
	ret = user && pass ? check_login(h, user, pass) : AUTH_FAILED;
	if (pass)
		explicit_bzero(pass, strlen(pass));
	h->mhd->free(user);
	h->mhd->free(pass);
	return ret;
}

static enum MHD_Result unauthorized(struct httpd *h, struct MHD_Connection *c)
{
	struct MHD_Response *r = h->mhd->create_response_from_buffer(
	    strlen("unauthorized\n"), (void *)"unauthorized\n", MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	last_request(h, c, r);
	ret = h->mhd->queue_basic_auth_fail_response(c, "pfmtop", r);
	h->mhd->destroy_response(r);
	count(h, MHD_HTTP_UNAUTHORIZED);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
	static const char page[] = "<html><head><title>pfmtop</title></head><body>"
	                           "<h1>pfmtop</h1><p><a href=\"/metrics\">Metrics</a></p>"
	                           "</body></html>\n";
	static const char busy[] = "too many requests: try again in a second\n";
	struct httpd *h = cls;
	struct httpd_conn *k = conn_of(h, c);
	const char *length =
	    h->mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	bool first = !*req_cls;
	enum auth a;

	if (first && k) {
		k->headers = true; /* off the header deadline, on the answer's */
		k->since_ns = util_now_ns();
	}
	*req_cls = h;
	/* Asked first with the headers alone: a body announced is refused
	 * before it is read (and the connection closed, its body unread). */
	if (*upload_data_size || (length && strcmp(length, "0")) ||
	    h->mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return reply(h, c, MHD_HTTP_CONTENT_TOO_LARGE, "text/plain",
		             "pfmtop takes no request bodies\n");
	/* A response queued at that first call would close the connection
	 * (libmicrohttpd 0.9.75): answered at the second, it stays open. */
	if (first)
		return MHD_YES;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
		             "only GET and HEAD are served\n");
	a = authorized(h, c);
	/* Each kind from its own bucket: those who did not log in cannot
	 * spend the requests of those who did. */
	if (!within_rate(h, a == AUTH_OK ? &h->tokens : &h->anon_tokens))
		return reply(h, c, MHD_HTTP_TOO_MANY_REQUESTS, "text/plain", busy);
	if (a == AUTH_BUSY)
		return reply_retry(h, c, MHD_HTTP_TOO_MANY_REQUESTS, "text/plain",
		                   "too many logins to check: try again later\n", bcrypt_wait(h));
	if (a == AUTH_FAILED)
		return unauthorized(h, c);
	if (!strcmp(url, "/metrics"))
		return metrics(h, c);
	if (!strcmp(url, "/"))
		return reply(h, c, MHD_HTTP_OK, "text/html; charset=utf-8", page);
	return reply(h, c, MHD_HTTP_NOT_FOUND, "text/plain", "not found: try /metrics\n");
}

/* ---- the daemon ---- */

static const char *tls_priorities(const struct webconfig *w)
{
	if (!strcmp(w->min_version, "TLS13"))
		return "NORMAL:-VERS-ALL:+VERS-TLS1.3";
	return "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
}

/* poll_fd watching MHD's epoll fd and timer_fd. 0 or -errno. */
static int watch_fds(struct httpd *h)
{
	struct epoll_event ev = {.events = EPOLLIN};

	h->poll_fd = epoll_create1(EPOLL_CLOEXEC);
	h->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (h->poll_fd < 0 || h->timer_fd < 0)
		return -errno;
	ev.data.fd = h->epoll_fd;
	if (epoll_ctl(h->poll_fd, EPOLL_CTL_ADD, h->epoll_fd, &ev))
		return -errno;
	ev.data.fd = h->timer_fd;
	if (epoll_ctl(h->poll_fd, EPOLL_CTL_ADD, h->timer_fd, &ev))
		return -errno;
	return 0;
}

int httpd_open(struct httpd *h, const struct httpd_config *cfg, char *err, size_t errlen)
{
	const bool tls = cfg->web && cfg->web->cert_pem;
	const union MHD_DaemonInfo *info;
	int ret;

	memset(h, 0, sizeof(*h));
	h->sock = h->epoll_fd = h->poll_fd = h->timer_fd = -1;
	h->cfg = *cfg;
	if (!h->cfg.max_rate)
		h->cfg.max_rate = HTTPD_DEFAULT_RATE;
	h->tokens = h->anon_tokens = h->cfg.max_rate;
	h->last_ns = h->bcrypt_last_ns = util_now_ns();
	h->bcrypt_ns = HTTPD_BCRYPT_BURST;
	h->have_auth_key = getrandom(h->auth_key, sizeof(h->auth_key), GRND_NONBLOCK) ==
	                   (ssize_t)sizeof(h->auth_key);
	memcpy(h->codes, httpd_codes, sizeof(h->codes));
	ret = mhd_open(h, err, errlen);
	if (ret)
		return ret;
	if (tls && h->mhd->is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
		snprintf(err, errlen, "--web-config: this libmicrohttpd has no TLS support");
		httpd_close(h);
		return -ENOTSUP;
	}
	ret = bind_listen(h, cfg, err, errlen);
	if (ret) {
		httpd_close(h);
		return ret;
	}
	struct MHD_OptionItem opts[] = {
	    {MHD_OPTION_LISTEN_SOCKET, h->sock, NULL},
	    /* ours are enforced in on_connection(), by dropping the slowest */
	    {MHD_OPTION_CONNECTION_LIMIT, HTTPD_SLOTS, NULL},
	    {MHD_OPTION_CONNECTION_TIMEOUT, HTTPD_TIMEOUT_S, NULL},
	    {MHD_OPTION_CONNECTION_MEMORY_LIMIT, HTTPD_REQUEST_BYTES, NULL},
	    {tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, 0, tls ? cfg->web->key_pem : NULL},
	    {tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, 0, tls ? cfg->web->cert_pem : NULL},
	    {tls ? MHD_OPTION_HTTPS_PRIORITIES : MHD_OPTION_END, 0,
	     tls ? (void *)tls_priorities(cfg->web) : NULL},
	    {tls && cfg->web->client_ca_pem ? MHD_OPTION_HTTPS_MEM_TRUST : MHD_OPTION_END, 0,
	     tls ? cfg->web->client_ca_pem : NULL},
	    {MHD_OPTION_END, 0, NULL},
	};
	h->d = h->mhd->start_daemon(MHD_USE_EPOLL | (tls ? MHD_USE_TLS : 0), 0, NULL, NULL,
	                            on_request, h, MHD_OPTION_ARRAY, opts,
	                            MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
	                            MHD_OPTION_NOTIFY_COMPLETED, on_completed, h, MHD_OPTION_END);
	if (!h->d) {
		snprintf(err, errlen, "--listen %s: libmicrohttpd would not start%s", cfg->listen,
		         tls ? " (check the certificate and key of --web-config)" : "");
		httpd_close(h);
		return -EINVAL;
	}
	info = h->mhd->get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	h->epoll_fd = info ? info->epoll_fd : -1;
	if (h->epoll_fd < 0) {
		snprintf(err, errlen, "--listen: libmicrohttpd has no epoll fd to give");
		httpd_close(h);
		return -ENOTSUP;
	}
	ret = watch_fds(h);
	if (ret) {
		snprintf(err, errlen, "--listen: %s", strerror(-ret));
		httpd_close(h);
		return ret;
	}
	return 0;
}

int httpd_fd(const struct httpd *h)
{
	return h->poll_fd;
}

/* Arm timer_fd for the next deadline of ours or MHD's (a connection's
 * idle timeout), whichever comes first; next 0: none of ours. */
static void arm(struct httpd *h, uint64_t now, uint64_t next)
{
	MHD_UNSIGNED_LONG_LONG ms;
	struct itimerspec it = {0};
	uint64_t in;

	if (h->mhd->get_timeout(h->d, &ms) == MHD_YES && (!next || now + ms * 1000000 < next))
		next = now + ms * 1000000;
	if (next) {
		in = next > now ? next - now : 1;
		in = in < 1000000 ? 1000000 : in + 1000000; /* past it, not just before */
		it.it_value.tv_sec = (time_t)(in / NS);
		it.it_value.tv_nsec = (long)(in % NS);
	}
	timerfd_settime(h->timer_fd, 0, &it, NULL);
}

/* MHD's epoll is edge-triggered: work it has begun and not finished (a
 * connection with more to read) shows as a timeout of 0, not as the fd
 * being readable again, so it runs until none is left (bounded, so that a
 * flood cannot hold the loop; the next wake-up or tick goes on). */
void httpd_run(struct httpd *h)
{
	MHD_UNSIGNED_LONG_LONG ms = 0;
	struct epoll_event ev[2];
	uint64_t now, expired;

	if (!h->d)
		return;
	/* consumed, so that poll_fd shows only what is new */
	while (epoll_wait(h->poll_fd, ev, 2, 0) > 0 &&
	       read(h->timer_fd, &expired, sizeof(expired)) > 0)
		;
	for (int i = 0; i < 64; i++) {
		h->mhd->run(h->d);
		if (h->mhd->get_timeout(h->d, &ms) != MHD_YES || ms > 0)
			break;
	}
	now = util_now_ns();
	arm(h, now, overdue(h, now));
}

void httpd_close(struct httpd *h)
{
	if (h->d)
		h->mhd->stop_daemon(h->d);
	if (h->sock >= 0)
		close(h->sock);
	if (h->poll_fd >= 0)
		close(h->poll_fd);
	if (h->timer_fd >= 0)
		close(h->timer_fd);
	explicit_bzero(h->auth_key, sizeof(h->auth_key));
	explicit_bzero(h->auth, sizeof(h->auth));
	if (h->dl)
		dlclose(h->dl);
	free(h->mhd);
	h->d = NULL;
	h->dl = NULL;
	h->mhd = NULL;
	h->sock = h->epoll_fd = h->poll_fd = h->timer_fd = -1;
}
