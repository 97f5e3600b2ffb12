/* The fleet store (docs/FLEET.md): `drain push --db CONNINFO PROFILE...` stores profiles in
 * PostgreSQL (libpq), `drain fleet --db CONNINFO merge|top|devices|leaks` selects and queries
 * them. drain creates the schema itself (table msamp_schema holds its version). */
#ifndef DRAIN_FLEET_H
#define DRAIN_FLEET_H

#include <stddef.h>

int drain_push(int argc, char **argv);
int drain_fleet(int argc, char **argv);
/* Stores one profile file (drain --push while draining): 0, or -1 with the reason in err. */
int fleet_push_file(const char *conninfo, const char *path, char *err, size_t errlen);
/* fleet_load_libpq, which drain --push calls before draining: fleet/pq.h. */

#endif
