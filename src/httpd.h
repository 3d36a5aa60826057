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
struct MHD_Connection;

/* Connections served at once (past it, the one waiting longest for its
 * headers is dropped to let a new one in), from one address at once. */
#define HTTPD_MAX_CONNECTIONS 64
#define HTTPD_PER_IP          32
/* Slots: the connections served and those dropped that MHD has not yet closed. */
#define HTTPD_SLOTS      (2 * HTTPD_MAX_CONNECTIONS)
#define HTTPD_AUTH_CACHE 64 /* logins remembered (a keyed hash each, never the password) */

/* One connection, from MHD's start notification to its close. */
struct httpd_conn {
	struct MHD_Connection *c; /* NULL: a free slot */
	int fd;
	bool headers;      /* the current request's headers are in (it is being answered) */
	bool dropped;      /* shut down by us: MHD closes it on its next pass */
	uint64_t since_ns; /* connected, last response sent, or headers in */
	unsigned requests; /* answered on it */
	unsigned spared;   /* h->admits when passed over as a victim (it had bytes to read) */
	unsigned char ip[16];
	int family;
};

/* A login checked with bcrypt: HMAC-SHA-256 of user and password. */
struct httpd_auth {
	unsigned char tag[32];
	uint64_t expires_ns; /* 0: free */
	bool ok;
};

struct httpd {
	struct MHD_Daemon *d;
	void *dl;              /* libmicrohttpd, opened by httpd_open() */
	struct httpd_mhd *mhd; /* its functions */
	int sock;              /* the listening socket (ours: MHD only uses it) */
	int epoll_fd;          /* MHD's: readable when it has work */
	char where[128]; /* the address as served, for messages: "http://127.0.0.1:9464/metrics" */
	struct httpd_config cfg;
	int poll_fd;        /* ours: MHD's epoll fd and timer_fd */
	int timer_fd;       /* the next deadline of a connection */
	double tokens;      /* the rate limit's bucket: authorized requests (all without logins) */
	double anon_tokens; /* and the one of requests that did not log in */
	uint64_t last_ns;
	struct httpd_conn conns[HTTPD_SLOTS];
	int nr_live;     /* connections not dropped */
	unsigned admits; /* connections admitted so far */
	/* Logins remembered, so that bcrypt runs once per login and not per
	 * request; bcrypt's time a second is bounded (bcrypt_ns: what is left). */
	struct httpd_auth auth[HTTPD_AUTH_CACHE];
	unsigned char auth_key[32];
	bool have_auth_key;
	double bcrypt_ns;
	uint64_t bcrypt_last_ns;
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

/* The fd to watch for EPOLLIN: call httpd_run() when it is readable (it
 * is also when a connection's deadline or MHD's timeout is due). */
int httpd_fd(const struct httpd *h);

/* Serve what is ready; never blocks. */
void httpd_run(struct httpd *h);

void httpd_close(struct httpd *h);

/* Parse "HOST:PORT", "[V6]:PORT" or ":PORT" into host (empty for none) and
 * port. 0 or -EINVAL. */
int httpd_parse_listen(const char *s, char *host, size_t hostlen, char *port, size_t portlen);

#endif
