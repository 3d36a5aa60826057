/* theme: colour themes as semantic slots, read from INI files with inih. */
#ifndef PFMTOP_THEME_H
#define PFMTOP_THEME_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The slot table: one line per slot gives its enum, its INI key, its
 * built-in style on 8-colour terminals and on 256-colour ones (an empty
 * 256-colour default means "as on 8 colours"). A style is
 * "FG [on BG][, ATTR...]" with colours default, black, red, green, yellow,
 * blue, magenta, cyan, white, and (256 colours only) bright-NAME or colorN;
 * ATTRs are bold, dim, reverse, underline, standout, italic, normal.
 */
#define THEME_SLOTS(X)                                                                             \
	X(HEADER, "header", "white on blue, bold", "color231 on color24, bold")                    \
	X(HEADER_VALUE, "header.value", "yellow on blue, bold", "color222 on color24, bold")       \
	X(TAB, "tab", "white on blue", "color252 on color24")                                      \
	X(TAB_ACTIVE, "tab.active", "black on cyan, bold", "color16 on color81, bold")             \
	X(COLUMN_TITLE, "column.title", "black on green", "color16 on color114")                   \
	X(COLUMN_SORTED, "column.sorted", "black on cyan, bold", "color16 on color81, bold")       \
	X(ROW, "row", "default", "")                                                               \
	X(ROW_SELECTED, "row.selected", "black on cyan", "color16 on color153")                    \
	X(ROW_DIM, "row.dim", "default, dim", "color244")                                          \
	X(ROW_TOTAL, "row.total", "default, bold", "")                                             \
	X(HOT_HIGH, "hot.high", "red, bold", "color203, bold")                                     \
	X(HOT_MID, "hot.mid", "yellow", "color221")                                                \
	X(HOT_LOW, "hot.low", "default", "color250")                                               \
	X(VALUE_MULTIPLEXED, "value.multiplexed", "cyan", "color117")                              \
	X(VALUE_UNSUPPORTED, "value.unsupported", "magenta", "color176")                           \
	X(VALUE_NOT_COUNTED, "value.not_counted", "default, dim", "color242")                      \
	X(VALUE_CHANGED, "value.changed", "yellow, bold", "color229, bold")                        \
	X(BADGE_LOST, "badge.lost", "white on red, bold", "color231 on color160, bold")            \
	X(BADGE_THROTTLE, "badge.throttle", "black on yellow", "color16 on color214")              \
	X(BADGE_MULTIPLEXED, "badge.multiplexed", "black on cyan", "color16 on color117")          \
	X(BADGE_UNSUPPORTED, "badge.unsupported", "white on magenta", "color231 on color97")       \
	X(BADGE_OK, "badge.ok", "black on green", "color16 on color114")                           \
	X(NOTE, "note", "yellow", "color221")                                                      \
	X(KEY, "key", "black on cyan", "color16 on color81")                                       \
	X(KEY_LABEL, "key.label", "default", "")                                                   \
	X(STATUS, "status", "black on yellow", "color16 on color222")                              \
	X(MESSAGE, "message", "white on red, bold", "color231 on color160, bold")                  \
	X(METER_USER, "meter.user", "green, bold", "color114, bold")                               \
	X(METER_SYSTEM, "meter.system", "red, bold", "color203, bold")                             \
	X(METER_OTHER, "meter.other", "cyan", "color117")                                          \
	X(METER_FRAME, "meter.frame", "default, bold", "")

#define THEME_ENUM(id, key, def8, def256) THEME_##id,
enum theme_slot { THEME_SLOTS(THEME_ENUM) THEME_NR_SLOTS };
#undef THEME_ENUM

/* Attribute bits of a style (the view turns them into curses attributes). */
#define THEME_BOLD      0x01u
#define THEME_DIM       0x02u
#define THEME_REVERSE   0x04u
#define THEME_UNDERLINE 0x08u
#define THEME_STANDOUT  0x10u
#define THEME_ITALIC    0x20u

#define THEME_DEFAULT_COLOR (-1)

struct theme_style {
	short fg, bg; /* 0..255, or THEME_DEFAULT_COLOR */
	unsigned attrs;
};

#define THEME_NAME_MAX 64

struct theme {
	char name[THEME_NAME_MAX]; /* "default", or the file's name without .ini */
	char description[128];
	char origin[PATH_MAX];                   /* "built-in", or the file it came from */
	struct theme_style c8[THEME_NR_SLOTS];   /* 8-colour terminals */
	struct theme_style c256[THEME_NR_SLOTS]; /* 256-colour terminals */
	bool mono;                               /* uses no colours at all */
};

struct theme_error {
	char file[PATH_MAX]; /* or "built-in NAME" */
	int line;            /* 0 when the file could not be read at all */
	char msg[256];
};

/* "path:line: message" (or "path: message"). */
void theme_error_format(const struct theme_error *e, char *buf, size_t len);

/* The slot's INI key ("row.selected"), NULL out of range. */
const char *theme_slot_key(enum theme_slot slot);

/* The compiled-in fallback: the slot table's defaults, named "default". */
void theme_builtin(struct theme *t);

/* Parse one style; 0 or -EINVAL (allow256: colorN and bright- names). */
int theme_parse_style(const char *text, bool allow256, struct theme_style *out);

/* Read a theme from text (named name, from origin) or from a file (named
 * after it). Slots it leaves out keep the built-in styles. 0, or -errno
 * with e filled (file:line for syntax and unknown keys); t then holds the
 * built-in theme. */
int theme_load_string(struct theme *t, const char *name, const char *origin, const char *text,
                      struct theme_error *e);
int theme_load_file(struct theme *t, const char *path, struct theme_error *e);

#define THEME_MAX 32

/* Every theme found: built-in ones, then the share dir, then the user's
 * dir (a later one replaces an earlier one of the same name). */
struct theme_set {
	int nr;
	struct theme t[THEME_MAX]; /* t[0..nr) */
	int nr_errors;             /* broken files, skipped */
	struct theme_error error;  /* the first of them */
};

struct theme_paths {
	char datadir[PATH_MAX]; /* <prefix>/share/pfmtop/themes */
	char userdir[PATH_MAX]; /* $XDG_CONFIG_HOME/pfmtop/themes or ~/.config/pfmtop/themes */
};

/* The default places, worked out from /proc/self/exe and the environment. */
void theme_paths_default(struct theme_paths *p);

/* Fill set from the built-in themes and the directories of p (NULL: the
 * built-in ones only). Never fails: a broken file is skipped and counted. */
void theme_set_load(struct theme_set *set, const struct theme_paths *p);

/* Index of the theme called name in set, -1 if none. */
int theme_set_find(const struct theme_set *set, const char *name);

/*
 * Choose the theme for arg (NULL: "default"; a name, or a file when it has
 * a '/' or ends in .ini, which is added to set). Returns its index; on an
 * unknown name or a broken file, the index of the built-in default with
 * the reason in err. mono_only (NO_COLOR, no colours) picks "mono" instead
 * of a coloured theme.
 */
int theme_set_choose(struct theme_set *set, const char *arg, bool mono_only, char *err,
                     size_t errlen);

/* --theme arg, checked before the view takes the screen: 0, or -errno
 * with one line in err (a file that cannot be used, or an unknown name
 * with the names there are). */
int theme_check(const char *arg, char *err, size_t errlen);

/* The built-in theme files (generated from the .ini files of themes/). */
struct theme_builtin_file {
	const char *name; /* "default.ini" */
	const char *text;
};
extern const struct theme_builtin_file themes_builtin[];
extern const int themes_builtin_count;

#endif
