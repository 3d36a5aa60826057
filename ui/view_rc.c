/* view_rc: the view's settings as the settings file (pfmtoprc) keeps them. */
#include "view_priv.h"

#include "rcfile.h"
#include "util.h"

#include <string.h>

/* The Tasks view's sort as --sort spells it; false for a column --sort
 * does not take (USER, THR, STATE). */
static bool sort_name(const struct view *v, char *buf, size_t len)
{
	const struct sort_key *k = &v->sort[VIEW_TASKS];
	const struct model *m = v->m;

	switch (k->kind) {
	case C_CPUPCT:
		util_strlcpy(buf, "cpu", len);
		return true;
	case C_PID:
		util_strlcpy(buf, "pid", len);
		return true;
	case C_COMMAND:
		util_strlcpy(buf, "command", len);
		return true;
	case C_EVENT:
		if (!m || k->index < 0 || k->index >= m->nr_events)
			return false;
		util_strlcpy(buf, m->events[k->index].name, len);
		return true;
	case C_METRIC:
		if (!m || k->index < 0 || k->index >= m->nr_metrics)
			return false;
		util_strlcpy(buf, m->metrics[k->index].name, len);
		return true;
	default:
		return false;
	}
}

/* The Tasks view's column choice (F2) as one line of text; false when it
 * does not fit the file's line. */
static bool columns_text(const struct view *v, char *buf, size_t len)
{
	const char *text = view_columns_text(&v->set, VIEW_TASKS);

	if (strlen(text) >= len)
		return false;
	util_strlcpy(buf, text, len);
	return true;
}

void view_rc_get(const struct view *v, struct rcfile *rc)
{
	char cols[sizeof(rc->columns)];

	/* mono because the terminal has no colours is not a choice */
	if (!v->mono_only && v->theme >= 0 && v->theme < v->themes.nr) {
		rc->have_theme = true;
		util_strlcpy(rc->theme, v->themes.t[v->theme].name, sizeof(rc->theme));
	}
	rc->have_delay = true;
	rc->interval_ns = v->set.interval_ns;
	rc->have_view = true;
	rc->view = (int)v->kind;
	if (!v->task_sort_from_model) /* else: not seen yet, the one it had stays */
		rc->have_sort = sort_name(v, rc->sort, sizeof(rc->sort));
	rc->have_hide_kernel = rc->have_hide_user = true;
	rc->hide_kernel = v->set.hide_kernel;
	rc->hide_user = v->set.hide_user;
	if (columns_text(v, cols, sizeof(cols))) {
		rc->have_columns = true;
		util_strlcpy(rc->columns, cols, sizeof(rc->columns));
	}
}

int view_rc_columns_set(struct view *v, const char *text, char *err, size_t errlen)
{
	err[0] = '\0';
	return view_columns_parse(&v->set, VIEW_TASKS, text, err, errlen);
}
