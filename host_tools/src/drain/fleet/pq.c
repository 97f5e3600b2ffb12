/*
 * The fleet store's tie to PostgreSQL (docs/FLEET.md): libpq loaded (dlopen) when a store is first
 * used, its functions resolved into pq, and the connection helpers of push and fleet: connect, run
 * a command, put the server's error on one line, the head of their command lines.
 */
#include "fleet/pq.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


struct fleet_pq pq;

/* The library's name, MSAMP_DRAIN_LIBPQ overriding it (docs/FLEET.md; the test of a missing one). */
void fleet_load_libpq(void)
{
    if (pq.PQclear_)
        return;
    const char *name = getenv("MSAMP_DRAIN_LIBPQ");
    void *h = dlopen(name && *name ? name : "libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    void *f = NULL;
    const char *missing = NULL;
#define PQ_RESOLVE(ret, fn, args)                                                                \
    if (h && !missing && !(f = dlsym(h, #fn)))                                                   \
        missing = #fn;                                                                           \
    memcpy(&pq.fn##_, &f, sizeof(f));
    PQ_FNS(PQ_RESOLVE)
    if (!h || missing) {
        const char *why = dlerror();
        fprintf(stderr, "drain: the PostgreSQL store needs libpq (Debian package libpq5): %s\n",
                why ? why : missing);
        exit(1);
    }
}

/* err's trailing newlines and spaces (libpq's messages end with one) cut. */
static size_t trim_end(char *err)
{
    size_t l = strlen(err);
    while (l && (err[l - 1] == '\n' || err[l - 1] == ' '))
        err[--l] = 0;
    return l;
}

PGconn *db_open(const char *conninfo, char *err, size_t errlen)
{
    fleet_load_libpq();
    PGconn *c = PQconnectdb(conninfo);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        snprintf(err, errlen, "cannot connect to the database: %s",
                 c ? PQerrorMessage(c) : "out of memory");
        trim_end(err);
        PQfinish(c);
        return NULL;
    }
    PGresult *r = PQexec(c, "SET client_min_messages = warning");
    PQclear(r);
    return c;
}

int db_err(PGconn *c, PGresult *r, const char *what, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", what, PQresultErrorMessage(r)[0] ? PQresultErrorMessage(r)
                                                                        : PQerrorMessage(c));
    size_t l = strlen(err);
    for (size_t i = 0; i < l; i++) /* one line: the server's DETAIL and HINT after a ';' */
        if (err[i] == '\n' && i + 1 < l)
            err[i] = ';';
    l = trim_end(err);
    const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    if (st && *st)
        snprintf(err + l, errlen - l, " (SQLSTATE %s%s)", st,
                 strcmp(st, "53100") == 0   ? ": the database server's disk is full"
                 : strncmp(st, "53", 2) == 0 ? ": the database server is out of resources"
                                             : "");
    PQclear(r);
    return -1;
}

int db_cmd(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return db_err(c, r, what, err, errlen);
    PQclear(r);
    return 0;
}

int db_head(int argc, char **argv, const char *usage)
{
    if (argc >= 2 && strcmp(argv[1], "--help") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc < 4 || strcmp(argv[1], "--db") != 0) {
        fputs(usage, stderr);
        return 2;
    }
    return -1;
}
