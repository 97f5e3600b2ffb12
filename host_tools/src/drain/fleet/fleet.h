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
/* Loads libpq (libpq.so.5, or MSAMP_DRAIN_LIBPQ) once, when a store is first used; without it,
 * a clear error and exit 1. drain --push calls it before draining, push and fleet on connecting. */
void fleet_load_libpq(void);

#endif
