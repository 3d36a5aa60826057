/* view_term: whether the terminal can carry the view, asked before it is taken. */
#include "view.h"

#include <curses.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <term.h>
#include <unistd.h>

int view_term_check(char *err, size_t errlen)
{
	const char *term = getenv("TERM") ? getenv("TERM") : "";
	int e = 0;

	if (setupterm(NULL, STDOUT_FILENO, &e) != OK) {
		snprintf(err, errlen,
		         "cannot use terminal type '%s': set TERM (e.g. xterm-256color) or use -b",
		         term);
		return -1;
	}
	const char *cup = tigetstr("cup");
	bool moves = cup && cup != (const char *)-1;
	del_curterm(cur_term);
	if (!moves) {
		snprintf(err, errlen,
		         "terminal type '%s' cannot move the cursor, which the view needs: use a "
		         "terminal such as xterm-256color (TERM), or -b for snapshots",
		         term);
		return -1;
	}
	return 0;
}
