/* httpd: /metrics over HTTP(S) with libmicrohttpd, driven by the caller's epoll loop. */
#ifndef PFMTOP_HTTPD_H
#define PFMTOP_HTTPD_H

#include "openmetrics.h"
struct webconfig;

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A response body shared by the requests it answers, freed with the last. */
struct httpd_blob {
	int refs;
	size_t len;
	char data[];
};

/* A blob holding len bytes of text (one reference), or NULL. */
struct httpd_blob *httpd_blob_new(const char *text, size_t len);
void httpd_blob_unref(struct httpd_blob *b);

#define HTTPD_NR_CODES 8

struct httpd_config {
	const char *listen;          /* HOST:PORT, [V6]:PORT or :PORT (loopback) */
	bool allow_remote;           /* a non-loopback address is refused without it */
	const struct webconfig *web; /* TLS and users, or NULL */
	unsigned max_rate;           /* requests per second at most (429 past it), 0: 1000 */
	/* The metrics in dialect d, with a reference for the caller; NULL is a
	 * 503 with errno EAGAIN (nothing measured yet), else a 500. */
	struct httpd_blob *(*page)(enum om_dialect d, void *arg);
	void *arg;
};

struct MHD_Daemon;

struct httpd {
	struct MHD_Daemon *d;
	void *dl;              /* libmicrohttpd, opened by httpd_open() */
	struct httpd_mhd *mhd; /* its functions */
	int sock;              /* the listening socket (ours: MHD only uses it) */
	int epoll_fd;          /* MHD's: readable when it has work */
	char where[128]; /* the address as served, for messages: "http://127.0.0.1:9464/metrics" */
	struct httpd_config cfg;
	double tokens; /* the rate limit's bucket */
	uint64_t last_ns;
	/* Responses by status code, for pfmtop_http_requests_total. */
	unsigned codes[HTTPD_NR_CODES];
	uint64_t counts[HTTPD_NR_CODES];
};

/*
 * Bind cfg->listen and start serving (nothing happens until httpd_run()).
 * 0, or -errno with one sentence in err: a malformed address, a name that
 * does not resolve, a non-loopback address without allow_remote, a port in
 * use or not ours to bind, TLS this libmicrohttpd cannot do.
 */
int httpd_open(struct httpd *h, const struct httpd_config *cfg, char *err, size_t errlen);

/* The fd to watch for EPOLLIN (call httpd_run() when it is readable, and
 * once a second or so for timeouts). */
int httpd_fd(const struct httpd *h);

/* Serve what is ready; never blocks. */
void httpd_run(struct httpd *h);

void httpd_close(struct httpd *h);

/* Parse "HOST:PORT", "[V6]:PORT" or ":PORT" into host (empty for none) and
 * port. 0 or -EINVAL. */
int httpd_parse_listen(const char *s, char *host, size_t hostlen, char *port, size_t portlen);

#endif
