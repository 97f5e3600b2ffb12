/* drain fleet's selection and its queries' one loop (query.c): the filters of the command line as
 * SQL over msamp_profile p (and msamp_site st) with their parameters; and fleet_query_run, which
 * runs a query described as data (its SQL, its tables' row printers: queries.c, leaks.c) and prints
 * its rows as text on stdout and, with --json FILE, as JSON. */
#ifndef DRAIN_FLEET_QUERY_H
#define DRAIN_FLEET_QUERY_H

#include <stdio.h>

#include "fleet/pq.h"
#include "util.h"

#define MAX_FILTERS 64
#define MAX_TYPES 64 /* sample types top sums */

/* The selection: the filters, then as SQL (sel_build) with its parameters. */
struct sel {
    const char *device[MAX_FILTERS];
    int ndevice;
    const char *build, *since, *until, *json;
    const char *label[MAX_FILTERS];
    int nlabel;
    long ntop; /* top's --top N */
    int exact; /* merge's --exact */
    const char *params[2 * MAX_FILTERS + 4 + MAX_TYPES];
    int nparams;
    struct buf where;    /* over msamp_profile p */
    struct buf where_st; /* over msamp_site st: --since on its t_end too (partition pruning) */
};

/* v as the selection's next parameter: its name ("$N") in the SQL. */
const char *add_param(struct sel *s, const char *v);
/* A time: seconds since the epoch, or anything PostgreSQL's timestamptz reads (parameter pn). */
void time_sql(struct buf *b, const char *pn);
/* Whether the server reads t as a time (time_sql): 0; 2 with why when it does not (a data
 * exception, SQLSTATE class 22: bad input, the command line's); -1 with why on another error. */
int time_check(PGconn *c, const char *opt, const char *t, char *why, size_t whylen);
/* The filters into where and where_st. */
void sel_build(struct sel *s);
/* The selection by rollup bucket (docs/FLEET.md "Rollups"), as two SQL CTEs into b: fb, the
 * buckets it holds whole (the filters true of each of their profiles: t_end at its least, t_start
 * at its most) with their device and id; pp, the profiles it selects of the other buckets, with
 * their device, id and t_end, then pp_cols (", p.COL..." of msamp_profile p; NULL none). A query
 * reads fb's rollups and pp's site rows (merge: fb's merged profiles, pp's files). */
void fleet_sel_buckets(struct buf *b, struct sel *s, const char *pp_cols);
/* sql run with the selection's parameters: its rows, or NULL with "query: ..." in err. */
PGresult *sel_query(PGconn *c, struct sel *s, const char *sql, char *err, size_t errlen);

/* What a query read: its rows (r), a second result (aux: top's sample types, leaks' verdicts),
 * what it made of them (made: leaks' suspects) and the rows of each of its tables. */
struct fleet_rows {
    PGresult *r, *aux;
    void *made;
    int n[2];
};

/* A table of a query's output: a title, then its rows, as text on stdout; in the JSON document,
 * the array of its rows' objects named key. */
struct fleet_table {
    const char *key;
    void (*title)(const struct fleet_rows *q);
    void (*text)(const struct fleet_rows *q, int i);
    void (*json)(FILE *js, const struct fleet_rows *q, int i); /* row i as one JSON object */
};

/* A query of drain fleet, as data: each step NULL when it has none. */
struct fleet_query {
    /* Before its SQL: what the SQL needs (top: the selection's sample types, into aux). */
    int (*before)(PGconn *c, struct sel *s, struct fleet_rows *q, char *err, size_t errlen);
    /* Its SQL over the selection (its WHERE and parameters; it may add parameters). */
    void (*sql)(struct buf *b, struct sel *s, const struct fleet_rows *q);
    /* After it: what its tables print (leaks: the verdicts read, the suspects; n set). Without it,
     * one table of the query's rows. */
    int (*after)(PGconn *c, struct sel *s, struct fleet_rows *q, char *err, size_t errlen);
    void (*free)(struct fleet_rows *q); /* made */
    int ntable;
    struct fleet_table table[2];
};

/* Runs query d over the selection and prints its tables: as text, and as one JSON document
 * {"KEY":[...],...} to --json FILE, written whole or not at all. Nothing is printed when a step
 * fails: -1 with why in err. */
int fleet_query_run(PGconn *c, struct sel *s, const struct fleet_query *d, char *err,
                    size_t errlen);

#endif
