/* ptree: rows ordered as a tree by their parent (the F5 task tree). Pure:
 * no curses, no model. */
#ifndef PFMTOP_PTREE_H
#define PFMTOP_PTREE_H

#include <stdbool.h>

#define PTREE_PFX 48 /* bytes of glyphs before a name, '\0' included */

/*
 * Rows 0..n-1 (in the order siblings should keep, e.g. the sort order) with
 * id[i] and parent[i] (a parent not among the ids, or the row itself,
 * makes a root; rows in a cycle are taken as roots where the cycle is
 * first met). Writes order[0..m), the rows in tree order (each before its
 * children), and returns m: fewer than n when a row whose id is in
 * folded[0..nr_folded) hides its descendants. pfx[i] gets row i's glyphs
 * (ASCII: "|- ", "`- ", "|  "; "+" instead of "-" on a folded row with
 * children), kids[i] its number of children (pfx and kids may be NULL).
 * Returns -1 when out of memory (order is then the rows as given).
 */
int ptree_order(const int *id, const int *parent, int n, const int *folded, int nr_folded,
                int *order, char (*pfx)[PTREE_PFX], int *kids);

#endif
