/* test_webconfig: TLS files, bcrypt users, refusals naming file and line, hostile files. */
#include "webconfig.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define CERT "-----BEGIN CERTIFICATE-----\nMIIBfakeCERT\n-----END CERTIFICATE-----\n"
#define KEY  "-----BEGIN PRIVATE KEY-----\nMIIBfakeKEY\n-----END PRIVATE KEY-----\n"
#define CA   "-----BEGIN CERTIFICATE-----\nMIIBfakeCA\n-----END CERTIFICATE-----\n"

static char dir[] = "/tmp/pfmtop-webconfig-XXXXXX";
static char cfg[PATH_MAX];                 /* dir/web.yml: what most tests load */
static char alice[64], bob[64], carol[64]; /* bcrypt hashes made at setup */
static const char *const alice_pw = "wonderland", *const bob_pw = "builder";

/* dir/rel into buf. */
static const char *at(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", dir, rel);
	return buf;
}

/* dir/rel holding len bytes of text, with mode. */
static void spit_len(const char *rel, const char *text, size_t len, mode_t mode)
{
	char p[PATH_MAX];
	FILE *f = fopen(at(p, sizeof(p), rel), "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(p, mode), 0);
}

static void spit(const char *rel, const char *text, mode_t mode)
{
	spit_len(rel, text, strlen(text), mode);
}

/* A literal with NULs in it, whole. */
#define SPIT_BYTES(rel, lit, mode) spit_len(rel, lit, sizeof(lit) - 1, mode)

/* A bcrypt hash of pw (prefix "$2b$" and the like, cost 5: quick) into out. */
static void make_hash(char *out, size_t len, const char *prefix, unsigned long cost, const char *pw)
{
	char salt[CRYPT_GENSALT_OUTPUT_SIZE];
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	const char *h;

	assert_non_null(cd);
	assert_non_null(crypt_gensalt_rn(prefix, cost, NULL, 0, salt, sizeof(salt)));
	h = crypt_r(pw, salt, cd);
	assert_non_null(h);
	assert_int_equal(strlen(h), 60);
	assert_int_equal(strncmp(h, prefix, 4), 0);
	snprintf(out, len, "%s", h);
	free(cd);
}

static int setup(void **state)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(cfg, sizeof(cfg), "%s/web.yml", dir);
	make_hash(alice, sizeof(alice), "$2b$", 5, alice_pw);
	make_hash(bob, sizeof(bob), "$2y$", 5, bob_pw);
	make_hash(carol, sizeof(carol), "$2a$", 5, "carol");
	spit("server.crt", CERT, 0644);
	spit("server.key", KEY, 0600);
	spit("ca.crt", CA, 0644);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

/* printf into a malloc'd string (configs with paths and hashes in them). */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	assert_true(vasprintf(&s, f, ap) >= 0);
	va_end(ap);
	return s;
}

static void assert_empty(const struct webconfig *wc)
{
	assert_null(wc->cert_pem);
	assert_null(wc->key_pem);
	assert_null(wc->client_ca_pem);
	assert_null(wc->users);
	assert_int_equal(wc->nr_users, 0);
	assert_int_equal(wc->client_auth, WEBCONFIG_NO_CLIENT_CERT);
	assert_string_equal(wc->min_version, "");
}

/* yaml as web.yml (mode 0600), loaded: 0 expected. */
static void load_ok(struct webconfig *wc, const char *yaml)
{
	char err[512];
	int ret;

	spit("web.yml", yaml, 0600);
	ret = webconfig_load(wc, cfg, err, sizeof(err));
	if (ret)
		print_error("%d: %s\n", ret, err);
	assert_int_equal(ret, 0);
}

/*
 * The config at path refused with ret and a message that starts with
 * "PATH:LINE:" (line > 0) or "PATH" (line 0) and holds want; *wc empty.
 */
static void refused_at(const char *path, int ret, int line, const char *want)
{
	struct webconfig wc;
	char err[512], head[PATH_MAX + 32];
	int got = webconfig_load(&wc, path, err, sizeof(err));

	if (line)
		snprintf(head, sizeof(head), "%s:%d:", path, line); /* libyaml's: LINE:COL: */
	else
		snprintf(head, sizeof(head), "%s", path);
	if (got != ret || strncmp(err, head, strlen(head)) || !strstr(err, want)) {
		print_error("got %d '%s'\nwant %d '%s...%s...'\n", got, err, ret, head, want);
		fail();
	}
	assert_empty(&wc);
	webconfig_free(&wc);
}

