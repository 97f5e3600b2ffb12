/* The queries of drain fleet that print tables (docs/FLEET.md), each described for
 * fleet_query_run (query.h): top and devices (queries.c), leaks (leaks.c). */
#ifndef DRAIN_FLEET_QUERIES_H
#define DRAIN_FLEET_QUERIES_H

#include "fleet/query.h"

extern const struct fleet_query fleet_top_query;
extern const struct fleet_query fleet_devices_query;
extern const struct fleet_query fleet_leaks_query;

#endif
