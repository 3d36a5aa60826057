/* webconfig: the exporter's --web-config file (TLS, basic auth), in the Prometheus format. */
#ifndef PFMTOP_WEBCONFIG_H
#define PFMTOP_WEBCONFIG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The file is the exporter-toolkit "web configuration file"
 * (https://prometheus.io/docs/prometheus/latest/configuration/https/), so
 * one written for node_exporter works here:
 *
 *   tls_server_config:
 *     cert_file: server.crt            # relative paths: to this file's directory
 *     key_file: server.key
 *     client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (the default)
 *     client_ca_file: clients.crt      # what client certificates must be signed by
 *     min_version: TLS13               # TLS12 (the default) or TLS13
 *   basic_auth_users:
 *     alice: $2y$10$...                # bcrypt: htpasswd -nBC 10 "" | tr -d ':\n'
 *
 * - Empty (or only comments), the file enables nothing: plain HTTP, no
 *   login. So does a key given no value (`tls_server_config:`).
 * - Ignored: max_version, cipher_suites, curve_preferences,
 *   prefer_server_cipher_suites (the TLS library's defaults apply) and the
 *   whole of http_server_config.
 * - Refused, each with a sentence: unknown keys (as the toolkit does), a key
 *   given twice, cert_file without key_file or the other way round, other
 *   TLS keys without both, client_ca_file without RequireAndVerifyClientCert
 *   and the other way round, the client_auth_types that let clients in
 *   unchecked, TLS10 and TLS11, what pfmtop cannot honour rather than
 *   ignore (client_allowed_sans, rate_limit, inline cert, key, client_ca),
 *   hashes that are not bcrypt ($2a$, $2b$, $2y$), a user listed twice, a
 *   user name that is empty or holds ':' (basic auth splits there), YAML
 *   aliases (*name), more than one YAML document.
 * - Files: the config, the certificate and the client CA file must not be
 *   writable by group or others nor owned by another user than root or the
 *   one running pfmtop (util_untrusted()); the key file must not be
 *   readable by others either (its group may read it: Debian's ssl-cert).
 *   All are regular files of at most 1 MiB, the PEM ones text with a
 *   "-----BEGIN " line; what the PEM holds is for the TLS library to judge.
 * - Hostile files cost bounded memory and time: 1 MiB at most, nesting 16
 *   deep at most (libyaml alone would take minutes over a MiB of '['),
 *   1000 users at most, no aliases, no NUL bytes; UTF-8 only (libyaml
 *   checks it; UTF-16 is refused with a sentence).
 */

enum webconfig_client_auth {
	WEBCONFIG_NO_CLIENT_CERT,      /* NoClientCert (also when not given) */
	WEBCONFIG_REQUIRE_CLIENT_CERT, /* RequireAndVerifyClientCert, against client_ca_pem */
};

struct webconfig_user {
	char *name;
	char *hash; /* bcrypt, checked at load */
};

struct webconfig {
	char *cert_pem;      /* cert_file's text (NUL-terminated); NULL: no TLS */
	char *key_pem;       /* key_file's text; set exactly when cert_pem is (wiped by free) */
	char *client_ca_pem; /* client_ca_file's text; set exactly when client_auth requires it */
	enum webconfig_client_auth client_auth;
	char min_version[8]; /* "TLS12", "TLS13", or "" when not given (TLS12 then) */
	int nr_users;        /* basic_auth_users, in file order; 0: no login asked */
	struct webconfig_user *users;
};

/* Longest configuration, certificate or key file read. */
#define WEBCONFIG_FILE_MAX (1 << 20)

/*
 * Read and check the web config file at path, and the PEM files it names,
 * into *wc. 0, or -errno (-EINVAL for what the file says, -EPERM for a file
 * others may change or read, -ENOENT, -EFBIG, -ENOMEM...) with *wc left
 * empty and one sentence in err (errlen bytes) naming the file, and its
 * line when the text is at fault: "web.yml:4: user 'bob' is listed twice
 * in basic_auth_users: keep one" ("web.yml:4:7: not valid YAML: ..." for
 * libyaml's own). It quotes the file as it is, so print it through
 * untrusted_complain().
 */
int webconfig_load(struct webconfig *wc, const char *path, char *err, size_t errlen);

/* Whether requests must log in (basic_auth_users lists someone). */
bool webconfig_wants_auth(const struct webconfig *wc);

/*
 * Whether user and password (from an Authorization: Basic header) match a
 * user of basic_auth_users; false when no one is listed. An unknown user
 * costs a bcrypt run too (against a dummy hash of the highest cost among
 * the users), and names and hashes are compared in a time that does not
 * depend on where they differ, so timing does not tell which users exist
 * when they share one cost (a user of a lower cost is faster to check
 * than an unknown one). NULL user or password: false. Takes as long as the
 * hash's cost asks (tens of milliseconds at cost 10), and the loop waits
 * meanwhile: httpd remembers the logins checked and bounds bcrypt's time.
 */
bool webconfig_check_user(const struct webconfig *wc, const char *user, const char *password);

/* Free what webconfig_load() filled (the key wiped first) and empty *wc;
 * an empty or already freed *wc is fine. */
void webconfig_free(struct webconfig *wc);

#endif