/* yaml as web.yml, refused as refused_at() says. */
static void refused(const char *yaml, int ret, int line, const char *want)
{
	spit("web.yml", yaml, 0600);
	refused_at(cfg, ret, line, want);
}

/* TLS with client certificates, ignored keys, two users: everything read. */
static void test_full(void **state)
{
	struct webconfig wc;
	char *yaml = fmt("# as node_exporter takes it\n"
	                 "tls_server_config:\n"
	                 "  cert_file: %s/server.crt\n"
	                 "  key_file: %s/server.key\n"
	                 "  client_auth_type: RequireAndVerifyClientCert\n"
	                 "  client_ca_file: %s/ca.crt\n"
	                 "  min_version: TLS13\n"
	                 "  max_version: TLS13\n"
	                 "  cipher_suites:\n"
	                 "    - TLS_AES_128_GCM_SHA256\n"
	                 "  prefer_server_cipher_suites: true\n"
	                 "  curve_preferences: [X25519, CurveP256]\n"
	                 "http_server_config:\n"
	                 "  http2: false\n"
	                 "  headers:\n"
	                 "    X-Frame-Options: deny\n"
	                 "basic_auth_users:\n"
	                 "  alice: %s\n"
	                 "  \"bob\": '%s'\n",
	                 dir, dir, dir, alice, bob);

	load_ok(&wc, yaml);
	assert_string_equal(wc.cert_pem, CERT);
	assert_string_equal(wc.key_pem, KEY);
	assert_string_equal(wc.client_ca_pem, CA);
	assert_int_equal(wc.client_auth, WEBCONFIG_REQUIRE_CLIENT_CERT);
	assert_string_equal(wc.min_version, "TLS13");
	assert_int_equal(wc.nr_users, 2);
	assert_string_equal(wc.users[0].name, "alice");
	assert_string_equal(wc.users[0].hash, alice);
	assert_string_equal(wc.users[1].name, "bob");
	assert_string_equal(wc.users[1].hash, bob);
	assert_true(webconfig_wants_auth(&wc));
	webconfig_free(&wc);
	assert_empty(&wc);
	webconfig_free(&wc); /* twice: fine */
	free(yaml);
}

