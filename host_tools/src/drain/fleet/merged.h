/* drain fleet merge (merged.c, docs/FLEET.md "Merged buckets"). */
#ifndef DRAIN_FLEET_MERGED_H
#define DRAIN_FLEET_MERGED_H

#include "fleet/pq.h"
#include "fleet/query.h"

/* The selection's profiles merged as drain merge does into out, written whole or not at all: the
 * buckets it holds whole by their merged profiles (made and kept when missing), the others by
 * their files; exact: every file (byte for byte drain merge's). 0, or -1 with err. */
int fleet_merge(PGconn *c, struct sel *s, const char *out, int exact, char *err, size_t errlen);

#endif
