/* actions: the one-shot commands, and the preset loading a run shares with them. */
#ifndef PFMTOP_ACTIONS_H
#define PFMTOP_ACTIONS_H

#include "options.h"
#include "preset.h"
#include "probe.h"

#include <stdbool.h>
#include <stddef.h>

/* Each returns pfmtop's exit status. */
int actions_list_events(const struct options *o); /* --list-events [GLOB] */
int actions_probe(const struct options *o);       /* --probe */
int actions_list_presets(void);                   /* --list-presets */
int actions_check_preset(const char *arg);        /* --check-preset NAME|FILE */
int actions_check_presets(void);                  /* --check-presets */
int actions_convert(const struct options *o);     /* --convert FILE */

/* Does arg name a file (a path, not a preset or theme name)? */
bool actions_is_file(const char *arg);

/* Load every preset (built-in, share dir, /etc, ~/.config, file). A file of
 * the search path that does not load is skipped (set->files says why); the
 * explicit file's error is -errno with file:line:col in err. only: NULL, or
 * the one preset wanted (see preset_paths.only): built-in presets of other
 * names are left out. */
int actions_try_load_presets(struct preset_set *set, const char *file, const char *only, char *err,
                             size_t errlen);

/* actions_try_load_presets(), exiting 2 on an error. */
void actions_load_presets(struct preset_set *set, const char *file, const char *only);

/* The one-line message for a skipped file of the search path. */
const char *actions_skipped_line(const struct preset_file *f, char *buf, size_t len);

/* The preset called name (with its variant for this machine's PMUs), or NULL. */
const struct preset *actions_preset_find_for(const struct preset_set *set, const char *name,
                                             struct probe *probe);

/* The preset an argument names: by name, or the first one in a file; exits
 * 2 when there is none or a broken file declares it. */
const struct preset *actions_pick_preset(const struct preset_set *set, const char *arg,
                                         struct probe *probe);

/* Does p name an event that nothing has (a typo: no PMU, present or not,
 * no sysfs PMU here, no tracepoint) or a malformed one? Then true, with
 * "preset NAME: <why>" of the first in why. A PMU not here is only a gap. */
bool actions_preset_misspelt(const struct preset *p, char *why, size_t whylen);

#endif