/* Right and wrong passwords, unknown users, each bcrypt prefix. */
static void test_check_user(void **state)
{
	struct webconfig wc;
	char *yaml =
	    fmt("basic_auth_users:\n  alice: %s\n  bob: %s\n  carol: %s\n", alice, bob, carol);

	load_ok(&wc, yaml);
	assert_null(wc.cert_pem);
	assert_true(webconfig_check_user(&wc, "alice", alice_pw));
	assert_true(webconfig_check_user(&wc, "bob", bob_pw));
	assert_true(webconfig_check_user(&wc, "carol", "carol"));
	assert_false(webconfig_check_user(&wc, "alice", "Wonderland"));
	assert_false(webconfig_check_user(&wc, "alice", ""));
	assert_false(webconfig_check_user(&wc, "alice", bob_pw)); /* another user's password */
	assert_false(webconfig_check_user(&wc, "bob", alice_pw));
	assert_false(webconfig_check_user(&wc, "mallory", alice_pw)); /* unknown */
	assert_false(webconfig_check_user(&wc, "alic", alice_pw));    /* a prefix */
	assert_false(webconfig_check_user(&wc, "alicex", alice_pw));
	assert_false(webconfig_check_user(&wc, "", alice_pw));
	assert_false(webconfig_check_user(&wc, NULL, alice_pw));
	assert_false(webconfig_check_user(&wc, "alice", NULL));
	webconfig_free(&wc);

	/* no users: no login asked, and none succeeds */
	load_ok(&wc, "basic_auth_users:\n");
	assert_false(webconfig_wants_auth(&wc));
	assert_false(webconfig_check_user(&wc, "alice", alice_pw));
	webconfig_free(&wc);
	free(yaml);
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The fastest of three checks of user (with a wrong password). */
static double check_time(const struct webconfig *wc, const char *user)
{
	double best = 1e9;

	for (int i = 0; i < 3; i++) {
		double t = seconds();

		assert_false(webconfig_check_user(wc, user, "not the password"));
		t = seconds() - t;
		best = t < best ? t : best;
	}
	return best;
}

/* An unknown user costs a bcrypt run too: without one it would answer in
 * microseconds instead of milliseconds, and tell that the user is not there. */
static void test_unknown_user_timing(void **state)
{
	struct webconfig wc;
	char slow[64], *yaml;
	double known, unknown;

	make_hash(slow, sizeof(slow), "$2b$", 8, "pw");
	yaml = fmt("basic_auth_users:\n  alice: %s\n", slow);
	load_ok(&wc, yaml);
	known = check_time(&wc, "alice");
	unknown = check_time(&wc, "mallory");
	print_message("bcrypt cost 8: known user %.1f ms, unknown user %.1f ms\n", known * 1e3,
	              unknown * 1e3);
	assert_true(unknown * 4 > known);
	assert_true(known * 4 > unknown);
	webconfig_free(&wc);
	free(yaml);
}

/* Certificate paths relative to the config file's directory, not to the
 * current directory; the config itself named by a relative path too. */
static void test_relative_paths(void **state)
{
	static const char yaml[] = "tls_server_config:\n"
	                           "  cert_file: tls/server.crt\n"
	                           "  key_file: ./tls/server.key\n";
	char p[PATH_MAX], cwd[PATH_MAX], err[512];
	struct webconfig wc;

	assert_int_equal(mkdir(at(p, sizeof(p), "etc"), 0755), 0);
	assert_int_equal(mkdir(at(p, sizeof(p), "etc/tls"), 0755), 0);
	spit("etc/tls/server.crt", "etc " CERT, 0644);
	spit("etc/tls/server.key", "etc " KEY, 0600);
	spit("etc/web.yml", yaml, 0600);
	assert_non_null(getcwd(cwd, sizeof(cwd)));

	assert_int_equal(chdir("/"), 0);
	assert_int_equal(webconfig_load(&wc, at(p, sizeof(p), "etc/web.yml"), err, sizeof(err)), 0);
	assert_string_equal(wc.cert_pem, "etc " CERT);
	assert_string_equal(wc.key_pem, "etc " KEY);
	webconfig_free(&wc);

	assert_int_equal(chdir(dir), 0);
	assert_int_equal(webconfig_load(&wc, "etc/web.yml", err, sizeof(err)), 0);
	assert_string_equal(wc.cert_pem, "etc " CERT);
	webconfig_free(&wc);

	/* a missing one: the message names where it was looked for */
	spit("etc/web.yml",
	     "tls_server_config:\n  cert_file: tls/server.crt\n  key_file: tls/gone.key\n", 0600);
	refused_at("etc/web.yml", -ENOENT, 3, "key_file etc/tls/gone.key does not exist");
	assert_int_equal(chdir(cwd), 0);
}

/* cert_file and key_file: both or neither; the client CA only with
 * RequireAndVerifyClientCert, which needs it. */
static void test_tls_pairs(void **state)
{
	char *only_cert = fmt("basic_auth_users:\n  alice: %s\ntls_server_config:\n"
	                      "  cert_file: server.crt\n",
	                      alice);

	/* users were read before the error: none is left */
	refused(only_cert, -EINVAL, 4, "tls_server_config gives cert_file but no key_file");
	refused("tls_server_config:\n  key_file: server.key\n", -EINVAL, 2,
	        "gives key_file but no cert_file");
	refused("tls_server_config:\n  client_ca_file: ca.crt\n", -EINVAL, 1,
	        "tls_server_config gives no cert_file and key_file");
	refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	        "  client_auth_type: RequireAndVerifyClientCert\n",
	        -EINVAL, 4, "RequireAndVerifyClientCert needs client_ca_file");
	refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	        "  client_ca_file: ca.crt\n",
	        -EINVAL, 4, "client_auth_type is not RequireAndVerifyClientCert");
	refused("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
	        "  client_auth_type: VerifyClientCertIfGiven\n  client_ca_file: ca.crt\n",
	        -EINVAL, 4, "VerifyClientCertIfGiven lets clients in without a verified");
	refused("tls_server_config:\n  client_auth_type: Sometimes\n", -EINVAL, 2,
	        "client_auth_type 'Sometimes' is unknown");
	refused("tls_server_config:\n  min_version: TLS10\n", -EINVAL, 2,
	        "TLS 1.0 and 1.1 are obsolete");
	refused("tls_server_config:\n  min_version: 1.3\n", -EINVAL, 2,
	        "min_version '1.3' is unknown: use TLS12 or TLS13");
	refused("tls_server_config:\n  cert_file: [a, b]\n", -EINVAL, 2,
	        "cert_file must be a string");
	free(only_cert);
}

