/* view: the interactive ncurses screen over the model. */
#ifndef PFMTOP_VIEW_H
#define PFMTOP_VIEW_H

#include "model.h"

#include <stdbool.h>
#include <stddef.h>

struct view;

enum view_action {
	VIEW_NONE,
	VIEW_QUIT,
	VIEW_SAVE,  /* write a snapshot file */
	VIEW_PAUSE, /* toggle */
	VIEW_REDRAW,
};

/* Take over the terminal; NULL with a sentence in err when it cannot (no
 * terminal, unknown TERM). */
struct view *view_open(char *err, size_t errlen);

/* Give the terminal back exactly as it was. Safe with NULL. */
void view_close(struct view *v);

/* Draw m (NULL: "waiting for the first interval"). */
void view_draw(struct view *v, const struct model *m);

/* Re-read the terminal size after SIGWINCH and redraw. */
void view_resize(struct view *v);

/* Read pending keys; returns what the caller must do. */
enum view_action view_input(struct view *v);

/* A one-line message in the status bar until the next key. */
void view_status(struct view *v, const char *msg);

/* Whether updates are paused (space). */
bool view_paused(const struct view *v);

#endif
