/* The fleet store's schema (schema.c, docs/FLEET.md "Schema"): made by push, migrated by push and
 * fleet, its version in table msamp_schema. */
#ifndef DRAIN_FLEET_SCHEMA_H
#define DRAIN_FLEET_SCHEMA_H

#include <libpq-fe.h>
#include <stddef.h>

#define FLEET_SCHEMA_VERSION 7

/* The version the schema is made or migrated to: this drain's, or MSAMP_DRAIN_FLEET_SCHEMA=N when
 * N is an older one (the test of a migration makes a version 1 store with it). */
int schema_target(void);
/* Creates the schema (create set: push; else none is an error), or checks its version (a newer
 * one is an error: this drain does not know it) and migrates an older one: 0, or -1 with err. */
int db_schema(PGconn *c, int create, char *err, size_t errlen);

#endif