/* Unknown keys are refused, as the toolkit does; so are the keys pfmtop
 * could only ignore at the user's expense. */
static void test_unknown_keys(void **state)
{
	refused("basic_auth_users:\ntls_config:\n  cert_file: a\n", -EINVAL, 2,
	        "an unknown key: the keys at the top are");
	refused("tls_server_config:\n  certfile: a\n", -EINVAL, 2,
	        "an unknown key in tls_server_config");
	refused("tls_server_config:\n  client_allowed_sans: [a.example]\n", -EINVAL, 2,
	        "client_allowed_sans is not supported");
	refused("tls_server_config:\n  key: |\n    -----BEGIN PRIVATE KEY-----\n", -EINVAL, 2,
	        "an inline key is not supported: put the PEM text in a file and name it with "
	        "key_file");
	refused("rate_limit:\n  interval: 1s\n", -EINVAL, 1, "rate_limit is not supported");
	refused("basic_auth_users:\nbasic_auth_users:\n", -EINVAL, 2,
	        "basic_auth_users is given twice (lines 1 and 2): keep one");
	refused("tls_server_config:\n  min_version: TLS12\n  min_version: TLS13\n", -EINVAL, 3,
	        "min_version is given twice");
	refused("tls_server_config: yes\n", -EINVAL, 1, "tls_server_config must be a mapping");
	refused("- tls_server_config\n", -EINVAL, 1, "the file must be a mapping");
	refused("? [a, b]\n: c\n", -EINVAL, 1, "keys are names");
}

/* Only bcrypt hashes; the message names the user, never the hash. */
static void test_not_bcrypt(void **state)
{
	static const char *const bad[] = {
	    "secret",
	    "$1$saltsalt$qjXMvbEw8oaL.CzflDugX/",
	    "$6$salt$IxDD3jeSOb5eB1CX5LBsqZFVkJdido3OUILO5Ifz5iwMuTS4XMS130MTSuDDl3aCI6",
	    "$2b$10$short",
	    "$2x$05$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
	    "$2b$03$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
	    "$2b$05$abcdefghijklmnopqrstuu!bcdefghijklmnopqrstuvwxyz01234",
	    "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
	};
	char yaml[256], err[512];
	struct webconfig wc;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(yaml, sizeof(yaml), "basic_auth_users:\n  alice: '%s'\n", bad[i]);
		refused(
		    yaml, -EINVAL, 2,
		    "the password hash of user 'alice' is not a bcrypt hash ($2a$, $2b$ or $2y$");
		spit("web.yml", yaml, 0600);
		assert_int_equal(webconfig_load(&wc, cfg, err, sizeof(err)), -EINVAL);
		assert_null(strstr(err, bad[i])); /* the hash stays out of logs */
	}
	refused("basic_auth_users:\n  alice:\n", -EINVAL, 2,
	        "user 'alice' has no password hash: make one with htpasswd");
	refused("basic_auth_users:\n  alice: [a]\n", -EINVAL, 2,
	        "the password hash of user 'alice' must be a string");
	refused("basic_auth_users: [alice]\n", -EINVAL, 1, "basic_auth_users must be a mapping");
}

/* A user listed twice, an empty name, a name basic auth cannot carry. */
static void test_user_names(void **state)
{
	char *twice =
	    fmt("basic_auth_users:\n  alice: %s\n  bob: %s\n  alice: %s\n", alice, bob, bob);
	char *empty = fmt("basic_auth_users:\n  '': %s\n", alice);
	char *colon = fmt("basic_auth_users:\n  'a:b': %s\n", alice);

	refused(twice, -EINVAL, 4, "user 'alice' is listed twice in basic_auth_users: keep one");
	refused(empty, -EINVAL, 2, "an empty user name");
	refused(colon, -EINVAL, 2, "user 'a:b' holds ':'");
	free(twice);
	free(empty);
	free(colon);
}

/* The config, certificate and CA files must not be writable by others;
 * the key must not be readable by them either (its group may read it). */
