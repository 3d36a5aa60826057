/* meter: the text of an htop-style meter bar ("[|||||    23.4%]") and the
 * screen's human units, without curses, so that tests can check them. */
#ifndef PFMTOP_METER_H
#define PFMTOP_METER_H

#include <stddef.h>

/* What a character of a meter shows. */
enum meter_part {
	METER_FRAME, /* a bracket, or the percentage */
	METER_EMPTY,
	METER_USER,
	METER_SYSTEM,
	METER_OTHER,
};

/* The cells of a bar of n cells that each part fills: the parts end at the
 * rounded running sums (user, user + system, all), so rounding never makes
 * the bar longer or shorter than the total. Percentages are clamped to
 * 0..100; NaN counts as 0. total NaN: the sum of the parts. */
void meter_split(double user, double sys, double other, double total, int n, int *nuser, int *nsys,
                 int *nother);

/*
 * A meter of exactly width characters into text (width + 1 bytes at least,
 * ASCII only) and what each character shows into part (width entries):
 * "[", a '|' per filled cell, spaces, the total as "23.4%" at the right
 * end, "]". Narrow: without the percentage when it would leave fewer than
 * 2 cells of bar, without brackets below 3 characters. Returns width.
 * user, sys, other NaN (the split unknown): the bar is all user.
 */
int meter_render(double user, double sys, double other, double total, int width, char *text,
                 enum meter_part *part);

/* v in human units for the screen: below 1000 as it is (decimals places),
 * else K, M, G, T with one decimal ("1.2K", "45.7M"), in at most width
 * characters (the decimal goes first when it does not fit). NaN: "-". */
char *meter_human(double v, int decimals, int width, char *buf, size_t len);

#endif
