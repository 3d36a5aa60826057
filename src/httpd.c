/* httpd: /metrics over HTTP(S) with libmicrohttpd, driven by the caller's epoll loop. */
#include "httpd.h"

#include "dlbind.h"
#include "util.h"
#include "webconfig.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define HTTPD_MAX_CONNECTIONS 64
#define HTTPD_PER_IP          16
#define HTTPD_TIMEOUT_S       10
#define HTTPD_REQUEST_BYTES   (16 * 1024) /* request line and headers */
#define HTTPD_DEFAULT_RATE    1000

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

/* ---- requests ---- */

static void count(struct httpd *h, unsigned code)
{
	for (int i = 0; i < HTTPD_NR_CODES; i++)
		if (h->codes[i] == code)
			h->counts[i]++;
}

static enum MHD_Result reply(struct httpd *h, struct MHD_Connection *c, unsigned code,
                             const char *type, const char *text)
{
	struct MHD_Response *r =
	    h->mhd->create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	h->mhd->add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		h->mhd->add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	if (code == MHD_HTTP_TOO_MANY_REQUESTS || code == MHD_HTTP_SERVICE_UNAVAILABLE)
		h->mhd->add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = h->mhd->queue_response(c, code, r);
	h->mhd->destroy_response(r);
	count(h, code);
	return ret;
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
	ret = h->mhd->queue_response(c, MHD_HTTP_OK, r);
	h->mhd->destroy_response(r);
	count(h, MHD_HTTP_OK);
	return ret;
}

/* The token bucket: max_rate requests a second, as many in a burst. */
static bool within_rate(struct httpd *h)
{
	const uint64_t now = util_now_ns();
	const double rate = h->cfg.max_rate;

	h->tokens += (double)(now - h->last_ns) / 1e9 * rate;
	if (h->tokens > rate)
		h->tokens = rate;
	h->last_ns = now;
	if (h->tokens < 1)
		return false;
	h->tokens -= 1;
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

static bool authorized(struct httpd *h, struct MHD_Connection *c)
{
	char *pass = NULL;
	char *user;
	bool ok;

	if (h->cfg.web && h->cfg.web->client_auth == WEBCONFIG_REQUIRE_CLIENT_CERT &&
	    !client_verified(h, c))
		return false;
	if (!h->cfg.web || !webconfig_wants_auth(h->cfg.web))
		return true;
	user = h->mhd->basic_auth_get_username_password(c, &pass);
	ok = user && pass && webconfig_check_user(h->cfg.web, user, pass);
	h->mhd->free(user);
	h->mhd->free(pass);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
	static const char page[] = "<html><head><title>pfmtop</title></head><body>"
	                           "<h1>pfmtop</h1><p><a href=\"/metrics\">Metrics</a></p>"
	                           "</body></html>\n";
	struct httpd *h = cls;
	const char *length =
	    h->mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);

	/* Asked first with the headers alone: a body announced is refused
	 * before it is read. */
	if (*upload_data_size || (length && strcmp(length, "0")) ||
	    h->mhd->lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING))
		return reply(h, c, MHD_HTTP_CONTENT_TOO_LARGE, "text/plain",
		             "pfmtop takes no request bodies\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
		             "only GET and HEAD are served\n");
	if (!within_rate(h))
		return reply(h, c, MHD_HTTP_TOO_MANY_REQUESTS, "text/plain",
		             "too many requests: try again in a second\n");
	if (!authorized(h, c)) {
		struct MHD_Response *r = h->mhd->create_response_from_buffer(
		    strlen("unauthorized\n"), (void *)"unauthorized\n", MHD_RESPMEM_PERSISTENT);
		enum MHD_Result ret;

		if (!r)
			return MHD_NO;
		ret = h->mhd->queue_basic_auth_fail_response(c, "pfmtop", r);
		h->mhd->destroy_response(r);
		count(h, MHD_HTTP_UNAUTHORIZED);
		return ret;
	}
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

int httpd_open(struct httpd *h, const struct httpd_config *cfg, char *err, size_t errlen)
{
	const bool tls = cfg->web && cfg->web->cert_pem;
	const union MHD_DaemonInfo *info;
	int ret;

	memset(h, 0, sizeof(*h));
	h->sock = h->epoll_fd = -1;
	h->cfg = *cfg;
	if (!h->cfg.max_rate)
		h->cfg.max_rate = HTTPD_DEFAULT_RATE;
	h->tokens = h->cfg.max_rate;
	h->last_ns = util_now_ns();
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
	    {MHD_OPTION_CONNECTION_LIMIT, HTTPD_MAX_CONNECTIONS, NULL},
	    {MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTPD_PER_IP, NULL},
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
	                            on_request, h, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
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
	return 0;
}

int httpd_fd(const struct httpd *h)
{
	return h->epoll_fd;
}

/* MHD's epoll is edge-triggered: work it has begun and not finished (a
 * connection with more to read) shows as a timeout of 0, not as the fd
 * being readable again, so it runs until none is left (bounded, so that a
 * flood cannot hold the loop; the next wake-up or tick goes on). */
void httpd_run(struct httpd *h)
{
	MHD_UNSIGNED_LONG_LONG ms = 0;

	for (int i = 0; h->d && i < 64; i++) {
		h->mhd->run(h->d);
		if (h->mhd->get_timeout(h->d, &ms) != MHD_YES || ms > 0)
			break;
	}
}

void httpd_close(struct httpd *h)
{
	if (h->d)
		h->mhd->stop_daemon(h->d);
	if (h->sock >= 0)
		close(h->sock);
	if (h->dl)
		dlclose(h->dl);
	free(h->mhd);
	h->d = NULL;
	h->dl = NULL;
	h->mhd = NULL;
	h->sock = h->epoll_fd = -1;
}