static void test_modes(void **state)
{
	static const char yaml[] = "tls_server_config:\n  cert_file: server.crt\n"
	                           "  key_file: server.key\n";
	char want[PATH_MAX * 2 + 64], key[PATH_MAX], cert[PATH_MAX];
	struct webconfig wc;

	spit("web.yml", "basic_auth_users:\n", 0666);
	snprintf(want, sizeof(want), " is writable by others (mode 0666): chmod go-w %s", cfg);
	refused_at(cfg, -EPERM, 0, want);
	assert_int_equal(chmod(cfg, 0620), 0);
	refused_at(cfg, -EPERM, 0, "is writable by its group (mode 0620): chmod go-w");
	assert_int_equal(chmod(cfg, 0644), 0); /* readable: it holds hashes, not passwords */
	assert_int_equal(webconfig_load(&wc, cfg, want, sizeof(want)), 0);
	webconfig_free(&wc);

	at(key, sizeof(key), "server.key");
	assert_int_equal(chmod(key, 0644), 0);
	snprintf(want, sizeof(want), "key_file %s is readable by others (mode 0644): chmod o-r %s",
	         key, key);
	refused(yaml, -EPERM, 3, want);
	if (geteuid() == 0) { /* only root can give a file away */
		assert_int_equal(chmod(key, 0600), 0);
		assert_int_equal(chown(key, 65534, 65534), 0);
		refused(yaml, -EPERM, 3,
		        "is owned by uid 65534, not by root: make root or the user running pfmtop "
		        "its owner");
		assert_int_equal(chown(key, 0, 0), 0);
	}
	assert_int_equal(chmod(key, 0602), 0);
	refused(yaml, -EPERM, 3, "is writable by others (mode 0602): chmod go-w");
	assert_int_equal(chmod(key, 0640), 0);
	load_ok(&wc, yaml);
	assert_string_equal(wc.key_pem, KEY);
	webconfig_free(&wc);
	assert_int_equal(chmod(key, 0600), 0);

	assert_int_equal(chmod(at(cert, sizeof(cert), "server.crt"), 0666), 0);
	refused(yaml, -EPERM, 2, "cert_file");
	assert_int_equal(chmod(cert, 0644), 0);
}

/* libyaml's complaints carry the line (and column) they are about. */
static void test_syntax_error(void **state)
{
	refused("tls_server_config:\n  cert_file: a\n   key_file: b\n", -EINVAL, 3,
	        "not valid YAML: mapping values are not allowed");
	refused("basic_auth_users:\n  alice: \"unclosed\n\n", -EINVAL, 4,
	        "not valid YAML: found unexpected end of stream");
	refused("http_server_config:\n  a: x\n b: y\n", -EINVAL, 3, "not valid YAML");
}

/* Aliases are refused, and so no billion laughs. */
static void test_alias(void **state)
{
	char *yaml = fmt("basic_auth_users:\n  alice: &h %s\n  bob: *h\n", alice);

	refused(yaml, -EINVAL, 3, "YAML aliases are not supported (here *h)");
	refused("http_server_config:\n  a: &a [lol, lol, lol]\n  b: &b [*a, *a, *a]\n", -EINVAL, 3,
	        "YAML aliases are not supported");
	free(yaml);
}

/* Nothing in the file: nothing enabled, as the toolkit has it. */
static void test_empty(void **state)
{
	static const char *const empty[] = {
	    "",
	    "# only a comment\n",
	    "---\n",
	    "--- ~\n...\n",
	    "{}\n",
	    "tls_server_config:\nbasic_auth_users:\nhttp_server_config:\n",
	    "tls_server_config: {}\nbasic_auth_users: {}\n",
	};
	struct webconfig wc;

	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		load_ok(&wc, empty[i]);
		assert_empty(&wc);
		assert_false(webconfig_wants_auth(&wc));
		webconfig_free(&wc);
	}
}

/* What the file could be instead: too big, nested without end, not text,
 * not one document, not a file. Each refused in a sentence, nothing kept. */
