/* untrusted: text from outside (names, paths, symbols, user input) made safe for each sink. */
#ifndef PFMTOP_UNTRUSTED_H
#define PFMTOP_UNTRUSTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Every string pfmtop did not write itself (a process's name or command
 * line, a user, group or cgroup name, a symbol, a module path, a file name,
 * what the user typed) reaches a terminal, a text file or a JSON line only
 * through one of these, so that no byte of it can steer a terminal or break
 * a line.
 *
 * Text (terminals, text snapshots, stderr): valid UTF-8 passes unchanged
 * (a name like "zürich-λ" stays readable); C0 controls and DEL become ^X
 * (^? for DEL), C1 controls (U+0080-U+009F) and the bytes of invalid UTF-8
 * become \xNN. No ESC, CSI or OSC ever comes out.
 */

/* s made safe as text, into out (len bytes, NUL-terminated, cut at a
 * character boundary when it does not fit). Returns out. */
char *untrusted_text(char *out, size_t len, const char *s);

/* The same, written to f; '\n' kept when keep_newlines (multi-line
 * messages), escaped as ^J otherwise. */
void untrusted_fputs(FILE *f, const char *s, bool keep_newlines);

/* Columns that text already made safe takes on a terminal: wcwidth() in
 * the current locale (wide characters two, combining ones none), one for
 * a character it does not know. */
int untrusted_width(const char *s);

/*
 * s as a strict JSON string, quotes included: '"' and '\' escaped, every
 * control (C0, DEL, C1) as \u00XX, invalid UTF-8 as U+FFFD. Returns true
 * when bytes of s were replaced (so the caller can give them in hex, see
 * untrusted_json_field()).
 */
bool untrusted_json(FILE *f, const char *s);

/* "key":"s" for JSON, and when bytes were replaced, "key_raw":"HEX" (s's
 * bytes in lower-case hex) after it. */
void untrusted_json_field(FILE *f, const char *key, const char *s);

/*
 * Every message to stderr: "pfmtop: " and the text, through the text sink,
 * since messages quote what users typed and names from outside (newlines
 * kept: some messages have a caret line).
 */
void untrusted_complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
