/* events_table: events resolved once, by name, and looked up after. */
#include "events.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct events_entry *events_table_find(const struct events_table *t, const char *name)
{
	for (int i = 0; t && i < t->nr; i++)
		if (!strcmp(t->e[i].desc.name, name))
			return &t->e[i];
	return NULL;
}

int events_entry_result(const struct events_entry *e, struct event_desc *out, char *err,
                        size_t errlen)
{
	*out = e->desc;
	if (e->ret)
		util_strlcpy(err, e->why, errlen);
	return e->ret;
}

int events_table_resolve(struct events_table *t, const struct event_roots *r, const char *name,
                         struct event_desc *out, char *err, size_t errlen)
{
	const struct events_entry *found = events_table_find(t, name);
	struct events_entry *e;

	if (found)
		return events_entry_result(found, out, err, errlen);
	if (util_grow(&t->e, t->nr, &t->cap, sizeof(*t->e), 16))
		return events_resolve(r, name, out, err, errlen); /* no room to remember it */
	e = &t->e[t->nr];
	memset(e, 0, sizeof(*e));
	e->ret = events_resolve(r, name, &e->desc, e->why, sizeof(e->why));
	util_strlcpy(e->desc.name, name, sizeof(e->desc.name)); /* the key, also on failure */
	t->nr++;
	return events_entry_result(e, out, err, errlen);
}

void events_table_free(struct events_table *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}
