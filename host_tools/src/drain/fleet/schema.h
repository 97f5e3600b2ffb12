/* The fleet store's schema (schema.c, docs/FLEET.md "Schema"): made by push, migrated by push and
 * fleet, its version in table msamp_schema. */
#ifndef DRAIN_FLEET_SCHEMA_H
#define DRAIN_FLEET_SCHEMA_H

#include <libpq-fe.h>
#include <stddef.h>

#define FLEET_SCHEMA_VERSION 8

/* A stack's key h in msamp_stack and msamp_rollup (schema versions 7 and 8): a 64-bit hash of the
 * stack (text[], column or expression s) and task (t), computed by the server. */
#define MSAMP_STACK_H(s, t) "(hash_array_extended(" s ", 0) # hashtextextended(" t ", 0))"

/* The version the schema is made or migrated to: this drain's, or MSAMP_DRAIN_FLEET_SCHEMA=N when
 * N is an older one (the test of a migration makes a version 1 store with it). */
int schema_target(void);
/* Creates the schema (create set: push; else none is an error), or checks its version (a newer
 * one is an error: this drain does not know it) and migrates an older one: 0, or -1 with err. */
int db_schema(PGconn *c, int create, char *err, size_t errlen);

#endif