static void test_hostile(void **state)
{
	size_t big = WEBCONFIG_FILE_MAX + 1;
	char *text = malloc(big + 64), p[PATH_MAX], key[PATH_MAX];
	struct webconfig wc;
	char *nul_key = fmt("basic_auth_users:\n  \"a\\0b\": %s\n", alice);

	assert_non_null(text);
	memset(text, '#', big);
	spit_len("web.yml", text, big, 0600);
	refused_at(cfg, -EINVAL, 0, " is larger than 1024 KiB");

	/* a MiB of '[': refused at the 17th, whatever follows */
	memcpy(text, "http_server_config: ", 20);
	memset(text + 20, '[', WEBCONFIG_FILE_MAX - 20);
	spit_len("web.yml", text, WEBCONFIG_FILE_MAX, 0600);
	refused_at(cfg, -EINVAL, 1, "nested more than 16 deep");

	/* a key of half a MiB (explicit: "? KEY"): quoted cut short */
	memcpy(text, "? ", 2);
	memset(text + 2, 'k', WEBCONFIG_FILE_MAX / 2);
	memcpy(text + 2 + WEBCONFIG_FILE_MAX / 2, "\n: 1\n", 6);
	spit("web.yml", text, 0600);
	refused_at(cfg, -EINVAL, 1, "an unknown key: the keys at the top");
	assert_int_equal(webconfig_load(&wc, cfg, p, sizeof(p)), -EINVAL);
	assert_true(strlen(p) < strlen(cfg) + 200);

	/* more users than basic auth is for */
	size_t len = (size_t)snprintf(text, big, "basic_auth_users:\n");
	for (int i = 0; i <= 1000; i++)
		len += (size_t)snprintf(text + len, big - len, "  u%d: %s\n", i, alice);
	spit("web.yml", text, 0600);
	refused_at(cfg, -EINVAL, 1002, "more than 1000 users");

	SPIT_BYTES("web.yml", "basic_auth_users:\n  \xff\xfe: x\n", 0600);
	refused_at(cfg, -EINVAL, 2, "not UTF-8 text: invalid leading UTF-8 octet");
	SPIT_BYTES("web.yml", "basic_auth_users:\n  \xc3: x\n", 0600);
	refused_at(cfg, -EINVAL, 2, "not UTF-8 text");
	SPIT_BYTES("web.yml", "basic_auth_users:\n  a\0b: x\n", 0600);
	refused_at(cfg, -EINVAL, 2, "a NUL byte here, which YAML text cannot hold");
	SPIT_BYTES("web.yml", "\xff\xfe#\0a\0", 0600);
	refused_at(cfg, -EINVAL, 0, ": UTF-16 text: save it as UTF-8");
	SPIT_BYTES("web.yml", "\xef\xbb\xbf# a UTF-8 BOM is fine\n", 0600);
	assert_int_equal(webconfig_load(&wc, cfg, p, sizeof(p)), 0);
	webconfig_free(&wc);
	refused(nul_key, -EINVAL, 2, "a key in basic_auth_users holds a NUL byte");
	refused("basic_auth_users:\n---\nbasic_auth_users:\n", -EINVAL, 2,
	        "a second YAML document (---) starts here");
	refused("just a string\n", -EINVAL, 1, "the file must be a mapping");

	/* not regular files: a directory, a FIFO (not waited on) */
	refused_at(dir, -EINVAL, 0, " is not a regular file");
	assert_int_equal(mkfifo(at(p, sizeof(p), "fifo"), 0600), 0);
	refused_at(p, -EINVAL, 0, " is not a regular file");
	refused_at(at(p, sizeof(p), "nothere.yml"), -ENOENT, 0, " does not exist");

	/* a key in DER, or a certificate with a NUL in it: not PEM */
	SPIT_BYTES("der.key", "\x30\x82\x04\xbd\x02\x01", 0600);
	SPIT_BYTES("nul.crt", "-----BEGIN \0CERTIFICATE", 0644);
	refused("tls_server_config:\n  cert_file: server.crt\n  key_file: der.key\n", -EINVAL, 3,
	        "der.key is not PEM text (no -----BEGIN line)");
	refused("tls_server_config:\n  cert_file: nul.crt\n  key_file: server.key\n", -EINVAL, 2,
	        "nul.crt is not PEM text");
	snprintf(key, sizeof(key), "tls_server_config:\n  cert_file: server.crt\n  key_file: %s\n",
	         dir);
	refused(key, -EINVAL, 3, "is not a regular file");
	free(nul_key);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full),
	    cmocka_unit_test(test_check_user),
	    cmocka_unit_test(test_unknown_user_timing),
	    cmocka_unit_test(test_relative_paths),
	    cmocka_unit_test(test_tls_pairs),
	    cmocka_unit_test(test_unknown_keys),
	    cmocka_unit_test(test_not_bcrypt),
	    cmocka_unit_test(test_user_names),
	    cmocka_unit_test(test_modes),
	    cmocka_unit_test(test_syntax_error),
	    cmocka_unit_test(test_alias),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
