/* test_cells: text put on the screen (view_put, view_add, view_cells) gives
 * the cells, attributes, colours and cursor that waddnstr() gives for the
 * same text fitted the same way, at the edges of the screen too. */
#include "untrusted.h"
#include "view_priv.h"

#include <curses.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cmocka.h>

static struct view *v;

static int setup(void **state)
{
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");

	(void)state;
	if (!out || !in || !newterm("xterm-256color", out, in))
		return -1;
	start_color();
	v = calloc(1, sizeof(*v));
	if (!v)
		return -1;
	for (int i = 0; i < THEME_NR_SLOTS; i++) {
		init_pair((short)(i + 1), (short)(i % 8), (short)((i + 3) % 8));
		v->attr[i] = COLOR_PAIR(i + 1) | (i % 3 == 0 ? A_BOLD : i % 3 == 1 ? A_REVERSE : 0);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	endwin();
	free(v);
	return 0;
}

/* The screen's cells and cursor. */
struct shot {
	cchar_t c[MIN_LINES * 4][200];
	int y, x;
};

/* The cells (the cursor, which this moves, is taken before). */
static void take(struct shot *s)
{
	for (int y = 0; y < LINES; y++)
		for (int x = 0; x < COLS; x++)
			mvin_wch(y, x, &s->c[y][x]);
}

static void check_same(const struct shot *want, const struct shot *got, const char *what)
{
	for (int y = 0; y < LINES; y++)
		for (int x = 0; x < COLS; x++) {
			wchar_t wa[CCHARW_MAX + 1], wb[CCHARW_MAX + 1];
			attr_t aa, ab;
			short pa, pb;

			getcchar(&want->c[y][x], wa, &aa, &pa, NULL);
			getcchar(&got->c[y][x], wb, &ab, &pb, NULL);
			if (wcscmp(wa, wb) || aa != ab || pa != pb)
				fail_msg(
				    "%s: cell %d,%d is '%lc' attrs %#lx pair %d, waddnstr gives "
				    "'%lc' attrs %#lx pair %d",
				    what, y, x, (wint_t)wb[0], (unsigned long)ab, pb, (wint_t)wa[0],
				    (unsigned long)aa, pa);
		}
	if (want->y != got->y || want->x != got->x)
		fail_msg("%s: cursor at %d,%d, waddnstr leaves it at %d,%d", what, got->y, got->x,
		         want->y, want->x);
}

static struct shot want, got;

/* A screen of '#', for what is drawn over it. */
static void fill(void)
{
	attrset(A_NORMAL);
	for (int k = 0; k < LINES; k++)
		mvhline(k, 0, '#', COLS);
}

/* view_put(text at y, x in width) against the text fitted by
 * view_text_fit() and drawn by waddnstr(), over a screen of '#'. */
static void one_put(int y, int x, int width, const char *text, enum theme_slot slot, bool left)
{
	char safe[1024], fit[4096], what[160];
	int w = x + width > COLS ? COLS - x : width;

	fill();
	view_use(v, slot);
	view_text_fit(fit, sizeof(fit), untrusted_text(safe, sizeof(safe), text), w, left, true);
	mvaddstr(y, x, fit);
	getyx(stdscr, want.y, want.x);
	take(&want);
	fill();
	view_put(v, y, x, width, text, slot, left);
	getyx(stdscr, got.y, got.x);
	take(&got);
	snprintf(what, sizeof(what), "put '%.40s' at %d,%d in %d%s", text, y, x, width,
	         left ? "" : " (right)");
	check_same(&want, &got, what);
}

static void test_put(void **state)
{
	static const char *const texts[] = {
	    "", "a", "1234.5", "bench_load", "a b  c ~{}", "0123456789012345678901234"};

	(void)state;
	resizeterm(MIN_LINES, 80);
	for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++)
		for (int left = 0; left < 2; left++) {
			one_put(3, 0, 12, texts[t], THEME_ROW, left);
			one_put(4, 10, 6, texts[t], THEME_HEADER, left); /* cut */
			one_put(5, 70, 10, texts[t], THEME_ROW_SELECTED,
			        left);                                     /* the last column */
			one_put(6, 75, 10, texts[t], THEME_ROW_DIM, left); /* past it */
			one_put(LINES - 1, 70, 10, texts[t], THEME_STATUS, left); /* the corner */
			one_put(LINES - 1, 0, 80, texts[t], THEME_NOTE, left);
		}
	/* not ASCII: the other path, which these compare with too */
	one_put(2, 5, 10, "caf\xc3\xa9", THEME_ROW, true);
	one_put(2, 5, 10, "a\tb\x1b[2J", THEME_ROW, false);
}

/* view_add() of texts one after another against waddnstr() of each fitted
 * to the room left, as a header line is drawn. */
static void test_add(void **state)
{
	static const char *const texts[] = {" pfmtop ",
	                                    "0.1.0",
	                                    "  host ",
	                                    "vm",
	                                    "  every ",
	                                    "1s",
	                                    "",
	                                    "  a long text that runs off "
	                                    "the edge of the screen"};

	(void)state;
	resizeterm(MIN_LINES, 60);
	for (int y = 0; y < LINES; y += LINES - 1) {
		int x = 0;
		fill();
		for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]) && x < COLS; t++) {
			char safe[1024], fit[4096];
			const char *s = untrusted_text(safe, sizeof(safe), texts[t]);
			view_use(v, (enum theme_slot)t);
			view_text_fit(fit, sizeof(fit), s, COLS - x, true, false);
			mvaddstr(y, x, fit);
			x += view_text_width(s);
		}
		getyx(stdscr, want.y, want.x);
		take(&want);
		fill();
		x = 0;
		bool more = true;
		for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]) && more; t++)
			more = view_add(v, y, &x, texts[t], (enum theme_slot)t);
		assert_false(more);
		getyx(stdscr, got.y, got.x);
		take(&got);
		check_same(&want, &got, y ? "add on the last line" : "add");
	}
}

/* view_cells() with an attribute per cell, as the meters draw. */
static void test_cells(void **state)
{
	const char *text = "[|||||||        42.0%]";
	const int n = (int)strlen(text);
	chtype c[64];

	(void)state;
	resizeterm(MIN_LINES, 50);
	for (int x = 0; x + n <= COLS; x += COLS - n) {
		fill();
		for (int i = 0; i < n; i++) {
			char one[2] = {text[i], '\0'};
			view_use(v, (enum theme_slot)(i % 5));
			mvaddstr(2, x + i, one);
		}
		getyx(stdscr, want.y, want.x);
		take(&want);
		fill();
		for (int i = 0; i < n; i++)
			c[i] = (unsigned char)text[i] | v->attr[i % 5];
		view_cells(2, x, c, n);
		getyx(stdscr, got.y, got.x);
		take(&got);
		check_same(&want, &got, x ? "cells at the edge" : "cells");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_put),
	    cmocka_unit_test(test_add),
	    cmocka_unit_test(test_cells),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
