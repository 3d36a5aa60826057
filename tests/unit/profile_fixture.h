/* profile_fixture.h: a profile over the fixture root's kernel symbols, for the profile's unit tests (after cmocka.h). */
#ifndef PFMTOP_TEST_PROFILE_FIXTURE_H
#define PFMTOP_TEST_PROFILE_FIXTURE_H

#include "procfs.h"
#include "profile_priv.h"
#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
	struct profile_config cfg;
	struct procfs proc;
	struct profile p;
};

/* A profile grouping by keys, with room for rows query rows, and no
 * sampler: tests add samples to f->p.hot themselves. */
static inline void fixture_open_rows(struct fixture *f, const char *keys, int rows)
{
	char root[PATH_MAX], err[160];

	memset(f, 0, sizeof(*f));
	snprintf(root, sizeof(root), "%s/symbols/root", testutil_fixtures());
	f->cfg.enabled = true;
	f->cfg.top = rows;
	snprintf(f->cfg.hot_keys, sizeof(f->cfg.hot_keys), "%s", keys);
	procfs_init(&f->proc, root);
	f->p.cfg = &f->cfg;
	f->p.proc = &f->proc;
	f->p.sym = symbols_new();
	assert_non_null(f->p.sym);
	assert_int_equal(symbols_set_root(f->p.sym, root), 0);
	assert_int_equal(symbols_load_kernel(f->p.sym), 0);
	f->p.rows = calloc((size_t)rows, sizeof(*f->p.rows));
	assert_non_null(f->p.rows);
	f->p.cap_rows = rows;
	assert_int_equal(hotspots_init(&f->p.hot, 0, 0, 0), 0);
	assert_int_equal(hotkeys_parse(keys, &f->p.keys, err, sizeof(err)), 0);
}

static inline void fixture_close(struct fixture *f)
{
	hotspots_fini(&f->p.hot);
	profile_hot_free(&f->p);
	profile_retired_free(&f->p);
	symbols_free(f->p.sym);
	free(f->p.rows);
	procfs_close(&f->proc);
}

#endif
