/* model_json: a JSON snapshot (one line of --format json) read back into a model. */
#ifndef PFMTOP_MODEL_JSON_H
#define PFMTOP_MODEL_JSON_H

#include "model.h"

#include <stddef.h>

/*
 * Parse one JSON snapshot of len bytes into m (not initialised: this sets it
 * up, and the caller calls model_fini() on success). What the JSON renderer
 * writes comes back as it was: rendering the model as JSON again gives the
 * same bytes. The text is untrusted: sizes are bounded, strings cut to the
 * model's fields, anything malformed refused. 0, or -EINVAL (-ENOMEM) with
 * the reason in err, m left empty.
 */
int model_from_json(struct model *m, const char *text, size_t len, char *err, size_t errlen);

#endif
