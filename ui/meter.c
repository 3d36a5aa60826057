/* meter: htop-style meter bars and the screen's human units (K, M, G). */
#include "meter.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double clamp_pct(double p)
{
	return isnan(p) || p < 0 ? 0 : p > 100 ? 100 : p;
}

static int cells_of(double pct, int n)
{
	int c = (int)lround(clamp_pct(pct) * n / 100.0);

	return c < 0 ? 0 : c > n ? n : c;
}

void meter_split(double user, double sys, double other, double total, int n, int *nuser, int *nsys,
                 int *nother)
{
	int all, us, u;

	if (n < 0)
		n = 0;
	user = clamp_pct(user);
	sys = clamp_pct(sys);
	other = clamp_pct(other);
	if (isnan(total))
		total = user + sys + other;
	all = cells_of(total, n);
	u = cells_of(user, n);
	us = cells_of(user + sys, n);
	if (u > all)
		u = all;
	if (us > all)
		us = all;
	if (us < u)
		us = u;
	*nuser = u;
	*nsys = us - u;
	*nother = all - us;
}

int meter_render(double user, double sys, double other, double total, int width, char *text,
                 enum meter_part *part)
{
	char pct[16] = "";
	int inner, x0, nu, ns, no, tl;

	if (width <= 0) {
		text[0] = '\0';
		return 0;
	}
	if (isnan(user) && isnan(sys) && isnan(other))
		user = total; /* the split is not known: all of it as user */
	if (isnan(total))
		total = clamp_pct(user) + clamp_pct(sys) + clamp_pct(other);
	total = clamp_pct(total);
	x0 = width >= 3 ? 1 : 0;
	inner = width - 2 * x0;
	snprintf(pct, sizeof(pct), "%.1f%%", total);
	tl = (int)strlen(pct);
	if (inner - tl < 2)
		tl = 0; /* no room for the number: the bar alone */
	meter_split(user, sys, other, total, inner, &nu, &ns, &no);
	for (int i = 0; i < width; i++) {
		text[i] = ' ';
		part[i] = METER_EMPTY;
	}
	if (x0) {
		text[0] = '[';
		text[width - 1] = ']';
		part[0] = part[width - 1] = METER_FRAME;
	}
	for (int i = 0; i < nu + ns + no; i++) {
		text[x0 + i] = '|';
		part[x0 + i] = i < nu ? METER_USER : i < nu + ns ? METER_SYSTEM : METER_OTHER;
	}
	for (int i = 0; i < tl; i++) {
		text[x0 + inner - tl + i] = pct[i];
		part[x0 + inner - tl + i] = METER_FRAME;
	}
	text[width] = '\0';
	return width;
}

char *meter_human(double v, int decimals, int width, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	double a = fabs(v);
	int u = -1, n;

	if (isnan(v) || isinf(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (width < 1)
		width = 1;
	/* the unit that keeps the number below 1000 once rounded to 0.1 */
	while (round(a * 10) / 10 >= 1000.0 && units[u + 1]) {
		a /= 1000.0;
		u++;
	}
	if (u < 0) {
		n = snprintf(buf, len, "%.*f", decimals, v);
		if (n > width && decimals)
			snprintf(buf, len, "%.0f", v);
		return buf;
	}
	n = snprintf(buf, len, "%s%.1f%c", v < 0 ? "-" : "", a, units[u]);
	if (n > width)
		snprintf(buf, len, "%s%.0f%c", v < 0 ? "-" : "", a, units[u]);
	return buf;
}
